"""Keystroke latency: the real app at 50 000 agents driven from its first paint on.

RoostApp starts from a disk cache (no network, as in ``bench_app``) headless at 80×24. As soon as
the Agents table first shows every row, with no settling pause, a scripted session is typed:
a filter burst (``/act`` posted at once, as a fast typist's or a paste's bytes arrive), the sort
picker and a sort by its key, open/close the detail, each tab (first visit, then later visits),
the palette, help, and quit.

Each key is posted to the app as the terminal driver posts what it reads (``App.post_message``
of a ``Key`` event), not with ``pilot.press``: that waits until the whole process is idle, its
background threads included, which is not what a person sees. Two times per key, from the
moment it was posted, by ``App.post_display_hook`` (called when a frame has been written):

* **next frame**: the first frame written after the key — what the issue's goal is about (for
  the burst, every key of it counts from the burst's first key, to the first frame after the
  app has handled all of it);
* **settled**: the last frame of the key's run of frames (none for 150 ms after it), e.g. the
  populated table after a tab's first frame, or the detail pane's contents after it opens.

The next key is typed once the screen has settled (at most 2 s), except inside the burst.
Reported per key: p50, p95 and max of both over the session's presses of that key, and the
presses in the first second after the first paint. Quit: ``pilot.press("q")`` until the app
has shut down, beside a bare app's ``ctrl+q`` timed the same way (both include the pilot's wait
for the process to idle), the median of alternating rounds (the session's own quit, then
shorter sessions that visit every tab). Goal: every key's next frame
≤ 100 ms at p95; quit ≤ 2× a bare app's quit (the bare app is one ``Static``, started and quit
the same way).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import statistics
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench_app import BASE, _Bare, _NoNetwork, fill_cache  # noqa: E402
from figures import figure  # noqa: E402
from frames_written import written_only  # noqa: E402
from textual import events  # noqa: E402
from textual.app import App  # noqa: E402
from textual.message import Message  # noqa: E402
from textual.pilot import Pilot  # noqa: E402

from tui.config import Settings  # noqa: E402
from tui.network.disk_cache import DiskCache  # noqa: E402
from tui.network.store import Store  # noqa: E402
from tui.service import Service  # noqa: E402
from tui.tabs import TABS  # noqa: E402
from tui.ui import speed  # noqa: E402
from tui.ui.app import RoostApp  # noqa: E402
from tui.ui.screens.agents import AgentsScreen  # noqa: E402

__all__ = ["measure_keys"]

SIZE = (80, 24)
GOAL_P95_S = 0.100
GOAL_QUIT_RATIO = 2.0


BURST = ["slash", "a", "c", "t"]
QUIET_S = 0.150  # no frame for this long: the screen has settled
SETTLE_MAX_S = 2.0
_CHARACTERS = {
    "slash": "/",
    "question_mark": "?",
    "escape": "\x1b",
    "enter": "\r",
    "tab": "\t",
    "ctrl+p": "\x10",
}


def _script() -> list[str | list[str]]:
    """The session, in order: a filter burst typed at once (a list), then one key at a time."""
    tabs = [tab.key for tab in TABS]
    first, others = tabs[0], tabs[1:]
    return [
        BURST,
        "escape",
        "s",  # the sort picker …
        "a",  # … and a sort by karma (50 000 rows)
        "enter",
        "escape",
        *others,  # first visits
        first,
        *others,  # later visits
        first,
        "slash",
        "z",
        "i",
        "escape",
        "question_mark",
        "escape",
        "ctrl+p",
        "escape",
    ]


def _key_event(key: str) -> events.Key:
    """The event the terminal driver posts for ``key``."""
    character = _CHARACTERS.get(key, key if len(key) == 1 else None)
    return events.Key(key, character)


class _Frames:
    """Times of displayed frames, and ways to wait for them."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.changed = asyncio.Event()
        self.app_closed = 0.0  # when the app's run_test ended (set by _painted)

    def hook(self) -> None:
        self.times.append(time.perf_counter())
        self.changed.set()

    async def first_after(self, moment: float, timeout: float = 1.0) -> float | None:
        deadline = time.perf_counter() + timeout
        while True:
            later = [t for t in self.times[-8:] if t >= moment]
            if later:
                return later[0]
            self.changed.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=left)
            except TimeoutError:
                return None

    async def settled_after(self, moment: float) -> float | None:
        """The last frame after ``moment`` once none has come for QUIET_S (None: no frame)."""
        deadline = moment + SETTLE_MAX_S
        last = None
        while time.perf_counter() < deadline:
            after = [t for t in self.times[-32:] if t >= moment]
            last = after[-1] if after else None
            since = time.perf_counter() - (last if last is not None else moment)
            if since >= QUIET_S:
                break
            await asyncio.sleep(QUIET_S - since)
        return last


