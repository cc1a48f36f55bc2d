"""The Stats tab driven by keys in the real app, fed by the demo network through the real store.

Each test serves a stats.json from the in-process sandbox, lets the store fetch it (so the stats
history is the store's own), and reads what the screen shows.
"""

from __future__ import annotations

import asyncio
import html
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from app_rig import Clock, service_for, svg_text  # the shared frozen clock

from tui.network.store import Store
from tui.sandbox.app import create_app
from tui.sandbox.generator import DEFAULT_EPOCH
from tui.sandbox.published import DemoNetwork
from tui.sandbox.server import in_process_client
from tui.ui.app import RoostApp
from tui.ui.screens.stats import StatsScreen
from tui.ui.widgets.stats_panel import (
    HISTORY_NOTE,
    StatsPanel,
    counter_label,
    format_delta,
    spark_rows,
)

BASE = "http://sandbox.invalid"
SIZE = (80, 24)


@dataclass
class Rig:
    app: RoostApp
    network: DemoNetwork
    store: Store
    clock: Clock

    def stats(self) -> dict[str, Any]:
        return self.network.doc("stats.json")

    async def publish(self, pilot, stats: dict[str, Any], *, minutes: int = 10) -> None:
        """Serve a new stats.json, move the clock on, run one store cycle, let the UI react."""
        self.clock.now += timedelta(minutes=minutes)
        self.network.replace_doc("stats.json", stats, self.clock.now)
        await self.store.refresh()
        await pilot.pause()

    @property
    def panel(self) -> StatsPanel:
        return self.app.screen.query_one(StatsPanel)


def make_rig(stats: dict[str, Any] | None = None, *, screen: str = "stats") -> Rig:
    sandbox = create_app(seed=7, agents=300, epoch=DEFAULT_EPOCH)
    network: DemoNetwork = sandbox.state.sandbox.network
    if stats is not None:
        network.replace_doc("stats.json", stats, DEFAULT_EPOCH)
    clock = Clock()
    store = Store(BASE, client=in_process_client(sandbox, BASE), clock=clock)
    app = RoostApp(service_for(store), clock=clock, initial_screen=screen, poll=False)
    return Rig(app, network, store, clock)


async def loaded(rig: Rig, pilot) -> None:
    await asyncio.wait_for(rig.app.loaded.wait(), 10)
    await pilot.pause()


def screen_text(app: RoostApp) -> str:
    """What the terminal shows, as text (the SVG export with its markup stripped)."""
    return svg_text(app.export_screenshot())


def assert_no_escape_bytes(app: RoostApp) -> None:
    shot = app.export_screenshot()
    for byte in ("\x1b", "\x9b", "\x00", "\x07"):
        assert byte not in shot
        assert byte not in screen_text(app)


# --------------------------------------------------------------------------- pure helpers


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("total_pokes", "Pokes"),
        ("active_agents", "Active agents"),
        ("total_agents", "Agents"),
        ("commentCount", "Comment count"),
        ("total", "Total"),
        ("total_AI_posts", "AI posts"),
        ("[red]x", "[red]x"),
        ("\x1b[2J", "\u241b[2J"),
        ("", "(unnamed)"),
    ],
)
def test_counter_labels_are_derived_from_the_name(name: str, label: str) -> None:
    assert counter_label(name) == label


def test_spark_rows_scale_pad_and_handle_short_histories() -> None:
    assert spark_rows([], 4) == ["    "]
    assert spark_rows([7], 3) == ["  \u2581"]  # one point: the lowest bar, newest on the right
    # a flat series draws flat (the lowest bar), not blank and not a block
    assert spark_rows([5, 5, 5], 3) == ["\u2581\u2581\u2581"]
    assert spark_rows([5, 5], 2, height=3) == ["  ", "  ", "\u2581\u2581"]
    assert spark_rows([1, 2, 3], 5) == ["  \u2581\u2585\u2588"]
    assert spark_rows(list(range(100)), 4)[0][-1] == "\u2588"  # the last values, newest right
    assert spark_rows([1, float("nan"), 3, float("inf")], 2) == ["\u2581\u2588"]
    tall = spark_rows([0, 8, 16], 3, height=2)
    assert tall == ["  \u2588", " \u2588\u2588"] or tall[1][0] != " "
    assert spark_rows([0, 1], 6, stretch=3) == ["\u2581\u2581\u2581\u2588\u2588\u2588"]


