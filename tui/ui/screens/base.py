"""The base of every tab screen: tab bar, body, status bar, footer, and snapshot delivery.

Data flows one way: the app owns the single :class:`~tui.network.store.Store`, and when a refresh
cycle ends it hands the new immutable snapshot down to the screens. A screen only reacts:
:meth:`StateScreen.show_snapshot` runs when one of the screen's ``FILES`` changed (at once when
the screen is on view, otherwise when it is next shown) and must update widgets in place,
keeping the user's cursor, scroll and filter.

Attributes down, messages up: the app sets :attr:`StateScreen.app_state` (an
:class:`~tui.ui.app_state.AppState`) and calls :meth:`StateScreen.deliver`; the tab bar and the
status bar are bound to that state. A screen asks the app for something only by a message
(:class:`StateScreen.JumpRequested`, :class:`StateScreen.SnapshotShown`); it never imports or
calls the app.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext, suppress
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.lazy import Lazy
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget

from tui import tabs
from tui.network.empty_state import not_loaded_text
from tui.network.store import Snapshot
from tui.ui.app_state import AppState
from tui.ui.table.key_pace import KeyPace
from tui.ui.textual_compat import focus_as_shown
from tui.ui.widgets.key_bar import KeyBar
from tui.ui.widgets.status_bar import StatusBar
from tui.ui.widgets.tab_bar import TabBar
from tui.ui.widgets.text import copy

if TYPE_CHECKING:
    from tui.actions.action_context import ActionContext, ContextKind
    from tui.network.conversation import LoggedPost
    from tui.service import Service

__all__ = ["ScreenBody", "StateScreen"]


def _as_it_is(size: int | None) -> AbstractContextManager[object]:
    """No memory policy: a build runs as it is."""
    return nullcontext()


class ScreenBody(Vertical):
    """A tab screen's own content (:meth:`StateScreen.compose_body`). The screen composes it
    in Textual's ``Lazy``: the key that opens a tab paints the tab's bars at once and its body
    in the frames after (composing, styling and laying out a body, ~30 widgets for Seeds, is
    too slow for the key's path). Once its widgets are mounted it posts :class:`Mounted`."""

    @dataclass(eq=False)
    class Mounted(Message):
        """The body's widgets are mounted: the screen sets them up (its handler of this
        message, ``on_screen_body_mounted``), then shows its snapshot in them."""

        body: ScreenBody

    def __init__(self, owner: StateScreen) -> None:
        super().__init__(classes="screen-body", id=f"{owner.TAB_ID}-body")
        self._owner = owner

    def compose(self) -> ComposeResult:
        yield from self._owner.compose_body()

    def on_mount(self) -> None:
        owner = self._owner
        owner.body_filled = True
        owner._restore_sorts()  # and hidden columns: the screen then fits to those shown
        self.post_message(self.Mounted(self))


class Place(msgspec.Struct, frozen=True):
    """Where the user was before a jump: the tab, the selected row, the filter, the detail,
    and the view the tab was narrowed to (the Posts tab's "channel: debates")."""

    tab_id: str
    key: str | None = None
    filter: str = ""
    detail_open: bool = False
    scope: str | None = None


class StateScreen(Screen):
    """A tab of the dashboard. Subclasses set the class variables and fill in the hooks.

    Hooks a subclass implements:

    * :meth:`compose_body` - the screen's own widgets (the base adds the chrome around them,
      and composes them lazily: :class:`ScreenBody`); what the screen sets up on them goes in
      a handler of :class:`ScreenBody.Mounted` (``on_screen_body_mounted``), the rest in
      ``on_mount`` as in any Textual screen;
    * :meth:`show_snapshot` - update in place from a new snapshot (``changed`` ⊆ ``FILES``);
    * :meth:`select_key` - put the cursor on a row by key (agent id, channel slug, proposal id),
      used by :meth:`jump_to` and the command palette; rows may not exist yet when it is called,
      so remember the key and apply it once they do;
    * :meth:`copy_text` - what ``y`` copies (the selected id or URL), or ``None``;
    * :meth:`posting_context` - what ``n`` posts about (by default the selected row, read
      by :meth:`copy_text`, as a :attr:`POSTING_KIND`);
    * :meth:`take_service` - take what the tab needs from the service before it mounts;
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
    #: What the selected row is to the action picker (``n``): None, nothing to post about.
    POSTING_KIND: ClassVar[ContextKind | None] = None

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "y", "copy", "Copy", show=False, id="screen.copy"
        ),  # in help; the bar keeps n and q
        Binding("O", "open_link", "Open link in a browser", show=False, id="screen.open"),
        Binding("e", "export", "Export the table", show=False, id="screen.export"),
        Binding("C", "columns", "Show / hide the table's columns", show=False, id="screen.columns"),
        Binding("escape", "back", "Back", show=False, id="screen.back"),
        Binding(
            "backspace", "app.go_back", "Back to before the jump", show=False, id="screen.go_back"
        ),
    ]

    _hidden_once = False  # set when the screen is first hidden (see _styles_are_fresh)
    styles_current = False
    """Set by the app when, as it made the screen, it marked the screen's styles current with
    its stylesheet: until the screen is first hidden, a resume does not restyle it then."""

    body_filled = False
    """The body's widgets are mounted (:class:`ScreenBody` is lazy: see there)."""
    remembered_sorts: Mapping[str, tuple[str | None, bool]] = {}
    """Set by the app: the sorts remembered for this tab's tables, by table id ("" the main
    table); put back when the body is mounted, before the first rows."""
    remembered_hidden: Mapping[str, tuple[str, ...]] = {}
    """Set by the app: the columns hidden (``C``) in this tab's tables, by table id; put back
    with the sorts."""

    app_state: var[AppState] = var(AppState)
    """What the app says about itself; set by the app (the tab and status bars are bound to it)."""
    demo: var[bool] = var(False)
    """On the demo network (computed from :attr:`app_state`; the tab bar's badge)."""

    @dataclass(eq=False)
    class JumpRequested(Message):
        """Show tab ``tab_id`` and, with ``key``, select that row there (handled by the app)."""

        tab_id: str
        key: str | None = None

    class BackRequested(Message):
        """Go back to where the user was before the last jump (handled by the app)."""

    @dataclass(eq=False)
    class OpenLinkRequested(Message):
        """Open ``url`` in a browser where one can open, else show and copy it (the app)."""

        url: str

    @dataclass(eq=False)
    class ColumnsHidden(Message):
        """``C`` hid the columns ``hidden`` of ``table`` (none: all shown); the app remembers."""

        table: Widget
        hidden: tuple[str, ...]

    @dataclass(eq=False)
    class FilesWanted(Message):
        """Read the optional state files ``names`` too (the conversation's: big, read only
        once a screen asks; handled by the app)."""

        names: tuple[str, ...]

    @dataclass(eq=False)
    class ThreadRequested(Message):
        """Open the thread of post ``number`` over this tab; ``post`` is what the tab's row
        knows of it (shown at once when nothing better is at hand). Handled by the app."""

        number: int
        post: LoggedPost | None = None

    @dataclass(eq=False)
    class SnapshotShown(Message):
        """``screen`` has put its latest snapshot in its widgets (the app notes the first
        populated paint)."""

        screen: StateScreen

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
        self._pending: frozenset[str] | None = None  # changes kept while not on view
        self._select_when_ready: str | None = None
        #: When keys come (the app's, set when it makes the screen): background work of this
        #: tab stands aside meanwhile.
        self.key_pace = KeyPace()
        #: What a big build of this tab (rows that live until the next build) runs in: the
        #: app's memory policy (tui/ui/speed), set when it makes the screen; none here.
        self.build_policy: Callable[[int | None], AbstractContextManager[object]] = _as_it_is

    def compute_demo(self) -> bool:
        return self.app_state.demo

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield TabBar(self.TAB_ID, demo=self.demo).data_bind(StateScreen.demo)
        yield Lazy(ScreenBody(self))
        yield StatusBar(self.app_state, files=self.FILES).data_bind(StateScreen.app_state)
        yield KeyBar()

    def compose_body(self) -> ComposeResult:
        """The screen's own content."""
        yield from ()

    # ------------------------------------------------------------------ helpers for subclasses

    @property
    def snapshot(self) -> Snapshot:
        """The latest snapshot the app holds."""
        return self.app_state.snapshot

    def clock(self) -> datetime:
        """The app's injectable clock: an aware UTC datetime (frozen in tests)."""
        return self.app_state.clock()

    def not_loaded_text(self, name: str) -> str:
        """Why state file ``name`` has no loaded copy, and what the user can do (plain text)."""
        state = self.app_state
        return not_loaded_text(
            state.snapshot.file(name),
            status=state.status,
            refreshed=state.refreshed,
            failure=state.failure,
        )

    def empty_text(self, name: str, noun: str) -> str:
        """What an empty list of ``noun`` from file ``name`` says: why it is empty."""
        if self.snapshot.file(name).loaded:
            return f"{name} lists no {noun}"
        return self.not_loaded_text(name)

    def jump_to(self, tab_id: str, key: str | None = None) -> None:
        """Switch to another tab and, with ``key``, select that row there (asks the app)."""
        self.post_message(self.JumpRequested(tab_id, key))

    def open_thread(self, number: int, post: LoggedPost | None = None) -> None:
        """Read post ``number``'s thread, over this tab (asks the app)."""
        self.post_message(self.ThreadRequested(number, post))

    # ------------------------------------------------------------------ hooks

    def show_snapshot(self, snapshot: Snapshot, changed: frozenset[str]) -> None:
        """Update the widgets in place from ``snapshot``; ``changed`` is a subset of FILES."""

    def select_key(self, key: str) -> None:
        """Put the cursor on the row ``key`` (now, or as soon as it exists)."""

    def copy_text(self) -> str | None:
        """The text ``y`` copies (selected id or URL), or None when nothing is selected."""
        return None

    def posting_context(self) -> ActionContext:
        """What ``n`` posts about: the selected row as a :attr:`POSTING_KIND`, if any."""
        from tui.actions.action_context import ActionContext  # deferred: off the start path

        key = self.copy_text() if self.POSTING_KIND is not None else None
        return ActionContext(self.POSTING_KIND, key) if key else ActionContext()

    def take_service(self, service: Service) -> None:
        """Take what this tab needs from the service; the app calls it on every tab screen it
        makes, before the screen mounts. Most tabs need nothing but the snapshot."""

    #: What an export of this screen's table is named after (default: the tab's id).
    EXPORT_NAME: ClassVar[str] = ""

    def action_columns(self) -> None:
        """``C``: show or hide the columns of the table on view (screens/column_chooser.py)."""
        # deferred: off the start path
        from tui.ui.screens.column_chooser import choose_columns

        choose_columns(self)

    def action_export(self) -> None:
        """``e``: the table on view, as shown, to CSV or JSON Lines (screens/export_dialog.py)."""
        # here, not at the top: export_dialog imports this module
        from tui.ui.screens.export_dialog import export_table

        export_table(self, self.EXPORT_NAME or self.TAB_ID or "table", clock=self._local_now)

    def _local_now(self) -> datetime:
        return self.app_state.clock().astimezone()

    def link_url(self) -> str | None:
        """The http(s) URL ``O`` opens (the selected post's), or None."""
        return None

    def open_link(self, url: str) -> None:
        """Ask the app to open ``url`` (see :class:`OpenLinkRequested`)."""
        self.post_message(self.OpenLinkRequested(url))

    def action_open_link(self) -> None:
        url = self.link_url()
        if url is None:
            self.notify("Nothing selected here has a link to open", severity="warning")
            return
        self.open_link(url)

    def clear_marks(self) -> None:
        """Drop the "new/changed" row marks of the previous refresh cycle."""

    def show_empty_state(self) -> None:
        """Update what empty tables and panels say (see :meth:`not_loaded_text`)."""

    def action_back(self) -> None:
        """``escape``: close what is open (detail, filter); with nothing open, go back to
        before the last jump."""
        self.back_more()

    def back_more(self) -> None:
        """``escape`` with nothing else to close: back to before the last jump, if any."""
        self.post_message(self.BackRequested())

    def place(self) -> Place:
        """Where the user is on this tab, for the way back after a jump."""
        return Place(self.TAB_ID)

    def return_to(self, place: Place) -> None:
        """Put the cursor, filter and detail back as :meth:`place` recorded them."""
        if place.key is not None:
            self.select_when_ready(place.key)

    # ------------------------------------------------------------------ plumbing

    def action_copy(self) -> None:
        text = self.copy_text()
        if not text:
            self.notify("Nothing selected to copy", severity="warning", markup=False)
            return
        copy(self, text)

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
            self.snapshot_shown()

    def keep_for_later(self, changed: frozenset[str]) -> None:
        """Called by the app while this screen is not on view: remember what changed, shown
        when the screen is next resumed."""
        self._pending = (self._pending or frozenset()) | (changed & self.FILES)

    def select_when_ready(self, key: str) -> None:
        """:meth:`select_key` now, or once the screen has shown its first snapshot."""
        if self.ready:
            self.select_key(key)
        else:
            self._select_when_ready = key

    def snapshot_shown(self) -> None:
        """Tell the app the latest snapshot is in the widgets (see :class:`SnapshotShown`)."""
        self.post_message(self.SnapshotShown(self))

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

    @on(ScreenBody.Mounted)
    def _body_is_there(self, message: ScreenBody.Mounted) -> None:
        """The body is there: after a subclass's own ``on_screen_body_mounted`` (Textual runs a
        subclass's handlers before its base's) has set its widgets up, the snapshot is shown
        in them, a row asked for is selected, the focus set."""
        message.stop()
        self._pending = None
        self.deliver(self.snapshot, self.FILES)
        key, self._select_when_ready = self._select_when_ready, None
        if key is not None:
            self.select_key(key)
        # what Textual focuses when a screen is shown (the screen was shown without its body)
        focus_as_shown(self)

    def _restore_sorts(self) -> None:
        # here, not at the top: a tab with no table (Stats) never loads the table engine
        from tui.ui.table.virtual_table import VirtualTable

        remembered = self.remembered_sorts or self.remembered_hidden
        for table in self.query(VirtualTable) if remembered else ():
            sort = self.remembered_sorts.get(table.id or "")
            if sort is not None and sort != (table.sort_column, table.sort_reverse):
                with suppress(ValueError):  # a column this version no longer has
                    table.sort_by(*sort)
            known = {column.key for column in table.columns}
            hidden = [key for key in self.remembered_hidden.get(table.id or "", ()) if key in known]
            with suppress(ValueError):  # every column hidden: all shown
                table.hide_columns(hidden)

    @on(events.ScreenResume)
    def _styles_are_fresh(self, event: events.ScreenResume) -> None:
        """With :attr:`styles_current`, until the screen is first hidden, a resume does not
        restyle it. Textual restyles every node of a screen on each resume; a tab's first visit
        sends two, a moment after the screen's nodes were styled as they mounted, from the same
        stylesheet (the app's speed machinery marks them current). At 80×24 that was two full
        passes over the Seeds tab's ~220 styled parts, most of its first-visit time. Runs
        before Textual's own handler (decorated handlers come first in each class)."""
        if self.styles_current and not self._hidden_once:
            event.refresh_styles = False

    @on(events.ScreenSuspend)
    def _now_hidden(self) -> None:
        self._hidden_once = True

    def on_screen_resume(self) -> None:
        if not self.body_filled:
            return  # the whole snapshot is shown once the body is there
        pending, self._pending = self._pending, None
        if pending is not None and self.is_mounted:
            self.deliver(self.snapshot, pending)
        elif self.ready:
            self.show_empty_state()  # e.g. the refresh worker failed while it was hidden
