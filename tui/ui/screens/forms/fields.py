"""One row of a form per catalog field: label (with the required mark), editor, help, problems.

The editor follows the field's type (``form_values.widget_kind``). A field that refers to
agents, channels, proposals or discussions gets a completion list from the snapshot's
:class:`~tui.actions.completion.References`, and a warning beside it when what it holds is not
in the network's state (the state can lag: it never stops the form). Rows never reach into the
form: they post :class:`FieldRow.Edited` and the form re-validates and re-draws the preview.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, Input, OptionList, Select, Static, TextArea
from textual.widgets.option_list import Option

from tui.actions.catalog import FieldSpec
from tui.actions.completion import CHECKED_KINDS, Completion, References
from tui.actions.drafts import FormValue
from tui.actions.form_values import NULL_WORD, field_messages, parse_value, widget_kind
from tui.ui.widgets.editors import OrderedInput, OrderedKeys
from tui.untrusted import clean

__all__ = ["COMPLETIONS_SHOWN", "FieldRow", "field_row"]

COMPLETIONS_SHOWN = 6


def _heading(spec: FieldSpec) -> Content:
    """The row's first line: label, required mark, then the help in muted text."""
    parts = [clean(spec.help)] if spec.help else []
    kind = widget_kind(spec)
    if kind == "lines":
        parts.append("one per line")
    if spec.nullable:
        parts.append(f"type {NULL_WORD} to clear it")
    if spec.refers_to and kind in ("input", "lines"):
        parts.append("\u2191\u2193 enter: complete")
    if spec.default is not None:
        parts.append(f"default {clean(str(spec.default))}")
    if spec.unchecked:  # the deployment's rules roost does not enforce: shown, so known
        parts.append("not checked here: " + "; ".join(clean(rule) for rule in spec.unchecked))
    mark = (" *", "bold $text-error") if spec.required else (" (optional)", "$text-muted")
    help_text = (" \u00b7 " + " \u00b7 ".join(parts)) if parts else ""
    return Content.assemble((clean(spec.label), "bold"), mark, (help_text, "$text-muted"))


class OrderedTextArea(OrderedKeys, TextArea):
    """A ``TextArea`` whose editing keys act in the order they were typed (see
    :mod:`tui.ui.widgets.editors`)."""


