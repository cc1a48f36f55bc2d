"""The app driven by keys at 80×24 on the demo network: tabs, filter, sort, detail, help, palette,
copy, live refresh keeping the user's place, and failures that must not crash."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from app_rig import BASE, Clock, loaded, make_rig, service_for, settle, svg_text
from msgspec.structs import replace
from textual.command import CommandPalette
from textual.message import Message
from textual.notifications import Notification, Notify
from textual.widgets import Input

from tui.config import DEMO_BASE_URL, Settings
from tui.network.disk_cache import DiskCache
from tui.network.store import Store, StoreStatus
from tui.sandbox.app import create_app
from tui.sandbox.generator import DEFAULT_EPOCH
from tui.sandbox.server import in_process_client
from tui.service import connect
from tui.ui.app import RoostApp, styles_dir
from tui.ui.screens import SCREENS
from tui.ui.screens.agents import AgentsScreen
from tui.ui.screens.channels import ChannelsScreen
from tui.ui.screens.help import HelpScreen
from tui.ui.screens.trending import TrendingScreen, safe_url
from tui.ui.widgets.status_bar import StatusBar
from tui.ui.widgets.tab_bar import TabBar

SIZE = (80, 24)


class Toasts(list[Notification]):
    """The notifications an app posts (pass as ``run_test(message_hook=...)``)."""

    def __call__(self, message: Message) -> None:
        if isinstance(message, Notify):
            self.append(message.notification)


def sandbox_client(rig) -> httpx.AsyncClient:
    """Another client of the rig's demo network (in process)."""
    return in_process_client(create_app(rig.network), BASE)


def screen_text(app: RoostApp) -> str:
    """What the terminal shows, as plain text lines (from the SVG screenshot's text runs)."""
    return svg_text(app.export_screenshot())


def status_line(app: RoostApp) -> str:
    bar = app.screen.query_one(StatusBar)
    return bar.render().plain


# --------------------------------------------------------------------------- wiring


async def test_the_bars_follow_the_state_the_app_hands_down():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = rig.app.screen
        assert "online" in status_line(rig.app)
        assert "DEMO" in screen_text(rig.app).splitlines()[0]  # "DEMO NETWORK" where it fits
        now = rig.clock()
        status = StoreStatus(
            state="backing-off", last_attempt=now, next_delay_s=90, last_error="boom"
        )
        screen.app_state = replace(screen.app_state, status=status, demo=False, refreshing=True)
        await pilot.pause()
        line = status_line(rig.app)
        assert "refreshing" in line and "backing off, retry in 1m30s" in line
        assert "DEMO" not in screen_text(rig.app).splitlines()[0]


def test_styles_are_found_and_have_no_colour_literals():
    folder = styles_dir()
    import tui

    # the shared sheets, and those of feature folders (beside their screen)
    sheets = sorted(folder.glob("*.tcss")) + sorted(Path(tui.__file__).parent.rglob("ui/**/*.tcss"))
    assert {"app.tcss", "tables.tcss", "trending.tcss", "help.tcss"} <= {p.name for p in sheets}
    import re

    literal = re.compile(r"#[0-9a-fA-F]{3,8}\b|\brgba?\(|\b(red|green|blue|white|black|yellow)\b")
    for sheet in sheets:
        text = re.sub(r"/\*.*?\*/", "", sheet.read_text(), flags=re.S)
        text = re.sub(r"#[A-Za-z_-][\w-]*\s*[{,.:>]", "", text)  # id selectors
        assert not literal.search(text), f"{sheet.name} uses a colour literal"
    # every sheet is loaded by the app or by the screen that uses it (when first shown)
    import importlib
    import pkgutil

    from textual.screen import Screen

    import tui.ui.screens

    for module in pkgutil.walk_packages(tui.ui.screens.__path__, "tui.ui.screens."):
        importlib.import_module(module.name)  # every screen and modal class, tabs or not

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    def paths(owner):
        css = owner.CSS_PATH or ()
        return [css] if isinstance(css, (str, Path)) else list(css)

    owners = [
        RoostApp,
        *SCREENS,
        *(c for c in subclasses(Screen) if c.__module__.startswith("tui.")),
    ]
    assert {Path(p) for owner in owners for p in paths(owner)} == set(sheets)


def test_registry_lists_tabs_in_key_order():
    keys = [screen.TAB_KEY for screen in SCREENS]
    assert keys == sorted(keys)
    assert [s.TAB_ID for s in SCREENS][:3] == ["agents", "trending", "channels"]
    assert SCREENS[-1].TAB_ID == "activity" and SCREENS[-1].TAB_KEY == "8"


async def test_every_tab_by_number_keys_at_80x24():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert isinstance(rig.app.screen, AgentsScreen)
        assert rig.app.screen.table.total_count == 300
        for screen_class in [*SCREENS[1:], SCREENS[0]]:
            await pilot.press(screen_class.TAB_KEY)
            await settle(pilot)
            assert type(rig.app.screen) is screen_class
            tab_bar = rig.app.screen.query_one(TabBar)
            assert tab_bar.active == screen_class.TAB_ID
            line = status_line(rig.app)
            assert "demo network" in line and "all verified" in line and "online" in line
        text = screen_text(rig.app)
        assert "DEMO" in text and "1 Agents" in text and "7 Posts" in text


