"""Bench: the pulse (the inbox, Activity, their refresh) at the size of a 50 000-agent network.

    python tests/perf/bench_pulse.py            # 50 000 agents: 200 000 notifications
    python tests/perf/bench_pulse.py --smoke    # 2 000 agents

The world is the demo network's (``DemoNetwork.generate``): at 50 000 agents its
``notifications.json`` holds 200 000 notifications, ``pokes.json`` some 135 000 pokes and
``changes.json`` 150 000 entries (the section says the counts it ran with). Three
measurements, each beside a floor measured in the same run:

* ``inbox``: the real app from a disk cache holding every file of that world (no network, as in
  ``bench_keys``), headless at 80×24, set to the agent with the most notifications and pokes
  (``Settings(agent=...)``), keys posted as the terminal driver posts them and frames timed by
  ``App.post_display_hook``. Once the Agents table's rows are warmed and the status bar shows
  that agent's unread count (its inbox files read: the store is warm), in rounds: ``i`` to the
  first frame showing every row of the inbox, then ``escape``; ``?`` to the first frame showing
  the help screen (the floor: a screen pushed over the tab with nothing to read), then
  ``escape``; each key typed between two of the status bar's own frames (``_between_ticks``).
  Goal: ``i`` ≤ 100 ms at p95. Then the first open of an agent never asked for: the app's
  agent swapped for another before ``i``, so the key pays ``inbox_for``'s first pass over both
  files (a roost set to that agent pays it once, when its status bar first counts the unread);
  and that pass alone beside the look-up that follows it, on agents never asked for.
* ``activity``: in the same app, ``8``, the first visit, which reads ``changes.json`` from the
  disk cache and words its entries in a thread: its next frame, the first frame showing every
  row and when its rows are warmed, beside the store's read of the file and ``json.loads`` of
  it. Then, in rounds, the same script on Agents and on Activity: a filter typed key by key
  (``/``, three letters, ``backspace``, ``escape``), two quick filters and ``escape`` clearing
  them (Agents: ``a`` active, ``d`` dormant; Activity: ``t`` twice, the next type each time),
  then, on Activity only, ``A`` (only the selected row's agent) and ``A`` again, and the other
  tab's key. Goals: every Activity key's next frame ≤ 100 ms at p95 (the first visit's
  included), and Activity's settled frames no slower than Agents' (p95 of every press of the
  script both tabs share, one over the other, with its 95% interval: the goal holds unless the
  whole interval is above 1×), as the Posts section measures Posts.
* ``refresh``: the store wanting every pulse file (``PULSE_FILES``) against the demo sandbox in
  the process (bytes counted on the wire, ``bench.WireCounter``): a no-change cycle once
  everything is loaded, with the sandbox's manifest (it lists every file: only the manifest's
  304) and with a manifest that leaves the pulse files out (as a deployment that publishes them
  beside its manifest: one 304 per file), beside the same store wanting none of them.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
PERF = Path(__file__).resolve().parent
for _path in (ROOT, PERF):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from bench import BASE, WireCounter  # noqa: E402
from bench_app import cache_files  # noqa: E402
from bench_keys import (  # noqa: E402
    QUIET_S,
    _Frames,
    _painted,
    _quantile,
    _stats,
    settled_figures,
    timed_press,
)
from bench_posts import (  # noqa: E402
    WORDS,
    _between_ticks,
    _tab_figures,
    _Unlisted,
    _until,
    _Warmed,
    measure_visit_floor,
    run_section,
)
from figures import figure  # noqa: E402

from tui.network.disk_cache import DiskCache  # noqa: E402
from tui.network.models import parse_state  # noqa: E402
from tui.network.state_files import (  # noqa: E402
    AGENTS,
    CHANGES,
    MANIFEST_FILE,
    NOTIFICATIONS,
    POKES,
    PULSE_FILES,
)
from tui.network.store import Store, StoreOptions  # noqa: E402
from tui.pulse.activity import activity_rows  # noqa: E402
from tui.pulse.inbox import inbox_for  # noqa: E402
from tui.pulse.read_state import ReadState  # noqa: E402
from tui.sandbox.app import create_app  # noqa: E402
from tui.sandbox.published import DemoNetwork  # noqa: E402
from tui.ui.app import RoostApp  # noqa: E402
from tui.ui.screens.activity import ActivityScreen  # noqa: E402
from tui.ui.screens.agents import AgentsScreen  # noqa: E402
from tui.ui.screens.help import HelpScreen  # noqa: E402
from tui.ui.screens.inbox import InboxScreen  # noqa: E402

__all__ = ["measure_pulse"]

GOAL_P95_MS = 100.0
GOAL_SETTLED_RATIO = 1.0  # Activity's settled frames over Agents', the script both share
NEVER_ASKED = 5  # agents whose first pass is timed alone

#: (tab key, its quick filter keys) per tab: Agents' status filters, Activity's type filter.
TABS = {"agents": ("1", ("a", "d")), "activity": ("8", ("t", "t"))}
AGENT_FILTER = "agent filter"  # Activity's `A`: no key of Agents does the like


def _script(tab: str, word: str) -> list[tuple[str, str]]:
    """(what the key does, the key) in order: the same on both tabs but for the filter keys,
    and Activity's agent filter after the rest."""
    _, quick = TABS[tab]
    script = [
        ("/", "slash"),
        *(("filter letter", letter) for letter in word),
        ("backspace", "backspace"),
        ("escape", "escape"),
        *(("quick filter", key) for key in quick),
        ("escape a quick filter", "escape"),
    ]
    if tab == "activity":
        script += [(AGENT_FILTER, "A"), (AGENT_FILTER, "A")]
    return script


