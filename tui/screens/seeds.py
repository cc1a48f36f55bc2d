"""Tab 5, Seeds: the active seed with its convergence and agents, proposals ranked by votes,
the queue and the history (DESIGN.md §1, §7). Works on deployments without proposals and
between seeds (``active`` null)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult

from tui.network.models import Proposal
from tui.network.store import Snapshot
from tui.screens.base import StateScreen
from tui.stylesheets import sheets
from tui.widgets.seed_views import ActiveSeedView, SeedsView

__all__ = ["SeedsScreen"]


class SeedsScreen(StateScreen, tab="seeds"):
    """``[`` / ``]`` switch sections; ``enter`` on an agent of the active seed opens it on the
    Agents tab; ``enter`` on a list row moves into its detail, ``escape`` comes back."""

    CSS_PATH = sheets("seeds")

    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [
        (0, "-narrow"),
        (110, "-wide"),
    ]
    AUTO_FOCUS = "#active-scroll"

    def compose_body(self) -> ComposeResult:
        yield SeedsView(clock=self.clock, id="seeds-view")

    @property
    def view(self) -> SeedsView:
        return self.query_one(SeedsView)

    def show_snapshot(self, snapshot: Snapshot, changed: frozenset[str]) -> None:
        self.view.show(snapshot.seeds, changed="seeds.json" in changed)

    def show_empty_state(self) -> None:
        self.view.set_not_loaded(self.not_loaded_text("seeds.json"))

    def select_key(self, key: str) -> None:
        self.view.select_key(key)

    def selected_proposal(self) -> Proposal | None:
        """The proposal under the cursor on the Proposals section (for a vote action)."""
        return self.view.selected_proposal()

    def copy_text(self) -> str | None:
        return self.view.selected_id()

    def clear_marks(self) -> None:
        self.view.clear_marks()

    def action_back(self) -> None:
        self.view.back()

    def on_active_seed_view_agent_chosen(self, event: ActiveSeedView.AgentChosen) -> None:
        event.stop()
        self.jump_to("agents", event.agent_id)
