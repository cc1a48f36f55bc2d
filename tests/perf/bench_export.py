"""Bench: a table out as CSV, beside ``csv.writer`` over the same rows.

    python tests/perf/bench.py --only export [--smoke]

The rows are the Agents tab's own (``tui.tables.agents``) for a demo network of 50 000 agents,
their cells computed first (the table has them when ``e`` is pressed). Then, taking turns, best
of several runs each: ``csv.writer(...).writerows(cells)`` into memory (the floor) and
``tui.export.write_csv`` over the same cells (formulas neutralised, controls cleaned, number
columns without thousands separators). Goal: ≤ 1.5× the floor. JSON Lines is reported beside
it, without a goal.
"""

from __future__ import annotations

import csv
import io
import time
from datetime import UTC, datetime
from typing import Any

import msgspec
from figures import figure

from tui.export import write_csv, write_jsonl
from tui.network.models import parse_state
from tui.network.state_files import AGENTS
from tui.sandbox.generator import generate_state
from tui.tables.agents import TABLE


def _best(run: Any, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def measure_export(agents: int, runs: int) -> dict[str, Any]:
    document = generate_state(agents=agents)[AGENTS]
    model = parse_state(AGENTS, msgspec.json.encode(document))
    now = datetime.now(UTC).timestamp()
    rows = [TABLE.row(key, agent, now) for key, agent in model.agents.items()]
    cells = [row.cells for row in rows]
    keys = [c.key for c in TABLE.columns]
    numeric = [c.number for c in TABLE.columns]

    def floor() -> None:
        out = io.StringIO(newline="")
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(keys)
        writer.writerows(cells)

    def ours() -> None:
        write_csv(io.StringIO(newline=""), keys, cells)

    def jsonl() -> None:
        write_jsonl(io.StringIO(), keys, numeric, cells)

    times = {"floor": float("inf"), "csv": float("inf"), "jsonl": float("inf")}
    for _ in range(runs):  # taking turns: a slower moment of the machine falls on each alike
        for name, run in (("floor", floor), ("csv", ours), ("jsonl", jsonl)):
            times[name] = min(times[name], _best(run, 1))
    ratio = times["csv"] / times["floor"]
    return {
        "rows": len(cells),
        "seconds": times,
        "figures": [
            figure(f"CSV of {len(cells):,} rows / csv.writer", round(ratio, 2), "×", at_most=1.5),
            figure("CSV", round(times["csv"] * 1000, 1), "ms"),
            figure("JSON Lines", round(times["jsonl"] * 1000, 1), "ms"),
        ],
    }
