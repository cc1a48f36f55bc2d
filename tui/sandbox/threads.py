"""What a generated thread says, derived on demand: the post's body, its comments and their
replies, vote emoji and reactions.

Nothing here is stored. ``derive_thread`` takes the network's seed, the post's log entry and its
comment entries (who commented and when, from the log) and draws the rest from a
``random.Random`` seeded with the seed and the post's number, so a thread reads the same every
time and in every process. ``conversation.is_vote`` and ``native_votes`` are shared with the log,
so a thread's vote comments and 👍/👎 are the ones the log counts.

As on the deployment, every agent posts through one account (``account``): the agent is named in
a byline at the top of the text (``*Posted by **id***`` then a rule for a post, ``*— **id***``
for a comment); a post by ``system`` has none. GitHub keeps one level of replies: a reply to a
reply hangs under the top-level comment (``parent_id``) and names the comment it answers in a
leading ``<!-- thread:NODE_ID -->`` marker, the deployment's convention.
"""

from __future__ import annotations

import random
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from tui.sandbox.conversation import is_vote, native_votes, vote_emoji
from tui.sandbox.prose import SUBJECTS, VOTE_EMOJI, comment_text, post_body

__all__ = [
    "GENERATED_IDS",
    "MADE_IDS",
    "REACTIONS",
    "Comment",
    "Thread",
    "ThreadCache",
    "byline_agent",
    "comment_byline",
    "comment_node_id",
    "derive_body",
    "derive_thread",
    "discussion_node_id",
    "discussion_rest_id",
    "number_of_node",
    "post_byline",
    "vote_text",
]

#: GitHub's reaction contents, in the order its API lists them.
REACTIONS = ("THUMBS_UP", "THUMBS_DOWN", "LAUGH", "HOORAY", "CONFUSED", "HEART", "ROCKET", "EYES")
#: A generated comment's id is this plus its position in the log; a comment made through the
#: API gets one from ``MADE_IDS`` on.
GENERATED_IDS = 20_000_000
MADE_IDS = 60_000_000
DISCUSSION_IDS = 7_000_000

_POST_BYLINE = re.compile(r"\A\*Posted by \*\*([^*\n]+)\*\*\*")
_COMMENT_BYLINE = re.compile(r"\A(?:<!--\s*thread:\S+\s*-->\n?)?\*— \*\*([^*\n]+)\*\*\*")


def post_byline(agent: str) -> str:
    return f"*Posted by **{agent}***\n\n---\n\n"


def comment_byline(agent: str) -> str:
    return f"*— **{agent}***\n\n"


def byline_agent(body: str) -> str | None:
    """The agent a post's or comment's byline names, or None."""
    found = _POST_BYLINE.match(body) or _COMMENT_BYLINE.match(body)
    return found.group(1).strip() if found else None


def vote_text(body: str) -> bool:
    """Whether a comment is a legacy vote: its text, marker and byline aside, one vote emoji."""
    text = re.sub(r"\A<!--\s*thread:\S+\s*-->\n?", "", body)
    text = re.sub(r"\A\*— \*\*[^*\n]+\*\*\*\s*", "", text)
    return text.strip() in VOTE_EMOJI


def discussion_node_id(number: int) -> str:
    return f"D_kwROOST{number:08d}"


def discussion_rest_id(number: int) -> int:
    """A Discussion's REST (database) id."""
    return DISCUSSION_IDS + number


def comment_node_id(comment_id: int) -> str:
    return f"DC_kwROOST{comment_id}"


def number_of_node(node_id: Any, prefix: str) -> int | None:
    """The number in a node id of ours (``D_kwROOST00000123`` → 123), or None."""
    if not isinstance(node_id, str) or not node_id.startswith(prefix):
        return None
    digits = node_id[len(prefix) :]
    return int(digits) if digits.isdigit() else None


@dataclass
class Comment:
    """One comment of a thread, as GitHub keeps it (``parent_id``: the top-level comment a
    reply hangs under, None for a top-level comment)."""

    id: int
    number: int
    body: str
    login: str
    author: str
    created_at: str
    parent_id: int | None = None
    vote: bool = False
    #: Reactions it was given when the network was generated, by content.
    reactions: dict[str, int] = field(default_factory=dict)

    @property
    def node_id(self) -> str:
        return comment_node_id(self.id)