async def test_quitting_does_not_restyle_the_screens_it_closes(monkeypatch):
    """Closing each tab's screen blurs its focused widget; restyling those subtrees for a
    frame that is never drawn made a quit with every tab open twice a bare app's."""
    rig = make_rig()
    restyled: list[object] = []
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        for key in "234561":
            await pilot.press(key)
            await settle(pilot)
        stylesheet = rig.app.stylesheet
        original = stylesheet.update_nodes

        def counting(nodes, animate=False):
            restyled.extend(nodes)
            return original(nodes, animate=animate)

        monkeypatch.setattr(stylesheet, "update_nodes", counting)
        await pilot.press("2")
        await settle(pilot)
        assert restyled, "the probe sees restyles while the app runs"
        restyled.clear()
        await pilot.press("q")
    assert rig.app.return_code == 0
    assert restyled == []


async def test_full_collections_run_when_no_key_is_being_handled():
    """A full collection started by a key's allocations stalled that key 25-75 ms at 50 000
    agents: the app runs them itself once no key has come for a while."""
    import gc

    from tui.ui.speed import gc_policy

    before = gc.get_threshold()
    rig = make_rig()
    key_pace = rig.app.speed.key_pace
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert gc.get_threshold()[2] > 10**6  # never started by an allocation
        for _ in range(gc_policy.FULL_AFTER):
            gc.collect(1)
        assert gc_policy.full_due()
        key_pace.hold(5)  # keys are being handled: not now
        rig.app.speed._collect_when_idle()
        assert gc_policy.full_due()
        key_pace.release()  # quiet for long enough
        rig.app.speed._collect_when_idle()
        assert not gc_policy.full_due()
        # every few quiet minutes, one that includes what was frozen
        thorough = gc_policy.collect_everything
        calls: list[bool] = []
        gc_policy.collect_everything = lambda: calls.append(thorough()) or True  # type: ignore[assignment]
        try:
            rig.app.speed._collect_when_idle()
            assert calls == []
            rig.app.speed._thorough_at -= 601
            rig.app.speed._collect_when_idle()
            assert calls == [True]
        finally:
            gc_policy.collect_everything = thorough  # type: ignore[assignment]
    assert gc.get_threshold() == before


async def test_tab_bar_click_switches_tabs():
    rig = make_rig()
    posted: list[Message] = []
    async with rig.app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await loaded(pilot)
        line = screen_text(rig.app).splitlines()[0]
        await pilot.click(TabBar, offset=(line.index("3 Channels") + 2, 0))
        await settle(pilot)
        # the bar asks (one message, seen again as it bubbles up), the app switches
        chosen = {id(m): m.tab_id for m in posted if isinstance(m, TabBar.TabChosen)}
        assert list(chosen.values()) == ["channels"]
        assert isinstance(rig.app.screen, ChannelsScreen)


async def test_initial_screen_and_unknown_screen():
    rig = make_rig(screen="trending")
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert isinstance(rig.app.screen, TrendingScreen)
        assert rig.app.screen.table.total_count > 0
    with pytest.raises(ValueError, match="no screen"):
        RoostApp(service_for(rig.store), initial_screen="nests")


# --------------------------------------------------------------------------- agents


async def test_filter_live_as_you_type_and_escape_clears():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        await pilot.press("slash", *"zion-coder")
        assert screen.filter_input.has_focus
        assert 0 < screen.table.row_count < 300
        assert all(
            "zion-coder" in screen.table.get_row(k).haystack for k in screen.table.visible_keys()
        )
        await pilot.press("enter")  # keep the filter, back to the table
        assert screen.table.has_focus and screen.table.filter_query == "zion-coder"
        assert "of 300 agents" in screen.query_one(".table-summary").render().plain
        await pilot.press("escape")
        assert screen.table.row_count == 300 and screen.table.filter_query == ""


async def test_filter_matches_bio_framework_and_channels():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        agents = rig.store.snapshot.agents.agents
        agent_id, agent = next((k, a) for k, a in agents.items() if a.subscribed_channels)
        channel = agent.subscribed_channels[0]
        await pilot.press("slash", *channel)
        assert agent_id in screen.table.visible_keys()
        expected = {
            k
            for k, a in agents.items()
            if channel
            in " ".join((k, a.name, a.bio, a.framework, *(a.subscribed_channels or ()))).lower()
        }
        assert set(screen.table.visible_keys()) == expected


async def test_fast_burst_after_slash_goes_into_the_filter():
    """tmux send-keys '/phil' delivers the keys in one burst."""
    from textual import events

    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        for char in "/zion-sad":
            rig.app.post_message(events.Key("slash" if char == "/" else char, char))
        await settle(pilot)
        screen: AgentsScreen = rig.app.screen
        assert screen.filter_input.value == "zion-sad"
        assert screen.table.sort_column is None  # the "s" did not sort
        assert screen.status_filter == "all"  # the "a"/"d" did not filter


