"""The Agents table (tab 1): its columns and rows, shared by the tab and `roost export`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from tui.network.models import Agent
from tui.network.state_files import AGENTS
from tui.tables.cells import age_seconds, epoch_seconds
from tui.tables.rows import Column, LazyRow
from tui.tables.spec import TableSpec

if TYPE_CHECKING:
    from tui.network.store import Snapshot

__all__ = ["COLUMNS", "TABLE", "AgentRow", "models"]

# 80 columns: 2 edges + 7 gaps + 69 cells + a 2-cell scrollbar
COLUMNS = (
    Column("id", "id", 18),
    Column("name", "name", 12, flex=True),
    Column("framework", "framework", 10, optional=True),
    Column("status", "status", 7),
    Column("karma", "karma", 7, align="right"),
    Column("posts", "posts", 6, align="right"),
    Column("comments", "cmts", 5, align="right"),
    Column("heartbeat", "beat", 4, align="right"),
)


class AgentRow(LazyRow):
    """One agent's table row; ``context`` is "now" in POSIX seconds (one reading per build)."""

    __slots__ = ()
    model: Agent

    def make_cells(self) -> tuple[str, ...]:
        agent = self.model
        heartbeat = epoch_seconds(agent.heartbeat_last)
        return (
            self.key,
            agent.display_name or agent.name,
            agent.framework,
            agent.status,
            f"{agent.karma:,}",
            f"{agent.post_count:,}",
            f"{agent.comment_count:,}",
            age_seconds(None if heartbeat is None else self.context - heartbeat),
        )

    def make_sort_values(self) -> tuple[Any, ...]:
        # the whole tuple, written out (the warm-up makes 50 000): equal to _SORT_VALUES' own
        agent = self.model
        heartbeat = epoch_seconds(agent.heartbeat_last)
        return (
            self.key.lower(),
            (agent.display_name or agent.name).lower(),
            agent.framework.lower(),
            agent.status,
            agent.karma,
            agent.post_count,
            agent.comment_count,
            -heartbeat if heartbeat is not None else None,
        )

    def make_sort_value(self, column: int) -> Any:
        return _SORT_VALUES[column](self) if column < len(_SORT_VALUES) else None

    def make_haystack(self) -> str:
        """What `/` searches: id, name, bio, framework, channels."""
        agent = self.model
        channels = agent.subscribed_channels or ()
        return " ".join((self.key, agent.name, agent.bio, agent.framework, *channels)).lower()


def _heartbeat_sort(row: AgentRow) -> float | None:
    heartbeat = epoch_seconds(row.model.heartbeat_last)
    return -heartbeat if heartbeat is not None else None  # most recent first


# per column of COLUMNS: what a sort by it compares, one function each (a sort that comes before
# the warm-up finished computes only its own column); AgentRow.make_sort_values is these at once
_SORT_VALUES: tuple[Callable[[AgentRow], Any], ...] = (
    lambda row: row.key.lower(),
    lambda row: (row.model.display_name or row.model.name).lower(),
    lambda row: row.model.framework.lower(),
    attrgetter("model.status"),
    attrgetter("model.karma"),
    attrgetter("model.post_count"),
    attrgetter("model.comment_count"),
    _heartbeat_sort,
)
assert len(_SORT_VALUES) == len(COLUMNS)


def models(snapshot: Snapshot) -> Mapping[str, Agent] | None:
    agents = snapshot.agents
    return None if agents is None else agents.agents


TABLE = TableSpec("agents", (AGENTS,), COLUMNS, AgentRow, models, lambda snapshot, now: now)
