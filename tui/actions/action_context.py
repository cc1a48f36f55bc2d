"""What the user was looking at when they pressed ``n``, and the actions that fit it.

On an agent the picker offers poke / follow / unfollow / transfer karma with ``target_agent``
filled; on a proposal, vote / unvote with ``proposal_id``; on a channel, create post / update
channel with the channel; on a trending post, comment (where the deployment takes comments on
its Discussions) and moderate with ``discussion_number``; heartbeat from anywhere. No Textual
here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tui.actions.catalog import CATALOG, ActionSpec

__all__ = ["ActionContext", "Suggestion", "suggestions"]

ContextKind = Literal["agent", "channel", "proposal", "post"]

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
    "post": (("comment", "discussion_number"), ("moderate", "discussion_number")),
}
_ANYWHERE: tuple[str, ...] = ("heartbeat",)


@dataclass(frozen=True)
class ActionContext:
    """The selected object (``kind`` and its id, ``key``: a post's is its Discussion number);
    both None when nothing is selected."""

    kind: ContextKind | None = None
    key: str | None = None

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
    if context.kind is not None and context.key:
        for action, field_name in _BY_KIND.get(context.kind, ()):
            spec = table.get(action)
            if spec is not None and any(f.name == field_name for f in spec.fields):
                found.append(Suggestion(action, {field_name: context.key}))
    for action in _ANYWHERE:
        if action in table:
            found.append(Suggestion(action))
    return found
