"""A virtualised, keyboard-first table on Textual's Line API: tens of thousands of rows, moved
through by keys, with service text drawn as plain text.

Why: the stock ``DataTable`` measures every cell on its first idle and a filter keystroke means
clear-and-refill, both in proportion to the number of rows (``tests/perf/bench.py --only table``
compares the two; the README has the figures). This table keeps rows as plain data, filters and
sorts lists of indices, and renders only the lines in view, so its cost per frame does not depend
on the number of rows.

Layout: line 0 is a fixed header; the row at visible index ``i`` is virtual line ``i + 1``.
Every ``str`` cell is service text: it goes through :func:`tui.untrusted.clean` and is drawn as a
plain segment, never parsed as markup. A ``rich.text.Text`` cell is trusted styling built by our
own code.

Rows are :class:`Row` (every field given) or :class:`LazyRow` (fields computed from a model the
first time they are needed). The table asks a row for its cells only when drawing it, for its
sort values only when sorting and for its haystack only when filtering, so handing it 50 000 lazy
rows costs little more than their keys; :class:`LazyRows` does not even make the row objects
until they are read.
"""

from __future__ import annotations

import textwrap
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Any, ClassVar, Literal, Protocol, overload

import msgspec

# Textual imports its scroll bars the first time a widget needs one: for a big table that is
# its first paint of rows, while the 50 000-row build thread holds the interpreter, and the
# import's file reads then wait for it (about 30 ms instead of 1). Imported here, with the rest.
import textual.scrollbar  # noqa: F401
from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.untrusted import JOINERS, clean, clean_cell

__all__ = ["Column", "LazyRow", "LazyRows", "Row", "TableRow", "VirtualTable"]

_ELLIPSIS = "\u2026"
_SORT_UP = "\u25b2"
_SORT_DOWN = "\u25bc"
_EDGE = 1  # blank cells at each end of a line
_GAP = 1  # blank cells between two columns
_SAMPLE = 256  # rows measured for the content width of the columns


class Column(msgspec.Struct, frozen=True):
    """A column: ``width`` is its minimum. It grows to fit its content (up to ``max_width``)
    when the terminal has room; a ``flex`` column (long free text) takes what is left over and
    is the first to yield when room is short."""

    key: str
    label: str
    width: int
    flex: bool = False
    align: Literal["left", "right"] = "left"
    max_width: int = 40


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
        return _default_haystack(self)

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


_WARMED_SORT = attrgetter("_sort_values")


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


def _fit_rich(text: Text, width: int, align: str) -> Text:
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


def _default_haystack(row: TableRow) -> str:
    parts = (cell.plain if isinstance(cell, Text) else clean(cell) for cell in row.cells)
    return " ".join(parts).lower()


def _fallback_sort_key(value: Any) -> tuple[str, str]:
    """Used when a column mixes types that do not compare (a caller bug, not a crash)."""
    return (type(value).__name__, str(value))


