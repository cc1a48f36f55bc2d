"""The inbox (``i``): the set agent's notifications and the pokes aimed at it, newest first,
unread marked; read kept locally; a poke pin's thread, the sender, answers; a toast once per
new item; what it says without an agent or where nothing is published; hostile text."""

from __future__ import annotations

import pytest
from app_rig import loaded, painted, settle
from hostile import LITERALS, PAYLOADS, assert_clean_terminal, hostile_documents, hostile_pulse
from pulse_app_rig import ME, PIN, make_pulse_rig, pulse_docs, wait_for

from tui.actions.action_context import ActionContext
from tui.network.state_files import NOTIFICATIONS, POKES
from tui.pulse.inbox import ReadState
from tui.sandbox.generator import DEFAULT_EPOCH, iso
from tui.sandbox.published import DemoNetwork
from tui.ui.screens.agents import AgentsScreen
from tui.ui.screens.inbox import NO_AGENT, NOTHING_PUBLISHED, InboxScreen
from tui.ui.screens.thread import ThreadScreen
from tui.ui.widgets.status_bar import StatusBar


def screen_text(app) -> str:
    return "\n".join("".join(chop.text for chop in row) for row in painted(app).strips)


def status_text(app) -> str:
    return app.screen.query_one(StatusBar).render().plain


def summary(screen: InboxScreen) -> str:
    return screen.query_one(".table-summary").render().plain


async def open_inbox(pilot) -> InboxScreen:
    await pilot.press("i")
    await wait_for(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, InboxScreen)
            and pilot.app.screen.ready
            and not pilot.app.screen.building
            and (pilot.app.screen.table.total_count or not pilot.app.screen.agent)
        ),
    )
    return pilot.app.screen


async def test_the_agents_items_newest_first_unread_marked() -> None:
    rig = make_pulse_rig()
    async with rig.app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        screen = await open_inbox(pilot)
        rows = [screen.table.get_row(key) for key in screen.table.visible_keys()]
        cells = [row.cells for row in rows]
        # the poke and its "poke" notification are one row: the poke (its pin, its place)
        assert [c[2:4] for c in cells] == [
            ("poke", "zion-philosopher-01"),
            ("follow", "zion-debater-01"),
            ("poke", "zion-storyteller-01"),
            ("mention", "zion-welcomer-01"),
            ("media_verified", "system"),
        ]
        assert [c[1] for c in cells] == ["5m", "20m", "45m", "1h", "10h"]
        assert cells[0][5] == f"#{PIN}" and cells[1][5] == ""
        # the deployment's "read" counts: the media verdict is not marked
        assert [bool(str(c[0])) for c in cells] == [True, True, True, True, False]
        assert "inbox of zion-coder-01 · 4 unread" in summary(screen)
        assert "zion-coder-01 · 4 unread (i)" in status_text(rig.app)
        # other agents' items are not here
        assert all("zion-researcher" not in str(c) for c in cells)


async def test_with_an_agent_the_files_are_read_after_the_first_refresh_not_at_start() -> None:
    rig = make_pulse_rig()
    asked_when_loaded: list[bool] = []
    want = rig.store.want

    async def noted(*names: str) -> frozenset[str]:
        if NOTIFICATIONS in names:
            asked_when_loaded.append(rig.app.loaded.is_set())
        return await want(*names)

    rig.store.want = noted  # type: ignore[method-assign]
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await wait_for(pilot, lambda: rig.app.snapshot.notifications is not None)
        assert asked_when_loaded == [True]  # once, after the first refresh was shown
        assert "zion-coder-01 · 4 unread (i)" in status_text(rig.app)


async def test_without_an_agent_it_says_how_to_set_one_and_reads_nothing() -> None:
    rig = make_pulse_rig(agent=None)
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert "(i)" not in status_text(rig.app)  # no agent: nothing to count
        screen = await open_inbox(pilot)
        assert screen.table.empty_message == NO_AGENT
        text = screen_text(rig.app)
        for words in ('agent = "your-agent-id"', "ROOST_AGENT", "--agent"):
            assert words in text.replace("\n", " "), words
        await settle(pilot)
        assert NOTIFICATIONS not in rig.store.file_names  # no agent: nothing to read
        await pilot.press("escape")
        assert isinstance(rig.app.screen, AgentsScreen)


async def test_a_deployment_that_publishes_neither_file_says_so() -> None:
    rig = make_pulse_rig()
    rig.faults.unpublished = {NOTIFICATIONS, POKES}
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("i")
        await wait_for(
            pilot,
            lambda: (
                rig.app.snapshot.file(POKES).integrity == "absent"
                and rig.app.snapshot.file(NOTIFICATIONS).integrity == "absent"
            ),
        )
        screen = rig.app.screen
        assert isinstance(screen, InboxScreen)
        assert screen.table.empty_message == NOTHING_PUBLISHED
        assert "Error" not in screen_text(rig.app)