def test_deltas_are_signed() -> None:
    assert format_delta(None) == "\u2014"
    assert format_delta(0) == "0"
    assert format_delta(1234) == "+1,234"
    assert format_delta(-3) == "-3"
    assert format_delta(0.5) == "+0.50"


# --------------------------------------------------------------------------- the screen


async def test_every_counter_by_name_at_80x24_including_new_ones() -> None:
    stats = DemoNetwork.generate(seed=7, agents=300).doc("stats.json")
    stats["total_widgets"] = 5  # a counter roost has never heard of
    stats["gizmoCount"] = 2.5
    stats["motto"] = "not a counter"
    rig = make_rig(stats)
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        assert isinstance(rig.app.screen, StatsScreen)
        panel = rig.panel
        numeric = [k for k, v in stats.items() if isinstance(v, int | float)]
        assert set(panel.table.visible_keys()) == set(numeric)  # nothing hard-coded
        labels = {key: panel.table.get_row(key).cells[0] for key in numeric}
        assert labels["total_pokes"] == "Pokes"
        assert labels["total_widgets"] == "Widgets"
        assert labels["gizmoCount"] == "Gizmo count"
        text = screen_text(rig.app)
        assert "Pokes" in text and "Gizmo count" not in text  # 14 counters: the table scrolls
        # last_updated as an age, from the frozen clock, worded apart from the status bar's
        # "updated" is when roost last heard from the service; the data has its own time
        assert "data time 0s ago" in text
        assert HISTORY_NOTE in text  # one point so far
        assert rig.app.focused is panel.table
        await pilot.press("end")
        text = screen_text(rig.app)
        assert "Gizmo count" in text and "2.50" in text and "Widgets" in text
        assert "motto" not in text


async def test_keys_move_zoom_and_unzoom_the_detail() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        panel = rig.panel
        await pilot.press("down", "down", "down")
        assert panel.selected == "total_posts"
        assert panel.detail.series is not None and panel.detail.series.name == "total_posts"
        await pilot.press("enter")
        assert panel.zoomed
        assert panel.detail.size.height > 10  # the trend takes the room
        await pilot.press("down")  # the table still follows the cursor while zoomed
        assert panel.detail.series.name == panel.selected != "total_posts"
        await pilot.press("escape")
        assert not panel.zoomed
        await pilot.press("enter", "enter")  # enter opens; a second one keeps it open
        assert panel.zoomed
        await pilot.click(panel.detail)  # the mouse closes it by clicking the large view
        assert not panel.zoomed
        await pilot.click(panel.table, offset=(5, 2))  # and opens it with a click on a row
        assert panel.zoomed and panel.selected == "active_agents"
        await pilot.press("escape")
        await pilot.press("end")
        assert panel.selected == list(rig.stats())[-1]


async def test_live_update_shows_deltas_and_trends_and_keeps_the_place() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        panel = rig.panel
        await pilot.press("down", "down", "down", "enter")  # zoom on total_posts
        stats = rig.stats()
        for step in range(1, 4):
            stats["total_posts"] += 5 * step
            stats["total_pokes"] -= 1
            stats["last_updated"] = (rig.clock.now + timedelta(minutes=10)).isoformat()
            await rig.publish(pilot, dict(stats))
        assert len(rig.store.snapshot.stats_history) == 4
        assert panel.selected == "total_posts" and panel.zoomed  # the user's place survived
        posts = panel.series("total_posts")
        assert posts is not None and posts.delta == 15 and len(posts.values) == 4
        assert panel.series("total_pokes").delta == -1
        assert panel.series("total_agents").delta == 0
        row = panel.table.get_row("total_posts")
        assert row.cells[2].plain == "\u25b2+15"
        assert row.cells[3].plain.strip() == "\u2581\u2582\u2585\u2588"  # 1915 1920 1930 1945
        assert panel.table.marked == {"total_posts", "total_pokes"}  # changed this cycle
        text = screen_text(rig.app)
        assert "first 1,915 \u00b7 last 1,945" in text
        assert "4 points over 30m" in text
        assert HISTORY_NOTE not in text
        # a cycle that does not touch stats.json drops the marks, keeps the cursor
        rig.clock.now += timedelta(minutes=1)
        await rig.store.refresh()
        await pilot.pause()
        assert panel.table.marked == frozenset()
        assert panel.selected == "total_posts"


