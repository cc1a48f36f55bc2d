"""``e`` on a table: its rows as shown (filter, sort, columns) out to CSV or JSON Lines
(ARCHITECTURE.md, export).

:func:`export_table` is what a screen's ``e`` calls: it finds the table (the focused one, else
the screen's first shown), asks where with :class:`ExportDialog` (format, path: a name after the
tab and the time in the current folder; over SSH, a keyed user's own folder on the server and
only a file name; a guest is told no), asks before replacing a file (:class:`ReplaceConfirm`),
writes in a thread through :mod:`tui.export` and says where and how many rows in a toast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Input, RadioButton, RadioSet, Static

from tui.errors import RoostError
from tui.export import FORMATS, default_name, export_file
from tui.ssh.mode import ExportPlace, export_place, session_role
from tui.ui.screens.dialog import ClosingModal, Dialog
from tui.ui.stylesheets import sheets
from tui.ui.table.virtual_table import VirtualTable
from tui.untrusted import clean_line

__all__ = ["ExportDialog", "ReplaceConfirm", "Shown", "export_table", "shown_table"]

_FORMAT_NAMES = {"csv": "CSV", "jsonl": "JSON Lines"}


@dataclass(frozen=True)
class Shown:
    """A table as shown: its name, column keys, which are numbers, and its rows (objects with
    ``cells``, or the cells themselves), in the order shown; ``picked``: the indices of the
    columns shown among the row's cells (None: all of them)."""

    name: str
    keys: tuple[str, ...]
    numeric: tuple[bool, ...]
    rows: Sequence[Any]
    lazy: bool  # rows are table rows whose cells are computed on demand (in the thread)
    picked: tuple[int, ...] | None = None

    def cells(self) -> Any:
        rows = (row.cells for row in self.rows) if self.lazy else iter(self.rows)
        if (picked := self.picked) is None:
            return rows
        return ([cells[i] if i < len(cells) else "" for i in picked] for cells in rows)


def _table_name(screen_name: str, table: Widget) -> str:
    own = table.id or ""
    if not own or table.has_class("main-table"):
        return screen_name
    return f"{screen_name}-{own.removesuffix('-table')}"


def shown_table(screen: Screen[Any], name: str) -> Shown | None:
    """The table ``e`` exports on ``screen``: the focused one, else the first on view."""
    focused = screen.focused
    tables: list[Widget] = []
    if isinstance(focused, VirtualTable | DataTable):
        tables.append(focused)
    tables += [t for t in screen.query("VirtualTable, DataTable") if t.display and t.visible]
    if not tables:
        return None
    table = tables[0]
    if isinstance(table, VirtualTable):
        get = table.get_row
        rows = [get(key) for key in table.visible_keys()]
        columns = table.shown_columns  # not those hidden with C
        every = table.columns
        return Shown(
            _table_name(name, table),
            tuple(c.key for c in columns),
            tuple(c.number for c in columns),
            rows,
            lazy=True,
            picked=None if columns == every else tuple(map(every.index, columns)),
        )
    assert isinstance(table, DataTable)
    keys = tuple(column.key.value or str(column.label) for column in table.ordered_columns)
    cells = [tuple(table.get_row_at(i)) for i in range(table.row_count)]
    return Shown(_table_name(name, table), keys, (False,) * len(keys), cells, lazy=False)


