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
own code. The rows themselves (:class:`Row`, :class:`LazyRow`, :class:`LazyRows`) are in
:mod:`tui.ui.table.rows`; this module's names include them.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, ClassVar

# Textual imports its scroll bars the first time a widget needs one (a big table's first paint
# of rows, while its build thread holds the interpreter, the import's reads wait): import here.
import textual.scrollbar  # noqa: F401
from rich.cells import cell_len
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

from tui.ui.table.key_pace import KeyPace
from tui.ui.table.layout import ColumnLayout
from tui.ui.table.redraw import redraw_changed
from tui.ui.table.rows import (
    EDGE,
    GAP,
    Column,
    LazyRow,
    LazyRows,
    Row,
    SortOrders,
    TableRow,
    default_haystack,
    fit_plain,
    fit_rich,
    position_of,
)
from tui.ui.table.strips import join_line
from tui.ui.table.warmup import Warmup
from tui.ui.textual_compat import OwnVirtualSize
from tui.ui.widgets.vim import vim_bindings
from tui.untrusted import clean, clean_cell

__all__ = ["Column", "LazyRow", "LazyRows", "Row", "TableRow", "VirtualTable"]
_VIM_IDS = {m: m for m in ("half_down", "half_up")} | {
    "down": "vim_down",
    "up": "vim_up",
    "top": "vim_first",
    "bottom": "vim_last",
}
_SORT_UP = "\u25b2"
_SORT_DOWN = "\u25bc"
_SAMPLE = 256  # rows measured for the content width of the columns


