"""Benchmark: VirtualTable against the stock DataTable on the same synthetic agent rows.

Why: the Agents tab must stay fluid at 50 000 rows; this puts a number on "fluid" and on what
the stock widget would cost, measured side by side in one process.

Method (identical for both tables; only wall-clock time, ``time.perf_counter``):

* **first paint** - the clock starts before the ``App`` is built. The app's ``on_mount`` turns the
  raw records into the table's input (``Row`` objects for ours, string tuples for
  ``DataTable.add_rows``) and fills the table. Inside ``App.run_test(size=(120, 40))`` we loop
  ``await pilot.pause()`` (the pilot waits for every widget's queue to drain and for the CPU to go
  idle, so DataTable's first-idle ``_update_dimensions``, which measures every cell, runs inside
  the loop) followed by ``app.export_screenshot()``, which forces a full composition of the screen
  through each widget's ``render_line``. The loop ends on the first frame whose text holds the
  first row's id; then one more ``pilot.pause()`` and ``app.workers.wait_for_complete()`` prove
  the app is idle again, and the clock stops. App start-up and the screenshot cost are in both
  figures.
* **filter keystroke** - both tables start filtered by ``"a"`` (every row matches), then the
  user types ``"c"``. For ours that is ``set_filter("ac")``; for DataTable it is what a plain
  app does: ``clear()`` then ``add_rows(matching rows)`` (matching on the same precomputed
  haystack). The clock runs from the call until a rendered frame (same pause + screenshot loop)
  shows the first matching row and no longer shows the first row of the unfiltered table, and
  the app is idle again.

Run ``python tests/perf/bench_table.py --rows 50000``; it prints the result as JSON. It is kept
out of the default test run (``--ignore=tests/perf``); ``--rows 2000`` is a quick smoke run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from figures import figure  # noqa: E402
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import DataTable

from tui.ui.table.virtual_table import Column, Row, VirtualTable

SIZE = (120, 40)
PREFIX = "a"  # already typed: matches every row ("agent-" is in every haystack)
QUERY = "ac"  # one more keystroke: roughly the active agents
FRAMEWORKS = ("langchain", "autogen", "crewai", "rapp", "semantic-kernel", "llamaindex", "custom")
STATUSES = ("active", "idle", "dormant", "banned")
FIRST_NAMES = ("nova", "echo", "quill", "moss", "vesper", "juno", "orrin", "tamsin", "wren", "zed")
LAST_NAMES = ("lark", "finch", "heron", "kite", "plover", "swift", "tern", "rook", "owl", "jay")

COLUMNS = (
    Column("id", "ID", 11),
    Column("name", "Name", 14, flex=True),
    Column("framework", "Framework", 15),
    Column("status", "Status", 7),
    Column("karma", "Karma", 6, align="right"),
    Column("posts", "Posts", 6, align="right"),
    Column("comments", "Comments", 8, align="right"),
    Column("heartbeat", "Heartbeat", 9, align="right"),
)

Record = tuple[str, str, str, str, int, int, int, int]


def make_records(n_rows: int, seed: int = 7) -> list[Record]:
    """Agent-like records: id, name, framework, status, karma, posts, comments, heartbeat age (s)."""
    rng = random.Random(seed)
    records = []
    for i in range(n_rows):
        status = "idle" if i == 0 else rng.choices(STATUSES, weights=(5, 3, 3, 1))[0]
        records.append(
            (
                f"agent-{i:05d}",
                f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)} {rng.randint(1, 999)}",
                rng.choice(FRAMEWORKS),
                status,
                rng.randint(-50, 5000),
                rng.randint(0, 900),
                rng.randint(0, 5000),
                rng.randint(0, 30 * 86400),
            )
        )
    return records


def age(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def haystack(record: Record) -> str:
    return " ".join(record[:4]).lower()


def display(record: Record) -> tuple[str, ...]:
    ident, name, framework, status, karma, posts, comments, heartbeat = record
    return (ident, name, framework, status, str(karma), str(posts), str(comments), age(heartbeat))


def to_row(record: Record) -> Row:
    return Row(record[0], display(record), record, haystack(record))


class VirtualApp(App[None]):
    def __init__(self, records: Sequence[Record]) -> None:
        super().__init__()
        self.records = records

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS)

    def on_mount(self) -> None:
        table = self.query_one(VirtualTable)
        table.set_rows([to_row(record) for record in self.records])
        table.focus()

    def apply_filter(self, query: str) -> None:
        self.query_one(VirtualTable).set_filter(query)


class StockApp(App[None]):
    def __init__(self, records: Sequence[Record]) -> None:
        super().__init__()
        self.records = records
        self.haystacks = [haystack(record) for record in records]

    def compose(self) -> ComposeResult:
        yield DataTable(cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*(column.label for column in COLUMNS))
        table.add_rows(display(record) for record in self.records)
        table.focus()

    def apply_filter(self, query: str) -> None:
        """What a plain app does on a keystroke: clear and add back the matching rows."""
        table = self.query_one(DataTable)
        table.clear()
        table.add_rows(
            display(record)
            for record, text in zip(self.records, self.haystacks, strict=True)
            if query in text
        )


async def wait_for_frame(pilot: Pilot[None], shows: str, hides: str | None = None) -> None:
    """Pause until idle and render full frames until one shows ``shows`` (and not ``hides``)."""
    app = pilot.app
    deadline = time.perf_counter() + 600
    while time.perf_counter() < deadline:
        await pilot.pause()
        frame = app.export_screenshot()
        if shows in frame and (hides is None or hides not in frame):
            await pilot.pause()
            await app.workers.wait_for_complete()
            return
    raise TimeoutError(f"no frame showed {shows!r} within 600 s")


async def measure(make_app: Callable[[], App[None]], records: Sequence[Record]) -> dict[str, Any]:
    first_id = records[0][0]
    matching = [record for record in records if QUERY in haystack(record)]
    started = time.perf_counter()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_frame(pilot, first_id)
        first_paint = time.perf_counter() - started

        app.apply_filter(PREFIX)  # type: ignore[attr-defined]
        await wait_for_frame(pilot, first_id)
        started = time.perf_counter()
        app.apply_filter(QUERY)  # type: ignore[attr-defined]
        await wait_for_frame(pilot, matching[0][0], hides=first_id)
        filtered = time.perf_counter() - started
    return {
        "first_paint_s": round(first_paint, 4),
        "filter_s": round(filtered, 4),
        "filter_rows": len(matching),
    }


async def measure_tables(n_rows: int = 50_000) -> dict[str, Any]:
    """Measure both tables on the same rows; see the module docstring for the method."""
    records = make_records(n_rows)
    virtual = await measure(lambda: VirtualApp(records), records)
    stock = await measure(lambda: StockApp(records), records)
    first_paint = round(stock["first_paint_s"] / virtual["first_paint_s"], 1)
    filtering = round(stock["filter_s"] / virtual["filter_s"], 1)
    return {
        "figures": [
            figure(f"VirtualTable first paint, {n_rows:,} rows", virtual["first_paint_s"], "s"),
            figure("DataTable's first paint over VirtualTable's", first_paint, "×"),
            figure("VirtualTable, one filter keystroke", virtual["filter_s"], "s"),
            figure("DataTable's filter keystroke over VirtualTable's", filtering, "×"),
        ],
        "rows": n_rows,
        "virtual": virtual,
        "datatable": stock,
        "first_paint_speedup": first_paint,
        "filter_speedup": filtering,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000, help="rows in each table")
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(measure_tables(args.rows)), indent=2))


if __name__ == "__main__":
    main()
