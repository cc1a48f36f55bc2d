"""``C`` on a table: which of its columns are shown.

A small list of the table's columns, each ticked when shown: ``space`` shows or hides the one
highlighted (``j``/``k`` move), ``enter`` applies, ``escape`` (or ``q``) leaves the table as it
was. At least one column stays shown. The table still fits the columns shown to the view (a
number is never cut: text gives way first, tui/ui/table/rows.py). Dismissed with the keys of
the columns to hide, or ``None`` when nothing changes.

:func:`choose_columns` is what a screen's ``C`` calls: the focused table, else the first on
view; the choice is put on the table and the screen says so (:class:`ColumnsHidden`), for the
app to remember per table and profile (tui/ui/preferences.py).
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.ui.screens.dialog import ClosingModal
from tui.ui.stylesheets import sheets
from tui.ui.table.virtual_table import Column, VirtualTable
from tui.ui.widgets.vim import vim_bindings
from tui.untrusted import clean_line

__all__ = ["ColumnChooser", "choose_columns", "table_on_view"]

LAST_SHOWN = "at least one column stays shown"


class ColumnChooser(ClosingModal[tuple[str, ...] | None]):
    """The columns of ``table``, shown ones ticked."""

    CSS_PATH = sheets("help")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Cancel", id="columns.cancel"),
        Binding("q", "close", "Cancel", show=False, id="columns.cancel2"),
        Binding("space", "flip", "Show / hide", id="columns.toggle"),
        *vim_bindings({"down": "focused.cursor_down", "up": "focused.cursor_up"}, scope="columns"),
    ]

    def __init__(self, table: VirtualTable) -> None:
        super().__init__(id="columns-screen")
        self.columns: tuple[Column, ...] = tuple(table.columns)
        shown = {column.key for column in table.shown_columns}
        self.before = frozenset(c.key for c in self.columns if c.key not in shown)
        self.hidden = set(self.before)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="sort-dialog"):
            yield Static(Content("Columns").stylize("bold"), id="help-title")
            options = [Option(self._line(column), id=column.key) for column in self.columns]
            yield OptionList(*options, id="sort-options")
            yield Static(Content("space show/hide · enter apply · esc"), id="help-hint")

    def _line(self, column: Column) -> Content:
        shown = column.key not in self.hidden
        kind = "number" if column.number else "text"
        return Content.assemble(
            (" [x] " if shown else " [ ] ", "bold" if shown else "$text-muted"),
            " ",
            (clean_line(column.label, 30) or column.key, "" if shown else "$text-muted"),
            (f"  {kind}", "$text-muted"),
        )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def action_flip(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return
        column = self.columns[options.highlighted]
        if column.key in self.hidden:
            self.hidden.discard(column.key)
        elif len(self.hidden) + 1 < len(self.columns):
            self.hidden.add(column.key)
        else:
            self.notify(LAST_SHOWN, title="Columns", severity="warning", markup=False)
            self.app.bell()
            return
        options.replace_option_prompt_at_index(options.highlighted, self._line(column))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # enter: apply
        hidden = tuple(c.key for c in self.columns if c.key in self.hidden)
        self.dismiss(None if frozenset(hidden) == self.before else hidden)

    def action_close(self) -> None:
        self.dismiss(None)


def table_on_view(screen: Screen[Any]) -> VirtualTable | None:
    """The table ``C`` acts on: the focused one, else the first on view."""
    if isinstance(screen.focused, VirtualTable):
        return screen.focused
    return next((t for t in screen.query(VirtualTable) if t.display and t.visible), None)


def choose_columns(screen: Screen[Any]) -> None:
    """``C``: the chooser for the table on ``screen``; the choice is put on the table and
    announced with the screen's ``ColumnsHidden`` message."""
    table = table_on_view(screen)
    if table is None:
        screen.notify("no table here", title="Columns", markup=False)
        return

    def chosen(hidden: tuple[str, ...] | None) -> None:
        if hidden is None or not table.is_attached:
            return
        table.hide_columns(hidden)
        screen.post_message(screen.ColumnsHidden(table, hidden))  # type: ignore[attr-defined]

    screen.app.push_screen(ColumnChooser(table), chosen)
