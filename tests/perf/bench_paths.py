"""The paths the app and the CLI take with a big agents.json, each beside its plain-Python floor
measured in the same run.

* ``store``: the store's validation step on its real path (``parse_keyed``, which
  ``Store.refresh`` runs in a thread and ``Store.load_cache`` runs at start): the first refresh
  with no previous copy, a steady refresh (about 1% of the agents changed since the previous
  copy) and ``load_cache`` of the whole disk cache (five files: read, checked, validated). Floor:
  ``json.loads`` of the same bytes (for ``load_cache``: reading the same five files and
  ``json.loads`` of each), best of several runs, interleaved.
* ``cli``: `roost state --json` and `roost state` as fresh processes against a loopback demo
  network, with and without ``PYTHONUNBUFFERED=1``, stdout to a file, each timed from outside
  from its start to its exit. Floor: a fresh plain-Python process that GETs the same five files
  from the same server, ``json.loads`` them and writes them with one compact ``json.dumps``, as
  roost prints them (``cli_floor.py``). Goal: ``state --json`` ≤ 1.5× the floor, buffered or
  not. Medians of rounds, the cases taking turns.
* ``memory``: peak traced memory (tracemalloc) and peak RSS (``VmHWM``) of `roost state`
  vs a fresh process that only ``json.load``s the same agents.json, and of `roost state --json`
  vs its floor above (``cli_floor.py``). Goal: ≤ 1.5×.
"""

from __future__ import annotations

import copy
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from figures import figure  # noqa: E402

from tui.network.keyed import parse_keyed as _parse_keyed  # noqa: E402
from tui.network.state_files import AGENTS  # noqa: E402
from tui.network.store import Store  # noqa: E402
from tui.sandbox.generator import generate_state, serialize  # noqa: E402
from tui.ui import speed  # noqa: E402
from tui.ui.speed import gc_policy  # noqa: E402

__all__ = ["best_of", "best_quick", "measure_cli", "measure_memory", "measure_store_paths"]

CHILD = Path(__file__).resolve().parent / "path_child.py"
FLOOR = Path(__file__).resolve().parent / "cli_floor.py"
BASE = "http://bench.invalid"
GOAL_CLI = 1.5
GOAL_MEMORY = 1.5


def best_of(fn: Callable[[], object], runs: int) -> float:
    """The shortest of ``runs`` timed calls, each after a full collection."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def best_quick(fn: Callable[[], object], runs: int) -> float:
    """The shortest of ``runs`` timed calls back to back, after one full collection (for
    sub-millisecond calls, where a collection per run would cost more than the runs)."""
    gc.collect()
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def _interleaved(cases: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Best of ``runs`` for each case, taking turns so that machine noise hits them alike."""
    best = dict.fromkeys(cases, float("inf"))
    for _ in range(runs):
        for name, fn in cases.items():
            best[name] = min(best[name], best_of(fn, 1))
    return best


def _changed_copy(doc: dict[str, Any], every: int = 100) -> bytes:
    """The document with one agent in ``every`` given a new heartbeat (a typical refresh)."""
    changed = copy.deepcopy(doc)
    for index, agent in enumerate(changed["agents"].values()):
        if index % every == 0:
            agent["heartbeat_last"] = "2030-01-01T00:00:00Z"
    return serialize(changed)


def _load_floor(paths: list[Path]) -> None:
    for path in paths:
        json.loads(path.read_bytes())


def parse_keyed(name: str, data: bytes, previous: Any) -> Any:
    """The store's validation step as the store runs it: in the memory policy connect() gives
    it (tui/ui/speed/gc_policy.py)."""
    with gc_policy.building(len(data)):
        return _parse_keyed(name, data, previous)


