"""What `roost` does before it imports the dashboard, to shorten its cold start.

* :func:`begin` starts reading the disk cache in a background thread (file reads and sha256
  release the GIL, so they overlap the imports on another core) and pauses the collector.
* The cyclic garbage collector stays paused until the first data is on screen. Starting `roost`
  allocates a few hundred thousand objects that live as long as the process (modules, classes,
  widgets, styles) and almost no cyclic garbage; with the collector on, its passes rescan them
  over and over: ~50–90 ms of a cold start (``tests/perf/bench.py --only cold_start``). The app
  calls :func:`resume_gc` after its first paint. Only a pause made here is resumed: a collector
  someone else turned off stays off.
"""

from __future__ import annotations

import gc

from tui.config import Settings
from tui.network.disk_cache import DiskCache

__all__ = ["begin", "pause_gc", "resume_gc"]

_paused = False


def pause_gc() -> None:
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_gc() -> None:
    global _paused
    if _paused:
        _paused = False
        gc.enable()


def begin(settings: Settings) -> DiskCache:
    """Pause the collector and start prefetching ``settings``' disk cache; pass the cache on
    to the app (``RoostApp(settings, cache=...)``) so its store loads the prefetched files."""
    pause_gc()
    cache = DiskCache.for_service(settings.state_url, settings.cache_dir)
    cache.prefetch()
    return cache
