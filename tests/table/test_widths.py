"""How a table's columns share its width (tui/ui/table/rows.py: ``fit_widths``): a number is
never cut, text columns give way first, then an optional column is hidden."""

from __future__ import annotations

from tui.ui.table.layout import ColumnLayout
from tui.ui.table.rows import Column, Row, content_widths, fit_widths, line_length

COLUMNS = (
    Column("id", "id", 10),
    Column("text", "text", 12, flex=True),
    Column("kind", "kind", 8, optional=True),
    Column("count", "count", 7, align="right"),
)
ROWS = [Row("a", ("agent-number-one", "a long piece of text", "zion", "1,234,567"), ())]


def test_fit_widths_cuts_text_then_drops_it_before_a_number():
    columns, rows = COLUMNS, ROWS
    content = content_widths(columns, rows)
    assert content == [16, 20, 4, 9]
    roomy = fit_widths(columns, content, 120)
    assert roomy[0] == 16 and roomy[2] >= 4 and roomy[3] == 9  # content whole
    assert line_length(roomy) == 120  # the free text takes the spare width
    short = fit_widths(columns, content, 50)
    assert short == [16, 12, 8, 9]  # the free text at its minimum, the rest whole
    tight = fit_widths(columns, content, 40)
    assert tight == [16, 11, 0, 9]  # the optional column goes before the text is cut further
    assert line_length(tight) == 40
    assert fit_widths(columns, content, 30) == [11, 6, 0, 9]  # text cut, never the number
    assert fit_widths(columns, content, 20) == [8, 0, 0, 9]  # then dropped, free text first
    for width in range(14, 40):
        widths = fit_widths(columns, content, width)
        assert widths[3] == 9 and line_length(widths) <= width, (width, widths)
    narrowest = fit_widths(columns, content, 0)
    assert narrowest == [0, 0, 0, 9]  # only the number is left: the line scrolls sideways


def test_fit_widths_keeps_the_arrow_room_of_the_sorted_column_only():
    columns = (
        Column("name", "name", 8, flex=True),
        Column("karma", "karma", 7, align="right"),
        Column("posts", "posts", 7, align="right"),
    )
    content = [30, 3, 3]
    unsorted = fit_widths(columns, content, 30)
    assert unsorted[1:] == [5, 5]  # "karma" and "posts": no room kept for an arrow
    by_karma = fit_widths(columns, content, 30, sorted_column=1)
    assert by_karma[1:] == [7, 5]  # "karma ▲"


def test_hidden_columns_are_width_0_and_the_shown_ones_fit_as_if_alone():
    columns, rows = COLUMNS, ROWS
    layout = ColumnLayout(columns)
    layout.measure(rows)
    layout.hide(frozenset({1}))  # the free text hidden
    widths, line, _ = layout.fit(40, 3)
    assert widths[1] == 0 and widths[3] == 9  # the number whole
    shown = (0, 2, 3)
    content = [layout.content[i] for i in shown]
    alone = fit_widths([columns[i] for i in shown], content, 40, sorted_column=2)
    assert [widths[i] for i in shown] == alone and line == 40
    layout.hide(frozenset({0, 1, 2}))  # the number alone, in a view too narrow for it
    widths, line, _ = layout.fit(6, None)
    assert widths == [0, 0, 0, 9] and line == line_length(widths) > 6  # it scrolls, uncut
    assert layout.narrowest_line() == line_length([9])
