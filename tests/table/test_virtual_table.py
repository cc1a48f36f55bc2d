"""VirtualTable driven the way a person uses it: keys, clicks, filters, refreshes, hostile data."""

from __future__ import annotations

from collections.abc import Iterable
from types import EllipsisType
from typing import Any

import pytest
from rich.cells import cell_len, get_character_cell_size
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.message import Message

from tui.ui.table.virtual_table import Column, LazyRow, LazyRows, Row, VirtualTable

COLUMNS = (
    Column("id", "ID", 6),
    Column("name", "Name", 12, flex=True),
    Column("status", "Status", 8),
    Column("karma", "Karma", 7, align="right"),
)
STATUSES = ("active", "idle", "dormant")


def make_row(i: int, *, karma: int | None | EllipsisType = ..., name: str = "") -> Row:
    """Agent-like row ``a{i}``; ``karma=None`` is a missing value (shown as a dash)."""
    karma = i * 7 % 13 if karma is ... else karma
    name = name or f"agent {i}"
    status = STATUSES[i % 3]
    return Row(
        key=f"a{i}",
        cells=(f"a{i}", name, status, "–" if karma is None else str(karma)),
        sort_values=(i, name, status, karma),
        haystack=f"a{i} {name} {status}".lower(),
    )


def make_rows(count: int) -> list[Row]:
    return [make_row(i) for i in range(count)]


class TableApp(App[None]):
    """A screen with one table, recording the table's messages in order."""

    def __init__(
        self, rows: Iterable[Row] = (), marked: Iterable[str] = (), *, warm_up: bool = False
    ) -> None:
        super().__init__()
        self.warm_up = warm_up
        self.initial_rows = rows if isinstance(rows, LazyRows) else list(rows)
        self.initial_marked = list(marked)
        self.events: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, id="table", warm_up=self.warm_up)

    def on_mount(self) -> None:
        table = self.query_one(VirtualTable)
        table.set_rows(self.initial_rows, marked=self.initial_marked)
        table.focus()

    def on_virtual_table_highlighted(self, message: VirtualTable.Highlighted) -> None:
        self.events.append(("highlighted", message.key))

    def on_virtual_table_selected(self, message: VirtualTable.Selected) -> None:
        self.events.append(("selected", message.key))


def full_width_rows(table: VirtualTable, count: int) -> list[str]:
    """The text of the first ``count`` rows as drawn, each checked to fill the table's width."""
    width = table.scrollable_content_region.width
    texts = []
    for y in range(1, count + 1):
        strip = table.render_line(y)
        text = "".join(segment.text for segment in strip)
        assert strip.cell_length == cell_len(text) == width, (y, text)
        texts.append(text)
    return texts


def screen_lines(table: VirtualTable) -> list[str]:
    return [table.render_line(y).text for y in range(table.size.height)]


async def test_navigation_keys_move_the_cursor_and_scroll_it_into_view() -> None:
    app = TableApp(make_rows(100))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        assert table.cursor_key == "a0"
        await pilot.press("down", "down")
        assert table.cursor_key == "a2"
        await pilot.press("up")
        assert table.cursor_key == "a1"
        await pilot.press("up", "up")  # stops at the top
        assert table.cursor_key == "a0"

        page = table.size.height - 1  # the header does not scroll
        await pilot.press("pagedown")
        assert table.cursor_row == page
        assert table.scroll_y > 0
        assert table.scroll_y <= table.cursor_row < table.scroll_y + page
        await pilot.press("pageup")
        assert table.cursor_key == "a0"

        await pilot.press("end")
        assert table.cursor_key == "a99"
        assert table.scroll_y == table.max_scroll_y
        await pilot.pause()
        assert "a99" in screen_lines(table)[-1]
        await pilot.press("home")
        assert table.cursor_key == "a0"
        assert table.scroll_y == 0


async def test_bindings_have_stable_ids() -> None:
    ids = {binding.id for binding in VirtualTable.BINDINGS}
    assert {
        "virtual_table.cursor_up",
        "virtual_table.cursor_down",
        "virtual_table.page_up",
        "virtual_table.page_down",
        "virtual_table.first",
        "virtual_table.last",
        "virtual_table.select",
    } <= ids