def measure_store_paths(sizes: list[int], runs: int) -> dict[str, Any]:
    from bench_app import fill_cache

    rows = []
    for agents in sizes:
        docs = generate_state(seed=7, agents=agents)
        data = serialize(docs[AGENTS])
        _, first_keyed = parse_keyed(AGENTS, data, None)
        _, previous = parse_keyed(AGENTS, _changed_copy(docs[AGENTS]), first_keyed)
        with tempfile.TemporaryDirectory() as tmp:
            cache = fill_cache(Path(tmp), agents)
            paths = sorted(Path(tmp).rglob("*.json"))
            paths = [path for path in paths if not path.name.endswith(".meta.json")]
            # the same total time per size: a 1 MB document gets more (20 ms) runs than a 49 MB
            # one, so its best is as settled as theirs (machine noise is a few ms)
            size_runs = runs * min(8, max(1, round(8_000_000 / len(data))))
            best = _interleaved(
                {
                    "json_loads_s": lambda data=data: json.loads(data),
                    "first_refresh_s": lambda data=data: parse_keyed(AGENTS, data, None),
                    "steady_refresh_s": lambda data=data, p=previous: parse_keyed(AGENTS, data, p),
                    "load_cache_floor_s": lambda paths=paths: _load_floor(paths),
                    "load_cache_s": lambda cache=cache: Store(
                        BASE, cache=cache, building=speed.building()
                    ).load_cache(),
                },
                size_runs,
            )
        loads, floor = best["json_loads_s"], best["load_cache_floor_s"]
        rows.append(
            {
                "agents": agents,
                "bytes": len(data),
                **{name: round(value, 4) for name, value in best.items()},
                "first_refresh_ratio": round(best["first_refresh_s"] / loads, 2),
                "steady_refresh_ratio": round(best["steady_refresh_s"] / loads, 2),
                "load_cache_ratio": round(best["load_cache_s"] / floor, 2),
                "cache_files": len(paths),
                "runs": size_runs,
            }
        )
    figures = []
    for row in rows:
        agents = f"{row['agents']:,} agents"
        figures += [
            figure(f"first refresh over json.loads, {agents}", row["first_refresh_ratio"], "×"),
            figure(f"steady refresh over json.loads, {agents}", row["steady_refresh_ratio"], "×"),
            figure(f"load_cache over read + json.loads, {agents}", row["load_cache_ratio"], "×"),
        ]
    return {
        "figures": figures,
        "runs": runs,
        "results": rows,
        "first_refresh_ratio_worst": max(row["first_refresh_ratio"] for row in rows),
        "load_cache_ratio_worst": max(row["load_cache_ratio"] for row in rows),
    }


