"""The Outbox screen's views: the entry list, an entry's detail and the discard confirmation.

Every text that came from the service (the processor's comment, reasons, URLs, logins) and every
text a person typed into a payload is passed through :mod:`tui.untrusted` and drawn as
``rich.text.Text``, never parsed as markup.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from tui.actions.outbox import Entry
from tui.actions.outbox_report import created_short, reason_line, retry_refusal
from tui.actions.thread_answers import request_headline
from tui.ui.screens.dialog import ClosingModal
from tui.ui.table.rows import Column, fit_plain, fit_widths
from tui.ui.widgets.vim import vim_bindings
from tui.untrusted import clean, clean_line

__all__ = [
    "ConfirmDiscard",
    "EntryDetail",
    "EntryList",
    "detail_text",
    "entry_name",
    "row_cells",
]

#: The list's columns; the reason takes what is left (:func:`column_widths`).
COLUMNS: tuple[Column, ...] = (
    Column("state", "state", 7),
    Column("action", "action", 8),
    Column("created", "created", 11),
    Column("number", "number", 4, align="right"),
    Column("reason", "reason", 20, flex=True),
)

_STATE_STYLE = {
    "draft": "dim",
    "sending": "bold yellow",
    "queued": "cyan",
    "received": "bold cyan",
    "accepted": "green",
    "rejected": "bold red",
    "applied": "bold green",
    "failed": "red",
    "unknown": "bold magenta",
    "damaged": "bold red reverse",
}


def entry_name(entry: Entry, width: int = 40) -> str:
    """What a toast or question calls an entry: its action, or for a damaged file its id."""
    return clean_line(entry.action, width) if entry.action else f"entry {entry.id}"


def row_texts(entry: Entry) -> tuple[str, ...]:
    """The list row of one entry as clean one-line texts, one per column."""
    return (
        clean_line(entry.state),
        clean_line(entry.action),
        clean_line(created_short(entry.created_at)),
        f"#{entry.number}" if entry.number else "",
        clean_line(reason_line(entry)[:2000]),
    )


def column_widths(entries: list[Entry], width: int) -> list[int]:
    """The columns' widths in a list ``width`` cells wide (its scrollbar included): each
    column as wide as its content when that fits, the reason the rest; the number is never
    cut (:func:`~tui.ui.table.rows.fit_widths`)."""
    content = [
        max((cell_len(text) for text in column), default=0)
        for column in zip(*(row_texts(entry) for entry in entries), strict=False)
    ] or [0] * len(COLUMNS)
    # each cell has one blank on either side; the scrollbar takes 2
    return fit_widths(COLUMNS, content, width - 2, arrows=False, edge=1, gap=2)


def row_cells(entry: Entry, widths: list[int]) -> tuple[Text, ...]:
    """The list row of one entry, every cell cleaned and cut to its column."""
    state, action, created, number, reason = (
        text if cell_len(text) <= width else fit_plain(text, width)
        for text, width in zip(row_texts(entry), widths, strict=True)
    )
    return (
        Text(state, style=_STATE_STYLE.get(entry.state, "")),
        Text(action),
        Text(created),
        Text(number, justify="right"),
        Text(reason),
    )


class EntryList(DataTable):
    """The outbox entries, newest first, one row each; vim motions j/k, g/G."""

    BINDINGS: ClassVar[list[BindingType]] = vim_bindings(
        {"down": "cursor_down", "up": "cursor_up", "top": "scroll_top", "bottom": "scroll_bottom"}
    )

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.widths = [column.width for column in COLUMNS]

    def on_mount(self) -> None:
        for column, width in zip(COLUMNS, self.widths, strict=True):
            self.add_column(column.label, width=width, key=column.key)

    def show_entries(self, entries: list[Entry], width: int) -> None:
        """Replace the rows, keeping the cursor on the same entry where it still exists."""
        self.widths = column_widths(entries, width)
        selected = self.selected_id
        for key, column_width in zip(list(self.columns), self.widths, strict=True):
            self.columns[key].width = column_width
        self.clear()
        for entry in entries:
            self.add_row(*row_cells(entry, self.widths), key=entry.id)
        if selected is not None and selected in self.rows:
            self.move_cursor(row=self.get_row_index(selected), animate=False)

    @property
    def selected_id(self) -> str | None:
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except Exception:  # noqa: BLE001 - no row under the cursor
            return None
        return key.value


def _when(at: float | None) -> str:
    if at is None:
        return "?"
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _heading(text: Text, title: str) -> None:
    text.append("\n")
    text.append(title, style="bold underline")
    text.append("\n")


def _field(text: Text, name: str, value: str, style: str = "") -> None:
    text.append(f"{name:<10}", style="dim")
    text.append(clean_line(value), style=style)
    text.append("\n")


def detail_text(entry: Entry) -> Text:
    """Everything about one entry: where it stands, the request as sent, the platform's answers
    and the processor's comment. Plain ``Text``: nothing in it is markup."""
    text = Text()
    _field(text, "state", entry.state, _STATE_STYLE.get(entry.state, ""))
    if entry.state == "damaged":
        _field(text, "entry", entry.id)
        _field(text, "created", entry.created_at)
        _field(text, "reason", entry.reason or "", "red")
        _field(text, "retry", f"refused: {retry_refusal(entry)}")
        text.append("\nd discards it: its file is removed from the outbox folder.\n", style="dim")
        return text
    _field(text, "action", entry.action)
    _field(text, "entry", entry.id)
    _field(text, "created", entry.created_at)
    _field(text, "updated", entry.updated_at)
    if entry.number:
        where = {"discussion": "post"}.get(
            entry.kind, "on post" if entry.kind != "issue" else "issue"
        )
        _field(text, where, f"#{entry.number}")
    if entry.html_url:
        _field(text, "url", entry.html_url)
    if entry.author:
        _field(text, "posted as", entry.author)
    if entry.reason:
        _field(text, "reason", entry.reason, "red" if entry.state == "failed" else "")
    refusal = retry_refusal(entry)
    if entry.state in ("failed", "unknown", "sending", "draft"):
        _field(text, "retry", "allowed" if refusal is None else f"refused: {refusal}")
    for notice in entry.notices:
        _field(text, "notice", notice, "yellow")
    if entry.state in ("queued", "received") and entry.tracking.get("last_error"):
        failed = f"the last one failed: {entry.tracking['last_error']}"
        _field(text, "checks", failed, "yellow")
    receipt = entry.receipt or {}
    if receipt:
        _heading(text, "Receipt")
        _field(text, "status", str(receipt.get("status", "")))
        _field(text, "url", str(receipt.get("url", "")))
        for key in ("error", "hint"):
            if receipt.get(key):
                text.append(f"{key}\n", style="dim")
                text.append(clean(str(receipt[key]), multiline=True).strip() + "\n")
    if entry.comment:
        _heading(text, "Processor's comment" if entry.kind == "issue" else "The platform")
        text.append(clean(entry.comment, multiline=True).strip() + "\n")
    if entry.comments:
        _heading(text, "Other comments (not verdicts)")
        for said in entry.comments:
            text.append(f"{clean_line(str(said.get('login', '?')), 60)}", style="bold")
            text.append(f"  {clean_line(str(said.get('at', '')), 30)}\n", style="dim")
            text.append(clean(str(said.get("body", "")), multiline=True).strip() + "\n")
    request = entry.request or {}
    _heading(text, "Request as sent")
    headline = request_headline(entry.kind, request)
    if headline is not None:
        _field(text, *headline)
        if entry.kind == "discussion":
            _field(text, "title", str(request.get("title", "")))
    else:
        _field(text, "title", str(request.get("title", "")))
        _field(text, "labels", ", ".join(str(x) for x in request.get("labels", [])) or "none")
    text.append(clean(request.get("body", ""), multiline=True).rstrip() + "\n")
    if entry.attempts:
        _heading(text, "Answers")
        for attempt in entry.attempts:
            status = attempt.get("status")
            text.append(f"{_when(attempt.get('at'))}  ", style="dim")
            text.append(f"{clean_line(attempt.get('kind', '')):<7}")
            text.append(f"{status if status is not None else '-':>4}  ")
            text.append(clean_line(attempt.get("message", "")) + "\n")
    return text


