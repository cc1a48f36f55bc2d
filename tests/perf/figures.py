"""What a bench section reports for docs/performance.md, and the writer of that page.

Every section's result carries ``figures``: a list of :func:`figure` records (``figure``,
``value``, ``unit``, ``goal``, ``met``). :func:`render` turns a whole run into the page, section
by section and figure by figure, knowing nothing of any one section: a section that measures
something new reports one more figure, and the page follows.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "performance.md"


def figure(
    name: str,
    value: float | None,
    unit: str,
    *,
    at_most: float | None = None,
    below: float | None = None,
    at_least: float | None = None,
) -> dict[str, Any]:
    """One figure, its goal (at most one bound: at most, below or at least) and whether this
    run met it (None without a goal or a value)."""
    bounds = {"at_most": at_most, "below": below, "at_least": at_least}
    goal = {kind: bound for kind, bound in bounds.items() if bound is not None} or None
    assert goal is None or len(goal) == 1, goal
    met = goal_met(value, goal) if goal and value is not None else None
    return {"figure": name, "value": value, "unit": unit, "goal": goal, "met": met}


def goal_met(value: float, goal: dict[str, float]) -> bool:
    ((kind, bound),) = goal.items()
    if kind == "at_most":
        return value <= bound
    if kind == "below":
        return value < bound
    return value >= bound


_SIGN = {"at_most": "≤", "below": "<", "at_least": "≥"}


def _amount(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    text = (
        f"{value:,}"
        if isinstance(value, int)
        else f"{value:,.3g}"
        if value < 100
        else f"{value:,.0f}"
    )
    return f"{text}×" if unit == "×" else f"{text} {unit}" if unit else text


def _goal(record: dict[str, Any]) -> str:
    goal = record["goal"]
    if not goal:
        return ""
    ((kind, bound),) = goal.items()
    return f"{_SIGN[kind]} {_amount(bound, record['unit'])}"


def _met(record: dict[str, Any]) -> str:
    return {True: "yes", False: "**no**", None: ""}[record["met"]]


def _commit() -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "log", "-1", "--format=%h %cs"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return "unknown"
    return done.stdout.strip() or "unknown"


HOW_TO_RUN = """\
## Running the bench

```sh
.venv/bin/python tests/perf/bench.py                      # every section at full size, prints JSON
.venv/bin/python tests/perf/bench.py --only keys,cli      # some sections
.venv/bin/python tests/perf/bench.py --smoke              # tiny sizes: checks that it runs
.venv/bin/python tests/perf/bench.py --plain              # what the speed machinery buys, alone
.venv/bin/python tests/perf/bench.py --write-docs         # a full run, then this page from it
.venv/bin/python tests/perf/bench.py --from-json docs/performance.json --write-docs   # again, from its run
```

A full run takes ten minutes or more on two cores; `docs/performance.json` is the run this page
was written from. Each comparison is measured side by side in one run, on the same generated data,
the cases taking turns; no test asserts a timing (the smoke run is a `slow` test: `pytest -m
slow`). What each section measures, and how, is said in the docstrings of `tests/perf/bench.py`
and of the module it names.
"""


def render(result: dict[str, Any], sections: tuple[str, ...]) -> str:
    """The whole page for one full run (``sections`` in the bench's order)."""
    lines = [
        "# Performance",
        "",
        "Written by `tests/perf/bench.py --write-docs` from one full run of the bench; do not edit",
        "by hand (run the bench again).",
        "",
        "## Goals",
        "",
    ]
    goals = [
        (section, record)
        for section in sections
        for record in result.get(section, {}).get("figures", [])
        if record["goal"]
    ]
    for section, record in goals:
        lines.append(f"- `{section}` · {record['figure']}: {_goal(record)}")
    lines += ["", HOW_TO_RUN, "## The last full run", ""]
    machine = result.get("machine", {})
    lines += [
        f"- when: {result.get('finished_utc', 'unknown')}",
        f"- code: {result.get('commit', 'unknown')}",
        f"- Python {result.get('python', '?')}, {machine.get('cpus', '?')} CPUs,"
        f" {machine.get('system', '?')}",
        "",
    ]
    for section in sections:
        for matrix in result.get(section, {}).get("matrices", []):
            lines += render_matrix(matrix)
    for section in sections:
        records = result.get(section, {}).get("figures")
        if records is None:
            continue
        lines += [f"### {section}", "", "| figure | value | goal | met |", "|---|---:|---:|:---:|"]
        for record in records:
            lines.append(
                f"| {record['figure']} | {_amount(record['value'], record['unit'])} |"
                f" {_goal(record)} | {_met(record)} |"
            )
        lines.append("")
    return "\n".join(lines)


def matrix(title: str, text: str, columns: list[str], rows: list[list[str]]) -> dict[str, Any]:
    """A table a section adds to the page under its own heading (rows of cells as shown)."""
    return {"title": title, "text": text, "columns": columns, "rows": rows}


def render_matrix(record: dict[str, Any]) -> list[str]:
    """The lines of one :func:`matrix`: its heading, its text, its table."""
    columns = record["columns"]
    lines = [f"## {record['title']}", ""]
    if record["text"]:
        lines += [record["text"], ""]
    lines += ["| " + " | ".join(columns) + " |", "|---|" + "---:|" * (len(columns) - 1)]
    lines += ["| " + " | ".join(row) + " |" for row in record["rows"]]
    return [*lines, ""]


def stamp(result: dict[str, Any]) -> None:
    """Add what the page says about the run: the code and the machine."""
    result.setdefault("commit", _commit())
    result.setdefault("machine", {"cpus": os.cpu_count(), "system": platform.platform()})


def write(result: dict[str, Any], sections: tuple[str, ...], path: Path = DOCS) -> Path:
    """The page, and beside it the run it was written from (``--from-json`` reads it back)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(result, sections) + "\n", encoding="utf-8")
    path.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return path
