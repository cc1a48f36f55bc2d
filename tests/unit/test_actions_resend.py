"""Sending an action again: a new draft from a copy of an outbox entry (the Outbox screen's
"edit a copy"), and which entries may be copied at all."""

from __future__ import annotations

import pytest

from tui.actions.catalog import CATALOG, ActionSpec, FieldSpec
from tui.actions.form_values import payload_from_values
from tui.actions.outbox import Entry
from tui.actions.resend import draft_from_entry, payload_copy, resend_refusal

TUNE = ActionSpec(
    "tune_agent",
    fields=(
        FieldSpec("mood", "str", required=True, choices=("calm", "loud")),
        FieldSpec("quiet", "bool"),
        FieldSpec("tags", "list[str]", max_items=3),
        FieldSpec("level", "int", min_value=1, max_value=9),
        FieldSpec("url", "str", nullable=True),
    ),
)
CATALOG_WITH_TUNE = {**CATALOG, "tune_agent": TUNE}
PAYLOAD = {"mood": "loud", "quiet": True, "tags": ["a", "b"], "level": 7, "url": None}


def entry(state: str = "rejected", **fields) -> Entry:
    made = Entry("20270101T000000Z-00000001", "tune_agent", dict(PAYLOAD), "old-nonce")
    made.state = state
    for key, value in fields.items():
        setattr(made, key, value)
    return made


def test_a_draft_from_a_rejected_entry_gives_back_its_payload_with_a_new_nonce():
    old = entry()
    draft = draft_from_entry(old, CATALOG_WITH_TUNE)
    assert draft.action == "tune_agent" and draft.nonce and draft.nonce != old.nonce
    assert dict(draft.values) == {
        "mood": "loud",
        "quiet": True,
        "tags": "a\nb",
        "level": "7",
        "url": "null",
    }
    assert dict(draft.payload) == {}  # the form validates before there is one
    payload, problems = payload_from_values(TUNE, draft.values)
    assert payload == PAYLOAD and problems == {}
    assert draft_from_entry(old, CATALOG_WITH_TUNE).nonce != draft.nonce  # new each time


def test_the_copy_is_a_copy():
    old = entry()
    copied = payload_copy(old)
    copied["tags"].append("c")
    assert old.payload["tags"] == ["a", "b"]


def test_a_field_the_catalog_no_longer_has_is_left_out_and_an_action_it_lost_is_a_keyerror():
    old = entry(payload={**PAYLOAD, "colour": "red"})
    assert "colour" not in draft_from_entry(old, CATALOG_WITH_TUNE).values
    with pytest.raises(KeyError, match="unknown action"):
        draft_from_entry(old, CATALOG)


@pytest.mark.parametrize("state", ["failed", "rejected", "accepted", "applied"])
def test_an_entry_whose_fate_is_known_may_be_sent_again(state):
    assert resend_refusal(entry(state)) is None


@pytest.mark.parametrize(
    ("state", "fields", "words"),
    [
        ("draft", {}, "never sent: a retry sends it"),
        ("sending", {}, "may already be on the platform"),
        ("unknown", {}, "may already be on the platform"),
        ("failed", {"maybe_sent": True}, "a retry looks it up first"),
        ("queued", {"number": 4}, "on the platform as #4 and waits for the processor's verdict"),
        ("received", {}, "a copy would be a second action"),
        ("damaged", {"reason": "not JSON"}, "nothing to copy"),
    ],
)
def test_an_entry_that_may_be_on_the_platform_is_never_copied(state, fields, words):
    old = entry(state, **fields)
    assert words in resend_refusal(old)
    with pytest.raises(ValueError, match="."):
        draft_from_entry(old, CATALOG_WITH_TUNE)
