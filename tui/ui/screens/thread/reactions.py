"""``+`` in a thread: GitHub's eight reactions, one key each (``1``–``8``), or the list and
``enter``; ``escape`` leaves. Dismissed with the reaction's GraphQL name (``THUMBS_UP``…)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.conversation.thread import REACTIONS
from tui.ui.screens.dialog import ClosingModal
from tui.ui.stylesheets import sheets

__all__ = ["ReactionPicker"]


class ReactionPicker(ClosingModal[str | None]):
    """Pick one of GitHub's reactions for ``what`` ("the post", "this comment")."""

    CSS_PATH = sheets("help", "thread")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "pick('')", "Close", id="reactions.close"),
        *(
            Binding(str(n), f"pick({content!r})", f"React {emoji}", show=False, id=f"reactions.{n}")
            for n, (_rest, content, emoji) in enumerate(REACTIONS, 1)
        ),
    ]

    def __init__(self, what: str) -> None:
        super().__init__(id="reaction-picker")
        self.what = what

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="sort-dialog"):
            yield Static(Content(f"React to {self.what}").stylize("bold"), id="help-title")
            yield OptionList(
                *(
                    Option(
                        Content.assemble((f"{n} ", "bold $accent"), f"{emoji}  {content.lower()}"),
                        id=content,
                    )
                    for n, (_rest, content, emoji) in enumerate(REACTIONS, 1)
                ),
                id="sort-options",
            )
            yield Static(Content("1–8 or enter reacts · escape leaves"), id="help-hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_pick(self, content: str) -> None:
        self.dismiss(content or None)
