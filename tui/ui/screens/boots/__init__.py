"""The Boots tab and the egg inspector: boot records, and one egg proven.

The tab registry names ``tui.ui.screens.boots:BootsScreen``; the screen module is imported when
the tab is first opened (the registry checks this package exists without importing it).
"""

from __future__ import annotations

from typing import Any

__all__ = ["BootsScreen"]


def __getattr__(name: str) -> Any:
    if name == "BootsScreen":
        # here, not at the top: screen imports this module
        from tui.ui.screens.boots.screen import BootsScreen

        return BootsScreen
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
