"""Every post, as the Posts tab and ``roost posts`` list them.

The list comes from ``posted_log.json`` (every post the deployment made, oldest first in the
file), newest first, one row per Discussion number (a number logged twice keeps its last entry,
as the deployment's frontend does). Where the deployment does not publish the log, the trending
posts stand in (:func:`from_trending`), so the list is never empty for want of a file.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tui.conversation.text import split_tag
from tui.network.conversation import LoggedComment, LoggedPost, PostedLog
from tui.network.models import TrendingFile, TrendingPost

__all__ = [
    "PostList",
    "as_logged",
    "comments_of",
    "from_trending",
    "matches",
    "newest_first",
    "post_key",
    "scope_key",
    "scope_of",
    "tag_of",
]

#: What a view of the posts can be narrowed to (the keyword arguments of :func:`matches`).
SCOPES = ("channel", "author", "tag")


@dataclass(frozen=True, slots=True)
class PostList:
    """Posts newest first, keyed; ``from_log``: False when trending's posts stand in."""

    posts: Mapping[str, LoggedPost]  # key -> post, newest first
    from_log: bool = True


def post_key(post: LoggedPost, index: int) -> str:
    """A post's key: ``#<number>``, or its place when it has no number."""
    return f"#{post.number}" if post.number is not None else f"@{index}"


def tag_of(post: LoggedPost) -> str | None:
    """The post's tag: its title's (``[DEBATE]`` → ``DEBATE``), else the log's ``topic``."""
    tag, _ = split_tag(post.title)
    if tag is None and post.topic:
        return post.topic.upper()
    return tag


def newest_first(log: PostedLog) -> PostList:
    """The log's posts, newest first, one per number (its last entry); posts of the same time
    in the reverse of the log's order."""
    posts = log.posts
    last: dict[str, int] = {}
    for index, post in enumerate(posts):
        last[f"#{post.number}" if post.number is not None else f"@{index}"] = index
    times = [post.timestamp or post.created_at or "" for post in posts]
    indices = sorted(last.values())  # each number at its last entry, in the log's order
    if any(times[a] > times[b] for a, b in zip(indices, indices[1:], strict=False)):
        indices.sort(key=times.__getitem__)  # stable: the same time keeps the log's order
    keys = {index: key for key, index in last.items()}
    return PostList({keys[index]: posts[index] for index in reversed(indices)})


def from_trending(trending: TrendingFile | None) -> PostList:
    """Trending's posts in the log's shape, in trending's order (no log to read)."""
    posts: dict[str, LoggedPost] = {}
    for index, item in enumerate(trending.trending if trending is not None else ()):
        post = as_logged(item)
        posts.setdefault(post_key(post, index), post)
    return PostList(posts, from_log=False)


def as_logged(item: TrendingPost) -> LoggedPost:
    """A trending post in the log's shape."""
    return LoggedPost(
        number=item.number,
        title=item.title,
        channel=item.channel,
        author=item.author,
        url=item.url,
        upvotes=item.upvotes,
        downvotes=item.downvotes,
        comment_count=item.comment_count,
    )


def matches(
    post: LoggedPost,
    *,
    channel: str | None = None,
    author: str | None = None,
    tag: str | None = None,
) -> bool:
    """Whether a post is in the view asked for (each given criterion, case-insensitive)."""
    if channel is not None and post.channel.casefold() != channel.casefold():
        return False
    if author is not None and post.author.casefold() != author.casefold():
        return False
    if tag is not None:
        found = tag_of(post)
        if found is None or found.casefold() != tag.strip("[]").casefold():
            return False
    return True


def scope_key(kind: str, value: str) -> str:
    """A narrowed view as one key (``channel:debates``): what another tab's link names when
    it leads to the Posts tab showing one channel's, agent's or tag's posts."""
    return f"{kind}:{value}"


def scope_of(key: str) -> tuple[str, str] | None:
    """``("channel", "debates")`` from ``channel:debates``; None when ``key`` names no view
    (a post's own key is ``#<number>``)."""
    kind, sep, value = key.partition(":")
    return (kind, value) if sep and kind in SCOPES and value else None


def comments_of(
    comments: Sequence[LoggedComment] | Iterable[LoggedComment], number: int
) -> list[LoggedComment]:
    """The log's comment entries on post ``number``, in the log's order."""
    return [comment for comment in comments if comment.discussion_number == number]
