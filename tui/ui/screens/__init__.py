"""The tab screens. :data:`~tui.tabs.TABS` lists them without importing them.

``SCREENS`` (every tab's screen class, in tab order) imports them all: for tests and tools,
not for the start path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.tabs import TABS, Tab, tab
from tui.ui.screens.base import StateScreen

if TYPE_CHECKING:
    SCREENS: list[type[StateScreen]]

__all__ = ["SCREENS", "TABS", "StateScreen", "Tab", "tab"]


def __getattr__(name: str) -> Any:
    if name == "SCREENS":
        return [t.screen_class() for t in TABS]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
