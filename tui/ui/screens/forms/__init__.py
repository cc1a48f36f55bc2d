"""Action forms generated from the catalog: the picker ``n`` opens, one generic form, its
field widgets, the live issue preview, completion from the snapshot.

The app's write side calls :func:`open_action_flow` (``n``) and :func:`open_action_form` (an
answer from a thread); everything else here is its parts. Drafts, form values, completion and
the action context hold no Textual code: they are in the headless core (tui/actions/).
"""

from __future__ import annotations

from tui.actions.action_context import ActionContext, Suggestion
from tui.actions.drafts import Draft, DraftKeeper, FileDrafts, MemoryDrafts
from tui.ui.screens.forms.flow import open_action_flow, open_action_form

__all__ = [
    "ActionContext",
    "Draft",
    "DraftKeeper",
    "FileDrafts",
    "MemoryDrafts",
    "Suggestion",
    "open_action_flow",
    "open_action_form",
]
