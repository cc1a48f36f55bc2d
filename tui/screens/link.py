"""Where no browser opens (issue 12 item 5): the link, shown as a terminal hyperlink (OSC 8) to
click, after it was copied with OSC 52; `escape` closes. Never says a browser opened."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.style import Style
from textual.widgets import Static

from tui.stylesheets import sheets
from tui.untrusted import clean

__all__ = ["LinkScreen", "link_content"]


def link_content(url: str) -> Content:
    """``url`` as text that terminals with OSC 8 make clickable (never parsed as markup)."""
    text = clean(url)
    return Content(text).stylize(Style(link=text, underline=True))


class LinkScreen(ModalScreen[None]):
    """The link that could not be opened, and why."""

    CSS_PATH = sheets("help")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="link.close"),
        Binding("q", "close", "Close", show=False, id="link.close2"),
        Binding("enter", "close", "Close", show=False, id="link.close3"),
    ]

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(id="link-screen")
        self.url = url
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="link-dialog"):
            yield Static(Content("roost · open a link").stylize("bold"), id="help-title")
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
            yield Static(Content("escape closes"), id="help-hint")

    def action_close(self) -> None:
        self.dismiss(None)
