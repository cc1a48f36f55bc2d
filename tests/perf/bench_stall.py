"""UI stall during a refresh that changes one agent of many: entry-by-entry vs whole validation.

The real RoostApp (headless, 120×40) on the in-process demo network, the Agents tab showing every
agent. One agent's karma changes on the network; the store refreshes; the app rebuilds its rows.
A task on the app's event loop wakes every 5 ms and records how late each wake-up is: the longest
gap is the longest the UI could not react (a keystroke waits that long), and the gaps over 50 ms
are the stalls a person notices. The cases, alternated over several rounds on the same app:

* ``keyed``: what roost does (tui/network/keyed.py: only the changed agent is validated again);
* ``whole``: the same store validating the whole agents.json each time (``parse_state``);
* ``keyed_first``: roost's first refresh after a start from the disk cache: the cached copy is
  compared with, but where its entries lie is worked out first (one walk of it, entry by entry);
* ``no_copy``: the first refresh of a start with no cache: nothing to compare with, so the whole
  document is validated once (the cheapest exact way, but in one piece).

Both keep big documents out of the cyclic collector (the store's memory policy,
``gc_policy.building``, as connect() gives it). The demo network
answers in-process, so serving the 49 MB body also runs on the app's event loop: a gap of a few
tens of ms at the start of each refresh belongs to that server, not to roost.
"""

from __future__ import annotations

import asyncio
import copy
import statistics
import sys
import time
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from app_rig import loaded, make_rig, settle  # noqa: E402
from figures import figure  # noqa: E402

import tui.network.store as store_module  # noqa: E402
from tui.network.keyed import Keyed  # noqa: E402
from tui.network.models import parse_state  # noqa: E402

__all__ = ["measure_refresh_stall"]

SIZE = (120, 40)
TICK_S = 0.005
STALL_S = 0.05


def _whole(name: str, body: bytes, previous: Any) -> tuple[Any, Any]:
    # hands the store's entry texts back untouched, so the next keyed round is a steady one
    return parse_state(name, body), previous


async def _one_refresh(rig: Any, pilot: Any) -> dict[str, float]:
    doc = copy.deepcopy(rig.network.doc("agents.json"))
    first = next(iter(doc["agents"]))
    doc["agents"][first]["karma"] += 1
    rig.network.replace_doc("agents.json", doc, rig.clock.advance(minutes=1))
    _ = rig.network.files  # serialised now, outside the measured refresh
    await settle(pilot)
    gaps: list[float] = []
    running = True

    async def ticker() -> None:
        last = time.perf_counter()
        while running:
            await asyncio.sleep(TICK_S)
            now = time.perf_counter()
            gaps.append(now - last - TICK_S)
            last = now

    task = asyncio.create_task(ticker())
    started = time.perf_counter()
    report = await rig.store.refresh()
    await settle(pilot)
    total = time.perf_counter() - started
    running = False
    await task
    assert report.changed == ["agents.json"], report
    return {
        "max_gap_s": round(max(gaps), 4),
        "stalls_over_50ms": sum(gap > STALL_S for gap in gaps),
        "refresh_to_rows_s": round(total, 4),
    }


async def measure_refresh_stall(agents: int, rounds: int = 3) -> dict[str, Any]:
    rig = make_rig(agents=agents)
    cases = ("whole", "keyed", "keyed_first", "no_copy")
    runs: dict[str, list[dict[str, float]]] = {case: [] for case in cases}
    keyed_parse = store_module.parse_keyed
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot, timeout=300)
        await settle(pilot)
        await _one_refresh(rig, pilot)  # warm-up: the store now holds each agent's text
        try:
            for _ in range(rounds):
                for case in cases:
                    store_module.parse_keyed = _whole if case == "whole" else keyed_parse
                    if case == "keyed_first":  # as load_cache leaves it: no entry spans yet
                        held = rig.store._keyed["agents.json"]
                        rig.store._keyed["agents.json"] = Keyed(held.document, None, held.models)
                    elif case == "no_copy":
                        rig.store._keyed.clear()  # the first refresh of a start with no cache
                    runs[case].append(await _one_refresh(rig, pilot))
        finally:
            store_module.parse_keyed = keyed_parse
        shown = rig.app.screen.table.total_count  # type: ignore[attr-defined]
    assert shown == agents
    result: dict[str, Any] = {"agents": agents, "rounds": rounds, "runs": runs}
    for case, rows in runs.items():
        result[case] = {
            key: statistics.median(row[key] for row in rows)
            for key in ("max_gap_s", "stalls_over_50ms", "refresh_to_rows_s")
        }
    keyed, whole = result["keyed"]["max_gap_s"], result["whole"]["max_gap_s"]
    result["max_gap_ratio"] = round(whole / keyed, 1) if keyed > 0 else None
    result["figures"] = [
        figure(f"longest UI stall of a refresh ({case}), {agents:,} agents", row["max_gap_s"], "s")
        for case, row in result.items()
        if isinstance(row, dict) and "max_gap_s" in row
    ]
    return result