class ExportDialog(ClosingModal[tuple[str, str] | None]):
    """Format and file name; ``enter`` exports, ``escape`` does not. Dismissed with
    ``(format, path)``."""

    CSS_PATH = sheets("help")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Cancel", id="export.cancel"),
        Binding("ctrl+t", "other_format", "CSV / JSON Lines", id="export.format"),
    ]

    def __init__(self, shown: Shown, place: ExportPlace, now: datetime) -> None:
        super().__init__(id="export-screen")
        self.shown = shown
        self.place = place
        self.fmt = "csv"
        self._now = now

    def compose(self) -> ComposeResult:
        count = len(self.shown.rows)
        rows = f"{count:,} row{'s' if count != 1 else ''}"
        with Vertical(id="help-dialog", classes="link-dialog"):
            yield Static(
                Content(f"Export {clean_line(self.shown.name, 40)}: {rows}").stylize("bold"),
                id="help-title",
            )
            with RadioSet(id="export-format"):
                for fmt in FORMATS:
                    yield RadioButton(_FORMAT_NAMES[fmt], value=fmt == self.fmt, name=fmt)
            where = "your folder on the server" if self.place.on_server else "this folder"
            yield Static(Content(f"in {where}: {clean_line(str(self.place.folder), 200)}"))
            yield Input(default_name(self.shown.name, self._now, self.fmt), id="export-path")
            yield Static(
                Content("enter export · ctrl+t CSV / JSON Lines · escape cancel"), id="help-hint"
            )

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        self._set_format(event.pressed.name or "csv")

    def action_other_format(self) -> None:
        fmt = FORMATS[(FORMATS.index(self.fmt) + 1) % len(FORMATS)]
        buttons = list(self.query(RadioButton))
        buttons[FORMATS.index(fmt)].value = True
        self._set_format(fmt)

    def _set_format(self, fmt: str) -> None:
        old, self.fmt = self.fmt, fmt
        field = self.query_one("#export-path", Input)
        if field.value.endswith(f".{old}"):  # the name still says the old format: follow
            field.value = field.value.removesuffix(f".{old}") + f".{fmt}"

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        if path:
            self.dismiss((self.fmt, path))

    def action_close(self) -> None:
        self.dismiss(None)


class ReplaceConfirm(Dialog):
    """``y`` replaces the file that is there, ``n`` or ``escape`` does not."""

    HEADING = "roost · replace the file?"
    HINT = "y replace it · n keep it"
    DIALOG_CLASS = "link-dialog"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Replace", id="export.replace.yes"),
        Binding("n", "answer(False)", "Keep it", id="export.replace.no"),
        Binding("escape", "answer(False)", "Keep it", show=False, id="export.replace.back"),
    ]

    def __init__(self, path: Path) -> None:
        super().__init__(id="export-replace-screen")
        self.path = path

    def compose_body(self) -> ComposeResult:
        yield Static(Content(f"{clean_line(str(self.path), 300)} is already there.\n"))

    def action_answer(self, replace: bool) -> None:
        self.dismiss(replace)  # type: ignore[arg-type]


def _target(place: ExportPlace, typed: str) -> Path:
    """Where a typed name goes: over SSH only its file name, in the user's folder; else the
    path as typed (``~`` expanded), relative to the current folder."""
    if place.on_server:
        return place.folder / (Path(typed).name or "export")
    path = Path(typed).expanduser()
    return path if path.is_absolute() else place.folder / path


def export_table(
    screen: Screen[Any],
    name: str,
    *,
    role: str | None = None,
    clock: Callable[[], datetime] = datetime.now,
) -> None:
    """``e``: export the table on ``screen`` (see the module docstring). ``role``: the SSH
    session's (default: this process's, tui/ssh/mode.py)."""
    try:
        place = export_place(role if role is not None else session_role())
    except RoostError as exc:
        screen.notify(exc.message, title="Export", severity="warning", markup=False)
        return
    shown = shown_table(screen, name)
    if shown is None:
        screen.notify("no table here to export", title="Export", markup=False)
        return

    def write(path: Path, fmt: str, overwrite: bool) -> None:
        def run() -> None:
            try:
                count = export_file(
                    path, fmt, shown.keys, shown.numeric, shown.cells(), overwrite=overwrite
                )
            except RoostError as exc:
                message, severity = exc.describe(), "error"
            else:
                rows = f"{count:,} row{'s' if count != 1 else ''}"
                where = " (your folder on the server)" if place.on_server else ""
                message, severity = f"{rows} written to {path}{where}", "information"
            screen.app.call_from_thread(
                screen.notify,
                clean_line(message, 400),
                title="Export",
                severity=severity,
                markup=False,
            )

        screen.run_worker(run, thread=True, exit_on_error=False, description="export a table")

    def chosen(answer: tuple[str, str] | None) -> None:
        if answer is None:
            return
        fmt, typed = answer
        path = _target(place, typed)
        if path.exists() or path.is_symlink():

            def replace(yes: bool | None) -> None:
                if yes:
                    write(path, fmt, True)

            screen.app.push_screen(ReplaceConfirm(path), replace)
        else:
            write(path, fmt, False)

    screen.app.push_screen(ExportDialog(shown, place, clock()), chosen)
