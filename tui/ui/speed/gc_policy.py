"""The one switch for Python's cyclic garbage collector, and every decision about it.

The collector is process-wide, so when to pause it, what to freeze and when to collect is
decided here (the speed machinery's piece ``gc``, tui/ui/speed) and nowhere else. The layers
that do the work never touch it: the dashboard's store is given :func:`building` through
:func:`tui.service.connect` (it wraps each long-lived build in it), the table layer tells the
app when a big table's rows are warmed and the machinery asks :func:`after_warm_up`, the
start-up pauses it until the first paint (startup.py) and the machinery runs the full
collections at quiet moments (:func:`defer_full`).

Every pause is counted, so that one holder in one thread cannot turn the collector back on
while another still relies on it being off:

* :func:`paused` (a context manager) and :func:`pause` (a handle released later, for a pause
  that spans callbacks) take a hold; the collector is turned off by the first hold and turned
  back on only when the last hold is released, and only if it was on when the first hold came
  (a collector someone else turned off stays off);
* :func:`freeze` moves everything the collector tracks out of its view (``gc.freeze``); what
  is frozen is given back (``gc.unfreeze``) when the last :func:`keep_frozen` handle is
  released, so one user of the frozen objects cannot thaw them under another.

No Textual import.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

__all__ = [
    "BIG_BUILD_BYTES",
    "BIG_TABLE_ROWS",
    "FULL_AFTER",
    "Building",
    "Hold",
    "after_warm_up",
    "building",
    "collect_everything",
    "collect_full",
    "defer_full",
    "freeze",
    "full_due",
    "holders",
    "keep_frozen",
    "pause",
    "paused",
]

_lock = threading.RLock()
_holders = 0
_restore = False  # whether the first hold found the collector on
_keepers = 0


class Hold:
    """One hold on the switch; :meth:`release` gives it back (a second release does nothing)."""

    __slots__ = ("_done", "_on_release")

    def __init__(self, on_release: Callable[[], None]) -> None:
        self._on_release = on_release
        self._done = False

    @property
    def held(self) -> bool:
        return not self._done

    def release(self) -> None:
        with _lock:
            if self._done:
                return
            self._done = True
            self._on_release()


def pause(*, collect_young: bool = False) -> Hold:
    """Hold the collector off until the returned handle is released.

    ``collect_young``: when this hold is the one that turns the collector off, first collect the
    young generations, so that little short-lived garbage outlives the pause (or is frozen).
    """
    global _holders, _restore
    with _lock:
        first = _holders == 0
        if first:
            _restore = gc.isenabled()
            gc.disable()
        _holders += 1
        turned_off = first and _restore
    if collect_young and turned_off:
        gc.collect(1)  # runs with the collector disabled too
    return Hold(_end_pause)


def _end_pause() -> None:
    global _holders
    with _lock:
        if _holders <= 0:
            raise RuntimeError("collector released more often than paused")
        _holders -= 1
        if _holders == 0 and _restore:
            gc.enable()


@contextmanager
def paused(*, collect_young: bool = False) -> Iterator[None]:
    """The collector is off inside the block (see :func:`pause`), back as it was after the
    last hold leaves, whatever happens inside."""
    hold = pause(collect_young=collect_young)
    try:
        yield
    finally:
        hold.release()


def holders() -> int:
    """How many pauses are held now (for tests and diagnostics)."""
    with _lock:
        return _holders


#: A document built from more bytes than this is paused for and frozen (:func:`building`).
BIG_BUILD_BYTES = 1 << 20
#: A table with this many rows is frozen once its rows are warmed (:func:`after_warm_up`).
BIG_TABLE_ROWS = 5_000

#: What an owner hands the store to wrap a long-lived build in (given its size in bytes, or
#: None for "whatever its size": the disk cache's copies at start).
Building = Callable[[int | None], AbstractContextManager[object]]


@contextmanager
def building(size: int | None = None) -> Iterator[None]:
    """Around building objects that live until a later build replaces them (a state document
    of ``size`` bytes; None: the disk cache's copies at start): for a big one the collector is
    paused and, if the build succeeds, what it built is frozen out of the collector's view.

    Why: a 50 000-agent agents.json is a few hundred thousand container objects. While they are
    built the collector would rescan the growing tree many times over (its young collections
    alone cost a third more on the build); afterwards its next passes would rescan all of them.
    They hold no reference cycles and live until a refresh replaces them, when reference
    counting frees them, so they are frozen (the app gives them back when it unmounts). Young
    garbage is collected first so that little else is frozen with them; when the collector is
    already off (roost's start-up) nothing is collected.
    """
    if size is not None and size <= BIG_BUILD_BYTES:
        yield
        return
    with paused(collect_young=True):
        yield
        # frozen before the collector is back on: else the first allocation after it could
        # start a collection of the young generation, which is the whole new document
        freeze()


def after_warm_up(rows: int) -> None:
    """A table's ``rows`` have computed what filtering and sorting read (the warm-up): a big
    table's rows live until its next build and form no cycles, so they are frozen out of the
    collector's view (else every full collection rescans them on the UI thread). Young
    garbage is collected first so that little else is frozen."""
    if rows >= BIG_TABLE_ROWS:
        with paused(collect_young=True):
            freeze()


def freeze() -> None:
    """Move every object the collector tracks to the permanent generation (``gc.freeze``).

    For objects that live until reference counting frees them (a validated document): the
    collector's later passes no longer rescan them.
    """
    with _lock:
        gc.freeze()


def keep_frozen() -> Hold:
    """A user of frozen objects (the app, for its lifetime): when the last such handle is
    released, everything frozen goes back to the collector (``gc.unfreeze``)."""
    global _keepers
    with _lock:
        _keepers += 1
    return Hold(_end_keep)


def _end_keep() -> None:
    global _keepers
    with _lock:
        if _keepers <= 0:
            raise RuntimeError("keep_frozen released more often than taken")
        _keepers -= 1
        if _keepers == 0:
            gc.unfreeze()


#: Young-generation collections between two full ones (CPython's own third threshold).
FULL_AFTER = 10
_NEVER = 1 << 30
_deferrers = 0
_saved_threshold: tuple[int, int, int] | None = None


def defer_full() -> Hold:
    """Until the handle is released, the collector never starts a full (oldest generation)
    collection by itself: the holder runs them at moments of its choosing (:func:`collect_full`
    when :func:`full_due`). The young generations are collected as usual.

    Why: a full collection scans everything still tracked, on the UI thread, and at 50 000
    agents that is long enough to feel; started by an allocation, it lands on whatever key is being
    handled.
    """
    global _deferrers, _saved_threshold
    with _lock:
        if _deferrers == 0:
            _saved_threshold = gc.get_threshold()
            young, middle, _ = _saved_threshold
            gc.set_threshold(young, middle, _NEVER)
        _deferrers += 1
    return Hold(_end_defer)


def _end_defer() -> None:
    global _deferrers, _saved_threshold
    with _lock:
        if _deferrers <= 0:
            raise RuntimeError("defer_full released more often than taken")
        _deferrers -= 1
        if _deferrers == 0 and _saved_threshold is not None:
            gc.set_threshold(*_saved_threshold)
            _saved_threshold = None


def full_due(after: int = FULL_AFTER) -> bool:
    """Whether ``after`` young collections went by since the last full one."""
    return gc.get_count()[2] >= after


def collect_full() -> bool:
    """Run a full collection now, unless a pause is held (then False: try again later)."""
    return _collect(frozen_too=False)


def collect_everything() -> bool:
    """A full collection that also looks at what was frozen: everything frozen goes back to the
    collector, is collected, and what is left is frozen again. For a quiet moment now and then:
    a cycle that was garbage when something froze stays out of every other pass (it costs a
    pass over everything). Not under a pause (False: try later)."""
    return _collect(frozen_too=True)


def _collect(*, frozen_too: bool) -> bool:
    with _lock:
        if _holders or not gc.isenabled():
            return False
        if frozen_too:
            gc.unfreeze()
        gc.collect()
        if frozen_too:
            gc.freeze()
    return True
