"""The rows and columns a :class:`~tui.ui.table.virtual_table.VirtualTable` shows, and how a
cell is fitted to its column's width.

Rows are :class:`Row` (every field given) or :class:`LazyRow` (fields computed from a model the
first time they are needed). The table asks a row for its cells only when drawing it, for its
sort values only when sorting and for its haystack only when filtering, so handing it 50 000 lazy
rows costs little more than their keys; :class:`LazyRows` does not even make the row objects
until they are read. Every ``str`` cell is service text: :func:`tui.untrusted.clean` is applied
before it is drawn; a ``rich.text.Text`` cell is trusted styling built by our own code.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from typing import Any, overload

from rich.cells import cell_len, set_cell_size
from rich.text import Text

from tui.tables.rows import (
    Column,
    LazyRow,
    Ranks,
    Row,
    SortOrders,
    TableRow,
    default_haystack,
    fallback_sort_key,
    sort_order,
    warmed_sort_values,
)
from tui.untrusted import JOINERS, clean, clean_cell

__all__ = [
    "Column",
    "LazyRow",
    "LazyRows",
    "Ranks",
    "Row",
    "SortOrders",
    "TableRow",
    "EDGE",
    "GAP",
    "NUMBER_MAX",
    "TEXT_FLOOR",
    "cell_width",
    "content_widths",
    "default_haystack",
    "fallback_sort_key",
    "fit_plain",
    "fit_rich",
    "fit_widths",
    "line_length",
    "position_of",
    "sort_order",
    "warmed_sort_values",
]

_ELLIPSIS = "\u2026"
EDGE = 1  # blank cells at each end of a line
GAP = 1  # blank cells between two columns
#: The narrowest a text column is cut to ("abc…"); with less room it is dropped instead.
TEXT_FLOOR = 4
#: The widest a number's column grows for it: a number the service sends 300 digits long
#: cannot push every other column off the line.
NUMBER_MAX = 24


class LazyRows(Sequence[LazyRow]):
    """The rows of a mapping of models, each made the first time it is read.

    Why: making tens of thousands of row objects is a noticeable part of the first build, and
    the first paint reads only the rows in view. The table keeps this sequence as it is (``set_rows``); a sort, a filter or a warming
    thread makes the rest. Two threads making the same row at once is harmless: both rows are
    equal and one of them is kept.
    """

    __slots__ = ("_complete", "_context", "_factory", "_models", "_rows", "keys")

    def __init__(
        self,
        factory: Callable[[str, Any, Any], LazyRow],
        models: Mapping[str, Any],
        context: Any = None,
    ) -> None:
        self._factory = factory
        self._context = context
        self.keys: list[str] = list(models)
        self._models: list[Any] = list(models.values())
        self._rows: list[LazyRow | None] = [None] * len(self.keys)
        self._complete = not self.keys

    def __len__(self) -> int:
        return len(self.keys)

    @overload
    def __getitem__(self, index: int) -> LazyRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[LazyRow]: ...

    def __getitem__(self, index: int | slice) -> LazyRow | list[LazyRow]:
        if isinstance(index, slice):
            return [self._row(i) for i in range(*index.indices(len(self.keys)))]
        return self._row(index)

    def _row(self, index: int) -> LazyRow:
        row = self._rows[index]
        if row is None:
            row = self._factory(self.keys[index], self._models[index], self._context)
            self._rows[index] = row
        elif row.context is not self._context:  # made before the last retime: cells anew
            row.context = self._context
            _drop_cells(row)
        return row

    def __iter__(self) -> Iterator[LazyRow]:
        return iter(self.all())

    def retime(self, context: Any) -> None:
        """A new shared ``context`` (a new clock reading): rows made so far drop their cells,
        which are computed again from it when next drawn; sort values and search texts stay
        (they must not depend on the clock).

        A new ``context`` object costs nothing here: a row learns it when it is next read
        (drawn, measured, exported), so the ages of 100 000 rows count on without a pass over
        them (17 ms every 30 s, on every table screen, on view or not). The same object, changed
        inside, is not told apart from the one the rows hold: every row made drops its cells now.
        """
        if context is self._context:
            for row in self._rows:
                if row is not None:
                    _drop_cells(row)
        self._context = context

    def make(self, start: int, stop: int) -> None:
        """Make the rows ``[start, stop)`` that are missing (a warm-up makes every row a piece
        at a time, so that a key between two pieces need not wait for all of them)."""
        if self._complete:
            return
        rows, factory, context = self._rows, self._factory, self._context
        rows[start:stop] = [
            row if row is not None else factory(key, model, context)
            for row, key, model in zip(
                rows[start:stop], self.keys[start:stop], self._models[start:stop], strict=True
            )
        ]

    def all(self) -> list[LazyRow]:
        """Every row, made now where missing."""
        if not self._complete:
            self.make(0, len(self.keys))
            self._complete = True
        return self._rows  # type: ignore[return-value]  # complete: no None left


def _drop_cells(row: LazyRow) -> None:
    with suppress(AttributeError):  # not drawn since it was made or last dropped
        del row._cells


def fit_plain(text: str, width: int, align: str = "left") -> str:
    """Crop or pad already-clean ``text`` to exactly ``width`` cells, with an ellipsis if cut.

    Wide characters split at the edge become a space (``set_cell_size``); the work is bounded so a
    10 000-character cell costs no more than a short one.
    """
    if width <= 0:
        return ""
    limit = 4 * width + 64
    cut = len(text) > limit
    if cut:
        text = text[:limit]
    length = cell_len(text)
    if cut or length > width:
        return set_cell_size(text, width - 1) + _ELLIPSIS
    if length == width:
        return text
    padding = " " * (width - length)
    return padding + text if align == "right" else text + padding


def _without_joiners(text: Text) -> Text:
    """``text`` without :data:`~tui.untrusted.JOINERS` (see :func:`~tui.untrusted.clean_cell`),
    its styles kept on the characters that remain."""
    plain = text.plain
    if plain.isascii() or not JOINERS.search(plain):
        return text
    kept: list[str] = []
    where: list[int] = []  # old offset -> new offset
    for char in plain:
        where.append(len(kept))
        if not JOINERS.match(char):
            kept.append(char)
    where.append(len(kept))
    result = Text("".join(kept), style=text.style, end=text.end)
    for span in text.spans:
        start, end = where[min(span.start, len(plain))], where[min(span.end, len(plain))]
        if start < end:
            result.stylize(span.style, start, end)
    return result


def fit_rich(text: Text, width: int, align: str) -> Text:
    """The ``Text`` counterpart of :func:`fit_plain` (a copy; spans kept)."""
    text = _without_joiners(text)
    text = Text(" ").join(text.split("\n", allow_blank=True))  # a new Text, one line
    text.truncate(width, overflow="ellipsis")
    length = text.cell_len
    if length < width:
        if align == "right":
            text.pad_left(width - length)
        else:
            text.pad_right(width - length)
    return text


def position_of(visible: Sequence[int], ranks: Sequence[int], index: int) -> int:
    """Where row ``index`` is, or would be, among the ``visible`` row indices (in the order
    ``ranks`` gives): a row on view is found by a scan, which needs no ranks."""
    try:
        return visible.index(index)
    except ValueError:
        return bisect_left(visible, ranks[index], key=ranks.__getitem__)


def cell_width(value: str | Text) -> int:
    """The cells ``value`` takes in a table (its first 200 characters measured, cleaned)."""
    plain = value.plain if isinstance(value, Text) else clean_cell(value)
    return cell_len(plain[:200])


def content_widths(columns: Sequence[Column], rows: Iterable[TableRow]) -> list[int]:
    """Per column, the width of its widest cell among ``rows`` (0 with no rows)."""
    widths = [0] * len(columns)
    for row in rows:
        for n, value in enumerate(row.cells[: len(widths)]):
            length = cell_width(value)
            if length > widths[n]:
                widths[n] = length
    return widths


def line_length(widths: Sequence[int], edge: int = EDGE, gap: int = GAP) -> int:
    """The cells a line of columns this wide takes (dropped columns, width 0, take none)."""
    shown = [width for width in widths if width > 0]
    return 2 * edge + sum(shown) + gap * max(0, len(shown) - 1)


def fit_widths(
    columns: Sequence[Column],
    content: Sequence[int],
    width: int,
    *,
    sorted_column: int | None = None,
    arrows: bool = True,
    edge: int = EDGE,
    gap: int = GAP,
) -> list[int]:
    """Each column's width in a line ``width`` cells wide, from what its cells need
    (``content``: :func:`content_widths`); 0 for a column dropped for want of room.
    ``arrows``: the table sorts by its columns and shows an arrow in the header of the one it
    sorts by (``sorted_column``); ``edge`` and ``gap``: the blank cells at each end of the line
    and between two columns.

    Each column asks for its content and its header with room for a sort arrow, at least its
    ``width``; a text column at most its ``max_width`` unless it is free text (``flex``). When
    that does not fit, columns give way in turn: room for a sort arrow in the columns not
    sorted by, and the numbers down to their header; free text to its minimum; the other text columns but
    the first (the row's id) to theirs; ``optional`` columns are dropped (from the right;
    never the one sorted by); free text to its label; the id to its minimum; every
    text column, evenly, to :data:`TEXT_FLOOR`; the numbers' headers (cut: the numbers stay
    whole); then text columns are dropped, free text first, then from the right. A number is
    never cut: when the numbers alone do not fit, the line is wider than ``width`` (it scrolls
    sideways). Room left over goes to the free text: a table uses the width it has.
    """
    count = len(columns)
    labels = [cell_len(clean(column.label)) for column in columns]
    numbers = [i for i, column in enumerate(columns) if column.number]
    texts = [i for i, column in enumerate(columns) if not column.number]
    flex = [i for i in texts if columns[i].flex]
    fixed = [i for i in texts if not columns[i].flex]
    lead, rest = fixed[:1], fixed[1:]
    need = [
        max(1, min(content[i], NUMBER_MAX)) if columns[i].number else content[i]
        for i in range(count)
    ]
    widths = []
    room = 2 if arrows else 0
    for i, column in enumerate(columns):
        want = max(labels[i] + room, need[i])
        if not (column.number or column.flex):
            want = min(want, column.max_width)
        widths.append(max(column.width, want))
    minimums = [column.width for column in columns]
    arrow = [labels[i] + room if i == sorted_column else labels[i] for i in range(count)]
    optional = [i for i in reversed(range(count)) if columns[i].optional and i != sorted_column]
    unsorted = [  # without room for an arrow they do not show; numbers down to their header
        max(need[i], arrow[i])
        if columns[i].number
        else max(minimums[i], min(need[i], columns[i].max_width), arrow[i])
        for i in range(count)
    ]
    stages: tuple[tuple[list[int], list[int]], ...] = (
        ([*numbers, *fixed], unsorted),
        (flex, minimums),
        (rest, minimums),
        (optional, [-1] * count),  # -1: dropped
        (flex, [max(6, label) for label in labels]),
        (lead, minimums),
        (texts, [TEXT_FLOOR] * count),
        (numbers, need),
        ([*flex, *reversed(rest), *lead], [-1] * count),
    )
    over = line_length(widths, edge, gap) - width
    for group, floors in stages:
        while over > 0:
            shrinkable = [i for i in group if widths[i] > max(0, floors[i])]
            if not shrinkable:
                break
            if floors[shrinkable[0]] < 0:  # drop the first, then see
                widths[shrinkable[0]] = 0
                over = line_length(widths, edge, gap) - width
                continue
            for i in shrinkable:
                if over > 0 and widths[i] > floors[i]:
                    widths[i] -= 1
                    over -= 1
    if over < 0:
        takers = [i for i in flex if widths[i]] or [i for i in texts if widths[i]]
        for n in range(-over) if takers else ():
            widths[takers[n % len(takers)]] += 1
    return widths
