"""The Stats tab's history of counters, kept in the disk cache beside the state files: each new
``stats.json`` adds a point (bounded); a damaged history is dropped point by point, never fatal.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable
from types import MappingProxyType

from tui.network.disk_cache import DiskCache
from tui.network.snapshot import StatsPoint

__all__ = ["STATS_HISTORY_FILE", "STATS_HISTORY_LIMIT", "load_history", "store_history"]

STATS_HISTORY_FILE = "stats-history.json"
STATS_HISTORY_LIMIT = 500


def load_history(cache: DiskCache) -> tuple[StatsPoint, ...]:
    """The Stats tab's history from the cache; damage is dropped and reported once (the
    points that do validate are kept and written back)."""
    raw = cache.load_json(STATS_HISTORY_FILE)
    if raw is None:
        return ()
    if not isinstance(raw, list):
        cache.drop(STATS_HISTORY_FILE, "not a list of points; the history starts again")
        return ()
    points = []
    damaged = 0
    for item in raw[-STATS_HISTORY_LIMIT:]:
        if not isinstance(item, dict) or not isinstance(item.get("counters"), dict):
            damaged += 1
            continue
        counters = {
            str(k): v
            for k, v in item["counters"].items()
            if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
        }
        damaged += len(counters) != len(item["counters"]) or not isinstance(item.get("at"), str)
        points.append(StatsPoint(str(item.get("at", "")), MappingProxyType(counters)))
    if damaged:
        cache.drop(
            STATS_HISTORY_FILE,
            f"{damaged} of {min(len(raw), STATS_HISTORY_LIMIT)} points did not validate; "
            "the others are kept",
        )
        with contextlib.suppress(OSError):
            store_history(cache, points)
    return tuple(points)


def store_history(cache: DiskCache, points: Iterable[StatsPoint]) -> None:
    cache.store_json(
        STATS_HISTORY_FILE, [{"at": p.at, "counters": dict(p.counters)} for p in points]
    )
