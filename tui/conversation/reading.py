"""What reading a thread gives: the values a thread reader hands to the thread screen and to
``roost thread`` (ARCHITECTURE.md, the conversation).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from tui.conversation.thread import Thread

__all__ = ["ThreadRead", "ThreadReader"]


@dataclass(frozen=True, slots=True)
class ThreadRead:
    """One answer about thread ``number``.

    ``thread`` is the best copy there is (None: nothing could be read at all); ``fetched_at``
    when that copy was read from its source (the age shown when it is not fresh); ``fresh``
    whether the source was asked this time and answered (False: a cached copy is shown because
    the source could not be asked or did not answer); ``problem`` one line saying why a fresher
    copy is not shown (offline, GitHub's limit spent until a time, an HTTP error…), clean of
    secrets, None when there is none.
    """

    number: int
    thread: Thread | None
    fetched_at: datetime | None = None
    fresh: bool = False
    problem: str | None = None


class ThreadReader(Protocol):
    """Reads threads for one service (the cache first, then GitHub; see the implementation)."""

    def first(self, number: int) -> ThreadRead | None:
        """What can be shown at once, without asking any server (None: nothing yet)."""
        ...

    async def read(self, number: int, *, fresh: bool = False) -> ThreadRead:
        """The thread from the best source in order; ``fresh``: ask the server even when a
        cached copy would do (the thread screen's ``r``)."""
        ...

    @property
    def limit_note(self) -> str | None:
        """A line for the status bar when GitHub's read limit is spent, else None."""
        ...
