"""The tabs, in tab order: what the app, the tab bar and the palette need to know about each
screen without importing it (a screen's module is imported when its tab is first opened).

One line per tab. A tab whose module is not written yet is left out, so the app runs without
it; an error *inside* a screen module is not hidden (it is raised when the tab opens).
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.screens.base import StateScreen

__all__ = ["TABS", "Tab", "tab"]


@dataclass(frozen=True, slots=True)
class Tab:
    id: str
    key: str  # the number key that opens it
    title: str
    files: frozenset[str]  # the state files it shows: it is updated when one of them changes
    target: str  # "module:Class" of its screen

    def screen_class(self) -> type[StateScreen]:
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def __call__(self) -> StateScreen:
        """A new screen for this tab (the app's MODES call it when the tab is first shown)."""
        return self.screen_class()()


def _present(tabs: tuple[Tab, ...]) -> tuple[Tab, ...]:
    found = [t for t in tabs if importlib.util.find_spec(t.target.partition(":")[0]) is not None]
    return tuple(sorted(found, key=lambda t: t.key))


_ALL: tuple[Tab, ...] = (
    Tab("agents", "1", "Agents", frozenset({"agents.json"}), "tui.screens.agents:AgentsScreen"),
    Tab(
        "trending",
        "2",
        "Trending",
        frozenset({"trending.json"}),
        "tui.screens.trending:TrendingScreen",
    ),
    Tab(
        "channels",
        "3",
        "Channels",
        frozenset({"channels.json", "agents.json"}),
        "tui.screens.channels:ChannelsScreen",
    ),
    Tab("stats", "4", "Stats", frozenset({"stats.json"}), "tui.screens.stats:StatsScreen"),
    Tab("seeds", "5", "Seeds", frozenset({"seeds.json"}), "tui.screens.seeds:SeedsScreen"),
)
TABS: tuple[Tab, ...] = _present(_ALL)


def tab(tab_id: str) -> Tab:
    for candidate in _ALL:
        if candidate.id == tab_id:
            return candidate
    raise KeyError(f"no tab {tab_id!r}")