class VirtualTable(ScrollView, can_focus=True):
    """A data table that renders only the rows in view; see the module docstring."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False, id="virtual_table.cursor_up"),
        Binding("down", "cursor_down", "Down", show=False, id="virtual_table.cursor_down"),
        Binding("pageup", "cursor_page_up", "Page up", show=False, id="virtual_table.page_up"),
        Binding(
            "pagedown", "cursor_page_down", "Page down", show=False, id="virtual_table.page_down"
        ),
        Binding("home", "cursor_first", "First row", show=False, id="virtual_table.first"),
        Binding("end", "cursor_last", "Last row", show=False, id="virtual_table.last"),
        Binding("enter", "select_cursor", "Open", id="virtual_table.select"),
        # vim motion, as in k9s and lazygit
        Binding("j", "cursor_down", "Down", show=False, id="virtual_table.vim_down"),
        Binding("k", "cursor_up", "Up", show=False, id="virtual_table.vim_up"),
        Binding("g", "cursor_first", "First row", show=False, id="virtual_table.vim_first"),
        Binding("G", "cursor_last", "Last row", show=False, id="virtual_table.vim_last"),
        Binding(
            "ctrl+d", "half_page(1)", "Half a page down", show=False, id="virtual_table.half_down"
        ),
        Binding(
            "ctrl+u", "half_page(-1)", "Half a page up", show=False, id="virtual_table.half_up"
        ),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-table--header",
        "virtual-table--cursor",
        "virtual-table--marked",
        "virtual-table--odd",
        "virtual-table--empty",
    }

    DEFAULT_CSS = """
    VirtualTable {
        height: 1fr;
        background: $surface;
        color: $foreground;
        overflow-x: auto;
        overflow-y: auto;

        & > .virtual-table--header {
            background: $panel;
            color: $foreground;
            text-style: bold;
        }
        & > .virtual-table--odd {
            background: $surface-lighten-1 50%;
        }
        & > .virtual-table--marked {
            color: $accent;
            text-style: bold;
        }
        & > .virtual-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .virtual-table--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
        & > .virtual-table--empty {
            color: $text-muted;
            text-style: italic;
        }
        &:nocolor > .virtual-table--cursor, &:nocolor:focus > .virtual-table--cursor {
            text-style: reverse bold;
        }
        &:nocolor > .virtual-table--header {
            text-style: bold underline;
        }
    }
    """

    class _RowMessage(Message):
        """A message about one row, addressed by its key."""

        def __init__(self, table: VirtualTable, key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> VirtualTable:
            return self.table

    class Highlighted(_RowMessage):
        """The cursor moved to a different row (posted only when the row key changes)."""

    class Selected(_RowMessage):
        """A row was chosen with enter or a click."""

    @dataclass
    class Warmed(Message):
        """The table's ``rows`` have computed what filtering and sorting read (a warm-up):
        they live until the next rows replace them (the app's memory policy may freeze them)."""

        table: VirtualTable
        rows: int

        @property
        def control(self) -> VirtualTable:
            return self.table

    class Sorted(Message):
        """The sort changed (``s``/``S`` on the screen, or a click on a column header)."""

        def __init__(self, table: VirtualTable, column_key: str | None, reverse: bool) -> None:
            super().__init__()
            self.table = table
            self.column_key = column_key
            self.reverse = reverse

        @property
        def control(self) -> VirtualTable:
            return self.table

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        name: str | None = None,
        id: str | None = None,  # noqa: A002 - Textual's own parameter name
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        if not columns:
            raise ValueError("a VirtualTable needs at least one column")
        self._columns: tuple[Column, ...] = tuple(columns)
        self._column_index = {column.key: i for i, column in enumerate(self._columns)}
        self._min_line_width = (
            2 * _EDGE + sum(c.width for c in self._columns) + _GAP * (len(self._columns) - 1)
        )
        self._rows: Sequence[TableRow] = []
        self._key_index: dict[str, int] | None = {}  # built on first use after set_rows
        self._haystacks: list[str] | None = None  # built by the first filter after set_rows
        self._marked: frozenset[str] = frozenset()
        self._order: list[int] = []  # row indices in sort order
        self._rank: list[int] = []  # row index -> position in _order
        self._visible: list[int] = []  # row indices shown, in sort order
        self._cursor = 0  # position in _visible
        self._highlighted_key: str | None = None  # last key announced with Highlighted
        self._filter_query = ""
        self._needle = ""
        self._predicate: Callable[[str], bool] | None = None
        self._sort_column: str | None = None
        self._sort_reverse = False
        self._strip_cache: LRUCache[tuple[Any, ...], Strip] = LRUCache(1024)
        self._widths: tuple[int, list[int]] = (-1, [])  # (line width, column widths)
        self._wanted: list[int] | None = None  # widths the content asks for (per set_rows)
        self._empty_message = "no data yet"
        self._after_paint: list[Callable[[], object]] = []
        self._pass_styles: dict[tuple[str | None, bool], Style] | None = None  # see _style
        self._update_virtual_size()

    # ------------------------------------------------------------------ read-only state

    @property
    def columns(self) -> tuple[Column, ...]:
        return self._columns

    @property
    def sort_column(self) -> str | None:
        return self._sort_column

    @property
    def sort_reverse(self) -> bool:
        return self._sort_reverse

    @property
    def filter_query(self) -> str:
        return self._filter_query

    @property
    def row_count(self) -> int:
        """Rows shown after the filter and predicate."""
        return len(self._visible)

    @property
    def total_count(self) -> int:
        return len(self._rows)

    @property
    def cursor_key(self) -> str | None:
        if not self._visible:
            return None
        return self._rows[self._visible[self._cursor]].key

    @property
    def cursor_row(self) -> int:
        """Position of the cursor among the visible rows (0 when empty)."""
        return self._cursor

    @property
    def empty_message(self) -> str:
        return self._empty_message

    @property
    def marked(self) -> frozenset[str]:
        """Keys of the rows marked new or changed (drawn with the mark)."""
        return self._marked

    def redraw_rows(self) -> None:
        """Draw every row again from its cells (after :meth:`LazyRows.retime`)."""
        self._strip_cache.clear()
        self.refresh()

    def call_after_paint(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` once the table's lines have been rendered for a frame.

        For thread work that would compete with that frame for the interpreter (the warm-up
        after new rows): ``call_after_refresh`` can run before the screen's update timer has
        painted. A table that is not on view runs it when it is next painted.
        """
        self._after_paint.append(callback)
        self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._pass_styles = {}
        try:
            lines = super().render_lines(crop)
        finally:
            self._pass_styles = None
        if self._after_paint:
            callbacks, self._after_paint = self._after_paint, []
            for callback in callbacks:
                self.call_later(callback)  # after this frame has been written out
        return lines

    def set_empty_message(self, message: str) -> None:
        """What the table says while it has no rows (why, and what to do); wrapped to the width.

        It may quote service text: it is cleaned and never read as markup.
        """
        if message != self._empty_message:
            self._empty_message = message
            if not self._rows:
                self.refresh()

    @property
    def _key_to_index(self) -> dict[str, int]:
        if self._key_index is None:
            rows = self._rows
            keys = rows.keys if isinstance(rows, LazyRows) else [row.key for row in rows]
            self._key_index = {key: i for i, key in enumerate(keys)}
        return self._key_index

    def get_row(self, key: str) -> TableRow | None:
        index = self._key_to_index.get(key)
        return None if index is None else self._rows[index]

    def visible_keys(self) -> list[str]:
        """Keys of the visible rows, in display order."""
        rows = self._rows
        return [rows[i].key for i in self._visible]

    # ------------------------------------------------------------------ data

    def set_rows(self, rows: Iterable[TableRow], *, marked: Collection[str] = ()) -> None:
        """Replace the data by key, keeping cursor key, scroll, filter, predicate and sort.

        If the cursor's row is gone the cursor falls to its nearest surviving neighbour (the next
        row, else the previous one). ``marked`` rows are drawn with the "new/changed" style until
        the next call. Only the keys are read here (plus the sort values or haystacks when a sort
        or filter is active); cells are read when a row is drawn. :class:`LazyRows` are kept as
        they are: a row is made when it is first read.
        """
        old_rows, old_visible, old_cursor = self._rows, self._visible, self._cursor
        old_key = self.cursor_key
        self._rows = rows if isinstance(rows, LazyRows) else list(rows)  # lazy rows stay lazy
        self._key_index = None  # built when first needed, not before the first paint
        self._haystacks = None
        self._marked = frozenset(marked)
        self._strip_cache.clear()
        self._wanted = None
        self._widths = (-1, [])
        self._sort()
        self._filter(narrowing=False)

        def neighbours() -> Iterator[str]:
            after = range(old_cursor + 1, len(old_visible))
            before = range(old_cursor - 1, -1, -1)
            return (old_rows[old_visible[i]].key for i in chain(after, before))

        self._restore_cursor(old_key, neighbours(), old_cursor)
        self._changed()

    def set_filter(self, query: str) -> None:
        """Show rows whose haystack contains ``query`` (case-insensitive); ``""`` clears."""
        needle = query.lower()
        if not needle.strip():
            query = needle = ""
        if needle == self._needle:
            self._filter_query = query
            return
        narrowing = self._needle in needle  # every row matching the new needle is visible now
        old_key, old_cursor = self.cursor_key, self._cursor
        self._filter_query = query
        self._needle = needle
        self._filter(narrowing=narrowing)
        self._restore_cursor(old_key, iter(()), old_cursor)
        self._changed()

    def set_predicate(self, predicate: Callable[[str], bool] | None) -> None:
        """An extra filter on row keys (status quick-filters); ``None`` removes it."""
        old_key, old_cursor = self.cursor_key, self._cursor
        self._predicate = predicate
        self._filter(narrowing=False)
        self._restore_cursor(old_key, iter(()), old_cursor)
        self._changed()

    def sort_by(self, column_key: str | None, reverse: bool = False) -> None:
        """Sort by a column (``None`` restores the order given to ``set_rows``); stable.

        Rows whose sort value is ``None`` come last in both directions.
        """
        if column_key is not None and column_key not in self._column_index:
            raise ValueError(
                f"unknown column {column_key!r}: use one of {list(self._column_index)}"
            )
        old_cursor = self._cursor
        # the rows stay the same: the cursor's row is known by its index (no key lookup, whose
        # index of 50 000 keys would be built for this alone)
        old_index = self._visible[old_cursor] if self._visible else None
        self._sort_column = column_key
        self._sort_reverse = reverse
        self._sort()
        self._filter(narrowing=False)
        self._restore_cursor(None, iter(()), old_cursor, index=old_index)
        self._changed()
        self.post_message(self.Sorted(self, column_key, reverse))

    def first_direction(self, column_key: str) -> bool:
        """``reverse`` for the first sort by a column: numbers (right-aligned columns) largest
        first, as in htop and k9s; text A to Z."""
        return self._columns[self._column_index[column_key]].align == "right"

    def cycle_sort(self) -> None:
        """Sort by the next column (numbers largest first); after the last, the data order."""
        keys = [column.key for column in self._columns]
        if self._sort_column is None:
            self.sort_by(keys[0], self.first_direction(keys[0]))
        else:
            position = keys.index(self._sort_column) + 1
            if position < len(keys):
                self.sort_by(keys[position], self.first_direction(keys[position]))
            else:
                self.sort_by(None)

    def toggle_sort_direction(self) -> None:
        self.sort_by(self._sort_column, not self._sort_reverse)

    def move_cursor_to(self, key: str) -> bool:
        """Put the cursor on ``key``; ``False`` if that row is not visible."""
        index = self._key_to_index.get(key)
        if index is None:
            return False
        position = self._position_of(index)
        if position >= len(self._visible) or self._visible[position] != index:
            return False
        self._move_cursor(position)
        return True

    # ------------------------------------------------------------------ internals: data

    def _sort(self) -> None:
        rows = self._rows
        count = len(rows)
        column = self._column_index.get(self._sort_column) if self._sort_column else None
        reverse = self._sort_reverse
        if column is None:
            order = list(range(count - 1, -1, -1)) if reverse else list(range(count))
            self._order = self._rank = order  # identity and reversal are their own inverses
            return
        try:
            # rows already warmed (LazyRow's slot): read without the property, 50 000 times
            values: list[Any] = [row_values[column] for row_values in map(_WARMED_SORT, rows)]
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
        present = [i for i, value in enumerate(values) if value is not None]
        missing = [] if len(present) == count else [i for i, v in enumerate(values) if v is None]
        try:
            present = sorted(present, key=values.__getitem__, reverse=reverse)
        except TypeError:
            present = sorted(present, key=lambda i: _fallback_sort_key(values[i]), reverse=reverse)
        order = present + missing
        rank = [0] * count
        for position, index in enumerate(order):
            rank[index] = position
        self._order = order
        self._rank = rank

    def _filter(self, *, narrowing: bool) -> None:
        source = self._visible if narrowing else self._order
        needle = self._needle
        predicate = self._predicate
        haystacks = self._haystack_list() if needle else []
        if predicate is not None:
            rows = self._rows
            if needle:
                self._visible = [
                    i for i in source if needle in haystacks[i] and predicate(rows[i].key)
                ]
            else:
                self._visible = [i for i in source if predicate(rows[i].key)]
        elif needle:
            self._visible = [i for i in source if needle in haystacks[i]]
        else:
            self._visible = source

    def _haystack_list(self) -> list[str]:
        """The lower-cased search text of every row, by row index (built once per set_rows)."""
        if self._haystacks is None:
            self._haystacks = [row.haystack or _default_haystack(row) for row in self._rows]
        return self._haystacks

    def _position_of(self, index: int) -> int:
        """Where row ``index`` is, or would be, among the visible rows (they are in rank order)."""
        return bisect_left(self._visible, self._rank[index], key=self._rank.__getitem__)

    def _restore_cursor(
        self, key: str | None, neighbours: Iterator[str], fallback: int, index: int | None = None
    ) -> None:
        """Put the cursor back on the row ``index`` (or the row ``key``, or the first of
        ``neighbours`` still there), if visible; else at ``fallback``."""
        if index is None and key is not None:
            index = self._key_to_index.get(key)
            if index is None:
                index = next(
                    (self._key_to_index[k] for k in neighbours if k in self._key_to_index), None
                )
        position = fallback if index is None else self._position_of(index)
        self._cursor = max(0, min(position, len(self._visible) - 1))

    def _changed(self) -> None:
        """After any change of data, filter or order: resize, keep the cursor in view, repaint."""
        self._update_virtual_size()
        if self.scroll_y > self.max_scroll_y:
            self.scroll_to(y=self.max_scroll_y, animate=False, force=True)
        self._scroll_cursor_into_view()
        self.refresh()
        self._announce_cursor()

    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(self._min_line_width, 1 + max(1, len(self._visible)))

    def _announce_cursor(self) -> None:
        key = self.cursor_key
        if key != self._highlighted_key:
            self._highlighted_key = key
            if key is not None:
                self.post_message(self.Highlighted(self, key))

    # ------------------------------------------------------------------ cursor and keys

    @property
    def _page_height(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_cursor_into_view(self) -> None:
        height = self.scrollable_content_region.height - 1
        if height <= 0 or not self._visible:
            return
        top = round(self.scroll_y)
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False, force=True)
        elif self._cursor >= top + height:
            self.scroll_to(y=self._cursor - height + 1, animate=False, force=True)

    def _move_cursor(self, position: int) -> None:
        if not self._visible:
            return
        position = max(0, min(position, len(self._visible) - 1))
        if position != self._cursor:
            self.refresh_line(1 + self._cursor)
            self._cursor = position
            self.refresh_line(1 + position)
        self._scroll_cursor_into_view()
        self._announce_cursor()

    def refresh_line(self, y: int) -> None:
        """Repaint virtual line ``y`` (rows start at 1; the header does not scroll)."""
        if y > 0:
            super().refresh_line(y)

    def action_cursor_up(self) -> None:
        self._move_cursor(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._move_cursor(self._cursor + 1)

    def action_cursor_page_up(self) -> None:
        self._move_cursor(self._cursor - self._page_height)

    def action_cursor_page_down(self) -> None:
        self._move_cursor(self._cursor + self._page_height)

    def action_half_page(self, direction: int) -> None:
        """``ctrl+d`` / ``ctrl+u``: half a page down (1) or up (-1), as in vim."""
        self._move_cursor(self._cursor + direction * max(1, self._page_height // 2))

    def action_cursor_first(self) -> None:
        self._move_cursor(0)

    def action_cursor_last(self) -> None:
        self._move_cursor(len(self._visible) - 1)

    def action_select_cursor(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.Selected(self, key))

    async def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        event.stop()
        if offset.y == 0:
            column = self._column_at(offset.x + round(self.scroll_x))
            if column is not None:
                same = column.key == self._sort_column
                first = self.first_direction(column.key)
                self.sort_by(column.key, reverse=not self._sort_reverse if same else first)
            return
        position = round(self.scroll_y) + offset.y - 1
        if 0 <= position < len(self._visible):
            self._move_cursor(position)
            self.post_message(self.Selected(self, self._rows[self._visible[position]].key))

    def on_resize(self, event: events.Resize) -> None:
        self._scroll_cursor_into_view()

    # ------------------------------------------------------------------ rendering

    def _wanted_widths(self) -> list[int]:
        """Per column, the width its header (with room for the sort arrow) and its content ask
        for: the widest cell of the rows in view when first drawn (made once per ``set_rows``;
        only rows that are drawn anyway are read, so lazy rows stay lazy)."""
        if self._wanted is not None:
            return self._wanted
        rows = self._rows
        top = max(0, round(self.scroll_y))
        height = max(1, self.scrollable_content_region.height)
        wanted = [cell_len(clean(column.label)) + 2 for column in self._columns]
        for index in self._visible[top : top + min(height, _SAMPLE)]:
            for n, value in enumerate(rows[index].cells[: len(wanted)]):
                plain = value.plain if isinstance(value, Text) else clean_cell(value)
                length = cell_len(plain[:200])
                if length > wanted[n]:
                    wanted[n] = length
        self._wanted = [
            max(column.width, want if column.flex else min(want, column.max_width))
            for column, want in zip(self._columns, wanted, strict=True)
        ]
        return self._wanted

    def _column_widths(self, line_width: int) -> list[int]:
        """Widths from the content and the room: every column gets what its content asks for
        when that fits, free text (``flex``) yields first, then the others shrink evenly
        towards their minimum; room left over goes to the free text."""
        if self._widths[0] == line_width:
            return self._widths[1]
        columns = self._columns
        widths = list(self._wanted_widths())
        room = line_width - 2 * _EDGE - _GAP * (len(columns) - 1)
        over = sum(widths) - room
        flex = [i for i, column in enumerate(columns) if column.flex]
        others = [i for i, column in enumerate(columns) if not column.flex]
        # who yields, in turn, and down to what: free text to its minimum, the other columns
        # (not the first, the row's id) to theirs, free text further to its label, then the id
        stages = (
            (flex, [column.width for column in columns]),
            (others[1:], [column.width for column in columns]),
            (flex, [max(6, cell_len(column.label)) for column in columns]),
            (others[:1], [column.width for column in columns]),
        )
        for group, floors in stages:
            while over > 0:
                shrinkable = [i for i in group if widths[i] > floors[i]]
                if not shrinkable:
                    break
                for i in shrinkable:
                    if over > 0 and widths[i] > floors[i]:
                        widths[i] -= 1
                        over -= 1
        if over > 0:  # even the minimums do not fit: the line scrolls sideways
            widths = [column.width for column in columns]
            over = sum(widths) - room
        if over < 0 and flex:
            share, extra = divmod(-over, len(flex))
            for n, i in enumerate(flex):
                widths[i] += share + (1 if n < extra else 0)
        self._widths = (line_width, widths)
        return widths

    def _column_at(self, x: int) -> Column | None:
        line_width = max(self.scrollable_content_region.width, self._min_line_width)
        start = _EDGE
        for column, width in zip(self._columns, self._column_widths(line_width), strict=True):
            if start <= x < start + width + _GAP:
                return column
            start += width + _GAP
        return None

    def _style(self, component: str | None = None, *, partial: bool = False) -> Style:
        """The widget's ``rich_style`` (``component`` None) or a component's, worked out once
        per :meth:`render_lines` pass: Textual works each out from the widget's ancestors on
        every call, which was a fifth of a full table's render."""
        styles = self._pass_styles
        key = (component, partial)
        if styles is not None and (style := styles.get(key)) is not None:
            return style
        if component is None:
            style = self.rich_style
        else:
            style = self.get_component_rich_style(component, partial=partial)
        if styles is not None:
            styles[key] = style
        return style

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        line_width = max(width, self._min_line_width)
        base = self._style()
        if y == 0:
            strip = self._header_strip(line_width, base)
        else:
            position = scroll_y + y - 1
            if position < len(self._visible):
                strip = self._row_strip(position, line_width, base)
            elif not self._visible:
                return self._empty_strip(position, width, base)  # fits the view: no scroll
            else:
                return Strip.blank(width, base)
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def _line(self, cells: list[list[Segment]], line_width: int, style: Style) -> Strip:
        """Edge, cells with gaps, padding to ``line_width``: runs of one style become one
        segment (a plain row is a single segment, which the compositor handles fastest)."""
        segments: list[Segment] = []
        texts = [" " * _EDGE]
        current = style
        used = _EDGE
        gap = " " * _GAP
        for n, cell in enumerate(cells):
            if n:
                cell = [Segment(gap, style), *cell]
            for text, segment_style, _control in cell:
                if segment_style is not current and segment_style != current:
                    segments.append(Segment("".join(texts), current))
                    texts = []
                    current = segment_style
                texts.append(text)
                used += cell_len(text)
        if used < line_width:
            if current is not style and current != style:
                segments.append(Segment("".join(texts), current))
                texts = []
                current = style
            texts.append(" " * (line_width - used))
        segments.append(Segment("".join(texts), current))
        return Strip(segments, max(used, line_width))

    def _header_strip(self, line_width: int, base: Style) -> Strip:
        style = base + self._style("virtual-table--header")
        cache_key = ("header", line_width, style, self._sort_column, self._sort_reverse)
        cached = self._strip_cache.get(cache_key)
        if cached is not None:
            return cached
        cells = []
        for column, width in zip(self._columns, self._column_widths(line_width), strict=True):
            label = clean(column.label)
            if column.key == self._sort_column:
                arrow = _SORT_DOWN if self._sort_reverse else _SORT_UP
                length = cell_len(label)
                if length + 2 <= width:
                    label = f"{label} {arrow}"
                elif length + 1 <= width:
                    label += arrow
                else:
                    label = fit_plain(label, max(0, width - 1), "left").rstrip() + arrow
            cells.append([Segment(fit_plain(label, width, column.align), style)])
        strip = self._line(cells, line_width, style)
        self._strip_cache[cache_key] = strip
        return strip

    def _empty_strip(self, position: int, width: int, base: Style) -> Strip:
        """Line ``position`` of the empty-table message, word-wrapped to the visible width."""
        filtered = self._needle or self._predicate is not None
        message = "no rows match" if self._rows and filtered else clean(self._empty_message)
        room = max(1, width - 2 * _EDGE)
        lines = textwrap.wrap(message[:2000], room, break_on_hyphens=False) or [""]
        if position >= len(lines):
            return Strip.blank(width, base)
        style = base + self._style("virtual-table--empty", partial=True)
        text = fit_plain(lines[position], room).rstrip()
        return self._line([[Segment(text, style)]], width, base)

    def _row_strip(self, position: int, line_width: int, base: Style) -> Strip:
        row = self._rows[self._visible[position]]
        style = base
        if position % 2:
            style += self._style("virtual-table--odd")
        if row.key in self._marked:
            style += self._style("virtual-table--marked", partial=True)
        cursor_style = self._style("virtual-table--cursor") if position == self._cursor else None
        cache_key = (row.key, line_width, style, cursor_style)
        cached = self._strip_cache.get(cache_key)
        if cached is not None:
            return cached
        row_style = style if cursor_style is None else style + cursor_style
        cells: list[list[Segment]] = []
        values = row.cells
        for n, (column, width) in enumerate(
            zip(self._columns, self._column_widths(line_width), strict=True)
        ):
            value = values[n] if n < len(values) else ""
            if isinstance(value, Text):
                fitted = _fit_rich(value, width, column.align)
                # The cell's own colours sit on the row style; the cursor wins over both.
                cells.append(
                    [
                        Segment(segment.text, style + segment.style + cursor_style)
                        for segment in fitted.render(self.app.console, end="")
                    ]
                )
            else:
                cells.append(
                    [Segment(fit_plain(clean_cell(value), width, column.align), row_style)]
                )
        strip = self._line(cells, line_width, row_style)
        self._strip_cache[cache_key] = strip
        return strip
