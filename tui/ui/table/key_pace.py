"""Background work stands aside while a person types.

A warm-up thread (search texts and sort values of 50 000 rows) is pure Python: while it runs,
the event loop gets the GIL only every other switch interval, so a key's handler takes about
twice as long. The app owns one :class:`KeyPace`: it calls :meth:`KeyPace.hold` for every key it
reads, and hands the pace to what runs in the background, whose loops call
:meth:`KeyPace.yield_to_keys` between small chunks and sleep while keys are being handled. The
work is only postponed, never dropped.

No Textual here: the table layer calls it from its threads. The pace is written on the event
loop and read by threads; a read that sees the previous value only makes a thread wait one
step more or less.
"""

from __future__ import annotations

import time

__all__ = ["HOLD_S", "KeyPace"]

#: How long after a key background work stays away (a burst of keys keeps extending it).
HOLD_S = 0.25


class KeyPace:
    """When the last key came, and until when background work stays away."""

    __slots__ = ("_held_until", "_last_key")

    def __init__(self) -> None:
        self._held_until = 0.0
        self._last_key = float("-inf")

    def hold(self, seconds: float = HOLD_S) -> None:
        """Keep background work away for ``seconds`` from now (called for every key)."""
        now = time.monotonic()
        self._last_key = now
        self._held_until = max(self._held_until, now + seconds)

    def quiet_for(self, seconds: float) -> bool:
        """Whether no key has come for ``seconds``: for steps of a few ms that may run between
        two keys of a person typing fast (the hold, :data:`HOLD_S`, is for longer work)."""
        return time.monotonic() - self._last_key >= seconds

    def held(self) -> bool:
        """Whether keys are being handled now (background work on the event loop waits)."""
        return time.monotonic() < self._held_until

    def idle_for(self, seconds: float) -> bool:
        """Whether no key has been handled for ``seconds`` (past the hold of the last one)."""
        return time.monotonic() >= self._held_until + seconds

    def release(self) -> None:
        """Let background work go on at once (tests)."""
        self._held_until = 0.0
        self._last_key = float("-inf")

    def yield_to_keys(self, limit_s: float = 5.0) -> None:
        """Sleep while keys are being handled (at most ``limit_s``: work is never starved)."""
        deadline = time.monotonic() + limit_s
        while (now := time.monotonic()) < (until := self._held_until) and now < deadline:
            time.sleep(min(0.02, until - now))
