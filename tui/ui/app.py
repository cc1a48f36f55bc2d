"""The roost app: one store, the tab screens, bindings, help and the command palette.

Wiring (attributes down, messages up):

* the app is given its :class:`~tui.service.Service` (built by :func:`tui.service.connect`) and
  builds nothing itself: one store per app. At start the disk cache is read (in a thread)
  and shown at once; then a worker runs the store's refresh loop. The store's listener posts
  :class:`RoostApp.StateRefreshed`; the handler (never a worker) hands the snapshot to the screens.
* the app's state (snapshot, store status, …) is one :class:`~tui.ui.app_state.AppState`, set
  on every tab screen when it changes; their tab and status bars are bound to it. Each tab screen takes what else it needs from the service
  (:meth:`~tui.ui.screens.base.StateScreen.take_service`) when it is made.
* posting is a :class:`~tui.ui.write_controller.WriteController` over the service's Poster.
* a screen updates only when one of its ``FILES`` changed; screens and widgets ask by message.
* worker failures become a toast and the status bar's state, never a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, ClassVar

from msgspec.structs import replace
from textual import events, work
from textual.app import App, ScreenStackError, SuspendNotSupported, SystemCommand
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from tui.network.store import RefreshReport, Snapshot, Store, StoreStatus
from tui.network.urls import redact_url
from tui.ui import speed
from tui.ui.app_state import AppState, Clock, utc_now
from tui.ui.conversation import ConversationController
from tui.ui.preferences import PreferencesController
from tui.ui.pulse import PulseController
from tui.ui.screens import TABS, StateScreen, Tab
from tui.ui.screens.base import Place
from tui.ui.ssh_mode import NO_BROWSER, NO_SUSPEND, SSHGuard
from tui.ui.stylesheets import no_color, sheets, styles_dir
from tui.ui.table.virtual_table import VirtualTable
from tui.ui.widgets.editors import OrderedInput
from tui.ui.widgets.tab_bar import TabBar
from tui.ui.widgets.text import short
from tui.ui.write_controller import WriteController
from tui.untrusted import for_clipboard

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.command import Provider

    from tui.config import Settings
    from tui.service import Service
    from tui.ui.screens.inbox import InboxScreen
    from tui.ui.screens.outbox import OutboxScreen
    from tui.ui.screens.palette import PaletteIndex
    from tui.ui.screens.thread import ThreadScreen

__all__ = ["RoostApp", "run_tui", "styles_dir", "utc_now"]

_CACHE_PAINT_WAIT_S = 3.0  # the first refresh waits at most this long for the cache's paint
REPORTS_KEPT = 20  # refresh reports the problems view lists
INTERVAL_STEPS = (5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)  # `+` / `-`


def _roost_commands() -> type[Provider]:
    """The palette's provider, imported when the palette first opens (not on the start path)."""
    from tui.ui.screens.palette import RoostCommands  # deferred: off the start path

    return RoostCommands


def _tab_bindings() -> list[BindingType]:
    return [
        Binding(
            tab.key,
            f"switch_tab('{tab.id}')",
            tab.title,
            show=False,
            id=f"app.tab.{tab.id}",
        )
        for tab in TABS
    ]


