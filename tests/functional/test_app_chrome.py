"""Issue 12's chrome: the problems view (`!`), stale copies said as stale, refresh controls
(`p`, `+`/`-`, `R`, "refreshing…")."""

from __future__ import annotations

import asyncio

import pytest
from app_rig import BASE, Clock, loaded, make_rig, service_for, settle, svg_text
from textual.app import App
from textual.message import Message
from textual.notifications import Notify

from tui.network.store import Store, StoreOptions
from tui.sandbox.app import create_app
from tui.sandbox.generator import DEFAULT_EPOCH
from tui.sandbox.server import in_process_client
from tui.ui.app import RoostApp
from tui.ui.screens.problems import ProblemsScreen
from tui.ui.widgets.status_bar import StatusBar

SIZE = (100, 30)


def status_line(app: RoostApp) -> str:
    return app.screen.query_one(StatusBar).render().plain


def toasts_of(posted: list[Message]) -> list[str]:
    return [m.notification.message for m in posted if isinstance(m, Notify)]


async def test_a_stale_copy_is_said_stale_on_its_tab_and_listed_in_full_in_the_problems_view():
    rig = make_rig(screen="stats")
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert "stale" not in status_line(rig.app)
        network = rig.network
        long_reason = "many " * 40
        network.replace_doc(
            "stats.json", {**network.doc("stats.json"), "total_agents": long_reason}
        )
        await rig.publish(pilot, minutes=9)
        line = status_line(rig.app)
        assert "stale: stats.json, last good copy 9m old" in line
        await pilot.press("1")  # another tab's files are fine: it says nothing stale
        await settle(pilot)
        assert "stale" not in status_line(rig.app)
        assert "(! lists them)" in status_line(rig.app)
        await pilot.press("exclamation_mark")
        await settle(pilot)
        assert isinstance(rig.app.screen, ProblemsScreen)
        text = rig.app.screen.query_one("#problems-text").render().plain
        assert "stats.json          stale (invalid)" in text
        problem = rig.store.snapshot.file("stats.json").problem
        assert problem is not None and "$.total_agents" in problem.detail
        assert text.count(problem.detail) == 2  # in full, not cut: the file's line and cycle 2
        assert "cycle 2" in text and "cycle 1" in text
        assert text.index("cycle 2") < text.index("cycle 1")  # newest first
        assert "manifest fetched" in text and "requests" in text
        assert "read from http://sandbox.invalid/state/" in text
        await pilot.press("G")  # keys alone: scroll to the end, then close with escape
        await pilot.press("escape")
        assert not isinstance(rig.app.screen, ProblemsScreen)


