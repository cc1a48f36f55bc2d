"""The Outbox screen (``o``): every action of the current service's outbox, its detail, retry,
discard, and the issue's URL.

The screen reads the outbox folder itself (a cheap poll of file names, sizes and times) and
sends only through the headless write side, in an exclusive worker, never on the UI thread. It
does not call the app: it posts :class:`OutboxScreen.Changed` so the host can update its status
bar; the host posts it :class:`OutboxScreen.Reread` to read the outbox again at once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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

from tui.actions.issue_client import IssueClient
from tui.actions.outbox import DamagedEntry, Entry, EntryBusy, Outbox
from tui.actions.outbox_report import retry_refusal, status_summary
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

Signature = tuple[tuple[str, int, int], ...]


def _folder_signature(folder: Path) -> Signature:
    """Names, sizes and modification times of the entry files: changes when any entry does
    (a link is looked at, never followed)."""
    try:
        with os.scandir(folder) as found:
            return tuple(
                sorted(
                    (e.name, info.st_mtime_ns, info.st_size)
                    for e in found
                    if e.name.endswith(".json")
                    for info in (e.stat(follow_symlinks=False),)
                )
            )
    except OSError:
        return ()


class OutboxScreen(Screen):
    """The outbox of one service. ``client`` sends retries; without one (no token or no
    repository) retry says ``no_client_reason`` instead."""

    @dataclass(eq=False)
    class Changed(Message):
        """The screen saw the outbox change (a poll, a retry, a discard): the host may update
        the status bar from ``counts`` (state -> number of entries) and ``summary``."""

        counts: dict[str, int]
        summary: str

    class Reread(Message):
        """Posted to the screen to read the outbox again at once (after a form queued one)."""

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
        outbox: Outbox,
        client: IssueClient | None = None,
        *,
        no_client_reason: str = "no token or repository to post with",
        poll_s: float | None = POLL_S,
        can_open_browser: Callable[[], bool] = lambda: browser_unavailable() is None,
    ) -> None:
        super().__init__(id="outbox-screen")
        self.outbox = outbox
        self.client = client
        self.no_client_reason = no_client_reason
        self.poll_s = poll_s
        self.can_open_browser = can_open_browser
        self.entries: list[Entry] = []
        self._signature: Signature | None = None
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
        self.reload(force=True)
        self._show_view("list")
        if self.poll_s:
            self.set_interval(self.poll_s, self.reload)

    def on_resize(self) -> None:
        self._fill_list()
        self._show_hints()

    # ------------------------------------------------------------------ reading the outbox

    def on_outbox_screen_reread(self, message: OutboxScreen.Reread) -> None:
        message.stop()
        self.reload(force=True)

    def reload(self, force: bool = False) -> None:
        """Reread the entries when the folder changed (or ``force``); tell the host."""
        signature = _folder_signature(self.outbox.folder)
        if not force and signature == self._signature:
            return
        self._signature = signature
        self.entries = list(reversed(self.outbox.entries()))
        self._fill_list()
        if self._detail_id is not None:
            entry = self._entry(self._detail_id)
            if entry is None:
                self._show_view("list")
            else:
                self.query_one(EntryDetail).show(entry)
        counts: dict[str, int] = {}
        for entry in self.entries:
            counts[entry.state] = counts.get(entry.state, 0) + 1
        self.post_message(self.Changed(counts, status_summary(counts)))

    def _fill_list(self) -> None:
        table = self.query_one(EntryList)
        table.show_entries(self.entries, self.size.width or 80)
        title = Text()
        title.append("Outbox", style="bold")
        count = len(self.entries)
        title.append(f" · {count} {'entry' if count == 1 else 'entries'}")
        if self.outbox.label:
            title.append(f" · {clean_line(self.outbox.label)}", style="dim")
        self.query_one("#outbox-title", Static).update(title)
        empty = not self.entries
        self.query_one("#outbox-empty").display = empty
        self.query_one("#outbox-views").display = not empty
        if empty:
            self.query_one("#outbox-empty-text", Static).update(
                Text(
                    "The outbox is empty: actions you post are kept here until the platform "
                    f"has them.\n\n{clean_line(self.outbox.folder)}"
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
        if self.client is None:
            self.notify(
                f"Cannot send: {clean_line(self.no_client_reason)}", severity="error", markup=False
            )
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
        """Send one entry through the write side (under its lock, lookup first where the
        platform may already hold it), then reread the outbox."""
        assert self.client is not None
        try:
            entry = await self.outbox.send(entry_id, self.client)
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
            self.reload(force=True)
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
            self.outbox.drop(entry.id)
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
        self.reload(force=True)
        self.notify(f"Discarded {entry_name(entry)}", markup=False)

    # ------------------------------------------------------------------ the issue's URL

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
