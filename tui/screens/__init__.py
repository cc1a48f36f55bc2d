"""The tab screens, in tab order.

``SCREENS`` is the registry the app, the tab bar, the help screen and the command palette read.
A screen module that is not there yet (a tab still being written) is skipped, so the app runs
without it; an error *inside* a screen module is not hidden.
"""

from __future__ import annotations

import importlib

from tui.screens.base import StateScreen

__all__ = ["SCREENS", "StateScreen", "screen_for"]

# (module, class): one line per tab.
_REGISTRY: tuple[tuple[str, str], ...] = (
    ("tui.screens.agents", "AgentsScreen"),
    ("tui.screens.trending", "TrendingScreen"),
    ("tui.screens.channels", "ChannelsScreen"),
    ("tui.screens.stats", "StatsScreen"),
    ("tui.screens.seeds", "SeedsScreen"),
)


def _load() -> list[type[StateScreen]]:
    found: list[type[StateScreen]] = []
    for module_name, class_name in _REGISTRY:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # that tab is not written yet
            raise
        found.append(getattr(module, class_name))
    return sorted(found, key=lambda screen: screen.TAB_KEY)


SCREENS: list[type[StateScreen]] = _load()


def screen_for(tab_id: str) -> type[StateScreen] | None:
    return next((screen for screen in SCREENS if tab_id == screen.TAB_ID), None)
