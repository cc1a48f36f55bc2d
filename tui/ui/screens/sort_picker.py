"""Pick the sort directly: ``s``, then the column's key.

A small list of the table's columns, each with one key (a letter of its name; ``j``/``k`` move,
``s`` is "the next column" as before, ``q`` and ``escape`` close). The column's key sorts by it
(numbers largest first, text A to Z; pressed on the column already sorted by, it reverses),
``enter`` takes the highlighted line, ``0`` goes back to the order the service gave. Dismissed
with a :class:`SortChoice`, or ``None`` when nothing changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.ui.screens.dialog import ClosingModal
from tui.ui.stylesheets import sheets
from tui.ui.table.virtual_table import Column, VirtualTable
from tui.ui.widgets.vim import vim_bindings

__all__ = ["SortChoice", "SortPicker", "column_keys"]

#: Keys the picker keeps for itself: moving, "next column", closing, the data order.
RESERVED = frozenset("jksq0")
DATA_ORDER = "\x00data-order"


@dataclass(frozen=True, slots=True)
class SortChoice:
    column: str | None  # None: the order the service gave
    reverse: bool = False


def column_keys(columns: Sequence[Column]) -> dict[str, str]:
    """One key per column: the first letter of its label no other column (and no picker key)
    took, else the first free digit; ``{key: column key}`` in column order."""
    used = set(RESERVED)
    keys: dict[str, str] = {}
    for column in columns:
        letters = [c for c in column.label.lower() if c.isascii() and c.isalpha()]
        letters += [c for c in column.key.lower() if c.isascii() and c.isalpha()]
        digits = [str(d) for d in range(1, 10)]
        key = next((c for c in (*letters, *digits) if c not in used), None)
        if key is not None:
            used.add(key)
            keys[key] = column.key
    return keys


class SortPicker(ClosingModal[SortChoice | None]):
    """The columns of ``table`` to sort by, each with its key."""

    CSS_PATH = sheets("help")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="sort.close"),
        Binding("q", "close", "Close", show=False, id="sort.close2"),
        *vim_bindings({"down": "move(1)", "up": "move(-1)"}, scope="sort"),
        Binding("s", "next_column", "Next column", show=False, id="sort.next"),
        Binding("0", "data_order", "Data order", show=False, id="sort.data-order"),
    ]

    def __init__(self, table: VirtualTable) -> None:
        super().__init__()
        self.table = table
        self.columns: tuple[Column, ...] = tuple(table.columns)
        self.keys = column_keys(self.columns)
        self.key_of = {column: key for key, column in self.keys.items()}

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="sort-dialog"):
            yield Static(Content("Sort by").stylize("bold"), id="help-title")
            options = [Option(self._line(column), id=column.key) for column in self.columns]
            options.append(Option(self._data_order_line(), id=DATA_ORDER))
            yield OptionList(*options, id="sort-options")
            yield Static(
                Content("key sorts · again: reverses · 0 data order · esc"),
                id="help-hint",
            )

    def _line(self, column: Column) -> Content:
        key = self.key_of.get(column.key, " ")
        current = ""
        if self.table.sort_column == column.key:
            current = "  \u25bc" if self.table.sort_reverse else "  \u25b2"
        first = "largest first" if self.table.first_direction(column.key) else "A to Z"
        return Content.assemble(
            (f" {key} ", "bold reverse"),
            "  ",
            (column.label, "bold" if current else ""),
            current,
            (f"  {first}", "$text-muted"),
        )

    def _data_order_line(self) -> Content:
        current = "  \u2022" if self.table.sort_column is None else ""
        return Content.assemble((" 0 ", "bold reverse"), "  as the service lists them", current)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        current = self.table.sort_column
        options.highlighted = next(
            (i for i, column in enumerate(self.columns) if column.key == current),
            len(self.columns) if current is None else 0,
        )
        options.focus()

    def on_key(self, event: events.Key) -> None:
        if self.closed:  # a key of the burst that picked: it acts where the picker closed to
            return
        column = self.keys.get(event.character or "")
        if column is not None:
            event.stop()
            event.prevent_default()
            self._pick(column)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        chosen = event.option.id
        if chosen == DATA_ORDER:
            self.action_data_order()
        elif chosen is not None:
            self._pick(chosen)

    def _pick(self, column: str) -> None:
        if self.table.sort_column == column:
            self.dismiss(SortChoice(column, not self.table.sort_reverse))
        else:
            self.dismiss(SortChoice(column, self.table.first_direction(column)))

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if step > 0:
            options.action_cursor_down()
        else:
            options.action_cursor_up()

    def action_next_column(self) -> None:
        """``s`` again: the next column, as ``s`` did before the picker (after the last: the
        service's order)."""
        keys = [column.key for column in self.columns]
        current = self.table.sort_column
        position = 0 if current is None else keys.index(current) + 1
        if position < len(keys):
            self.dismiss(SortChoice(keys[position], self.table.first_direction(keys[position])))
        else:
            self.dismiss(SortChoice(None))

    def action_data_order(self) -> None:
        self.dismiss(SortChoice(None))

    def action_close(self) -> None:
        self.dismiss(None)
