"""The detail pane of a table screen: a scrollable body, a list of links, and a raw JSON view."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import msgspec
from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.network.models import dump
from tui.ui.widgets.find_text import FindScroll
from tui.untrusted import clean

__all__ = ["DetailPane", "Link", "raw_json"]

RAW_LIMIT = 200_000  # characters of raw JSON shown (a hostile document can be huge)


class Link(msgspec.Struct, frozen=True):
    """A "go to" entry: ``label`` is built by our code from clean text."""

    label: Content
    tab: str
    key: str


def raw_json(model: Any) -> str:
    """A model (or any JSON-like value) as indented JSON, cleaned for display."""
    if isinstance(model, msgspec.Struct):  # the state files' models
        value = dump(model, exclude_none=True)
    elif hasattr(model, "model_dump"):  # pydantic: boot records and eggs
        value = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    else:
        value = model
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    if len(text) > RAW_LIMIT:
        text = text[:RAW_LIMIT] + "\n… (cut)"
    return clean(text, multiline=True)


class DetailPane(FindScroll):
    """Shows one row's details; ``links`` jump to related rows on other tabs. Vim motion and
    the find (``/`` on the screen, then ``n`` / ``N``) come from :class:`FindScroll`."""

    HELP_TITLE: ClassVar[str] = "Detail pane"
    TEXT_SELECTOR: ClassVar[str] = "#detail-body"

    class Found(FindScroll.Found):
        """The find moved to another match (the screen shows "3/7")."""

    @dataclass(eq=False)
    class LinkChosen(Message):
        """A "Go to" entry was chosen."""

        link: Link

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=f"detail-pane {classes or ''}".strip())
        self.key: str | None = None
        self.raw = False
        self._links: list[Link] = []
        self._pending: tuple[str | None, Content, tuple[Link, ...], str | None, str] | None = None
        self._showing_raw = False
        self._composed = False  # its children exist (set in on_mount, after compose)
        self._asked = False  # focused on purpose (h/l): a stop even where tab passes over it

    def compose(self) -> ComposeResult:
        yield Static(Content(""), id="detail-body", markup=False)
        yield Static(Content("Go to"), id="detail-links-title", markup=False)
        yield OptionList(id="detail-links", markup=False)

    def show(
        self,
        key: str | None,
        body: Content,
        links: Sequence[Link] = (),
        *,
        raw: str | None = None,
        heading: str = "",
    ) -> None:
        """Fill the pane; with ``raw`` (when the raw view is on) the JSON replaces the body,
        under a heading that names the record (``heading``, e.g. "agent zion-1").

        A different record, or a switch between the body and the raw view, starts at the top.
        Before the pane has composed its children (it was just mounted) the content is kept and
        shown when it mounts."""
        if not self._composed:
            self.key = key
            self._pending = (key, body, tuple(links), raw, heading)
            return
        showing_raw = self.raw and raw is not None
        if key != self.key or showing_raw != self._showing_raw:
            self.scroll_home(animate=False, immediate=True)
        self.key = key
        self._showing_raw = showing_raw
        if showing_raw:
            title = f"raw JSON of {clean(heading or str(key))}"
            shown = Content.assemble(
                (title, "bold"), ("  J: back to the detail", "$text-muted"), "\n\n", raw or ""
            )
        else:
            shown = body
        self.show_text(shown)
        self._links = list(links)
        options = self.query_one("#detail-links", OptionList)
        highlighted = options.highlighted
        options.set_options(Option(link.label) for link in self._links)
        if self._links:
            options.highlighted = min(highlighted or 0, len(self._links) - 1)
        visible = bool(self._links) and not showing_raw
        options.display = visible
        self.query_one("#detail-links-title", Static).display = visible

    def allow_focus(self) -> bool:
        """Beside the table (the wide layout) a pane with links is not a stop of its own: tab
        from the table reaches the links at once, as the hint "tab then enter" says."""
        if self._asked:
            return True
        return not (self._links and not self.raw and self.screen.has_class("-wide"))

    def take_focus(self) -> None:
        """Focus the pane itself (``l``), even in the layout where tab passes over it."""
        self._asked = True
        self.focus()

    def on_blur(self) -> None:
        self._asked = False

    def on_mount(self) -> None:
        self._composed = True
        pending, self._pending = self._pending, None
        if pending is not None:
            key, body, links, raw, heading = pending
            self.show(key, body, links, raw=raw, heading=heading)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self._links):
            self.post_message(self.LinkChosen(self._links[event.option_index]))