async def test_filter_narrows_and_clears() -> None:
    app = TableApp(make_rows(200))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        table.set_filter("AGENT 1")  # case-insensitive
        expected = [f"a{i}" for i in range(200) if f"agent {i}".startswith("agent 1")]
        assert table.visible_keys() == expected
        assert table.row_count == len(expected)
        assert table.total_count == 200
        assert table.filter_query == "AGENT 1"
        table.set_filter("agent 19")  # one more character narrows further
        assert table.visible_keys() == ["a19", "a190", "a191", "a192", "a193", "a194"] + [
            f"a{i}" for i in range(195, 200)
        ]
        table.set_filter("agent 1")  # widening again finds the rows dropped before
        assert table.visible_keys() == expected
        table.set_filter("no such agent")
        assert table.row_count == 0
        assert table.cursor_key is None
        await pilot.pause()
        assert "no rows match" in screen_lines(table)[1]
        table.set_filter("")
        assert table.row_count == 200
        assert table.filter_query == ""


async def test_filter_keeps_the_cursor_row_or_moves_to_the_next_match() -> None:
    app = TableApp(make_rows(50))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        assert table.move_cursor_to("a12")
        table.set_filter("idle")  # a12 is active: the next idle row after it is a13
        assert table.cursor_key == "a13"
        table.set_filter("")
        assert table.cursor_key == "a13"
        await pilot.pause()


async def test_predicate_filters_by_key_and_combines_with_the_text_filter() -> None:
    app = TableApp(make_rows(30))
    async with app.run_test(size=(80, 24)):
        table = app.query_one(VirtualTable)
        assert table.move_cursor_to("a6")
        table.set_predicate(lambda key: int(key[1:]) % 2 == 0)
        assert table.row_count == 15
        assert table.cursor_key == "a6"  # still shown: the cursor stays on it
        table.set_predicate(lambda key: int(key[1:]) % 3 == 0)
        assert table.cursor_key == "a6"
        table.set_predicate(lambda key: int(key[1:]) % 2 == 0)
        table.set_filter("agent 1")
        assert table.visible_keys() == ["a10", "a12", "a14", "a16", "a18"]
        table.set_predicate(None)
        assert table.row_count == 11  # agent 1, 10..19
        assert not table.move_cursor_to("a2")  # filtered out
        assert not table.move_cursor_to("nope")


async def test_sort_cycle_reverse_and_none_last() -> None:
    rows = [
        make_row(0, karma=5),
        make_row(1, karma=None),
        make_row(2, karma=1),
        make_row(3, karma=5),
        make_row(4, karma=9),
    ]
    app = TableApp(rows)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        assert table.sort_column is None
        seen = []
        for _ in range(len(COLUMNS) + 1):
            table.cycle_sort()
            seen.append(table.sort_column)
        assert seen == ["id", "name", "status", "karma", None]

        table.sort_by("karma")
        assert table.visible_keys() == ["a2", "a0", "a3", "a4", "a1"]  # stable, None last
        await pilot.pause()
        assert "Karma ▲" in screen_lines(table)[0]
        table.toggle_sort_direction()
        assert table.sort_reverse
        assert table.visible_keys() == ["a4", "a0", "a3", "a2", "a1"]  # still stable, None last
        await pilot.pause()
        assert "Karma ▼" in screen_lines(table)[0]
        table.sort_by(None)
        assert table.visible_keys() == ["a0", "a1", "a2", "a3", "a4"]
        with pytest.raises(ValueError, match="unknown column"):
            table.sort_by("nope")


async def test_header_click_sorts_by_that_column_and_announces_it() -> None:
    captured: list[Message] = []
    app = TableApp(make_rows(20))
    async with app.run_test(size=(80, 24), message_hook=captured.append) as pilot:
        table = app.query_one(VirtualTable)
        header = screen_lines(table)[0]
        await pilot.click(VirtualTable, offset=(header.index("Karma"), 0))
        assert (table.sort_column, table.sort_reverse) == ("karma", True)  # numbers: largest first
        await pilot.click(VirtualTable, offset=(header.index("Karma"), 0))
        assert (table.sort_column, table.sort_reverse) == ("karma", False)
        table.cycle_sort()  # past the last column: back to the data order
        await pilot.pause()
        assert not [m for m in captured if isinstance(m, VirtualTable.Selected)]
    sorted_messages = dict.fromkeys(m for m in captured if isinstance(m, VirtualTable.Sorted))
    assert [(m.column_key, m.reverse) for m in sorted_messages] == [
        ("karma", True),
        ("karma", False),
        (None, False),
    ]


