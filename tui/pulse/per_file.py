"""An index built once per file object: the pulse's look-ups (an agent's notifications, its
graph neighbours, its post count) read the index of the file the snapshot holds now.

The store keeps a file's model object for as long as the file is unchanged (a 304, a matching
hash), so an index keyed on the object survives refreshes and is built again only when the file
changes. One slot each: the newest file's index replaces the last. Safe to call from a worker
thread and the event loop at once: an index is built once, by whichever asks first.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["PerFile"]

F = TypeVar("F")
I = TypeVar("I")  # noqa: E741 - the index's type


class PerFile(Generic[F, I]):
    """``index = per_file(file)``: ``build(file)`` for a file object not seen last time, else
    the index built for it."""

    def __init__(self, build: Callable[[F], I]):
        self._build = build
        self._held: tuple[object, I | None] = (None, None)
        self._lock = threading.Lock()

    def __call__(self, file: F) -> I:
        held, index = self._held
        if held is file and index is not None:
            return index
        with self._lock:
            held, index = self._held
            if held is file and index is not None:
                return index
            index = self._build(file)
            self._held = (file, index)
            return index

    def clear(self) -> None:
        """Forget the index (tests; a file object is never reused for other data)."""
        self._held = (None, None)
