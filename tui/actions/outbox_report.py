"""What a person is told about outbox entries: the status-bar summary and why a retry is refused.

Pure functions over :class:`~tui.actions.outbox.Entry` and state counts, shared by the Outbox
screen and the app's status bar so both say the same thing. This module is part of the headless
core: it must never import Textual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tui.actions.outbox import Entry

__all__ = [
    "SUMMARY_STATES",
    "comment_gist",
    "created_short",
    "reason_line",
    "retry_refusal",
    "status_summary",
]

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


# What the processors wrap a verdict in: HTML markers, a markdown heading, the status mark,
# the classic generation's fixed sentences, the newer one's "`action` was rejected:" lead-in
# and its Hint/Receipt lines (the detail keeps them all).
_MARKER = re.compile(r"<!--.*?-->", re.DOTALL)
_HEADING = re.compile(r"^\s*#+\s.*$", re.MULTILINE)
_TRAILERS = re.compile(r"^\s*(?:Hint|Receipt):.*$", re.MULTILINE)
_MARK = re.compile(r"^\s*(?:✅|❌|📨)\ufe0f?\s*")
_CLASSIC_FAILED = re.compile(r"^Failed to process delta\.?\s*", re.IGNORECASE)
_CLASSIC_DONE = re.compile(
    r"^Delta processed successfully(?: and added to inbox)?\.?", re.IGNORECASE
)
_LEAD_IN = re.compile(r"^`[^`]*`\s+was rejected:\s*")
_EMPHASIS = re.compile(r"\*\*|`")


def comment_gist(comment: str) -> str:
    """The processor's comment without its boilerplate, on one line: ``❌ Failed to process
    delta. Missing bio`` → ``Missing bio``; ``## ❌ REJECTED … `poke` was rejected: unknown
    agent … Hint: …`` → ``unknown agent``."""
    text = _TRAILERS.sub("", _HEADING.sub("", _MARKER.sub("", comment))).strip()
    text = _MARK.sub("", text)
    if _CLASSIC_DONE.match(text):
        return "processed and added to the inbox"
    text = _CLASSIC_FAILED.sub("", text)
    text = _EMPHASIS.sub("", _LEAD_IN.sub("", text))
    return " ".join(text.split()) or "no reason given"


def reason_line(entry: Entry) -> str:
    """The one line a list shows for why an entry stands where it does: roost's own reason,
    the receipt's error, the gist of the processor's comment, or the first notice (plain text,
    not cleaned: the caller cleans it for where it goes)."""
    if entry.reason:
        return entry.reason
    receipt = entry.receipt or {}
    if receipt.get("error"):
        return str(receipt["error"])
    if entry.comment:
        return comment_gist(entry.comment)
    return entry.notices[0] if entry.notices else ""
