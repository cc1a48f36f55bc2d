"""JSON read strictly: a document that names one member twice is refused, never silently
half-read (``json`` keeps the last value, another reader may keep the first).

The one home of the check for every reader of untrusted JSON that cares (issue bodies, boot
records, canonical JSON); each says the refusal in its own words and error type. No Textual,
no pydantic: the headless core and the CLI import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["unique_members"]

Pairs = list[tuple[str, Any]]


def _duplicate(key: str) -> Exception:
    return ValueError(f"duplicate member {key!r}")


def unique_members(
    refuse: Callable[[str], Exception] = _duplicate,
) -> Callable[[Pairs], dict[str, Any]]:
    """An ``object_pairs_hook`` that raises ``refuse(key)`` at the first repeated member."""

    def hook(pairs: Pairs) -> dict[str, Any]:
        result = dict(pairs)  # in C; only a document with a repeat is walked, to name it
        if len(result) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise refuse(key)
                seen.add(key)
        return result

    return hook
