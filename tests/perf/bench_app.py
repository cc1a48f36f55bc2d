"""Cold start: RoostApp from the disk cache to a painted Agents table vs a bare Textual app.

The store reads only its disk cache: its HTTP transport fails at once (as on a machine with no
network), so the figure is start-up + cache read + validation + row build + first paint. The
bare app is one ``Static`` started the same way (``run_test``, same size). ``data_load_s`` is
the store's ``load_cache()`` alone (file read, sha256 check, validation), measured
outside the app. Goal: ``(roost_s - data_load_s) / bare_s`` of fresh processes, the median of
rounds, at most 1.5 (``median_round_ratio``).

"Painted" is the first display of the screen after the Agents table holds every row
(``App.post_display_hook`` runs after each display, headless included).

Two measurements, reported side by side:

* ``in_process``: both apps started inside this already-warm interpreter (``run_test``). The
  bare app then costs ~10 ms, so "2× bare" leaves no room for any real screen's first layout;
  kept because it isolates roost's own work.
* ``process``: what a person waits for. Each run is a fresh interpreter
  (``cold_start_child.py roost|bare``, which imports only what its own app needs: the bare app
  imports Textual alone) running the app headless at the same size; the time is from spawning the
  process to the first populated display, imports and start-up included for both. The roost
  child builds the app from settings as `roost --read-url URL` does (its own store, disk cache
  and HTTP client); nothing listens at URL. roost's modules are byte-compiled first, as
  ``pip install`` leaves them.
"""

from __future__ import annotations

import asyncio
import compileall
import hashlib
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from figures import figure  # noqa: E402
from frames_written import written_only  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Static  # noqa: E402

from tui.config import Settings  # noqa: E402
from tui.network.disk_cache import CachedMeta, DiskCache  # noqa: E402
from tui.network.store import Store  # noqa: E402
from tui.sandbox.generator import DEFAULT_EPOCH, generate_state, serialize  # noqa: E402
from tui.service import Service  # noqa: E402
from tui.ui import speed  # noqa: E402
from tui.ui.app import RoostApp  # noqa: E402
from tui.ui.screens.agents import AgentsScreen  # noqa: E402

__all__ = ["cache_files", "fill_cache", "measure_cold_start"]

BASE = "http://bench.invalid"
SIZE = (120, 40)
CHILD = Path(__file__).resolve().parent / "cold_start_child.py"  # imports only its own app's needs
CHILD_BASE = "http://127.0.0.1:9"  # cold_start_child.py's service (its BASE)
GOAL_MEDIAN_ROUND_RATIO = 1.5  # (roost - data load) / bare, the median of fresh-process rounds


class _NoNetwork(httpx.AsyncBaseTransport):
    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("benchmark: no network", request=request)


class _Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("hello")


def fill_cache(cache_dir: Path, agents: int, read_url: str = BASE) -> DiskCache:
    """Write a generated network's files into ``read_url``'s disk cache under ``cache_dir``, as
    a previous run of `roost --read-url READ_URL` with that cache folder would have."""
    cache = DiskCache.for_service(read_url, cache_dir)
    docs = generate_state(seed=7, agents=agents, epoch=DEFAULT_EPOCH)
    return cache_files(cache, {name: serialize(doc) for name, doc in docs.items()})


def cache_files(cache: DiskCache, files: Mapping[str, bytes]) -> DiskCache:
    """``files`` (name -> bytes) in ``cache``, verified, as a previous run would have left them."""
    for name, body in files.items():
        meta = CachedMeta(
            sha256=hashlib.sha256(body).hexdigest(),
            size=len(body),
            fetched_at=DEFAULT_EPOCH.isoformat(),
            verified=True,
        )
        cache.store(name, body, meta)
    return cache


async def _until_painted(app: App, ready, started: float) -> float:
    """Run ``app`` headless; seconds from ``started`` to the first display where ``ready()``."""
    painted = asyncio.Event()
    finished: list[float] = []

    def hook() -> None:
        if not painted.is_set() and ready():
            finished.append(time.perf_counter())
            painted.set()

    written_only(app)
    app.post_display_hook = hook  # type: ignore[method-assign]
    async with app.run_test(size=SIZE):
        await asyncio.wait_for(painted.wait(), timeout=300)
    return finished[0] - started


