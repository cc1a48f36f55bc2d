"""What the speed machinery buys (tui/ui/speed): the figures with it on, with it all off
(``ROOST_PLAIN=1``: plain Textual) and with each piece off alone (``ROOST_PLAIN=<piece>``).

    python tests/perf/bench_machinery.py [AGENTS] [ROUNDS] [PIECE,PIECE]

Per variant, the same five figures, each measured as its own section measures it but fewer
times (a few minutes in all):

* **cold start**: spawn to the painted Agents table, a fresh process (``cold_start_child.py``
  as in ``bench_app``), median of the rounds;
* **next frame** and **settled**: the scripted key session of ``bench_keys`` (filter burst,
  sort picker, every tab's first and later visit, palette, help), in the process, p95 over
  every press of the session (the figures of ``keys`` are per key: too few presses here);
* **quit**: ``q`` written to a pseudo-terminal after every tab until the process has exited
  (``bench_quit``), median of the rounds;
* **state --json**: `roost state --json` as a fresh process against a demo sandbox
  (``bench_paths``), median of the rounds.

Variants are interleaved round by round, so a slow moment of a shared machine falls on all of
them. What a piece buys on a figure is how much worse the figure is with that piece off:
(off - on) / on. A piece that buys less than 10% on every figure is not worth its code.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PERF = Path(__file__).resolve().parent
for _path in (ROOT, PERF):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from bench_app import CHILD_BASE, _spawn, fill_cache  # noqa: E402
from bench_keys import _quantile, _session  # noqa: E402
from bench_paths import ROOST, _timed  # noqa: E402
from bench_quit import _quit_once  # noqa: E402
from figures import figure, matrix  # noqa: E402

from tui.tabs import TABS  # noqa: E402
from tui.ui import speed  # noqa: E402

__all__ = ["FIGURES", "VARIANTS", "measure_machinery"]

#: (name on the page, ROOST_PLAIN's value)
VARIANTS: tuple[tuple[str, str], ...] = (
    ("everything on", ""),
    ("ROOST_PLAIN=1 (plain Textual)", "1"),
    *((f"{piece} off", piece) for piece in speed.PIECES),
)
#: (key, name on the page, unit)
FIGURES: tuple[tuple[str, str, str], ...] = (
    ("cold_start_s", "cold start", "s"),
    ("next_frame_p95_ms", "next frame p95", "ms"),
    ("settled_p95_ms", "settled p95", "ms"),
    ("quit_s", "quit", "s"),
    ("state_json_s", "state --json", "s"),
)
WORTH = 0.10  # a piece buying less than this on every figure is not worth its code


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


async def _one_round(
    value: str, dirs: dict[str, Path], agents: int, read_url: str, out: dict[str, list[float]]
) -> None:
    """One measurement of every figure with ``ROOST_PLAIN=value`` (the children inherit it)."""
    before = os.environ.get(speed.ENV)
    os.environ[speed.ENV] = value
    try:
        out["cold_start_s"].append(await asyncio.to_thread(_spawn, "roost", dirs["cold"], agents))
        session = await _session(agents, dirs["keys"])
        presses = session["presses"]
        out["next_frame_p95_ms"].append(_quantile([p[1] for p in presses], 0.95) * 1000)
        out["settled_p95_ms"].append(_quantile([p[2] for p in presses], 0.95) * 1000)
        roost = [sys.executable, "-m", "tui.cli", "--read-url", "http://bench.invalid"]
        keys = "".join(tab.key for tab in TABS[1:]) + TABS[0].key
        out["quit_s"].append(
            await asyncio.to_thread(
                _quit_once, [*roost, "--cache-dir", str(dirs["quit"])], ROOT, keys, "q"
            )
        )
        state = [sys.executable, "-c", ROOST, "state", "--read-url", read_url, "--json"]
        state += ["--cache-dir", str(dirs["cold"] / "state"), "--no-cache"]
        out["state_json_s"].append(
            await asyncio.to_thread(_timed, state, dirs["cold"] / "out", unbuffered=False)
        )
    finally:
        if before is None:
            os.environ.pop(speed.ENV, None)
        else:
            os.environ[speed.ENV] = before


def buys(on: float, off: float) -> float | None:
    """What a piece buys on a figure: how much worse it is without it, (off - on) / on."""
    if not on or on != on or off != off:  # zero or NaN
        return None
    return round((off - on) / on, 3)


async def measure_machinery(
    agents: int, rounds: int, pieces: list[str] | None = None
) -> dict[str, Any]:
    """Every figure with each variant (``pieces``: only those pieces' variants, beside
    everything on and ROOST_PLAIN=1)."""
    from tui.sandbox.server import running_sandbox

    variants = [
        (name, value) for name, value in VARIANTS if pieces is None or value in {"", "1", *pieces}
    ]
    runs: dict[str, dict[str, list[float]]] = {
        name: {key: [] for key, _, _ in FIGURES} for name, _ in variants
    }
    with tempfile.TemporaryDirectory() as tmp, running_sandbox(agents=agents) as (info, _):
        dirs = {kind: Path(tmp) / kind for kind in ("cold", "keys", "quit")}
        fill_cache(dirs["cold"], agents, CHILD_BASE)
        fill_cache(dirs["keys"], agents)
        fill_cache(dirs["quit"], agents)
        await asyncio.to_thread(_spawn, "bare", dirs["cold"], agents)  # warm the file cache
        for _ in range(rounds):
            for name, value in variants:
                await _one_round(value, dirs, agents, info.read_url, runs[name])
    table = {
        name: {key: round(_median(values), 4) for key, values in figures.items()}
        for name, figures in runs.items()
    }
    on = table[VARIANTS[0][0]]
    bought = {
        name: {key: buys(on[key], row[key]) for key, _, _ in FIGURES}
        for name, row in table.items()
        if name != VARIANTS[0][0]
    }
    worth = {
        piece: any((b or 0) >= WORTH for b in bought[f"{piece} off"].values())
        for piece in speed.PIECES
        if f"{piece} off" in bought
    }
    plain = table[VARIANTS[1][0]]
    return {
        "matrices": [page_table(agents, rounds, table, bought, worth)],
        "figures": [
            figure(f"{label}, everything on over ROOST_PLAIN=1", _ratio(on[key], plain[key]), "×")
            for key, label, _ in FIGURES
        ],
        "agents": agents,
        "rounds": rounds,
        "method": "every figure with each variant of ROOST_PLAIN, variants interleaved per round",
        "variants": [{"name": name, "ROOST_PLAIN": value} for name, value in variants],
        "table": table,
        "buys": bought,
        "worth_its_code": worth,
        "runs": runs,
    }


def page_table(
    agents: int,
    rounds: int,
    table: dict[str, dict[str, float]],
    bought: dict[str, dict[str, float | None]],
    worth: dict[str, bool],
) -> dict[str, Any]:
    """What the machinery buys, as the page shows it: a row per variant, a column per
    figure, each cell the median and, off the first row, how much worse than everything on."""
    columns = ["ROOST_PLAIN", *(label for _, label, _ in FIGURES), "worth its code"]
    rows = []
    for name, value in VARIANTS:
        if name not in table:
            continue  # a run of some pieces only (--plain-variants)
        cells = [f"{name}" + (f" (`{value}`)" if value and value != "1" else "")]
        for key, _, unit in FIGURES:
            amount = table[name][key]
            cell = f"{amount:,.0f} {unit}" if unit == "ms" else f"{amount:,.3f} {unit}"
            change = bought.get(name, {}).get(key)
            cells.append(cell + (f" ({change:+.0%})" if change is not None else ""))
        piece = value if value in worth else None
        cells.append("—" if piece is None else ("yes" if worth[piece] else "no: < 10% on all"))
        rows.append(cells)
    text = (
        f"Each figure with every piece of tui/ui/speed on, with all of it off (`ROOST_PLAIN=1`,"
        f" plain Textual) and with one piece off (`ROOST_PLAIN=<piece>`), {agents:,} agents,"
        f" median of {rounds} interleaved round(s) (tests/perf/bench_machinery.py). In brackets:"
        f" how much worse than everything on. A piece buying less than {WORTH:.0%} on every"
        " figure is not worth its code."
    )
    return matrix("What the machinery buys", text, columns, rows)


def _ratio(on: float, off: float) -> float | None:
    return round(on / off, 2) if off and off == off and on == on else None


if __name__ == "__main__":
    import json

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    pieces = sys.argv[3].split(",") if len(sys.argv) > 3 else None
    print(json.dumps(asyncio.run(measure_machinery(count, rounds, pieces)), indent=2))
