"""The one question a form may ask: throw away what was typed (closing where no draft can be
kept, or ``ctrl+r``: the kept draft too)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from tui.ui.screens.dialog import ClosingModal
from tui.ui.stylesheets import sheets

__all__ = ["DiscardConfirm"]


#: Escape on a form with nothing to keep the draft in.
NOTHING_KEPT = "No draft can be kept here: closing loses it."


class DiscardConfirm(ClosingModal[bool]):
    """``y`` discards, ``n`` or ``escape`` goes back to the form."""

    CSS_PATH = sheets("forms")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Discard", id="form.discard.yes"),
        Binding("n", "answer(False)", "Keep editing", id="form.discard.no"),
        Binding("escape", "answer(False)", "Keep editing", show=False, id="form.discard.back"),
    ]

    def __init__(self, consequence: str = NOTHING_KEPT) -> None:
        super().__init__()
        self.consequence = consequence

    def compose(self) -> ComposeResult:
        with Vertical(id="discard-dialog"):
            yield Static(Content("Discard what you typed?").stylize("bold"))
            yield Static(Content(self.consequence))
            yield Static(
                Content.assemble(("y", "bold"), " discard   ", ("n", "bold"), " keep editing")
            )

    def action_answer(self, discard: bool) -> None:
        self.dismiss(discard)