async def test_set_rows_keeps_cursor_scroll_filter_and_sort() -> None:
    app = TableApp(make_rows(300))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        table.sort_by("id", reverse=True)
        table.set_filter("agent")
        await pilot.press("pagedown", "pagedown", "down")
        key, scroll, row = table.cursor_key, table.scroll_y, table.cursor_row
        assert scroll > 0

        refreshed = make_rows(300)
        refreshed[5] = make_row(5, karma=99)  # changed values, same keys
        table.set_rows(refreshed)
        assert table.cursor_key == key
        assert table.cursor_row == row
        assert table.scroll_y == scroll
        assert (table.sort_column, table.sort_reverse, table.filter_query) == ("id", True, "agent")
        assert table.get_row("a5") == refreshed[5]

        # New rows arrive: the cursor stays on its key, which now sits one line lower.
        table.set_rows([*refreshed, make_row(1000)])
        assert table.cursor_key == key
        assert table.visible_keys()[0] == "a1000"
        await pilot.pause()


async def test_set_rows_repaints_changed_cells() -> None:
    app = TableApp(make_rows(5))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        assert screen_lines(table)[3].rstrip().endswith(" 1")  # a2: karma 14 % 13
        table.set_rows([*make_rows(2), make_row(2, karma=12345), *make_rows(5)[3:]])
        await pilot.pause()
        assert screen_lines(table)[3].rstrip().endswith(" 12345")


async def test_mouse_wheel_scrolls_without_moving_the_cursor() -> None:
    app = TableApp(make_rows(100))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        for _ in range(3):
            table.post_message(events.MouseScrollDown(table, 5, 5, 0, 1, 0, False, False, False))
        await pilot.pause()
        assert table.scroll_y > 0
        assert table.cursor_key == "a0"
        assert f"a{int(table.scroll_y)} " in screen_lines(table)[1]


async def test_theme_change_restyles_the_cursor_row() -> None:
    app = TableApp(make_rows(5))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        dark = table.render_line(1)
        app.theme = "textual-light"
        await pilot.pause()
        light = table.render_line(1)
        assert light.text == dark.text
        assert [s.style for s in light] != [s.style for s in dark]


async def test_removed_cursor_row_falls_to_its_neighbour() -> None:
    app = TableApp(make_rows(10))
    async with app.run_test(size=(80, 24)):
        table = app.query_one(VirtualTable)
        table.move_cursor_to("a4")
        table.set_rows([row for row in make_rows(10) if row.key not in {"a4", "a5"}])
        assert table.cursor_key == "a6"  # the next surviving row
        table.move_cursor_to("a9")
        table.set_rows(make_rows(9))  # the last row goes: fall back to the previous one
        assert table.cursor_key == "a8"
        table.set_rows([])
        assert table.cursor_key is None
        assert table.row_count == 0
        assert "no data yet" in screen_lines(table)[1]
        table.set_rows(make_rows(3))
        assert table.cursor_key == "a0"


async def test_marked_rows_get_the_marked_style() -> None:
    app = TableApp(make_rows(5), marked={"a2"})
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        marked = table.get_component_rich_style("virtual-table--marked", partial=True)
        row_styles = {
            y: {segment.style for segment in table.render_line(y) if segment.text.strip()}
            for y in (2, 3, 4)  # a1, a2 (marked), a3
        }
        assert all(style.color == marked.color and style.bold for style in row_styles[3])
        assert not any(style.color == marked.color for style in row_styles[2] | row_styles[4])
        table.set_rows(make_rows(5))  # marks last until the next refresh
        await pilot.pause()
        assert not any(
            segment.style.color == marked.color for segment in table.render_line(3) if segment.style
        )


async def test_cursor_row_is_visible_without_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = TableApp(make_rows(5))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        assert app.no_color
        assert all(segment.style.reverse for segment in table.render_line(1))
        assert not any(segment.style.reverse for segment in table.render_line(2) if segment.style)


