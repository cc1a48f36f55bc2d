"""The question `roost demo --reset` asks before the demo world is started afresh."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from tui.ui.screens.dialog import Dialog

__all__ = ["ResetDemoConfirm"]


class ResetDemoConfirm(Dialog):
    """``y`` starts a fresh demo world, ``n`` or ``escape`` keeps the current one; dismissed
    with the answer."""

    HEADING = "roost · start a fresh demo world?"
    HINT = "y start afresh · n keep it"
    DIALOG_CLASS = "link-dialog"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Start afresh", id="demo.reset.yes"),
        Binding("n", "answer(False)", "Keep it", id="demo.reset.no"),
        Binding("escape", "answer(False)", "Keep it", show=False, id="demo.reset.back"),
    ]

    def __init__(self, issues: int, entries: int) -> None:
        super().__init__(id="demo-reset-screen")
        self.issues = issues
        self.entries = entries

    def compose_body(self) -> ComposeResult:
        posted = f"{self.issues} issue{'s' if self.issues != 1 else ''} and posts so far"
        kept = f"{self.entries} outbox entr{'ies' if self.entries != 1 else 'y'}"
        yield Static(
            Content(
                f"The current world ({posted}, {kept}) is set aside, not deleted; the fresh "
                "one has its own outbox.\n"
            )
        )

    def action_answer(self, reset: bool) -> None:
        self.dismiss(reset)  # type: ignore[arg-type]
