"""Keys typed before what takes them is there, held by the app and typed again once it is.

Two moments hold keys: a screen whose widgets are still being mounted (a tab's body, in
Textual's ``Lazy``, comes a frame after its bars: the machinery sees the ``Lazy``), and a key
that opens a picker, the palette or a form (``s``, ``n``, ``ctrl+p``…): the keys that follow it in a burst (``s a``,
``n heart``) belong to what opens, not to the screen it opens over. For the second the hold
ends once the new screen has mounted and focused its field (:meth:`HeldKeys.until_ready`), or
after :data:`HOLD_KEYS_S` when nothing opened (a toast said why): the keys then act where they
are. Held keys are typed again in the order they came: each is held with when it first
arrived, so a key that comes back unhandled from where it arrived (a burst that began on the
tab before) goes before the keys held since, as it was typed.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from textual import events

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen
    from textual.timer import Timer

__all__ = ["HOLD_KEYS_S", "HeldKeys"]

#: The longest the keys typed after one that opens a picker or a form wait for it.
HOLD_KEYS_S = 1.5


class HeldKeys:
    """The app's held keys (see the module docstring)."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.keys: list[tuple[int, str, str | None]] = []  # (arrival, key, character)
        self._arrivals = 0
        self._for: Screen | None = None  # the screen the keys wait for (None: the next modal)
        self._timer: Timer | None = None

    def __bool__(self) -> bool:
        return bool(self.keys)

    @property
    def holding(self) -> bool:
        """Keys wait for a screen that is opening."""
        return self._timer is not None

    def arrival(self) -> int:
        """A number for a key arriving now (later keys get greater ones)."""
        self._arrivals += 1
        return self._arrivals

    def hold(self, event: events.Key, arrival: int | None = None) -> None:
        """Hold ``event``, in its place among the held keys by ``arrival`` (None: now)."""
        order = self.arrival() if arrival is None else arrival
        bisect.insort(self.keys, (order, event.key, event.character))  # arrivals are unique

    def type_again(self) -> None:
        """Every held key, posted to the app again in order: each acts where the focus is now."""
        held, self.keys = self.keys, []
        for _arrival, key, character in held:
            self.app.post_message(events.Key(key, character))

    def until_ready(self, screen: Screen | None = None, *, for_s: float = HOLD_KEYS_S) -> None:
        """Hold what is typed from now on until ``screen`` (None: the next modal pushed) has
        refreshed once, its focus set by its ``on_mount``; at most ``for_s``."""
        self._for = screen
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.app.set_timer(for_s, self._end, name="hold keys")
        if screen is not None:
            screen.call_after_refresh(self._end, screen)

    def release(self) -> None:
        """End the hold now (nothing is opening after all)."""
        self._end(self._for)

    def _end(self, screen: Screen | None = None) -> None:
        if screen is not None and screen is not self._for:
            return  # a later hold is under way
        if self._timer is not None:
            self._timer.stop()
        self._timer = None
        self._for = None
        self.type_again()
