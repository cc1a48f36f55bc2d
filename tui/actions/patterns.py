"""A field's ``pattern``, checked within a bound: a slow pattern is never a frozen roost.

The patterns come from the deployment's ``skill.json`` (anyone who can publish it writes them)
and from the config file. Python's ``re`` backtracks without limit and holds the interpreter
while it does: ``^(\\w+\\s?)*$`` against forty letters and a ``!`` never seems to end, and the
dashboard's event loop with it. So every pattern is compiled and run by the ``regex`` module
(``re``'s syntax and meaning in its default version, which ``re``'s patterns keep), each match
given :data:`PATTERN_BUDGET_S` of the process's CPU time (``regex`` counts processor time, as
C's ``clock()`` does, and lets go of the interpreter while it matches a string).

The ``regex`` module has no bound on compiling, and expands counted repeats when it does:
``(?:(?:a{100}){100}){100}`` (25 characters) lays out a million nodes, one level more a
hundred times that, and ``(?:(?:ab|cd){1000}){1000}`` crashes the interpreter. So a pattern is
first parsed by ``re``'s own parser (which builds no program and expands nothing) and refused
when the copies its counted repeats ask for pass :data:`MAX_COPIES`; a pattern ``re`` cannot
parse is not compiled by ``regex`` either. Such patterns are shown, not enforced, as every
pattern ``re`` could not run was before.

A pattern that runs out of its time once is *too slow*: from then on, in this process, it is
not checked at all (the value passes; the deployment still checks it) and :func:`new_notices`
says so, once, in words a person reads beside the field ("pattern too slow to check: not
enforced here"). So at most one budget per pattern is ever spent on a slow one, whatever is
typed next. A pattern the engine cannot compile is shown, not enforced, as before.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import functools
import re
import threading
from re import _constants as _sre  # re's parser and its names: private, checked by a test
from re import _parser as _sre_parse
from typing import Any

__all__ = [
    "MAX_COPIES",
    "PATTERN_BUDGET_S",
    "TOO_SLOW",
    "PatternError",
    "compiled",
    "is_too_slow",
    "matches",
    "new_notices",
]

#: The most one pattern check may take (CPU time of the process): well under what a person
#: notices in a keystroke, far more than any pattern a contract means needs on a field.
PATTERN_BUDGET_S = 0.05

#: The most copies of a pattern's parts its counted repeats may ask for (``(?:ab){40}`` asks for
#: 80): a pattern within it compiles in a small part of the budget.
MAX_COPIES = 2_000

#: What is said of a pattern that ran out of time.
TOO_SLOW = "pattern too slow to check: not enforced here"


class PatternError(ValueError):
    """The engine cannot compile the pattern (it is shown, never enforced)."""


_REPEATS = (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT)


def _copies(parsed: Any) -> int:
    """How many copies of its parts a parsed pattern's counted repeats ask for: a repeat's
    lower count times its body's (what ``regex`` lays out when it compiles), alternatives and
    the rest added up. Stops counting once past :data:`MAX_COPIES`."""
    total = 0
    for op, av in parsed:
        if op in _REPEATS:
            low, _high, body = av
            total += max(low, 1) * _copies(body)
        elif op is _sre.SUBPATTERN:
            total += _copies(av[3])
        elif op is _sre.BRANCH:
            total += sum(_copies(branch) for branch in av[1])
        elif op in (_sre.ASSERT, _sre.ASSERT_NOT):
            total += _copies(av[1])
        elif op is _sre.ATOMIC_GROUP:
            total += _copies(av)
        elif op is _sre.GROUPREF_EXISTS:
            total += sum(_copies(branch) for branch in av[1:] if branch is not None)
        else:
            total += 1
        if total > MAX_COPIES:
            return total
    return total


@functools.lru_cache(maxsize=512)
def compiled(pattern: str) -> Any:
    """``pattern`` compiled (cached); :class:`PatternError` says why it cannot be."""
    try:
        copies = _copies(_sre_parse.parse(pattern))
    except (re.error, RecursionError, OverflowError, ValueError, TypeError) as exc:
        raise PatternError(f"pattern {pattern!r} cannot be used: {exc}") from None
    if copies > MAX_COPIES:
        raise PatternError(
            f"pattern {pattern!r} cannot be used: its counted repeats ask for more than "
            f"{MAX_COPIES:,} copies"
        )
    import regex  # off the start path: only forms, the CLI and contracts need it

    try:
        return regex.compile(pattern)
    except (regex.error, RecursionError, OverflowError, ValueError, MemoryError) as exc:
        raise PatternError(f"pattern {pattern!r} cannot be used: {exc}") from None


_lock = threading.Lock()
#: Patterns that ran out of time, with where each was met first (``field`` names), in order.
_too_slow: dict[str, str] = {}
#: The patterns already told about.
_told: set[str] = set()


def is_too_slow(pattern: str) -> bool:
    """Whether ``pattern`` ran out of time before in this process (it is no longer checked)."""
    return pattern in _too_slow


def matches(pattern: str, value: str, *, anywhere: bool = False, where: str = "") -> bool | None:
    """Whether ``value`` matches ``pattern`` (the whole of it, or with ``anywhere`` some part,
    as JSON Schema means); None when the pattern cannot say within its budget, now or before,
    or cannot be compiled: the value is then not held to it.

    ``where`` names the field for the notice (``bio``, ``tags[2]``)."""
    if pattern in _too_slow:
        return None
    try:
        engine = compiled(pattern)
    except PatternError:
        return None
    match = engine.search if anywhere else engine.fullmatch
    try:
        return match(value, timeout=PATTERN_BUDGET_S) is not None
    except TimeoutError:
        with _lock:
            _too_slow.setdefault(pattern, where)
        return None
    except (RecursionError, MemoryError):
        return None


def new_notices() -> list[str]:
    """What to tell a person about patterns found too slow since the last call, each pattern
    once per process: ``bio: pattern too slow to check: not enforced here``."""
    with _lock:
        fresh = [p for p in _too_slow if p not in _told]
        _told.update(fresh)
        return [f"{_too_slow[p]}: {TOO_SLOW}" if _too_slow[p] else TOO_SLOW for p in fresh]


def forget() -> None:
    """Forget every verdict (tests start each from a clean process's view)."""
    with _lock:
        _too_slow.clear()
        _told.clear()