@dataclass(frozen=True)
class Thread:
    """A generated post's body, its generated comments and its generated reactions."""

    body: str
    comments: tuple[Comment, ...]
    reactions: dict[str, int]


def _subject(title: str, rng: random.Random) -> str:
    lowered = title.lower()
    return next((s for s in SUBJECTS if s in lowered), None) or rng.choice(SUBJECTS)


def _reactions(rng: random.Random, scale: float) -> dict[str, int]:
    found: dict[str, int] = {}
    for content in REACTIONS[2:]:
        if rng.random() < 0.18 * scale:
            found[content] = 1 + int(rng.expovariate(0.8) * scale)
    return found


def _opening(seed: int, post: dict[str, Any]) -> tuple[random.Random, str, str, str]:
    """(the thread's Random, drawn up to the post's body; the subject; the channel; the body)."""
    rng = random.Random(f"{seed}:{post['number']}")
    author = str(post.get("author") or "system")
    channel = str(post.get("channel") or "")
    subject = _subject(str(post.get("title") or ""), rng)
    text = post_body(rng, subject, channel, author)
    return rng, subject, channel, text if author == "system" else post_byline(author) + text


def derive_body(seed: int, post: dict[str, Any]) -> str:
    """The body of the generated post ``post`` alone (what ``derive_thread`` says of it)."""
    return _opening(seed, post)[3]


def derive_thread(
    seed: int, account: str, post: dict[str, Any], entries: list[tuple[int, dict[str, Any]]]
) -> Thread:
    """The thread of the generated post ``post`` (its log entry) whose comments are ``entries``
    ((position in the log, comment entry), oldest first)."""
    number = int(post["number"])
    rng, subject, channel, body = _opening(seed, post)
    up, down = native_votes(seed, number)
    reactions = {"THUMBS_UP": up, "THUMBS_DOWN": down, **_reactions(rng, 1.0)}

    comments: list[Comment] = []
    roots: list[int | None] = []  # per comment: the top-level comment it hangs under
    depth: list[int] = []
    talking: list[int] = []  # indexes of the comments that are not votes
    for index, (position, entry) in enumerate(entries):
        who = str(entry.get("author") or "system")
        comment_id = GENERATED_IDS + position
        stamp = str(entry.get("timestamp") or post.get("timestamp") or "")
        if is_vote(seed, number, index):
            comments.append(
                Comment(
                    comment_id,
                    number,
                    comment_byline(who) + vote_emoji(seed, number, index),
                    account,
                    who,
                    stamp,
                    vote=True,
                )
            )
            roots.append(None)
            depth.append(0)
            continue
        target = None
        if talking and rng.random() < 0.45:
            back = min(int(rng.expovariate(0.6)), len(talking) - 1)
            target = talking[-1 - back]
        marker, parent, level = "", None, 0
        if target is not None:
            parent = roots[target] if roots[target] is not None else comments[target].id
            level = depth[target] + 1
            if level > 1:
                marker = f"<!-- thread:{comments[target].node_id} -->\n"
        answered = comments[target].author if target is not None else None
        text = comment_text(rng, subject, channel, who, answered)
        comments.append(
            Comment(
                comment_id,
                number,
                marker + comment_byline(who) + text,
                account,
                who,
                stamp,
                parent_id=parent,
                reactions=_reactions(rng, 0.5),
            )
        )
        roots.append(parent)
        depth.append(level)
        talking.append(index)
    return Thread(body, tuple(comments), reactions)


class ThreadCache:
    """The threads derived last (a bounded, least-recently-used table)."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._table: OrderedDict[tuple[int, int], Thread] = OrderedDict()

    def get(self, key: tuple[int, int]) -> Thread | None:
        found = self._table.get(key)
        if found is not None:
            self._table.move_to_end(key)
        return found

    def put(self, key: tuple[int, int], thread: Thread) -> None:
        self._table[key] = thread
        self._table.move_to_end(key)
        while len(self._table) > self.size:
            self._table.popitem(last=False)

    def clear(self) -> None:
        self._table.clear()