class FieldRow(Vertical):
    """A field's label, editor, help line and problems; ``value`` is what was typed."""

    @dataclass(eq=False)
    class Edited(Message):
        """The user changed the field called ``name``."""

        row: FieldRow
        name: str

    DEFAULT_CLASSES = "field-row"

    def __init__(self, spec: FieldSpec, value: FormValue | None = None) -> None:
        super().__init__(id=f"row-{spec.name}")
        self.spec = spec
        if isinstance(value, str):
            # text from outside the keyboard (a context's id, a kept draft) is drawn by the
            # editor: control characters made visible, like any service text
            value = clean(value, multiline=widget_kind(spec) != "input")
        self.initial = value
        self.touched = False

    # ---------------------------------------------------------------- the editor

    def make_editor(self) -> Widget:
        spec, value = self.spec, self.initial
        kind = widget_kind(spec)
        editor_id = f"field-{spec.name}"
        if kind == "checkbox":
            return Checkbox(Content(clean(spec.label)), value=bool(value), id=editor_id)
        if kind == "select":
            options = [(Content(clean(choice)), choice) for choice in spec.choices or ()]
            chosen = value if isinstance(value, str) and value in (spec.choices or ()) else None
            return Select(
                options,
                prompt="choose\u2026",
                allow_blank=True,
                value=chosen if chosen is not None else Select.NULL,
                id=editor_id,
                compact=True,
            )
        text = value if isinstance(value, str) else ""
        if kind in ("textarea", "lines"):
            area = OrderedTextArea(
                text, id=editor_id, soft_wrap=True, tab_behavior="focus", compact=True
            )
            area.show_line_numbers = kind == "lines"
            return area
        return OrderedInput(
            text,
            id=editor_id,
            type="integer" if kind == "integer" else "text",
            select_on_focus=False,
            compact=True,
        )

    def compose(self) -> ComposeResult:
        yield Static(_heading(self.spec), classes="field-label")
        yield self.make_editor()
        yield Static("", classes="field-problems")

    @property
    def editor(self) -> Widget:
        return self.query_one(f"#field-{self.spec.name}")

    @property
    def value(self) -> FormValue:
        editor = self.editor
        if isinstance(editor, Checkbox):
            return editor.value
        if isinstance(editor, Select):
            chosen = editor.value
            return chosen if isinstance(chosen, str) else ""
        if isinstance(editor, TextArea):
            return editor.text
        assert isinstance(editor, Input)
        return editor.value

    def set_text(self, text: str) -> None:
        """Put ``text`` into a text editor (from ``$EDITOR`` or a completion), control
        characters made visible: the editor draws what it holds."""
        editor = self.editor
        if isinstance(editor, TextArea):
            editor.load_text(clean(text, multiline=True))
        elif isinstance(editor, Input):
            editor.value = clean(" ".join(text.splitlines()) if "\n" in text else text)
            editor.cursor_position = len(editor.value)

    @property
    def changed(self) -> bool:
        """Whether the value differs from the one the row opened with."""
        blank: FormValue = False if widget_kind(self.spec) == "checkbox" else ""
        return self.value != (self.initial if self.initial is not None else blank)

    @property
    def edits_text(self) -> bool:
        """Whether the editor holds text (``$EDITOR`` can edit it)."""
        return isinstance(self.editor, Input | TextArea)

    # ---------------------------------------------------------------- problems

    def problems(self) -> list[str]:
        return field_messages(self.spec, self.value)

    def show_problems(self, messages: list[str] | None = None) -> None:
        """Draw ``messages`` (default: this field's own) under the editor."""
        if messages is None:
            messages = self.problems() if self.touched else []
        box = self.query_one(".field-problems", Static)
        if messages:
            box.update(Content("\u2717 " + "; ".join(clean(m) for m in messages)))
        else:
            box.update("")
        box.display = bool(messages)
        self.set_class(bool(messages), "-invalid")

    def on_mount(self) -> None:
        self.show_problems([])

    def on_descendant_focus(self) -> None:
        # the whole row in view (label and problems too), not only the editor
        self.call_after_refresh(self.scroll_visible, animate=False)

    @on(Input.Changed)
    @on(TextArea.Changed)
    @on(Checkbox.Changed)
    @on(Select.Changed)
    def _edited(self, event: Message) -> None:
        event.stop()
        if not self.touched and not self.changed:
            return  # the editor reporting its first value, not an edit
        self.touched = True
        self.show_problems()
        self.post_message(self.Edited(self, self.spec.name))