# --------------------------------------------------------------------------- the world


def _world(agents: int) -> tuple[DemoNetwork, dict[str, Any]]:
    """The demo world, and what the bench needs to know of it: its counts, the agent with the
    most in its inbox and agents never asked for, how many rows each inbox and the feed show."""
    network = DemoNetwork.generate(agents=agents)
    files = network.files
    notifications = parse_state(NOTIFICATIONS, files[NOTIFICATIONS])
    pokes = parse_state(POKES, files[POKES])
    changes = parse_state(CHANGES, files[CHANGES])
    weight = collections.Counter(n.agent_id for n in notifications.notifications)
    weight.update(p.target_agent for p in pokes.pokes)
    ranked = [agent for agent, _ in weight.most_common(2 + NEVER_ASKED)]
    snapshot = SimpleNamespace(notifications=notifications, pokes=pokes)
    read = ReadState(None)
    first_pass, held = [], []
    for other in ranked[2:]:  # inbox_for's pass over both files alone, then its look-up
        started = time.perf_counter()
        inbox_for(other, snapshot, read)
        first_pass.append(time.perf_counter() - started)
        started = time.perf_counter()
        inbox_for(other, snapshot, read)
        held.append(time.perf_counter() - started)
    facts = {
        "agents": len(json.loads(files[AGENTS])["agents"]),
        "notifications": len(notifications.notifications),
        "pokes": len(pokes.pokes),
        "changes": len(changes.changes),
        "feed_rows": len(activity_rows(changes)),
        "agent": ranked[0],
        "inbox_items": len(inbox_for(ranked[0], snapshot, read)),
        "other": ranked[1],
        "other_items": len(inbox_for(ranked[1], snapshot, read)),
        "first_pass_ms": round(statistics.median(first_pass) * 1000, 2),
        "held_lookup_ms": round(statistics.median(held) * 1000, 3),
        "bytes": {name: len(files[name]) for name in (NOTIFICATIONS, POKES, CHANGES)},
    }
    return network, facts


@contextlib.contextmanager
def _read_state_in(folder: str) -> Iterator[None]:
    """The read markers (what the app writes for its agent's inbox) kept in ``folder``."""
    before = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = folder
    try:
        yield
    finally:
        if before is None:
            del os.environ["XDG_DATA_HOME"]
        else:
            os.environ["XDG_DATA_HOME"] = before


# --------------------------------------------------------------------------- the app