async def test_highlighted_only_when_the_key_changes_and_selected_on_enter() -> None:
    app = TableApp(make_rows(10))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        assert app.events == [("highlighted", "a0")]
        await pilot.press("up")  # already at the top: no message
        await pilot.press("down", "enter")
        table.set_rows(make_rows(10))  # same key under the cursor: no message
        await pilot.pause()
        assert app.events == [("highlighted", "a0"), ("highlighted", "a1"), ("selected", "a1")]


async def test_messages_can_be_captured_with_message_hook() -> None:
    captured: list[Message] = []
    app = TableApp(make_rows(10))
    async with app.run_test(size=(80, 24), message_hook=captured.append) as pilot:
        await pilot.press("end", "enter")
        table = app.query_one(VirtualTable)
        # The hook sees a bubbling message once per node it visits: keep each message once.
        selected = list(dict.fromkeys(m for m in captured if isinstance(m, VirtualTable.Selected)))
        assert [(m.key, m.table, m.control) for m in selected] == [("a9", table, table)]


async def test_click_selects_the_row() -> None:
    app = TableApp(make_rows(100))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.press("pagedown")
        top = int(table.scroll_y)
        await pilot.click(VirtualTable, offset=(10, 3))  # screen line 3 = third row in view
        assert table.cursor_key == f"a{top + 2}"
        assert app.events[-1] == ("selected", f"a{top + 2}")
        await pilot.click(VirtualTable, offset=(10, 23))  # below... still a row: the table is full
        assert table.cursor_key == f"a{top + 22}"


HOSTILE = [
    "[@click=app.quit]quit[/]",
    "a[/]b",
    "[bold]x[/italic]",
    "\x1b[2Jclear",
    "\x9b31mred",
    "nul\x00byte",
    "\x1b]0;pwned\x07",
    "y" * 10_000,
    "مرحبا بالعالم",
    "e\u0301\u0301\u0301 combining",
    "🦜🦜🦜🦜🦜🦜🦜🦜🦜🦜🦜🦜🦜🦜🦜 parrots",
    "\u202eevil override",
    "tab\there\nnewline",
    "[$accent]theme[/]",
]


async def test_hostile_cells_render_literally() -> None:
    rows = [
        Row(f"h{i}", (f"h{i}", text, text[:20], "42"), (i, text, text, 42), text.lower())
        for i, text in enumerate(HOSTILE)
    ]
    app = TableApp(rows)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        for text in full_width_rows(table, len(HOSTILE)):
            assert "\x1b" not in text and "\x9b" not in text and "\x00" not in text
            assert text.endswith("   42 "), text  # the right column did not move
        assert "yyy…" in table.render_line(1 + HOSTILE.index("y" * 10_000)).text
        screenshot = app.export_screenshot()
        assert "[@click=app.quit]quit[/]" in screenshot
        assert "[bold]x[/italic]" in screenshot
        assert "\x1b" not in screenshot and "\x9b" not in screenshot
        for key in ("down",) * len(HOSTILE):
            await pilot.press(key)
        await pilot.press("enter")
        await pilot.pause()
        assert app.is_running
        assert app.events[-1] == ("selected", f"h{len(HOSTILE) - 1}")


async def test_text_cells_keep_their_styling() -> None:
    rows = [Row("t", ("t", Text("styled", style="bold"), "ok", Text("7")), (0, "", "", 7))]
    app = TableApp(rows)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        table.blur()
        await pilot.pause()
        segments = [s for s in table.render_line(1) if s.text.strip()]
        assert any(s.text == "styled" and s.style.bold for s in segments)
        assert table.render_line(1).text.endswith("      7 ")


async def test_fifty_thousand_rows_render_only_what_is_in_view() -> None:
    """Cost per frame must not depend on the row count (timings live in tests/perf/bench.py)."""
    rows = make_rows(50_000)
    app = TableApp(rows)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.query_one(VirtualTable)
        assert table.row_count == 50_000
        assert table.virtual_size.height == 50_001

        rendered: list[int] = []
        original = table.render_line

        def counting(y: int):
            rendered.append(y)
            return original(y)

        table.render_line = counting  # type: ignore[method-assign]
        table.set_filter("agent 4")
        table.refresh()
        await pilot.pause()
        app.export_screenshot()
        assert table.row_count == len([r for r in rows if "agent 4" in r.haystack])
        # a full repaint touches about one screenful of lines, never the 50 000 rows
        assert 0 < len(rendered) <= 3 * 24

        await pilot.press("end")
        assert table.cursor_key == table.visible_keys()[-1]