async def test_the_search_thread_of_a_waiting_filter_starts_after_the_frame_of_its_key(
    monkeypatch,
):
    """The frame that shows the typed letters and "filtering…" is made before the thread that
    computes the search texts starts: started on the key, it would hold the interpreter half
    the time while that frame is made."""
    from textual import events

    from tui.ui.table import warmup
    from tui.ui.table.virtual_table import VirtualTable
    from tui.ui.table.warmup import Warmup

    # 300 agents count as big for the filter, and are never warmed (below WARM_FROM)
    monkeypatch.setattr(warmup, "SEARCH_IN_THREAD_FROM", 100)
    order: list[str] = []
    render_lines = VirtualTable.render_lines

    def painted(self: VirtualTable, crop):  # noqa: ANN001, ANN202
        order.append("paint")
        return render_lines(self, crop)

    start = Warmup._search_in_thread

    def started(self, rows):  # noqa: ANN001, ANN202
        order.append("search")
        return start(self, rows)

    waits = Warmup.waits

    def waiting(self, query: str) -> bool:  # noqa: ANN001
        result = waits(self, query)
        if result:
            order.append("waits")
        return result

    monkeypatch.setattr(VirtualTable, "render_lines", painted)
    monkeypatch.setattr(Warmup, "_search_in_thread", started)
    monkeypatch.setattr(Warmup, "waits", waiting)
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        for char in "/ag":
            rig.app.post_message(events.Key("slash" if char == "/" else char, char))
        await settle(pilot)
        assert order.count("search") == 1  # one thread for the burst
        first_wait, search = order.index("waits"), order.index("search")
        assert "paint" in order[first_wait:search]  # after a frame of the table
        assert screen.table.filter_pending is None and screen.table.filter_query == "ag"


async def test_a_filter_typed_before_the_search_texts_waits_for_them_in_a_thread(monkeypatch):
    """In a big table whose warm-up has not computed every search text, the typed letters show
    at once and the summary says "filtering…"; a thread computes the texts, then the latest
    query applies. Escape drops a query still waiting."""
    import threading

    from textual import events

    from tui.ui.screens.agents import AgentRow
    from tui.ui.table import warmup

    # 300 agents count as big for the filter, and are never warmed (below WARM_FROM)
    monkeypatch.setattr(warmup, "SEARCH_IN_THREAD_FROM", 100)
    gate = threading.Event()
    computed_by: set[str] = set()
    make_haystack = AgentRow.make_haystack

    def gated(row: AgentRow) -> str:
        if threading.current_thread() is not threading.main_thread():
            gate.wait(10)
        computed_by.add(threading.current_thread().name)
        return make_haystack(row)

    monkeypatch.setattr(AgentRow, "make_haystack", gated)
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        table = screen.table
        for char in "/ag":
            rig.app.post_message(events.Key("slash" if char == "/" else char, char))
        await pilot.pause()
        await pilot.pause()
        assert screen.filter_input.value == "ag"
        assert table.filter_pending == "ag" and table.filter_query == ""
        assert table.row_count == 300
        assert "filtering\u2026" in status_summary(screen)
        gate.set()
        await settle(pilot)
        assert table.filter_pending is None and table.filter_query == "ag"
        expected = [r.key for r in screen.rows if "ag" in r.haystack]
        assert 0 < table.row_count == len(expected) < 300
        assert "filtering" not in status_summary(screen)
        assert threading.main_thread().name not in computed_by  # none on the UI thread

    # escape while a query waits: nothing is applied later
    gate.clear()
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = rig.app.screen
        for char in "/ag":
            rig.app.post_message(events.Key("slash" if char == "/" else char, char))
        await pilot.pause()
        await pilot.press("escape")
        assert screen.table.filter_pending is None
        gate.set()
        await settle(pilot)
        assert screen.table.filter_query == "" and screen.table.row_count == 300


def status_summary(screen: AgentsScreen) -> str:
    from textual.widgets import Static

    return str(screen.query_one(".table-summary", Static).render())


async def test_sort_picker_the_columns_key_and_reverse():
    from tui.ui.screens.sort_picker import SortPicker

    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = rig.app.screen
        table = screen.table
        await pilot.press("s")
        assert isinstance(rig.app.screen, SortPicker)
        await pilot.press("i")  # id
        assert rig.app.screen is screen
        assert table.sort_column == "id" and not table.sort_reverse
        keys = table.visible_keys()
        assert keys == sorted(keys, key=str.lower)
        await pilot.press("s", "a")  # karma: its key is a, k moves in the picker
        assert table.sort_column == "karma"
        assert table.sort_reverse  # numbers: largest first on the first press
        agents = rig.store.snapshot.agents.agents
        karma = [agents[k].karma for k in table.visible_keys()]
        assert karma == sorted(karma, reverse=True)
        await pilot.press("s", "a")  # the sorted column's key again: reversed
        assert table.sort_column == "karma" and not table.sort_reverse
        await pilot.press("S")
        assert table.sort_reverse
        assert "sorted by karma" in screen.query_one(".table-summary").render().plain
        await pilot.press("s", "s")  # s in the picker: the next column, as s did before
        assert table.sort_column == "posts" and table.sort_reverse
        await pilot.press("s", "j", "enter")  # move down the list, take the line
        assert table.sort_column == "comments"
        await pilot.press("s", "escape")  # nothing changes
        assert table.sort_column == "comments" and rig.app.screen is screen
        await pilot.press("s", "0")  # the order the service gave
        assert table.sort_column is None
        assert table.visible_keys() == list(agents)