async def _open(
    app: RoostApp,
    frames: _Frames,
    key: str,
    shown: Callable[[], bool],
    *,
    press: int,
    aligned: bool,
) -> dict[str, float]:
    """``key``: when it was typed, its next frame, and the first frame where ``shown()``
    (seconds from the key)."""
    at: list[float] = []

    def hook() -> None:
        frames.hook()
        if not at and shown():
            at.append(frames.times[-1])

    app.post_display_hook = hook  # type: ignore[method-assign]
    try:
        if aligned:
            await _between_ticks(frames, press)
        sent, next_frame, _ = await timed_press(app, frames, [key])
        await _until(lambda: bool(at), timeout=300)
    finally:
        app.post_display_hook = frames.hook  # type: ignore[method-assign]
    return {"sent": sent, "next_frame_s": next_frame, "shown_s": at[0] - sent}


async def _close(app: RoostApp, frames: _Frames) -> None:
    """``escape`` until the tab under a pushed screen is on view again (not timed)."""
    while not isinstance(app.screen, AgentsScreen):
        await timed_press(app, frames, ["escape"])


def _inbox_shown(app: RoostApp, items: int) -> Callable[[], bool]:
    def shown() -> bool:
        screen = app.screen
        return (
            isinstance(screen, InboxScreen)
            and screen.body_filled
            and screen.table.total_count == items
        )

    return shown


async def _inbox_rounds(
    app: RoostApp, frames: _Frames, items: int, rounds: int, *, aligned: bool
) -> dict[str, list[dict[str, float]]]:
    """``i`` then ``?`` (the floor), each closed with ``escape``, ``rounds`` times."""
    opens: dict[str, list[dict[str, float]]] = {"inbox": [], "help": []}
    help_shown = lambda: isinstance(app.screen, HelpScreen)  # noqa: E731
    for round_ in range(rounds):
        for name, key, shown in (
            ("inbox", "i", _inbox_shown(app, items)),
            ("help", "question_mark", help_shown),
        ):
            opened = await _open(app, frames, key, shown, press=round_, aligned=aligned)
            opens[name].append(opened)
            await _close(app, frames)
    return opens


async def _never_asked(
    app: RoostApp, frames: _Frames, agent: str, items: int, *, aligned: bool
) -> dict[str, float]:
    """``i`` for an agent whose entries were never looked for (the app's agent swapped)."""
    pulse = app.pulse
    was = pulse.agent
    pulse.agent = agent
    try:
        opened = await _open(app, frames, "i", _inbox_shown(app, items), press=0, aligned=aligned)
        await _close(app, frames)
    finally:
        pulse.agent = was
    return opened


async def _activity_visit(
    app: RoostApp, frames: _Frames, warmed: _Warmed, rows: int, *, aligned: bool
) -> dict[str, float]:
    """``8`` with ``changes.json`` only in the disk cache: next frame, every row, warmed."""

    def shown() -> bool:
        screen = app.screen
        return (
            isinstance(screen, ActivityScreen)
            and screen.body_filled
            and screen.table.total_count == rows
        )

    visit = await _open(app, frames, "8", shown, press=0, aligned=aligned)
    await _until(lambda: warmed.of(app) is not None, timeout=300)
    return {
        "next_frame_s": visit["next_frame_s"],
        "populated_s": visit["shown_s"],
        "warmed_s": warmed.of(app) - visit["sent"],  # type: ignore[operator]
    }


