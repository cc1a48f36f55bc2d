"""The tabs, in tab order: what the app, the tab bar, the palette and the CLI (``--screen``) need
to know about each screen without importing it (a screen's module is imported when its tab is
first opened). No Textual import here: the CLI reads it on every start.

One line per tab. A tab whose module is not written yet is left out, so the app runs without
it; an error *inside* a screen module is not hidden (it is raised when the tab opens).
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from tui.network.state_files import AGENTS, CHANNELS, SEEDS, STATS, TRENDING

if TYPE_CHECKING:
    from tui.screens.base import StateScreen

__all__ = ["TABS", "TAB_IDS", "Tab", "tab"]


class Tab(msgspec.Struct, frozen=True):
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


def _module_exists(module: str) -> bool:
    """Whether ``module`` is there, without importing its package (``tui.screens`` imports
    Textual; the CLI reads this registry without it)."""
    package, _, name = module.rpartition(".")
    spec = importlib.util.find_spec(package)  # imports the package's parents only
    locations = spec.submodule_search_locations if spec is not None else None
    return any(
        (Path(folder) / f"{name}.py").is_file() or (Path(folder) / name / "__init__.py").is_file()
        for folder in locations or ()
    )


def _present(tabs: tuple[Tab, ...]) -> tuple[Tab, ...]:
    found = [t for t in tabs if _module_exists(t.target.partition(":")[0])]
    return tuple(sorted(found, key=lambda t: t.key))


_ALL: tuple[Tab, ...] = (
    Tab("agents", "1", "Agents", frozenset({AGENTS}), "tui.screens.agents:AgentsScreen"),
    Tab(
        "trending",
        "2",
        "Trending",
        frozenset({TRENDING}),
        "tui.screens.trending:TrendingScreen",
    ),
    Tab(
        "channels",
        "3",
        "Channels",
        frozenset({CHANNELS, AGENTS}),
        "tui.screens.channels:ChannelsScreen",
    ),
    Tab("stats", "4", "Stats", frozenset({STATS}), "tui.screens.stats:StatsScreen"),
    Tab("seeds", "5", "Seeds", frozenset({SEEDS}), "tui.screens.seeds:SeedsScreen"),
    Tab("boots", "6", "Boots", frozenset(), "tui.screens.boots:BootsScreen"),
)
TABS: tuple[Tab, ...] = _present(_ALL)
TAB_IDS: tuple[str, ...] = tuple(t.id for t in TABS)


def tab(tab_id: str) -> Tab:
    for candidate in _ALL:
        if candidate.id == tab_id:
            return candidate
    raise KeyError(f"no tab {tab_id!r}")