class RoostApp(App[int]):
    """The dashboard of ``service``: its snapshots on the tabs, its write side behind ``n``."""

    TITLE = "roost"
    # the chrome, its widgets and the three table tabs; other screens bring their own sheets, parsed
    # when first shown (each stylesheet change re-parses all CSS)
    CSS_PATH = sheets("app", "widgets", "tables")
    COMMANDS = App.COMMANDS | {_roost_commands}
    BINDINGS: ClassVar[list[BindingType]] = [
        *_tab_bindings(),
        Binding("r", "refresh", "Refresh", id="app.refresh"),
        Binding("i", "inbox", "Inbox: what happened to your agent", show=False, id="app.inbox"),
        *WriteController.BINDINGS,
        Binding(
            "R", "refresh(True)", "Re-fetch everything (no ETags)", show=False, id="app.reload"
        ),
        Binding("p", "pause", "Pause / resume refreshing", show=False, id="app.pause"),
        Binding(
            "plus",
            "interval(1)",
            "Refresh less often",
            key_display="+",
            show=False,
            id="app.slower",
        ),
        Binding(
            "minus",
            "interval(-1)",
            "Refresh more often",
            key_display="-",
            show=False,
            id="app.faster",
        ),
        Binding(
            "exclamation_mark",
            "problems",
            "Problems and refresh log",
            key_display="!",
            show=False,
            id="app.problems",
        ),
        Binding("question_mark", "help", "Help", key_display="?", id="app.help"),
        Binding("q", "quit", "Quit", id="app.quit"),
    ]
    NOTIFICATION_TIMEOUT = 6

    @dataclass(eq=False)
    class StateRefreshed(Message):
        """The store finished a refresh cycle (or read its disk cache: ``report`` is None); the
        app posts it to itself from the store's listener."""

        snapshot: Snapshot
        report: RefreshReport | None
        status: StoreStatus
        files: frozenset[str] | None = None  # only these files changed (files read on demand)

        @property
        def changed(self) -> frozenset[str]:
            if self.files is not None:
                return self.files
            if self.report is None:  # the cache: every loaded file is news
                return frozenset(
                    name for name, state in self.snapshot.files.items() if state.loaded
                )
            return frozenset(self.report.changed)

    def __init__(
        self,
        service: Service,
        *,
        clock: Clock = utc_now,
        initial_screen: str | None = "agents",
        poll: bool = True,
        ask_demo_reset: bool = False,
    ) -> None:
        # one mode per tab: its screen (and its module) is made by _open_tab when the tab is
        # first shown, given the app's state before it mounts
        modes = {tab.id: partial(self._open_tab, tab) for tab in TABS}
        self.preferences = PreferencesController(self, service.settings, service.session)
        initial_screen = initial_screen or self.preferences.first_tab(modes)
        if initial_screen not in modes:
            known = ", ".join(modes)
            raise ValueError(f"no screen {initial_screen!r}: use one of {known}")
        # start in the tab's mode itself: no throwaway default screen, no mode switch (and its
        # second full CSS reparse) in on_mount; both are this app's own (ClassVars in Textual)
        vars(self).update(MODES=modes, DEFAULT_MODE=initial_screen)
        super().__init__(ansi_color=no_color())
        #: The speed machinery (tui/ui/speed): ROOST_PLAIN=1 runs plain Textual.
        self.speed = speed.install(self, first_css=(OrderedInput,))
        self.initial_screen = initial_screen
        self.clock: Clock = clock
        self.service = service
        #: `roost demo --reset`: ask before the demo world is started afresh.
        self.ask_demo_reset = ask_demo_reset and service.settings.demo
        self.store: Store = service.store
        self.poll = poll
        self.preferences.install(self.store if poll else None)
        #: Served over SSH: the server's signals, and no suspend, no browser (tui/ui/ssh_mode.py).
        self.ssh = SSHGuard(self, service.session.ssh_role)
        self.app_state = AppState(
            snapshot=self.store.snapshot,
            status=self.store.status,
            service=service.settings.service_label(),
            demo=service.settings.demo,
            readonly=service.session.readonly,
            clock=clock,
            interval_s=self.store.options.interval_s if poll else 0.0,
        )
        #: Posting: the issue client and outbox, the keys that post, the outbox's tracker.
        self.writer = WriteController(
            self,
            service,
            snapshot=lambda: self.snapshot,
            show_outbox=lambda summary: self._publish(outbox=summary),
        )
        #: Reading the conversation: files read on demand, threads, answers from a thread.
        self.conversation = ConversationController(
            self,
            service,
            self.writer,
            snapshot=lambda: self.snapshot,
            refreshed=lambda files: self.post_message(
                self.StateRefreshed(self.store.snapshot, None, self.store.status, files)
            ),
            refresh=self.action_refresh,
        )
        #: The pulse: whose inbox roost shows, and what is unread in it.
        self.pulse = PulseController(self, service, self.conversation, publish=self._publish)
        self.palette_index: PaletteIndex | None = None  # the palette's candidates (per snapshot)
        self.loaded = asyncio.Event()  # set once the first refresh cycle has been shown
        self._cache_on_view = asyncio.Event()  # the disk cache's data has been painted
        self._cache_read = asyncio.Event()  # the start-up's read of the disk cache is over
        self._tab_screens: dict[str, StateScreen] = {}
        self._problems_seen: set[tuple[str, str]] = set()
        self._last_state = "starting"
        self._leaving = False  # exit() was called: nothing will be drawn again
        self._switching_tab = False  # see delay_update
        self._unsubscribe = self.store.subscribe(self._on_store_cycle)

    def exit(self, *args: Any, **kwargs: Any) -> None:
        self._leaving = True
        super().exit(*args, **kwargs)

    def update_styles(self, node: Any, animate: bool = True) -> None:
        """No restyling once leaving: each tab's blur restyled its subtree for a frame never
        drawn (a visible part of a big network's quit)."""
        if self._leaving:
            return
        super().update_styles(node, animate)

    # ------------------------------------------------------------------ state, handed down

    @property
    def settings(self) -> Settings:
        """The service's settings (the user's, with the demo network's write side on it)."""
        return self.service.settings

    @property
    def snapshot(self) -> Snapshot:
        return self.app_state.snapshot

    @property
    def refreshing(self) -> bool:
        return self.app_state.refreshing

    @property
    def refresh_failure(self) -> str | None:
        """Why the refresh worker died, if it did."""
        return self.app_state.failure

    @property
    def cache_on_view(self) -> bool:
        """The disk cache's data has been painted (the first refresh waits for it)."""
        return self._cache_on_view.is_set()

    def tab_screen(self, tab_id: str) -> StateScreen | None:
        """The screen of tab ``tab_id``, if it has been opened."""
        return self._tab_screens.get(tab_id)

    def _publish(self, **changes: Any) -> None:
        """Make the next state and set it on every tab screen made so far."""
        state = self.app_state = replace(self.app_state, **changes)
        for screen in {*self._tab_screens.values(), *self._current_state_screens()}:
            screen.app_state = state

    def _open_tab(self, tab: Tab) -> StateScreen:
        """A new screen for ``tab`` (the modes' factory), given the app's state."""
        screen = tab()
        screen.app_state = self.app_state
        self.speed.screen_made(screen)
        screen.take_service(self.service)
        self.preferences.tables_of(screen, tab.id)
        self._tab_screens[tab.id] = screen
        return screen

    def _follow_store_status(self) -> None:
        """The store's status between cycles (a retry's delay, a polled cycle) is shown too."""
        changes: dict[str, Any] = {}
        if self.store.status is not self.app_state.status:
            changes["status"] = self.store.status
        if self.store.busy and not self.app_state.refreshing:
            changes["refreshing"] = True
        if changes:
            self._publish(**changes)

    async def on_event(self, event: events.Event) -> None:
        if not self.speed.key(event):  # else held, typed again when what takes it is there
            await super().on_event(event)

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        pushed = super().push_screen(screen, *args, **kwargs)
        if isinstance(screen, Screen):  # a picker, a form, a thread: it takes what follows
            self.speed.pushed(screen)
        return pushed

    # ------------------------------------------------------------------ store plumbing

    def _on_store_cycle(self, snapshot: Snapshot, report: RefreshReport) -> None:
        """The store's listener (in the refresh worker): post, never touch widgets."""
        self.post_message(self.StateRefreshed(snapshot, report, self.store.status))

    def on_mount(self) -> None:
        # The screen (chrome, "loading…") has been displayed by now: the cache read starts at
        # once. Validating a big cached file holds the GIL, so the UI waits for it either way.
        self.speed.mounted()
        self.ssh.install()
        self.preferences.started()
        self._run_store()
        self.set_interval(0.5, self._follow_store_status, name="store status")

    @work(
        group="store",
        exclusive=True,
        exit_on_error=False,
        name="store",
        description="read the disk cache, then refresh",
    )
    async def _run_store(self) -> None:
        try:
            try:
                snapshot = await asyncio.to_thread(self.store.load_cache)  # collector off inside
            finally:
                self._cache_read.set()
            if snapshot.any_loaded:
                self.post_message(self.StateRefreshed(snapshot, None, self.store.status))
                # The network waits until the cached data is painted: the first cycle imports
                # httpx and validates whatever changed, which would only delay that paint.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._cache_on_view.wait(), timeout=_CACHE_PAINT_WAIT_S)
        finally:
            self.speed.first_data_painted()
        if self.poll:
            await self.store.run()
        else:
            await self.store.refresh()

    @work(
        group="refresh-once",
        exclusive=True,
        exit_on_error=False,
        name="refresh",
        description="refresh now",
    )
    async def _refresh_once(self, force: bool = False) -> None:
        # not while the cache is read: its older copies would land over what this one brings
        await self._cache_read.wait()
        await (self.store.refresh(force=True) if force else self.store.refresh())

    async def on_unmount(self) -> None:
        self.preferences.tab_shown(self.current_mode)
        self.ssh.remove()
        self._unsubscribe()
        self.speed.unmounted()
        self.writer.close()
        await self.service.aclose()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        if event.worker.group in ("store", "refresh-once"):
            self._publish(refreshing=False, failure=short(error, 300))
            for screen in self._current_state_screens():
                if screen.body_filled:
                    screen.show_empty_state()
        else:
            self._publish(refreshing=False)
        self.notify(
            f"{event.worker.name or 'background task'} failed: {short(error, 300)}",
            title="Error",
            severity="error",
            markup=False,
        )

    def on_roost_app_state_refreshed(self, message: RoostApp.StateRefreshed) -> None:
        """Hand the snapshot to the screens: now on view, later for hidden tabs."""
        snapshot = message.snapshot
        if snapshot.generation < self.snapshot.generation:
            # overtaken on its way (the cache's read and a tab's read of its files are two
            # threads): the newer snapshot on view holds everything this one brought
            snapshot = self.snapshot
        if message.report is not None:
            self._publish(
                snapshot=snapshot,
                status=message.status,
                refreshing=False,
                failure=None,
                refreshed=True,
                reports=(*self.app_state.reports, message.report)[-REPORTS_KEPT:],
            )
            if not self.loaded.is_set():
                if self.poll:
                    self.writer.start_tracking()  # the outbox is followed once the dashboard is up
                if self.ask_demo_reset:  # over the world it would set aside
                    self.writer.ask_demo_reset(then=self._refresh_fresh_world)
                self.speed.loaded(self.prepare_tabs)
                self.pulse.start()
            self.loaded.set()
            self._tell_problems(message.report, message.status)
        else:
            self._publish(snapshot=snapshot, status=message.status)
        changed = message.changed
        current = [screen for screen in self._current_state_screens() if screen.ready]
        for screen in self._tab_screens.values():
            if screen not in current:
                screen.keep_for_later(changed)
        for screen in current:
            screen.deliver(snapshot, changed)
        self.conversation.snapshot_changed(changed)
        self.pulse.snapshot_changed(snapshot, changed)

    @work(
        group="preload",
        exclusive=True,
        exit_on_error=False,
        name="preload",
        description="import the other tabs' screens and parse their CSS",
    )
    async def prepare_tabs(self) -> None:
        """Between keys, import the other tabs' modules and parse their CSS (tui/ui/speed)."""
        await self.speed.preload(self._tab_screens)

    def _current_state_screens(self) -> list[StateScreen]:
        return [screen for screen in self.screen_stack if isinstance(screen, StateScreen)]

    def on_state_screen_snapshot_shown(self, message: StateScreen.SnapshotShown) -> None:
        """Note the first populated paint of the screen on view (the network waits for it)."""
        if self._cache_on_view.is_set() or not self.snapshot.any_loaded:
            return
        try:
            on_view = message.screen is self.screen
        except ScreenStackError:  # the app is closing: its screens are gone
            return
        if on_view:
            self.call_after_refresh(self._cache_on_view.set)

    def on_state_screen_jump_requested(self, message: StateScreen.JumpRequested) -> None:
        self.remember_place()
        self.jump_to(message.tab_id, message.key)

    def on_state_screen_open_link_requested(self, message: StateScreen.OpenLinkRequested) -> None:
        self.open_link(message.url)

    def open_link(self, url: str, *, confirm: bool = False) -> None:
        """Open a browser only where one can; otherwise copy the link and show it to click.
        ``confirm`` (a link someone wrote): shown in full first, opened on ``enter``."""
        # deferred: off the start path
        from tui.browser import browser_unavailable
        from tui.ui.screens.link import LinkScreen

        reason = browser_unavailable()
        if reason is not None:
            self._show_link(url, reason)
        elif confirm:
            self.push_screen(LinkScreen(url, None), lambda go: go and self._open_in_browser(url))
        else:
            self._open_in_browser(url)

    # ------------------------------------------------------------------ the conversation

    def on_state_screen_files_wanted(self, message: StateScreen.FilesWanted) -> None:
        self.conversation.want(message.names)

    def on_state_screen_thread_requested(self, message: StateScreen.ThreadRequested) -> None:
        self.conversation.open_thread(message.number, message.post, self.clock)

    def on_thread_screen_reload_requested(self, message: ThreadScreen.ReloadRequested) -> None:
        self.conversation.read(message.screen, message.number, fresh=True)

    def on_thread_screen_answer_requested(self, message: ThreadScreen.AnswerRequested) -> None:
        self.conversation.answer(message.action, message.prefill)

    def on_thread_screen_open_link_requested(self, message: ThreadScreen.OpenLinkRequested) -> None:
        self.open_link(message.url, confirm=True)

    @work(group="browser", exit_on_error=False, thread=True, name="browser")
    def _open_in_browser(self, url: str) -> None:
        from tui.browser import open_in_browser  # deferred: off the start path

        if open_in_browser(url):
            self.call_from_thread(
                self.notify, f"Asked your browser to open {short(url, 80)}", markup=False
            )
        else:
            self.call_from_thread(self._show_link, url, "no browser took the link")

    def action_suspend_process(self) -> None:
        if self.ssh.active:
            self.notify(NO_SUSPEND, severity="warning", markup=False)
            return
        super().action_suspend_process()

    @contextlib.contextmanager
    def suspend(self) -> Iterator[None]:
        if self.ssh.active:
            raise SuspendNotSupported(NO_SUSPEND)
        with super().suspend():
            yield

    def copy_to_clipboard(self, text: str) -> None:
        """Every copy (OSC 52) goes through :func:`tui.untrusted.for_clipboard`."""
        super().copy_to_clipboard(for_clipboard(text)[0])

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        if self.ssh.active:
            self._show_link(url, NO_BROWSER)
            return
        super().open_url(url, new_tab=new_tab)

    def _show_link(self, url: str, reason: str) -> None:
        from tui.ui.screens.link import LinkScreen  # deferred: off the start path

        self.copy_to_clipboard(url)  # OSC 52
        self.push_screen(LinkScreen(url, reason))

    def on_virtual_table_warmed(self, message: VirtualTable.Warmed) -> None:
        """A table's rows are warmed: they live until its next rows (tui/ui/speed)."""
        self.speed.rows_warmed(message.rows)

    def on_virtual_table_sorted(self, message: VirtualTable.Sorted) -> None:
        if tab_id := getattr(message.table.screen, "TAB_ID", ""):  # remembered per table
            self.preferences.sorted(tab_id, message.table.id, message.column_key, message.reverse)

    def on_state_screen_columns_hidden(self, message: StateScreen.ColumnsHidden) -> None:
        if tab_id := getattr(message.table.screen, "TAB_ID", ""):  # remembered per table
            self.preferences.columns_hidden(tab_id, message.table.id, message.hidden)

    def on_tab_bar_tab_chosen(self, message: TabBar.TabChosen) -> None:
        self.jump_to(message.tab_id)

    def _tell_problems(self, report: RefreshReport, status: StoreStatus) -> None:
        """Toast transitions (online → offline) and new integrity problems, once each."""
        if status.state in ("offline", "backing-off") and self._last_state not in (
            "offline",
            "backing-off",
        ):
            reason = short(status.last_error or "unreachable", 200)
            self.notify(
                f"{reason}. Showing the last good copy; retrying in the background.",
                title="Service unreachable",
                severity="warning",
                markup=False,
            )
        elif status.state == "online" and self._last_state in ("offline", "backing-off"):
            self.notify("Back online.", markup=False)
        self._last_state = status.state
        for note in report.notes:
            self.notify(short(note, 400), title="Read URL", markup=False, timeout=12)
        for problem in report.problems:
            if problem.kind in ("network", "unverified", "missing"):
                continue
            key = (problem.file, problem.kind)
            if key in self._problems_seen:
                continue
            self._problems_seen.add(key)
            self.notify(
                f"{short(problem.file, 60)}: {short(problem.detail, 300)}",
                title=f"Integrity: {problem.kind}",
                severity="warning",
                markup=False,
            )

    # ------------------------------------------------------------------ navigation

    def jump_to(self, tab_id: str, key: str | None = None) -> None:
        """Show tab ``tab_id`` (closing modals on the current tab) and select ``key`` there."""
        if tab_id not in self.MODES:
            self.notify(f"No {tab_id} screen in this version", severity="warning", markup=False)
            return
        while len(self.screen_stack) > 1:  # what is over the tab: modals, a thread, the inbox
            self.pop_screen()
        self._switching_tab = True
        try:
            self.switch_mode(tab_id)
        finally:
            self._switching_tab = False
        screen = self.screen
        if key is not None and isinstance(screen, StateScreen):
            screen.select_when_ready(key)  # a screen made just now selects after its first show

    def delay_update(self, delay: float = 0.05) -> None:
        """Textual holds every repaint for ``delay`` when a mode (a tab) is shown, to mask a
        screen still being built. A tab is shown at once instead: one shown before is whole
        (its first frame is the one the hold would let out 50 ms later), and a first visit
        shows its bars on the key and its body a frame later (its ``Lazy`` body), the status
        bar already in its place (docked, styles/app.tcss)."""
        if not self._switching_tab:
            super().delay_update(delay)

    HISTORY_LIMIT: ClassVar[int] = 50

    @cached_property
    def _history(self) -> deque[Place]:
        """Where the user was before each jump, newest last (``backspace`` pops it)."""
        return deque(maxlen=self.HISTORY_LIMIT)

    def remember_place(self) -> None:
        """Record where the user is (tab, row, filter, detail) before a jump takes them away."""
        screen = next((s for s in reversed(self.screen_stack) if isinstance(s, StateScreen)), None)
        if screen is not None:
            self._history.append(screen.place())

    def on_state_screen_back_requested(self, message: StateScreen.BackRequested) -> None:
        message.stop()
        self.go_back()

    def go_back(self) -> None:
        """Return to where the user was before the last jump, cursor and filter as they were."""
        if not self._history:
            return
        place = self._history.pop()
        if place.tab_id not in self.MODES:  # a screen over the tabs (the inbox)
            return self.pulse.open_inbox(place)
        self.jump_to(place.tab_id)
        screen = self.screen
        if isinstance(screen, StateScreen) and place.tab_id == screen.TAB_ID:
            screen.return_to(place)

    def action_go_back(self) -> None:
        self.go_back()

    def action_inbox(self) -> None:
        self.pulse.toggle_inbox()  # `i`: the inbox of the agent roost is set to

    def on_inbox_screen_items_read(self, message: InboxScreen.ItemsRead) -> None:
        self.pulse.read_changed()

    # ------------------------------------------------------------------ posting

    def action_compose(self) -> None:
        """`n`: the action picker for what is selected (``n heart``: "heart" is its filter)."""
        self.speed.opening()
        if not self.writer.compose():
            self.speed.not_opening()  # the keys act where they are

    def action_outbox(self) -> None:
        """`o`: the outbox of this service."""
        self.writer.open_outbox()

    def action_token(self) -> None:
        """`T`: type a token for this session."""
        self.writer.ask_token()

    def on_write_controller_poster_changed(self, message: WriteController.PosterChanged) -> None:
        self.writer.show(message.state)  # the bars, the toasts
        self.conversation.pending_changed()

    def on_outbox_screen_edit_copy_requested(self, message: OutboxScreen.EditCopyRequested) -> None:
        self.writer.answer(message.action, message.payload)

    # ------------------------------------------------------------------ actions

    def action_switch_tab(self, tab_id: str) -> None:
        self.jump_to(tab_id)

    def action_refresh(self, force: bool = False) -> None:
        """`r`: a cycle now; `R` (``force``): every file again, without ETags."""
        self._publish(refreshing=True)
        if force:
            self.notify("Re-fetching every file (ETags ignored)…", markup=False)
        if self._polling:
            self.store.request_refresh(force=force)
        else:  # not polling, or the polling worker failed: one cycle now
            self._refresh_once(force)

    @property
    def _polling(self) -> bool:
        return self.poll and any(w.group == "store" and w.is_running for w in self.workers)

    def action_pause(self) -> None:
        """`p`: stop or restart automatic refreshes (`r` still refreshes while paused)."""
        if not self._polling:
            self.notify("Not polling: r refreshes once", severity="warning", markup=False)
            return
        paused = not self.app_state.paused
        self.store.pause(paused)
        self._publish(paused=paused, status=self.store.status)
        if paused:
            self.notify("Refreshing paused: p resumes, r refreshes once", markup=False)
        else:
            self.notify(
                f"Refreshing every {_interval(self.store.options.interval_s)}", markup=False
            )

    def action_interval(self, step: int) -> None:
        """`+` / `-`: poll less or more often, through :data:`INTERVAL_STEPS`."""
        current = self.store.options.interval_s
        if step > 0:
            wanted = next((s for s in INTERVAL_STEPS if s > current), INTERVAL_STEPS[-1])
        else:
            wanted = next((s for s in reversed(INTERVAL_STEPS) if s < current), INTERVAL_STEPS[0])
        self.store.set_interval(wanted)
        interval = self.store.options.interval_s
        self.preferences.interval_changed(interval)
        self._publish(interval_s=interval if self.poll else 0.0)
        self.notify(f"Refreshing every {_interval(interval)}", markup=False)

    def action_problems(self) -> None:
        from tui.ui.screens.problems import ProblemsScreen  # not on the start path

        if isinstance(self.screen, ProblemsScreen):
            self.pop_screen()
            return
        self.push_screen(ProblemsScreen(self.app_state, redact_url(self.store.base_url)))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Of Textual's own palette commands, only the theme picker (the others are roost's)."""
        for command in super().get_system_commands(screen):
            if command.title == "Theme":
                yield command

    def action_help(self) -> None:
        from tui.ui.screens.help import HelpScreen  # not on the start path

        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(HelpScreen())

    async def _refresh_fresh_world(self) -> None:
        await self.store.refresh(force=True)


def _interval(seconds: float) -> str:
    return f"{seconds:g}s" if seconds < 60 else f"{seconds / 60:g} min"


def run_tui(service: Service, *, screen: str | None = None, ask_demo_reset: bool = False) -> int:
    """Run the dashboard until the user quits; ``ask_demo_reset``: `roost demo --reset`."""
    app = RoostApp(service, initial_screen=screen, ask_demo_reset=ask_demo_reset)
    result = app.run()
    app.speed.process_ends()
    return result if isinstance(result, int) else (app.return_code or 0)
