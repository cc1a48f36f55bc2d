"""How tables share their width: a number is never cut (text columns give way first, then an
optional column is hidden), and spare width goes to the text columns."""

from __future__ import annotations

import pytest
from app_rig import loaded, make_rig, settle
from rich.text import Text

from tui.ui.table.rows import Column
from tui.ui.table.virtual_table import Row, VirtualTable
from tui.untrusted import clean_cell

SMALL_SIZES = ((60, 20), (80, 24))


def plain(cell: str | Text) -> str:
    return cell.plain if isinstance(cell, Text) else clean_cell(cell)


def drawn_rows(table: VirtualTable) -> list[tuple[str, tuple[str, ...]]]:
    """Each row in view: the line as drawn (cropped to the view) and its cells' texts."""
    keys = table.visible_keys()
    top = round(table.scroll_y)
    result = []
    for y in range(1, table.scrollable_content_region.height):
        if top + y - 1 >= len(keys):
            break
        row = table.get_row(keys[top + y - 1])
        assert row is not None
        result.append((table.render_line(y).text, tuple(plain(cell) for cell in row.cells)))
    return result


def cut_numbers(table: VirtualTable) -> list[str]:
    """The number cells in view that are not drawn whole (an optional column may be hidden)."""
    cut = []
    for line, cells in drawn_rows(table):
        for column, text in zip(table.columns, cells, strict=False):
            if column.number and not column.optional and f" {text} " not in f"{line} ":
                cut.append(f"{table.id or 'table'}.{column.key}: {text!r} in {line!r}")
    return cut


async def shown_tables(pilot) -> list[VirtualTable]:
    await settle(pilot)
    return [table for table in pilot.app.screen.query(VirtualTable) if table.region.area]


@pytest.mark.parametrize("size", SMALL_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_no_table_cuts_a_number_at_small_sizes(size):
    """At 60x20 Trending's top agents and channels showed their scores as ``3,`` and ``1,``:
    every number in every table (Agents, Trending and its panels, Channels, Stats, the Seeds
    lists) is drawn whole; text columns are cut or an optional column hidden instead."""
    rig = make_rig()
    async with rig.app.run_test(size=size) as pilot:
        await loaded(pilot)
        seen: set[str] = set()
        for key, sections in (("1", 1), ("2", 1), ("3", 1), ("4", 1), ("5", 4)):
            await pilot.press(key)
            for _ in range(sections):
                for table in await shown_tables(pilot):
                    assert drawn_rows(table), table.id
                    assert cut_numbers(table) == []
                    seen.add(table.id or type(table).__name__)
                await pilot.press("right_square_bracket")
        assert {"top-agents", "top-channels", "top-topics", "stats-counters"} <= seen
        assert len(seen) >= 9  # and the main tables of Agents, Trending, Channels, 3+ Seeds lists


async def test_trending_panels_keep_their_scores_whole_at_60_columns():
    rig = make_rig(screen="trending")
    async with rig.app.run_test(size=(60, 20)) as pilot:
        await loaded(pilot)
        panel = rig.app.screen.query_one("#top-agents", VirtualTable)
        top = rig.store.snapshot.trending.top_agents[0]
        line, _ = drawn_rows(panel)[0]
        assert f"{top.score:,.0f}" in line  # 3,572, not "3,"
        assert "posts" not in panel.render_line(0).text  # the optional column gave way
        assert line.split()[0].startswith(top.agent_id[:6])  # the name keeps room to be read
    async with make_rig(screen="trending").app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        panel = pilot.app.screen.query_one("#top-agents", VirtualTable)
        assert "posts" in panel.render_line(0).text  # with room, every column is shown


async def test_a_wider_number_further_down_widens_its_column():
    """Columns are measured on the rows first in view; a longer number scrolled into view
    later widens its column instead of being cut."""
    from textual.app import App

    columns = (Column("name", "name", 6, flex=True), Column("n", "n", 2, align="right"))
    rows = [Row(f"r{i}", (f"row {i}", str(i % 10)), (i, i)) for i in range(60)]
    rows[50] = Row("r50", ("row 50", "12,345,678"), (50, 12345678))

    class One(App[None]):
        def compose(self):
            yield VirtualTable(columns)

        def on_mount(self) -> None:
            self.query_one(VirtualTable).set_rows(rows)

    async with One().run_test(size=(30, 10)) as pilot:
        table = pilot.app.query_one(VirtualTable)
        await pilot.pause()
        table.move_cursor_to("r50")
        await pilot.pause()
        await pilot.pause()
        assert cut_numbers(table) == []
        assert any("12,345,678" in line for line, _ in drawn_rows(table))