async def _roost_once(cache: DiskCache, agents: int) -> float:
    started = time.perf_counter()
    client = httpx.AsyncClient(transport=_NoNetwork(), base_url=BASE)
    store = Store(BASE, client=client, cache=cache, building=speed.building())
    app = RoostApp(Service(Settings(read_url=BASE), store), poll=False)

    def ready() -> bool:
        screen = app.screen
        return (
            isinstance(screen, AgentsScreen)
            and screen.body_filled
            and screen.table.total_count == agents
        )

    try:
        return await _until_painted(app, ready, started)
    finally:
        await client.aclose()


async def _bare_once() -> float:
    started = time.perf_counter()
    return await _until_painted(_Bare(), lambda: True, started)


def _data_load_once(cache: DiskCache) -> float:
    store = Store(BASE, cache=cache, building=speed.building())  # as connect() makes it
    started = time.perf_counter()
    snapshot = store.load_cache()
    elapsed = time.perf_counter() - started
    assert snapshot.agents is not None
    return elapsed


def _summary(
    agents: int, roost: list[float], bare: list[float], load: list[float]
) -> dict[str, Any]:
    """Medians, the ratios and the raw runs (``goal_met``: the older bound, roost <= 2 x bare +
    data load)."""
    roost_s, bare_s, load_s = (statistics.median(x) for x in (roost, bare, load))
    return {
        "agents": agents,
        "size": list(SIZE),
        "roost_s": round(roost_s, 4),
        "bare_s": round(bare_s, 4),
        "data_load_s": round(load_s, 4),
        "roost_minus_data_load_s": round(roost_s - load_s, 4),
        "ratio_minus_data_load": round((roost_s - load_s) / bare_s, 2) if bare_s else None,
        "goal": "roost_s <= 2 * bare_s + data_load_s",
        "goal_met": roost_s <= 2 * bare_s + load_s,
        # the same ratio within each round (its three runs ran back to back, so a slow spell of
        # this shared machine hits all three), then the median over rounds
        "ratio_minus_data_load_per_round": [
            round((r - lo) / b, 2) for r, b, lo in zip(roost, bare, load, strict=True)
        ],
        "median_round_ratio": round(
            statistics.median((r - lo) / b for r, b, lo in zip(roost, bare, load, strict=True)), 2
        ),
        "runs": {
            "roost_s": [round(x, 4) for x in roost],
            "bare_s": [round(x, 4) for x in bare],
            "data_load_s": [round(x, 4) for x in load],
        },
    }


async def measure_cold_start(cache_dir: Path, agents: int, *, repeats: int = 3) -> dict[str, Any]:
    """Median seconds of ``repeats`` alternating runs of each case; see the module docstring."""
    cache = fill_cache(Path(cache_dir), agents)
    await _bare_once()  # warm-up: first-app costs (imports, CSS parsing) are not either case's
    roost: list[float] = []
    bare: list[float] = []
    load: list[float] = []
    for _ in range(repeats):
        bare.append(await _bare_once())
        roost.append(await _roost_once(cache, agents))
        load.append(await asyncio.to_thread(_data_load_once, cache))
    return _summary(agents, roost, bare, load)


# --------------------------------------------------------------------------- process level


