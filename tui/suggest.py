"""Did you mean: the closest known word to one a person mistyped (a subcommand, a tab, an
action, a setting, a profile), for the one-line error that refuses it.

This module is part of the headless core and imports only the standard library.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]

#: How alike two words must be (difflib's ratio) for one to be offered for the other.
CUTOFF = 0.6


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known word most like ``word`` (case aside), or None when none is close enough."""
    by_folded: dict[str, str] = {}
    for name in known:
        by_folded.setdefault(str(name).casefold(), str(name))
    folded = word.casefold()
    if folded in by_folded:  # only the case differs
        return by_folded[folded]
    found = difflib.get_close_matches(folded, list(by_folded), n=1, cutoff=CUTOFF)
    return by_folded[found[0]] if found else None


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"did you mean 'state'?"`` for ``word`` among ``known``, or "" when nothing is close
    (the mistyped word is the person's own; the caller quotes it as it does any input)."""
    match = closest(word, known)
    return f"did you mean {match!r}?" if match is not None and match != word else ""
