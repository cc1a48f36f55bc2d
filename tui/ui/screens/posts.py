"""Tab 7, Posts: every post the deployment logged, newest first; ``enter`` reads its thread.

The rows come from ``posted_log.json`` (:func:`tui.conversation.posts.newest_first`), which the
store reads only once this tab is first shown (it can be tens of megabytes). Where the
deployment does not publish it, trending's posts stand in and the summary line says so. A tab
narrowed to one channel's or one agent's posts (the Channels and Agents details' links) says
what it shows on the summary line; ``escape`` widens it again.

``enter`` opens the post's thread over the tab rather than a detail pane: the row already shows
what a pane would, and reading the post is what the tab is for (``J`` still shows the row's raw
JSON in the pane, and ``escape`` from the thread comes back to the row).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content

from tui.conversation.posts import (
    PostList,
    from_trending,
    matches,
    newest_first,
    scope_key,
    scope_of,
)
from tui.conversation.text import split_tag
from tui.network.conversation import LoggedPost, PostedLog
from tui.network.state_files import CONVERSATION_FILES, POSTED_LOG, TRENDING
from tui.network.store import Snapshot
from tui.tables.posts import COLUMNS, PostRow
from tui.ui.widgets.detail_pane import Link
from tui.ui.widgets.text import labelled, stamp
from tui.untrusted import clean, truncate

from .base import Place
from .post_table import PostTableScreen, post_links

__all__ = ["PostRow", "PostsScreen"]


def _line(label: str, value: Any) -> Content:
    return labelled(label, value, 9)


class PostsScreen(PostTableScreen, tab="posts"):
    """Tab 7."""

    COLUMNS = COLUMNS
    NOUN = "posts"
    SOURCE = POSTED_LOG
    ROW = PostRow
    DETAIL_ON_JUMP = False  # a jump to a post puts the cursor on it; enter reads it

    BINDINGS: ClassVar[list[BindingType]] = [
        # the table's own enter reads too; this one is for the detail pane (J) and help
        Binding("enter", "read", "Read the thread", show=False, id="posts.read"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._scope: tuple[str, str] | None = None
        self._ordered: tuple[PostedLog, PostList] | None = None  # the log, newest first

    def on_mount(self) -> None:
        # the first time the tab is shown, never at roost's start: the log can be big
        self.post_message(self.FilesWanted(CONVERSATION_FILES))

    # ------------------------------------------------------------------ rows

    def post_list(self, snapshot: Snapshot) -> PostList | None:
        """The posts on view: the log's, newest first; trending's where the deployment does
        not publish the log; None while the log is not there (loading, or failed)."""
        log = snapshot.posted_log
        if log is not None:
            if self._ordered is None or self._ordered[0] is not log:
                self._ordered = (log, newest_first(log))
            return self._ordered[1]
        if snapshot.file(POSTED_LOG).integrity == "absent" and snapshot.trending is not None:
            return from_trending(snapshot.trending)
        return None

    def models_cost(self, snapshot: Snapshot) -> int:
        """Ordering a big log is made in the build thread (a log of 100,000 posts takes a
        noticeable fraction of a second)."""
        log = snapshot.posted_log
        ordered = self._ordered
        if log is None or (ordered is not None and ordered[0] is log):
            return 0
        return len(log.posts)

    def models(self, snapshot: Snapshot) -> Mapping[str, LoggedPost] | None:
        posts = self.post_list(snapshot)
        return None if posts is None else posts.posts

    def prepare(self, snapshot: Snapshot) -> float:
        return self.clock().timestamp()

    def retimed_context(self, context: Any) -> float:
        return self.clock().timestamp()

    @property
    def from_trending(self) -> bool:
        """Trending's posts stand in: the deployment does not publish the log."""
        snapshot = self.snapshot
        return snapshot.posted_log is None and snapshot.file(POSTED_LOG).integrity == "absent"

    def show_empty_state(self) -> None:
        if self.building:
            message = "loading\u2026"
        elif self.from_trending:
            message = self.empty_text(TRENDING, "posts")
        else:
            state = self.snapshot.file(POSTED_LOG)
            if state.integrity == "missing" and not state.loaded:
                message = f"loading {POSTED_LOG}\u2026"
            else:
                message = self.empty_text(POSTED_LOG, "posts")
        self.table.set_empty_message(message)

    def summary_extra(self) -> Content:
        parts = []
        if self.from_trending:
            parts.append(
                Content(f"{POSTED_LOG} is not published here: Trending's posts").stylize(
                    "$text-warning"
                )
            )
        if self._scope is not None:
            kind, value = self._scope
            parts.append(
                Content.assemble(
                    f"{kind}: ",
                    (truncate(clean(value), 40), "bold"),
                    ("  escape clears", "$text-muted"),
                )
            )
        return Content(" \u00b7 ").join(parts)

    # ------------------------------------------------------------------ scope

    @property
    def scope(self) -> tuple[str, str] | None:
        """What the tab is narrowed to: ("channel", slug), ("author", agent), ("tag", tag)."""
        return self._scope

    def set_scope(self, scope: tuple[str, str] | None) -> None:
        """Show only the posts of one channel, agent or tag (None: every post)."""
        self._scope = scope
        if scope is None:
            self.table.set_predicate(None)
        else:
            kind, value = scope

            # reads the models at call time: a refresh's new rows are narrowed the same way
            def wanted(key: str) -> bool:
                post = self._models.get(key)
                return post is not None and matches(post, **{kind: value})

            self.table.set_predicate(wanted)
        self.update_summary()

    def select_key(self, key: str) -> None:
        scope = scope_of(key)
        if scope is None:
            super().select_key(key)
            return
        self.set_scope(scope)

    def clear_filters(self) -> None:
        super().clear_filters()
        if self._scope is not None:
            self.set_scope(None)

    def back_more(self) -> None:
        if self._scope is not None:
            self.set_scope(None)
        else:
            super().back_more()

    def place(self) -> Place:
        where = super().place()
        scope = scope_key(*self._scope) if self._scope is not None else None
        return Place(where.tab_id, where.key, where.filter, where.detail_open, scope)

    def return_to(self, place: Place) -> None:
        scope = scope_of(place.scope) if place.scope else None
        if self.ready and scope != self._scope:
            self.set_scope(scope)
        super().return_to(place)

    # ------------------------------------------------------------------ the selected post

    def row_chosen(self, key: str) -> None:
        self.read_thread(self._models.get(key))

    def action_read(self) -> None:
        """``enter``: the selected post's thread (also from the detail pane)."""
        self.read_thread(self.current_post())

    # ------------------------------------------------------------------ detail (J)

    def detail_view(self, key: str, model: LoggedPost) -> tuple[Content, list[Link]]:
        tag, title = split_tag(model.title)
        heading = Content(clean(title, multiline=True)).stylize("bold")
        if tag:
            heading = Content.assemble((f"[{clean(tag)}] ", "$text-accent bold"), heading)
        lines = [heading, Content("")]
        if model.number is not None:
            lines.append(_line("number", f"#{model.number}"))
        lines.append(_line("author", model.author or "\u2014"))
        lines.append(_line("channel", model.channel or "\u2014"))
        lines.append(_line("posted", stamp(model.posted_at, self.clock())))
        votes = model.upvotes - model.downvotes
        lines.append(
            _line("votes", f"\u25b2 {model.upvotes:,}  \u25bc {model.downvotes:,}  (net {votes:,})")
        )
        lines.append(_line("comments", f"{model.comment_count:,}"))
        if model.topic:
            lines.append(_line("topic", model.topic))
        if model.voters:
            lines.append(_line("voters", ", ".join(clean(v) for v in model.voters[:50])))
        if model.url:
            lines.append(_line("url", truncate(clean(model.url), 400)))
        for name, value in model.extras.items():
            lines.append(_line(truncate(clean(name), 9), truncate(clean(value), 500)))
        lines.append(Content(""))
        lines.append(Content("enter reads the thread · J raw JSON").stylize("$text-muted"))
        links = post_links(model.author, model.channel)
        return Content("\n").join(lines), links
