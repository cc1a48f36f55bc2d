"""Sending an action again as a new one: a copy of an outbox entry, once its cause is fixed.

A retry sends *the same* entry (same nonce, so it is looked up first and never made twice) and
is refused where it would fail the same way: a rejected action stays rejected. Sending again is
something else: a new entry, with a new nonce, from a copy of the old one's payload (changed
where the person says), validated like any new action; the old entry is left as it was. The
CLI's `roost outbox resend ID` and the Outbox screen's "edit a copy" both start here.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from tui.actions.catalog import ActionSpec, get_action
from tui.actions.drafts import Draft
from tui.actions.form_values import values_from_payload
from tui.actions.issue_body import new_nonce
from tui.actions.outbox import Entry

__all__ = ["RESENDABLE", "draft_from_entry", "payload_copy", "resend_refusal"]

#: The states an entry may be sent again from: its fate is known, and nothing of it is in
#: flight (a failure, a verdict, or its effect seen).
RESENDABLE = frozenset({"failed", "rejected", "accepted", "applied"})


def resend_refusal(entry: Entry) -> str | None:
    """Why a copy of ``entry`` must not be sent (plain text, in the words of the outbox: the
    CLI and the screen add their own command or key), or ``None`` when it may."""
    if entry.state == "damaged":
        return f"its file is damaged ({entry.reason}): there is nothing to copy; drop it"
    if entry.state == "draft":
        return "it was never sent: a retry sends it"
    if entry.state in ("sending", "unknown") or (entry.state == "failed" and entry.maybe_sent):
        return (
            "it may already be on the platform, and a copy would be a second action: a retry "
            "looks it up first, then sends it only if it is not there"
        )
    if entry.state not in RESENDABLE:
        number = f" as #{entry.number}" if entry.number else ""
        return (
            f"it is on the platform{number} and waits for the processor's verdict "
            f"({entry.state}): a copy would be a second action"
        )
    return None


def payload_copy(entry: Entry) -> dict[str, Any]:
    """A deep copy of what ``entry`` sent (changing it never touches the entry)."""
    return copy.deepcopy(dict(entry.payload))


def draft_from_entry(entry: Entry, catalog: Mapping[str, ActionSpec] | None = None) -> Draft:
    """A new draft of ``entry``'s action, its form values filled from a copy of the entry's
    payload, with a new nonce (what the Outbox screen's "edit a copy" opens a form with).

    ``catalog``: the deployment's merged catalog (the built-in one when None); a field it no
    longer has is left out, a value that no longer fits shows its problem in the form.
    Raises ``ValueError`` with :func:`resend_refusal`'s words when the entry must not be sent
    again, and ``KeyError`` when the catalog has no such action any more."""
    refusal = resend_refusal(entry)
    if refusal is not None:
        raise ValueError(refusal)
    spec = get_action(entry.action, catalog)
    return Draft(
        action=spec.name,
        values=values_from_payload(spec, payload_copy(entry)),
        payload={},
        nonce=new_nonce(),
    )
