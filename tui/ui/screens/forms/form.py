"""The one generic action form: a typed modal built from a catalog entry.

``ActionForm(spec, ...)`` lays out one :class:`~tui.ui.screens.forms.fields.FieldRow` per field,
validates as the user types (with the catalog's own rules, through ``form_values``), shows the
exact issue it would send, and is dismissed with a validated :class:`Draft` (``ctrl+s``) or
``None`` (``escape``). On escape the typed values go to the :class:`DraftKeeper`, so nothing
typed is lost; only with no keeper and unsaved input does it ask before closing.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.actions import SkipAction
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.events import Resize
from textual.message import Message
from textual.notifications import Notification, Notify
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Select, Static

from tui.actions.catalog import ActionSpec
from tui.actions.completion import References
from tui.actions.compose import compose_request
from tui.actions.drafts import Draft, DraftKeeper, FormValue
from tui.actions.form_values import has_input, payload_from_values
from tui.actions.issue_body import new_nonce
from tui.actions.patterns import new_notices
from tui.ssh.mode import NO_EDITOR, session_role
from tui.ui.screens.forms.confirm import DiscardConfirm
from tui.ui.screens.forms.external_editor import NO_EDITOR_FOUND, editor_command
from tui.ui.screens.forms.fields import CompletingRow, FieldRow, field_row
from tui.ui.screens.forms.preview import Composed, IssuePreview
from tui.ui.stylesheets import styles_dir
from tui.ui.textual_compat import withdraw_notification
from tui.ui.widgets.editors import KeyHold
from tui.ui.widgets.text import short
from tui.untrusted import clean, clean_line

__all__ = ["FORM_CSS", "WIDE_COLUMNS", "ActionForm", "WhoAmI"]

FORM_CSS = styles_dir() / "forms.tcss"
#: From this many columns the preview fits beside the fields and is shown at once.
WIDE_COLUMNS = 110

#: The form's widest (styles/forms.tcss: #form-dialog's max-width), border and padding included.
DIALOG_COLUMNS = 160

#: The form's keys, as its last lines show them (key, what it does).
FORM_KEYS = (
    ("ctrl+s", "submit"),
    ("esc", "close (keeps the draft)"),
    ("ctrl+r", "discard it"),
    ("ctrl+e", "editor"),
    ("ctrl+t", "preview"),
)


def keys_line(width: int) -> Content:
    """:data:`FORM_KEYS` in lines of at most ``width`` cells, a key never parted from what it
    does (a narrow terminal gets two lines rather than lose the last keys)."""
    lines: list[list[tuple[str, str]]] = [[]]
    used = 0
    for key, does in FORM_KEYS:
        cells = len(key) + 1 + len(does)
        if lines[-1] and used + 2 + cells > width:
            lines.append([])
            used = 0
        used += cells + (2 if lines[-1] else 0)
        lines[-1].append((key, does))
    parts: list[str | tuple[str, str]] = []
    for number, line in enumerate(lines):
        if number:
            parts.append("\n")
        for index, (key, does) in enumerate(line):
            parts += ["  " if index else "", (key, "bold"), f" {does}"]
    return Content.assemble(*parts)


#: Seconds after the last keystroke before the typed values are kept (a crash loses no more).
AUTOSAVE_DELAY = 1.0

#: Asks the platform who the token belongs to; None when it cannot tell.
WhoAmI = Callable[[], Awaitable[str | None]]
#: Makes the exact request of (spec, payload, nonce): (kind, request); ``ValueError`` for none.
Composer = Callable[[ActionSpec, dict, str], Composed]


@contextlib.contextmanager
def _terminal_handed_over(app: App) -> Iterator[None]:
    """Give the terminal to a child process; a headless app has none to give."""
    if app.is_headless:
        yield
        return
    with app.suspend():
        yield


class ActionForm(ModalScreen[Draft | None]):
    """A form for any catalog action; dismissed with the validated draft or ``None``."""

    CSS_PATH = FORM_CSS
    #: on_mount focuses the right field itself; Textual's auto focus would centre the first
    #: editor before any layout and scroll the first field's heading out of view.
    AUTO_FOCUS = ""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", "Submit", priority=True, id="form.submit"),
        # Priority, acted on after the keys before it (_after_pending_keys): the keys after it
        # in a burst then act where the form closed to (editors.KeyHold).
        Binding("escape", "close", "Close (keeps the draft)", priority=True, id="form.close"),
        Binding("ctrl+e", "edit_in_editor", "Edit in your editor", priority=True, id="form.editor"),
        Binding("ctrl+t", "toggle_preview", "Preview", priority=True, id="form.preview"),
        Binding("ctrl+r", "discard", "Discard the draft", priority=True, id="form.discard"),
        Binding("ctrl+g", "check_login", "Who am I acting as", id="form.whoami"),
        # Priority, so focus moves when the key is *read*: keys typed after it in the same
        # burst then go to the next field, not the one the key left (see _after_pending_keys).
        Binding("tab", "move_focus(1)", "Next field", show=False, priority=True, id="form.next"),
        Binding(
            "shift+tab",
            "move_focus(-1)",
            "Previous field",
            show=False,
            priority=True,
            id="form.previous",
        ),
        Binding("enter", "enter", "Next field", show=False, priority=True, id="form.enter"),
    ]

    @dataclass(eq=False)
    class ReferencesReady(Message):
        """The completion indexes this form's fields need are built."""

    @dataclass(eq=False)
    class LoginChecked(Message):
        """The platform said who the token acts as (``None``: it could not tell, ``problem``
        says why when the check failed)."""

        login: str | None
        problem: str = ""

    preview_shown: reactive[bool] = reactive(False, init=False)

    def __init__(
        self,
        spec: ActionSpec,
        *,
        values: Mapping[str, FormValue] | None = None,
        nonce: str | None = None,
        login: str | None = None,
        references: References | None = None,
        keeper: DraftKeeper | None = None,
        whoami: WhoAmI | None = None,
        restored: bool = False,
        compose: Composer | None = None,
    ) -> None:
        super().__init__()
        self.spec = spec
        #: How the request is made from the payload (the write side's: it knows the
        #: deployment's manifest); without one, an issue as the catalog entry says.
        self.composer: Composer = compose or compose_request
        self.initial_values: dict[str, FormValue] = dict(values or {})
        self.nonce = nonce or new_nonce()
        self.login = login
        self.references = references
        self.keeper = keeper
        self.whoami = whoami
        self.restored = restored  # opened from a kept draft: escape updates it
        self.autosave_delay = AUTOSAVE_DELAY
        self._last_field: FieldRow | None = None
        #: Whether the preview shows beside the fields when the terminal is wide (ctrl+t there).
        self._preview_when_wide = True
        self._autosave: Timer | None = None
        self._done = False  # sent or thrown away: later ctrl+s and ctrl+r do nothing
        #: The toast of ctrl+s's problems, and their number, while it may be on view.
        self._problems_told: tuple[Notification, int] | None = None

    # ---------------------------------------------------------------- layout

    def _login_line(self) -> Content:
        if self.login:
            line = Content.assemble(("acting as ", "$text-muted"), (clean(self.login), "bold"))
            registered = self._registered(self.login)
            if self.spec.name != "register_agent" and registered is False:
                line += Content.assemble(
                    ("  \u26a0 not registered here: ", "$text-warning"),
                    ("send register_agent first", "$text-warning bold"),
                )
            elif self.spec.name == "register_agent" and registered:
                line += Content.assemble(
                    ("  \u26a0 already registered: ", "$text-warning"),
                    ("update_profile", "$text-warning bold"),
                    (" changes a profile", "$text-warning"),
                )
            return line
        hint = " (press ctrl+g to check)" if self.whoami is not None else ""
        return Content(f"acting as the token's user{hint}").stylize("$text-muted")

    def _registered(self, login: str) -> bool | None:
        """Whether ``login`` is an agent of the snapshot (None: no agents loaded to tell).

        The processor records an action under the issue author's login; most actions of an
        agent the network does not know are refused, so the form says so before sending."""
        agents = self.references.snapshot.agents if self.references is not None else None
        if agents is None:
            return None
        wanted = login.casefold()  # GitHub logins are case-insensitive
        return login in agents.agents or any(k.casefold() == wanted for k in agents.agents)

    def compose(self) -> ComposeResult:
        spec = self.spec
        with Vertical(id="form-dialog"):
            yield Static(
                Content.assemble(
                    (clean(spec.title), "bold"), ("  \u00b7 ", "$text-muted"), clean(spec.name)
                ),
                id="form-title",
            )
            yield Static(self._login_line(), id="form-login")
            if spec.description:
                yield Static(Content(clean(spec.description)), id="form-description")
            with Horizontal(id="form-body"):
                with VerticalScroll(id="form-fields", can_focus=False):
                    for field in spec.fields:
                        yield field_row(field, self.initial_values.get(field.name), self.references)
                    if not spec.fields:
                        yield Static(
                            Content("This action has no fields: ctrl+s sends it."),
                            classes="field-help",
                        )
                yield IssuePreview(id="form-preview")
            yield Static(id="form-keys")

    def on_mount(self) -> None:
        for row in self.rows:
            if row.initial not in (None, "", False):
                row.touched = True  # a restored or prefilled value is checked at once
                row.show_problems()
        self._layout_for(self.app.size.width)
        self.refresh_preview()
        first = next((row for row in self.rows if not row.touched), None) or next(
            iter(self.rows), None
        )
        if first is not None:
            # Focused now (keys typed next land in it), scrolled by its row once laid out:
            # the screen's own scroll, before any layout, would centre the editor and hide the
            # first field's heading above it.
            first.editor.focus(scroll_visible=False)
        if self.references is not None:
            self._prepare_references()
        if self.login is None and self.whoami is not None:
            self._check_login(quiet=True)  # who posts decides what the processor accepts

    @work(thread=True, exclusive=True, group="form-references", exit_on_error=False)
    def _prepare_references(self) -> None:
        """Build the completion indexes off the event loop (50k agents take a moment)."""
        assert self.references is not None
        for spec in self.spec.fields:
            if spec.refers_to:
                self.references.index(spec.refers_to)
        self.post_message(self.ReferencesReady())

    @on(ReferencesReady)
    def _references_ready(self) -> None:
        for row in self.query(CompletingRow):
            row.show_warning()  # a prefilled or kept id is checked against the state now
            if row.editor.has_focus:
                row.complete()

    def on_resize(self, event: Resize) -> None:
        self._layout_for(event.size.width)

    def _layout_for(self, width: int) -> None:
        """Wide: the preview beside the fields unless ctrl+t hid it there; narrow: the fields
        (the preview would take their place and hide the field that has the focus)."""
        self.query_one("#form-keys", Static).update(keys_line(min(width, DIALOG_COLUMNS) - 4))
        wide = width >= WIDE_COLUMNS
        was_wide = self.has_class("-wide")
        if was_wide and not wide and self.preview_shown:
            self.preview_shown = False  # while still wide: the focus stays where it is
        self.set_class(wide, "-wide")
        if wide and not was_wide:
            if self.preview_shown and self.query_one(IssuePreview).has_focus:
                self._refocus_field()  # it had taken the fields' place: both show now
            self.preview_shown = self._preview_when_wide

    @property
    def rows(self) -> list[FieldRow]:
        return list(self.query(FieldRow))

    def row(self, name: str) -> FieldRow:
        return self.query_one(f"#row-{name}", FieldRow)

    # ---------------------------------------------------------------- values

    def values(self) -> dict[str, FormValue]:
        """What is typed now, by field name."""
        return {row.spec.name: row.value for row in self.rows}

    def draft(self) -> Draft:
        """The form as it stands: typed values, the payload of what is valid, the nonce."""
        payload, _problems = payload_from_values(self.spec, self.values())
        return Draft(self.spec.name, self.values(), payload, self.nonce)

    @property
    def dirty(self) -> bool:
        """Whether something was typed since the form opened."""
        return any(row.changed for row in self.rows)

    def _request_now(
        self,
    ) -> tuple[dict[str, object], dict[str, list[str]], Composed | None, str]:
        payload, problems = payload_from_values(self.spec, self.values())
        try:
            request = self.composer(self.spec, payload, self.nonce)
            error = ""
        except ValueError as exc:
            request, error = None, str(exc)
            problems.setdefault("", []).append(error)
        return payload, problems, request, error

    def refresh_preview(self) -> int:
        """Draw the request as it stands; the number of problems it has."""
        _payload, problems, request, error = self._request_now()
        listed = [
            f"{self.spec.field(name).label if name else 'payload'}: {message}"
            for name, messages in problems.items()
            for message in messages
        ]
        self.query_one(IssuePreview).show(request, listed, error)

        for notice in new_notices():  # a pattern too slow to check: said once, not enforced
            self.notify(clean_line(notice, 300), title="Contract", severity="warning", markup=False)
        return len(listed)

    @on(Input.Submitted)
    def _next_field(self, event: Input.Submitted) -> None:
        """``enter`` in a one-line field moves on, as in any form."""
        event.stop()
        self.focus_next()

    @on(FieldRow.Edited)
    def _edited(self, _event: FieldRow.Edited) -> None:
        problems = self.refresh_preview()
        if self._problems_told is not None and self._problems_told[1] != problems:
            self._tell_problems(problems, again=False)
        if self.keeper is not None:
            if self._autosave is not None:
                self._autosave.stop()
                self._autosave = None
            if self.autosave_delay > 0:
                self._autosave = self.set_timer(self.autosave_delay, self.keep_draft)
            else:
                self.call_after_refresh(self.keep_draft)

    def keep_draft(self) -> bool:
        """Hand what is typed to the keeper (nothing typed: forget the kept draft); False when
        the keeper failed (the form then stays open: closing would lose the input)."""
        if self._autosave is not None:
            self._autosave.stop()
            self._autosave = None
        if self.keeper is None:
            return False
        try:
            if not has_input(self.spec, self.values()):
                self.keeper.forget(self.spec.name)
            elif self.dirty or self.restored:
                self.keeper.keep(self.draft())
                self.restored = True  # kept now: later edits update it
        except (OSError, ValueError) as exc:
            self.notify(
                f"Could not keep the draft: {short(exc, 200)}", severity="error", markup=False
            )
            return False
        return True

    # ---------------------------------------------------------------- keys

    def _after_pending_keys(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once every editor has handled the keys already sent to it.

        A burst of keys is forwarded to the focused widget faster than it handles them, and a
        priority key (ctrl+s, ctrl+e) is acted on as soon as it is read: without this barrier,
        ``abc`` + ctrl+s in one burst would send the form as it was before ``abc``.
        """
        targets = {row.editor for row in self.rows}
        if self.focused is not None:
            targets.add(self.focused)
        pending = len(targets)
        if not pending:
            callback()
            return

        def one_drained() -> None:
            nonlocal pending
            pending -= 1
            if pending == 0 and self.is_attached:
                callback()

        for target in targets:
            target.call_later(one_drained)

    def action_move_focus(self, direction: int) -> None:
        if direction > 0:
            self.focus_next()
        else:
            self.focus_previous()

    def action_enter(self) -> None:
        """``enter`` in a one-line field moves on at once (a newline in a text area, a pick in
        a completion list or a select: the key goes on to that widget)."""
        focused = self.focused
        row = self._focused_row()
        if not isinstance(focused, Input) or row is None or isinstance(row, CompletingRow):
            raise SkipAction()
        self.focus_next()

    def action_submit(self) -> None:
        self._after_pending_keys(self._submit_now)

    def _submit_now(self) -> None:
        if self._done or not self.is_current:
            return  # a second ctrl+s of the same burst, or the form was closed before it
        payload, problems, request, _error = self._request_now()
        if problems or request is None:
            first: FieldRow | None = None
            for row in self.rows:
                row.touched = True
                row.show_problems(problems.get(row.spec.name, []))
                if first is None and problems.get(row.spec.name):
                    first = row
            if first is not None:
                self.preview_shown = self.preview_shown and self.has_class("-wide")
                first.editor.focus()
            self._tell_problems(sum(len(messages) for messages in problems.values()))
            return
        self._tell_problems(0)
        if self._autosave is not None:
            self._autosave.stop()  # the submitted draft is the caller's now
            self._autosave = None
        self._done = True
        self.dismiss(Draft(self.spec.name, self.values(), payload, self.nonce))

    def _tell_problems(self, count: int, *, again: bool = True) -> None:
        """The toast of how many problems stop ctrl+s: withdrawn once they are fixed (or the
        form closes), replaced when their number changes; ``again=False`` (an edit) only
        follows a toast still on view, it never raises one."""
        told = self._problems_told
        self._problems_told = None
        if told is not None:
            withdraw_notification(self.app, told[0])
            again = again or not told[0].has_expired
        if count and again:
            fields = "fields" if count != 1 else "field"
            note = Notification(
                f"{count} problem{'s' if count != 1 else ''}: fix the marked {fields}, then ctrl+s",
                severity="warning",
                timeout=self.app.NOTIFICATION_TIMEOUT,
                markup=False,
            )
            self.app.post_message(Notify(note))
            self._problems_told = (note, count)

    def on_unmount(self) -> None:
        self._tell_problems(0)

    def action_close(self) -> None:
        focused = self.focused
        hold = getattr(focused, "key_hold", None)
        if focused is not None and isinstance(hold, KeyHold):
            # the keys typed after escape wait for it (the focused field reads them next)
            focused.call_later(hold.start)

        def close_then_release() -> None:
            self._close_now()
            if isinstance(hold, KeyHold):
                hold.release()

        self._after_pending_keys(close_then_release)

    def _close_now(self) -> None:
        if self._done or not self.is_current:
            return  # sent, thrown away or closed by an earlier key of the same burst
        for select in self.query(Select):
            if select.expanded:  # the first escape only closes an open list
                select.expanded = False
                select.focus()
                return
        if any(row.hide_completions() for row in self.query(CompletingRow)):
            return  # the first escape only closes the completions
        if self.keeper is not None:
            if self.keep_draft():
                self.dismiss(None)
            return
        if self.dirty and has_input(self.spec, self.values()):
            self.app.push_screen(DiscardConfirm(), self._discard_answered)
            return
        self.dismiss(None)

    def _discard_answered(self, discard: bool | None) -> None:
        if discard:
            self.dismiss(None)

    def action_discard(self) -> None:
        self._after_pending_keys(self._discard_now)

    def _discard_now(self) -> None:
        """ctrl+r: throw the draft away (the one kept, and what is typed) and close; asked
        first when something is typed."""
        if self._done or not self.is_current:
            return
        if has_input(self.spec, self.values()):
            kept = " and the kept draft with it" if self.keeper is not None else ""
            self.app.push_screen(
                DiscardConfirm(f"What is typed in this form is thrown away{kept}."),
                self._throw_away_answered,
            )
            return
        self._throw_away()

    def _throw_away_answered(self, discard: bool | None) -> None:
        if discard:
            self._throw_away()

    def _throw_away(self) -> None:
        if self._autosave is not None:
            self._autosave.stop()
            self._autosave = None
        if self.keeper is not None:
            try:
                self.keeper.forget(self.spec.name)
            except OSError as exc:
                self.notify(
                    f"Could not discard the draft: {short(exc, 200)}",
                    severity="error",
                    markup=False,
                )
                return
        self._done = True  # nothing more is kept or sent from this form
        self.notify(f"{self.spec.name}: draft discarded", markup=False)
        self.dismiss(None)

    def action_toggle_preview(self) -> None:
        self.preview_shown = not self.preview_shown
        if self.has_class("-wide"):
            self._preview_when_wide = self.preview_shown  # kept across resizes

    def watch_preview_shown(self, shown: bool) -> None:
        self.set_class(shown, "-preview")
        if self.has_class("-wide"):
            return
        if shown:  # the preview takes the fields' place: keys now scroll it
            focused = self.focused
            self._last_field = next(
                (
                    node
                    for node in (focused.ancestors if focused else [])
                    if isinstance(node, FieldRow)
                ),
                None,
            )
            self.query_one(IssuePreview).focus()
        else:
            self._refocus_field()

    def _refocus_field(self) -> None:
        """Focus the field the preview took the place of (the first one if none)."""
        row = self._last_field or next(iter(self.rows), None)
        if row is not None:
            row.editor.focus()

    # ---------------------------------------------------------------- $EDITOR

    def _focused_row(self) -> FieldRow | None:
        focused = self.focused
        if focused is None:
            return None
        return next(
            (node for node in focused.ancestors_with_self if isinstance(node, FieldRow)), None
        )

    def action_edit_in_editor(self) -> None:
        self._after_pending_keys(self._edit_in_editor_now)

    def _edit_in_editor_now(self) -> None:
        row = self._focused_row()
        if row is None or not row.edits_text:
            self.notify("ctrl+e edits a text field: move to one first", markup=False)
            return
        if session_role():  # served over SSH: an editor is a shell away
            self.notify(NO_EDITOR, severity="warning", markup=False)
            return
        command = editor_command()
        if command is None:
            self.notify(NO_EDITOR_FOUND, severity="warning", markup=False)
            return
        value = row.value
        edited = self._run_editor(command, value if isinstance(value, str) else "")
        if edited is not None:
            row.set_text(edited)
            row.editor.focus()

    def _run_editor(self, command: list[str], text: str) -> str | None:
        """``text`` after the user edited it in ``command``; None when that failed."""
        shown = short(shlex.join(command), 80)
        fd, name = tempfile.mkstemp(prefix="roost-field-", suffix=".txt")
        path = Path(name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            try:
                with _terminal_handed_over(self.app):
                    completed = subprocess.run([*command, str(path)], check=False)
            except SuspendNotSupported:
                self.notify("This terminal cannot run an editor", severity="error", markup=False)
                return None
            except (OSError, ValueError) as exc:
                self.notify(f"Could not start {shown}: {exc}", severity="error", markup=False)
                return None
            if completed.returncode != 0:
                self.notify(
                    f"{shown} exited with {completed.returncode}: the field is unchanged",
                    severity="warning",
                    markup=False,
                )
                return None
            edited = path.read_text(encoding="utf-8", errors="replace")
        finally:
            path.unlink(missing_ok=True)
        return edited[:-1] if edited.endswith("\n") else edited

    # ---------------------------------------------------------------- who am I

    def action_check_login(self) -> None:
        if self.whoami is None:
            self.notify("No token check is available here", markup=False)
            return
        self._check_login()

    @work(exclusive=True, group="form-whoami", exit_on_error=False)
    async def _check_login(self, *, quiet: bool = False) -> None:
        """Ask who the token belongs to; ``quiet`` (the check made on opening) tells only
        an answer, never a failure: ctrl+g asks again and says why it failed."""
        assert self.whoami is not None
        try:
            login = await self.whoami()
        except Exception as exc:  # any failure of the check is told, never a crash
            if not quiet:
                self.post_message(self.LoginChecked(None, short(exc, 200)))
            return
        if login or not quiet:
            self.post_message(self.LoginChecked(login))

    @on(LoginChecked)
    def _login_checked(self, message: LoginChecked) -> None:
        if message.login:
            self.login = message.login
            self.query_one("#form-login", Static).update(self._login_line())
        elif message.problem:
            self.notify(
                f"Could not check the token: {message.problem}", severity="warning", markup=False
            )
        else:
            self.notify("The platform did not say who the token belongs to", markup=False)
