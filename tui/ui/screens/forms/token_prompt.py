"""Type a token for this session: a password field whose value lives in memory only.

For a box with no ``ROOST_TOKEN``, no ``gh`` and no config token (a shared SSH host): the token
is handed to the issue client and nowhere else: never written to the outbox, a draft, the cache
or a log, never drawn (the field masks it), never sent to any origin but the write URL's.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from tui.ui.screens.dialog import ClosingModal
from tui.ui.stylesheets import sheets
from tui.ui.widgets.editors import OrderedInput
from tui.untrusted import clean_line

__all__ = ["TokenPrompt"]


class TokenPrompt(ClosingModal[str | None]):
    """Dismissed with the typed token, or ``None`` (``escape``)."""

    CSS_PATH = sheets("forms")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="token.cancel"),
    ]

    def __init__(self, repo: str, origin: str, *, why: str = "") -> None:
        super().__init__()
        self.repo = repo
        self.origin = origin
        self.why = why

    def compose(self) -> ComposeResult:
        with Vertical(id="token-dialog"):
            yield Static(
                Content.assemble(("Token for ", "bold"), (clean_line(self.repo, 60), "bold")),
                id="token-title",
            )
            if self.why:
                yield Static(Content(self.why).stylize("$text-warning"), id="token-why")
            yield Static(
                Content(
                    f"Sent only to {clean_line(self.origin, 60)}. Kept in memory for this "
                    "session: never saved, logged or shown. Needs Issues: write (a classic "
                    "token: the repo scope)."
                ),
                id="token-about",
            )
            yield OrderedInput(
                password=True,
                placeholder="ghp_… or github_pat_…",
                id="token-input",
                compact=True,
            )
            yield Static("", id="token-problem")
            yield Static(
                Content.assemble(("enter", "bold"), " use it   ", ("escape", "bold"), " cancel"),
                id="token-keys",
            )

    def on_mount(self) -> None:
        self.query_one("#token-problem", Static).display = False
        self.query_one(Input).focus()

    @on(Input.Submitted, "#token-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        token = event.value.strip()
        problem = ""
        if not token:
            problem = "Type or paste the token, or press escape."
        elif any(c.isspace() or not c.isprintable() for c in token):
            problem = "A token has no spaces or control characters: paste it again."
        if problem:
            box = self.query_one("#token-problem", Static)
            box.update(Content(problem).stylize("$text-error"))
            box.display = True
            return
        self.dismiss(token)

    def action_cancel(self) -> None:
        self.dismiss(None)
