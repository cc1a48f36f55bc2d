"""A big table's warm-up, and a filter typed before the warm-up is done.

A key never waits for work a thread can do. A :class:`~tui.ui.table.virtual_table.VirtualTable`
made with ``warm_up`` and given thousands of lazy rows (:class:`~tui.ui.table.rows.LazyRows`)
computes what filtering and sorting read (each row's search text and sort values) in a thread,
once the frame showing the rows has been written (started earlier, the thread would hold the
interpreter half the time while that frame is made), then the order of each column's first
sort (:class:`~tui.tables.rows.SortOrders`: a sort of 100 000 titles is longer than a frame,
and a key should not wait for it); rows a build already warmed in its own thread are taken as
they are. A sort before that computes only its column, and keeps its order for the next time.

A filter typed into a table this big before its search texts are all computed would compute
tens of thousands of them on the key, before the typed letter even shows. So the filter waits:
the line shows what was typed at once, the table's owner says "filtering…"
(:attr:`Warmup.pending`), and a thread computes the texts the warm-up has not reached (from the
bottom up, meeting the warm-up halfway); the latest query applies when they are all there, and
the table posts ``VirtualTable.Filtered``.

Both threads stand aside while keys are handled (the table's ``key_pace``). When a warm-up is
done the table posts ``VirtualTable.Warmed``: its rows live until the next ones replace them,
and the app's memory policy decides what that means (tui/ui/speed).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from textual.worker import Worker, get_current_worker

from tui.ui.table.rows import LazyRows, SortOrders, TableRow

if TYPE_CHECKING:
    from textual.app import App

__all__ = [
    "SEARCH_IN_THREAD_FROM",
    "SORT_QUIET_S",
    "WARM_FROM",
    "WarmedTable",
    "Warmup",
    "prepare_sorts",
    "warm_rows",
]

#: Rows: a table this big warms its rows in a thread after their first frame.
WARM_FROM = 2_000
#: Seconds without a key before the warm-up makes one more sort order.
SORT_QUIET_S = 0.3
#: Rows: a filter typed into a table this big before its search texts are all computed waits
#: for them in a thread.
SEARCH_IN_THREAD_FROM = 10_000


class _Pace(Protocol):
    def yield_to_keys(self) -> None: ...

    def quiet_for(self, seconds: float) -> bool: ...


class _Cancellable(Protocol):
    @property
    def is_cancelled(self) -> bool: ...


def warm_rows(rows: Sequence[TableRow], worker: _Cancellable, pace: _Pace) -> bool:
    """Compute (and cache on each row) what filtering and sorting will read, in a thread.

    Search texts first (a "/" is the likelier first key), then sort values. Returns False if
    ``worker`` was cancelled on the way (newer rows replaced these).
    """
    if isinstance(rows, LazyRows):
        # the row objects first (the passes below then index a list), a piece at a time: made
        # in one go, 50 000 of them held the interpreter long enough that a key typed at the
        # first paint (when this starts) was handled at half speed meanwhile
        for start in range(0, len(rows), 1024):
            if worker.is_cancelled:
                return False
            pace.yield_to_keys()
            rows.make(start, start + 1024)
        rows = rows.all()
    for field in ("haystack", "sort_values"):
        for start in range(0, len(rows), 512):
            if worker.is_cancelled:
                return False
            pace.yield_to_keys()  # a key being handled gets the GIL to itself
            for row in rows[start : start + 512]:
                getattr(row, field)  # computed and cached by the property
    return True


def prepare_sorts(
    orders: SortOrders, sorts: Sequence[tuple[int, bool]], worker: _Cancellable, pace: _Pace
) -> bool:
    """Make each of ``sorts`` ((column, reverse)) in ``orders``, in a thread, once the rows'
    sort values are computed: one sort at a time, each once no key has come for
    :data:`SORT_QUIET_S` (a sort holds the interpreter from start to end: tens of ms at 50 000
    rows, which a key typed meanwhile would wait through). Returns False if ``worker`` was
    cancelled on the way."""
    for column, reverse in sorts:
        while not pace.quiet_for(SORT_QUIET_S):
            if worker.is_cancelled:
                return False
            time.sleep(0.02)
        if worker.is_cancelled:
            return False
        pace.yield_to_keys()
        orders.prepare(column, reverse)
    return True


class _Workers(Protocol):
    def cancel_group(self, node: Any, group: str) -> object: ...


class WarmedTable(Protocol):
    """What a warm-up reads and calls on its table (a ``VirtualTable``; named by shape, so this
    module does not import the table that imports it)."""

    @property
    def rows(self) -> Sequence[TableRow]: ...

    @property
    def filter_query(self) -> str: ...

    @property
    def key_pace(self) -> _Pace: ...

    @property
    def sort_orders(self) -> SortOrders: ...

    def first_sorts(self) -> list[tuple[int, bool]]: ...

    @property
    def app(self) -> App[Any]: ...

    @property
    def workers(self) -> _Workers: ...

    def call_after_paint(self, callback: Callable[[], object]) -> None: ...

    def run_worker(
        self,
        work: Callable[[], None],
        *,
        group: str,
        description: str,
        exit_on_error: bool,
        exclusive: bool,
        thread: bool,
    ) -> Worker[None]: ...


class Warmup:
    """The warm-up and the waiting filter of one table (the table holds one).

    Runs its threads as the table's workers; tells the table, on the event loop, when the rows
    are warmed (``warmed``) and when a waiting filter is to apply (``apply``)."""

    def __init__(
        self,
        table: WarmedTable,
        *,
        warm_up: bool,
        warmed: Callable[[Sequence[TableRow]], None],
        apply: Callable[[str], None],
    ) -> None:
        self._table = table
        self._warm_up = warm_up  # warm thousands of lazy rows after their first frame
        self._warmed = warmed
        self._apply = apply
        self._rows: Sequence[TableRow] | None = None  # the rows last given
        #: The rows whose search texts are all computed (warmed, or searched for a filter).
        self._searchable: Sequence[TableRow] | None = None
        #: The filter typed while the search texts were still being computed, or None.
        self.pending: str | None = None
        self._search_worker: Worker[None] | None = None  # computing them for a waiting filter
        self._search_starting = False  # that worker starts after the next frame

    # ------------------------------------------------------------------ new rows

    def rows_set(self, rows: Sequence[TableRow], *, warmed: bool) -> None:
        """The table has new ``rows``: already ``warmed`` (by a build thread), warmed from the
        frame after this one if they are thousands of lazy rows, or else read as they are."""
        if rows is self._rows:
            return  # the same rows again (new marks): nothing to compute
        self._rows = rows
        self.cancel()
        if warmed:
            self._warm_done(rows)
        elif self._warm_up and isinstance(rows, LazyRows) and len(rows) >= WARM_FROM:
            self._table.call_after_paint(lambda: self._start_warm(rows))

    def cancel(self) -> None:
        """Stop warming rows that newer ones are about to replace."""
        table = self._table
        table.workers.cancel_group(table, "table-warm")

    def _start_warm(self, rows: Sequence[TableRow]) -> None:
        table = self._table
        if rows is not table.rows:
            return  # replaced before their first frame was out
        orders, sorts = table.sort_orders, table.first_sorts()
        table.run_worker(
            lambda: self._warm_in_thread(rows, orders, sorts),
            thread=True,
            exclusive=True,
            group="table-warm",
            exit_on_error=False,
            description="compute the search text and sort values of every row, and the sorts",
        )

    def _warm_in_thread(
        self, rows: Sequence[TableRow], orders: SortOrders, sorts: Sequence[tuple[int, bool]]
    ) -> None:
        worker, pace = get_current_worker(), self._table.key_pace
        if warm_rows(rows, worker, pace) and prepare_sorts(orders, sorts, worker, pace):
            self._table.app.call_from_thread(self._warm_done, rows)

    def _warm_done(self, rows: Sequence[TableRow]) -> None:
        self._search_texts_ready(rows)
        if rows is self._table.rows:
            self._warmed(rows)

    # ------------------------------------------------------------------ a filter typed early

    def waits(self, query: str) -> bool:
        """Whether ``query`` must wait for the rows' search texts (then it is kept as
        :attr:`pending` and applies when they are ready); False: apply it now."""
        if not query.strip():
            self.pending = None
            return False  # clearing needs no search text: at once
        table = self._table
        rows = table.rows
        if self.pending is None and (
            len(rows) < SEARCH_IN_THREAD_FROM
            or rows is self._searchable
            or query.lower() == table.filter_query.lower()
        ):
            return False
        self.pending = query
        if not self._search_starting and (
            self._search_worker is None or self._search_worker.is_finished
        ):
            # after the frame that shows what was typed and "filtering…": started now, the
            # thread would hold the interpreter half the time while that frame is made
            self._search_starting = True
            table.call_after_paint(self._start_search)
        return True

    def _start_search(self) -> None:
        """The thread for a waiting filter, once the frame after its key is out: for the rows
        the table has now (new ones may have come meanwhile), unless they are ready by now."""
        self._search_starting = False
        if self.pending is None:
            return  # applied (the warm-up finished) or cleared meanwhile
        rows = self._table.rows
        if rows is self._searchable:
            self._search_texts_ready(rows)  # the query applies now
        elif self._search_worker is None or self._search_worker.is_finished:
            self._search_worker = self._table.run_worker(
                lambda: self._search_in_thread(rows),
                thread=True,
                exclusive=True,
                group="table-search",
                exit_on_error=False,
                description="compute the search texts a filter waits for",
            )

    def _search_in_thread(self, rows: Sequence[TableRow]) -> None:
        every: Sequence[Any] = rows.all() if isinstance(rows, LazyRows) else rows
        worker = get_current_worker()
        # from the bottom up: the warm-up goes from the top down, so the two meet halfway
        for end in range(len(every), 0, -2048):
            if worker.is_cancelled:
                return
            for row in every[max(0, end - 2048) : end]:
                row.haystack  # noqa: B018 - computed and cached by the property
        if not worker.is_cancelled:
            self._table.app.call_from_thread(self._search_texts_ready, rows)

    def _search_texts_ready(self, rows: Sequence[TableRow]) -> None:
        """Every search text of ``rows`` is computed (by the warm-up or for a waiting filter)."""
        if rows is not self._table.rows:
            if self.pending is not None:  # new rows came meanwhile: their turn
                query, self.pending = self.pending, None
                if not self.waits(query):
                    self._apply(query)
            return
        self._searchable = rows
        if self.pending is not None:
            query, self.pending = self.pending, None
            self._apply(query)
