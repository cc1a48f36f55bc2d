"""Answering from a thread, the thread's side: what the outbox holds for a post, shown at once.

A comment, reply or reaction sent from a thread goes through the outbox like every action
(``tui/actions/discussions.py``, ``tui/actions/reactions.py``). Until the thread read back
shows it, the thread screen shows it anyway, marked pending: :func:`pending_comments` gives the
outbox's comments and replies on a post as :class:`~tui.conversation.thread.Comment` values
(a reply under the comment actually answered, even where GitHub files it under that comment's
top-level one), :func:`pending_reactions` its reactions, and :func:`show_pending` puts both on
a :class:`~tui.conversation.thread.Thread`. A thread read from any source also settles the
entries it shows (:func:`settle_seen`), at no cost.

The forms the thread opens are filled from here (:func:`comment_prefill`,
:func:`reply_prefill`, :func:`react_prefill`), so the screen never spells a field name.

Guests of ``roost serve-ssh`` never answer: they have no write side at all
(``tui/actions/connection.py: write_side`` refuses them), and nothing here sends anything.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from tui.actions.builtin_actions import REACTION_CONTENTS
from tui.actions.graphql_send import as_node_id
from tui.actions.outbox import DamagedEntry, Entry, EntryBusy, Outbox, now_iso
from tui.conversation.thread import REACTIONS, Comment, Thread
from tui.network.models import as_utc

__all__ = [
    "PENDING_STATES",
    "NotAnswerable",
    "PendingReaction",
    "comment_prefill",
    "pending_comments",
    "pending_reactions",
    "react_prefill",
    "reply_prefill",
    "seen_in",
    "settle_seen",
    "show_pending",
]

#: Entries that may still reach the thread: kept, on their way, made and not seen yet, or
#: unclear (a retry looks them up first). Failed ones are the Outbox's to show.
PENDING_STATES = frozenset({"draft", "sending", "queued", "unknown"})
#: States a thread read can settle (the comment it shows was made).
SETTLED_BY_READING = frozenset({"sending", "queued", "unknown"})

_NONCE = re.compile(r"\n*<!--\s*roost-nonce:\s*[A-Za-z0-9._:-]{1,128}\s*-->\s*\Z")
_REST_NAME = {content: rest for rest, content, _ in REACTIONS}
_EMOJI = {content: emoji for _, content, emoji in REACTIONS}


class NotAnswerable(ValueError):
    """The comment cannot be answered on its own: its source did not give its node id (the
    deployment's light cache, the posted log). Reading the thread from GitHub gives it."""


# ---------------------------------------------------------------------------------------------
# Prefilling the forms


def comment_prefill(number: int) -> dict[str, Any]:
    """The ``comment`` form's values for post ``number``."""
    return {"discussion_number": number}


def reply_prefill(number: int, comment: Comment) -> dict[str, Any]:
    """The ``reply`` form's values for ``comment`` of post ``number``; ``NotAnswerable`` when
    the comment's node id is not known."""
    if not comment.node_id:
        raise NotAnswerable("this comment's id is not known here: reload the thread from GitHub")
    return {"discussion_number": number, "reply_to": comment.node_id}


def react_prefill(
    number: int, comment: Comment | None = None, content: str | None = None
) -> dict[str, Any]:
    """The ``react`` form's values: on post ``number`` itself, or on ``comment``, with
    ``content`` (one of the eight) when the picker chose it."""
    values: dict[str, Any] = {"discussion_number": number}
    if comment is not None:
        if not comment.node_id:
            raise NotAnswerable(
                "this comment's id is not known here: reload the thread from GitHub"
            )
        values["subject"] = comment.node_id
    if content is not None:
        if content not in REACTION_CONTENTS:
            raise ValueError(f"no such reaction {content!r}")
        values["content"] = content
    return values


# ---------------------------------------------------------------------------------------------
# Pending comments and replies


def _on(entry: Entry, number: int, kind: str) -> bool:
    return entry.kind == kind and entry.request.get("discussion_number") == number


def _sent_text(entry: Entry) -> str:
    """The body as the person wrote it: the request's, without roost's nonce comment."""
    body = entry.request.get("body")
    return _NONCE.sub("", body) if isinstance(body, str) else ""


def seen_in(entry: Entry, thread: Thread) -> bool:
    """Whether ``thread`` shows the comment or reply ``entry`` made: a comment with its node
    id, or with its nonce (by its author, when both are known), or, where the source lists
    comments without their text (the light cache), one by its author at the very time the
    platform gave it."""
    if (
        entry.kind != "discussion_comment"
        or entry.request.get("discussion_number") != thread.number
    ):
        return False
    made = entry.node_id
    author = entry.author
    for comment in thread.comments:
        if comment.pending:
            continue
        if made and made in (comment.node_id, comment.id):
            return True
        by_author = not author or not comment.account or comment.account == author
        if comment.nonce is not None and comment.nonce == entry.nonce and by_author:
            return True
        if (
            comment.body is None
            and author
            and entry.issue_created_at
            and comment.account == author
            and comment.created_at == entry.issue_created_at
        ):
            return True
    return False


def pending_comments(
    entries: Iterable[Entry], number: int, thread: Thread | None = None, *, login: str | None = None
) -> list[Comment]:
    """The outbox's comments and replies on post ``number`` that ``thread`` (the copy on
    screen) does not show yet, oldest first, as pending :class:`Comment` values: ``parent_id``
    the node id answered (None for a comment on the post), ``author`` the account that sent it
    (``login`` until the platform said), ``body`` what was written. Entries that failed are
    left to the Outbox; with ``thread``, entries already applied but not in that copy (it is
    older) are still shown."""
    found: list[Comment] = []
    for entry in entries:
        if not _on(entry, number, "discussion_comment"):
            continue
        late = entry.state == "applied" and thread is not None
        if entry.state not in PENDING_STATES and not late:
            continue
        if thread is not None and seen_in(entry, thread):
            continue
        reply_to = entry.request.get("reply_to")
        who = entry.author or login or "you"
        found.append(
            Comment(
                id=f"pending-{entry.id}",
                author=who,
                account=entry.author or login or "",
                created_at=entry.issue_created_at or entry.created_at,
                body=_sent_text(entry),
                parent_id=reply_to if isinstance(reply_to, str) and reply_to else None,
                node_id=entry.node_id,
                url=entry.html_url,
                pending=True,
            )
        )
    return found


# ---------------------------------------------------------------------------------------------
# Pending reactions


@dataclass(frozen=True, slots=True)
class PendingReaction:
    """A reaction the outbox holds for a post: on the post itself (``subject`` None) or on the
    comment whose node id ``subject`` is; ``content`` as GraphQL names it, ``name`` as REST
    does (the key of :class:`~tui.conversation.thread.Reactions`), ``emoji`` as shown."""

    entry_id: str
    subject: str | None
    content: str
    name: str
    emoji: str
    state: str


def _after(stamp: str | None, moment: datetime | None) -> bool:
    when = as_utc(stamp) if stamp else None
    return moment is not None and isinstance(when, datetime) and when > moment


def pending_reactions(
    entries: Iterable[Entry], number: int, *, read_at: datetime | None = None
) -> list[PendingReaction]:
    """The outbox's reactions on post ``number`` that a thread read at ``read_at`` cannot
    count yet: those not applied, and those applied after that read (a thread's counts do not
    say whose reactions they are, so time decides)."""
    found: list[PendingReaction] = []
    for entry in entries:
        if not _on(entry, number, "discussion_reaction"):
            continue
        if entry.state not in PENDING_STATES and not (
            entry.state == "applied" and _after(entry.applied_at, read_at)
        ):
            continue
        content = entry.request.get("content")
        if content not in _REST_NAME:
            continue
        subject = entry.request.get("subject")
        found.append(
            PendingReaction(
                entry_id=entry.id,
                subject=subject if isinstance(subject, str) and subject else None,
                content=content,
                name=_REST_NAME[content],
                emoji=_EMOJI[content],
                state=entry.state,
            )
        )
    return found


def show_pending(
    thread: Thread,
    entries: Iterable[Entry],
    *,
    login: str | None = None,
    read_at: datetime | None = None,
) -> Thread:
    """``thread`` with the outbox's answers to it shown: pending comments under what they
    answer (:meth:`Thread.with_pending`), pending reactions added to the counts of the post or
    of the comment they are on (one per subject and content: GitHub counts a person once)."""
    listed = list(entries)
    shown = thread
    for comment in pending_comments(listed, thread.number, thread, login=login):
        shown = shown.with_pending(comment)
    added: set[tuple[str | None, str]] = set()
    for reaction in pending_reactions(listed, thread.number, read_at=read_at):
        key = (reaction.subject, reaction.name)
        if key in added:
            continue
        added.add(key)
        if reaction.subject is None:
            shown = replace(shown, reactions=shown.reactions.plus(reaction.name))
            continue
        comments = tuple(
            replace(c, reactions=c.reactions.plus(reaction.name))
            if reaction.subject in (c.node_id, c.id)
            else c
            for c in shown.comments
        )
        shown = replace(shown, comments=comments)
    return shown


# ---------------------------------------------------------------------------------------------
# Settling entries from a thread read


def settle_seen(outbox: Outbox, thread: Thread) -> list[Entry]:
    """Mark the outbox's comments and replies that ``thread`` shows as applied (and an entry
    left unclear as made: it is never sent again); returns them. Each under its lock: one
    another roost is sending right now is left alone. Reactions are not settled here (a
    thread's counts do not say whose they are): the tracker asks their subject."""
    settled: list[Entry] = []
    for entry in outbox.entries():
        if entry.state not in SETTLED_BY_READING or not seen_in(entry, thread):
            continue
        try:
            with outbox.locked(entry.id):
                fresh = outbox.load(entry.id)
                if fresh.state not in SETTLED_BY_READING or not seen_in(fresh, thread):
                    continue
                _applied(fresh, thread)
                outbox.save(fresh)
                settled.append(fresh)
        except (EntryBusy, DamagedEntry, KeyError):
            continue
    return settled


def _applied(entry: Entry, thread: Thread) -> None:
    shown = next(
        (c for c in thread.comments if not c.pending and _is(entry, c)),
        None,
    )
    entry.state, entry.applied_at = "applied", now_iso()
    entry.maybe_sent, entry.reason, entry.retry_safe = False, None, None
    entry.number = thread.number
    entry.comment = "seen in the thread"
    if shown is not None:
        entry.node_id = entry.node_id or as_node_id(shown.node_id)
        entry.html_url = entry.html_url or shown.url
        entry.author = entry.author or shown.account or None
        entry.issue_created_at = entry.issue_created_at or shown.created_at


def _is(entry: Entry, comment: Comment) -> bool:
    made = entry.node_id
    if made and made in (comment.node_id, comment.id):
        return True
    return comment.nonce is not None and comment.nonce == entry.nonce


# ---------------------------------------------------------------------------------------------
# Saying what a request is


def request_headline(kind: str, request: Mapping[str, Any]) -> tuple[str, str] | None:
    """What a post, comment, reply or reaction request is, as (label, text) for the form's
    preview and the outbox (None: an issue, whose title says it). Raw values: clean to show."""
    number = request.get("discussion_number")
    if kind == "discussion":
        return "post", f"a GitHub Discussion in {request.get('channel', '')}"
    if kind == "discussion_comment":
        reply_to = request.get("reply_to")
        if reply_to:
            return "reply", f"to comment {reply_to} of Discussion #{number}"
        return "comment", f"on Discussion #{number}"
    if kind == "discussion_reaction":
        content = str(request.get("content", ""))
        subject = request.get("subject")
        on = f"comment {subject} of Discussion #{number}" if subject else f"Discussion #{number}"
        return "reaction", f"{_EMOJI.get(content, '')} {content} on {on}".strip()
    return None
