"""The inspector bench at smoke size: it must keep running (figures come from full runs)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

PERF = Path(__file__).resolve().parents[1] / "perf"

pytestmark = pytest.mark.slow  # the bench at smoke size: tens of seconds


async def test_inspector_bench_smoke_reports_every_figure():
    spec = importlib.util.spec_from_file_location("bench_inspector", PERF / "bench_inspector.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = await module.measure_inspector(256 * 1024, 60, 1)
    assert result["entries"] == 60
    for figure in (
        "push_to_paint_with_report",
        "push_to_paint_from_file",
        "check_then_paint_from_file",
        "files_pane",
    ):
        assert result[figure] > 0