class CountingRow(LazyRow):
    """A lazy agent-like row that counts how often each field is computed (in ``context``)."""

    __slots__ = ()

    def make_cells(self) -> tuple[str, ...]:
        self.context["cells"] += 1
        return make_row(self.model).cells

    def make_sort_values(self) -> tuple:
        self.context["sort_values"] += 1
        return make_row(self.model).sort_values

    def make_haystack(self) -> str:
        self.context["haystack"] += 1
        return make_row(self.model).haystack


async def test_lazy_rows_compute_each_field_when_first_needed_and_once() -> None:
    calls = {"cells": 0, "sort_values": 0, "haystack": 0}
    rows = [CountingRow(f"a{i}", i, calls) for i in range(5000)]
    app = TableApp(rows)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        app.export_screenshot()
        assert "agent 0" in screen_lines(table)[1]
        # first paint: cells of the rows in view only; no sort values, no search text
        assert 0 < calls["cells"] <= 24
        assert calls["sort_values"] == calls["haystack"] == 0

        table.set_filter("agent 49")
        assert calls["haystack"] == 5000
        assert table.visible_keys()[:2] == ["a49", "a490"]
        table.set_filter("agent 4")
        table.set_rows(rows)  # a refresh with the same rows: nothing is computed again
        assert calls["haystack"] == 5000
        assert calls["sort_values"] == 0

        table.sort_by("karma", reverse=True)
        assert calls["sort_values"] == 5000
        table.sort_by("name")
        assert calls["sort_values"] == 5000
        assert table.visible_keys()[:3] == ["a4", "a40", "a400"]
        await pilot.pause()
        app.export_screenshot()
        drawn = calls["cells"]
        assert drawn <= 3 * 24
        assert rows[4].cells == make_row(4).cells and calls["cells"] == drawn  # cached


class ColumnRow(CountingRow):
    """A counting row that can compute one sort value alone (as the agents table's rows do)."""

    __slots__ = ()

    def make_sort_value(self, column: int) -> object:
        self.context["sort_value"] += 1
        return make_row(self.model).sort_values[column]


async def test_a_sort_before_the_warm_up_computes_only_its_column() -> None:
    calls = {"cells": 0, "sort_values": 0, "haystack": 0, "sort_value": 0}
    rows = [ColumnRow(f"a{i}", i, calls) for i in range(3000)]
    for row in rows[:1000]:
        row.sort_values  # noqa: B018 - the warm-up got this far
    warmed = calls["sort_values"]
    app = TableApp(rows)
    async with app.run_test(size=(80, 24)):
        table = app.query_one(VirtualTable)
        table.sort_by("karma", reverse=True)
        # every row's karma computed alone; no whole tuple made, none kept
        assert calls["sort_value"] == 3000 and calls["sort_values"] == warmed
        cold_order = table.visible_keys()
        for row in rows:
            row.sort_values  # noqa: B018 - the warm-up finished
        table.sort_by("name")
        table.sort_by("karma", reverse=True)
        assert calls["sort_value"] == 3000  # warmed: the tuples are read
        assert table.visible_keys() == cold_order
        eager = TableApp(make_rows(3000))
        async with eager.run_test(size=(80, 24)):
            eager_table = eager.query_one(VirtualTable)
            eager_table.sort_by("karma", reverse=True)
            assert cold_order == eager_table.visible_keys()


def test_lazy_row_reads_like_a_row() -> None:
    row = CountingRow("a7", 7, {"cells": 0, "sort_values": 0, "haystack": 0})
    eager = make_row(7)
    assert (row.key, row.cells, row.sort_values, row.haystack) == (
        eager.key,
        eager.cells,
        eager.sort_values,
        eager.haystack,
    )
    assert repr(row) == "CountingRow('a7')"


def counting_lazy_rows(count: int) -> tuple[LazyRows, list[str]]:
    """``count`` agent-like lazy rows, and the keys of the row objects made so far, in order."""
    made: list[str] = []
    calls = {"cells": 0, "sort_values": 0, "haystack": 0}

    def factory(key: str, model: int, context: dict[str, int]) -> CountingRow:
        made.append(key)
        return CountingRow(key, model, context)

    return LazyRows(factory, {f"a{i}": i for i in range(count)}, calls), made


