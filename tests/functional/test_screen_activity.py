"""Tab 8, Activity: the change log newest first in words, read only once the tab is shown;
new rows marked for a cycle; type and agent filters; enter goes to what a row is about; what it
says where the log is not published; hostile text."""

from __future__ import annotations

import pytest
from app_rig import loaded, painted, settle
from hostile import assert_clean_terminal, hostile_documents, hostile_pulse
from pulse_app_rig import make_pulse_rig, pulse_docs, wait_for
from textual.widgets import OptionList

from tui.network.state_files import CHANGES
from tui.sandbox.generator import DEFAULT_EPOCH, iso
from tui.sandbox.published import DemoNetwork
from tui.ui.screens.activity import ActivityScreen
from tui.ui.screens.agents import AgentsScreen
from tui.ui.screens.thread import ThreadScreen


def summary(screen: ActivityScreen) -> str:
    return screen.query_one(".table-summary").render().plain


def screen_text(app) -> str:
    return "\n".join("".join(chop.text for chop in row) for row in painted(app).strips)


async def open_activity(pilot, key: str = "8") -> ActivityScreen:
    await pilot.press(key)
    await wait_for(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, ActivityScreen)
            and pilot.app.screen.ready
            and not pilot.app.screen.building
            and pilot.app.screen.table.total_count > 0
        ),
    )
    return pilot.app.screen


def texts(screen: ActivityScreen) -> list[str]:
    return [screen.table.get_row(key).cells[2] for key in screen.table.visible_keys()]


async def test_the_feed_newest_first_in_words_read_only_once_the_tab_is_shown() -> None:
    rig = make_pulse_rig(agent=None)
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        assert CHANGES not in rig.store.file_names  # never at roost's start
        screen = await open_activity(pilot)
        assert CHANGES in rig.store.file_names
        assert screen.table.total_count == 31
        shown = texts(screen)
        assert shown[0] == "zion-welcomer-03 sent a heartbeat"  # the newest
        assert "audit: 1 marked dormant · 57 active · 3 dormant" in shown
        assert "zion-archivist-01 went dormant" in shown
        assert "zion-contrarian-01 joined" in shown
        ages = [screen.table.get_row(key).cells[0] for key in screen.table.visible_keys()]
        assert ages[0] == "2h" and ages[-1] == "10h"
        assert summary(screen).startswith("31 changes · type: all")


async def test_t_cycles_the_types_A_keeps_one_agent_escape_clears() -> None:
    rig = make_pulse_rig(agent=None)
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        screen = await open_activity(pilot)
        await pilot.press("t")  # the first type in the feed: heartbeat
        await settle(pilot)
        assert "type: heartbeat" in summary(screen)
        assert all(t.endswith("sent a heartbeat") for t in texts(screen))
        types = screen.types()
        for _ in types[1:]:
            await pilot.press("t")
        await settle(pilot)
        assert f"type: {types[-1]}" in summary(screen)
        await pilot.press("t")  # round again: every type
        await settle(pilot)
        assert screen.table.row_count == 31
        await pilot.press("G")  # the oldest: zion-philosopher-01's heartbeat
        await pilot.press("A")
        await settle(pilot)
        assert "agent: zion-philosopher-01" in summary(screen)
        assert texts(screen) and all("zion-philosopher-01" in t for t in texts(screen))
        await pilot.press("escape")
        await settle(pilot)
        assert screen.table.row_count == 31 and "agent:" not in summary(screen)
        await pilot.press("slash", *"dormant", "enter")
        await settle(pilot)
        assert screen.table.row_count == 2  # the dormancy, and the audit that counted it


async def test_enter_goes_to_what_a_row_is_about_and_backspace_comes_back() -> None:
    rig = make_pulse_rig(agent=None)
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        screen = await open_activity(pilot)
        key = screen.table.cursor_key
        await pilot.press("enter")
        await settle(pilot)
        agents = rig.app.screen
        assert isinstance(agents, AgentsScreen) and agents.detail.key == "zion-welcomer-03"
        await pilot.press("escape", "backspace")
        await settle(pilot)
        assert rig.app.screen is screen and screen.table.cursor_key == key
        # an audit names nobody: enter shows its detail, with its counts
        audit = next(
            k for k in screen.table.visible_keys() if screen.model(k).type == "heartbeat_audit"
        )
        screen.table.move_cursor_to(audit)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.detail_open
        body = screen.detail.query_one("#detail-body").render().plain
        assert body.split("total_active")[1].split("\n")[0].strip() == "57"


async def test_a_row_about_a_post_reads_its_thread() -> None:
    rig = make_pulse_rig(agent=None)
    docs = pulse_docs(list(rig.network.doc("agents.json")["agents"]))["changes.json"]
    upvote = {"ts": iso(DEFAULT_EPOCH), "type": "upvote", "id": "zion-coder-02", "discussion": 129}
    docs["changes"].append(upvote)
    rig.network.replace_doc(CHANGES, docs)
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        screen = await open_activity(pilot)
        row = screen.model(screen.table.cursor_key)
        assert row.post == 129
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(rig.app.screen, ThreadScreen) and rig.app.screen.number == 129


