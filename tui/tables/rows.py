"""The rows and columns of roost's tables, headless: what a table shows (:class:`Column`), its
rows (:class:`Row`, :class:`LazyRow`), what ``/`` searches and how a sort orders them.

The dashboard's table (``tui.ui.table.rows``, ``VirtualTable``) draws these; the
headless commands (`roost export`) read the same rows, so a column, a cell, a filter and a sort
are defined once. A cell is a ``str`` (service text, cleaned when drawn or written) or a styled
text our own code built (``rich.text.Text``: read here only through its ``plain``).
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Sequence
from operator import attrgetter, itemgetter
from typing import Any, Literal, Protocol, overload

import msgspec

from tui.untrusted import clean

__all__ = [
    "Cell",
    "Column",
    "LazyRow",
    "Ranks",
    "Row",
    "SortOrders",
    "TableRow",
    "default_haystack",
    "fallback_sort_key",
    "plain",
    "sort_order",
    "warmed_sort_values",
]

#: A cell: ``str`` service text, or styled text our own code built (``rich.text.Text``).
Cell = Any


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
    cells: tuple[Cell, ...]
    sort_values: tuple[Any, ...]
    haystack: str = ""


class TableRow(Protocol):
    """What the table reads from a row: :class:`Row` and :class:`LazyRow` both qualify."""

    @property
    def key(self) -> str: ...

    @property
    def cells(self) -> tuple[Cell, ...]: ...

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
    _cells: tuple[Cell, ...]
    _sort_values: tuple[Any, ...]
    _haystack: str

    def __init__(self, key: str, model: Any, context: Any = None) -> None:
        self.key = key
        self.model = model
        self.context = context

    def make_cells(self) -> tuple[Cell, ...]:
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
    def cells(self) -> tuple[Cell, ...]:
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


def plain(cell: Cell) -> str:
    """A cell as the text it shows: a styled cell's plain text (``rich.text.Text.plain``, read
    without importing Rich), a ``str`` cell cleaned (:func:`tui.untrusted.clean`)."""
    text = getattr(cell, "plain", None)
    return text if isinstance(text, str) else clean(cell)


def default_haystack(row: TableRow) -> str:
    return " ".join(map(plain, row.cells)).lower()


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
        present: Sequence[int] = [i for i, value in enumerate(values) if value is not None]
        missing = [i for i, value in enumerate(values) if value is None]
    else:  # the usual case: no list of every index to make, only the sorted one
        present, missing = range(count), []
    try:
        order = sorted(present, key=values.__getitem__, reverse=reverse)
    except TypeError:
        order = sorted(present, key=lambda i: fallback_sort_key(values[i]), reverse=reverse)
    order += missing
    return order, Ranks(order)


class SortOrders:
    """The sort orders of one sequence of rows, each made once: a sort by a column the table
    was sorted by before (or that its warm-up prepared, in a thread), or the data order again,
    costs nothing.

    Rows never change once given (new data is a new sequence, and a new ``SortOrders``), so an
    order made once holds for as long as they are shown. Each is kept as a compact ``array``
    (4 bytes a row: a list of 100 000 positions is 3.6 MB) and handed out as it is, to be read,
    never changed (a filter reads it faster than a list: a sorted list's ints lie scattered in
    memory). Thread-safe: a warm-up thread may :meth:`prepare` while the table sorts.
    """

    __slots__ = ("_lock", "_made", "_rows")

    def __init__(self, rows: Sequence[TableRow]) -> None:
        self._rows = rows
        #: (column, reverse) -> the order; column -1: the rows' own order
        self._made: dict[tuple[int, bool], array[int]] = {}
        self._lock = threading.Lock()

    def get(self, column: int | None, reverse: bool) -> tuple[Sequence[int], Sequence[int]]:
        """What :func:`sort_order` gives, from the order made before if there is one."""
        key = -1 if column is None else column
        made = self._made.get((key, reverse))
        if made is None:
            made = self._keep(key, reverse, sort_order(self._rows, column, reverse)[0])
        # the rows' own order and its reversal are their own inverses
        return made, (made if column is None else Ranks(made))

    def prepare(self, column: int, reverse: bool) -> None:
        """Make the order by ``column`` now (in a thread), unless it is made already."""
        if (column, reverse) not in self._made:
            self._keep(column, reverse, sort_order(self._rows, column, reverse)[0])

    def prepared(self) -> frozenset[tuple[int, bool]]:
        """The (column, reverse) sort orders made so far."""
        return frozenset(key for key in self._made if key[0] >= 0)

    def _keep(self, column: int, reverse: bool, order: list[int]) -> array[int]:
        with self._lock:
            return self._made.setdefault((column, reverse), array("i", order))


class Ranks(Sequence[int]):
    """Each row index's position in a sort order (the order's inverse), made on first use:
    a pass over every row, in an order scattered across memory, that a sort whose cursor row
    stays on view never needs (the table finds that row by a scan of the rows shown)."""

    __slots__ = ("_order", "_ranks")

    def __init__(self, order: Sequence[int]) -> None:
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
