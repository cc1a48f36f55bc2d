"""The machinery an app runs, made by :func:`tui.ui.speed.install` (see the package docstring).

The app calls it at a few moments of its life (made, mounted, its first paint, a screen made, a
key, a screen pushed, its unmount); what each does depends on the pieces that are on. With every
piece off (``ROOST_PLAIN=1``) each call does nothing but what plain Textual needs done: the
keys typed before what takes them is there still wait for it (a behaviour, not a speed-up):
the keys typed right after one that opens a picker or a form (`s a` sorts by the picker's
``a``), and those typed while a screen's lazy widgets (a tab's body) are being mounted.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from textual import events
from textual.lazy import Lazy

from tui.ui import speed
from tui.ui.speed import gc_policy
from tui.ui.speed.held_keys import HeldKeys
from tui.ui.speed.startup import resume_gc
from tui.ui.table.key_pace import KeyPace
from tui.ui.textual_compat import ParseOnceStylesheet, default_css_sources, mark_styles_current

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget

__all__ = ["Machinery"]

#: After the first refresh, how long the app waits before it imports the other tabs' screens
PRELOAD_AFTER_S = 1.0
# how often the app looks for a quiet moment to run a deferred full collection, and how long
# without a key makes one (gc_policy.defer_full)
IDLE_CHECK_S = 1.0
IDLE_BEFORE_COLLECT_S = 1.5
# how often (at most) a quiet moment also collects what was frozen
THOROUGH_COLLECT_S = 600.0
#: Young collections since the last full one after which a full one runs even while keys come
OVERDUE_AFTER = gc_policy.FULL_AFTER * 20


class Machinery:
    """One app's speed machinery (the pieces that are on when it is made)."""

    def __init__(self, app: App[Any], *, first_css: Iterable[type[Widget]] = ()) -> None:
        self.app = app
        self.off = speed.plain()
        #: When keys come: background work (table warm-ups, preloads) stands aside meanwhile.
        self.key_pace = KeyPace()
        #: Keys typed before what takes them is there.
        self.held_keys = HeldKeys(app)
        self._frozen: gc_policy.Hold | None = None  # kept from mount to unmount
        self._full_collections: gc_policy.Hold | None = None  # from mount to unmount
        self._thorough_at = time.monotonic()  # the last collection that included the frozen
        self._awaiting: Screen[Any] | None = None  # a screen whose lazy widgets keys wait for
        self._returned = False  # a key that came back unhandled waits to be typed again
        #: where the focus was (the screen on view, its focused widget) when each key still on
        #: its way arrived, and when it arrived (HeldKeys.arrival)
        self._arrived_at: weakref.WeakKeyDictionary[
            events.Key, tuple[tuple[Screen[Any], Any], int]
        ] = weakref.WeakKeyDictionary()
        if "stylesheets" not in self.off:
            # each CSS source parsed once, not again on every re-parse (a tab's first visit
            # makes three): see tui/ui/textual_compat.py. No source has been added yet.
            app.stylesheet = ParseOnceStylesheet.for_app(app.get_css_variables())
            # What goes in with the first parse (the filter field's: "/" is often the first key,
            # typed at the first paint, and mounting the first Input would add its CSS then,
            # which makes Textual index every rule again on that key).
            for widget in first_css:
                for source in default_css_sources(widget):
                    app.stylesheet.add_source(*source)

    # ------------------------------------------------------------------ the app's life

    def mounted(self) -> None:
        if "gc" in self.off:
            return
        self._frozen = gc_policy.keep_frozen()  # what big documents freeze, until unmount
        # full collections at quiet moments only, never started by a key's allocations
        self._full_collections = gc_policy.defer_full()
        self.app.set_interval(IDLE_CHECK_S, self._collect_when_idle, name="idle collection")

    def first_data_painted(self) -> None:
        """The disk cache's data is on screen (or there was none): the start-up's pause of the
        collector ends (tui/ui/speed/startup.py)."""
        resume_gc()

    def loaded(self, preload: Any) -> None:
        """The first refresh is shown: ``preload`` (the app's worker) runs a moment later."""
        if "preload" not in self.off:
            self.app.set_timer(PRELOAD_AFTER_S, preload, name="preload tabs")

    async def preload(self, opened: Iterable[str]) -> None:
        """Between keys, import the tabs not ``opened`` and parse their CSS (preload.py)."""
        from tui.ui.speed.preload import prepare_tabs  # deferred: imports every tab's module

        await prepare_tabs(self.app.stylesheet, self.key_pace, opened=set(opened))

    def unmounted(self) -> None:
        resume_gc()
        for hold in (self._full_collections, self._frozen):
            if hold is not None:  # the frozen: what big validations froze is the collector's
                hold.release()
        self._full_collections = self._frozen = None

    def process_ends(self) -> None:
        """The app has quit and the process ends: what the app gave back to the collector is
        frozen, so the interpreter's final collections do not rescan it (nothing leaks)."""
        if "gc" not in self.off:
            gc_policy.freeze()

    def rows_warmed(self, rows: int) -> None:
        """A table's rows are warmed: they live until its next rows (gc_policy.after_warm_up)."""
        if "gc" not in self.off:
            gc_policy.after_warm_up(rows)

    def _collect_when_idle(self) -> None:
        """The collector's full collection once no key has come for a while (or after many more
        young ones); every few minutes of quiet, one that includes what was frozen."""
        now = time.monotonic()
        idle = self.key_pace.idle_for(IDLE_BEFORE_COLLECT_S)
        if idle and now - self._thorough_at >= THOROUGH_COLLECT_S:
            if gc_policy.collect_everything():
                self._thorough_at = now
        elif (idle and gc_policy.full_due()) or gc_policy.full_due(OVERDUE_AFTER):
            gc_policy.collect_full()

    # ------------------------------------------------------------------ screens

    def screen_made(self, screen: Any) -> None:
        """A tab's screen, made and about to be mounted."""
        screen.key_pace = self.key_pace
        if "gc" not in self.off:
            screen.build_policy = gc_policy.building  # big builds: the collector's policy
        if "stylesheets" not in self.off:
            # A new screen's styles are computed when it mounts, from the stylesheet as it is
            # then: mark them current, or Textual restyles the app and the new screen twice
            # more (refresh_css in _init_mode and in switch_mode: a screen starts at count -1).
            mark_styles_current(screen, self.app)
            screen.styles_current = True  # and not restyled on its first resumes

    # ------------------------------------------------------------------ keys

    def key(self, event: events.Event) -> bool:
        """Whether the app holds ``event`` (typed again later) instead of handling it now."""
        if not isinstance(event, events.Key):
            return False
        # a key coming back up: where the focus was when it arrived, and when
        came = self._arrived_at.pop(event, None) if event.is_forwarded else None
        if self.held_keys.holding:
            # a picker or a form is opening: its keys wait for it (`s a`, `n heart`, `ctrl+p x`)
            self.held_keys.hold(event, came[1] if came is not None else None)
            return True
        if self._returned and not event.is_forwarded:
            # a key came back unhandled and waits in the app's queue to be typed again: the
            # keys typed after it, queued before it, wait with it (typed again in order)
            self.held_keys.hold(event)
            return True
        screen = self.app.screen
        here = (screen, screen.focused)
        arrived, arrival = came if came is not None else (here, None)
        if arrived != here and (
            arrived[0] is not screen or event.key not in self.app.active_bindings
        ):
            # Unhandled, it comes back up from the widget focused when it arrived, the focus has
            # moved since (a burst: "5]]jj", the keys after "5" went to the tab before, or to
            # the section the "]" left), and no binding takes it where the focus is now: typed
            # again, it goes to the widget focused now (which may hold it: Seeds' lists), in
            # its place among the keys typed after it: those already queued wait for it (and
            # those held while the new tab's body mounts are typed again with it, once it is).
            self.held_keys.hold(event, arrival)
            if self._awaiting is None and not self._returned:
                self._returned = True
                self.app.call_later(self._type_returned)
            return True
        if any(isinstance(child, Lazy) for child in screen.children):
            # The screen's widgets for them are still being mounted (a tab's body, a frame
            # after its bars: Textual's Lazy): they are typed again, in order, once they are.
            self.held_keys.hold(event)
            if self._awaiting is not screen:
                self._awaiting = screen
                screen.call_after_refresh(self._until_mounted, screen)
            return True
        if not event.is_forwarded:
            self._arrived_at[event] = (here, self.held_keys.arrival())
            self.key_pace.hold()  # background warm-ups stand aside while keys are handled
        return False

    def _type_returned(self) -> None:
        """The keys queued after one that came back have been held: all typed again, in order."""
        self._returned = False
        self.held_keys.type_again()

    def _until_mounted(self, screen: Screen[Any]) -> None:
        """After each frame: once ``screen`` has no lazy widget left, the keys held for it are
        typed again, after what its widgets posted as they mounted (its focus, its rows)."""
        if screen.is_attached and any(isinstance(child, Lazy) for child in screen.children):
            screen.call_after_refresh(self._until_mounted, screen)
            return
        self._awaiting = None
        # typed from the app (a key sent from the screen would stop there: Textual ends its
        # bubbling at the sender's child), after what the screen's queue holds
        if screen.is_attached:
            screen.call_later(self.app.call_later, self.held_keys.type_again)
        else:
            self.app.call_later(self.held_keys.type_again)

    def pushed(self, screen: Screen[Any]) -> None:
        """A picker, a form or a thread was pushed: it takes the keys typed after."""
        self.held_keys.until_ready(screen)

    def opening(self) -> None:
        """A key that may open a picker or a form: the keys after it wait for it."""
        self.held_keys.until_ready()

    def not_opening(self) -> None:
        """Nothing opens after all: the keys held act where they are."""
        self.held_keys.release()
