"""Tab 2, Trending: ranked posts with a detail pane, and the top agents/channels/topics panels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Static

from tui.conversation.posts import as_logged
from tui.network.models import TopAgent, TopChannel, TopTopic, TrendingFile, TrendingPost
from tui.network.state_files import TRENDING
from tui.network.store import Snapshot
from tui.tables.trending import COLUMNS, PostRow, post_keys, score_text
from tui.tables.trending import models as trending_models
from tui.tables.trending import prepare as trending_prepare
from tui.ui.stylesheets import sheets
from tui.ui.table.virtual_table import Column, Row, VirtualTable
from tui.ui.widgets.detail_pane import Link
from tui.ui.widgets.text import labelled
from tui.untrusted import clean, truncate

from .post_table import PostTableScreen, post_links, safe_url
from .table_screen import Built

if TYPE_CHECKING:
    from tui.network.conversation import LoggedPost

__all__ = ["TrendingScreen", "post_keys", "safe_url"]

PANELS = (
    ("top-agents", "Top agents", "agent_id", "agents"),
    ("top-channels", "Top channels", "channel", "channels"),
    ("top-topics", "Top topics", "topic", "channels"),
)


def _line(label: str, value: Any) -> Content:
    return labelled(label, value, 9)


class TrendingScreen(PostTableScreen, tab="trending"):
    """Tab 2."""

    CSS_PATH = sheets("trending")

    COLUMNS = COLUMNS
    NOUN = "posts"
    SOURCE = TRENDING
    ROW = PostRow

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "thread", "Read the thread", show=False, id="trending.thread"),
    ]

    def compose_extra(self) -> ComposeResult:
        with Horizontal(classes="trending-panels"):
            for panel_id, title, _field, _tab in PANELS:
                with Vertical(classes="trending-panel"):
                    yield Static(Content(title), classes="panel-title", markup=False)
                    yield VirtualTable(
                        (
                            Column("name", title.split()[1].rstrip("s"), 8, flex=True),
                            Column("posts", "posts", 5, align="right", optional=True),
                            Column("score", "score", 6, align="right"),
                        ),
                        id=panel_id,
                        classes="panel-table",
                    )

    # ------------------------------------------------------------------ rows

    def models(self, snapshot: Snapshot) -> Mapping[str, TrendingPost] | None:
        return trending_models(snapshot)

    def prepare(self, snapshot: Snapshot) -> tuple[TrendingFile | None, dict[str, int]]:
        return trending_prepare(snapshot)

    def __init__(self) -> None:
        super().__init__()
        self._panel_cells: dict[str, dict[str, tuple[Any, ...]]] = {}
        self._panel_rows: dict[str, list[Row]] = {}

    def clear_marks(self) -> None:
        super().clear_marks()
        for panel_id, rows in self._panel_rows.items():
            panel = self.query_one(f"#{panel_id}", VirtualTable)
            if panel.marked:
                panel.set_rows(rows)

    def after_rows(self, built: Built) -> None:
        trending: TrendingFile | None = built.context[0]
        boards: tuple[tuple[Sequence[TopAgent | TopChannel | TopTopic], str], ...] = (
            (trending.top_agents, "agent_id") if trending else ((), ""),
            (trending.top_channels, "channel") if trending else ((), ""),
            (trending.top_topics, "topic") if trending else ((), ""),
        )
        for (panel_id, _title, _field, _tab), (items, field) in zip(PANELS, boards, strict=True):
            rows = []
            seen: set[str] = set()
            for item in items:
                name = str(getattr(item, field))
                if name in seen:
                    continue
                seen.add(name)
                rows.append(
                    Row(
                        name,
                        (name, f"{item.posts:,}", score_text(item.score)),
                        (name.lower(), item.posts, item.score),
                        name.lower(),
                    )
                )
            # marked as the main table is: what changed since the rows the user saw
            old = self._panel_cells.get(panel_id, {})
            marked = [row.key for row in rows if built.compared and old.get(row.key) != row.cells]
            self._panel_cells[panel_id] = {row.key: row.cells for row in rows}
            self._panel_rows[panel_id] = rows
            self.query_one(f"#{panel_id}", VirtualTable).set_rows(rows, marked=marked)

    def show_empty_state(self) -> None:
        super().show_empty_state()
        loaded = self.snapshot.file(self.SOURCE).loaded
        for panel_id, title, _field, _tab in PANELS:
            message = f"no {title.lower()}" if loaded else f"{self.SOURCE} not loaded"
            self.query_one(f"#{panel_id}", VirtualTable).set_empty_message(message)

    # ------------------------------------------------------------------ detail

    def detail_view(self, key: str, model: TrendingPost) -> tuple[Content, list[Link]]:
        lines = [Content(clean(model.title, multiline=True)).stylize("bold"), Content("")]
        lines.append(_line("author", model.author))
        lines.append(_line("channel", model.channel))
        lines.append(_line("score", score_text(model.score)))
        lines.append(
            _line(
                "votes",
                f"▲ {model.upvotes:,}  ▼ {model.downvotes:,}  (net {model.upvotes - model.downvotes:,})",
            )
        )
        lines.append(_line("comments", f"{model.comment_count:,}"))
        if model.number is not None:
            lines.append(_line("number", f"#{model.number}"))
        if model.url:
            lines.append(_line("url", truncate(clean(model.url), 400)))
            if safe_url(model.url) is None:
                lines.append(
                    Content("          (not an http(s) URL: o will not open it)").stylize(
                        "$text-warning"
                    )
                )
        for name, value in model.extras.items():
            lines.append(_line(truncate(clean(name), 9), truncate(clean(value), 500)))
        lines.append(Content(""))
        lines.append(
            Content("t read the thread · a author · c channel · O open URL · J raw JSON").stylize(
                "$text-muted"
            )
        )
        links = post_links(model.author, model.channel)
        return Content("\n").join(lines), links

    def as_logged(self, post: TrendingPost) -> LoggedPost:
        return as_logged(post)

    def copy_text(self) -> str | None:
        focused = self.focused
        if isinstance(focused, VirtualTable) and focused.has_class("panel-table"):
            return focused.cursor_key
        return super().copy_text()

    def action_thread(self) -> None:
        """``t``: the selected post's thread, over this tab."""
        self.read_thread(self.current_post())

    @on(VirtualTable.Selected, ".panel-table")
    def _panel_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        panel = event.table.id
        tab = next(tab for panel_id, _t, _f, tab in PANELS if panel_id == panel)
        self.jump_to(tab, event.key)

    @on(VirtualTable.Highlighted, ".panel-table")
    def _panel_highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
