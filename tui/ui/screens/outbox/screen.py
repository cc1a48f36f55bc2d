"""The Outbox screen (``o``): every action of the current service's outbox, its detail, retry,
discard, and the issue's URL.

The screen is a view of the service's :class:`~tui.actions.poster.Poster`: it listens to the
states the poster publishes and draws each; a retry and a discard go through the poster (a
retry in an exclusive worker, never on the UI thread), which publishes what they changed to
every listener (the app's status bar too). A poll asks the poster to look at the folder for
what another roost or a command changed (a cheap look at file names, sizes and times).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Static

from tui.actions.outbox import DamagedEntry, Entry, EntryBusy
from tui.actions.outbox_report import retry_refusal
from tui.actions.poster import CannotPost, Poster, PosterState
from tui.browser import browser_unavailable, open_in_browser
from tui.ui.screens.outbox.views import ConfirmDiscard, EntryDetail, EntryList, entry_name
from tui.ui.stylesheets import sheets
from tui.ui.widgets.text import copy, wrap_parts
from tui.untrusted import clean_line

__all__ = ["OutboxScreen"]

#: How often the folder is looked at for changes another process (or the tracker) made.
POLL_S = 1.0

_HINTS = {
    "list": "enter detail · r retry · E edit a copy · d discard · o open · y copy URL · e export"
    " · j/k g/G · esc close",
    "detail": "r retry · E edit a copy · d discard · o open · y copy URL · j/k g/G scroll"
    " · esc back",
}


class OutboxScreen(Screen):
    """The outbox of one service, as its ``poster`` publishes it. Without a token a retry
    says why (the poster's ``cannot_send``)."""

    @dataclass(eq=False)
    class StateArrived(Message):
        """The poster published ``state`` (posted by the screen's listener to itself: the
        poster may publish from inside another widget's handler)."""

        state: PosterState

    @dataclass(eq=False)
    class EditCopyRequested(Message):
        """``E``: the form of ``action``, filled from a copy of an entry's ``payload`` (a new
        action with a new nonce; the entry stays as it is). Handled by the app."""

        action: str
        payload: dict[str, Any]

    CSS_PATH = sheets("outbox")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "detail", "Detail", show=False),
        Binding("r", "retry", "Retry"),
        Binding("E", "edit_copy", "Edit a copy"),
        Binding("e", "export", "Export", show=False),
        Binding("d", "discard", "Discard"),
        Binding("o", "open_url", "Open"),
        Binding("y", "copy_url", "Copy URL"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(
        self,
        poster: Poster,
        *,
        poll_s: float | None = POLL_S,
        can_open_browser: Callable[[], bool] = lambda: browser_unavailable() is None,
    ) -> None:
        super().__init__(id="outbox-screen")
        self.poster = poster
        self.poll_s = poll_s
        self.can_open_browser = can_open_browser
        self.state = poster.state
        self.entries: list[Entry] = []
        self._unsubscribe: Callable[[], None] | None = None
        self._detail_id: str | None = None
        #: The entry a worker is sending, if any: one send at a time, and the screen stays open
        #: until it ends (closing would cancel the worker mid-request).
        self.sending_id: str | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="outbox-title", markup=False)
        with ContentSwitcher(initial="outbox-list", id="outbox-views"):
            yield EntryList(id="outbox-list")
            yield EntryDetail(id="outbox-detail")
        with Vertical(id="outbox-empty"):
            yield Static(id="outbox-empty-text", markup=False)
        yield Static(id="outbox-hints", markup=False)

    def on_mount(self) -> None:
        self._unsubscribe = self.poster.subscribe(
            lambda state: self.post_message(self.StateArrived(state))
        )
        self.show_state(self.poster.state)
        self.reload(force=True)
        self._show_view("list")
        if self.poll_s:
            self.set_interval(self.poll_s, self.reload)

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def on_resize(self) -> None:
        self._fill_list()
        self._show_hints()

    # ------------------------------------------------------------------ reading the outbox

    def on_outbox_screen_state_arrived(self, message: OutboxScreen.StateArrived) -> None:
        message.stop()
        self.show_state(message.state)

    def reload(self, force: bool = False) -> None:
        """Have the poster look at the folder again (``force``: read it whatever the look
        says); what it publishes arrives here."""
        self.poster.reread(force=force)

    def show_state(self, state: PosterState) -> None:
        """Draw the outbox as ``state`` holds it, newest first."""
        self.state = state
        self.entries = list(reversed(state.entries))
        self._fill_list()
        if self._detail_id is not None:
            entry = self._entry(self._detail_id)
            if entry is None:
                self._show_view("list")
            else:
                self.query_one(EntryDetail).show(entry)

    def _fill_list(self) -> None:
        table = self.query_one(EntryList)
        table.show_entries(self.entries, self.size.width or 80)
        title = Text()
        title.append("Outbox", style="bold")
        count = len(self.entries)
        title.append(f" · {count} {'entry' if count == 1 else 'entries'}")
        if self.state.label:
            title.append(f" · {clean_line(self.state.label)}", style="dim")
        self.query_one("#outbox-title", Static).update(title)
        empty = not self.entries
        self.query_one("#outbox-empty").display = empty
        self.query_one("#outbox-views").display = not empty
        if empty:
            self.query_one("#outbox-empty-text", Static).update(
                Text(
                    "The outbox is empty: actions you post are kept here until the platform "
                    f"has them.\n\n{clean_line(self.state.folder or '')}"
                )
            )

    def _entry(self, entry_id: str | None) -> Entry | None:
        return next((e for e in self.entries if e.id == entry_id), None)

    @property
    def current(self) -> Entry | None:
        """The entry on view in the detail, else the one under the list's cursor."""
        if self._detail_id is not None:
            return self._entry(self._detail_id)
        return self._entry(self.query_one(EntryList).selected_id)

    # ------------------------------------------------------------------ views

    def _show_view(self, view: str) -> None:
        switcher = self.query_one(ContentSwitcher)
        switcher.current = f"outbox-{view}"
        self._show_hints()
        target = self.query_one(EntryList if view == "list" else EntryDetail)
        target.focus()

    def _show_hints(self) -> None:
        """The keys of the view on show, in as many lines as the width needs (a key is never
        parted from what it does)."""
        shown = self.query_one(ContentSwitcher).current
        view = "detail" if shown == "outbox-detail" else "list"
        hints = wrap_parts(Content(_HINTS[view]), (self.size.width or 80) - 2)
        self.query_one("#outbox-hints", Static).update(hints.stylize("dim"))

    def action_detail(self) -> None:
        entry = self.current
        if entry is None:
            return
        self._detail_id = entry.id
        self.query_one(EntryDetail).show(entry)
        self._show_view("detail")

    def on_data_table_row_selected(self, event: EntryList.RowSelected) -> None:
        event.stop()
        self.action_detail()

    def action_back(self) -> None:
        if self._detail_id is not None:
            self._detail_id = None
            self._show_view("list")
            return
        if self.sending_id is not None:
            self.notify("An entry is being sent: wait for the answer", markup=False)
            return
        self.dismiss()

    # ------------------------------------------------------------------ retry

    def action_retry(self) -> None:
        entry = self.current
        if entry is None:
            self.notify("No entry selected", severity="warning", markup=False)
            return
        refusal = retry_refusal(entry)
        if refusal is not None:
            self.notify(
                f"Not retried: {clean_line(refusal, 200)}", severity="warning", markup=False
            )
            return
        if self.sending_id is not None:
            self.notify("Another entry is being sent: wait for its answer", markup=False)
            return
        cannot = self.poster.cannot_send()
        if cannot is not None:
            self.notify(f"Cannot send: {clean_line(cannot)}", severity="error", markup=False)
            return
        self.notify(f"Sending {clean_line(entry.action, 40)}…", markup=False)
        self.sending_id = entry.id
        self._send(entry.id)

    def action_export(self) -> None:
        """``e``: the entries as listed, to CSV or JSON Lines (screens/export_dialog.py)."""
        from tui.ui.screens.export_dialog import export_table  # deferred: off the start path

        export_table(self, "outbox")

    def action_edit_copy(self) -> None:
        """A rejected (or failed, or settled) action, sent again as a new one once its cause
        is fixed: its form, filled from a copy; a retry stays refused where it was."""
        from tui.actions.resend import payload_copy, resend_refusal  # deferred: off the start path

        entry = self.current
        if entry is None:
            self.notify("No entry selected", severity="warning", markup=False)
            return
        refusal = resend_refusal(entry)
        if refusal is not None:
            self.notify(f"No copy: {clean_line(refusal, 200)}", severity="warning", markup=False)
            return
        self.post_message(self.EditCopyRequested(entry.action, payload_copy(entry)))

    @work(exclusive=True, group="outbox-send")
    async def _send(self, entry_id: str) -> None:
        """Send one entry through the poster (under its lock, lookup first where the platform
        may already hold it); the poster publishes the outbox afterwards."""
        try:
            entry = await self.poster.retry(entry_id)
        except CannotPost as exc:
            self.notify(clean_line(exc.describe(), 200), severity="error", markup=False)
            return
        except EntryBusy:
            self.notify(
                "Another roost is sending this entry right now", severity="warning", markup=False
            )
            return
        except KeyError:
            self.notify("The entry is gone from the outbox", severity="warning", markup=False)
            return
        except DamagedEntry as exc:
            self.notify(clean_line(str(exc), 200), severity="error", markup=False)
            return
        finally:
            self.sending_id = None
        where = f" #{entry.number}" if entry.number else ""
        said = f": {clean_line(entry.reason, 160)}" if entry.reason else ""
        severity: SeverityLevel = "information" if entry.state == "queued" else "error"
        shown = f"{clean_line(entry.state, 20)}{where}{said}"
        self.notify(shown, severity=severity, markup=False)

    # ------------------------------------------------------------------ discard

    def action_discard(self) -> None:
        entry = self.current
        if entry is None:
            self.notify("No entry selected", severity="warning", markup=False)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self._drop(entry)

        self.app.push_screen(ConfirmDiscard(entry), answered)

    def _drop(self, entry: Entry) -> None:
        try:
            self.poster.discard(entry.id)
        except EntryBusy:
            self.notify(
                "Another roost is sending this entry: not discarded",
                severity="warning",
                markup=False,
            )
            return
        except DamagedEntry as exc:
            self.notify(
                f"Not discarded: {clean_line(exc.reason, 200)}", severity="error", markup=False
            )
            return
        if self._detail_id == entry.id:
            self._detail_id = None
            self._show_view("list")
        self.notify(f"Discarded {entry_name(entry)}", markup=False)

    # ------------------------------------------------------------------ the URL

    def _url(self) -> str | None:
        entry = self.current
        if entry is None or not entry.html_url:
            self.notify("This entry has no issue yet", severity="warning", markup=False)
            return None
        return clean_line(entry.html_url)

    def action_copy_url(self) -> None:
        url = self._url()
        if url is not None:
            copy(self, url)

    def action_open_url(self) -> None:
        url = self._url()
        if url is None:
            return
        if not url.startswith(("https://", "http://")):
            self.notify(f"Not a web address: {url}", severity="warning", markup=False)
            return
        if not self.can_open_browser():
            self.app.copy_to_clipboard(url)
            self.notify(
                f"No browser can open here (headless or SSH); copied the URL: {url}",
                markup=False,
                timeout=10,
            )
            return
        self._open_in_browser(url)

    @work(thread=True, exclusive=True, group="outbox-browser")
    def _open_in_browser(self, url: str) -> None:
        if open_in_browser(url):
            self.app.call_from_thread(self.notify, f"Opened {url}", markup=False)
        else:
            self.app.call_from_thread(self.app.copy_to_clipboard, url)
            self.app.call_from_thread(
                self.notify, f"No browser opened; copied the URL: {url}", markup=False, timeout=10
            )
