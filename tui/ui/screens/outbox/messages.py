"""Messages between the Outbox screen and whatever hosts it (the app, or a test's small App)."""

from __future__ import annotations

from textual.message import Message

__all__ = ["OutboxChanged", "RefreshOutbox"]


class OutboxChanged(Message):
    """The screen saw the outbox change (a poll, a retry, a discard): the host may update the
    status bar from ``counts`` (state → number of entries) and ``summary``."""

    def __init__(self, counts: dict[str, int], summary: str) -> None:
        super().__init__()
        self.counts = counts
        self.summary = summary


class RefreshOutbox(Message):
    """Posted to the screen to reread the outbox at once (e.g. after a form queued an action)."""
