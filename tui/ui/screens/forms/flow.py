"""``n`` → picker → form → ``on_submit(draft)`` (:func:`open_action_flow`), and an answer from
a thread straight to its form (:func:`open_action_form`).

The app's write side (tui/ui/write_controller.py) calls both and passes what it owns
(attributes down): the current snapshot (completion), the context under the cursor, where drafts
are kept, the login, the deployment's catalog, how a request is composed, and what to do with a
submitted draft (the outbox).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from textual.app import App

from tui.actions.action_context import ActionContext, Suggestion
from tui.actions.catalog import CATALOG, ActionSpec
from tui.actions.completion import References
from tui.actions.drafts import Draft, DraftKeeper
from tui.actions.form_values import values_from_payload
from tui.network.store import Snapshot
from tui.ui.screens.forms.form import ActionForm, Composer, WhoAmI
from tui.ui.screens.forms.picker import ActionPicker
from tui.ui.widgets.text import short

__all__ = ["OnSubmit", "open_action_flow", "open_action_form"]

#: Takes a submitted draft (the outbox persists and sends it); raising keeps the draft.
OnSubmit = Callable[[Draft], object]


def open_action_form(
    app: App,
    action: str,
    *,
    prefill: Mapping[str, Any] | None = None,
    pinned: bool = False,
    references: References | None = None,
    drafts: DraftKeeper | None = None,
    on_submit: OnSubmit,
    login: str | None = None,
    whoami: WhoAmI | None = None,
    catalog: Mapping[str, ActionSpec] | None = None,
    compose: Composer | None = None,
) -> ActionForm:
    """Push the form of ``action``: the kept draft when there is one, else ``prefill``.
    ``pinned``: what ``prefill`` names is the point of this form (the thread's post, the
    comment replied to): a kept draft about something else is left for its own form."""
    table = CATALOG if catalog is None else catalog
    spec = table[action]
    values = values_from_payload(spec, prefill or {})
    kept = drafts.kept(action) if drafts is not None else None
    if kept is not None and pinned and any(kept.values.get(k) != v for k, v in values.items()):
        kept = None
    nonce = None
    if kept is not None:
        # the kept draft wins; the context only fills what it left empty
        values = {**values, **{k: v for k, v in kept.values.items() if v not in ("", False)}}
        nonce = kept.nonce

    def build(values: dict[str, Any], nonce: str | None, restored: bool) -> ActionForm:
        return ActionForm(
            spec,
            values=values,
            nonce=nonce,
            login=login,
            references=references,
            keeper=drafts,
            whoami=whoami,
            restored=restored,
            compose=compose,
        )

    def submitted(draft: Draft | None) -> None:
        if draft is None:
            return
        try:
            on_submit(draft)
        except Exception as exc:  # the outbox failed: nothing typed may be lost
            try:
                if drafts is not None:
                    drafts.keep(draft)
            except (OSError, ValueError) as failed:
                # nowhere to keep it either: the form opens again with what was typed
                app.notify(
                    f"Not sent: {short(exc, 200)}. The draft could not be kept either "
                    f"({short(failed, 120)}): the form is open again with what you typed.",
                    severity="error",
                    markup=False,
                )
                app.push_screen(build(dict(draft.values), draft.nonce, False), submitted)
                return
            app.notify(
                f"Not sent: {short(exc, 200)}. The draft is kept.",
                severity="error",
                markup=False,
            )
            return
        if drafts is not None:
            drafts.forget(action)

    form = build(values, nonce, kept is not None)
    app.push_screen(form, submitted)
    return form


def open_action_flow(
    app: App,
    context: ActionContext,
    snapshot: Snapshot,
    drafts: DraftKeeper | None,
    *,
    on_submit: OnSubmit,
    login: str | None = None,
    whoami: WhoAmI | None = None,
    catalog: Mapping[str, ActionSpec] | None = None,
    compose: Composer | None = None,
) -> None:
    """Open the action picker for ``context``; the chosen action's form follows (its request
    made by ``compose``: the write side's, which knows how the deployment takes posts)."""
    form = partial(
        open_action_form,
        app,
        references=References(snapshot),
        drafts=drafts,
        on_submit=on_submit,
        login=login,
        whoami=whoami,
        catalog=catalog,
        compose=compose,
    )

    def picked(choice: Suggestion | None) -> None:
        if choice is not None:
            form(choice.action, prefill=choice.prefill)

    app.push_screen(ActionPicker(context, catalog, drafts), picked)
