"""The rows and columns a :class:`~tui.ui.widgets.virtual_table.VirtualTable` shows, and how a
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
from operator import attrgetter, itemgetter
from typing import Any, Literal, Protocol, overload

import msgspec
from rich.cells import cell_len, set_cell_size
from rich.text import Text

from tui.untrusted import JOINERS, clean, clean_cell

__all__ = [
    "Column",
    "LazyRow",
    "LazyRows",
    "Ranks",
    "Row",
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


class Column(msgspec.Struct, frozen=True):
    """A column: ``width`` is what it keeps while the line has room; it grows to fit its
    content (a text column up to ``max_width``) when the terminal has room. A ``flex`` column
    (long free text) takes what is left over and is the first to yield when room is short.
    When even the minimums do not fit, ``optional`` columns are hidden, then text columns are
    cut further, then dropped, before a number is cut (:func:`fit_widths`)."""

    key: str
    label: str
    width: int
    flex: bool = False
    align: Literal["left", "right"] = "left"
    max_width: int = 40
    optional: bool = False  # hidden when the line is short of room, before others are cut

    @property
    def number(self) -> bool:
        """A right-aligned column holds numbers (counts, scores, ages), and a number is never
        cut: the text columns give way first (:func:`fit_widths`)."""
        return self.align == "right"


class Row(msgspec.Struct, frozen=True):
    """One row. ``key`` is unique in a table; ``str`` cells are untrusted service text.

    ``haystack`` is the lower-cased text the filter searches; when empty, the cleaned cells are
    used.
    """

    key: str
    cells: tuple[str | Text, ...]
    sort_values: tuple[Any, ...]
    haystack: str = ""


class TableRow(Protocol):
    """What the table reads from a row: :class:`Row` and :class:`LazyRow` both qualify."""

    @property
    def key(self) -> str: ...

    @property
    def cells(self) -> tuple[str | Text, ...]: ...

    @property
    def sort_values(self) -> tuple[Any, ...]: ...

    @property
    def haystack(self) -> str: ...


class LazyRow:
    """A row whose cells, sort values and haystack are computed from ``model`` on first use.

    Why: at 50 000 rows, computing every field up front takes longer than the rest of the start;
    most rows are never drawn and a filter or sort may never come. Each field is computed once
    and kept (computing it from two threads at once is harmless: both get equal values).
    Subclasses implement :meth:`make_cells` and :meth:`make_sort_values`, and may implement
    :meth:`make_haystack` (default: the cleaned cells); ``context`` is whatever the rows of one
    build share (a clock reading, a rank table).
    """

    __slots__ = ("_cells", "_haystack", "_sort_values", "context", "key", "model")

    def __init__(self, key: str, model: Any, context: Any = None) -> None:
        self.key = key
        self.model = model
        self.context = context

    def make_cells(self) -> tuple[str | Text, ...]:
        raise NotImplementedError

    def make_sort_values(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def make_sort_value(self, column: int) -> Any:
        """One column's sort value, for a sort that comes before every row was warmed: it reads
        only its column, computed again (not kept: the warm-up computes the whole tuple).
        Default: from :attr:`sort_values`; rows of big tables override it."""
        values = self.sort_values
        return values[column] if column < len(values) else None

    def make_haystack(self) -> str:
        return default_haystack(self)

    # An unset slot raises AttributeError: no sentinel to store per row, and the cached path is
    # one attribute read.
    @property
    def cells(self) -> tuple[str | Text, ...]:
        try:
            return self._cells
        except AttributeError:
            self._cells = cells = self.make_cells()
            return cells

    @property
    def sort_values(self) -> tuple[Any, ...]:
        try:
            return self._sort_values
        except AttributeError:
            self._sort_values = values = self.make_sort_values()
            return values

    @property
    def haystack(self) -> str:
        try:
            return self._haystack
        except AttributeError:
            self._haystack = haystack = self.make_haystack()
            return haystack

    def computed(self) -> frozenset[str]:
        """Which of ``cells``, ``sort_values`` and ``haystack`` have been computed so far."""
        return frozenset(
            name
            for name, slot in (
                ("cells", "_cells"),
                ("sort_values", "_sort_values"),
                ("haystack", "_haystack"),
            )
            if hasattr(self, slot)
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.key!r})"


#: A row's sort values if they are computed already (``AttributeError`` if not), read without
#: the property: a sort reads 50 000 of them.
warmed_sort_values = attrgetter("_sort_values")


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
        return row

    def __iter__(self) -> Iterator[LazyRow]:
        return iter(self.all())

    def retime(self, context: Any) -> None:
        """A new shared ``context`` (a new clock reading): rows made so far drop their cells,
        which are computed again from it when next drawn; sort values and search texts stay
        (they must not depend on the clock)."""
        self._context = context
        for row in self._rows:
            if row is not None:
                row.context = context
                if hasattr(row, "_cells"):
                    del row._cells

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


def default_haystack(row: TableRow) -> str:
    parts = (cell.plain if isinstance(cell, Text) else clean(cell) for cell in row.cells)
    return " ".join(parts).lower()


def fallback_sort_key(value: Any) -> tuple[str, str]:
    """Used when a column mixes types that do not compare (a caller bug, not a crash)."""
    return (type(value).__name__, str(value))


def sort_order(
    rows: Sequence[TableRow], column: int | None, reverse: bool
) -> tuple[list[int], Sequence[int]]:
    """Row indices in sort order by ``column`` (None: the rows' own order), and each row's
    position in it (:class:`Ranks`). Stable; rows whose sort value is None come last in both
    directions."""
    count = len(rows)
    if column is None:
        order = list(range(count - 1, -1, -1)) if reverse else list(range(count))
        return order, order  # identity and reversal are their own inverses
    try:
        # rows already warmed (LazyRow's slot): read without the property, 50 000 times
        values: list[Any] = list(map(itemgetter(column), map(warmed_sort_values, rows)))
    except (AttributeError, IndexError):
        # some row not warmed yet (only this column is computed for it, which is all a
        # sort by it needs: 50 000 karmas are read far faster than 50 000 whole tuples),
        # another row type, or a row with fewer sort values than columns (None for the rest)
        values = [
            row.make_sort_value(column)
            if isinstance(row, LazyRow)
            else (row.sort_values[column] if column < len(row.sort_values) else None)
            for row in rows
        ]
    if None in values:
        present = [i for i, value in enumerate(values) if value is not None]
        missing = [i for i, value in enumerate(values) if value is None]
    else:  # the usual case: no list of every index to make, only the sorted one
        present, missing = range(count), []
    try:
        order = sorted(present, key=values.__getitem__, reverse=reverse)
    except TypeError:
        order = sorted(present, key=lambda i: fallback_sort_key(values[i]), reverse=reverse)
    order += missing
    return order, Ranks(order)


class Ranks(Sequence[int]):
    """Each row index's position in a sort order (the order's inverse), made on first use:
    a pass over every row, in an order scattered across memory, that a sort whose cursor row
    stays on view never needs (the table finds that row by a scan of the rows shown)."""

    __slots__ = ("_order", "_ranks")

    def __init__(self, order: list[int]) -> None:
        self._order = order
        self._ranks: list[int] | None = None

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> list[int]: ...
    def __getitem__(self, index: int | slice) -> int | list[int]:
        ranks = self._ranks
        if ranks is None:
            ranks = self._ranks = [0] * len(self._order)
            for position, row in enumerate(self._order):
                ranks[row] = position
        return ranks[index]


def position_of(visible: list[int], ranks: Sequence[int], index: int) -> int:
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