async def test_status_quick_filters():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        agents = rig.store.snapshot.agents.agents
        await pilot.press("a")
        assert screen.table.row_count == sum(a.status == "active" for a in agents.values())
        await pilot.press("d")
        assert screen.table.row_count == sum(a.status == "dormant" for a in agents.values())
        await pilot.press("d")
        assert screen.table.row_count == 300
        await pilot.press("a", "escape")
        assert screen.table.row_count == 300 and screen.status_filter == "all"


async def test_agent_detail_raw_json_and_jump_to_channel():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        agents = rig.store.snapshot.agents.agents
        agent_id = next(k for k, a in agents.items() if a.subscribed_channels and a.traits)
        screen.select_key(agent_id)
        await settle(pilot)
        assert screen.table.cursor_key == agent_id
        assert screen.detail.display and screen.detail.key == agent_id
        body = screen.detail.query_one("#detail-body").render().plain
        agent = agents[agent_id]
        assert agent.name in body and "traits" in body and "\u2588" in body
        assert "subscribed to" in body
        await pilot.press("J")
        raw = screen.detail.query_one("#detail-body").render().plain
        assert '"heartbeat_last"' in raw
        assert raw.startswith(f"raw JSON of agent {agent_id}")
        await pilot.press("J")
        # keys only: tab to the go-to list (the agent's posts first), enter on the first
        # subscribed channel jumps there
        await pilot.press("tab", "down", "enter")
        await settle(pilot)
        assert isinstance(rig.app.screen, ChannelsScreen)
        assert rig.app.screen.table.cursor_key == agent.subscribed_channels[0]
        assert rig.app.screen.detail.key == agent.subscribed_channels[0]
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("escape")
        assert not rig.app.screen.detail.display
        assert rig.app.screen.table.has_focus


async def test_enter_opens_detail_at_80_columns_and_escape_returns():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        await pilot.press("down", "down", "enter")
        key = screen.table.cursor_key
        assert screen.detail.key == key
        assert not screen.table.display or screen.table.region.width == 0  # the pane took over
        assert screen.has_class("-narrow")
        await pilot.press("escape")
        assert screen.table.cursor_key == key and screen.table.has_focus


