"""A link shown in full before anything opens it. Where no browser opens: the link, shown as
a terminal hyperlink (OSC 8) to click, after it was copied with OSC 52; `escape` closes. Never
says a browser opened. Where one can (a link someone on the network wrote, from a thread): the
link in full, and `enter` opens it in the browser, `escape` leaves it closed.

The link is on one line, so that a terminal's own selection copies it whole: as wide as the
terminal allows, and cut in the middle only when even that is too narrow (then the hyperlink
and the clipboard still hold the whole link, and the dialog says so)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.style import Style
from textual.widget import Widget
from textual.widgets import Static

from tui.ui.screens.dialog import Dialog
from tui.ui.widgets.text import middle_cut
from tui.untrusted import clean

__all__ = ["LinkLine", "LinkScreen", "link_content"]

CUT_NOTE = "(cut in the middle to fit: the link and your clipboard hold all of it)"


def link_content(url: str, width: int | None = None) -> Content:
    """``url`` as text that terminals with OSC 8 make clickable (never parsed as markup), in
    ``width`` cells (cut in the middle when longer); the hyperlink is the whole URL."""
    text = clean(url)
    shown = text if width is None else middle_cut(text, width)
    return Content(shown).stylize(Style(link=text, underline=True))


class LinkLine(Widget):
    """One line holding the link: whole when it fits, else cut in the middle."""

    def __init__(self, url: str, *, id: str | None = None) -> None:  # noqa: A002 - Textual's
        super().__init__(id=id)
        self.url = url

    @property
    def cut(self) -> bool:
        """Whether the line is too narrow for the whole link."""
        return self.size.width < cell_len(clean(self.url))

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return cell_len(clean(self.url))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1

    def render(self) -> Content:
        return link_content(self.url, self.size.width)

    @dataclass(eq=False)
    class Fitted(Message):
        """The line got its width: ``cut`` when the link does not fit it whole."""

        cut: bool

    def on_resize(self) -> None:
        self.post_message(self.Fitted(self.cut))


class LinkScreen(Dialog):
    """The link that could not be opened, and why; with no ``reason``, the link a browser
    will open on ``enter`` (dismissed with True)."""

    HEADING = "roost · open a link"
    DIALOG_CLASS = "link-dialog fit-link"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", "Close", show=False, id="link.close"),
        Binding("escape", "leave", "Close", id="link.leave"),
        Binding("q", "leave", "Close", show=False, id="link.leave2"),
    ]

    def __init__(self, url: str, reason: str | None) -> None:
        super().__init__(id="link-screen")
        self.url = url
        self.reason = reason
        if reason is None:
            self.HINT = "enter opens it in your browser · escape leaves it closed"

    def compose_body(self) -> ComposeResult:
        if self.reason is None:
            text = Content("This link opens in your browser (check where it goes first):\n")
        else:
            text = Content.assemble(
                "Not opened: ",
                clean(self.reason),
                ".\nThe link was sent to your clipboard (OSC 52; some terminals refuse it)."
                "\nClick it below (or ctrl/cmd+click, as your terminal wants):\n",
            )
        yield Static(text, id="link-text")
        yield LinkLine(self.url, id="link-url")
        yield Static("", id="link-cut")

    def action_close(self) -> None:
        """``enter``: open it (when a browser can); ``escape`` and ``q`` leave it."""
        self.dismiss(self.reason is None)  # type: ignore[arg-type]

    def action_leave(self) -> None:
        self.dismiss(False)  # type: ignore[arg-type]

    def on_link_line_fitted(self, message: LinkLine.Fitted) -> None:
        note = self.query_one("#link-cut", Static)
        note.update(CUT_NOTE if message.cut else "")
        note.display = message.cut
