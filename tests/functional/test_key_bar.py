"""The one-line KeyBar footer: which keys it shows, the palette key on the right, clicks press
keys, hover, narrow terminals, and keeping up when the bindings change."""

from __future__ import annotations

from app_rig import loaded, make_rig, painted, settle
from rich.color import Color
from textual.command import CommandPalette
from textual.strip import Strip
from textual.widgets import Input

from tui.ui.app import RoostApp
from tui.ui.screens.agents import AgentsScreen
from tui.ui.screens.help import HelpScreen
from tui.ui.widgets.key_bar import KeyBar

SIZE = (80, 24)
WIDE = (120, 40)
PALETTE = "^p palette"


def bar_of(app: RoostApp) -> KeyBar:
    return app.screen.query_one(KeyBar)


def _painted_bottom_row(app: RoostApp) -> list[Strip]:
    """The bottom row as the screen's compositor draws it (what the terminal shows), not a fresh
    ``render()`` of the widget: a bar that missed a refresh still shows its old state here."""
    update = painted(app)
    assert len(update.strips) == app.size.height
    return list(update.strips[-1])


def painted_bar(app: RoostApp) -> str:
    return "".join(strip.text for strip in _painted_bottom_row(app))


def painted_backgrounds(app: RoostApp) -> list[Color | None]:
    """The background colour of each cell of the bottom row, as drawn."""
    colours: list[Color | None] = []
    for strip in _painted_bottom_row(app):
        for segment in strip:
            if segment.control:
                continue
            colour = segment.style.bgcolor if segment.style else None
            colours.extend([colour] * segment.cell_length)
    return colours


def span_of(bar: KeyBar, key: str) -> tuple[int, int]:
    for start, end, item in bar.spans:
        if item.key == key:
            return start, end
    raise AssertionError(f"{key!r} is not on the bar: {[i.key for _s, _e, i in bar.spans]}")


def shown_descriptions(bar: KeyBar) -> list[str]:
    return [item.description for _start, _end, item in bar.spans]


def hidden_descriptions(app: RoostApp) -> set[str]:
    """Descriptions of the active bindings declared with show=False (and never shown), but for
    the command palette's, which the bar shows on its own at the right."""
    active = [
        value
        for key, value in app.screen.active_bindings.items()
        if key != app.COMMAND_PALETTE_BINDING
    ]
    shown = {binding.description for _node, binding, _enabled, _tip in active if binding.show}
    return {
        binding.description
        for _node, binding, _enabled, _tip in active
        if not binding.show and binding.description not in shown
    }


def check_spans_fit(bar: KeyBar, line: str, width: int) -> None:
    """Every key on the bar is drawn whole, inside the width, where its span says."""
    previous_end = 0
    for start, end, item in bar.spans:
        assert previous_end <= start < end <= width, (start, end, width)
        drawn = line[start:end]
        assert drawn.strip() == f"{item.display} {item.description}", (drawn, item)
        previous_end = end


async def test_agents_bar_lists_shown_keys_and_the_palette_on_the_right():
    for size in (SIZE, WIDE):
        rig = make_rig()
        async with rig.app.run_test(size=size) as pilot:
            await loaded(pilot)
            assert isinstance(rig.app.screen, AgentsScreen)
            bar = bar_of(rig.app)
            line = painted_bar(rig.app)
            width = size[0]
            assert len(line) == width
            for expected in ("/ Filter", "s Sort", "n Post", "r Refresh", "? Help", "q Quit"):
                assert expected in line, (expected, line)
            # the palette key sits against the right edge, after the divider
            assert line.rstrip().endswith("\u258f" + PALETTE), line
            start, end = span_of(bar, "ctrl+p")
            assert end == width and line[start:end].strip() == PALETTE
            assert line[start - 1] == "\u258f"
            keys_end = max(e for _s, e, item in bar.spans if item.key != "ctrl+p")
            assert line[keys_end : start - 1].strip() == ""  # blank between keys and palette
            # bindings declared with show=False are not on the bar
            hidden = hidden_descriptions(rig.app)
            assert {"Reverse sort", "Raw JSON", "Active only", "Back", "Agents"} <= hidden
            for description in hidden:
                assert description not in shown_descriptions(bar)
                assert f" {description} " not in line, description
            check_spans_fit(bar, line, width)


async def test_clicking_help_opens_help():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        bar = bar_of(rig.app)
        start, end = span_of(bar, "question_mark")
        assert painted_bar(rig.app)[start:end].strip() == "? Help"
        await pilot.click(KeyBar, offset=(start + 1, 0))
        await settle(pilot)
        assert isinstance(rig.app.screen, HelpScreen)


async def test_clicking_filter_opens_the_filter_and_the_palette_key_opens_the_palette():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = rig.app.screen
        assert not isinstance(screen.focused, Input)
        start, end = span_of(bar_of(rig.app), "slash")
        await pilot.click(KeyBar, offset=(end - 2, 0))  # on the description's last letter
        await settle(pilot)
        assert rig.app.screen is screen
        field = screen.focused
        assert isinstance(field, Input) and field.display and field.value == ""
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(screen.focused, Input)
        start, _end = span_of(bar_of(rig.app), "ctrl+p")
        await pilot.click(KeyBar, offset=(start, 0))
        await settle(pilot)
        assert isinstance(rig.app.screen, CommandPalette)


