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
typed next. A pattern the engine cannot compile is shown, not enforced, as before. Reading a
contract only checks its patterns (:func:`check`); each is compiled when a value is first held
to it (:func:`compiled`, cached).

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
    "CANNOT_RUN",
    "MAX_COPIES",
    "PATTERN_BUDGET_S",
    "TOO_SLOW",
    "PatternError",
    "check",
    "compiled",
    "given_up",
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
#: What is said of a pattern ``re`` takes and ``regex`` will not compile (rare: the module's
#: default version reads ``re``'s syntax).
CANNOT_RUN = "pattern this check cannot run: not enforced here"


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


def check(pattern: str) -> None:
    """Refuse (:class:`PatternError`) a pattern ``re``'s parser does not take, or whose counted
    repeats ask for more than :data:`MAX_COPIES` copies. Cheap: nothing is compiled (a contract
    is read with every pattern checked; each is compiled when a value is first held to it)."""
    try:
        copies = _copies(_sre_parse.parse(pattern))
    except (re.error, RecursionError, OverflowError, ValueError, TypeError) as exc:
        raise PatternError(f"pattern {pattern!r} cannot be used: {exc}") from None
    if copies > MAX_COPIES:
        raise PatternError(
            f"pattern {pattern!r} cannot be used: its counted repeats ask for more than "
            f"{MAX_COPIES:,} copies"
        )


@functools.lru_cache(maxsize=512)
def compiled(pattern: str) -> Any:
    """``pattern`` checked and compiled (cached); :class:`PatternError` says why it cannot be."""
    check(pattern)
    import regex  # off the start path: only forms, the CLI and contracts need it

    try:
        return regex.compile(pattern)
    except (regex.error, RecursionError, OverflowError, ValueError, MemoryError) as exc:
        raise PatternError(f"pattern {pattern!r} cannot be used: {exc}") from None


_lock = threading.Lock()
#: Patterns given up on (too slow, or one ``regex`` would not compile), with where each was
#: met first (a field's name) and why, in order.
_given_up: dict[str, tuple[str, str]] = {}
#: The patterns already told about.
_told: set[str] = set()


def given_up(pattern: str) -> str | None:
    """Why ``pattern`` is no longer checked in this process (:data:`TOO_SLOW`, or
    :data:`CANNOT_RUN`), or None while it is."""
    found = _given_up.get(pattern)
    return found[1] if found is not None else None


def _give_up(pattern: str, where: str, why: str) -> None:
    with _lock:
        _given_up.setdefault(pattern, (where, why))


def matches(pattern: str, value: str, *, anywhere: bool = False, where: str = "") -> bool | None:
    """Whether ``value`` matches ``pattern`` (the whole of it, or with ``anywhere`` some part,
    as JSON Schema means); None when the pattern cannot say within its budget, now or before,
    or cannot be compiled: the value is then not held to it.

    ``where`` names the field for the notice (``bio``)."""
    if pattern in _given_up:
        return None
    try:
        engine = compiled(pattern)
    except PatternError:
        _give_up(pattern, where, CANNOT_RUN)
        return None
    match = engine.search if anywhere else engine.fullmatch
    try:
        return match(value, timeout=PATTERN_BUDGET_S) is not None
    except TimeoutError:
        _give_up(pattern, where, TOO_SLOW)
        return None
    except (RecursionError, MemoryError):
        _give_up(pattern, where, CANNOT_RUN)
        return None


def new_notices() -> list[str]:
    """What to tell a person about patterns given up on since the last call, each pattern once
    per process: ``bio: pattern too slow to check: not enforced here``."""
    with _lock:
        fresh = [p for p in _given_up if p not in _told]
        _told.update(fresh)
        return [": ".join(filter(None, _given_up[p])) for p in fresh]


def forget() -> None:
    """Forget every verdict (tests start each from a clean process's view)."""
    with _lock:
        _given_up.clear()
        _told.clear()
