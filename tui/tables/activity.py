"""The Activity table (tab 8): its columns and rows, shared by the tab and `roost export`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tui.network.state_files import CHANGES
from tui.pulse.activity import ActivityRow, activity_rows
from tui.tables.cells import age_seconds, epoch_seconds
from tui.tables.rows import Column, LazyRow
from tui.tables.spec import TableSpec

if TYPE_CHECKING:
    from tui.network.store import Snapshot

__all__ = ["COLUMNS", "TABLE", "FeedRow", "models"]

COLUMNS = (
    Column("age", "age", 4, align="right"),
    Column("type", "type", 9, max_width=16),
    Column("text", "what happened", 30, flex=True),  # names the agent: no column of its own
)


class FeedRow(LazyRow):
    """One entry of the change log; ``context`` is "now" in POSIX seconds."""

    __slots__ = ()
    model: ActivityRow

    def make_cells(self) -> tuple[str, ...]:
        row = self.model
        when = epoch_seconds(row.ts)
        return (
            age_seconds(None if when is None else self.context - when),
            row.type,
            row.text,
        )

    def make_sort_values(self) -> tuple[Any, ...]:
        return tuple(value(self) for value in _SORT_VALUES)

    def make_sort_value(self, column: int) -> Any:
        return _SORT_VALUES[column](self) if column < len(_SORT_VALUES) else None

    def make_haystack(self) -> str:
        """What ``/`` searches: type, words, agent, channel and post."""
        row = self.model
        post = f"#{row.post}" if row.post is not None else ""
        return " ".join((row.type, row.text, row.agent or "", row.channel or "", post)).lower()


def _when_sort(row: FeedRow) -> float | None:
    when = epoch_seconds(row.model.ts)
    return -when if when is not None else None  # the youngest first


_SORT_VALUES: tuple[Callable[[FeedRow], Any], ...] = (
    _when_sort,
    lambda row: row.model.type.lower(),
    lambda row: row.model.text.lower(),
)
assert len(_SORT_VALUES) == len(COLUMNS)


def models(snapshot: Snapshot) -> Mapping[str, ActivityRow] | None:
    changes = snapshot.changes
    if changes is None:
        return None
    return {row.key: row for row in activity_rows(changes)}


TABLE = TableSpec("activity", (CHANGES,), COLUMNS, FeedRow, models, lambda s, now: now)