async def test_clicking_between_keys_does_nothing():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = rig.app.screen
        bar = bar_of(rig.app)
        keys_end = max(e for _s, e, item in bar.spans if item.key != "ctrl+p")
        palette_start, _end = span_of(bar, "ctrl+p")
        assert keys_end < palette_start - 1
        assert bar.key_at(keys_end) is None and bar.key_at(palette_start - 1) is None
        focused = screen.focused
        sort_before = screen.table.sort_column
        await pilot.click(KeyBar, offset=(keys_end + 1, 0))
        await pilot.click(KeyBar, offset=(palette_start - 1, 0))  # the divider
        await settle(pilot)
        assert rig.app.screen is screen and screen.focused is focused
        assert screen.table.sort_column == sort_before
        assert rig.app.is_running


async def test_hover_highlights_the_key_under_the_mouse():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        bar = bar_of(rig.app)
        sort_start, sort_end = span_of(bar, "s")
        help_start, help_end = span_of(bar, "question_mark")
        keys_end = max(e for _s, e, item in bar.spans if item.key != "ctrl+p")
        plain = painted_backgrounds(rig.app)

        await pilot.hover(KeyBar, offset=(sort_start + 1, 0))
        await pilot.pause()
        assert bar.hovered == "s"
        hovered = painted_backgrounds(rig.app)
        # the whole key is highlighted, not just the cell under the mouse, and nothing else
        highlight = {hovered[x] for x in range(sort_start, sort_end)}
        assert len(highlight) == 1 and not highlight & set(plain[sort_start:sort_end])
        changed = [x for x in range(SIZE[0]) if hovered[x] != plain[x]]
        assert changed == list(range(sort_start, sort_end))

        await pilot.hover(KeyBar, offset=(help_start + 1, 0))  # the mouse moves along the bar
        await pilot.pause()
        assert bar.hovered == "question_mark"
        moved = painted_backgrounds(rig.app)
        assert [x for x in range(SIZE[0]) if moved[x] != plain[x]] == list(
            range(help_start, help_end)
        )

        await pilot.hover(KeyBar, offset=(keys_end + 1, 0))  # a blank part of the bar
        await pilot.pause()
        assert bar.hovered is None
        assert painted_backgrounds(rig.app) == plain

        await pilot.hover(KeyBar, offset=(sort_start + 1, 0))
        await pilot.pause()
        assert bar.hovered == "s"
        await pilot.hover(offset=(10, 5))  # off the bar, over the table
        await pilot.pause()
        assert bar.hovered is None
        assert painted_backgrounds(rig.app) == plain


async def test_narrow_terminals_show_whole_keys_only():
    rig = make_rig()
    async with rig.app.run_test(size=(30, 24)) as pilot:
        await loaded(pilot)
        all_keys, palette = bar_of(rig.app).keys()
        assert palette is not None
        for width in (30, 24, 17, 12, 8, 3, 1, 30):
            await pilot.resize_terminal(width, 24)
            await settle(pilot)
            assert rig.app.is_running
            bar = bar_of(rig.app)
            line = painted_bar(rig.app)
            assert bar.size.width == width and len(line) == width
            check_spans_fit(bar, line, width)
            shown = shown_descriptions(bar)
            # keys come in order, as many as fit; the rest are left out entirely
            keys = [d for d in shown if d != palette.description]
            assert keys == [k.description for k in all_keys[: len(keys)]]
            for item in all_keys[len(keys) :]:
                assert f" {item.description} " not in line, (width, item, line)
            if width >= 12:  # " ^p palette" needs 12 cells with its divider
                assert palette.description in shown and line.endswith(PALETTE + " ")
            else:
                assert palette.description not in shown and PALETTE not in line
        assert shown_descriptions(bar)[:2] == ["Open", "Filter"]  # back at 30 columns


async def test_bar_follows_binding_changes():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = rig.app.screen
        before = painted_bar(rig.app)
        assert "s Sort" in before and "q Quit" in before
        await pilot.press("slash")  # the filter field takes the focus and the printable keys
        await settle(pilot)
        assert isinstance(screen.focused, Input)
        during = painted_bar(rig.app)
        assert during != before
        assert "s Sort" not in during and "q Quit" not in during and "y Copy" not in during
        assert "Filter" not in during  # "/" would be typed into the field, not run
        assert "esc Back" in during  # the way out, though escape is not shown elsewhere
        assert during.rstrip().endswith(PALETTE)
        check_spans_fit(bar_of(rig.app), during, SIZE[0])
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(screen.focused, Input)
        assert painted_bar(rig.app) == before


async def test_each_tab_has_its_own_bar():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        agents_line = painted_bar(rig.app)
        await pilot.press("4")  # Stats: no table, so no filter or sort keys
        await settle(pilot)
        stats_line = painted_bar(rig.app)
        assert "Filter" not in stats_line and "Sort" not in stats_line
        assert "q Quit" in stats_line and stats_line.rstrip().endswith(PALETTE)
        assert bar_of(rig.app) is not None
        await pilot.press("1")
        await settle(pilot)
        assert painted_bar(rig.app) == agents_line
