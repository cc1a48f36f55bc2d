"""tui/ui/table/filter_line.py in a bare Textual app: ``enter`` and ``escape`` call the owner at
once, and a key the line reads after the focus left it acts where the focus is."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult

from tui.ui.table.filter_line import FilterLine, run_binding
from tui.ui.table.virtual_table import Column, Row, VirtualTable

COLUMNS = (Column("name", "Name", 12, flex=True),)
ROWS = [Row(f"r{i}", (f"row {i}",), (i,), f"row {i}") for i in range(20)]


class FilterApp(App[None]):
    """A filter line over a table, as an owner wires them: enter filters, escape clears."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield FilterLine(on_enter=self.entered, on_escape=self.escaped, id="filter")
        yield VirtualTable(COLUMNS)

    def on_mount(self) -> None:
        self.query_one(VirtualTable).set_rows(ROWS)
        self.query_one(FilterLine).focus()

    def entered(self) -> None:
        line = self.query_one(FilterLine)
        self.calls.append(("enter", line.value))
        table = self.query_one(VirtualTable)
        table.type_filter(line.value)
        table.focus()

    def escaped(self) -> None:
        line = self.query_one(FilterLine)
        self.calls.append(("escape", line.value))
        line.value = ""
        self.query_one(VirtualTable).focus()


async def test_enter_calls_the_owner_with_what_was_typed():
    app = FilterApp()
    async with app.run_test() as pilot:
        await pilot.press("1", "2", "enter")
        table = app.query_one(VirtualTable)
        assert app.calls == [("enter", "12")]
        assert table.has_focus and table.visible_keys() == ["r12"]


async def test_escape_calls_the_owner_and_types_nothing():
    app = FilterApp()
    async with app.run_test() as pilot:
        await pilot.press("r", "escape")
        assert app.calls == [("escape", "r")]
        assert app.query_one(FilterLine).value == ""
        assert app.query_one(VirtualTable).has_focus


async def test_a_key_read_after_the_focus_left_runs_its_binding_there():
    """In a burst ``row⏎j`` the ``j`` may reach the line after ``enter`` moved the focus: it
    moves the table's cursor (the table's ``j``) instead of being typed into the line."""
    app = FilterApp()
    async with app.run_test() as pilot:
        await pilot.press("r", "o", "w", "enter")
        line, table = app.query_one(FilterLine), app.query_one(VirtualTable)
        assert table.has_focus and table.cursor_row == 0
        line.post_message(events.Key("j", "j"))
        await pilot.pause()
        assert line.value == "row"  # not typed
        assert table.cursor_row == 1  # the table's binding acted


async def test_run_binding_runs_what_the_key_is_bound_to_now_and_ignores_unbound_keys():
    app = FilterApp()
    async with app.run_test() as pilot:
        table = app.query_one(VirtualTable)
        table.focus()
        await pilot.pause()
        await run_binding(app.screen, "G")
        assert table.cursor_key == "r19"
        await run_binding(app.screen, "z")  # bound to nothing: nothing happens
        assert table.cursor_key == "r19"
