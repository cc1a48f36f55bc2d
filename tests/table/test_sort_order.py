"""The table's sort order, its ranks and where a row is among the rows shown."""

from __future__ import annotations

import threading

from tui.ui.table.rows import Ranks, Row, SortOrders, position_of, sort_order


def rows(*values: object) -> list[Row]:
    return [Row(key=f"r{n}", cells=(str(v),), sort_values=(v,)) for n, v in enumerate(values)]


def test_a_sort_is_stable_and_puts_missing_values_last_both_ways():
    table = rows(3, None, 1, 3, None, 2)
    order, ranks = sort_order(table, 0, reverse=False)
    assert order == [2, 5, 0, 3, 1, 4]
    assert [ranks[i] for i in range(6)] == [2, 4, 0, 3, 5, 1]
    order, _ = sort_order(table, 0, reverse=True)
    assert order == [0, 3, 5, 2, 1, 4]  # equal values keep their order reversed too


def test_values_that_do_not_compare_still_sort():
    order, _ = sort_order(rows(2, "b", 1, "a"), 0, reverse=False)
    assert order == [2, 0, 3, 1]  # by type name, then text


def test_ranks_are_the_inverse_of_the_order():
    order = [4, 0, 3, 1, 2]
    ranks = Ranks(order)
    assert len(ranks) == 5
    assert [ranks[i] for i in range(5)] == [1, 3, 4, 2, 0]
    assert [order[ranks[i]] for i in range(5)] == list(range(5))


def test_the_data_order_is_its_own_rank_table():
    order, ranks = sort_order(rows(5, 4, 3), None, reverse=True)
    assert order == [2, 1, 0] and ranks == [2, 1, 0]


def test_a_row_is_found_among_the_rows_shown_or_where_it_would_be():
    order = [4, 0, 3, 1, 2]
    ranks = Ranks(order)
    shown = [4, 3, 2]  # a filter left these, in sort order
    assert position_of(shown, ranks, 3) == 1
    assert ranks._ranks is None  # a row on view needs no rank table
    assert position_of(shown, ranks, 0) == 1  # hidden, between rows 4 and 3
    assert position_of(shown, ranks, 1) == 2
    assert position_of(shown, ranks, 2) == 2


def test_sort_orders_give_what_a_sort_gives_and_make_each_once(monkeypatch):
    """A sort by a column sorted by before (or prepared by the warm-up) costs no sort: the
    order is kept (the data order too), and handed out as it is kept, to be read."""
    import tui.tables.rows as headless

    table = rows(3, None, 1, 3, None, 2)
    orders = SortOrders(table)
    sorts: list[tuple[int | None, bool]] = []
    real = headless.sort_order

    def counted(rows_, column, reverse):
        sorts.append((column, reverse))
        return real(rows_, column, reverse)

    monkeypatch.setattr(headless, "sort_order", counted)
    for column in (0, None):
        for reverse in (False, True, False, True):
            order, ranks = orders.get(column, reverse)
            expected, expected_ranks = real(table, column, reverse)
            assert list(order) == expected
            assert [ranks[i] for i in range(6)] == [expected_ranks[i] for i in range(6)]
    # each order made once, the rows' own order too, and handed out as it is kept
    assert sorts == [(0, False), (0, True), (None, False), (None, True)]
    assert orders.get(0, False)[0] is orders.get(0, False)[0]
    assert list(orders.get(None, True)[0]) == [5, 4, 3, 2, 1, 0]
    assert orders.prepared() == {(0, False), (0, True)}  # the sorts, not the data order


def test_a_thread_prepares_sort_orders_the_table_then_reads():
    table = rows(*range(2000, 0, -1))
    orders = SortOrders(table)
    worker = threading.Thread(target=orders.prepare, args=(0, False))
    worker.start()
    worker.join()
    assert orders.prepared() == {(0, False)}
    assert list(orders.get(0, False)[0]) == list(range(1999, -1, -1))
    orders.prepare(0, False)  # made already: nothing to do
    assert orders.prepared() == {(0, False)}


def test_the_warm_up_makes_a_sort_only_once_no_key_has_come_for_a_moment(monkeypatch):
    """A sort holds the interpreter from start to end: the warm-up makes one only in a quiet
    moment, and gives up waiting when its rows are replaced."""
    from tui.ui.table import warmup

    monkeypatch.setattr(warmup.time, "sleep", lambda _s: None)

    class Pace:
        def __init__(self, busy: int) -> None:
            self.busy = busy  # how many more times a key is said to have come just now

        def quiet_for(self, seconds: float) -> bool:
            assert seconds == warmup.SORT_QUIET_S
            self.busy -= 1
            return self.busy < 0

        def yield_to_keys(self) -> None:
            pass

    class Worker:
        is_cancelled = False

    orders = SortOrders(rows(3, 1, 2))
    pace = Pace(busy=5)
    assert warmup.prepare_sorts(orders, [(0, False)], Worker(), pace)
    assert pace.busy < 0 and orders.prepared() == {(0, False)}

    class CancelledWhileWaiting:
        def __init__(self, pace: Pace) -> None:
            self.pace = pace

        @property
        def is_cancelled(self) -> bool:
            return self.pace.busy < 3  # replaced while keys were still coming

    waiting = SortOrders(rows(3, 1, 2))
    pace = Pace(busy=10)
    assert not warmup.prepare_sorts(waiting, [(0, True)], CancelledWhileWaiting(pace), pace)
    assert waiting.prepared() == set()
