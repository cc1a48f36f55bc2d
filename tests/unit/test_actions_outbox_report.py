"""The status-bar summary of an outbox and the words for a refused retry (headless)."""

from __future__ import annotations

import pytest

from tui.actions.outbox import Entry
from tui.actions.outbox_report import created_short, retry_refusal, status_summary


def test_summary_is_empty_when_nothing_needs_attention():
    assert status_summary({}) == ""
    assert status_summary({"queued": 3, "accepted": 1, "applied": 9, "draft": 2}) == ""
    assert status_summary({"sending": 0, "unknown": 0, "failed": 0}) == ""


def test_summary_counts_sending_unknown_failed_in_that_order():
    counts = {"failed": 2, "queued": 5, "sending": 1, "unknown": 3}
    assert status_summary(counts) == "outbox: 1 sending · 3 unknown · 2 failed"
    assert status_summary({"failed": 1}) == "outbox: 1 failed"


def _entry(state: str, **kw) -> Entry:
    return Entry(id="20261123T220000Z-00000000", action="poke", payload={}, nonce="0" * 32,
                 state=state, **kw)  # fmt: skip


@pytest.mark.parametrize(
    ("state", "kw"),
    [
        ("draft", {}),
        ("sending", {}),
        ("unknown", {}),
        ("failed", {"retry_safe": True, "reason": "unreachable"}),
    ],
)
def test_retry_allowed_exactly_where_the_outbox_can_send(state, kw):
    entry = _entry(state, **kw)
    assert entry.can_send
    assert retry_refusal(entry) is None


@pytest.mark.parametrize(
    ("state", "kw", "words"),
    [
        ("failed", {"retry_safe": False, "reason": "token rejected"}, "fail the same way: token"),
        ("failed", {"retry_safe": None}, "a retry would fail the same way"),
        ("rejected", {"number": 3}, "rejected it"),
        ("queued", {"number": 7}, "already on the platform as #7 (queued)"),
        ("accepted", {"number": 8}, "as #8 (accepted)"),
        ("applied", {}, "already on the platform (applied)"),
    ],
)
def test_retry_refused_says_why(state, kw, words):
    entry = _entry(state, **kw)
    assert not entry.can_send
    assert words in (retry_refusal(entry) or "")


def test_created_short():
    assert created_short("2026-11-23T22:41:07Z") == "11-23 22:41"
    assert created_short(None) == ""
    assert created_short("odd") == "odd"


def test_the_reason_line_is_the_reason_without_either_processors_wrapping():
    from tui.actions.outbox_report import comment_gist, reason_line
    from tui.sandbox.deployment import (
        SUCCESS_COMMENT,
        applied_comment,
        failure_comment,
        queued_comment,
        rejected_comment,
    )

    assert comment_gist(failure_comment("Missing required field: bio")) == (
        "Missing required field: bio"
    )
    assert comment_gist("❌ Failed to process delta.") == "no reason given"
    assert comment_gist(SUCCESS_COMMENT) == "processed and added to the inbox"
    rejected = rejected_comment(9, "poke", "unknown agent `x`", "Check the name.")
    assert comment_gist(rejected) == "unknown agent x"
    assert comment_gist(applied_comment(9, "poke", "me")) == "poke by me was applied to the state."
    assert comment_gist(queued_comment(9, "poke")).startswith("poke was received and queued")
    assert comment_gist("Discussion #5 is live") == "Discussion #5 is live"
    entry = _entry("rejected", comment=rejected)
    assert reason_line(entry) == "unknown agent x"
    entry.receipt = {"status": "rejected", "url": "u", "error": "the receipt's error"}
    assert reason_line(entry) == "the receipt's error"
    entry.reason = "roost's own"
    assert reason_line(entry) == "roost's own"
