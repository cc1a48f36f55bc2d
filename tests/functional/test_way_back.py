"""A way back: a jump records where the user was; ``backspace`` (or ``escape`` with
nothing open) returns there with the same tab, row, filter and detail."""

from __future__ import annotations

from app_rig import loaded, make_rig, settle
from textual.widgets import OptionList

from tui.ui.screens.agents import AgentsScreen
from tui.ui.screens.base import StateScreen


async def _jump_from_agent_detail_to_a_channel(pilot, screen: AgentsScreen) -> tuple[str, str]:
    """Filter Agents down to an agent with channels, open its detail, follow its first channel
    link; the (agent id, filter) the user had."""
    agent_id = next(
        key for key in screen.table.visible_keys() if screen.model(key).subscribed_channels
    )
    query = agent_id[:-1]
    await pilot.press("slash", *query, "enter")
    await settle(pilot)
    screen.table.move_cursor_to(agent_id)
    await pilot.press("enter")
    await settle(pilot)
    assert screen.detail.key == agent_id
    links = screen.detail.query_one("#detail-links", OptionList)
    links.focus()
    links.highlighted = 1  # the first subscribed channel (the agent's posts come first)
    await pilot.press("enter")
    await settle(pilot)
    assert pilot.app.screen.TAB_ID == "channels"
    return agent_id, query


async def test_backspace_returns_to_the_row_filter_and_detail_before_the_jump() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=(140, 40)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        agent_id, query = await _jump_from_agent_detail_to_a_channel(pilot, screen)
        await pilot.press("backspace")
        await settle(pilot)
        assert rig.app.screen is screen
        assert screen.table.filter_query == query
        assert screen.table.cursor_key == agent_id
        assert screen.detail.display and screen.detail.key == agent_id
        await pilot.press("backspace")  # the history is empty now: nothing moves
        await settle(pilot)
        assert rig.app.screen is screen


async def test_escape_with_nothing_open_goes_back_too() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=(140, 40)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        agent_id, query = await _jump_from_agent_detail_to_a_channel(pilot, screen)
        channels = rig.app.screen
        await pilot.press("escape")  # first closes the channel's detail opened by the jump
        await settle(pilot)
        assert rig.app.screen is channels
        await pilot.press("escape")
        await settle(pilot)
        assert rig.app.screen is screen
        assert screen.table.filter_query == query
        assert screen.table.cursor_key == agent_id


async def test_a_palette_jump_on_the_same_tab_is_undone_filter_and_all() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=(140, 40)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        keys = screen.table.visible_keys()
        kept = keys[1]
        await pilot.press("slash", *kept, "enter")
        await settle(pilot)
        screen.table.move_cursor_to(kept)
        other = next(key for key in keys if kept not in key)
        rig.app.post_message(StateScreen.JumpRequested("agents", other))  # as the palette does
        await settle(pilot)
        assert screen.table.cursor_key == other
        assert screen.table.filter_query == ""  # the jump cleared the filter to reach its row
        await pilot.press("backspace")
        await settle(pilot)
        assert screen.table.filter_query == kept
        assert screen.table.cursor_key == kept
        assert not screen.detail.display
