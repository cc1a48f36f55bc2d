"""Modals that keys close (:class:`ClosingModal`), and the frame of roost's read-only dialogs
(problems, a link): title, body, hint; `escape` or `q` closes. Their look is the help screen's
(styles/help.tcss)."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.ui.stylesheets import sheets

__all__ = ["ClosingModal", "Dialog"]

R = TypeVar("R")


async def _nothing() -> None:
    return None


class ClosingModal(ModalScreen[R]):
    """A modal that a key closes, closed once. Textual's ``dismiss`` pops whatever screen is on
    top, so when an earlier key of the same burst closed this one, a later key's close must do
    nothing (else it closes the screen below, or leaves none); such keys, still on their way
    to this screen's widgets, go on to act where it closed to (:attr:`closed`: a subclass's
    own key handler lets them pass)."""

    _dismissed = False

    @property
    def closed(self) -> bool:
        return self._dismissed or not self.is_current

    def dismiss(self, result: R | None = None) -> AwaitComplete:
        if self.closed:
            return AwaitComplete(_nothing())
        self._dismissed = True
        return super().dismiss(result)


class Dialog(ClosingModal[None]):
    """Subclasses set ``HEADING``, ``HINT``, ``DIALOG_CLASS`` and write :meth:`compose_body`."""

    CSS_PATH = sheets("help")
    HEADING: ClassVar[str] = ""
    HINT: str = "escape closes"  # a class default; an instance may say more
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
