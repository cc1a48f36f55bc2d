"""The Channels table (tab 3): its columns and rows, shared by the tab and `roost export`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tui.network.models import Channel
from tui.network.state_files import AGENTS, CHANNELS
from tui.tables.rows import Column, LazyRow
from tui.tables.spec import TableSpec

if TYPE_CHECKING:
    from tui.network.store import Snapshot

__all__ = ["COLUMNS", "TABLE", "ChannelRow", "models", "subscriber_counts"]

COLUMNS = (
    Column("slug", "slug", 15),
    Column("name", "name", 14),
    Column("posts", "posts", 6, align="right"),
    Column("subscribers", "subs", 5, align="right"),
    Column("verified", "verified", 8),
    Column("description", "description", 12, flex=True),
)


def subscriber_counts(snapshot: Snapshot) -> Counter[str]:
    """Agents subscribed to each channel slug (an agent listing a slug twice counts once)."""
    counts: Counter[str] = Counter()
    agents = snapshot.agents
    if agents is None:
        return counts
    for agent in agents.agents.values():
        channels = agent.subscribed_channels
        if channels:
            counts.update(set(channels))
    return counts


_VERIFIED = {True: "\u2713 yes", False: "no", None: "\u2014"}


class ChannelRow(LazyRow):
    """One channel's row; ``context`` is the subscriber count per slug."""

    __slots__ = ()
    model: Channel

    def make_cells(self) -> tuple[str, ...]:
        channel = self.model
        return (
            self.key,
            channel.name,
            f"{channel.post_count:,}",
            f"{self.context.get(self.key, 0):,}",
            _VERIFIED[channel.verified],
            channel.description,
        )

    def make_sort_values(self) -> tuple[Any, ...]:
        channel = self.model
        return (
            self.key.lower(),
            channel.name.lower(),
            channel.post_count,
            self.context.get(self.key, 0),
            channel.verified,
            channel.description.lower(),
        )

    def make_haystack(self) -> str:
        channel = self.model
        words = (self.key, channel.name, channel.description, channel.tag or "")
        return " ".join((*words, *channel.topic_affinity)).lower()


def models(snapshot: Snapshot) -> Mapping[str, Channel] | None:
    channels = snapshot.channels
    return None if channels is None else channels.channels


TABLE = TableSpec(
    "channels",
    (CHANNELS, AGENTS),
    COLUMNS,
    ChannelRow,
    models,
    lambda snapshot, now: subscriber_counts(snapshot),
)