def test_lazy_rows_read_like_a_list_and_make_each_row_once() -> None:
    rows, made = counting_lazy_rows(10)
    assert len(rows) == 10 and made == []
    assert rows.keys == [f"a{i}" for i in range(10)]
    first = rows[0]
    assert (first.key, first.model) == ("a0", 0) and rows[0] is first
    assert rows[-1].key == "a9"
    assert [row.key for row in rows[2:5]] == ["a2", "a3", "a4"]
    assert [row.key for row in rows[::4]] == ["a0", "a4", "a8"]
    assert made == ["a0", "a9", "a2", "a3", "a4", "a8"]
    every = list(rows)
    assert [row.key for row in every] == rows.keys
    assert every[0] is first and every[9] is rows[-1]  # rows already made are kept
    assert sorted(made) == sorted(rows.keys)  # each made once
    assert rows.all() is rows.all()
    with pytest.raises(IndexError):
        rows[10]
    empty, _ = counting_lazy_rows(0)
    assert len(empty) == 0 and list(empty) == [] and empty[0:3] == []


class AgedRow(LazyRow):
    """A row whose cells show an age at its context's clock reading."""

    __slots__ = ()

    def make_cells(self) -> tuple[str, ...]:
        self.context["cells"] += 1
        return (self.key, f"{self.context['now'] - self.model}s")

    def make_sort_values(self) -> tuple[Any, ...]:
        return (self.key, -self.model)


def test_retime_costs_nothing_until_a_row_is_read_and_then_gives_the_new_age() -> None:
    def clock(now: int) -> dict[str, int]:
        return {"now": now, "cells": 0}

    at_100 = clock(100)
    rows = LazyRows(AgedRow, {f"a{i}": i for i in range(100_000)}, at_100)
    every = rows.all()  # a warm-up made every row
    drawn = [rows[i] for i in range(20)]
    assert [row.cells[1] for row in drawn] == [f"{100 - i}s" for i in range(20)]
    sorted_by = [row.sort_values for row in drawn]
    assert at_100["cells"] == 20

    at_160 = clock(160)
    rows.retime(at_160)
    # no pass over the 100 000 rows (one took 17 ms, every 30 s, on every table screen)
    assert at_160["cells"] == 0 and all(row.context is at_100 for row in every)
    # a row read (drawn, measured, exported) learns the new reading and makes its cells again
    assert [rows[i].cells[1] for i in range(3)] == ["160s", "159s", "158s"]
    assert rows[99_999].cells[1] == "-99839s" and at_160["cells"] == 4
    assert [rows[i].sort_values for i in range(20)] == sorted_by  # sort values stay
    assert rows[0] is drawn[0]  # the same row objects

    # the same context object changed inside: every row made drops its cells at once
    at_160["now"] = 200
    rows.retime(at_160)
    assert rows[5].cells[1] == "195s" and rows[0].cells[1] == "200s"
    assert rows[50].cells[1] == "150s"  # not read since the first retime: learns it now


async def test_lazy_rows_are_made_only_when_the_table_reads_them() -> None:
    rows, made = counting_lazy_rows(50_000)
    app = TableApp(rows)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.export_screenshot()
        table = app.query_one(VirtualTable)
        assert table.total_count == table.row_count == 50_000
        assert "agent 0" in screen_lines(table)[1]
        # first paint: the rows in view, not the 50 000
        assert 0 < len(made) <= 24

        before = len(made)
        assert table.get_row("a49999") is rows[-1]  # found by key without making the others
        assert len(made) == before + 1

        table.sort_by("karma", reverse=True)  # a sort reads every row
        assert len(made) == 50_000 and len(set(made)) == 50_000
        eager = TableApp(make_rows(50_000))
        async with eager.run_test(size=(80, 24)):
            eager_table = eager.query_one(VirtualTable)
            eager_table.sort_by("karma", reverse=True)
            assert table.visible_keys() == eager_table.visible_keys()


