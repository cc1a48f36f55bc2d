"""The keys k9s and lazygit users reach for, on the table tabs: vim motion, raw JSON
on ``J`` that opens at its top under a heading and does not stick, a find in the detail."""

from __future__ import annotations

from app_rig import loaded, make_rig, settle

from tui.network.models import replace as model_replace
from tui.ui.screens.agents import AgentsScreen

WIDE = (140, 40)


def body_text(screen: AgentsScreen) -> str:
    return screen.detail.query_one("#detail-body").render().plain


def summary_text(screen: AgentsScreen) -> str:
    return screen.query_one(".table-summary").render().plain


async def test_vim_motion_in_the_table() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        table = screen.table
        keys = table.visible_keys()
        await pilot.press("j", "j")
        assert table.cursor_key == keys[2]
        await pilot.press("k")
        assert table.cursor_key == keys[1]
        await pilot.press("G")
        assert table.cursor_key == keys[-1]
        await pilot.press("g")
        assert table.cursor_key == keys[0]
        await pilot.press("ctrl+d")
        half = table.cursor_row
        assert half >= 5
        await pilot.press("ctrl+d", "ctrl+u")
        assert table.cursor_row == half
        assert not screen.detail_open  # j moved the cursor; no detail opened


async def test_raw_json_opens_at_its_top_with_a_heading_and_does_not_stick() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=(140, 14)) as pilot:  # short: the texts scroll
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        first = screen.table.cursor_key
        await pilot.press("enter", "l")
        assert screen.detail.has_focus
        await pilot.press("G")  # the detail scrolled to its end
        await settle(pilot)
        await pilot.press("J")
        await pilot.pause()
        assert body_text(screen).startswith(f"raw JSON of agent {first}")
        assert screen.detail.scroll_y == 0
        await settle(pilot)
        await pilot.press("G")
        await settle(pilot)
        assert screen.detail.scroll_y > 0
        await pilot.press("home")
        await settle(pilot)
        assert screen.detail.scroll_y == 0
        await pilot.press("h")
        assert screen.table.has_focus
        await pilot.press("escape")  # closes the detail: the raw mode ends with it
        await pilot.press("j", "enter")
        assert screen.detail.key != first
        assert '"heartbeat_last"' not in body_text(screen)
        await pilot.press("J")
        assert '"heartbeat_last"' in body_text(screen)
        # a palette jump (select_key) opens the record's detail, never its raw JSON
        screen.select_key(first)
        await settle(pilot)
        assert screen.detail.key == first
        assert '"heartbeat_last"' not in body_text(screen)


async def test_find_in_the_detail_and_its_raw_view() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=WIDE) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        await pilot.press("enter", "l", "J", "slash", *"karma", "enter")
        await pilot.pause()
        detail = screen.detail
        assert detail.has_focus
        assert detail.match_count >= 2  # "karma" and "karma_balance"
        assert f"find 1/{detail.match_count}" in summary_text(screen)
        assert screen.table.row_count == screen.table.total_count  # the table is not filtered
        await pilot.press("n")
        assert detail.current == 1
        assert f"find 2/{detail.match_count}" in summary_text(screen)
        await pilot.press("N", "N")
        assert detail.current == detail.match_count - 1
        await pilot.press("escape")  # ends the find, the detail stays
        assert detail.match_count == 0 and detail.display
        await pilot.press("h", "slash", *"zzzz-no-such", "enter")
        assert screen.table.row_count == 0  # on the table "/" still filters


async def test_columns_fit_their_content_ids_whole_free_text_yields_first() -> None:
    """Ids are whole at 80 and 120 columns, the name (free text) yields, and
    the sort arrow does not crush a title that fits."""
    for size in ((80, 24), (120, 40)):
        rig = make_rig()
        async with rig.app.run_test(size=size) as pilot:
            await loaded(pilot)
            screen: AgentsScreen = rig.app.screen
            table = screen.table
            await pilot.press("s", "f", "g")  # sorted by framework, from the top
            await settle(pilot)
            ids = table.visible_keys()[:20]
            lines = ["".join(segment.text for segment in table.render_line(y)) for y in range(21)]
            assert "framework" in lines[0] and "\u2026" not in lines[0], lines[0]
            for key, line in zip(ids, lines[1:], strict=True):
                assert f" {key} " in line, (size, line)
            if size == (80, 24):
                assert any("\u2026" in line.split(ids[0])[-1] for line in lines[1:])


async def test_vim_keys_on_the_shared_table_have_stable_ids() -> None:
    from tui.ui.table.virtual_table import VirtualTable

    keys = {binding.key: binding.id for binding in VirtualTable.BINDINGS}
    assert keys["j"] == "virtual_table.vim_down" and keys["ctrl+d"] == "virtual_table.half_down"


