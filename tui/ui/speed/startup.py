"""What `roost` does before it imports the dashboard, to shorten its cold start.

* :func:`begin` pauses the collector (piece ``gc``) and connects the service with its
  disk cache read in a background thread (file reads and sha256 release the GIL, so they
  overlap the dashboard's imports on another core).
* The cyclic garbage collector stays paused until the first data is on screen. Starting `roost`
  allocates a few hundred thousand objects that live as long as the process (modules, classes,
  widgets, styles) and almost no cyclic garbage; with the collector on, its passes rescan them
  over and over (measured by ``tests/perf/bench.py --only cold_start``). The app calls
  :func:`resume_gc` after its first paint. The pause is one hold on the shared switch
  (:mod:`tui.ui.speed.gc_policy`): resuming gives back only this hold, so a collector someone else
  turned off stays off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.ui import speed
from tui.ui.speed import gc_policy

if TYPE_CHECKING:
    from tui.config import Settings
    from tui.network.store import Store
    from tui.service import Service
    from tui.session import Session

__all__ = ["begin", "pause_gc", "preloaded", "resume_gc"]

_pause: gc_policy.Hold | None = None  # the start-up's hold, until the app's first paint
_preloaded: Store | None = None  # a session forked by the SSH zygote: the zygote's store


def preloaded(store: Store) -> None:
    """The next :func:`begin` starts from ``store``'s snapshot (read by the SSH zygote before
    it forked this session) instead of reading the disk cache again."""
    global _preloaded
    _preloaded = store


def pause_gc() -> None:
    """Hold the collector off for the start-up (once: a second call adds no hold)."""
    global _pause
    if _pause is None or not _pause.held:
        _pause = gc_policy.pause()


def resume_gc() -> None:
    """Give back the start-up's hold, if there is one (a second call does nothing)."""
    global _pause
    hold, _pause = _pause, None
    if hold is not None:
        hold.release()


def begin(settings: Settings, session: Session | None = None) -> Service:
    """Pause the collector and connect ``settings``' service, its disk
    cache already being read; hand the service to the app (``run_tui(service)``)."""
    # deferred: off the start path
    from tui.network.feed import FollowerStore
    from tui.service import connect
    from tui.ssh.mode import feed_fd

    global _preloaded
    zygotes, _preloaded = _preloaded, None
    if speed.on("gc"):
        pause_gc()
    # a session of `roost serve-ssh` follows the server's refresher (tui/ssh/refresher.py)
    service = connect(
        settings,
        session,
        prefetch=zygotes is None,
        follow=feed_fd(),
        building=speed.building(),
    )
    store = service.store
    adopted = zygotes is not None and isinstance(store, FollowerStore) and store.adopt(zygotes)
    if zygotes is not None and not adopted and store.cache is not None:
        store.cache.prefetch()  # not the zygote's service after all: read as usual
    return service
