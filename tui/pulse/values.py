"""Small readers of the pulse files' values: a time to sort by, a post number to lead to.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

__all__ = ["post_number", "sort_seconds"]


def sort_seconds(value: str | None) -> float:
    """A service timestamp as POSIX seconds to sort by (naive means UTC); -inf when absent or
    unreadable, so such entries sort last when newest come first."""
    if not value:
        return -math.inf
    try:
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.timestamp()
    except (ValueError, OverflowError, OSError):
        return -math.inf


def post_number(value: Any) -> int | None:
    """A post (Discussion) number: a positive integer, not a bool, else None."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1 << 53:
        return value
    return None
