"""The widths of a table's columns: measured from the rows first drawn, widened by a wider cell
drawn later, fitted to the view's width (:func:`tui.ui.table.rows.fit_widths`: a number is
never cut, text gives way first). Columns the person hid are width 0; the others are fitted as
if the hidden ones were not there.

:class:`ColumnLayout` is the state :class:`tui.ui.table.virtual_table.VirtualTable` keeps for
this, per set of rows; it reads no widget and draws nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text

from tui.ui.table.rows import (
    Column,
    TableRow,
    cell_width,
    content_widths,
    fit_widths,
    line_length,
)

__all__ = ["ColumnLayout"]

_UNFITTED: tuple[tuple[int, int | None], list[int], int] = ((-1, None), [], 0)


class ColumnLayout:
    """The columns' content widths and their fit to one view width at a time."""

    def __init__(self, columns: Sequence[Column]) -> None:
        self.columns = tuple(columns)
        self.hidden: frozenset[int] = frozenset()  # columns hidden by choice, by index
        self.content: list[int] | None = None  # widest cell per column, once measured
        self._narrowest: int | None = None
        # (view width, sorted column) -> column widths, and the width of their line
        self._fitted = _UNFITTED

    def reset(self) -> None:
        """New rows: measure again when they are first drawn."""
        self.content, self._narrowest, self._fitted = None, None, _UNFITTED

    def hide(self, hidden: frozenset[int]) -> None:
        """Hide the columns at ``hidden`` (the others shown): fitted again at the next fit."""
        if hidden != self.hidden:
            self.hidden, self._narrowest, self._fitted = hidden, None, _UNFITTED

    def _fit_shown(
        self, content: Sequence[int], width: int, sorted_column: int | None
    ) -> list[int]:
        """:func:`fit_widths` of the shown columns alone; a hidden column's width is 0."""
        if not self.hidden:
            return fit_widths(self.columns, content, width, sorted_column=sorted_column)
        shown = [i for i in range(len(self.columns)) if i not in self.hidden]
        fitted = fit_widths(
            [self.columns[i] for i in shown],
            [content[i] for i in shown],
            width,
            sorted_column=shown.index(sorted_column) if sorted_column in shown else None,
        )
        widths = [0] * len(self.columns)
        for i, column_width in zip(shown, fitted, strict=True):
            widths[i] = column_width
        return widths

    def measure(self, rows: Iterable[TableRow]) -> list[int]:
        """The content widths (:func:`content_widths` of ``rows``, the rows in view when first
        drawn), measured once per set of rows."""
        if self.content is None:
            self.content = content_widths(self.columns, rows)
        return self.content

    def narrowest_line(self) -> int:
        """The narrowest line the rows can be drawn in with every number whole (text columns
        cut or dropped): a narrower view scrolls sideways. 0 before the rows are measured."""
        if self.content is None:
            return 0
        if self._narrowest is None:
            self._narrowest = line_length(self._fit_shown(self.content, 0, None))
        return self._narrowest

    def fit(self, width: int, sorted_column: int | None) -> tuple[list[int], int, bool]:
        """The columns' widths in a view ``width`` cells wide (0: dropped), the width of their
        line (wider than the view only when the numbers alone do not fit), and whether the
        widths changed since the last fit. Worked out once per view width and sort column."""
        key = (width, sorted_column)
        changed = False
        if self._fitted[0] != key:
            content = self.content or [0] * len(self.columns)
            widths = self._fit_shown(content, width, sorted_column)
            changed = widths != self._fitted[1]
            self._fitted = (key, widths, max(width, line_length(widths)))
        return self._fitted[1], self._fitted[2], changed

    def widen(self, values: Sequence[str | Text]) -> bool:
        """Take the cells of a row about to be drawn: a cell wider than any seen so far widens
        its column. True when the fitted widths changed."""
        content = self.content
        if content is None:
            return False
        wider = False
        for n, value in enumerate(values[: len(content)]):
            length = cell_width(value)
            if length > content[n]:
                content[n] = length
                wider = True
        if not wider:
            return False
        (width, sorted_column), old, _ = self._fitted
        self._fitted, self._narrowest = _UNFITTED, None
        return self.fit(width, sorted_column)[0] != old