def test_snapshot_small_table(snap_compare) -> None:
    rows = [
        make_row(1, name="ada lovelace"),
        make_row(2, name="[bold]not bold[/]"),
        make_row(3, name="a name far too long to fit into the flexible column of the table"),
        make_row(4, karma=None),
        make_row(5, name="日本語の名前"),
    ]
    app = TableApp(rows, marked={"a3"})

    async def run_before(pilot) -> None:
        table = pilot.app.query_one(VirtualTable)
        table.sort_by("karma", reverse=True)
        await pilot.press("down")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def terminal_width(text: str) -> int:
    """The width a terminal that draws each character on its own gives ``text`` (no grapheme
    clusters): what every terminal agrees on once joiners are gone."""
    return sum(get_character_cell_size(char) for char in text)


JOINED = [
    "\U0001f468\u200d\U0001f469\u200d\U0001f467 family",  # ZWJ sequence
    "\u2764\ufe0f\u2764\ufe0f\u2764\ufe0f hearts",  # emoji presentation selector
    "\U0001f44d\U0001f3fd\U0001f44d\U0001f3ff thumbs",  # skin tones
    "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f flag",  # tags
    "cafe\u0301 plain",  # a combining mark: zero width everywhere, kept
]


async def test_joined_emoji_do_not_move_the_columns() -> None:
    rows = [
        Row(f"j{i}", (f"j{i}", text, "active", "42"), (i, text, "active", 42), text)
        for i, text in enumerate(JOINED)
    ]
    styled = Text.assemble(("\U0001f468\u200d\U0001f469", "bold"), " \u2764\ufe0f x")
    rows.append(Row("rich", ("rich", styled, "active", "42"), (99, "", "", 42), ""))
    app = TableApp(rows)
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        width = table.scrollable_content_region.width
        for text in full_width_rows(table, len(rows)):
            assert "\u200d" not in text and "\ufe0f" not in text, text
            assert terminal_width(text) == width, text
            assert text.endswith("active        42 "), text  # the columns did not move
        assert "cafe\u0301" in table.render_line(len(JOINED)).text


def test_the_warm_up_computes_what_filters_and_sorts_read_unless_cancelled() -> None:
    """The warm-up computes every row's search text and sort values (what freezes them is the
    app's memory policy, told by VirtualTable.Warmed); a cancelled one stops on the way."""
    from tui.ui.table.key_pace import KeyPace
    from tui.ui.table.rows import SortOrders
    from tui.ui.table.warmup import prepare_sorts, warm_rows

    class Running:
        is_cancelled = False

    class Cancelled:
        is_cancelled = True

    calls = {"cells": 0, "sort_values": 0, "haystack": 0}
    small = [CountingRow(f"a{i}", i, calls) for i in range(100)]
    assert warm_rows(small, Running(), KeyPace())
    assert calls["haystack"] == calls["sort_values"] == 100

    big, _ = counting_lazy_rows(5_000)
    assert not warm_rows(big, Cancelled(), KeyPace())
    assert warm_rows(big, Running(), KeyPace())
    assert all({"haystack", "sort_values"} <= row.computed() for row in big)

    orders = SortOrders(big)
    assert not prepare_sorts(orders, [(0, True)], Cancelled(), KeyPace())
    assert orders.prepared() == set()
    assert prepare_sorts(orders, [(0, True)], Running(), KeyPace())
    assert orders.prepared() == {(0, True)}


def test_the_warm_up_makes_its_row_objects_a_piece_at_a_time(monkeypatch) -> None:
    """Making 50 000 row objects in one go held the interpreter for ~100 ms with no chance to
    stand aside: a key typed at the first paint (when the warm-up starts) waited through it.
    The warm-up makes them in pieces, standing aside for keys between two pieces."""
    from tui.ui.table.warmup import warm_rows

    class Running:
        is_cancelled = False

    rows, made = counting_lazy_rows(5_000)
    rows[3]  # one row already on screen: made once, kept
    made_at_each_yield: list[int] = []

    class Pace:
        def yield_to_keys(self) -> None:
            made_at_each_yield.append(len(made))

    assert warm_rows(rows, Running(), Pace())
    making = [n for n in made_at_each_yield if n < 5_000]
    assert len(making) >= 4, made_at_each_yield  # several pieces, a yield before each
    assert making == sorted(making) and making[0] == 1
    assert sorted(made) == sorted(f"a{i}" for i in range(5_000))  # each made once
    assert [row.key for row in rows] == [f"a{i}" for i in range(5_000)]


