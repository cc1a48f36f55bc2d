"""The action picker ``n`` opens: fuzzy search over the catalog, the context's actions first.

Dismissed with the :class:`~tui.actions.action_context.Suggestion` chosen (an action and the
values the context fills in) or ``None``. Matching reuses the palette's linear
:func:`~tui.ui.screens.palette.fuzzy_match`; the catalog is small, so every keystroke rescans it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.actions.action_context import ActionContext, Suggestion, suggestions
from tui.actions.catalog import CATALOG, ActionSpec
from tui.actions.drafts import DraftKeeper
from tui.ui.screens.dialog import ClosingModal
from tui.ui.screens.palette import fuzzy_match
from tui.ui.stylesheets import sheets
from tui.ui.widgets.editors import OrderedInput
from tui.untrusted import clean, truncate

__all__ = ["ActionPicker", "PickerEntry", "picker_entries"]

NAME_COLUMN = 16
PREFILL_CHARS = 28


@dataclass(frozen=True)
class PickerEntry:
    """One line of the picker: a suggestion, its action, and whether a draft of it is kept."""

    suggestion: Suggestion
    spec: ActionSpec
    drafted: bool = False

    @property
    def haystack(self) -> str:
        prefill = " ".join(str(v) for v in self.suggestion.prefill.values())
        return clean(f"{self.spec.name} {self.spec.title} {prefill}").lower()

    def prompt(self) -> Content:
        name = clean(self.spec.name)
        parts: list[tuple[str, str] | str] = [(name.ljust(NAME_COLUMN), "bold"), " "]
        if self.drafted:
            parts.append(("draft kept · ", "bold $text-warning"))
        if self.suggestion.prefill:
            filled = ", ".join(
                f"{key}={truncate(clean(value), PREFILL_CHARS)}"
                for key, value in self.suggestion.prefill.items()
            )
            parts.append((f"{filled} \u00b7 ", "$text-accent"))
        parts.append((clean(self.spec.description or self.spec.title), "$text-muted"))
        return Content.assemble(*parts)


def picker_entries(
    context: ActionContext,
    catalog: Mapping[str, ActionSpec] | None = None,
    drafts: DraftKeeper | None = None,
) -> list[PickerEntry]:
    """The context's suggestions (with prefills), then every other catalog action; those with
    a kept draft say so."""
    table = CATALOG if catalog is None else catalog

    def drafted(name: str) -> bool:
        return drafts is not None and drafts.kept(name) is not None

    entries: list[PickerEntry] = []
    suggested: set[str] = set()
    for suggestion in suggestions(context, table):
        spec = table[suggestion.action]
        entries.append(PickerEntry(suggestion, spec, drafted(spec.name)))
        suggested.add(suggestion.action)
    for name, spec in table.items():
        if name not in suggested:
            entries.append(PickerEntry(Suggestion(name), spec, drafted(name)))
    return entries


def _context_line(context: ActionContext) -> Content:
    if context.kind is None or not context.key:
        return Content(
            "type to filter \u00b7 \u2191\u2193 choose \u00b7 enter opens the form"
        ).stylize("$text-muted")
    return Content.assemble(
        ("on ", "$text-muted"),
        (context.kind, "$text-muted"),
        " ",
        (truncate(clean(context.key), 60), "bold"),
        ("  \u00b7 type to filter \u00b7 enter opens", "$text-muted"),
    )


class ActionPicker(ClosingModal[Suggestion | None]):
    """A filter field over the catalog's actions; ``enter`` picks, ``escape`` cancels."""

    CSS_PATH = sheets("forms")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="picker.cancel"),
        Binding("down", "move(1)", "Next", show=False, priority=True, id="picker.next"),
        Binding("up", "move(-1)", "Previous", show=False, priority=True, id="picker.prev"),
    ]

    def __init__(
        self,
        context: ActionContext,
        catalog: Mapping[str, ActionSpec] | None = None,
        drafts: DraftKeeper | None = None,
    ) -> None:
        super().__init__()
        self.context = context
        self.entries = picker_entries(context, catalog, drafts)
        self.shown: list[PickerEntry] = list(self.entries)

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-dialog"):
            yield Static(Content("New action").stylize("bold"), id="picker-title")
            yield Static(_context_line(self.context), id="picker-context")
            yield OrderedInput(placeholder="action name\u2026", id="picker-filter")
            actions = OptionList(id="picker-actions")
            actions.can_focus = False
            yield actions

    def on_mount(self) -> None:
        self._show(self.entries)
        self.query_one("#picker-filter", Input).focus()

    def _show(self, entries: list[PickerEntry]) -> None:
        self.shown = entries
        actions = self.query_one("#picker-actions", OptionList)
        actions.clear_options()
        actions.add_options([Option(entry.prompt()) for entry in entries])
        if entries:
            actions.highlighted = 0

    def filter(self, query: str) -> list[PickerEntry]:
        """The entries matching ``query``, best first (all, in order, for an empty query)."""
        needle = clean(query).lower().strip()
        if not needle:
            return list(self.entries)
        scored = []
        for order, entry in enumerate(self.entries):
            score, _offsets = fuzzy_match(needle, entry.haystack)
            if score > 0:
                scored.append((-score, order, entry))
        return [entry for _score, _order, entry in sorted(scored, key=lambda item: item[:2])]

    @on(Input.Changed, "#picker-filter")
    def _filtered(self, event: Input.Changed) -> None:
        self._show(self.filter(event.value))

    def action_move(self, step: int) -> None:
        actions = self.query_one("#picker-actions", OptionList)
        if not self.shown:
            return
        current = actions.highlighted if actions.highlighted is not None else -step
        actions.highlighted = max(0, min(len(self.shown) - 1, current + step))

    @on(Input.Submitted, "#picker-filter")
    def _submitted(self) -> None:
        highlighted = self.query_one("#picker-actions", OptionList).highlighted
        if highlighted is not None and self.shown:
            self.dismiss(self.shown[highlighted].suggestion)

    @on(OptionList.OptionSelected, "#picker-actions")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.shown[event.option_index].suggestion)

    def action_cancel(self) -> None:
        self.dismiss(None)
