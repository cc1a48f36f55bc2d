"""`roost egg inspect`: the egg inspector alone, without the dashboard (the egg was found,
downloaded and verified by the CLI; nothing from it is run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App

from tui.screens.boots.inspector import EggInspectorScreen
from tui.stylesheets import no_color

__all__ = ["InspectorApp"]


class InspectorApp(App[None]):
    """Pushes the inspector at once; leaving it (escape) quits."""

    TITLE = "roost egg inspect"

    def __init__(self, egg: bytes | Path, record: Any = None, **kwargs: Any) -> None:
        super().__init__(ansi_color=no_color())
        self.inspector = EggInspectorScreen(egg, record, **kwargs)

    def on_mount(self) -> None:
        self.push_screen(self.inspector, lambda _result: self.exit())
