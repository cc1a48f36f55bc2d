"""The eggs bench section at smoke size keeps running (its figures come from full runs)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

PERF = Path(__file__).resolve().parents[1] / "perf"

pytestmark = pytest.mark.slow  # the bench at smoke size: tens of seconds


def test_eggs_bench_section_runs():
    sys.path.insert(0, str(PERF))
    try:
        from bench_eggs import measure_eggs
    finally:
        sys.path.remove(str(PERF))
    result = measure_eggs([120_000], runs=1)
    (row,) = result["results"]
    assert row["entries"] == 6 and 100_000 < row["egg_bytes"] < 200_000
    assert row["ratio"] > 0 and row["file_ratio"] > 0
    # the passes alone, beside: what no verifier of these rules goes below
    assert row["floor_s"] > 0 and row["floor_ratio"] > 0
    assert 0 < row["largest_entry_bytes"] < row["egg_bytes"]
    assert row["peak_alloc_file_bytes"] > 0
