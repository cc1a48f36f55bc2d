"""The bench's page (docs/performance.md) is written from whatever figures the sections report."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

PERF = Path(__file__).resolve().parents[1] / "perf"


def load(name: str):
    if str(PERF) not in sys.path:
        sys.path.insert(0, str(PERF))
    spec = importlib.util.spec_from_file_location(f"roost_{name}", PERF / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_follows_whatever_figures_a_section_reports():
    figures = load("figures")
    sections = ("refresh", "validation", "eggs")
    result = {
        "python": "3.x",
        "finished_utc": "then",
        "refresh": {"figures": [figures.figure("bytes saved", 12.5, "×", at_least=10)]},
        "eggs": {
            "figures": [
                figures.figure("verify over sha256, 64.0 MB", 2.6, "×", at_most=2.5),
                figures.figure("a new figure", 3, "ms"),
            ]
        },
    }
    page = figures.render(result, sections)
    assert "| bytes saved | 12.5× | ≥ 10× | yes |" in page
    assert "| verify over sha256, 64.0 MB | 2.6× | ≤ 2.5× | **no** |" in page
    assert "| a new figure | 3 ms |  |  |" in page
    assert "### validation" not in page  # a section not in the run is left out
    assert "- `eggs` · verify over sha256, 64.0 MB: ≤ 2.5×" in page


def test_a_figure_meets_its_goal_by_its_bound():
    figures = load("figures")
    assert figures.figure("x", 1.5, "×", at_most=1.5)["met"] is True
    assert figures.figure("x", 0.3, "s", below=0.3)["met"] is False
    assert figures.figure("x", 9.9, "×", at_least=10)["met"] is False
    assert figures.figure("x", None, "s", at_most=1)["met"] is None  # not measured: not met
    assert figures.figure("x", 5, "ms")["goal"] is None


def test_the_page_shows_what_the_machinery_buys():
    """The machinery section's table (tests/perf/bench_machinery.py): a row per ROOST_PLAIN
    variant, a column per figure, how much worse than everything on, and which pieces pay."""
    figures = load("figures")
    bench = load("bench_machinery")
    keys = [key for key, _, _ in bench.FIGURES]
    on = dict.fromkeys(keys, 1.0)
    table = {name: dict(on) for name, _ in bench.VARIANTS}
    table["ROOST_PLAIN=1 (plain Textual)"] = dict.fromkeys(keys, 2.0)
    table["gc off"] = {**on, "quit_s": 1.5}  # +50% on one figure: worth its code
    bought = {
        name: {key: bench.buys(on[key], row[key]) for key in keys}
        for name, row in table.items()
        if name != "everything on"
    }
    worth = {
        piece: any((b or 0) >= bench.WORTH for b in bought[f"{piece} off"].values())
        for piece in bench.speed.PIECES
    }
    result = {"machinery": {"matrices": [bench.page_table(2000, 1, table, bought, worth)]}}
    page = figures.render(result, ("machinery",))
    assert "## What the machinery buys" in page
    assert (
        "| ROOST_PLAIN | cold start | next frame p95 | settled p95 | quit | state --json |" in page
    )
    assert "| everything on | 1.000 s | 1 ms | 1 ms | 1.000 s | 1.000 s | — |" in page
    assert "| ROOST_PLAIN=1 (plain Textual) | 2.000 s (+100%) |" in page
    assert "| gc off (`gc`) | 1.000 s (+0%) | 1 ms (+0%) | 1 ms (+0%) | 1.500 s (+50%) |" in page
    assert page.count("no: < 10% on all") == len(bench.speed.PIECES) - 1
