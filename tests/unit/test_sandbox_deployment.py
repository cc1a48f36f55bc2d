"""The demo deployment's rules: reading an issue body and checking a delta."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.actions.issue_body import compose_issue
from tui.sandbox.deployment import (
    ALL_ACTIONS,
    KNOWN_ACTIONS,
    SUCCESS_COMMENT,
    ActionRejected,
    applied_comment,
    check_delta,
    failure_comment,
    queued_comment,
    read_delta,
    rejected_comment,
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
action_names = st.from_regex(r"[a-z][a-z0-9]{0,8}(_[a-z0-9]{1,8}){0,2}", fullmatch=True)


def test_the_comments_are_the_deployments_words():
    assert SUCCESS_COMMENT == "✅ Delta processed successfully and added to inbox."
    assert failure_comment("Unknown action: 'x'.") == (
        "❌ Failed to process delta. Unknown action: 'x'."
    )


def test_the_first_json_fence_wins():
    body = (
        "Intro with `code` and a ```python fence:\n\n```python\nprint(1)\n```\n\n"
        '```json\n{"action": "poke", "payload": {"target_agent": "a"}}\n```\n\n'
        '```json\n{"action": "heartbeat", "payload": {}}\n```\n'
    )
    assert read_delta(body) == ("poke", {"target_agent": "a"})


def test_a_raw_json_body_is_read():
    assert read_delta('  {"action": "heartbeat"}\n') == ("heartbeat", {})


def test_windows_line_endings_are_read():
    body = '```json\r\n{"action": "heartbeat", "payload": {"status_message": "hi"}}\r\n```\r\n'
    assert read_delta(body) == ("heartbeat", {"status_message": "hi"})


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (None, "No ```json block"),
        ("", "No ```json block"),
        ("```\n{}\n```", "No ```json block"),
        ("```json\n{oops}\n```", "Invalid JSON"),
        ("```json\n" + "[" * 100_000 + "\n```", "Invalid JSON"),
        ('```json\n"text"\n```', "must be an object"),
        ('```json\n{"action": 3}\n```', "no 'action' string"),
        ('```json\n{"action": "poke", "payload": "x"}\n```', "'payload' must be"),
    ],
)
def test_unreadable_bodies(body, reason):
    with pytest.raises(ActionRejected, match=reason):
        read_delta(body)


def test_check_delta_keeps_only_the_fields_the_action_reads():
    checked = check_delta("poke", {"target_agent": "a", "actor": "someone-else", "x": 1})
    assert checked == {"target_agent": "a"}


def _sample(rule):
    if rule.enum:
        return rule.enum[0]
    if rule.uri:
        return "https://example.org/x"
    if rule.kind in ("str", "str?"):
        return "x" * (rule.min_length or 1)
    return {"int": 1, "bool": True, "list": ["a"]}[rule.kind]


def test_every_known_action_accepts_its_required_fields():
    for name, spec in ALL_ACTIONS.items():
        payload = {field: _sample(rule) for field, rule in spec.required.items()}
        assert check_delta(name, payload, ALL_ACTIONS) == payload, name


@pytest.mark.parametrize(
    ("action", "payload", "reason"),
    [
        ("poke", {"target_agent": "a", "message": "x" * 281}, "longer than 280"),
        ("transfer_karma", {"target_agent": "a", "amount": 101}, "at most 100"),
        ("moderate", {"discussion_number": 1, "reason": "rude"}, "must be one of"),
        ("create_channel", {"slug": "Bad", "name": "n", "description": "d"}, "does not match"),
        ("update_channel", {"slug": "s", "banner_url": "http://x"}, "https://"),
        ("run_python", {"code": "print(1)", "timeout": 0}, "at least 1"),
        (
            "create_topic",
            {"slug": "s", "name": "n", "description": "d", "constitution": "c"},
            "shorter",
        ),
    ],
)
def test_the_contracts_limits_are_checked(action, payload, reason):
    with pytest.raises(ActionRejected, match=reason):
        check_delta(action, payload)


def test_the_newer_processors_comments_carry_their_markers():
    assert queued_comment(7, "poke").startswith("## 📨 QUEUED")
    assert "<!-- rappterbook-queued:issue:7 -->" in queued_comment(7, "poke")
    assert "has **not** been applied" in queued_comment(7, "poke")
    applied = applied_comment(7, "poke", "me")
    assert applied.startswith("## ✅ APPLIED")
    assert "<!-- rappterbook-terminal-receipt:issue:7:applied -->" in applied
    rejected = rejected_comment(7, "poke", "no such agent", "check the id")
    assert rejected.startswith("## ❌ REJECTED") and "no such agent" in rejected
    assert "<!-- rappterbook-terminal-receipt:issue:7:rejected -->" in rejected


@given(action=action_names, payload=st.dictionaries(st.text(max_size=12), json_values, max_size=6))
def test_property_what_roost_composes_the_deployment_reads(action, payload):
    """roost's issue composer and the demo deployment's reader agree on every payload, whatever
    its text (backticks, fences, control characters)."""
    request = compose_issue(action, payload, "nonce-1")
    assert read_delta(request.body) == (action, payload)


@given(st.text())
def test_property_reading_never_fails_otherwise(text):
    with contextlib.suppress(ActionRejected):
        action, payload = read_delta(text)
        assert isinstance(action, str) and isinstance(payload, dict)


@given(st.sampled_from(sorted(KNOWN_ACTIONS)), st.dictionaries(st.text(max_size=16), json_values))
def test_property_checking_never_fails_otherwise(action, payload):
    with contextlib.suppress(ActionRejected):
        checked = check_delta(action, payload)
        assert set(checked) <= set(KNOWN_ACTIONS[action].fields)
        json.dumps(checked)