class VirtualTable(OwnVirtualSize, ScrollView, can_focus=True):
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
        *vim_bindings(
            {
                "down": "cursor_down",
                "up": "cursor_up",
                "top": "cursor_first",
                "bottom": "cursor_last",
                "half_down": "half_page(1)",
                "half_up": "half_page(-1)",
            },
            scope="virtual_table",
            ids=_VIM_IDS,
            names={"top": "First row", "bottom": "Last row"},
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

    @dataclass(eq=False)
    class _TableMessage(Message):
        """A message about this table (its ``control``); never posted as such."""

        table: VirtualTable

        @property
        def control(self) -> VirtualTable:
            return self.table

    @dataclass(eq=False)
    class _RowMessage(_TableMessage):
        """A message about one row, addressed by its key."""

        key: str

    class Highlighted(_RowMessage):
        """The cursor moved to a different row (posted only when the row key changes)."""

    class Selected(_RowMessage):
        """A row was chosen with enter or a click."""

    class Filtered(_TableMessage):
        """A filter that waited for the rows' search texts applies now
        (:meth:`VirtualTable.type_filter`): the owner's summary may change."""

    @dataclass(eq=False)
    class Warmed(_TableMessage):
        """The table's ``rows`` have computed what filtering and sorting read (a warm-up):
        they live until the next rows replace them (the app's memory policy may freeze them)."""

        rows: int

    @dataclass(eq=False)
    class Sorted(_TableMessage):
        """The sort changed (``s``/``S`` on the screen, or a click on a column header)."""

        column_key: str | None
        reverse: bool

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        name: str | None = None,
        id: str | None = None,  # noqa: A002 - Textual's own parameter name
        classes: str | None = None,
        warm_up: bool = False,
    ) -> None:
        """``warm_up``: thousands of lazy rows are warmed in a thread after their first frame
        (tui/ui/table/warmup.py); else every field is computed when first read."""
        super().__init__(name=name, id=id, classes=classes)
        if not columns:
            raise ValueError("a VirtualTable needs at least one column")
        self._columns: tuple[Column, ...] = tuple(columns)
        self._column_index = {column.key: i for i, column in enumerate(self._columns)}
        self._rows: Sequence[TableRow] = []
        self._orders = SortOrders(self._rows)  # each sort order of these rows, made once
        self._key_index: dict[str, int] | None = {}  # built on first use after set_rows
        self._haystacks: list[str] | None = None  # built by the first filter after set_rows
        self._marked: frozenset[str] = frozenset()
        self._order: Sequence[int] = []  # row indices in sort order
        self._rank: Sequence[int] = []  # row index -> position in _order
        self._visible: Sequence[int] = []  # row indices shown, in sort order
        self._cursor = 0  # position in _visible
        self._highlighted_key: str | None = None  # last key announced with Highlighted
        self._filter_query = ""
        self._needle = ""
        self._predicate: Callable[[str], bool] | None = None
        self._sort_column: str | None = None
        self._sort_reverse = False
        self._strip_cache: LRUCache[tuple[Any, ...], Strip] = LRUCache(1024)
        self._layout = ColumnLayout(self._columns)
        self._empty_message = "no data yet"
        self._after_paint: list[Callable[[], object]] = []
        self._pass_styles: dict[tuple[str | None, bool], Style] | None = None  # see _style
        #: When keys come: the warm-up stands aside meanwhile (the owner hands its own).
        self.key_pace = KeyPace()
        self._warmup = Warmup(
            self, warm_up=warm_up, warmed=self._rows_warmed, apply=self._apply_waiting_filter
        )
        self._update_virtual_size()

    # ------------------------------------------------------------------ read-only state

    @property
    def columns(self) -> tuple[Column, ...]:
        return self._columns

    @property
    def shown_columns(self) -> tuple[Column, ...]:
        """The columns not hidden by :meth:`hide_columns` (a narrow view may still drop some)."""
        return tuple(c for n, c in enumerate(self._columns) if n not in self._layout.hidden)

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
    def rows(self) -> Sequence[TableRow]:
        """The rows given to :meth:`set_rows` (a :class:`LazyRows` as it was given)."""
        return self._rows

    @property
    def filter_pending(self) -> str | None:
        """A filter typed while the search texts of this big table were still being computed
        (it applies when they are: :class:`Filtered`), or None."""
        return self._warmup.pending

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
        """Draw every row again (after :meth:`LazyRows.retime`); only changed lines are sent."""
        redraw_changed(self, self._strip_cache.clear)

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

    def hide_columns(self, keys: Collection[str]) -> None:
        """Hide the columns ``keys`` (the others shown); the shown ones are fitted as before
        (a number is never cut). ValueError for an unknown key or when none would be shown."""
        hidden = frozenset(self._column_index[key] for key in keys if key in self._column_index)
        if len(hidden) < len(set(keys)) or len(hidden) == len(self._columns):
            raise ValueError("unknown columns, or none left shown")
        if hidden != self._layout.hidden:
            self._layout.hide(hidden)
            self._strip_cache.clear()
            self._update_virtual_size()
            self.refresh()

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

    def set_rows(
        self, rows: Iterable[TableRow], *, marked: Collection[str] = (), warmed: bool = False
    ) -> None:
        """Replace the data by key, keeping cursor key, scroll, filter, predicate and sort.

        If the cursor's row is gone the cursor falls to its nearest surviving neighbour (the next
        row, else the previous one). ``marked`` rows are drawn with the "new/changed" style until
        the next call. Only the keys are read here (plus the sort values or haystacks when a sort
        or filter is active); cells are read when a row is drawn. :class:`LazyRows` are kept as
        they are: a row is made when it is first read. Thousands of rows are warmed in a thread
        after their first frame, unless a build has ``warmed`` them (tui/ui/table/warmup.py).
        """
        old_rows, old_visible, old_cursor = self._rows, self._visible, self._cursor
        old_key = self.cursor_key
        self._rows = rows if isinstance(rows, LazyRows) else list(rows)  # lazy rows stay lazy
        if self._rows is not old_rows:
            self._orders = SortOrders(self._rows)
        self._key_index = None  # built when first needed, not before the first paint
        self._haystacks = None
        self._marked = frozenset(marked)
        self._strip_cache.clear()
        self._layout.reset()
        self._sort()
        self._filter(narrowing=False)

        def neighbours() -> Iterator[str]:
            after = range(old_cursor + 1, len(old_visible))
            before = range(old_cursor - 1, -1, -1)
            return (old_rows[old_visible[i]].key for i in chain(after, before))

        self._restore_cursor(old_key, neighbours(), old_cursor)
        self._changed()
        self._warmup.rows_set(self._rows, warmed=warmed)

    def cancel_warm_up(self) -> None:
        """Stop warming the rows on view: newer ones are being built (and warmed) elsewhere."""
        self._warmup.cancel()

    def type_filter(self, query: str) -> None:
        """A filter typed by a person: applied now, or, in a big table whose search texts are
        not all computed yet, as soon as they are (:attr:`filter_pending` until then; the
        table posts :class:`Filtered` when it applies)."""
        if not self._warmup.waits(query):
            self.set_filter(query)

    def _apply_waiting_filter(self, query: str) -> None:
        self.set_filter(query)
        self.post_message(self.Filtered(self))

    def _rows_warmed(self, rows: Sequence[TableRow]) -> None:
        self.post_message(self.Warmed(self, len(rows)))

    def set_filter(self, query: str) -> None:
        """Show rows whose haystack contains ``query`` (case-insensitive) now; ``""`` clears. A
        filter still waiting for search texts (:meth:`type_filter`) is dropped."""
        self._warmup.pending = None
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
        old_cursor = self._cursor
        old_index = self._visible[old_cursor] if self._visible else None  # no key index needed
        self._predicate = predicate
        self._filter(narrowing=False)
        self._restore_cursor(None, iter(()), old_cursor, old_index)
        self._changed()

    def sort_by(self, column_key: str | None, reverse: bool = False) -> None:
        """Sort by a column (``None`` restores the order given to ``set_rows``); stable. The
        cursor goes to the first row and the view to the top.

        Rows whose sort value is ``None`` come last in both directions.
        """
        if column_key is not None and column_key not in self._column_index:
            raise ValueError(
                f"unknown column {column_key!r}: use one of {list(self._column_index)}"
            )
        self._sort_column = column_key
        self._sort_reverse = reverse
        self._sort()
        self._filter(narrowing=False)
        # a new order is read from its top: the row the cursor was on would now sit among rows
        # it has nothing to do with, somewhere in the middle
        self._cursor = 0
        self.scroll_to(y=0, animate=False, force=True)
        self._changed()
        self.post_message(self.Sorted(self, column_key, reverse))

    @property
    def sort_orders(self) -> SortOrders:  # of the rows on view: the warm-up makes the first ones
        return self._orders

    def first_sorts(self) -> list[tuple[int, bool]]:
        """(column, reverse) of each column's first sort: what ``s`` and a column's key give."""
        return [(i, self.first_direction(c.key)) for i, c in enumerate(self._columns)]

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

    def reverse_sort(self) -> None:
        """``S``: the other direction of the sort, or the first column reversed if unsorted."""
        if self._sort_column is None:
            self.sort_by(self._columns[0].key, reverse=True)
        else:
            self.toggle_sort_direction()

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
        column = self._column_index.get(self._sort_column) if self._sort_column else None
        self._order, self._rank = self._orders.get(column, self._sort_reverse)

    def _filter(self, *, narrowing: bool) -> None:
        source = self._visible if narrowing else self._order
        needle = self._needle
        predicate = self._predicate
        haystacks = self._haystack_list() if needle else []
        if predicate is not None:
            rows = self._rows
            # a lazy table's keys as they are: no row made to read its key
            keys = rows.keys if isinstance(rows, LazyRows) else [row.key for row in rows]
            if needle:
                self._visible = [i for i in source if needle in haystacks[i] and predicate(keys[i])]
            else:
                self._visible = [i for i in source if predicate(keys[i])]
        elif needle:
            self._visible = [i for i in source if needle in haystacks[i]]
        else:
            self._visible = source

    def _haystack_list(self) -> list[str]:
        """The lower-cased search text of every row, by row index (built once per set_rows)."""
        if self._haystacks is None:
            self._haystacks = [row.haystack or default_haystack(row) for row in self._rows]
        return self._haystacks

    def _position_of(self, index: int) -> int:
        """Where row ``index`` is, or would be, among the visible rows (they are in rank order)."""
        return position_of(self._visible, self._rank, index)

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
        # the columns are measured when first drawn (render_line then calls this again)
        width = self._layout.narrowest_line()
        self.virtual_size = Size(width, 1 + max(1, len(self._visible)))

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
        self._update_virtual_size()
        self._scroll_cursor_into_view()

    # ------------------------------------------------------------------ rendering

    def _column_widths(self, width: int) -> tuple[list[int], int]:
        """The columns' widths in a view ``width`` cells wide (0: dropped) and the width of
        their line (:class:`ColumnLayout`), measured on the rows in view when first drawn (once
        per ``set_rows``; only rows that are drawn anyway are read, so lazy rows stay lazy)."""
        layout = self._layout
        if layout.content is None:
            top = max(0, round(self.scroll_y))
            height = max(1, self.scrollable_content_region.height)
            in_view = self._visible[top : top + min(height, _SAMPLE)]
            layout.measure(self._rows[i] for i in in_view)
        widths, line, changed = layout.fit(width, self._column_index.get(self._sort_column or ""))
        if changed:
            self._strip_cache.clear()
        return widths, line

    def _column_at(self, x: int) -> Column | None:
        widths, _ = self._column_widths(self.scrollable_content_region.width)
        start = EDGE
        for column, width in zip(self._columns, widths, strict=True):
            if not width:
                continue
            if start <= x < start + width + GAP:
                return column
            start += width + GAP
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
        widths, line = self._column_widths(width)  # worked out before a row can widen them
        base = self._style()
        if y == 0:
            strip = self._header_strip(widths, line, base)
        else:
            position = scroll_y + y - 1
            if position < len(self._visible):
                strip = self._row_strip(position, width, base)
            elif not self._visible:
                return self._empty_strip(position, width, base)  # fits the view: no scroll
            else:
                return Strip.blank(width, base)
        if self._layout.narrowest_line() != self.virtual_size.width:
            self.call_later(self._update_virtual_size)
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def _header_strip(self, widths: list[int], line_width: int, base: Style) -> Strip:
        style = base + self._style("virtual-table--header")
        cache_key = ("header", line_width, style, self._sort_column, self._sort_reverse)
        cached = self._strip_cache.get(cache_key)
        if cached is not None:
            return cached
        cells = []
        for column, width in zip(self._columns, widths, strict=True):
            if not width:
                continue
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
        strip = join_line(cells, line_width, style)
        self._strip_cache[cache_key] = strip
        return strip

    def _empty_strip(self, position: int, width: int, base: Style) -> Strip:
        """Line ``position`` of the empty-table message, word-wrapped to the visible width."""
        filtered = self._needle or self._predicate is not None
        message = "no rows match" if self._rows and filtered else clean(self._empty_message)
        room = max(1, width - 2 * EDGE)
        lines = textwrap.wrap(message[:2000], room, break_on_hyphens=False) or [""]
        if position >= len(lines):
            return Strip.blank(width, base)
        style = base + self._style("virtual-table--empty", partial=True)
        text = fit_plain(lines[position], room).rstrip()
        return join_line([[Segment(text, style)]], width, base)

    def _row_strip(self, position: int, width: int, base: Style) -> Strip:
        row = self._rows[self._visible[position]]
        style = base
        if position % 2:
            style += self._style("virtual-table--odd")
        if row.key in self._marked:
            style += self._style("virtual-table--marked", partial=True)
        cursor_style = self._style("virtual-table--cursor") if position == self._cursor else None
        cache_key = (row.key, width, style, cursor_style)
        cached = self._strip_cache.get(cache_key)
        if cached is not None:
            return cached
        values = row.cells
        if self._layout.widen(values):
            self._strip_cache.clear()  # lines drawn at the old widths
            self.refresh()  # the lines drawn before this one, at the columns' new widths
        widths, line_width = self._column_widths(width)
        row_style = style if cursor_style is None else style + cursor_style
        cells: list[list[Segment]] = []
        for n, (column, column_width) in enumerate(zip(self._columns, widths, strict=True)):
            if not column_width:
                continue
            value = values[n] if n < len(values) else ""
            if isinstance(value, Text):
                fitted = fit_rich(value, column_width, column.align)
                # The cell's own colours sit on the row style; the cursor wins over both.
                cells.append(
                    [
                        Segment(segment.text, style + segment.style + cursor_style)
                        for segment in fitted.render(self.app.console, end="")
                    ]
                )
            else:
                cells.append(
                    [Segment(fit_plain(clean_cell(value), column_width, column.align), row_style)]
                )
        strip = join_line(cells, line_width, row_style)
        self._strip_cache[cache_key] = strip
        return strip
