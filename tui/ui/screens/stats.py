"""Tab 4, Stats: every counter of stats.json, its change since the previous stats.json, and its
trend over the history the store keeps (the store appends a point each time stats.json
changes)."""

from __future__ import annotations

from textual.app import ComposeResult

from tui.network.state_files import STATS
from tui.network.store import Snapshot
from tui.ui.screens.base import StateScreen
from tui.ui.stylesheets import sheets
from tui.ui.widgets.stats_panel import StatsPanel, format_value

__all__ = ["StatsScreen"]


class StatsScreen(StateScreen, tab="stats"):
    """Counters table (``enter`` zooms the highlighted counter's trend; ``escape`` unzooms)."""

    CSS_PATH = sheets("stats")

    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [
        (0, "-narrow"),
        (110, "-wide"),
    ]
    AUTO_FOCUS = "#stats-counters"

    def compose_body(self) -> ComposeResult:
        yield StatsPanel(clock=self.clock, id="stats-panel")

    @property
    def panel(self) -> StatsPanel:
        return self.query_one(StatsPanel)

    def show_snapshot(self, snapshot: Snapshot, changed: frozenset[str]) -> None:
        self.panel.show(snapshot.stats, snapshot.stats_history, changed=STATS in changed)

    def show_empty_state(self) -> None:
        self.panel.set_not_loaded(self.not_loaded_text(STATS))

    def select_key(self, key: str) -> None:
        self.panel.select(key)

    def copy_text(self) -> str | None:
        name = self.panel.selected
        series = self.panel.series(name) if name is not None else None
        if series is None:
            return None
        return f"{series.name}: {format_value(series.value)}"

    def clear_marks(self) -> None:
        self.panel.clear_marks()

    def action_back(self) -> None:
        self.panel.action_unzoom()