async def test_a_counter_that_appears_later_joins_the_table() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        await pilot.press("down")
        stats = rig.stats()
        stats["total_eggs_hatched"] = 3
        await rig.publish(pilot, stats)
        panel = rig.panel
        assert "total_eggs_hatched" in panel.table.visible_keys()
        assert panel.series("total_eggs_hatched").delta is None  # nothing to compare with yet
        assert panel.selected == "active_agents"
        await pilot.press("end")
        assert panel.selected == "total_eggs_hatched"
        assert "Eggs hatched" in screen_text(rig.app)


async def test_real_stats_file(real_state_dir) -> None:
    stats = json.loads((real_state_dir / "stats.json").read_text())
    rig = make_rig(stats)
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        panel = rig.panel
        numeric = [k for k, v in stats.items() if isinstance(v, int | float)]
        assert set(panel.table.visible_keys()) == set(numeric)
        text = screen_text(rig.app)
        for name in numeric:
            assert counter_label(name) in text
        assert f"{stats['total_comments']:,}" in text
        assert_no_escape_bytes(rig.app)


HOSTILE_NAMES = [
    "[@click=app.quit]",
    "[/]",
    "[bold]x[/italic]",
    "[link=https://evil]x",
    "[OK]",
    "[red]x",
    "\x1b[2J",
    "\x1b]0;t\x07",
    "\x9b31m",
    "nul\x00",
    "\u05e9\u05dc\u05d5\u05dd_counter",
    "e\u0301\u0301\u0301",
    "\U0001f423_hatched",
    "x" * 10_000,
]


async def test_hostile_counters_render_literally() -> None:
    stats: dict[str, Any] = {name: n for n, name in enumerate(HOSTILE_NAMES, start=1)}
    stats["last_updated"] = "[@click=app.quit]\x1b[2J"
    stats["huge"] = 10**40
    stats["tiny"] = -1.5e300
    rig = make_rig(stats)
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        panel = rig.panel
        assert len(panel.table.visible_keys()) == len(HOSTILE_NAMES) + 2
        shot = html.unescape(rig.app.export_screenshot())
        assert "[@click=app.quit]" in shot
        assert "[bold]x[/italic]" in shot
        assert "\u241b[2J" in shot  # ESC shown as a symbol, not sent
        for _ in range(len(HOSTILE_NAMES) + 2):
            await pilot.press("down")
            await pilot.pause()
            assert_no_escape_bytes(rig.app)
        await pilot.press("enter")  # zoom on a hostile counter, then update it
        stats = {k: (v + 1 if isinstance(v, int) else v) for k, v in stats.items()}
        await rig.publish(pilot, stats)
        await pilot.press("home", "escape", "enter")
        assert rig.app.is_running
        assert_no_escape_bytes(rig.app)


# --------------------------------------------------------------------------- snapshots


def _growing_history(rig: Rig):
    async def run_before(pilot) -> None:
        await loaded(rig, pilot)
        stats = rig.stats()
        for step in range(1, 6):
            stats["total_posts"] += 7 * step
            stats["total_comments"] += 11 * (6 - step)
            stats["active_agents"] += -1 if step % 2 else 2
            stats["total_pokes"] += 3
            stats["last_updated"] = (rig.clock.now + timedelta(minutes=10)).isoformat()
            await rig.publish(pilot, dict(stats))
        await pilot.press("down", "down", "down")

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_stats(snap_compare, size) -> None:
    rig = make_rig()
    assert snap_compare(rig.app, terminal_size=size, run_before=_growing_history(rig))


def test_snapshot_stats_zoomed(snap_compare) -> None:
    rig = make_rig()
    history = _growing_history(rig)

    async def run_before(pilot) -> None:
        await history(pilot)
        await pilot.press("enter")

    assert snap_compare(rig.app, terminal_size=(80, 24), run_before=run_before)


def test_snapshot_stats_first_load(snap_compare) -> None:
    rig = make_rig()

    async def run_before(pilot) -> None:
        await loaded(rig, pilot)

    assert snap_compare(rig.app, terminal_size=(80, 24), run_before=run_before)
