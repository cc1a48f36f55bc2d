"""Where no browser opens: the link, shown as a terminal hyperlink (OSC 8) to
click, after it was copied with OSC 52; `escape` closes. Never says a browser opened."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.style import Style
from textual.widgets import Static

from tui.ui.screens.dialog import Dialog
from tui.untrusted import clean

__all__ = ["LinkScreen", "link_content"]


def link_content(url: str) -> Content:
    """``url`` as text that terminals with OSC 8 make clickable (never parsed as markup)."""
    text = clean(url)
    return Content(text).stylize(Style(link=text, underline=True))


class LinkScreen(Dialog):
    """The link that could not be opened, and why."""

    HEADING = "roost · open a link"
    DIALOG_CLASS = "link-dialog"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", "Close", show=False, id="link.close"),
    ]

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(id="link-screen")
        self.url = url
        self.reason = reason

    def compose_body(self) -> ComposeResult:
        yield Static(
            Content.assemble(
                "Not opened: ",
                clean(self.reason),
                ".\nThe link was sent to your clipboard (OSC 52; some terminals refuse it)."
                "\nClick it below (or ctrl/cmd+click, as your terminal wants):\n\n",
                link_content(self.url),
            ),
            id="link-text",
        )