async def test_one_file_unpublished_is_said_on_the_summary_line() -> None:
    rig = make_pulse_rig()
    rig.faults.unpublished = {POKES}
    async with rig.app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        await wait_for(pilot, lambda: rig.app.snapshot.file(POKES).integrity == "absent")
        screen = await open_inbox(pilot)
        # without pokes.json the poke pin is its notification, with no pin
        assert screen.table.total_count == 5
        assert "pokes.json is not published here" in summary(screen)


async def test_enter_on_a_poke_pin_reads_its_thread_and_marks_it_read() -> None:
    rig = make_pulse_rig()
    async with rig.app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        screen = await open_inbox(pilot)
        first = screen.table.cursor_key
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(rig.app.screen, ThreadScreen)
        assert rig.app.screen.number == PIN
        assert screen.read.is_read(first)
        await pilot.press("escape")
        await settle(pilot)
        assert rig.app.screen is screen
        assert "3 unread" in summary(screen)
        assert "zion-coder-01 · 3 unread (i)" in status_text(rig.app)
        # t reads the thread too; on a row that names none it says so
        await pilot.press("j", "t")
        await settle(pilot)
        assert rig.app.screen is screen
        assert screen.table.cursor_key != first


async def test_reading_a_row_marks_it_and_R_marks_all_remembered_per_service() -> None:
    rig = make_pulse_rig()
    async with rig.app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        screen = await open_inbox(pilot)
        await pilot.press("j", "enter")  # the follow: no thread, its detail
        await settle(pilot)
        assert screen.detail_open
        body = screen.detail.query_one("#detail-body").render().plain
        assert "follow from zion-debater-01" in body and "zion-debater-01 followed you" in body
        assert "3 unread" in summary(screen)
        assert not str(screen.table.get_row(screen.table.cursor_key).cells[0])
        await pilot.press("escape", "R")
        await settle(pilot)
        assert "unread" not in summary(screen)
        assert "zion-coder-01 · nothing unread (i)" in status_text(rig.app)
        # kept on disk, for this service: a new read state sees every item read
        again = ReadState.for_service(rig.app.service)
        assert all(again.is_read(item.key) or not item.unread for item in screen.items)


async def test_a_goes_to_the_sender_and_backspace_comes_back_to_the_inbox() -> None:
    rig = make_pulse_rig()
    async with rig.app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        screen = await open_inbox(pilot)
        await pilot.press("j", "j")
        key = screen.table.cursor_key
        await pilot.press("a")
        await settle(pilot)
        agents = rig.app.screen
        assert isinstance(agents, AgentsScreen)
        assert agents.detail.key == "zion-storyteller-01"
        assert not any(isinstance(s, InboxScreen) for s in rig.app.screen_stack)
        await pilot.press("escape", "backspace")
        await settle(pilot)
        assert isinstance(rig.app.screen, InboxScreen)
        assert rig.app.screen.table.cursor_key == key


async def test_n_answers_the_sender_and_J_shows_what_was_published() -> None:
    rig = make_pulse_rig()
    async with rig.app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        screen = await open_inbox(pilot)
        assert screen.posting_context() == ActionContext("agent", "zion-philosopher-01")
        await pilot.press("J")
        await settle(pilot)
        body = screen.detail.query_one("#detail-body").render().plain
        assert '"target_agent": "zion-coder-01"' in body and '"space_summon"' in body
        assert "raw JSON of item" in body


async def test_filter_sort_and_i_closes() -> None:
    rig = make_pulse_rig()
    async with rig.app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        screen = await open_inbox(pilot)
        await pilot.press("slash", *"cern", "enter")
        await settle(pilot)
        assert screen.table.row_count == 1  # the poke pin, by its place
        await pilot.press("escape")
        await settle(pilot)
        assert screen.table.row_count == 5
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(rig.app.screen, AgentsScreen)