async def test_no_marks_after_a_start_from_the_disk_cache(tmp_path) -> None:
    """The first refresh after a start from an older disk cache marks nothing;
    the next one marks what it changed."""
    from app_rig import BASE, service_for
    from test_app import sandbox_client

    from tui.network.disk_cache import DiskCache
    from tui.network.store import Store
    from tui.ui.app import RoostApp

    rig = make_rig()
    cache = DiskCache(tmp_path / "cache")
    warm = Store(BASE, client=sandbox_client(rig), cache=cache, clock=rig.clock)
    await warm.refresh()
    agents = list(rig.network.doc("agents.json")["agents"])
    for target in agents[:5]:  # the service moved on since the cache was written
        rig.network.apply(
            "poke", {"target_agent": target}, agents[-1], rig.clock.advance(minutes=1)
        )
    store = Store(BASE, client=sandbox_client(rig), cache=cache, clock=rig.clock)
    app = RoostApp(service_for(store, demo=False), clock=rig.clock, poll=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        for _ in range(250):
            if store.snapshot.file("agents.json").integrity != "cached":
                break
            await pilot.pause(0.01)
        await settle(pilot)
        screen: AgentsScreen = app.screen
        assert screen.table.total_count == len(agents)
        assert store.snapshot.file("agents.json").integrity == "verified"
        assert not screen.table.marked
        rig.network.apply(
            "poke", {"target_agent": agents[7]}, agents[-1], rig.clock.advance(minutes=1)
        )
        await store.refresh()
        await settle(pilot)
        assert agents[7] in screen.table.marked


async def test_table_ages_count_on_between_refreshes() -> None:
    """The heartbeat ages re-tick with the clock, as Stats does."""
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        table = screen.table
        key = table.cursor_key
        before = table.get_row(key).cells[-1]
        rig.clock.advance(days=400)
        screen.tick_ages()
        await pilot.pause()
        after = table.get_row(key).cells[-1]
        assert after != before and after.endswith(("y", "d")), (before, after)
        line = "".join(segment.text for segment in table.render_line(1))
        assert after in line


async def test_trending_panels_mark_changed_rows() -> None:
    """The top panels mark what changed, as the main table does."""
    from types import MappingProxyType

    from msgspec.structs import replace

    rig = make_rig(screen="trending")
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen = rig.app.screen
        panel = screen.query_one("#top-agents")
        snapshot = rig.store.snapshot
        trending = snapshot.trending
        first = trending.top_agents[0]
        changed = model_replace(first, posts=first.posts + 5)
        model = model_replace(trending, top_agents=(changed, *trending.top_agents[1:]))
        files = dict(snapshot.files)
        files["trending.json"] = replace(files["trending.json"], model=model)
        newer = replace(snapshot, files=MappingProxyType(files), generation=snapshot.generation + 1)
        screen.show_snapshot(newer, frozenset({"trending.json"}))
        await settle(pilot)
        assert panel.marked == {first.agent_id}
        screen.clear_marks()
        assert not panel.marked


async def test_a_burst_that_picks_a_sort_twice_closes_the_picker_once() -> None:
    """``s`` then two column keys in one burst: the first picks and closes the picker, the
    second acts where it closed to; it never closes the screen below (that crashed roost)."""
    from textual import events

    from tui.ui.screens.sort_picker import SortPicker

    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(rig.app.screen, SortPicker)
        for key in ("f", "f", "j"):  # framework, then a second "f" and a "j" in the burst
            rig.app.post_message(events.Key(key, key))
        await settle(pilot)
        assert rig.app.screen is screen and rig.app.is_running
        assert screen.table.sort_column == "framework"
        await pilot.press("s")
        await settle(pilot)
        for key in ("escape", "escape", "j"):  # the first closes it; the others come after
            rig.app.post_message(events.Key(key, "\x1b" if key == "escape" else key))
        for _ in range(5):
            await pilot.pause()
        assert len(rig.app.screen_stack) == 1 and rig.app.screen is screen


async def test_keys_typed_after_the_key_that_opens_a_picker_land_in_it() -> None:
    """``s f`` in one burst sorts by framework; ``ctrl+p`` then text in one burst is the
    palette's search; ``n`` then text is the action picker's filter."""
    from textual import events
    from textual.command import CommandPalette

    from tui.ui.screens.forms.picker import ActionPicker

    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        for key in ("s", "f"):
            rig.app.post_message(events.Key(key, key))
        await settle(pilot)
        assert rig.app.screen is screen and screen.table.sort_column == "framework"
        rig.app.post_message(events.Key("ctrl+p", None))
        for ch in "coder":
            rig.app.post_message(events.Key(ch, ch))
        await settle(pilot)
        palette = rig.app.screen
        assert isinstance(palette, CommandPalette)
        assert palette.query_one("Input").value == "coder"
        await pilot.press("escape")
        await settle(pilot)
        rig.app.post_message(events.Key("n", "n"))
        for ch in "poke":
            rig.app.post_message(events.Key(ch, ch))
        await settle(pilot)
        picker = rig.app.screen
        assert isinstance(picker, ActionPicker), picker
        assert picker.query_one("Input").value == "poke"
