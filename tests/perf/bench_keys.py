"""Keystroke latency: the real app at 50 000 agents driven by a pilot from its first paint on.

RoostApp starts from a disk cache (no network, as in ``bench_app``) headless at 80×24. As soon as
the Agents table first shows every row, with no settling pause, a scripted session is typed:
a filter burst, the sort picker and a sort by its key, open/close the detail, each tab (first visit, then later visits), the
palette, help, and quit. For each key, the latency is from the moment it is sent to the first
frame displayed after the app has handled it (``App.post_display_hook``; when the key changes
nothing on screen, to the moment it was handled). Reported per key: p50, p95 and max over the
session's presses of that key, and which presses came in the first second after the first
paint. A key is sent with ``pilot.press``, which also waits for the app to go idle, so these
figures are upper bounds of what a person sees. Goal (issue 13): every key's p95 ≤ 100 ms; quit ≤ 2× a bare app's quit (the bare app is
one ``Static``, started and quit the same way).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench_app import BASE, _Bare, _NoNetwork, fill_cache  # noqa: E402

from tui.app import RoostApp  # noqa: E402
from tui.config import Settings  # noqa: E402
from tui.network.store import Store  # noqa: E402
from tui.screens.agents import AgentsScreen  # noqa: E402
from tui.tabs import TABS  # noqa: E402

__all__ = ["measure_keys"]

SIZE = (80, 24)
GOAL_P95_S = 0.100
GOAL_QUIT_RATIO = 2.0


def _script() -> list[str]:
    """The session, in order: a filter burst typed at once, then the rest."""
    tabs = [tab.key for tab in TABS]
    first, others = tabs[0], tabs[1:]
    return [
        "slash",
        "a",
        "c",
        "t",
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


class _Frames:
    """Times of displayed frames, and a way to wait for the next one after a moment."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.changed = asyncio.Event()

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


async def _session(agents: int, cache_dir: Path) -> dict[str, Any]:
    cache = fill_cache(cache_dir, agents)
    client = httpx.AsyncClient(transport=_NoNetwork(), base_url=BASE)
    store = Store(BASE, client=client, cache=cache)
    app = RoostApp(Settings(read_url=BASE), store=store, poll=False)
    frames = _Frames()
    app.post_display_hook = frames.hook  # type: ignore[method-assign]
    presses: list[tuple[str, float, bool]] = []
    try:
        async with app.run_test(size=SIZE) as pilot:
            while not (
                isinstance(app.screen, AgentsScreen) and app.screen.table.total_count == agents
            ):
                await frames.first_after(time.perf_counter(), timeout=5)
            painted = frames.times[-1]
            for key in _script():
                sent = time.perf_counter()
                await pilot.press(key)
                handled = time.perf_counter()
                shown = await frames.first_after(handled, timeout=0.2)
                # a frame between sending and handling already shows the key's effect
                end = shown if shown is not None else handled
                presses.append((key, end - sent, sent - painted < 1.0))
            sent = time.perf_counter()
            await pilot.press("q")
        quit_s = time.perf_counter() - sent
    finally:
        await client.aclose()
    return {"presses": presses, "quit_s": quit_s}


async def _bare_quit() -> float:
    app = _Bare()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        sent = time.perf_counter()
        await pilot.press("ctrl+q")
    return time.perf_counter() - sent


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def measure_keys(agents: int, cache_dir: Path) -> dict[str, Any]:
    session = await _session(agents, cache_dir)
    bare_quit = await _bare_quit()
    by_key: dict[str, list[float]] = {}
    early: dict[str, list[float]] = {}
    for key, latency, in_first_second in session["presses"]:
        by_key.setdefault(key, []).append(latency)
        if in_first_second:
            early.setdefault(key, []).append(latency)
    per_key = {
        key: {
            "n": len(values),
            "p50_ms": round(statistics.median(values) * 1000, 1),
            "p95_ms": round(_quantile(values, 0.95) * 1000, 1),
            "max_ms": round(max(values) * 1000, 1),
        }
        for key, values in by_key.items()
    }
    everything = [latency for _, latency, _ in session["presses"]]
    worst_p95 = max(row["p95_ms"] for row in per_key.values())
    return {
        "agents": agents,
        "size": list(SIZE),
        "per_key": per_key,
        "first_second_ms": {
            key: [round(v * 1000, 1) for v in values] for key, values in early.items()
        },
        "all_p50_ms": round(statistics.median(everything) * 1000, 1),
        "all_p95_ms": round(_quantile(everything, 0.95) * 1000, 1),
        "all_max_ms": round(max(everything) * 1000, 1),
        "worst_key_p95_ms": worst_p95,
        "goal_p95_ms_max": GOAL_P95_S * 1000,
        "quit_s": round(session["quit_s"], 3),
        "bare_quit_s": round(bare_quit, 3),
        "quit_ratio": round(session["quit_s"] / bare_quit, 2) if bare_quit > 0 else None,
        "goal_quit_ratio_max": GOAL_QUIT_RATIO,
    }