def test_lazy_rows_make_fills_only_the_missing_rows_of_a_range() -> None:
    rows, made = counting_lazy_rows(10)
    kept = rows[4]
    rows.make(2, 7)
    assert made == ["a4", "a2", "a3", "a5", "a6"]
    assert rows[4] is kept
    rows.make(0, 100)  # clipped to the rows there are
    assert sorted(made) == sorted(f"a{i}" for i in range(10))
    assert [row.key for row in rows.all()] == [f"a{i}" for i in range(10)]


async def test_a_big_table_warms_its_rows_after_their_first_frame_and_says_so() -> None:
    """The table layer owns the warm-up: thousands of rows are warmed in a thread once their
    first frame is out, and the table posts Warmed; the same rows set again (new marks) are not
    warmed again, and rows a build warmed already are taken as they are."""
    from tui.ui.table.warmup import WARM_FROM

    rows, _ = counting_lazy_rows(WARM_FROM)
    app = TableApp(rows, warm_up=True)
    warmed: list[int] = []

    def hook(message: object) -> None:
        if isinstance(message, VirtualTable.Warmed) and message.rows not in warmed:
            warmed.append(message.rows)  # once, though it bubbles

    async with app.run_test(message_hook=hook) as pilot:
        table = app.query_one(VirtualTable)
        for _ in range(100):
            await pilot.pause(0.02)
            if warmed:
                break
        assert warmed == [WARM_FROM]
        assert all({"haystack", "sort_values"} <= row.computed() for row in rows)
        # and each column's first sort is made: a sort by it costs no sort on the key
        assert table.sort_orders.prepared() == set(table.first_sorts())
        table.set_rows(rows, marked=["a1"])
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert warmed == [WARM_FROM]
        built, _ = counting_lazy_rows(WARM_FROM + 1)
        table.set_rows(built, warmed=True)
        await pilot.pause()
        assert warmed == [WARM_FROM, WARM_FROM + 1]
        await pilot.pause()
        assert not any(row.computed() - {"cells"} for row in built)  # taken as the build said


async def test_a_filter_typed_before_the_search_texts_waits_then_applies_and_says_so(
    monkeypatch,
) -> None:
    from tui.ui.table import warmup

    monkeypatch.setattr(warmup, "SEARCH_IN_THREAD_FROM", 100)
    rows, _ = counting_lazy_rows(300)  # below WARM_FROM: never warmed, searched on demand
    app = TableApp(rows)
    filtered: list[str] = []

    def hook(message: object) -> None:
        if isinstance(message, VirtualTable.Filtered) and not filtered:
            filtered.append(message.table.filter_query)

    async with app.run_test(message_hook=hook) as pilot:
        table = app.query_one(VirtualTable)
        table.type_filter("a1")
        assert table.filter_pending == "a1" and table.filter_query == ""
        await app.workers.wait_for_complete()
        for _ in range(50):
            await pilot.pause(0.02)
            if filtered:
                break
        assert filtered == ["a1"] and table.filter_pending is None
        assert table.row_count == len([r for r in rows if "a1" in r.haystack])
        table.type_filter("a12")  # the texts are all there now: at once
        assert table.filter_pending is None and table.filter_query == "a12"
        table.set_filter("")
        assert table.filter_query == "" and table.row_count == 300


async def test_a_layout_that_changes_nothing_leaves_the_scrollbars_alone() -> None:
    """Every layout hands a widget the virtual size it arranged, never the table's own: Textual's
    ScrollView refreshed its scrollbars on each one (one more frame after every layout of the
    screen). They follow the table's rows, and nothing else does refresh them."""
    app = TableApp(make_rows(100))
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        table = app.query_one(VirtualTable)
        assert table.vertical_scrollbar.window_virtual_size == 101  # the header and 100 rows
        updates: list[object] = []
        real = table._scroll_update
        table._scroll_update = lambda size: (updates.append(size), real(size))  # type: ignore[method-assign]
        app.screen.refresh(layout=True)
        await pilot.pause()
        assert updates == []
        table.set_rows(make_rows(40))
        await pilot.pause()
        assert updates and table.vertical_scrollbar.window_virtual_size == 41