async def test_a_new_item_raises_a_toast_once_and_the_bell_when_asked() -> None:
    rig = make_pulse_rig(bell=True)
    rings: list[int] = []
    told: list[tuple[str, str | None]] = []
    notify = rig.app.notify

    def noted(message: str, **kwargs) -> None:
        told.append((message, kwargs.get("title")))
        notify(message, **kwargs)

    async with rig.app.run_test(size=(120, 30)) as pilot:
        rig.app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
        rig.app.notify = noted  # type: ignore[method-assign]
        await loaded(pilot)
        await wait_for(pilot, lambda: rig.app.snapshot.notifications is not None)
        toasts = [message for message, title in told if title == "Inbox (i)"]
        assert len(toasts) == 1 and toasts[0].startswith("4 new for zion-coder-01"), toasts
        assert rings == [1]
        docs = pulse_docs(list(rig.network.doc("agents.json")["agents"]))
        notes = docs["notifications.json"]
        notes["notifications"].append(
            {
                "agent_id": ME,
                "type": "mention",
                "from_agent": "zion-researcher-01",
                "timestamp": iso(DEFAULT_EPOCH),
                "read": False,
                "detail": "zion-researcher-01 mentioned you on #127",
            }
        )
        rig.network.replace_doc("notifications.json", notes)
        rig.app.clear_notifications()
        await rig.publish(pilot)
        await wait_for(pilot, lambda: "5 unread" in status_text(rig.app))
        toasts = [n.message for n in rig.app._notifications]
        assert toasts == [
            "mention from zion-researcher-01: zion-researcher-01 mentioned you on #127"
        ]
        assert rings == [1, 1]
        rig.app.clear_notifications()
        rig.network.replace_doc("pokes.json", docs["pokes.json"] | {"_meta": {"count": 0}})
        await rig.publish(pilot)  # the files change, nothing new for the agent: no toast
        assert not [n for n in rig.app._notifications if n.title == "Inbox (i)"]
        assert rings == [1, 1]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_hostile_text_in_every_field_of_the_inbox(size) -> None:
    documents = hostile_documents()
    agents = list(documents["agents.json"]["agents"])
    target = agents[1]  # "a[/]b": markup in the agent id itself
    pulse = hostile_pulse(agents, target=target)
    network = DemoNetwork({**documents, **pulse}, generated_at=iso(DEFAULT_EPOCH))
    rig = make_pulse_rig(network=network, agent=target, size_agents=len(agents))
    async with rig.app.run_test(size=size) as pilot:
        await loaded(pilot)
        screen = await open_inbox(pilot)
        assert screen.table.total_count > 0
        assert_clean_terminal(rig.app)
        for key in screen.table.visible_keys():
            screen.table.move_cursor_to(key)
            screen.open_detail(key)
            await pilot.pause()
            assert_clean_terminal(rig.app)
            await pilot.press("J")
            await pilot.pause()
            assert_clean_terminal(rig.app)
            await pilot.press("J")
            screen.close_detail()
        await pilot.press("R", "s", "s", "S")
        await settle(pilot)
        assert_clean_terminal(rig.app, svg=True)
        assert rig.app.is_running
        text = screen_text(rig.app)
        assert "a[/]b" in text
        if size == (120, 40):
            shown = "\n".join(
                screen.table.get_row(key).cells[4] for key in screen.table.visible_keys()
            )
            assert any(literal in shown for literal in LITERALS[:3])
            assert PAYLOADS[0] in shown


async def test_a_damaged_read_state_file_is_replaced_without_a_fuss() -> None:
    rig = make_pulse_rig()
    path = ReadState.for_service(rig.app.service).path
    assert path is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x00not json[")  # damaged: ignored and replaced
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen = await open_inbox(pilot)
        assert screen.unread_count() == 4
        await pilot.press("R")
        await settle(pilot)
        assert screen.unread_count() == 0


def inbox_steps(*keys: str):
    """A run_before: the inbox open on its rows, ``keys`` pressed, the first toast gone."""

    async def run_before(pilot) -> None:
        await loaded(pilot)
        await open_inbox(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_inbox(snap_compare, size):
    assert snap_compare(make_pulse_rig().app, terminal_size=size, run_before=inbox_steps())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_inbox_poke_pin_detail(snap_compare, size):
    run = inbox_steps("d")  # the poke pin: its place, its thread, answered or not
    assert snap_compare(make_pulse_rig().app, terminal_size=size, run_before=run)


def test_the_status_bar_piece_sits_next_to_the_service_and_is_cleaned():
    from datetime import UTC, datetime

    from tui.network.store import Snapshot, StoreStatus
    from tui.ui.widgets.status_bar import status_parts

    now = datetime(2026, 11, 1, tzinfo=UTC)
    common = {"service": "demo network", "snapshot": Snapshot.empty(), "status": StoreStatus()}
    parts = status_parts(**common, now=now, inbox="a[/]b\x1b · 3 unread", inbox_unread=True)
    assert parts[1] == ("a[/]b\u241b · 3 unread (i)", "warn")
    quiet = status_parts(**common, now=now, inbox="demo-agent · nothing unread")
    assert quiet[1] == ("demo-agent · nothing unread (i)", "muted")
    assert "(i)" not in str(status_parts(**common, now=now))
