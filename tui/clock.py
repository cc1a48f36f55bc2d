"""The one "now" of roost: an aware UTC datetime. Whatever shows or stamps a time takes a
``Clock`` (this function by default), so tests and screenshots can freeze it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

__all__ = ["Clock", "utc_now"]

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)
