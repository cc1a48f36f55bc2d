"""The frame of roost's read-only dialogs (problems, a link): title, body, hint; `escape` or
`q` closes. Their look is the help screen's (styles/help.tcss)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.ui.stylesheets import sheets

__all__ = ["Dialog"]


class Dialog(ModalScreen[None]):
    """Subclasses set ``HEADING``, ``HINT``, ``DIALOG_CLASS`` and write :meth:`compose_body`."""

    CSS_PATH = sheets("help")
    HEADING: ClassVar[str] = ""
    HINT: ClassVar[str] = "escape closes"
    DIALOG_CLASS: ClassVar[str] = ""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="dialog.close"),
        Binding("q", "close", "Close", show=False, id="dialog.close2"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes=self.DIALOG_CLASS):
            yield Static(Content(self.HEADING).stylize("bold"), id="help-title")
            yield from self.compose_body()
            yield Static(Content(self.HINT), id="help-hint")

    def compose_body(self) -> ComposeResult:
        yield from ()

    def action_close(self) -> None:
        self.dismiss(None)