class CompletingRow(FieldRow):
    """A field with completion of ids from the current snapshot.

    While completions show, ``up``/``down`` move through them and ``enter`` takes one; at all
    other times these keys belong to the editor (the bindings are switched off).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "down",
            "completion(1)",
            "Next completion",
            show=False,
            priority=True,
            id="form.completion.next",
        ),
        Binding(
            "up",
            "completion(-1)",
            "Previous completion",
            show=False,
            priority=True,
            id="form.completion.prev",
        ),
        Binding(
            "enter", "take", "Take completion", show=False, priority=True, id="form.completion.take"
        ),
    ]

    #: Offer the first ids before anything is typed (a blank line of a list offers nothing).
    complete_empty: ClassVar[bool] = True

    def __init__(
        self, spec: FieldSpec, value: FormValue | None, references: References | None
    ) -> None:
        super().__init__(spec, value)
        self.references = references
        self.shown: list[Completion] = []

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield Static("", classes="field-warning")
        completions = OptionList(id=f"completions-{self.spec.name}", classes="completions")
        completions.can_focus = False
        completions.display = False
        yield completions

    @property
    def completions(self) -> OptionList:
        return self.query_one(".completions", OptionList)

    def query_text(self) -> str:
        """What is being completed (the field, or the line under the cursor)."""
        raise NotImplementedError

    def take(self, key: str) -> None:
        """Put the chosen ``key`` where :meth:`query_text` came from."""
        raise NotImplementedError

    def complete(self) -> None:
        """Show the completions of :meth:`query_text` (hidden when there is nothing to type,
        no match, or the text is already an exact id)."""
        kind = self.spec.refers_to
        if self.references is None or kind is None or not self.references.built(kind):
            return  # the form is still building the index; it calls again when done
        query = self.query_text()
        found = self.references.search(kind, query, COMPLETIONS_SHOWN)
        if not query and not self.complete_empty:
            found = []
        if any(item.key == query for item in found):
            found = []
        self.shown = found
        box = self.completions
        box.clear_options()
        box.add_options([Option(Content(item.line)) for item in found])
        box.display = bool(found) and self.editor.has_focus
        if found:
            box.highlighted = 0
        self.show_warning()

    def show_problems(self, messages: list[str] | None = None) -> None:
        super().show_problems(messages)
        self.show_warning()

    def show_warning(self) -> None:
        """Say beside the field when what it holds is not in the network's state (once the
        form has built the index: nothing is built here, on the event loop). Not while
        completions are offered: an id half typed is not yet a mistake."""
        kind, references = self.spec.refers_to, self.references
        said = None
        completing = self.completions.display
        if (
            references is not None
            and kind in CHECKED_KINDS
            and references.built(kind)
            and not completing
        ):
            value, _problem = parse_value(self.spec, self.value)
            said = references.unknown(kind, value)
        box = self.query_one(".field-warning", Static)
        box.update(Content("\u26a0 " + said) if said else "")
        box.display = bool(said)

    def hide_completions(self) -> bool:
        """Hide the completions; whether they were shown (escape closes them first)."""
        shown = self.completions.display
        self.completions.display = False
        self.show_warning()
        return shown

    def on_descendant_focus(self) -> None:
        super().on_descendant_focus()
        self.complete()

    def on_descendant_blur(self) -> None:
        self.hide_completions()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("completion", "take"):
            return self.completions.display and bool(self.shown)
        return True

    def action_completion(self, step: int) -> None:
        box = self.completions
        current = box.highlighted or 0
        box.highlighted = (current + step) % len(self.shown)

    def action_take(self) -> None:
        highlighted = self.completions.highlighted
        if highlighted is not None and highlighted < len(self.shown):
            self.take(self.shown[highlighted].key)
        self.hide_completions()

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.take(self.shown[event.option_index].key)
        self.hide_completions()
        self.editor.focus()


class ReferenceRow(CompletingRow):
    """A one-line field holding one id (``target_agent``, ``channel``, ``proposal_id``)."""

    def query_text(self) -> str:
        value = self.value
        return value if isinstance(value, str) else ""

    def take(self, key: str) -> None:
        self.set_text(key)

    @on(Input.Changed)
    def _typed(self) -> None:
        self.complete()


class ReferenceLinesRow(CompletingRow):
    """A list of ids, one per line (``subscribed_channels``): the line under the cursor is
    completed, and taking a completion starts the next line."""

    complete_empty = False

    def _area(self) -> TextArea:
        editor = self.editor
        assert isinstance(editor, TextArea)
        return editor

    def query_text(self) -> str:
        area = self._area()
        return area.document.get_line(area.cursor_location[0]).strip()

    def take(self, key: str) -> None:
        """Put ``key`` on the cursor's line and go on to a blank line for the next item (the
        one below if it is blank, else a new one): what is typed next is never glued to it."""
        area = self._area()
        row = area.cursor_location[0]
        line = area.document.get_line(row)
        key = clean(key)
        area.replace(key, (row, 0), (row, len(line)))
        below = row + 1
        if below >= area.document.line_count or area.document.get_line(below).strip():
            area.insert("\n", (row, len(key)))
        area.move_cursor((below, 0))

    @on(TextArea.Changed)
    @on(TextArea.SelectionChanged)
    def _moved(self) -> None:
        self.complete()


def field_row(spec: FieldSpec, value: FormValue | None, references: References | None) -> FieldRow:
    """The row that edits ``spec``: with completion when it refers to something we know."""
    kind = widget_kind(spec)
    if spec.refers_to and kind == "input":
        return ReferenceRow(spec, value, references)
    if spec.refers_to and kind == "lines":
        return ReferenceLinesRow(spec, value, references)
    return FieldRow(spec, value)
