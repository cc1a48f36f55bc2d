"""The rows of the Seeds tables: lazy rows (:class:`~tui.ui.table.virtual_table.LazyRow`), like
every other table's, so a row's cells and sort values are computed when first drawn or sorted.

Each table's ``context`` is the clock reading of its build (the ages); the queue's also holds
each key's place in the queue.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from rich.text import Text

from tui.network.models import Proposal, Seed
from tui.ui.screens.seeds.details import ago, percent, vote_total
from tui.ui.table.virtual_table import Column, LazyRow

__all__ = [
    "AGENT_COLUMNS",
    "HISTORY_COLUMNS",
    "PROPOSAL_COLUMNS",
    "QUEUE_COLUMNS",
    "AgentRow",
    "PastRow",
    "ProposalRow",
    "QueuedRow",
    "QueueContext",
]

_DASH = "\u2014"

AGENT_COLUMNS: tuple[Column, ...] = (Column("agent", "Agents", 12, flex=True),)
PROPOSAL_COLUMNS: tuple[Column, ...] = (
    Column("votes", "Votes", 5, align="right"),
    Column("id", "Proposal", 14),
    Column("author", "Author", 16),
    Column("age", "Age", 4, align="right"),
    Column("text", "Text", 16, flex=True),
)
QUEUE_COLUMNS: tuple[Column, ...] = (
    Column("position", "#", 3, align="right"),
    Column("id", "Seed", 14),
    Column("source", "Source", 12),
    Column("age", "Queued", 6, align="right"),
    Column("text", "Text", 16, flex=True),
)
HISTORY_COLUMNS: tuple[Column, ...] = (
    Column("id", "Seed", 14),
    Column("age", "Injected", 8, align="right"),
    Column("frames", "Frames", 6, align="right"),
    Column("score", "Conv.", 5, align="right"),
    Column("resolved", "Done", 4),
    Column("text", "Text", 16, flex=True),
)


class AgentRow(LazyRow):
    """An agent id of the active seed's convergence (``model`` is the id)."""

    model: str

    def make_cells(self) -> tuple[str | Text, ...]:
        return (self.model,)

    def make_sort_values(self) -> tuple[Any, ...]:
        return (self.model,)


class ProposalRow(LazyRow):
    model: Proposal
    context: datetime

    def make_cells(self) -> tuple[str | Text, ...]:
        p = self.model
        return (
            str(vote_total(p)),
            p.id,
            p.author or _DASH,
            ago(p.proposed_at, self.context),
            p.text,
        )

    def make_sort_values(self) -> tuple[Any, ...]:
        p = self.model
        return (vote_total(p), p.id, p.author or "", p.proposed_at or "", p.text)


class QueueContext:
    """A queue build's clock reading and each key's 1-based place in the queue."""

    __slots__ = ("now", "places")

    def __init__(self, now: datetime, keys: Mapping[str, Any]) -> None:
        self.now = now
        self.places = {key: n for n, key in enumerate(keys, start=1)}


class QueuedRow(LazyRow):
    model: Seed
    context: QueueContext

    def make_cells(self) -> tuple[str | Text, ...]:
        s = self.model
        place = self.context.places[self.key]
        return (str(place), s.id, s.source or _DASH, ago(s.queued_at, self.context.now), s.text)

    def make_sort_values(self) -> tuple[Any, ...]:
        s = self.model
        return (self.context.places[self.key], s.id, s.source or "", s.queued_at or "", s.text)


class PastRow(LazyRow):
    """A seed of the history."""

    model: Seed
    context: datetime

    def _score_and_done(self) -> tuple[str, str]:
        convergence = self.model.convergence
        if convergence is None:
            return _DASH, _DASH
        return percent(convergence.score), "yes" if convergence.resolved else "no"

    def make_cells(self) -> tuple[str | Text, ...]:
        s = self.model
        score, done = self._score_and_done()
        frames = _DASH if s.frames_active is None else str(s.frames_active)
        return (s.id, ago(s.injected_at, self.context), frames, score, done, s.text)

    def make_sort_values(self) -> tuple[Any, ...]:
        s = self.model
        score, done = self._score_and_done()
        return (s.id, s.injected_at or "", s.frames_active, score, done, s.text)