def _timed(argv: list[str], out: Path, *, unbuffered: bool) -> float:
    """Wall time of one whole process, start to exit, its stdout to ``out`` (it must exit 0)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    with out.open("wb") as stdout:
        started = time.perf_counter()
        done = subprocess.run(
            argv, stdout=stdout, stderr=subprocess.PIPE, env=env, check=False, timeout=600
        )
        wall = time.perf_counter() - started
    if done.returncode != 0 or out.stat().st_size == 0:
        raise RuntimeError(f"{argv[1:3]} exited {done.returncode}: {done.stderr[-2000:]!r}")
    return wall


def _agents_file(tmp: Path, agents: int) -> Path:
    path = tmp / "agents-floor.json"
    path.write_bytes(serialize(generate_state(seed=7, agents=agents)[AGENTS]))
    return path


ROOST = "import sys; from tui.cli import main; sys.exit(main())"  # the `roost` script's body


def measure_cli(agents: int, rounds: int) -> dict[str, Any]:
    from tui.sandbox.server import running_sandbox

    with tempfile.TemporaryDirectory() as name, running_sandbox(agents=agents) as (info, _):
        tmp = Path(name)
        out = tmp / "out"
        floor = [sys.executable, str(FLOOR), info.read_url]
        roost = [sys.executable, "-c", ROOST, "state", "--read-url", info.read_url]
        roost += ["--cache-dir", str(tmp / "cache"), "--no-cache"]
        cases: dict[str, tuple[list[str], bool]] = {
            "floor": (floor, False),
            "floor_unbuffered": (floor, True),
            "state_json": ([*roost, "--json"], False),
            "state_json_unbuffered": ([*roost, "--json"], True),
            "state": (roost, False),
            "state_unbuffered": (roost, True),
        }
        walls: dict[str, list[float]] = {case: [] for case in cases}
        sizes: dict[str, int] = {}
        for _ in range(rounds):
            for case, (argv, unbuffered) in cases.items():
                walls[case].append(_timed(argv, out, unbuffered=unbuffered))
                sizes[case] = out.stat().st_size
    median = {case: round(statistics.median(values), 3) for case, values in walls.items()}
    ratio = round(median["state_json"] / median["floor"], 2)
    unbuffered = round(median["state_json_unbuffered"] / median["floor_unbuffered"], 2)
    return {
        "figures": [
            figure(
                f"`roost state --json` over its floor, {agents:,} agents",
                ratio,
                "×",
                at_most=GOAL_CLI,
            ),
            figure(
                "`roost state --json` over its floor, both PYTHONUNBUFFERED=1",
                unbuffered,
                "×",
                at_most=GOAL_CLI,
            ),
            figure("`roost state --json`", median["state_json"], "s"),
            figure(
                "its floor: GET, json.loads, json.dumps of the five files", median["floor"], "s"
            ),
            figure("`roost state` (the summary)", median["state"], "s"),
        ],
        "agents": agents,
        "rounds": rounds,
        "median_s": median,
        "output_bytes": sizes,
        "state_json_ratio": ratio,
        "state_json_unbuffered_ratio": unbuffered,
        "state_ratio": round(median["state"] / median["floor"], 2),
        "runs_s": {case: [round(v, 3) for v in values] for case, values in walls.items()},
    }


#: A fresh process running ``cli_floor.py`` (GET, json.loads and one json.dumps of the five
#: files), reporting its peaks as path_child.py does.
_FLOOR_CHILD = (
    "import json, sys, tracemalloc\n"
    "sys.path.insert(0, {folder!r})\n"
    "trace = '--trace' in sys.argv\n"
    "tracemalloc.start() if trace else None\n"
    "import cli_floor\n"
    "from path_child import peak_rss\n"
    "cli_floor.main(sys.argv[1])\n"
    "peak = tracemalloc.get_traced_memory()[1] if trace else None\n"
    "print(json.dumps({{'seconds': 0, 'peak_traced_bytes': peak,"
    " 'max_rss_bytes': peak_rss()}}), file=sys.stderr)\n"
)


def measure_memory(agents: int) -> dict[str, Any]:
    """Peaks of `roost state` beside a process that only json.loads agents.json, and of `roost
    state --json` beside its floor (cli_floor.py: the same five files fetched, json.loads and
    dumped compact and ASCII-escaped, as roost prints them), each in a fresh process, stdout to
    a file; traced peaks from separate runs (tracemalloc slows a run and adds its own)."""
    from tui.sandbox.server import running_sandbox

    with tempfile.TemporaryDirectory() as name, running_sandbox(agents=agents) as (info, _):
        tmp = Path(name)
        floor_file = _agents_file(tmp, agents)
        load_only = tmp / "load_only.py"
        load_only.write_text(
            f"import json, sys, tracemalloc\nsys.path.insert(0, {str(CHILD.parent)!r})\n"
            "from path_child import peak_rss\n"
            "trace = '--trace' in sys.argv\n"
            "tracemalloc.start() if trace else None\n"
            "document = json.load(open(sys.argv[1], encoding='utf-8'))\n"
            "peak = tracemalloc.get_traced_memory()[1] if trace else None\n"
            "print(json.dumps({'seconds': 0, 'peak_traced_bytes': peak,"
            " 'max_rss_bytes': peak_rss()}),"
            " file=sys.stderr)\n"
        )
        floor_json = tmp / "floor_json.py"
        floor_json.write_text(_FLOOR_CHILD.format(folder=str(CHILD.parent)))
        out = tmp / "out"
        state = ["state", info.read_url, str(tmp / "cache"), "--no-cache"]

        def run(args: list[str], script: Path = CHILD) -> dict[str, Any]:
            done = subprocess.run(
                [sys.executable, str(script), *args],
                stdout=out.open("wb"),
                stderr=subprocess.PIPE,
                check=False,
                timeout=600,
            )
            return json.loads(done.stderr.decode().strip().splitlines()[-1])

        def both(args: list[str], script: Path = CHILD) -> tuple[int, int]:
            """(peak RSS, peak traced bytes) of two runs: one plain, one traced."""
            rss = run(args, script)["max_rss_bytes"]
            return rss, run([*args, "--trace"], script)["peak_traced_bytes"]

        floor_rss, floor_traced = both([str(floor_file)], load_only)
        state_rss, state_traced = both(state)
        dump_rss, dump_traced = both([info.read_url], floor_json)
        json_rss, json_traced = both([*state, "--json"])
        json_bytes = out.stat().st_size
    mib = 1 << 20
    traced, rss = round(state_traced / floor_traced, 2), round(state_rss / floor_rss, 2)
    json_traced_ratio = round(json_traced / dump_traced, 2)
    json_rss_ratio = round(json_rss / dump_rss, 2)
    return {
        "figures": [
            figure(
                f"`roost state` peak traced memory over json.load's, {agents:,} agents",
                traced,
                "×",
                at_most=GOAL_MEMORY,
            ),
            figure("`roost state` peak RSS over json.load's", rss, "×", at_most=GOAL_MEMORY),
            figure("`roost state` peak RSS", round(state_rss / mib, 1), "MiB"),
            figure(
                "`roost state --json` peak RSS over its floor's (GET, json.loads, json.dumps "
                "of the five files)",
                json_rss_ratio,
                "×",
                at_most=GOAL_MEMORY,
            ),
            figure(
                "`roost state --json` peak traced memory over its floor's",
                json_traced_ratio,
                "×",
                at_most=GOAL_MEMORY,
            ),
            figure("`roost state --json` peak RSS", round(json_rss / mib, 1), "MiB"),
            figure("its floor's peak RSS", round(dump_rss / mib, 1), "MiB"),
        ],
        "agents": agents,
        "json_load_peak_traced_mib": round(floor_traced / mib, 1),
        "state_peak_traced_mib": round(state_traced / mib, 1),
        "state_traced_ratio": traced,
        "json_load_max_rss_mib": round(floor_rss / mib, 1),
        "state_max_rss_mib": round(state_rss / mib, 1),
        "state_rss_ratio": rss,
        "floor_json_max_rss_mib": round(dump_rss / mib, 1),
        "floor_json_peak_traced_mib": round(dump_traced / mib, 1),
        "state_json_max_rss_mib": round(json_rss / mib, 1),
        "state_json_peak_traced_mib": round(json_traced / mib, 1),
        "state_json_rss_ratio": json_rss_ratio,
        "state_json_traced_ratio": json_traced_ratio,
        "state_json_output_bytes": json_bytes,
    }
