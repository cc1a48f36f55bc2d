"""The Posts table (tab 7): its columns and rows, shared by the tab and `roost export`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from tui.conversation.posts import from_trending, newest_first, tag_of
from tui.conversation.text import split_tag
from tui.network.conversation import LoggedPost
from tui.network.state_files import POSTED_LOG, TRENDING
from tui.tables.cells import age_seconds, epoch_seconds
from tui.tables.rows import Column, LazyRow
from tui.tables.spec import TableSpec

if TYPE_CHECKING:
    from tui.network.store import Snapshot

__all__ = ["COLUMNS", "TABLE", "PostRow", "models"]

# At 80 columns every minimum fits. The title is the free text and yields first when room is
# short, so its minimum is what a title needs to be read; the tag (the first text column, kept
# longest) is short: "PROPHECY:2026-04-08" shows "PROPHECY…".
COLUMNS = (
    Column("number", "#", 5, align="right"),
    Column("tag", "tag", 7, max_width=10),
    Column("title", "title", 24, flex=True),
    Column("channel", "channel", 8, max_width=16),
    Column("author", "author", 10, max_width=20),
    Column("votes", "votes", 5, align="right"),
    Column("comments", "cmts", 4, align="right"),
    Column("age", "age", 4, align="right"),
)


class PostRow(LazyRow):
    """One post's row; ``context`` is "now" in POSIX seconds (one reading per build)."""

    __slots__ = ()
    model: LoggedPost

    def make_cells(self) -> tuple[str, ...]:
        post = self.model
        posted = epoch_seconds(post.posted_at)
        return (
            "" if post.number is None else str(post.number),
            tag_of(post) or "",
            split_tag(post.title)[1],
            post.channel,
            post.author,
            f"{post.upvotes - post.downvotes:,}",
            f"{post.comment_count:,}",
            age_seconds(None if posted is None else self.context - posted),
        )

    def make_sort_values(self) -> tuple[Any, ...]:
        return tuple(value(self) for value in _SORT_VALUES)

    def make_sort_value(self, column: int) -> Any:
        return _SORT_VALUES[column](self) if column < len(_SORT_VALUES) else None

    def make_haystack(self) -> str:
        """What ``/`` searches: the title (tag included), author, channel and tag."""
        post = self.model
        return " ".join((post.title, post.author, post.channel, tag_of(post) or "")).lower()


def _posted_sort(row: PostRow) -> float | None:
    posted = epoch_seconds(row.model.posted_at)
    return -posted if posted is not None else None  # the youngest first


# per column of COLUMNS: what a sort by it compares (one function each: a sort that comes
# before the warm-up computes only its own column)
_SORT_VALUES: tuple[Callable[[PostRow], Any], ...] = (
    attrgetter("model.number"),
    lambda row: (tag_of(row.model) or "").lower(),
    lambda row: split_tag(row.model.title)[1].lower(),
    lambda row: row.model.channel.lower(),
    lambda row: row.model.author.lower(),
    lambda row: row.model.upvotes - row.model.downvotes,
    attrgetter("model.comment_count"),
    _posted_sort,
)
assert len(_SORT_VALUES) == len(COLUMNS)


def models(snapshot: Snapshot) -> Mapping[str, LoggedPost] | None:
    """Every logged post, newest first; trending's where the deployment does not publish the
    log (as the tab shows them)."""
    log = snapshot.posted_log
    if log is not None:
        return newest_first(log).posts
    if snapshot.file(POSTED_LOG).integrity == "absent" and snapshot.trending is not None:
        return from_trending(snapshot.trending).posts
    return None


TABLE = TableSpec("posts", (POSTED_LOG, TRENDING), COLUMNS, PostRow, models, lambda s, now: now)
