"""What a person is told about outbox entries: the status-bar summary and why a retry is refused.

Pure functions over :class:`~tui.actions.outbox.Entry` and state counts, shared by the Outbox
screen and the app's status bar so both say the same thing. This module is part of the headless
core: it must never import Textual.
"""

from __future__ import annotations

from collections.abc import Mapping

from tui.actions.outbox import Entry

__all__ = ["SUMMARY_STATES", "created_short", "retry_refusal", "status_summary"]

#: The states the status bar counts: an action in flight, or one that needs a person.
SUMMARY_STATES: tuple[str, ...] = ("sending", "unknown", "failed", "damaged")


def status_summary(counts: Mapping[str, int]) -> str:
    """``"outbox: 1 sending · 2 failed"``, or ``""`` when nothing is sending, unknown or failed
    (the status bar then shows nothing)."""
    parts = [f"{counts[s]} {s}" for s in SUMMARY_STATES if counts.get(s, 0) > 0]
    return "outbox: " + " · ".join(parts) if parts else ""


def retry_refusal(entry: Entry) -> str | None:
    """Why a retry must not send ``entry`` (plain text), or ``None`` when the outbox allows one.

    The outbox decides (:attr:`Entry.can_send`); this only says why not, in words.
    """
    if entry.can_send:
        return None
    if entry.state == "damaged":
        return f"its file is damaged ({entry.reason}): nothing can be sent from it; drop it"
    number = f" as #{entry.number}" if entry.number else ""
    if entry.state in ("queued", "accepted", "applied"):
        return f"already on the platform{number} ({entry.state}): nothing to retry"
    if entry.state == "rejected":
        return "the processor rejected it: a retry would be rejected the same way"
    if entry.state == "failed":
        return "a retry would fail the same way" + (f": {entry.reason}" if entry.reason else "")
    return f"an entry in state {entry.state!r} cannot be retried"


def created_short(iso: str | None) -> str:
    """``2026-11-23T22:41:07Z`` → ``11-23 22:41`` (UTC), for a narrow column."""
    if not iso or len(iso) < 16:
        return iso or ""
    return f"{iso[5:10]} {iso[11:16]}"
