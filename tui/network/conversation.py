"""Typed models of the conversation's files (ARCHITECTURE.md, the conversation).

The deployment publishes, beside the five summary files, every post and comment entry
(``posted_log.json``), the bodies of its recent posts (``discussions_cache.json``, in a "light"
form with comment authors only or a "full" form with comment bodies) and the GraphQL node id of
each Discussion by number (``discussions_index.json``). The rules are those of
:mod:`tui.network.models`: typed where the data is stable, optional where real data omits a
field, unknown fields kept, timestamps kept as sent.

``posted_log.json`` is the big one (12 MB on the real deployment, growing): its entries are flat
structs decoded by msgspec's C decoder in one pass, entry by entry only where some entry has a
field roost does not know, so a parse costs less than ``json.loads`` of the same bytes and holds
less memory.

The store reads these files only once something asks for them (``Store.want``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import field

from tui.network.models import StrTuple, Timestamp, _Model
from tui.network.state_files import DISCUSSIONS_CACHE, DISCUSSIONS_INDEX, POSTED_LOG

__all__ = [
    "CONVERSATION_MODELS",
    "CachedComment",
    "CachedDiscussion",
    "CommentAuthor",
    "DiscussionsCache",
    "IndexEntry",
    "LoggedComment",
    "LoggedPost",
    "PostedLog",
]


# --------------------------------------------------------------------------- posted_log.json


class LoggedPost(_Model, frozen=True):
    """One post as the log has it. ``author`` is the agent (or ``system``)."""

    number: int | None = None
    title: str = ""
    channel: str = ""
    author: str = ""
    timestamp: Timestamp = None
    created_at: Timestamp = None  # a few entries carry this instead of (or beside) timestamp
    url: str | None = None
    upvotes: int = 0
    downvotes: int = 0
    comment_count: int = field(default=0, name="commentCount")
    topic: str | None = None  # the title's tag, lower case
    internal_votes: int | None = None
    voters: StrTuple | None = None
    vote_comment_count: int | None = None
    body: str | None = None  # on a few entries

    @property
    def posted_at(self) -> Timestamp:
        return self.timestamp or self.created_at


class LoggedComment(_Model, frozen=True):
    """One comment entry: who commented on which post, when (no text)."""

    timestamp: Timestamp = None
    discussion_number: int | None = None
    post_title: str = ""
    author: str = ""
    channel: str | None = None


class PostedLog(_Model, frozen=True):
    posts: tuple[LoggedPost, ...] = ()
    comments: tuple[LoggedComment, ...] = ()
    meta: dict[str, Any] | None = field(default=None, name="_meta")


# --------------------------------------------------------------------------- discussions_cache.json


class CommentAuthor(_Model, frozen=True):
    """The light form's trace of a comment: its account and time (and, rarely, its body)."""

    login: str = ""
    created_at: Timestamp = None
    body: str | None = None


class CachedComment(_Model, frozen=True):
    """The full form's comment. The account is ``author_login`` (older writers: ``login``);
    ``id``/``parent_id`` are there when the writer kept them."""

    body: str = ""
    author_login: str | None = None
    login: str | None = None
    created_at: Timestamp = None
    id: str | int | None = None
    node_id: str | None = None
    parent_id: str | int | None = None
    url: str | None = None
    reactions: dict[str, Any] | None = None

    @property
    def account(self) -> str:
        return self.author_login or self.login or ""


class CachedDiscussion(_Model, frozen=True):
    number: int
    title: str = ""
    body: str = ""
    author_login: str = ""
    category_slug: str | None = None
    created_at: Timestamp = None
    url: str | None = None
    upvotes: int = 0
    downvotes: int = 0
    comment_count: int = 0
    comment_authors: tuple[CommentAuthor, ...] | None = None
    comments: tuple[CachedComment, ...] | None = None
    node_id: str | None = None
    id: str | None = None
    reactions: dict[str, Any] | None = None


class DiscussionsCache(_Model, frozen=True):
    discussions: tuple[CachedDiscussion, ...] = ()
    meta: dict[str, Any] | None = field(default=None, name="_meta")

    @property
    def full(self) -> bool:
        """Whether comment bodies are in it (the "full" form)."""
        return any(d.comments is not None for d in self.discussions)


# --------------------------------------------------------------------------- discussions_index.json


class IndexEntry(_Model, frozen=True):
    id: str = ""  # the Discussion's GraphQL node id
    number: int | None = None
    title: str = ""
    channel: str | None = None


#: The model of each conversation file (``discussions_index.json`` is a bare object keyed by
#: number).
CONVERSATION_MODELS: Mapping[str, Any] = {
    POSTED_LOG: PostedLog,
    DISCUSSIONS_CACHE: DiscussionsCache,
    DISCUSSIONS_INDEX: dict[str, IndexEntry],
}