async def test_wide_detail_follows_the_cursor():
    rig = make_rig()
    async with rig.app.run_test(size=(140, 40)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        assert screen.has_class("-wide")
        await pilot.press("enter")
        assert screen.table.region.width > 0 and screen.detail.region.width > 0
        await pilot.press("down")
        await pilot.pause()
        assert screen.detail.key == screen.table.cursor_key


async def test_copy_selected_id_with_y():
    rig = make_rig()
    toasts = Toasts()
    async with rig.app.run_test(size=SIZE, message_hook=toasts) as pilot:
        await loaded(pilot)
        await pilot.press("down", "y")
        assert rig.app.clipboard == rig.app.screen.table.cursor_key
        await pilot.pause()
        assert any("Copied" in str(n.message) for n in toasts)


# --------------------------------------------------------------------------- trending, channels


async def test_trending_open_url_and_jumps(monkeypatch):
    rig = make_rig(screen="trending")
    opened: list[str] = []
    async with rig.app.run_test(size=SIZE) as pilot:
        monkeypatch.setattr("tui.browser.browser_unavailable", lambda: None)
        monkeypatch.setattr("tui.browser.open_in_browser", lambda url: opened.append(url) or True)
        await loaded(pilot)
        screen: TrendingScreen = rig.app.screen
        first = screen.model(screen.table.cursor_key)
        await pilot.press("enter")
        assert screen.detail.key == screen.table.cursor_key
        await pilot.press("O")  # `o` is the outbox
        await rig.app.workers.wait_for_complete()
        assert opened == [first.url] and safe_url(first.url)
        await pilot.press("y")
        assert rig.app.clipboard == first.url
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(rig.app.screen, ChannelsScreen)
        assert rig.app.screen.table.cursor_key == first.channel
        await pilot.press("2")
        await settle(pilot)
        authors = set(rig.store.snapshot.agents.agents)
        post_key = next(k for k in screen.table.visible_keys() if screen.model(k).author in authors)
        screen.select_key(post_key)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(rig.app.screen, AgentsScreen)
        assert rig.app.screen.table.cursor_key == screen.model(post_key).author


async def test_trending_panels_and_jump_from_top_agent():
    rig = make_rig(screen="trending")
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        trending = rig.store.snapshot.trending
        screen: TrendingScreen = rig.app.screen
        panel = screen.query_one("#top-agents")
        assert panel.total_count == len({t.agent_id for t in trending.top_agents})
        assert screen.query_one("#top-channels").total_count > 0
        assert screen.query_one("#top-topics").total_count > 0
        agents = rig.store.snapshot.agents.agents
        await pilot.press("tab")  # main table → first panel
        assert panel.has_focus
        while panel.cursor_key not in agents:
            await pilot.press("down")
        target = panel.cursor_key
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(rig.app.screen, AgentsScreen)
        assert rig.app.screen.table.cursor_key == target


def test_safe_url_accepts_only_http():
    assert safe_url("https://example.org/x") == "https://example.org/x"
    assert safe_url("http://example.org") == "http://example.org"
    for bad in (
        None,
        "",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "https://",
        "https://evil\x1b]0;x\x07.org",
        "https://a b.org",
        "ftp://example.org",
    ):
        assert safe_url(bad) is None


async def test_channels_subscribers_are_counted_from_agents():
    rig = make_rig(screen="channels")
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        agents = rig.store.snapshot.agents.agents
        screen: ChannelsScreen = rig.app.screen
        slug = screen.table.cursor_key
        expected = sum(slug in (a.subscribed_channels or ()) for a in agents.values())
        row = screen.table.get_row(slug)
        assert row.cells[3] == f"{expected:,}"
        await pilot.press("enter")
        body = screen.detail.query_one("#detail-body").render().plain
        assert f"{expected:,} (agents subscribed)" in body
        assert "rules" in body or "description" in body


# --------------------------------------------------------------------------- help, palette


async def test_help_lists_the_keys_from_the_bindings():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(rig.app.screen, HelpScreen)
        text = rig.app.screen.query_one("#help-keys").render().plain
        for expected in (
            "Filter",
            "Sort",
            "Reverse sort",
            "Active only",
            "Raw JSON",
            "Refresh",
            "Copy",
            "Quit",
            "Command palette",
            "Open",
        ):
            assert expected in text, expected
        await pilot.press("escape")
        assert isinstance(rig.app.screen, AgentsScreen)
        await pilot.press("question_mark", "question_mark")
        assert isinstance(rig.app.screen, AgentsScreen)


def test_every_binding_has_a_stable_id():
    from textual.binding import Binding

    from tui.ui.table.virtual_table import VirtualTable
    from tui.ui.widgets.detail_pane import DetailPane

    classes = {RoostApp, HelpScreen, DetailPane, VirtualTable}
    for screen in SCREENS:
        classes.update(c for c in screen.__mro__ if c.__module__.startswith("tui."))
    for cls in classes:
        for binding in Binding.make_bindings(cls.__dict__.get("BINDINGS", [])):
            assert binding.id, f"{cls.__name__}: {binding.key} has no id"


async def test_palette_jumps_to_a_channel_and_an_agent():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(rig.app.screen, CommandPalette)
        await pilot.press(*"#poetry")
        await settle(pilot)  # the palette's search worker, and the list it fills
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(rig.app.screen, ChannelsScreen)
        assert rig.app.screen.table.cursor_key == "poetry"
        agent_id = "zion-coder-02"
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*agent_id)
        await settle(pilot)  # the palette's search worker, and the list it fills
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(rig.app.screen, AgentsScreen)
        assert rig.app.screen.table.cursor_key == agent_id


async def test_palette_screens_and_actions_discoverable():
    from tui.ui.screens.palette import PaletteIndex, fuzzy_match

    assert (
        fuzzy_match("poe", "#poetry \u00b7 poetry")[0]
        > fuzzy_match("poe", "prop-1 \u00b7 pick one example")[0]
    )
    assert fuzzy_match("xyz", "abc")[0] == 0
    # scattered letters over a long text do not count
    assert fuzzy_match("abc", "a" + "-" * 40 + "b" + "-" * 40 + "c")[0] == 0
    # linear on hostile candidates: a backtracking matcher would take minutes here, so a bound
    # this loose still catches one without flaking on a busy machine
    import time

    started = time.perf_counter()
    fuzzy_match("aaaaaaab", "a" * 10_000)
    assert time.perf_counter() - started < 2.0
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        index = PaletteIndex(rig.app.snapshot)
        kinds = {c.kind for c in index.items}
        # agents by id and name and by bio; posts by title (trending's until the log is read)
        assert kinds == {"agent", "bio", "channel", "proposal", "trending"}
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Trending")
        await settle(pilot)  # the palette's search worker, and the list it fills
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(rig.app.screen, TrendingScreen)


# --------------------------------------------------------------------------- live refresh


async def test_live_refresh_keeps_cursor_and_marks_changed_rows():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        table = screen.table
        await pilot.press("slash", "z", "i", "o", "n", "enter")
        for _ in range(7):
            await pilot.press("down")
        cursor = table.cursor_key
        scroll = table.scroll_offset
        visible = table.row_count
        agents = rig.network.doc("agents.json")["agents"]
        others = [k for k in agents if k != cursor and k.startswith("zion")]
        poked = others[3]
        actor = others[4]
        rig.network.apply("poke", {"target_agent": poked}, actor, rig.clock.advance(minutes=1))
        rig.network.apply(
            "register_agent",
            {"name": "Newcomer", "framework": "zion", "bio": "just arrived"},
            "zion-newcomer-99",
            rig.clock.now,
        )
        await rig.publish(pilot)
        assert table.cursor_key == cursor
        assert table.scroll_offset == scroll
        assert table.filter_query == "zion"
        assert table.row_count == visible + 1
        assert poked in table.marked and "zion-newcomer-99" in table.marked
        assert cursor not in table.marked
        assert "highlighted: new or changed" in screen.query_one(".table-summary").render().plain
        # a cycle that changes nothing drops the marks
        await rig.publish(pilot)
        assert not table.marked
        assert table.cursor_key == cursor


