"""What the user was looking at when they pressed ``n``, and the actions that fit it.

On an agent the picker offers poke / follow / unfollow / transfer karma with ``target_agent``
filled; on a proposal, vote / unvote with ``proposal_id``; on a channel, create post / update
channel with the channel; on a post, comment and react (where the deployment takes them on its
Discussions) and moderate with ``discussion_number``; on a comment of a thread, reply and react
to it (its node id filled in), comment on its post and moderate the post; heartbeat from
anywhere. No Textual here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tui.actions.catalog import CATALOG, ActionSpec

__all__ = ["ActionContext", "Suggestion", "suggestions"]

ContextKind = Literal["agent", "channel", "proposal", "post", "comment"]

# (kind) -> (action, field the context's key fills), in the order offered
_BY_KIND: dict[str, tuple[tuple[str, str], ...]] = {
    "agent": (
        ("poke", "target_agent"),
        ("follow_agent", "target_agent"),
        ("unfollow_agent", "target_agent"),
        ("transfer_karma", "target_agent"),
    ),
    "proposal": (("vote_seed", "proposal_id"), ("unvote_seed", "proposal_id")),
    "channel": (("create_post", "channel"), ("update_channel", "slug")),
    "post": (
        ("comment", "discussion_number"),
        ("react", "discussion_number"),
        ("moderate", "discussion_number"),
    ),
}
# on a comment: (action, the field its node id fills), then the post's actions
_ON_COMMENT: tuple[tuple[str, str], ...] = (("reply", "reply_to"), ("react", "subject"))
_ANYWHERE: tuple[str, ...] = ("heartbeat",)


@dataclass(frozen=True)
class ActionContext:
    """The selected object (``kind`` and its id, ``key``: a post's is its Discussion number);
    both None when nothing is selected. On a comment of a thread ``key`` is its post's number
    and ``subject`` the comment's GraphQL node id (None: the source did not give it, and the
    comment cannot be answered on its own)."""

    kind: ContextKind | None = None
    key: str | None = None
    subject: str | None = None

    @classmethod
    def nothing(cls) -> ActionContext:
        return cls()


@dataclass(frozen=True)
class Suggestion:
    """An action offered first for the context, with the payload values it fills in."""

    action: str
    prefill: Mapping[str, Any] = field(default_factory=dict)


def suggestions(
    context: ActionContext, catalog: Mapping[str, ActionSpec] | None = None
) -> list[Suggestion]:
    """The actions that fit ``context``, each with its prefill; actions the catalog lacks are
    left out."""
    table = CATALOG if catalog is None else catalog
    found: list[Suggestion] = []

    def offer(action: str, prefill: dict[str, Any]) -> None:
        spec = table.get(action)
        if spec is not None and all(any(f.name == k for f in spec.fields) for k in prefill):
            found.append(Suggestion(action, prefill))

    kind = context.kind
    if kind == "comment" and context.key:
        number = {"discussion_number": context.key}
        if context.subject:
            for action, field_name in _ON_COMMENT:
                offer(action, {**number, field_name: context.subject})
        kind = "post"
    if kind is not None and context.key:
        offered = {s.action for s in found}
        for action, field_name in _BY_KIND.get(kind, ()):
            if action not in offered:
                offer(action, {field_name: context.key})
    for action in _ANYWHERE:
        if action in table:
            found.append(Suggestion(action))
    return found
