"""The tabs, in tab order: what the app, the tab bar, the palette and the CLI (``--screen``) need
to know about each screen without importing it (a screen's module is imported when its tab is
first opened). No Textual import here: the CLI reads it on every start.

One line per tab. A tab whose module is missing stops every start at once, naming it (a tab is
never left out without a word); an error *inside* a screen module is raised when the tab opens.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import msgspec

from tui.errors import RoostError
from tui.network.state_files import (
    AGENTS,
    CHANGES,
    CHANNELS,
    POKES,
    POSTED_LOG,
    SEEDS,
    SOCIAL_GRAPH,
    STATS,
    TRENDING,
)

__all__ = ["TABS", "TAB_IDS", "MissingTabModule", "Tab", "tab"]


class Tab(msgspec.Struct, frozen=True):
    id: str
    key: str  # the number key that opens it
    title: str
    files: frozenset[str]  # the state files it shows: it is updated when one of them changes
    target: str  # "module:Class" of its screen

    def screen_class(self) -> type[Any]:
        """The screen's class (a ``tui.ui.screens.base.StateScreen``), imported now."""
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def __call__(self) -> Any:
        """A new screen for this tab (the app makes one when the tab is first shown)."""
        return self.screen_class()()


def _module_exists(module: str) -> bool:
    """Whether ``module`` (under ``tui``) is there, looked up on disk: importing even its
    package would load ``tui.ui`` (the CLI reads this registry without the UI)."""
    where = Path(__file__).resolve().parent.joinpath(*module.split(".")[1:])
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


class MissingTabModule(RoostError):
    """A tab names a screen module that is not there: a broken install or checkout."""

    hint = "reinstall roost, or restore the file in the checkout"


def _checked(tabs: tuple[Tab, ...]) -> tuple[Tab, ...]:
    """``tabs`` in key order, once every one's module is found; else :class:`MissingTabModule`."""
    missing = [t for t in tabs if not _module_exists(t.target.partition(":")[0])]
    if missing:
        named = ", ".join(f"{t.id} ({t.target.partition(':')[0]})" for t in missing)
        raise MissingTabModule(f"the module of a tab is missing: {named}")
    return tuple(sorted(tabs, key=lambda t: t.key))


_ALL: tuple[Tab, ...] = (
    Tab(
        "agents",
        "1",
        "Agents",
        # the detail's profile: read once a detail is opened
        frozenset({AGENTS, POSTED_LOG, POKES, SOCIAL_GRAPH}),
        "tui.ui.screens.agents:AgentsScreen",
    ),
    Tab(
        "trending",
        "2",
        "Trending",
        frozenset({TRENDING}),
        "tui.ui.screens.trending:TrendingScreen",
    ),
    Tab(
        "channels",
        "3",
        "Channels",
        frozenset({CHANNELS, AGENTS}),
        "tui.ui.screens.channels:ChannelsScreen",
    ),
    Tab("stats", "4", "Stats", frozenset({STATS}), "tui.ui.screens.stats:StatsScreen"),
    Tab("seeds", "5", "Seeds", frozenset({SEEDS}), "tui.ui.screens.seeds:SeedsScreen"),
    Tab("boots", "6", "Boots", frozenset(), "tui.ui.screens.boots:BootsScreen"),
    Tab(
        "posts", "7", "Posts", frozenset({POSTED_LOG, TRENDING}), "tui.ui.screens.posts:PostsScreen"
    ),
    Tab(
        "activity",
        "8",
        "Activity",
        frozenset({CHANGES}),
        "tui.ui.screens.activity:ActivityScreen",
    ),
)
TABS: tuple[Tab, ...] = _checked(_ALL)
TAB_IDS: tuple[str, ...] = tuple(t.id for t in TABS)


def tab(tab_id: str) -> Tab:
    for candidate in _ALL:
        if candidate.id == tab_id:
            return candidate
    raise KeyError(f"no tab {tab_id!r}")