class EntryDetail(VerticalScroll):
    """One entry's detail, scrollable with j/k, g/G."""

    BINDINGS: ClassVar[list[BindingType]] = vim_bindings(
        {"down": "scroll_down", "up": "scroll_up", "top": "scroll_home", "bottom": "scroll_end"}
    )

    def compose(self) -> ComposeResult:
        yield Static(id="outbox-detail-text", markup=False)

    def show(self, entry: Entry) -> None:
        self.query_one("#outbox-detail-text", Static).update(detail_text(entry))
        self.scroll_home(animate=False)


class ConfirmDiscard(ClosingModal[bool]):
    """Asks before an entry is forgotten; ``y`` discards, ``n`` or ``escape`` keeps it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Discard"),
        Binding("n", "answer(False)", "Keep"),
        Binding("escape", "answer(False)", "Keep", show=False),
    ]

    def __init__(self, entry: Entry) -> None:
        super().__init__(id="outbox-confirm")
        self.entry = entry

    def compose(self) -> ComposeResult:
        entry = self.entry
        question = Text()
        question.append("Discard this outbox entry?\n\n", style="bold")
        question.append(f"{entry_name(entry)} · {clean_line(entry.state, 20)}")
        if entry.number:
            question.append(f" · issue #{entry.number}")
        question.append("\n")
        if entry.state in ("sending", "unknown"):
            question.append(
                "\nIt may already be on the platform: discarding only forgets it here.\n",
                style="yellow",
            )
        elif entry.number:
            question.append("\nThe issue stays on the platform.\n", style="dim")
        elif entry.state == "draft":
            question.append("\nThe draft is lost.\n", style="yellow")
        elif entry.state == "damaged":
            question.append(
                f"\n{clean_line(entry.reason, 60)}: its file is removed.\n", style="dim"
            )
        question.append("\ny discard · n keep")
        with Vertical(id="outbox-confirm-box"):
            yield Static(question, markup=False)

    def action_answer(self, discard: bool) -> None:
        self.dismiss(discard)