async def test_only_affected_screens_update_and_hidden_ones_catch_up():
    rig = make_rig()
    calls: list[tuple[str, frozenset[str]]] = []
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        for screen in (rig.app.tab_screen("agents"), rig.app.tab_screen("trending")):
            original = screen.show_snapshot

            def spy(snapshot, changed, _name=screen.TAB_ID, _original=original):
                calls.append((_name, changed))
                return _original(snapshot, changed)

            screen.show_snapshot = spy
        stats = dict(rig.network.doc("stats.json"))
        stats["total_pokes"] = stats.get("total_pokes", 0) + 1
        rig.network.replace_doc("stats.json", stats, rig.clock.advance(minutes=1))
        await rig.publish(pilot)
        assert calls == []  # stats.json is neither the Agents' nor the Trending file
        agents = rig.network.doc("agents.json")
        first = next(iter(agents["agents"]))
        rig.network.apply("update_profile", {"bio": "changed bio"}, first, rig.clock.now)
        await rig.publish(pilot)
        assert calls == [("agents", frozenset({"agents.json"}))]
        # the Channels tab (counts subscribers from agents) was never shown: it mounts fresh;
        # Trending was hidden: it updates when shown, only if its file changed
        trending = dict(rig.network.doc("trending.json"))
        trending["trending"] = list(trending["trending"])[:-1]
        rig.network.replace_doc("trending.json", trending, rig.clock.now)
        await rig.publish(pilot)
        assert [c for c in calls if c[0] == "trending"] == []
        await pilot.press("2")
        await settle(pilot)
        assert ("trending", frozenset({"trending.json"})) in calls
        assert rig.app.screen.table.total_count == len(trending["trending"])


async def test_r_refreshes_now():
    rig = make_rig()
    messages: list[RoostApp.StateRefreshed] = []

    def hook(message) -> None:
        if isinstance(message, RoostApp.StateRefreshed):
            messages.append(message)

    async with rig.app.run_test(size=SIZE, message_hook=hook) as pilot:
        await loaded(pilot)
        before = len(rig.app.store.snapshot.agents.agents)
        cycles = len(messages)
        rig.network.apply(
            "register_agent",
            {"name": "Late", "framework": "zion", "bio": "late"},
            "late-agent",
            rig.clock.advance(minutes=1),
        )
        await pilot.press("r")
        await settle(pilot)
        assert len(messages) == cycles + 1
        assert messages[-1].report is not None and "agents.json" in messages[-1].changed
        assert rig.app.screen.table.total_count == before + 1
        assert "late-agent" in rig.app.screen.table.marked
        assert not rig.app.refreshing


# --------------------------------------------------------------------------- failures and cache


class _Down(httpx.AsyncBaseTransport):
    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)


async def test_offline_start_from_disk_cache(tmp_path: Path):
    """Cold start with no network: the cached copy is shown at once, the bar says offline."""
    rig = make_rig()
    cache = DiskCache(tmp_path / "cache")
    warm = Store(BASE, client=sandbox_client(rig), cache=cache)
    await warm.refresh()
    client = httpx.AsyncClient(transport=_Down(), base_url=BASE)
    store = Store(BASE, client=client, cache=cache, clock=Clock())
    app = RoostApp(service_for(store, demo=False), clock=Clock(), poll=False)
    toasts = Toasts()
    async with app.run_test(size=SIZE, message_hook=toasts) as pilot:
        await loaded(pilot)
        assert app.screen.table.total_count == 300
        line = status_line(app)
        assert "offline" in line and "cached" in line
        assert "DEMO" not in screen_text(app)
        assert any("unreachable" in str(n.title).lower() for n in toasts)
    await client.aclose()


async def test_worker_failure_becomes_a_toast_not_a_crash():
    class Broken(Store):
        async def refresh(self):
            raise RuntimeError("boom [bold]x[/italic]")

    rig = make_rig()
    store = Broken(BASE, client=sandbox_client(rig))
    app = RoostApp(service_for(store), clock=Clock(), poll=False)
    toasts = Toasts()
    async with app.run_test(size=SIZE, message_hook=toasts) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.is_running
        notes = list(toasts)
        assert any("boom [bold]x[/italic]" in str(n.message) for n in notes)
        await pilot.press("2", "3", "1")
        await pilot.pause()
        assert app.screen.table.total_count == 0
        assert "no data yet" in screen_text(app)