async def _handled(app: App) -> None:
    """Until every message posted so far to the app and the nodes of its screen has been
    handled (as ``Pilot`` waits for the screen, without its wait for the process to idle)."""
    nodes = [app, *app.screen.walk_children(with_self=True)]
    done = asyncio.Event()
    count = 0

    def one_done() -> None:
        nonlocal count
        count -= 1
        if count == 0:
            done.set()

    for node in nodes:
        if node.call_later(one_done):
            count += 1
    if count:
        await asyncio.wait_for(done.wait(), timeout=5)


@contextlib.asynccontextmanager
async def _painted(
    agents: int,
    cache: DiskCache,
    message_hook: Callable[[Message], None] | None = None,
    *,
    agent: str | None = None,
) -> AsyncIterator[tuple[RoostApp, Pilot, _Frames]]:
    """The real app from ``cache`` at 80×24, from its first frame showing all ``agents`` rows
    (``message_hook``: called with each message as it arrives anywhere in the app; ``agent``:
    the agent whose inbox it shows)."""
    client = httpx.AsyncClient(transport=_NoNetwork(), base_url=BASE)
    store = Store(BASE, client=client, cache=cache, building=speed.building())
    app = RoostApp(Service(Settings(read_url=BASE, agent=agent), store), poll=False)
    frames = _Frames()
    written_only(app)  # frames written, not displays that wrote nothing
    app.post_display_hook = frames.hook  # type: ignore[method-assign]
    try:
        async with app.run_test(size=SIZE, message_hook=message_hook) as pilot:
            while not (
                isinstance(app.screen, AgentsScreen)
                and app.screen.body_filled
                and app.screen.table.total_count == agents
            ):
                await frames.first_after(time.perf_counter(), timeout=5)
            yield app, pilot, frames
        frames.app_closed = time.perf_counter()  # a quit ends here, not with the client's close
    finally:
        await client.aclose()


async def timed_press(app: App, frames: _Frames, keys: list[str]) -> tuple[float, float, float]:
    """Post ``keys`` at once (one key, or a burst) as the terminal driver would; (when they
    were posted, next frame s, settled s), once the screen has settled and the app has handled
    them."""
    sent = time.perf_counter()
    for key in keys:
        app.post_message(_key_event(key))
    if len(keys) > 1:
        await _handled(app)  # the burst's next frame: after all of it is handled
        first = await frames.first_after(time.perf_counter(), timeout=1.0)
    else:
        first = await frames.first_after(sent, timeout=1.0)
    settled = await frames.settled_after(sent)
    await _handled(app)
    end = time.perf_counter()
    next_frame = (first if first is not None else end) - sent
    settle = (settled if settled is not None else end) - sent
    return sent, next_frame, max(settle, next_frame)


async def _session(agents: int, cache_dir: Path) -> dict[str, Any]:
    # (key, next frame s, settled s, in the first second after the first paint)
    presses: list[tuple[str, float, float, bool]] = []
    async with _painted(agents, fill_cache(cache_dir, agents)) as (app, pilot, frames):
        painted = frames.times[-1]
        for step in _script():
            keys = step if isinstance(step, list) else [step]
            sent, next_frame, settle = await timed_press(app, frames, keys)
            for key in keys:
                presses.append((key, next_frame, settle, sent - painted < 1.0))
        sent = time.perf_counter()
        await pilot.press("q")
    return {"presses": presses, "quit_s": frames.app_closed - sent}


async def _bare_quit() -> float:
    app = _Bare()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        sent = time.perf_counter()
        await pilot.press("ctrl+q")
    return time.perf_counter() - sent


async def _roost_quit(agents: int, cache_dir: Path) -> float:
    """One more quit after a shorter session: from the cache, every tab visited once (as in the
    session, so each tab's screen is there to close), back to the first, then ``q``."""
    cache = DiskCache.for_service(BASE, cache_dir)  # the session's, already filled
    async with _painted(agents, cache) as (app, pilot, frames):
        for key in [*(tab.key for tab in TABS[1:]), TABS[0].key]:
            sent = time.perf_counter()
            app.post_message(_key_event(key))
            await frames.settled_after(sent)
            await _handled(app)
        await pilot.pause(0.5)  # the warm-ups are done, as at the session's end
        sent = time.perf_counter()
        await pilot.press("q")
    return frames.app_closed - sent


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ratio_interval(
    over: list[float], under: list[float], rounds: int, q: float = 0.95, draws: int = 2000
) -> tuple[float, float, float]:
    """``quantile(over, q) / quantile(under, q)`` for two tabs' presses of the same script in
    ``rounds`` rounds (in order, as many a round), and how far the run's noise carries it: the
    2.5th and 97.5th percentiles of that ratio over ``draws`` resamples of whole rounds, a
    round's presses on both tabs drawn together (what slowed a round slowed both tabs in it).
    Seeded: the same presses give the same interval. Returns (ratio, low, high)."""
    if not rounds or len(over) % rounds or len(under) % rounds:
        raise ValueError(f"{len(over)} and {len(under)} presses are not {rounds} equal rounds")
    a, b = len(over) // rounds, len(under) // rounds
    over_rounds = [over[i * a : (i + 1) * a] for i in range(rounds)]
    under_rounds = [under[i * b : (i + 1) * b] for i in range(rounds)]
    rng = random.Random(0)
    ratios = []
    for _ in range(draws):
        drawn = [rng.randrange(rounds) for _ in range(rounds)]
        top = _quantile([value for i in drawn for value in over_rounds[i]], q)
        ratios.append(top / _quantile([value for i in drawn for value in under_rounds[i]], q))
    ratios.sort()
    ratio = _quantile(over, q) / _quantile(under, q)
    return ratio, ratios[round(0.025 * (draws - 1))], ratios[round(0.975 * (draws - 1))]


