"""The Trending table (tab 2): its columns and rows, shared by the tab and `roost export`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tui.network.models import TrendingFile, TrendingPost
from tui.network.state_files import TRENDING
from tui.tables.rows import Column, LazyRow
from tui.tables.spec import TableSpec

if TYPE_CHECKING:
    from tui.network.store import Snapshot

__all__ = ["COLUMNS", "TABLE", "PostRow", "models", "post_keys", "prepare", "score_text"]

COLUMNS = (
    Column("rank", "#", 3, align="right"),
    Column("score", "score", 6, align="right"),
    Column("votes", "votes", 5, align="right"),
    Column("comments", "cmts", 4, align="right"),
    Column("channel", "channel", 11),
    Column("author", "author", 13),
    Column("title", "title", 16, flex=True),
)


def post_keys(posts: tuple[TrendingPost, ...]) -> list[str]:
    """A stable key per post: its number when unique, else its rank."""
    keys: list[str] = []
    seen: set[str] = set()
    for rank, post in enumerate(posts, 1):
        key = f"#{post.number}" if post.number is not None else f"rank{rank}"
        if key in seen:
            key = f"{key}@{rank}"
        seen.add(key)
        keys.append(key)
    return keys


def score_text(value: float) -> str:
    """A score as the tables show it: whole when whole, else one decimal."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


class PostRow(LazyRow):
    """One trending post's row; ``context`` is ``(trending file, rank by key)``."""

    __slots__ = ()
    model: TrendingPost

    def make_cells(self) -> tuple[str, ...]:
        post = self.model
        return (
            str(self.context[1].get(self.key, 0)),
            score_text(post.score),
            f"{post.upvotes - post.downvotes:,}",
            f"{post.comment_count:,}",
            post.channel,
            post.author,
            post.title,
        )

    def make_sort_values(self) -> tuple[Any, ...]:
        post = self.model
        return (
            self.context[1].get(self.key, 0),
            post.score,
            post.upvotes - post.downvotes,
            post.comment_count,
            post.channel.lower(),
            post.author.lower(),
            post.title.lower(),
        )

    def make_haystack(self) -> str:
        post = self.model
        return " ".join((post.title, post.author, post.channel, self.key)).lower()


def models(snapshot: Snapshot) -> Mapping[str, TrendingPost] | None:
    trending = snapshot.trending
    if trending is None:
        return None
    return dict(zip(post_keys(trending.trending), trending.trending, strict=True))


def prepare(snapshot: Snapshot, now: float = 0.0) -> tuple[TrendingFile | None, dict[str, int]]:
    """The rows' context: the file and each post's rank by key."""
    trending = snapshot.trending
    keys = post_keys(trending.trending) if trending is not None else []
    return trending, {key: rank for rank, key in enumerate(keys, 1)}


TABLE = TableSpec("trending", (TRENDING,), COLUMNS, PostRow, models, prepare)
