"""Background work stands aside while a person types.

A warm-up thread (search texts and sort values of 50 000 rows) is pure Python: while it runs,
the event loop gets the GIL only every other switch interval, so a key's handler takes about
twice as long. The app calls :func:`hold` for every key it reads; background loops call
:func:`yield_to_keys` between small chunks, and sleep while keys are being handled. The work is
only postponed, never dropped.

No Textual here: the network and table layers may call it from any thread.
"""

from __future__ import annotations

import time

__all__ = ["HOLD_S", "held", "hold", "idle_for", "quiet_for", "release", "yield_to_keys"]

#: How long after a key background work stays away (a burst of keys keeps extending it).
HOLD_S = 0.25

_held_until = 0.0
_last_key = float("-inf")


def hold(seconds: float = HOLD_S) -> None:
    """Keep background work away for ``seconds`` from now (called for every key)."""
    global _held_until, _last_key
    now = time.monotonic()
    _last_key = now
    _held_until = max(_held_until, now + seconds)


def quiet_for(seconds: float) -> bool:
    """Whether no key has come for ``seconds``: for steps of a few ms that may run between two
    keys of a person typing (the hold, :data:`HOLD_S`, is for longer work)."""
    return time.monotonic() - _last_key >= seconds


def held() -> bool:
    """Whether keys are being handled now (background work on the event loop waits)."""
    return time.monotonic() < _held_until


def idle_for(seconds: float) -> bool:
    """Whether no key has been handled for ``seconds`` (past the hold of the last one)."""
    return time.monotonic() >= _held_until + seconds


def release() -> None:
    """Let background work go on at once (the app quits; tests)."""
    global _held_until, _last_key
    _held_until = 0.0
    _last_key = float("-inf")


def yield_to_keys(limit_s: float = 5.0) -> None:
    """Sleep while keys are being handled (at most ``limit_s``: work is never starved)."""
    deadline = time.monotonic() + limit_s
    while (now := time.monotonic()) < _held_until and now < deadline:
        time.sleep(min(0.02, _held_until - now))