def settled_figures(
    tab: str, agents: int, over: list[float], under: list[float], rounds: int, goal: float
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """ "``tab``'s settled frames no slower than Agents'": the figures (the p95 ratio of the
    same script's presses, its 95% interval's low end against ``goal``, its high end) and what
    the section's result keeps of them."""
    ratio, low, high = ratio_interval(over, under, rounds)
    whose = tab + ("'" if tab.endswith("s") else "'s")
    figures = [
        figure(
            f"{whose} settled frame after a key over Agents', p95 of every press of the same"
            f" script, {agents:,} agents",
            round(ratio, 2),
            "×",
        ),
        figure(
            f"that ratio's 95% interval over rounds, low end: {tab} not measurably slower than"
            f" Agents, {agents:,} agents",
            round(low, 2),
            "×",
            at_most=goal,
        ),
        figure("that ratio's 95% interval over rounds, high end", round(high, 2), "×"),
    ]
    kept = {
        "settled_ratio": round(ratio, 3),
        "settled_ratio_interval": [round(low, 3), round(high, 3)],
    }
    return figures, kept


def _stats(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(values) * 1000, 1),
        "p95_ms": round(_quantile(values, 0.95) * 1000, 1),
        "max_ms": round(max(values) * 1000, 1),
    }


async def measure_keys(agents: int, cache_dir: Path, *, quit_rounds: int = 3) -> dict[str, Any]:
    session = await _session(agents, cache_dir)
    # Quit, timed with the pilot, moves in steps of its wait for the process to idle (20 ms
    # each: 43 or 64 ms for the bare app, from one run to the next): a single quit of each is a
    # coin toss, so the median of rounds, alternating, is what the goal is checked on.
    roost_quits = [session["quit_s"]]
    bare_quits = [await _bare_quit()]
    for _ in range(quit_rounds - 1):
        roost_quits.append(await _roost_quit(agents, cache_dir))
        bare_quits.append(await _bare_quit())
    quit_s, bare_quit = statistics.median(roost_quits), statistics.median(bare_quits)
    by_key: dict[str, list[tuple[float, float]]] = {}
    early: dict[str, list[float]] = {}
    for key, next_frame, settled, in_first_second in session["presses"]:
        by_key.setdefault(key, []).append((next_frame, settled))
        if in_first_second:
            early.setdefault(key, []).append(next_frame)
    per_key = {
        key: {
            "n": len(values),
            **_stats([v[0] for v in values]),
            "settled": _stats([v[1] for v in values]),
        }
        for key, values in by_key.items()
    }
    next_frames = [press[1] for press in session["presses"]]
    settled = [press[2] for press in session["presses"]]
    worst_p95 = max(row["p95_ms"] for row in per_key.values())
    settled_p95 = round(_quantile(settled, 0.95) * 1000, 1)
    settled_worst = max(row["settled"]["p95_ms"] for row in per_key.values())
    quit_ratio = round(quit_s / bare_quit, 2) if bare_quit > 0 else None
    return {
        "figures": [
            figure(
                f"next frame after a key, p95 of the worst key, {agents:,} agents",
                worst_p95,
                "ms",
                at_most=GOAL_P95_S * 1000,
            ),
            figure("settled frame after a key, p95 of every press", settled_p95, "ms"),
            figure("settled frame after a key, p95 of the worst key", settled_worst, "ms"),
            figure(
                "quit over a bare app's quit, in the process",
                quit_ratio,
                "×",
                at_most=GOAL_QUIT_RATIO,
            ),
        ],
        "agents": agents,
        "size": list(SIZE),
        "method": "keys posted as the terminal driver posts them; next frame and settled frame",
        "per_key": per_key,
        "first_second_ms": {
            key: [round(v * 1000, 1) for v in values] for key, values in early.items()
        },
        "all_p50_ms": round(statistics.median(next_frames) * 1000, 1),
        "all_p95_ms": round(_quantile(next_frames, 0.95) * 1000, 1),
        "all_max_ms": round(max(next_frames) * 1000, 1),
        "worst_key_p95_ms": worst_p95,
        "settled_p95_ms": settled_p95,
        "settled_worst_key_p95_ms": settled_worst,
        "quit_s": round(quit_s, 3),
        "bare_quit_s": round(bare_quit, 3),
        "quit_ratio": quit_ratio,
        "quit_rounds": {
            "roost_s": [round(x, 3) for x in roost_quits],
            "bare_s": [round(x, 3) for x in bare_quits],
        },
    }