async def test_big_table_builds_in_a_thread_and_keeps_place(monkeypatch):
    import threading

    from tui.ui.speed import gc_policy
    from tui.ui.table.virtual_table import VirtualTable

    builds: list[tuple[int | None, bool]] = []  # (size, in a thread)
    building = gc_policy.building

    def recording(size: int | None = None):  # the app's memory policy, as the screens get it
        builds.append((size, threading.current_thread() is not threading.main_thread()))
        return building(size)

    monkeypatch.setattr(gc_policy, "building", recording)
    rig = make_rig(agents=2500)
    posted: list[Message] = []
    async with rig.app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await loaded(pilot)
        assert (None, True) in builds  # the big build ran in it, in its thread
        table = rig.app.screen.table
        assert table.total_count == 2500
        # lazy rows: once on screen, a background worker computed what "/" and "s" will read
        rows = rig.app.screen.rows
        assert all({"haystack", "sort_values"} <= r.computed() for r in rows)
        # and the table said so (the app's memory policy decides what that means)
        warmed = {id(m): m for m in posted if isinstance(m, VirtualTable.Warmed)}  # bubbled
        assert [(m.table, m.rows) for m in warmed.values()] == [(table, 2500)]
        assert sum("cells" in r.computed() for r in rows) < 100  # cells: the rows drawn so far
        await pilot.press("pagedown", "down")
        cursor = table.cursor_key
        first = next(iter(rig.network.doc("agents.json")["agents"]))
        rig.network.apply("update_profile", {"bio": "x"}, first, rig.clock.advance(minutes=1))
        await rig.publish(pilot)
        assert table.cursor_key == cursor and first in table.marked
        # Channels counts subscribers over every agent: that build goes to a thread too
        await pilot.press("3")
        await settle(pilot)
        channels = rig.app.screen
        assert isinstance(channels, ChannelsScreen)
        slug = channels.table.cursor_key
        agents = rig.store.snapshot.agents.agents
        expected = sum(slug in (a.subscribed_channels or ()) for a in agents.values())
        assert channels.table.get_row(slug).cells[3] == f"{expected:,}"


async def test_input_filter_has_no_blinking_cursor_in_tests():
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("slash")
        assert rig.app.screen.query_one(Input).cursor_blink is False


def test_roost_demo_keeps_the_users_settings_and_says_demo_once(monkeypatch, tmp_path):
    """`roost demo` with a service configured: the app is handed the demo network's service,
    whose settings are the app's and keep the user's profile, config file and [actions]."""
    from tui.actions.connection import catalog_for
    from tui.cli import main
    from tui.commands import dashboard
    from tui.ui import app as app_module

    seen = {}

    def fake_run(self):
        seen.update(app=self, screen=self.initial_screen)
        return 0

    monkeypatch.setattr(app_module.RoostApp, "run", fake_run)
    monkeypatch.setattr(dashboard, "on_a_terminal", lambda: True)
    config = tmp_path / "config.toml"
    config.write_text(
        'profile = "work"\n'
        "[profiles.work]\n"
        'read_url = "https://example.invalid/x"\n'
        'repo = "owner/repo"\n'
        "[actions.heartbeat]\n"
        'description = "Say the team is here"\n'
    )
    argv = ["--config", str(config), "--cache-dir", str(tmp_path / "cache"), "demo"]
    assert main([*argv, "--screen", "channels"]) == 0
    app = seen["app"]
    assert seen["screen"] == "channels"
    assert app.settings is app.service.settings  # one truth, not a copy that drifts
    settings = app.settings
    assert settings.demo and app.service.demo and app.app_state.demo
    assert (settings.profile, settings.config_file) == ("work", config)
    assert catalog_for(settings)["heartbeat"].description == "Say the team is here"
    assert (
        settings.repo != "owner/repo" and app.service.session.token_source == "demo"
    )  # the sandbox's
    assert app.service.store.read_url == DEMO_BASE_URL
    assert app.service.store.cache.folder.parent == tmp_path / "cache"  # derived once


def test_run_tui_freezes_what_is_left_once_the_app_has_closed(monkeypatch):
    """The process ends after the dashboard: everything left is frozen first, so that the
    interpreter's final collections do not rescan it (they took 0.85 s of a 50 000-agent
    quit, after the screen was gone; tests/perf/bench_quit.py)."""
    from tui.ui import app as app_module

    order = []

    def fake_run(self):
        order.append("run")
        return 0

    monkeypatch.setattr(app_module.RoostApp, "run", fake_run)
    from tui.ui.speed import gc_policy

    monkeypatch.setattr(gc_policy, "freeze", lambda: order.append("freeze"))
    service = connect(Settings(read_url="https://example.invalid/x"), use_cache=False)
    assert app_module.run_tui(service) == 0
    assert order == ["run", "freeze"]


def test_clock_is_frozen_in_rig():
    assert Clock()() == DEFAULT_EPOCH


async def test_detail_values_wrap_under_themselves_at_60_columns():
    """The detail pane at 60×20: a long value wraps at its parts, under the value, and a date
    keeps its age beside it or on its own line — never split inside."""
    rig = make_rig()
    async with rig.app.run_test(size=(60, 20)) as pilot:
        await loaded(pilot)
        await pilot.press("enter")
        await settle(pilot)
        lines = [line.rstrip() for line in svg_text(rig.app.export_screenshot()).split("\n")]
        numbers = next(i for i, line in enumerate(lines) if line.startswith("numbers"))
        following = next(line for line in lines[numbers + 1 :] if line.strip())
        assert following.startswith(" " * 11) and "comments" in following
        assert not any(line.strip() in ("26", "ago)") for line in lines)


