"""roost's speed machinery, behind one door: what makes the dashboard start, answer keys and
quit sooner than plain Textual would, and nothing a screen or a widget needs to know about.

The app installs it with one call (:func:`install`, from ``RoostApp.__init__``); `roost` starts
it with :func:`begin` before the dashboard's imports. Screens and widgets are plain Textual.

One switch turns all of it off: ``ROOST_PLAIN=1`` (or ``all``) runs plain Textual. For the
bench, ``ROOST_PLAIN`` may instead name the pieces to turn off, comma-separated
(``ROOST_PLAIN=gc,preload``). The pieces (:data:`PIECES`):

``gc``
    the garbage collector's policy (:mod:`tui.ui.speed.gc_policy`): paused from `roost`'s start
    until the first paint, paused while a big document is built and what it built frozen out of the
    collector's view, a big table's warmed rows frozen, full collections at quiet moments only.
``preload``
    between keys, the tabs not opened yet are imported and their CSS parsed
    (:mod:`tui.ui.speed.preload`).
``stylesheets``
    each CSS source is parsed once per set of variables (the stylesheet cache), and a new tab's
    styles are not recomputed when it is first shown.

Always on, as behaviour rather than speed (:mod:`tui.ui.speed.held_keys`): keys typed before
what takes them is there wait for it (a picker or a form opening; a screen's ``Lazy`` body).

Each piece has to buy 10% or more on one of the bench's figures (`tests/perf/bench.py --plain`:
cold start, next frame, settled frame, quit, `state --json`); two pieces bought none and were
removed: presetting a new tab's breakpoint classes before its mount, and making every thread
allocate from glibc's main malloc arena.

Read when asked (not cached), so a test or the bench may set the variable in the process.
This module imports neither Textual nor the rest of the package: `roost` imports it first.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.app import App
    from textual.widget import Widget

    from tui.config import Settings
    from tui.network.store import Building, Store
    from tui.service import Service
    from tui.session import Session
    from tui.ui.speed.machinery import Machinery

__all__ = [
    "ENV",
    "PIECES",
    "begin",
    "building",
    "end",
    "freeze_for_fork",
    "install",
    "on",
    "plain",
    "start_from",
]

ENV = "ROOST_PLAIN"
PIECES = ("gc", "preload", "stylesheets")
_ALL = {"1", "all", "true", "yes", "on"}


def plain() -> frozenset[str]:
    """The pieces turned off by ``ROOST_PLAIN`` (every piece for ``1``/``all``)."""
    value = os.environ.get(ENV, "").strip().lower()
    if not value or value in {"0", "false", "no", "off"}:
        return frozenset()
    if value in _ALL:
        return frozenset(PIECES)
    return frozenset(part.strip() for part in value.split(",") if part.strip())


def on(piece: str) -> bool:
    """Whether ``piece`` (one of :data:`PIECES`) is on."""
    if piece not in PIECES:
        raise ValueError(f"no speed piece {piece!r}: {', '.join(PIECES)}")
    return piece not in plain()


def building() -> Building | None:
    """What a store wraps its long-lived builds in (the collector's policy, piece ``gc``), for
    the dashboard's store; None when the piece is off."""
    from tui.ui.speed import gc_policy  # deferred: the door stays light

    return gc_policy.building if on("gc") else None


def begin(settings: Settings, session: Session | None = None) -> Service:
    """`roost`'s start, before the dashboard's imports: the service connected, its disk cache
    read meanwhile in a thread, with the machinery's start-up part (tui/ui/speed/startup.py)."""
    from tui.ui.speed.startup import begin as start  # deferred: the door stays light

    return start(settings, session)


def start_from(store: Store) -> None:
    """The next :func:`begin` starts from ``store``'s snapshot instead of reading the disk cache
    again: a session forked by the SSH zygote, which read it before the fork."""
    from tui.ui.speed.startup import preloaded  # deferred: the door stays light

    preloaded(store)


def freeze_for_fork() -> None:
    """What this process holds, out of the collector's sight from now on, garbage collected
    first: the SSH zygote, before it forks sessions, so that no collection in a session writes
    to those objects and their copy-on-write pages stay shared. Whatever ``ROOST_PLAIN`` says:
    this is what makes a forked session cheap, not a speed-up of one."""
    from tui.ui.speed import gc_policy  # deferred: the door stays light

    gc_policy.collect_everything()  # everything unfrozen, collected, frozen again


def end() -> None:
    """`roost`'s end: the start-up's hold on the collector is given back, if the app did not
    (it does after its first paint)."""
    from tui.ui.speed.startup import resume_gc  # deferred: the door stays light

    resume_gc()


def install(app: App[Any], *, first_css: Iterable[type[Widget]] = ()) -> Machinery:
    """The machinery for ``app``, made once as the app is made (its ``__init__``, after
    Textual's): the app calls it at the moments of its life it names (tui/ui/speed/machinery.py).
    ``first_css``: widgets whose default CSS goes in with the first parse."""
    from tui.ui.speed.machinery import Machinery  # deferred: the door stays light

    return Machinery(app, first_css=first_css)