async def _session(
    cache: DiskCache, facts: dict[str, Any], rounds: int, *, aligned: bool
) -> dict[str, Any]:
    """The inbox's rounds, the never-asked open, Activity's first visit, then ``rounds`` of the
    script on each tab (``aligned``: each key typed between two of the status bar's frames)."""
    presses: dict[str, list[tuple[str, float, float]]] = {"agents": [], "activity": []}
    warmed = _Warmed()
    agent = facts["agent"]

    async def press(tab: str | None, label: str, key: str) -> None:
        if aligned:
            await _between_ticks(frames, sum(map(len, presses.values())))  # both tabs' in turn
        _, next_frame, settled = await timed_press(app, frames, [key])
        if tab is not None:
            presses[tab].append((label, next_frame, settled))

    async with _painted(facts["agents"], cache, warmed.hook, agent=agent) as (app, _, frames):
        await _until(lambda: warmed.of(app) is not None, timeout=300)  # Agents' rows
        # the store is warm: the inbox's files read, the unread counted for the status bar
        await _until(lambda: app.app_state.inbox.startswith(f"{agent} \u00b7"), timeout=300)
        status = app.app_state.inbox
        await asyncio.sleep(QUIET_S)
        opens = await _inbox_rounds(
            app, frames, facts["inbox_items"], max(rounds * 2, 2), aligned=aligned
        )
        never = await _never_asked(
            app, frames, facts["other"], facts["other_items"], aligned=aligned
        )
        visit = await _activity_visit(app, frames, warmed, facts["feed_rows"], aligned=aligned)
        agent_filtered = 0
        await press(None, "back", TABS["agents"][0])
        for round_ in range(rounds):
            word = WORDS[round_ % len(WORDS)]
            assert isinstance(app.screen, AgentsScreen)
            for label, key in _script("agents", word):
                await press("agents", label, key)
            await press("activity", "later visit", TABS["activity"][0])
            screen = app.screen
            assert isinstance(screen, ActivityScreen)
            for label, key in _script("activity", word):
                await press("activity", label, key)
                agent_filtered += screen.agent_filter is not None
            await press("agents", "later visit", TABS["agents"][0])
    # `A` narrowed the feed to an agent once per round (the selected row named one)
    assert agent_filtered == rounds, agent_filtered
    return {
        "status": status,
        "opens": opens,
        "never_asked": never,
        "first_visit": visit,
        "presses": presses,
    }


# --------------------------------------------------------------------------- refresh


async def _cycle(network: DemoNetwork, wanted: tuple[str, ...], unlisted: tuple[str, ...]):
    """A store wanting ``wanted``: its first refresh, then a no-change one (``unlisted``: the
    files the manifest leaves out)."""
    transport: httpx.AsyncBaseTransport = httpx.ASGITransport(app=create_app(network))
    if unlisted:
        transport = _Unlisted(transport, *unlisted)
    counter = WireCounter(transport)
    async with httpx.AsyncClient(transport=counter, base_url=BASE) as client:
        store = Store(BASE, client=client, options=StoreOptions(retry_delay_s=0))
        await store.want(*wanted)
        first = await store.refresh()
        # a file the manifest does not list is read all the same, only not verified
        expected = {(name, "unverified") for name in unlisted}
        assert {(p.file, p.kind) for p in first.problems} == expected, first.problems
        assert all(store.snapshot.file(name).loaded for name in wanted)
        counter.reset()
        report = await store.refresh()
    per_file = {name: counter.files.get(name, {"statuses": []})["statuses"] for name in wanted}
    return {
        "requests": counter.requests,
        "wire_bytes": counter.bytes,
        "body_bytes": sum(counter.files.get(name, {}).get("body_bytes", 0) for name in wanted),
        "manifest": report.manifest,
        "fetched": report.fetched,
        "statuses": per_file,
        "requested": sorted(counter.files),
    }


async def measure_refresh(network: DemoNetwork) -> dict[str, Any]:
    """The no-change cycle wanting every pulse file (listed, left out of the manifest) beside
    the one wanting none; asserts what it may request."""
    out = {
        "none_wanted": await _cycle(network, (), ()),
        "listed": await _cycle(network, PULSE_FILES, ()),
        "unlisted": await _cycle(network, PULSE_FILES, PULSE_FILES),
    }
    floor = out["none_wanted"]["requests"]
    assert out["listed"]["requested"] == [MANIFEST_FILE], out["listed"]
    assert out["listed"]["requests"] == floor
    unlisted = out["unlisted"]
    assert unlisted["requests"] == floor + len(PULSE_FILES), unlisted
    assert all(unlisted["statuses"][name] == [304] for name in PULSE_FILES), unlisted
    return out


# --------------------------------------------------------------------------- the section


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _opens(values: list[dict[str, float]]) -> dict[str, Any]:
    return {
        "n": len(values),
        "next_frame": _stats([v["next_frame_s"] for v in values]),
        "shown": _stats([v["shown_s"] for v in values]),
    }


def _shared_settled(presses: list[tuple[str, float, float]]) -> list[float]:
    """Settled times of the presses of the script both tabs share (not Activity's `A`)."""
    return [p[2] for p in presses if p[0] != AGENT_FILTER]