async def test_rows_that_arrived_with_a_refresh_are_marked_for_that_cycle() -> None:
    rig = make_pulse_rig(agent=None)
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        screen = await open_activity(pilot)
        assert not screen.table.marked
        changes = rig.network.doc(CHANGES)
        changes["changes"].append(
            {"ts": iso(DEFAULT_EPOCH), "type": "new_agent", "id": "night-owl"}
        )
        rig.network.replace_doc(CHANGES, changes)
        await rig.publish(pilot)
        await wait_for(pilot, lambda: screen.table.total_count == 32)
        new = screen.table.visible_keys()[0]
        assert screen.table.get_row(new).cells[2] == "night-owl joined"
        assert screen.table.marked == {new}
        assert "highlighted: new or changed" in summary(screen)
        await rig.publish(pilot)  # a cycle with nothing new: the mark goes
        assert not screen.table.marked


async def test_a_refresh_narrows_its_new_rows_by_the_type_filter_on() -> None:
    rig = make_pulse_rig(agent=None)
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        screen = await open_activity(pilot)
        await pilot.press("t")  # heartbeats only
        await settle(pilot)
        before = screen.table.row_count
        changes = rig.network.doc(CHANGES)
        changes["changes"] += [
            {"ts": iso(DEFAULT_EPOCH), "type": "new_agent", "id": "night-owl"},
            {"ts": iso(DEFAULT_EPOCH), "type": "heartbeat", "id": "night-owl"},
        ]
        rig.network.replace_doc(CHANGES, changes)
        await rig.publish(pilot)
        await wait_for(pilot, lambda: screen.table.total_count == 33)
        assert screen.table.row_count == before + 1
        assert texts(screen)[0] == "night-owl sent a heartbeat"
        assert all(t.endswith("sent a heartbeat") for t in texts(screen))


async def test_where_the_log_is_not_published_it_says_so() -> None:
    rig = make_pulse_rig(agent=None)
    rig.faults.unpublished = {CHANGES}
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("8")
        await wait_for(pilot, lambda: rig.app.snapshot.file(CHANGES).integrity == "absent")
        screen = rig.app.screen
        assert screen.table.empty_message.startswith(
            "This deployment does not publish changes.json"
        )
        assert "Error" not in screen_text(rig.app)


async def test_an_agents_activity_link_opens_the_tab_narrowed_to_it() -> None:
    rig = make_pulse_rig(agent=None)
    async with rig.app.run_test(size=(140, 40)) as pilot:
        await loaded(pilot)
        agents: AgentsScreen = rig.app.screen
        agents.table.move_cursor_to("zion-coder-03")
        await pilot.press("enter")
        await settle(pilot)
        links = agents.detail.query_one("#detail-links", OptionList)
        labels = [str(links.get_option_at_index(i).prompt) for i in range(links.option_count)]
        links.focus()
        links.highlighted = labels.index("activity of zion-coder-03")
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(rig.app.screen, ActivityScreen) and rig.app.screen.ready,
        )
        screen = rig.app.screen
        await wait_for(pilot, lambda: screen.table.total_count > 0)
        assert screen.agent_filter == "zion-coder-03"
        assert texts(screen) == ["zion-coder-03 sent a heartbeat", "zion-coder-03 was poked"]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_hostile_text_in_every_field_of_the_feed(size) -> None:
    documents = hostile_documents()
    agents = list(documents["agents.json"]["agents"])
    network = DemoNetwork({**documents, **hostile_pulse(agents)}, generated_at=iso(DEFAULT_EPOCH))
    rig = make_pulse_rig(network=network, agent=None, size_agents=len(agents))
    async with rig.app.run_test(size=size) as pilot:
        await loaded(pilot)
        screen = await open_activity(pilot)
        assert_clean_terminal(rig.app)
        for _ in range(len(screen.types()) + 1):
            await pilot.press("t")
            await pilot.pause()
            assert_clean_terminal(rig.app)
        for key in screen.table.visible_keys()[:12]:
            screen.open_detail(key)
            await pilot.press("J")
            await pilot.pause()
            assert_clean_terminal(rig.app)
            await pilot.press("J")
            screen.close_detail()
        await pilot.press("s", "s", "S")
        await settle(pilot)
        assert_clean_terminal(rig.app, svg=True)
        assert rig.app.is_running


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_activity(snap_compare, size):
    async def run_before(pilot) -> None:
        await loaded(pilot)
        await open_activity(pilot)
        await pilot.press("j", "j")
        await settle(pilot)

    app = make_pulse_rig(agent=None).app
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_activity_one_type(snap_compare, size):
    async def run_before(pilot) -> None:
        await loaded(pilot)
        screen = await open_activity(pilot)
        while screen.type_filter != "poke":
            await pilot.press("t")
        await settle(pilot)

    app = make_pulse_rig(agent=None).app
    assert snap_compare(app, terminal_size=size, run_before=run_before)
