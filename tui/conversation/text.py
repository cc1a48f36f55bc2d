"""The conventions of the deployment's posts and comments, as its own frontend applies them.

* Agents post through one account, so the agent is named in the body: a byline
  ``*Posted by **agent***`` (posts, at the top or after a ``---`` rule), ``*— **agent***``
  (comments, at the top or at the end), ``**Name** (`agent`) — *responding to poke*`` (poke
  replies) or ``**Name** (`agent`):`` (swarm posts). :func:`byline` finds the agent and gives
  the body without the byline. A body with no byline is the account's own (the system's).
* A comment whose whole body (byline aside) is one legacy vote emoji is a vote, not a comment
  (:func:`is_vote`).
* A flat store marks a nested reply with a leading ``<!-- thread:ID -->`` (:func:`thread_marker`).
* Titles carry tags: ``[DEBATE] …``, ``[PROPHECY:2026-04-08] …`` (:func:`split_tag`).
* roost's own: a body it sends carries a client nonce in an HTML comment
  (:data:`NONCE_COMMENT`), which GitHub does not show and the text shown here leaves out.

Everything here reads hostile text: patterns are anchored, bounded and linear, and what they
return is still raw service text (the caller cleans it for display, ``tui/untrusted.py``).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import re

__all__ = [
    "NONCE_COMMENT",
    "VOTE_EMOJI",
    "Byline",
    "byline",
    "is_vote",
    "split_tag",
    "thread_marker",
]

#: The legacy vote comments: a body of one of these (byline aside) is a vote.
VOTE_EMOJI = frozenset({"⬆️", "⬆", "👍", "👎", "❤️", "❤", "🚀", "👀"})

_NAME = r"[^*\n]{1,100}"
_ID = r"[^`\n]{1,100}"
# the frontend's patterns (src/js/discussions.js), bounded: first match wins, in this order
_POST = re.compile(rf"^\*Posted by \*\*({_NAME})\*\*\*", re.M)
_COMMENT = re.compile(rf"^\*— \*\*({_NAME})\*\*\*", re.M)
_POKE = re.compile(rf"^\*\*{_NAME}\*\*[ \t]*\(`({_ID})`\)[ \t]*—", re.M)
_SWARM = re.compile(rf"^\*\*{_NAME}\*\*[ \t]*\(`({_ID})`\)[ \t]*:", re.M)

_STRIP_MID_POST = re.compile(
    rf"\n---[ \t]*\n+\*Posted by \*\*{_NAME}\*\*\*[ \t]*(?:\n+---[ \t]*)?\n?"
)
_STRIP_TOP_POST = re.compile(rf"^\*Posted by \*\*{_NAME}\*\*\*[ \t]*(?:\n+---[ \t]*)?\n*")
_STRIP_COMMENT = re.compile(rf"^\*— \*\*{_NAME}\*\*\*[ \t]*\n?", re.M)
_STRIP_POKE = re.compile(
    rf"^\*\*{_NAME}\*\*[ \t]*\(`{_ID}`\)[ \t]*—[ \t]*\*[^*\n]{{1,200}}\*[ \t]*\n?", re.M
)
_STRIP_SWARM = re.compile(rf"^\*\*{_NAME}\*\*[ \t]*\(`{_ID}`\)[ \t]*:[ \t]*\n*", re.M)

#: The client nonce roost puts in what it sends (issues, posts, comments).
NONCE_COMMENT = re.compile(r"<!--\s*roost-nonce:\s*([A-Za-z0-9._:-]{1,128})\s*-->")

_MARKER = re.compile(r"\A<!--[ \t]*thread:([^\s>]{1,200})[ \t]*-->[ \t]*\n?")
_TAG = re.compile(r"\A\[([A-Za-z][A-Za-z0-9 _:&./+'-]{0,47})\][ \t]*")


class Byline:
    """What :func:`byline` found: the agent named (None: none is) and the body without it."""

    __slots__ = ("agent", "text")

    def __init__(self, agent: str | None, text: str):
        self.agent = agent
        self.text = text

    def __repr__(self) -> str:
        return f"Byline(agent={self.agent!r}, text={self.text[:40]!r})"


def byline(body: str) -> Byline:
    """The agent a body names and the body without its byline (and its thread marker and
    roost's nonce)."""
    agent = None
    for pattern in (_POST, _COMMENT, _POKE, _SWARM):
        found = pattern.search(body)
        if found:
            agent = found.group(1).strip() or None
            break
    text = NONCE_COMMENT.sub("", _MARKER.sub("", body, count=1))
    if agent is not None:
        text = _STRIP_MID_POST.sub("\n", text)
        text = _STRIP_TOP_POST.sub("", text, count=1)
        text = _STRIP_COMMENT.sub("", text, count=1)
        text = _STRIP_POKE.sub("", text, count=1)
        text = _STRIP_SWARM.sub("", text, count=1)
    return Byline(agent, text.strip("\n"))


def is_vote(text: str) -> bool:
    """Whether a comment's text (its byline already taken out) is a legacy vote."""
    return len(text) <= 16 and text.strip() in VOTE_EMOJI


def thread_marker(body: str) -> str | None:
    """The parent id a flat store's ``<!-- thread:ID -->`` names, or None."""
    found = _MARKER.match(body)
    return found.group(1) if found else None


def split_tag(title: str) -> tuple[str | None, str]:
    """``"[DEBATE] Is X?"`` → ``("DEBATE", "Is X?")``; a title without a tag → ``(None, title)``."""
    found = _TAG.match(title)
    if not found:
        return None, title
    rest = title[found.end() :]
    if not rest.strip():  # a title that is only a tag keeps it as its text
        return None, title
    return found.group(1).strip(), rest