async def test_a_wrong_read_url_names_the_urls_tried_on_the_tab_and_in_the_view():
    sandbox = create_app(None, seed=7, agents=20, epoch=DEFAULT_EPOCH)
    store = Store(BASE + "/nope", client=in_process_client(sandbox, BASE), clock=Clock())
    app = RoostApp(service_for(store, demo=False), clock=Clock(), poll=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        shown = svg_text(app.export_screenshot())
        assert "HTTP 404 from http://sandbox.invalid/nope/state/agents.json" in shown
        await pilot.press("exclamation_mark")
        await settle(pilot)
        text = app.screen.query_one("#problems-text").render().plain
        for name in ("manifest-hashes.json", "agents.json", "seeds.json"):
            assert f"http://sandbox.invalid/nope/state/{name}" in text
        await pilot.press("q")
        assert not isinstance(app.screen, ProblemsScreen)


def polling_app(interval: float = 3600) -> tuple[RoostApp, Store]:
    sandbox = create_app(None, seed=7, agents=50, epoch=DEFAULT_EPOCH)
    clock = Clock()
    options = StoreOptions(interval_s=interval, jitter=0, min_interval_s=5)
    store = Store(BASE, client=in_process_client(sandbox, BASE), clock=clock, options=options)
    app = RoostApp(service_for(store), clock=clock, poll=True)
    return app, store


async def test_p_pauses_and_resumes_polling_and_plus_minus_change_the_interval():
    app, store = polling_app(interval=60)
    posted: list[Message] = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await asyncio.wait_for(app.loaded.wait(), 20)  # (the polling worker never completes)
        await pilot.pause()
        await pilot.press("p")
        await pilot.pause()
        assert store.paused and app.app_state.paused
        assert "paused (p resumes)" in status_line(app)
        assert "Refreshing paused: p resumes, r refreshes once" in toasts_of(posted)
        await pilot.press("plus")
        assert store.options.interval_s == 120
        await pilot.press("minus", "minus")
        assert store.options.interval_s == 30
        assert app.app_state.interval_s == 30
        assert "Refreshing every 30s" in toasts_of(posted)
        for _ in range(12):
            await pilot.press("minus")
        assert store.options.interval_s == 5  # the floor
        await pilot.press("p")
        await pilot.pause()
        assert not store.paused and "paused" not in status_line(app)
        cycles = store.last_report.cycle
        await pilot.press("R")  # a forced cycle runs through the polling loop
        for _ in range(400):
            if store.last_report.cycle > cycles:
                break
            await asyncio.sleep(0.01)
        assert store.last_report.forced
        for _ in range(100):
            await pilot.pause(0.02)
            if app.app_state.reports[-1].forced:
                break
        assert app.app_state.reports[-1].forced


async def test_refreshing_is_shown_while_a_cycle_runs():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert "refreshing" not in status_line(rig.app)
        rig.faults.latency = 1.2  # longer than the status follow-up's 0.5 s interval, twice
        task = asyncio.create_task(rig.store.refresh())  # a polled cycle, not asked by a key
        for _ in range(100):
            await pilot.pause(0.05)
            if "refreshing" in status_line(rig.app):
                break
        assert "refreshing\u2026" in status_line(rig.app)
        rig.faults.latency = 0
        await task
        await settle(pilot)
        assert "refreshing" not in status_line(rig.app)


async def test_a_folder_read_url_is_said_once_in_a_toast():
    rig = make_rig()
    posted: list[Message] = []
    async with rig.app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await loaded(pilot)
        rig.store.last_report.notes.append("x")  # a report's notes become toasts

        report = rig.store.last_report
        rig.app.post_message(RoostApp.StateRefreshed(rig.store.snapshot, report, rig.store.status))
        await settle(pilot)
        assert "x" in toasts_of(posted)


async def test_help_shows_roosts_keys_grouped_in_a_stable_order_and_nothing_of_textuals():
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = rig.app.screen.query_one("#help-keys").render().plain
        for textuals in ("Focus Next", "Focus Previous", "Copy selected text", "super+c"):
            assert textuals not in text
        titles = [line for line in text.splitlines() if line and not line.startswith(" ")]
        assert titles[:4] == ["Agents", "Tabs", "Refreshing", "Everywhere"]
        for key in ("p ", "R ", "+ ", "- ", "! "):
            assert any(line.lstrip().startswith(key) for line in text.splitlines()), key
        shot = svg_text(rig.app.export_screenshot())
        hint = next(line for line in shot.splitlines() if "escape closes" in line)
        assert "! problems" in hint  # the hint is whole on one line at 80 columns
        palette_line = next(line for line in text.splitlines() if "Command palette" in line)
        assert len(palette_line) <= 72  # fits the dialog: no wrapped line


async def test_the_palette_keeps_only_the_theme_of_textuals_commands():
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        titles = [command.title for command in rig.app.get_system_commands(rig.app.screen)]
        assert titles == ["Theme"]
        await pilot.press("ctrl+p")
        await settle(pilot)
        shot = svg_text(rig.app.export_screenshot())
        for textuals in ("Screenshot", "Maximize", "Keys", "Quit the application"):
            assert textuals not in shot


async def test_O_without_a_browser_copies_and_shows_a_clickable_link_never_claims_it_opened(
    monkeypatch,
):
    from textual.widgets import Static

    from tui.ui.screens.link import LinkScreen

    monkeypatch.setattr(
        "tui.browser.browser_unavailable", lambda: "no browser can open over SSH without a display"
    )
    tried: list[str] = []
    monkeypatch.setattr("tui.browser.open_in_browser", lambda url: tried.append(url) or True)
    rig = make_rig(screen="trending")
    posted: list[Message] = []
    async with rig.app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await loaded(pilot)
        url = rig.app.screen.link_url()
        assert url and url.startswith("http")
        await pilot.press("O")
        await settle(pilot)
        assert tried == []
        assert rig.app.clipboard == url  # sent with OSC 52
        assert isinstance(rig.app.screen, LinkScreen)
        text = rig.app.screen.query_one("#link-text", Static).visual
        line = rig.app.screen.query_one("#link-url").render()
        spans = [span for span in line.spans if getattr(span.style, "link", None) == url]
        assert spans, "the URL is a hyperlink (OSC 8)"
        assert "over SSH" in text.plain and "Not opened" in text.plain
        assert not any("Opening" in t or "Asked your browser" in t for t in toasts_of(posted))
        await pilot.press("escape")
        assert not isinstance(rig.app.screen, LinkScreen)


async def test_O_where_no_browser_takes_the_link_says_so(monkeypatch):
    from tui.ui.screens.link import LinkScreen

    monkeypatch.setattr("tui.browser.browser_unavailable", lambda: None)
    monkeypatch.setattr("tui.browser.open_in_browser", lambda url: False)
    rig = make_rig(screen="trending")
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("O")
        await rig.app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(rig.app.screen, LinkScreen)
        assert "no browser took the link" in rig.app.screen.reason


@pytest.mark.slow
async def test_tab_then_enter_goes_to_a_channel_at_every_width():
    from textual.widgets import OptionList

    from tui.ui.screens.channels import ChannelsScreen

    for size in ((80, 24), (120, 40), (160, 50)):
        rig = make_rig()
        async with rig.app.run_test(size=size) as pilot:
            await loaded(pilot)
            await pilot.press("enter")
            await settle(pilot)
            await pilot.press("tab")
            await pilot.pause()
            assert isinstance(rig.app.focused, OptionList), size
            await pilot.press("down", "enter")  # past the agent's posts, its first channel
            await settle(pilot)
            assert isinstance(rig.app.screen, ChannelsScreen), size


def test_status_bar_says_the_loop_failed_and_shows_the_outbox_needing_attention():
    from datetime import UTC, datetime

    from tui.network.store import Snapshot, StoreStatus
    from tui.ui.widgets.status_bar import status_parts

    now = datetime(2026, 11, 23, tzinfo=UTC)
    failed = StoreStatus(state="failed", loop_error="TypeError: boom", next_delay_s=40)
    parts = status_parts(
        service="svc", snapshot=Snapshot.empty(), status=failed, now=now,
        outbox="outbox: 1 sending · 2 failed",
    )  # fmt: skip
    texts = [text for text, _kind in parts]
    assert "refresh loop failed: TypeError: boom, retrying in 40s" in texts
    assert "outbox: 1 sending · 2 failed (o)" in texts
    quiet = status_parts(service="svc", snapshot=Snapshot.empty(), status=failed, now=now)
    assert not any("outbox" in text for text in [t for t, _ in quiet])


async def test_status_bar_is_redrawn_only_when_its_text_changes(monkeypatch):
    """An idle session over SSH is sent almost nothing: the age under a minute counts in steps
    of ten seconds, and the bar's second tick draws nothing while its text stays the same."""
    from datetime import UTC, datetime, timedelta

    from tui.network.store import Snapshot, StoreStatus
    from tui.ui.app_state import AppState
    from tui.ui.widgets.status_bar import StatusBar, status_parts

    now = datetime(2026, 11, 23, tzinfo=UTC)
    status = StoreStatus(state="online", last_success=now)

    def said(seconds: float) -> str:
        parts = status_parts(
            service="svc", snapshot=Snapshot.empty(), status=status,
            now=now + timedelta(seconds=seconds),
        )  # fmt: skip
        return parts[1][0]

    assert [said(s) for s in (0, 9.9, 10, 59, 60, 125)] == [
        "updated 0s ago", "updated 0s ago", "updated 10s ago", "updated 50s ago",
        "updated 1m ago", "updated 2m ago",
    ]  # fmt: skip
    clock = [now]
    state = AppState(service="svc", status=status, clock=lambda: clock[0])
    bar = StatusBar(state)

    class One(App[None]):
        def compose(self):
            yield bar

    async with One().run_test(size=(80, 3)) as pilot:
        await pilot.pause()
        redrawn: list[object] = []
        monkeypatch.setattr(bar, "refresh", lambda *a, **k: redrawn.append(a))
        clock[0] = now + timedelta(seconds=5)
        bar._tick()
        assert not redrawn
        clock[0] = now + timedelta(seconds=12)
        bar._tick()
        assert redrawn