def _spawn(
    kind: str,
    cache_dir: Path,
    agents: int,
    rss: list[int] | None = None,
    own_load: list[float] | None = None,
) -> Any:
    """One child run: seconds from spawn to its first populated display (``load``: a dict of
    the load's seconds without and with its imports); its peak RSS at that display is appended
    to ``rss``, and (roost) its own ``load_cache()`` seconds to ``own_load``."""
    import json
    import subprocess

    started = time.time()
    out = subprocess.run(
        [sys.executable, str(CHILD), kind, str(cache_dir), str(agents)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if kind == "load":
        return result
    painted = result["painted_at"]
    if painted is None:
        raise RuntimeError(f"{kind} child never painted: {out.stderr[-2000:]}")
    if rss is not None:
        rss.append(result["peak_rss_at_paint"])
    if own_load is not None:
        own_load.append(result["own_load_s"])
    return painted - started


def measure_process_cold_start(cache_dir: Path, agents: int, *, repeats: int = 5) -> dict[str, Any]:
    """Median of ``repeats`` alternating fresh-process runs of each app (see the docstring).

    ``data_load_s`` is the data load in a fresh interpreter too (``cold_start_child.py load``:
    the same ``load_cache()`` the app runs, imports excluded), so all three figures come from
    processes in the same state. ``data_load_warm_s`` is the load in this long-running process,
    as the in-process figure uses it; ``goal_met_with_warm_load`` applies the goal with it. That
    process's heap was already grown by earlier loads (its ~300 MB are mapped: no page faults),
    which no cold start has, so it is reported beside the fresh-process figures, not instead.
    """
    cache = fill_cache(Path(cache_dir), agents, CHILD_BASE)
    # as installed by pip: roost's modules byte-compiled (Textual's already are)
    compileall.compile_dir(ROOT / "tui", quiet=1)
    _spawn("bare", Path(cache_dir), agents)  # warm the OS file cache for both
    roost: list[float] = []
    bare: list[float] = []
    load: list[float] = []
    with_imports: list[float] = []
    warm: list[float] = []
    rss: dict[str, list[int]] = {"roost": [], "bare": []}
    own: list[float] = []  # each roost run's own load_cache(), timed inside that process
    for _ in range(repeats):
        bare.append(_spawn("bare", Path(cache_dir), agents, rss["bare"]))
        roost.append(_spawn("roost", Path(cache_dir), agents, rss["roost"], own))
        loaded = _spawn("load", Path(cache_dir), agents)
        load.append(loaded["load_s"])
        with_imports.append(loaded["load_with_imports_s"])
        warm.append(_data_load_once(cache))
    summary = _summary(agents, roost, bare, load)
    roost_s, bare_s = summary["roost_s"], summary["bare_s"]
    warm_s = statistics.median(warm)
    summary["data_load_warm_s"] = round(warm_s, 4)
    summary["goal_met_with_warm_load"] = roost_s <= 2 * bare_s + warm_s
    # the load's own imports (msgspec and the models) counted as data load, not as
    # roost's start-up: the bare app loads no data and imports no validator
    imports_s = statistics.median(with_imports)
    summary["data_load_with_imports_s"] = round(imports_s, 4)
    summary["ratio_minus_data_load_with_imports"] = round((roost_s - imports_s) / bare_s, 2)
    summary["goal_met_with_imports_in_load"] = roost_s <= 2 * bare_s + imports_s
    # the TUI's memory beside a bare app's: peak RSS at the first populated display
    roost_rss, bare_rss = (statistics.median(rss[kind]) / (1 << 20) for kind in ("roost", "bare"))
    summary["peak_rss_at_paint_mib"] = {
        "roost": round(roost_rss, 1),
        "bare": round(bare_rss, 1),
        "ratio": round(roost_rss / bare_rss, 2),
    }
    # The same ratio with each roost run's own data load subtracted (timed in that process:
    # load_cache() runs after the first frame, while the event loop waits): the load a separate
    # process times swings by a third between fresh processes on this machine (0.45-0.78 s at
    # 50k agents), and that swing, not roost's start-up, moved the per-round ratio above. Both
    # are reported; own_data_load_s beside data_load_s shows the app's load is the same load.
    own_s = statistics.median(own)
    summary["own_data_load_s"] = round(own_s, 4)
    summary["ratio_minus_own_load_per_round"] = [
        round((r - lo) / b, 2) for r, b, lo in zip(roost, bare, own, strict=True)
    ]
    summary["median_round_ratio_own_load"] = round(
        statistics.median((r - lo) / b for r, b, lo in zip(roost, bare, own, strict=True)), 2
    )
    summary["runs"]["own_data_load_s"] = [round(x, 4) for x in own]
    summary["runs"]["data_load_warm_s"] = [round(x, 4) for x in warm]
    summary["runs"]["data_load_with_imports_s"] = [round(x, 4) for x in with_imports]
    summary["figures"] = [
        figure(
            f"cold start, (roost - data load) over a bare app, median of rounds, {agents:,} agents",
            summary["median_round_ratio"],
            "×",
            at_most=GOAL_MEDIAN_ROUND_RATIO,
        ),
        figure(
            "cold start ratio with each run's own data load",
            summary["median_round_ratio_own_load"],
            "×",
        ),
        figure("roost, spawn to the painted table", summary["roost_s"], "s"),
        figure("bare app, spawn to its first paint", summary["bare_s"], "s"),
        figure("peak RSS at the first paint", round(roost_rss, 1), "MiB"),
    ]
    return summary


if __name__ == "__main__":
    import json
    import tempfile

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    with tempfile.TemporaryDirectory() as tmp:
        result = {
            "in_process": asyncio.run(measure_cold_start(Path(tmp), count)),
            "process": measure_process_cold_start(Path(tmp), count),
        }
        print(json.dumps(result, indent=2))
