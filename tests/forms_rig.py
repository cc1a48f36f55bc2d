"""A small host app for the action forms (not RoostApp) and a demo snapshot from the generator.

The host binds ``n`` to :func:`tui.ui.screens.forms.open_action_flow` the way the app will, keeps
drafts in memory and records what was submitted.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static
from textual_idle import settle

from tui.actions.catalog import ActionSpec
from tui.network.models import parse_state
from tui.network.store import FileState, Snapshot
from tui.sandbox.generator import generate_state, serialize
from tui.ui.screens.forms import ActionContext, Draft, DraftKeeper, MemoryDrafts, open_action_flow
from tui.ui.screens.forms.form import ActionForm, WhoAmI


def demo_snapshot(agents: int = 300, docs: dict | None = None) -> Snapshot:
    """A verified snapshot of the demo network (or of ``docs``), without a store."""
    docs = generate_state(seed=7, agents=agents) if docs is None else docs
    files = {
        name: FileState(name, model=parse_state(name, serialize(doc)), integrity="verified")
        for name, doc in docs.items()
    }
    return Snapshot(MappingProxyType(files), generation=1)


class FormsHost(App[None]):
    """``n`` opens the action flow for ``context``; submitted drafts land in ``submitted``."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("n", "compose", "New action")]

    def __init__(
        self,
        snapshot: Snapshot,
        context: ActionContext | None = None,
        *,
        drafts: DraftKeeper | None = None,
        keep_drafts: bool = True,
        login: str | None = "kody-w",
        whoami: WhoAmI | None = None,
        catalog: dict[str, ActionSpec] | None = None,
    ) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.context = context or ActionContext()
        self.drafts = (drafts or MemoryDrafts()) if keep_drafts else None
        self.login = login
        self.whoami = whoami
        self.catalog = catalog
        self.submitted: list[Draft] = []

    def compose(self) -> ComposeResult:
        yield Static("host screen: press n")

    def submit(self, draft: Draft) -> None:
        """What the outbox will do; tests replace it to make it fail."""
        self.submitted.append(draft)

    def action_compose(self) -> None:
        open_action_flow(
            self,
            self.context,
            self.snapshot,
            self.drafts,
            on_submit=self.submit,
            login=self.login,
            whoami=self.whoami,
            catalog=self.catalog,
        )


async def open_form(pilot, query: str) -> ActionForm:
    """``n``, type ``query`` in the picker, ``enter``: the form of the best match."""
    await pilot.press("n")
    await pilot.pause()
    await pilot.press(*query, "enter")
    await settle(pilot)
    form = pilot.app.screen
    assert isinstance(form, ActionForm), form
    return form