async def measure_pulse(agents: int, *, rounds: int, runs: int, aligned: bool = True):
    """The section (``aligned``: see ``_session``; a smoke run saves its waits)."""
    network, facts = await asyncio.to_thread(_world, agents)
    files = dict(network.files)
    refresh = await measure_refresh(network)
    del network
    with tempfile.TemporaryDirectory() as tmp, _read_state_in(tmp):
        cache = cache_files(DiskCache.for_service(BASE, Path(tmp) / "cache"), files)
        del files
        session = await _session(cache, facts, rounds, aligned=aligned)
        floor = await asyncio.to_thread(measure_visit_floor, cache, runs, (CHANGES,))
    inbox, help_ = (_opens(session["opens"][name]) for name in ("inbox", "help"))
    never = {name: _ms(session["never_asked"][name]) for name in ("next_frame_s", "shown_s")}
    visit = session["first_visit"]
    on = {tab: _tab_figures(session["presses"][tab]) for tab in ("agents", "activity")}
    settled = {tab: _shared_settled(session["presses"][tab]) for tab in on}
    shared = {tab: _ms(_quantile(settled[tab], 0.95)) for tab in on}
    ratio_figures, ratio_kept = settled_figures(
        "Activity",
        facts["agents"],
        settled["activity"],
        settled["agents"],
        rounds,
        GOAL_SETTLED_RATIO,
    )
    worst = max(on["activity"]["worst_key_p95_ms"], _ms(visit["next_frame_s"]))
    listed, unlisted = refresh["listed"], refresh["unlisted"]
    size = f"{facts['notifications']:,} notifications, {facts['pokes']:,} pokes"
    return {
        "figures": [
            figure(
                f"i to the inbox's rows shown, p95, {facts['inbox_items']} items of {size}",
                inbox["shown"]["p95_ms"],
                "ms",
                at_most=GOAL_P95_MS,
            ),
            figure("? to the help screen shown, p95 (the floor)", help_["shown"]["p95_ms"], "ms"),
            figure(
                "i to the inbox's rows shown, an agent never asked for (the first pass)",
                never["shown_s"],
                "ms",
            ),
            figure(
                "inbox_for's first pass over both files alone, median", facts["first_pass_ms"], "ms"
            ),
            figure("inbox_for once the pass is held, median", facts["held_lookup_ms"], "ms"),
            figure(
                f"Activity, next frame after a key, p95 of the worst key, {facts['changes']:,}"
                " changes",
                worst,
                "ms",
                at_most=GOAL_P95_MS,
            ),
            *ratio_figures,
            figure("Activity, settled frame after a key, p95", shared["activity"], "ms"),
            figure("Agents, settled frame after a key, p95", shared["agents"], "ms"),
            figure(
                "Activity's first visit, 8 to every row shown", round(visit["populated_s"], 3), "s"
            ),
            figure(
                "Activity's first visit, 8 to its rows warmed", round(visit["warmed_s"], 3), "s"
            ),
            figure(
                "the first visit's every row shown over read + json.loads of changes.json",
                round(visit["populated_s"] / floor["read_and_json_loads_s"], 2),
                "×",
            ),
            figure(
                "requests of a no-change refresh wanting every pulse file, all in the manifest",
                listed["requests"],
                "",
                at_most=refresh["none_wanted"]["requests"],
            ),
            figure(
                "requests of a no-change refresh wanting every pulse file, none in the manifest",
                unlisted["requests"],
                "",
                at_most=refresh["none_wanted"]["requests"] + len(PULSE_FILES),
            ),
            figure(
                "body bytes of the pulse files in that refresh (304s)",
                unlisted["body_bytes"],
                "B",
                at_most=0,
            ),
        ],
        **facts,
        "status_bar": session["status"],
        "rounds": rounds,
        "aligned": aligned,
        "inbox": inbox,
        "help": help_,
        "never_asked_ms": never,
        "first_visit_ms": {name: _ms(value) for name, value in visit.items()},
        "first_visit_floor": floor,
        "agents_tab": on["agents"],
        "activity_tab": on["activity"],
        "shared_settled_p95_ms": shared,
        **ratio_kept,
        "refresh": refresh,
    }


if __name__ == "__main__":
    run_section(measure_pulse, __doc__)
