"""The base of every tab screen: tab bar, body, status bar, footer, and snapshot delivery.

Data flows one way (DESIGN.md §2): the app owns the single :class:`~tui.network.store.Store`,
and when a refresh cycle ends it hands the new immutable snapshot to the screens. A screen
only reacts: :meth:`StateScreen.show_snapshot` runs when one of the screen's ``FILES`` changed
(at once when the screen is on view, otherwise when it is next shown) and must update widgets in
place, keeping the user's cursor, scroll and filter.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen

from tui import tabs
from tui.network.store import Snapshot
from tui.screens.empty_state import not_loaded_text
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.tab_bar import TabBar

if TYPE_CHECKING:
    from tui.app import RoostApp

__all__ = ["StateScreen"]


class StateScreen(Screen):
    """A tab of the dashboard. Subclasses set the class variables and fill in the hooks.

    Hooks a subclass implements:

    * :meth:`compose_body` - the screen's own widgets (the base adds the chrome around them);
    * :meth:`show_snapshot` - update in place from a new snapshot (``changed`` ⊆ ``FILES``);
    * :meth:`select_key` - put the cursor on a row by key (agent id, channel slug, proposal id),
      used by :meth:`jump_to` and the command palette; rows may not exist yet when it is called,
      so remember the key and apply it once they do;
    * :meth:`copy_text` - what ``y`` copies (the selected id or URL), or ``None``;
    * :meth:`clear_marks` - a refresh cycle ended without touching this screen's files: drop the
      "new/changed" marks of the previous cycle;
    * :meth:`show_empty_state` - say why a file that is not loaded is missing (after every
      delivery: the reason can change while the snapshot does not, e.g. going offline);
    * :meth:`action_back` - ``escape``: close a detail pane, clear a filter, ...
    """

    TAB_ID: ClassVar[str] = ""
    TAB_KEY: ClassVar[str] = ""
    TAB_TITLE: ClassVar[str] = ""
    FILES: ClassVar[frozenset[str]] = frozenset()

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "copy", "Copy", id="screen.copy"),
        Binding("escape", "back", "Back", show=False, id="screen.back"),
    ]

    def __init_subclass__(cls, tab: str | None = None, **kwargs: Any) -> None:
        """``class StatsScreen(StateScreen, tab="stats")``: id, key, title and files come from
        the tab registry (tui/tabs.py), their one source."""
        super().__init_subclass__(**kwargs)
        if tab is not None:
            spec = tabs.tab(tab)
            cls.TAB_ID, cls.TAB_KEY, cls.TAB_TITLE, cls.FILES = (
                spec.id,
                spec.key,
                spec.title,
                spec.files,
            )

    def __init__(self) -> None:
        super().__init__(id=f"screen-{self.TAB_ID}", classes="state-screen")
        self._shown_generation = -1

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield TabBar(self.TAB_ID)
        with Vertical(classes="screen-body", id=f"{self.TAB_ID}-body"):
            yield from self.compose_body()
        yield StatusBar()
        yield KeyBar()

    def compose_body(self) -> ComposeResult:
        """The screen's own content."""
        yield from ()

    # ------------------------------------------------------------------ helpers for subclasses

    @property
    def roost(self) -> RoostApp:
        return cast("RoostApp", self.app)

    @property
    def snapshot(self) -> Snapshot:
        """The latest snapshot the app holds."""
        return self.roost.snapshot

    def clock(self) -> datetime:
        """The app's injectable clock: an aware UTC datetime (frozen in tests)."""
        return self.roost.clock()

    def not_loaded_text(self, name: str) -> str:
        """Why state file ``name`` has no loaded copy, and what the user can do (plain text)."""
        app = self.roost
        return not_loaded_text(
            self.snapshot.file(name),
            status=app.store.status,
            refreshed=app.loaded.is_set(),
            failure=app.refresh_failure,
        )

    def empty_text(self, name: str, noun: str) -> str:
        """What an empty list of ``noun`` from file ``name`` says: why it is empty."""
        if self.snapshot.file(name).loaded:
            return f"{name} lists no {noun}"
        return self.not_loaded_text(name)

    def jump_to(self, tab_id: str, key: str | None = None) -> None:
        """Switch to another tab and, with ``key``, select that row there."""
        self.roost.jump_to(tab_id, key)

    # ------------------------------------------------------------------ hooks

    def show_snapshot(self, snapshot: Snapshot, changed: frozenset[str]) -> None:
        """Update the widgets in place from ``snapshot``; ``changed`` is a subset of FILES."""

    def select_key(self, key: str) -> None:
        """Put the cursor on the row ``key`` (now, or as soon as it exists)."""

    def copy_text(self) -> str | None:
        """The text ``y`` copies (selected id or URL), or None when nothing is selected."""
        return None

    def clear_marks(self) -> None:
        """Drop the "new/changed" row marks of the previous refresh cycle."""

    def show_empty_state(self) -> None:
        """Update what empty tables and panels say (see :meth:`not_loaded_text`)."""

    def action_back(self) -> None:
        """``escape``: close what is open (detail, filter); the base has nothing to close."""

    # ------------------------------------------------------------------ plumbing

    def action_copy(self) -> None:
        text = self.copy_text()
        if not text:
            self.notify("Nothing selected to copy", severity="warning", markup=False)
            return
        self.roost.copy_and_tell(text)

    def deliver(self, snapshot: Snapshot, changed: frozenset[str]) -> None:
        """Called by the app: show the snapshot if it touches this screen's files."""
        relevant = changed & self.FILES
        if self._shown_generation < 0:
            relevant = self.FILES  # the first delivery shows everything
        if relevant:
            self._shown_generation = snapshot.generation
            self.show_snapshot(snapshot, frozenset(relevant))
        else:
            self.clear_marks()
        self.show_empty_state()
        self.refresh_status()
        if not self.building:
            self.roost.snapshot_on_view(self)

    @property
    def building(self) -> bool:
        """The last delivered snapshot is still being prepared off the UI thread."""
        return False

    @property
    def ready(self) -> bool:
        """The screen has shown its first snapshot (later ones can be delivered at once)."""
        return self._shown_generation >= 0

    def refresh_status(self) -> None:
        for bar in self.query(StatusBar):
            bar.refresh()

    def on_mount(self) -> None:
        self.roost.screen_mounted(self)

    def on_screen_resume(self) -> None:
        self.roost.screen_resumed(self)