async def test_the_other_tabs_are_prepared_between_keys(monkeypatch):
    """After the first refresh the app imports the tabs not opened yet and parses their CSS,
    one step at a time, only when no key has come for a moment: keys typed every 30 ms keep
    every step away; typed every 200 ms (a person going from tab to tab), the steps fit
    between them, and the Seeds tab's own CSS is parsed before its first visit."""
    from tui.ui.speed import machinery
    from tui.ui.textual_compat import ParseOnceStylesheet

    monkeypatch.setattr(machinery, "PRELOAD_AFTER_S", 0.05)
    parsed: list[str] = []
    preparse = ParseOnceStylesheet.preparse

    def recording(self, source):
        parsed.append(str(source[1]))
        preparse(self, source)

    monkeypatch.setattr(ParseOnceStylesheet, "preparse", recording)
    typing = True
    every = 0.03

    async def keys() -> None:  # as the app does for each key it reads
        while typing:
            rig.app.speed.key_pace.hold()
            await asyncio.sleep(every)

    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)):
        typist = asyncio.create_task(keys())
        await asyncio.wait_for(rig.app.loaded.wait(), 20)
        await asyncio.sleep(0.5)  # the preload is due (0.05 s after the first refresh)
        assert parsed == []
        every = 0.2  # slower keys: gaps of 200 ms, shorter than the 250 ms hold of each key
        for _ in range(200):
            if any("seeds.tcss" in name for name in parsed) and len(parsed) > 20:
                break
            await asyncio.sleep(0.02)
        assert any("seeds.tcss" in name for name in parsed)
        first_default = next(i for i, name in enumerate(parsed) if ".tcss" not in name)
        assert all(".tcss" in name for name in parsed[:first_default])  # each tab's own first
        typing = False
        await typist
        rig.app.workers.cancel_group(rig.app, "preload")


async def test_a_tab_is_drawn_at_once_not_held_50_ms():
    """Textual holds every repaint for 50 ms when a mode is shown (``delay_update``), to mask
    a screen being built: a tab is not held, on its first visit (its bars come on the key, its
    Lazy body a frame later, the status bar already at the bottom) nor on a later one."""
    from tui.ui.widgets.status_bar import StatusBar

    rig = make_rig()
    app = rig.app
    frames: list[tuple[bool, int]] = []  # (body mounted, status bar's row) of each frame

    def hook() -> None:
        screen = app.screen
        if screen.id == "screen-posts":
            frames.append((screen.body_filled, screen.query_one(StatusBar).region.y))

    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        app.post_display_hook = hook
        app.jump_to("posts")  # first visit
        assert app._batch_count == 0
        await settle(pilot)
        assert frames[0] == (False, 22)  # its bars, the status bar in its place, no body yet
        assert frames[-1] == (True, 22)
        app.jump_to("agents")  # shown before
        assert app._batch_count == 0
        await settle(pilot)
        app.jump_to("posts")
        assert app._batch_count == 0
        await settle(pilot)
        assert "Posts" in screen_text(app)


async def test_a_tab_opened_later_paints_its_bars_on_the_key_and_its_body_after():
    """A tab's body is composed in Textual's Lazy: a tab first opened later (Seeds) shows its
    bars in the frame after its key, no body yet; the body is mounted after that frame and
    shows the snapshot, focus where the tab puts it."""
    from tui.ui.screens.base import ScreenBody
    from tui.ui.screens.seeds import SeedsScreen

    rig = make_rig()
    app = rig.app
    frames: list[tuple[bool, int]] = []

    def hook() -> None:
        screen = app.screen
        if isinstance(screen, SeedsScreen):
            frames.append((screen.body_filled, len(screen.query(ScreenBody))))

    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert app.screen.body_filled
        app.post_display_hook = hook
        await pilot.press("5")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SeedsScreen)
        assert frames[0] == (False, 0)  # the key's frame: the bars, no body yet
        assert screen.body_filled and screen.ready
        assert screen.focused is not None and screen.focused.id == "active-scroll"
        assert "Proposals" in screen_text(app) and "seed-" in screen_text(app)


async def test_keys_typed_while_a_tab_body_mounts_are_handled_there_in_order():
    """``5]]jj`` arriving at once: the keys after ``5`` wait for the Seeds body, then switch
    two sections on and move down the queue (they are not lost, nor run on the Agents tab)."""
    from textual import events

    from tui.ui.screens.seeds import SeedsScreen

    rig = make_rig()
    app = rig.app
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        agents_cursor = app.screen.table.cursor_key
        keys = [("5", "5"), ("right_square_bracket", "]"), ("right_square_bracket", "]")]
        keys += [("j", "j"), ("j", "j")]
        for key, character in keys:
            app.post_message(events.Key(key, character))
        for _ in range(500):
            await pilot.pause(0.01)
            screen = app.screen
            if isinstance(screen, SeedsScreen) and screen.body_filled and not app.speed.held_keys:
                break
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SeedsScreen) and screen.section == "seeds-queue"
        queue = screen.query_one("#queue-table")
        assert queue.cursor_row == 2  # two rows down
        assert app.get_screen_stack("agents")[0].table.cursor_key == agents_cursor
