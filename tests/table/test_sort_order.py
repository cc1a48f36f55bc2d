"""The table's sort order, its ranks and where a row is among the rows shown."""

from __future__ import annotations

from tui.ui.table.rows import Ranks, Row, position_of, sort_order


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
