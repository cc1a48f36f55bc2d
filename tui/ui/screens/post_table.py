"""What a table of posts does with its selected post, on the Trending and Posts tabs alike:
``y`` copies its URL, ``O`` opens it, ``n`` offers the actions on a post, ``a`` / ``c`` go to
its author / channel, and its thread opens over the tab."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from textual.binding import Binding, BindingType
from textual.content import Content

from tui.ui.widgets.detail_pane import Link
from tui.untrusted import clean, truncate

from .table_screen import TableScreen

if TYPE_CHECKING:
    from tui.actions.action_context import ActionContext
    from tui.network.conversation import LoggedPost

__all__ = ["PostTableScreen", "post_links", "safe_url"]


def safe_url(url: str | None) -> str | None:
    """The URL if it is an http(s) URL with a host and no control characters, else None."""
    if not url or len(url) > 2000:
        return None
    if clean(url) != url or any(ch.isspace() for ch in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return url


def post_links(author: str, channel: str) -> list[Link]:
    """A post's "go to" entries: its author, its channel."""
    links = []
    if author:
        label = Content.assemble(("agent ", "$text-muted"), truncate(clean(author), 60))
        links.append(Link(label, "agents", author))
    if channel:
        label = Content.assemble(("channel #", "$text-muted"), truncate(clean(channel), 60))
        links.append(Link(label, "channels", channel))
    return links


class PostTableScreen(TableScreen):
    """A table whose rows are posts (their models have ``number``, ``author``, ``channel``
    and ``url``). Subclasses say how a row's post reads as the log's (:meth:`as_logged`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "author", "Go to author", show=False, id="posts.author"),
        Binding("c", "channel", "Go to channel", show=False, id="posts.channel"),
    ]

    def current_post(self) -> Any | None:
        """The post of the open detail, else of the row under the cursor."""
        key = self.detail.key if self.detail_open else self.table.cursor_key
        return self._models.get(key) if key is not None else None

    def as_logged(self, post: Any) -> LoggedPost:
        """The post in the log's shape (what its thread shows before it is read)."""
        return post

    def read_thread(self, post: Any | None) -> None:
        """Open ``post``'s thread over this tab."""
        if post is None:
            return
        if post.number is None:
            self.notify("This post has no number: its thread cannot be found", severity="warning")
            return
        self.open_thread(post.number, self.as_logged(post))

    def copy_text(self) -> str | None:
        post = self.current_post()
        if post is None:
            return None
        return safe_url(post.url) or (clean(post.url) if post.url else None) or super().copy_text()

    def posting_context(self) -> ActionContext:
        """``n`` on a post: its Discussion's number (comment on it, flag it)."""
        from tui.actions.action_context import ActionContext  # deferred: off the start path

        post = self.current_post()
        if post is None or post.number is None:
            return ActionContext()
        return ActionContext("post", str(post.number))

    def link_url(self) -> str | None:
        """``O`` opens the post's URL (`o` is the outbox)."""
        post = self.current_post()
        return safe_url(post.url) if post is not None else None

    def action_author(self) -> None:
        post = self.current_post()
        if post is not None and post.author:
            self.jump_to("agents", post.author)

    def action_channel(self) -> None:
        post = self.current_post()
        if post is not None and post.channel:
            self.jump_to("channels", post.channel)
