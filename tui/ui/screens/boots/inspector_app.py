"""`roost egg inspect`: the egg inspector alone, without the dashboard (the egg was found,
downloaded and verified by the CLI; nothing from it is run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from tui.eggs.egg_report import EggReport
from tui.ui.screens.boots.inspector import EggInspectorScreen
from tui.ui.stylesheets import no_color

__all__ = ["InspectorApp"]


class InspectorApp(App[None]):
    """Pushes the inspector at once; leaving it (escape) or ``q`` quits, ``?`` shows its keys."""

    TITLE = "roost egg inspect"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Help: every key", key_display="?", id="app.help"),
    ]

    def __init__(
        self,
        egg: bytes | Path | None,
        record: Any = None,
        *,
        report: EggReport,
        title: str | None = None,
    ) -> None:
        super().__init__(ansi_color=no_color())
        self.inspector = EggInspectorScreen(egg, record, report=report, title=title)

    def on_mount(self) -> None:
        self.push_screen(self.inspector, lambda _result: self.exit())

    def action_help(self) -> None:
        from tui.ui.screens.help import HelpScreen  # deferred: off the start path

        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
        else:
            self.push_screen(HelpScreen())
