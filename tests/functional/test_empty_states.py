"""An empty tab says why it is empty and what to do, from what the store knows about the file:
integrity failure, invalid JSON, wrong shape, size cap, offline, still loading. Driven through
the real app on the in-process sandbox with its fault knobs."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from app_rig import BASE, Clock, loaded, service_for, settle
from textual.widgets import Static

from tui.network.empty_state import not_loaded_text
from tui.network.store import FileState, Problem, Store, StoreOptions, StoreStatus
from tui.sandbox.app import create_app
from tui.sandbox.generator import DEFAULT_EPOCH
from tui.sandbox.server import in_process_client
from tui.ui.app import RoostApp
from tui.ui.screens.channels import ChannelsScreen
from tui.ui.screens.seeds import SeedsScreen
from tui.ui.screens.stats import StatsScreen
from tui.ui.screens.trending import TrendingScreen
from tui.ui.table.virtual_table import VirtualTable

SIZE = (80, 24)
FAST = StoreOptions(retry_delay_s=0)


def faulty_app(
    screen: str = "agents", *, options: StoreOptions = FAST, **faults: object
) -> tuple[RoostApp, object]:
    """The app on a sandbox whose fault knobs are set before the first request."""
    sandbox = create_app(seed=7, agents=60, epoch=DEFAULT_EPOCH)
    for knob, value in faults.items():
        setattr(sandbox.state.sandbox.faults, knob, value)
    clock = Clock()
    store = Store(BASE, client=in_process_client(sandbox, BASE), clock=clock, options=options)
    app = RoostApp(service_for(store), clock=clock, initial_screen=screen, poll=False)
    return app, sandbox


def table_says(table: VirtualTable) -> str:
    """The empty table's message as drawn (its wrapped lines joined again)."""
    lines = [table.render_line(y).text.strip() for y in range(1, table.size.height)]
    return " ".join(line for line in lines if line)


def static_text(screen, selector: str) -> str:
    return screen.query_one(selector, Static).render().plain


async def test_trending_mismatch_channels_shape_seeds_json_say_why_and_r_recovers():
    app, sandbox = faulty_app(
        "trending",
        mismatch={"trending.json": 5},
        schema_invalid={"channels.json"},
        malformed={"seeds.json"},
    )
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        trending = app.screen
        assert isinstance(trending, TrendingScreen)
        assert trending.table.total_count == 0
        said = table_says(trending.table)
        assert said.startswith("trending.json failed its integrity check: sha256 ")
        assert "manifest" in said and "(after one retry)" in said
        assert said.endswith("\u2014 press r to retry")
        assert trending.table.empty_message == said
        panel = trending.query_one("#top-agents", VirtualTable)
        assert table_says(panel) == "trending.json not loaded"

        await pilot.press("3")
        await settle(pilot)
        channels = app.screen
        assert isinstance(channels, ChannelsScreen)
        said = table_says(channels.table)
        assert said.startswith("channels.json does not have the expected shape: $.")
        assert said.endswith("showing nothing until a valid copy arrives")
        assert "keeping the last good copy" not in said  # there is none

        await pilot.press("5")
        await settle(pilot)
        seeds = app.screen
        assert isinstance(seeds, SeedsScreen)
        meta = static_text(seeds, "#active-meta")
        assert meta.startswith("seeds.json is not valid JSON: ")
        assert "line " in meta and "column " in meta
        assert meta.endswith("\u2014 showing nothing until a valid copy arrives")
        await pilot.press("right_square_bracket")  # the Proposals section says the same
        await settle(pilot)
        assert static_text(seeds, "#proposals-message") == meta

        # the faults end: r brings every file, and with it the rows
        sandbox.state.sandbox.faults.mismatch = {}
        sandbox.state.sandbox.faults.schema_invalid = set()
        sandbox.state.sandbox.faults.malformed = set()
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert "not valid JSON" not in static_text(seeds, "#active-meta")
        await pilot.press("2")
        await settle(pilot)
        assert app.screen.table.total_count > 0


async def test_size_cap_says_not_loaded():
    # no manifest: every file is capped by hard_cap alone, and seeds.json is far bigger
    app, _ = faulty_app(
        "seeds", options=StoreOptions(retry_delay_s=0, hard_cap=64), no_manifest=True
    )
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        meta = static_text(app.screen, "#active-meta")
        assert meta.startswith("seeds.json is larger than the 64-byte cap (stopped after ")
        assert meta.endswith("\u2014 not loaded")


class _Down(httpx.AsyncBaseTransport):
    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused [bold]x[/]", request=request)


async def test_offline_without_cache_and_loading_while_the_first_refresh_runs():
    client = httpx.AsyncClient(transport=_Down(), base_url=BASE)
    store = Store(BASE, client=client, clock=Clock())
    app = RoostApp(service_for(store, demo=False), clock=Clock(), poll=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        said = table_says(app.screen.table)
        assert said.startswith("offline \u2014 no cached copy of agents.json yet (ConnectError")
        assert "[bold]x[/]" in said  # the error's text shown as it is, never as markup
        assert said.endswith("press r to retry")
        await pilot.press("4")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        assert static_text(app.screen, "#stats-summary").startswith(
            "offline \u2014 no cached copy of stats.json yet"
        )
    await client.aclose()

    app, _ = faulty_app("channels", latency=0.6)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.loaded.is_set()
        assert table_says(app.screen.table) == "loading\u2026"
        await asyncio.wait_for(app.loaded.wait(), 20)
        await settle(pilot)
        assert app.screen.table.total_count > 0


@pytest.mark.parametrize(
    ("kind", "detail", "says"),
    [
        ("too-slow", "no complete reply within 120 s", "did not arrive in time"),
        ("encoding", "stacked Content-Encoding 'gzip, gzip' refused", "compressed in a way"),
        ("bad-reply", "UnicodeDecodeError: bad header", "reply for agents.json was unusable"),
        ("internal", "KeyError: 'x'", "a bug in roost, please report it"),
        ("cache", "damaged cache entry dropped (bad meta)", "was damaged and dropped"),
    ],
)
def test_every_problem_kind_has_its_own_sentence(kind, detail, says):
    """Each kind says what happened in words, quotes the detail and says what to do."""
    state = FileState("agents.json", problem=Problem("agents.json", kind, detail))
    text = not_loaded_text(state, status=StoreStatus(state="online"), refreshed=True)
    assert says in text and detail in text and "press r" in text
    assert f"is not loaded: {kind}:" not in text  # not the generic fallback
