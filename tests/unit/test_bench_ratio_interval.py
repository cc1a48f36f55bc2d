"""The bench's verdict on "no slower than Agents": a ratio of two tabs' settled p95 with the
interval the run's own noise gives it (``bench_keys.ratio_interval``). It must pass equal work
and fail work that is slower in every round."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

PERF = Path(__file__).resolve().parents[1] / "perf"
if str(PERF) not in sys.path:
    sys.path.insert(0, str(PERF))

from bench_keys import _quantile, ratio_interval  # noqa: E402

ROUNDS = 10


def _presses(rng: random.Random, scale: float = 1.0) -> list[float]:
    """13 presses a round: ~45 ms settled, now and then a press a frame or two later."""
    return [
        scale * (0.045 + rng.choice((0, 0, 0, 0.017, 0.033)) + rng.uniform(-0.005, 0.005))
        for _ in range(13 * ROUNDS)
    ]


def test_equal_work_is_not_measurably_slower() -> None:
    rng = random.Random(7)
    over, under = _presses(rng), _presses(rng)
    point, low, high = ratio_interval(over, under, ROUNDS)
    assert point == _quantile(over, 0.95) / _quantile(under, 0.95)
    assert low <= point <= high
    assert low <= 1.0 <= high


def test_work_slower_in_every_round_is_measurably_slower() -> None:
    rng = random.Random(7)
    over, under = _presses(rng, scale=1.15), _presses(rng)
    _point, low, _high = ratio_interval(over, under, ROUNDS)
    assert low > 1.0


def test_the_same_presses_give_the_same_interval() -> None:
    rng = random.Random(3)
    over, under = _presses(rng), _presses(rng)
    assert ratio_interval(over, under, ROUNDS) == ratio_interval(over, under, ROUNDS)


def test_presses_that_are_not_whole_rounds_are_refused() -> None:
    with pytest.raises(ValueError, match="equal rounds"):
        ratio_interval([0.05] * 131, [0.05] * 130, ROUNDS)
