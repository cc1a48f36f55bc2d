"""The action catalog, payload validation and the issue body composer/parser."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.actions.catalog import (
    CATALOG,
    SLUG_PATTERN,
    ActionSpec,
    FieldError,
    FieldSpec,
    action_label,
    get_action,
    validate_payload,
)
from tui.actions.issue_body import (
    MAX_BODY_CHARS,
    IssueBodyError,
    IssueRequest,
    ParsedAction,
    compose_issue,
    new_nonce,
    parse_issue_body,
)

EXPECTED_ACTIONS = {
    "register_agent": {"name", "framework", "bio"},
    "heartbeat": set(),
    "poke": {"target_agent"},
    "follow_agent": {"target_agent"},
    "unfollow_agent": {"target_agent"},
    "update_profile": set(),
    "create_channel": {"slug", "name", "description"},
    "update_channel": {"slug"},
    "create_topic": {"slug", "name", "description", "constitution"},
    "moderate": {"discussion_number", "reason"},
    "transfer_karma": {"target_agent", "amount"},
    "propose_seed": {"text"},
    "vote_seed": {"proposal_id"},
    "unvote_seed": {"proposal_id"},
    "create_post": {"channel", "title", "body"},
    "add_moderator": {"slug", "target_agent"},
    "remove_moderator": {"slug", "target_agent"},
    "recruit_agent": {"name", "framework", "bio"},
    "verify_agent": {"github_username"},
    "submit_media": {"channel", "title", "media_type", "source_url", "filename"},
    "verify_media": {"submission_id", "decision"},
    "run_python": {"code"},
}

# A valid example payload per action, used by several tests (and mirrored by the processor tests).
EXAMPLES: dict[str, dict] = {
    "register_agent": {"name": "Test Agent", "framework": "python", "bio": "Testing things."},
    "heartbeat": {"status_message": "all good", "subscribed_channels": ["general"]},
    "poke": {"target_agent": "zion-coder-01"},
    "follow_agent": {"target_agent": "zion-coder-01"},
    "unfollow_agent": {"target_agent": "zion-coder-01"},
    "update_profile": {"bio": "New bio", "callback_url": None},
    "create_channel": {"slug": "tea-room", "name": "Tea Room", "description": "Calm talk."},
    "update_channel": {"slug": "tea-room", "description": "Calmer talk."},
    "create_topic": {
        "slug": "retro",
        "name": "Retro",
        "description": "Looking back.",
        "constitution": "Title must start with [RETRO]; posts look back at what happened.",
    },
    "moderate": {"discussion_number": 12, "reason": "spam"},
    "transfer_karma": {"target_agent": "zion-coder-01", "amount": 5},
    "propose_seed": {"text": "Build a map of the network"},
    "vote_seed": {"proposal_id": "prop-0001"},
    "unvote_seed": {"proposal_id": "prop-0001"},
    "create_post": {"channel": "general", "title": "Hello", "body": "First post."},
    "add_moderator": {"slug": "general", "target_agent": "zion-coder-01"},
    "remove_moderator": {"slug": "general", "target_agent": "zion-coder-01"},
    "recruit_agent": {"name": "New Friend", "framework": "python", "bio": "Just arrived."},
    "verify_agent": {"github_username": "octocat"},
    "submit_media": {
        "channel": "general",
        "title": "A diagram",
        "media_type": "image",
        "source_url": "https://example.com/d.png",
        "filename": "d.png",
        "discussion_number": 4,
    },
    "verify_media": {"submission_id": "media-0001", "decision": "approve"},
    "run_python": {"code": "print(1)", "timeout": 30},
}


# --- catalog --------------------------------------------------------------------------------


def test_catalog_has_every_action_with_its_required_fields():
    assert set(CATALOG) == set(EXPECTED_ACTIONS)
    for name, required in EXPECTED_ACTIONS.items():
        spec = CATALOG[name]
        assert {f.name for f in spec.required_fields} == required, name


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_catalog_entry_is_well_formed(name):
    spec = CATALOG[name]
    assert spec.name == name and spec.source == "built-in" and spec.method == "issue"
    assert spec.label == ("Verify Agent" if name == "verify_agent" else action_label(name))
    assert spec.title and spec.description and spec.title[0].isupper()
    for f in spec.fields:
        assert f.help, (name, f.name)
        assert f.type in ("str", "text", "int", "bool", "list[str]")
        if f.pattern:
            re.compile(f.pattern)
    assert validate_payload(spec, EXAMPLES[name]) == []


def _same_rules(ours, theirs) -> list[str]:
    """Where two catalog entries' fields disagree (roost's hints aside)."""
    found = []
    if {f.name for f in ours.fields} != {f.name for f in theirs.fields}:
        found.append(f"fields {sorted(f.name for f in ours.fields)}")
    for field in theirs.fields:
        mine = next((f for f in ours.fields if f.name == field.name), None)
        for key in ("required", "max_length", "min_length", "min_value", "max_value", "choices"):
            if mine is not None and getattr(mine, key) != getattr(field, key):
                found.append(f"{field.name}.{key}")
        for key in ("format", "nullable", "default"):
            if mine is not None and getattr(mine, key) != getattr(field, key):
                found.append(f"{field.name}.{key}")
        if mine is not None and (mine.pattern is None) != (field.pattern is None):
            found.append(f"{field.name}.pattern")
        if mine is not None and (mine.type == "int") != (field.type == "int"):
            found.append(f"{field.name}.type")
    return found


def test_the_built_in_catalog_is_the_published_contract(real_contract_dir):
    """Every action of the deployment's published skill.json, every field and limit, is in the
    built-in catalog as the contract says (the built-in catalog is roost's own copy)."""
    from tui.actions.contract import parse_skill

    contract = parse_skill(json.loads((real_contract_dir / "skill.json").read_text()))
    assert contract.notices == ()
    for name, theirs in contract.actions.items():
        assert name in CATALOG, name
        assert _same_rules(CATALOG[name], theirs) == [], name
        assert CATALOG[name].label == theirs.label, name


def test_the_built_in_catalog_is_the_demo_deployments_contract():
    """The demo deployment plays the newest contract (run_python, the seed votes): the
    built-in catalog has it all."""
    from tui.actions.contract import parse_skill
    from tui.sandbox.deployment import skill_document

    contract = parse_skill(skill_document("http://demo.invalid", "o", "r"))
    assert set(contract.actions) == set(CATALOG) - {"create_post"}
    for name, theirs in contract.actions.items():
        assert _same_rules(CATALOG[name], theirs) == [], name


def test_update_profile_fields_are_all_optional():
    spec = CATALOG["update_profile"]
    assert not spec.required_fields
    assert {"name", "bio", "callback_url", "gateway_type", "gateway_url"} <= {
        f.name for f in spec.fields
    }
    assert validate_payload(spec, {}) == []


def test_get_action_by_name_or_label():
    assert get_action("vote_seed") is CATALOG["vote_seed"]
    assert get_action("vote-seed") is CATALOG["vote_seed"]
    with pytest.raises(KeyError, match="known actions"):
        get_action("launch_rocket")


def test_action_spec_defaults_and_checks():
    spec = ActionSpec("wave_hello", fields=(FieldSpec("to", "str", required=True, help="who"),))
    assert spec.label == "wave-hello" and spec.title == "Wave hello"
    assert spec.field("to").label == "To"
    with pytest.raises(KeyError):
        spec.field("from")
    with pytest.raises(ValueError):
        ActionSpec("Bad Name")
    with pytest.raises(ValueError):
        ActionSpec("dup", fields=(FieldSpec("a", "str"), FieldSpec("a", "int")))
    with pytest.raises(ValueError):
        FieldSpec("x", "float")  # type: ignore[arg-type]


# --- validation -----------------------------------------------------------------------------


def _fields(errors: list[FieldError]) -> set[str]:
    return {e.field for e in errors}


def test_validation_reports_missing_and_unknown_fields():
    errors = validate_payload(CATALOG["create_post"], {"channel": "general", "colour": "red"})
    assert _fields(errors) == {"title", "body", "colour"}
    assert any("unknown field" in e.message for e in errors)
    assert all(e.message for e in errors)


def test_validation_rejects_non_object_payload():
    errors = validate_payload(CATALOG["poke"], ["zion-coder-01"])
    assert errors == [FieldError("", "payload must be a JSON object, not a list")]
    assert str(errors[0]) == "payload must be a JSON object, not a list"


@pytest.mark.parametrize(
    ("action", "payload", "field", "fragment"),
    [
        ("transfer_karma", {"target_agent": "a", "amount": 0}, "amount", "at least 1"),
        ("transfer_karma", {"target_agent": "a", "amount": "5"}, "amount", "integer"),
        ("transfer_karma", {"target_agent": "a", "amount": True}, "amount", "integer"),
        ("transfer_karma", {"target_agent": "a", "amount": 2.5}, "amount", "integer"),
        ("moderate", {"discussion_number": 3, "reason": "x"}, "reason", "one of"),
        ("create_channel", {"slug": "Bad Slug", "name": "n", "description": "d"}, "slug", "format"),
        ("create_channel", {"slug": "a_b", "name": "n", "description": "d"}, "slug", "format"),
        ("create_channel", {"slug": "a" * 33, "name": "n", "description": "d"}, "slug", "too long"),
        ("poke", {"target_agent": "a", "message": "m" * 281}, "message", "too long"),
        ("run_python", {"code": "x", "timeout": 121}, "timeout", "at most 120"),
        ("update_channel", {"slug": "s", "theme_color": "red"}, "theme_color", "format"),
        ("update_channel", {"slug": "s", "banner_url": "not a url"}, "banner_url", "URL"),
        (
            "create_topic",
            {"slug": "s", "name": "n", "description": "d", "constitution": "short"},
            "constitution",
            "too short",
        ),
        ("create_post", {"channel": "general", "title": "  ", "body": "b"}, "title", "required"),
        (
            "create_post",
            {"channel": "general", "title": "a\nb", "body": "b"},
            "title",
            "single line",
        ),
        ("create_post", {"channel": "general", "title": None, "body": "b"}, "title", "null"),
        ("register_agent", {"name": "n", "framework": "f", "bio": "x" * 501}, "bio", "too long"),
        ("heartbeat", {"subscribed_channels": "general"}, "subscribed_channels", "list"),
        ("heartbeat", {"subscribed_channels": ["general", 3]}, "subscribed_channels[1]", "string"),
        (
            "heartbeat",
            {"subscribed_channels": ["ok", "two\nlines"]},
            "subscribed_channels[1]",
            "single line",
        ),
        ("heartbeat", {"subscribed_channels": ["a", "a"]}, "subscribed_channels", "duplicate"),
        ("update_profile", {"callback_url": "example.org/x"}, "callback_url", "URL"),
        ("update_profile", {"bio": None}, "bio", "null"),
        ("vote_seed", {"proposal_id": ""}, "proposal_id", "required"),
    ],
)
def test_validation_errors(action, payload, field, fragment):
    errors = validate_payload(CATALOG[action], payload)
    assert any(e.field == field and fragment in e.message for e in errors), errors


def test_nullable_optional_field_accepts_null():
    assert validate_payload(CATALOG["update_profile"], {"callback_url": None}) == []


def test_choices_and_bool_fields():
    spec = ActionSpec(
        "set_mode",
        fields=(
            FieldSpec("mode", "str", required=True, help="m", max_length=8, choices=("a", "b")),
            FieldSpec("loud", "bool", help="l"),
        ),
    )
    assert validate_payload(spec, {"mode": "a", "loud": False}) == []
    errors = validate_payload(spec, {"mode": "c", "loud": "yes"})
    assert _fields(errors) == {"mode", "loud"}


# --- compose / parse ------------------------------------------------------------------------


def test_compose_shape():
    request = compose_issue("register_agent", EXAMPLES["register_agent"], nonce="n-1")
    assert isinstance(request, IssueRequest)
    assert request.title == "register_agent"
    assert request.labels == ["register-agent"]
    assert request.as_json() == {
        "title": "register_agent",
        "labels": ["register-agent"],
        "body": request.body,
    }
    assert request.body.startswith("```json\n")
    fence_end = request.body.index("\n```\n")
    inside = request.body[len("```json\n") : fence_end]
    assert json.loads(inside) == {"action": "register_agent", "payload": EXAMPLES["register_agent"]}
    # pretty-printed, sorted keys
    assert inside == json.dumps(
        {"action": "register_agent", "payload": EXAMPLES["register_agent"]},
        indent=2,
        sort_keys=True,
    )
    # the nonce is outside the fence
    assert "roost-nonce" not in inside
    assert request.body[fence_end:].strip().endswith("<!-- roost-nonce: n-1 -->")


def test_compose_without_nonce_has_no_comment():
    request = compose_issue("heartbeat", {})
    assert "<!--" not in request.body
    assert parse_issue_body(request.body) == ParsedAction("heartbeat", {}, None)


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_round_trip_every_catalog_example(name):
    nonce = new_nonce()
    parsed = parse_issue_body(compose_issue(name, EXAMPLES[name], nonce).body)
    assert parsed == ParsedAction(name, EXAMPLES[name], nonce)


@pytest.mark.parametrize(
    ("action", "payload", "nonce"),
    [
        ("Register", {}, None),
        ("register-agent", {}, None),
        ("poke", ["x"], None),
        ("poke", {1: "x"}, None),
        ("poke", {"x": float("nan")}, None),
        ("poke", {"x": object()}, None),
        ("poke", {}, "has space"),
        ("poke", {}, "evil-->"),
        ("poke", {}, "a--b"),
        ("poke", {}, "x" * 129),
        ("poke", {"x": "y" * MAX_BODY_CHARS}, None),
    ],
)
def test_compose_rejects(action, payload, nonce):
    with pytest.raises(ValueError):
        compose_issue(action, payload, nonce)


HOSTILE_STRINGS = [
    "```",
    "\n```\n",
    '```\n}\n```json\n{"action": "transfer_karma", "payload": {}}\n```',
    "~~~\n~~~",
    "<!-- roost-nonce: forged -->",
    "-->",
    "\\```\\",
    "\u2028\u2029\x85\x1b[2J\x9b\x00",
    "\ufeff\u202e\u2066",
    "\ud800 lone surrogate",
    "[@click=app.quit] a[/]b",
    "    ```",
]


@pytest.mark.parametrize("text", HOSTILE_STRINGS)
def test_hostile_payload_text_round_trips_and_stays_in_the_fence(text):
    payload = {"title": text, "body": text, "nested": {"list": [text, {"k": text}]}, text: text}
    request = compose_issue("create_post", payload, nonce="real-nonce")
    lines = request.body.split("\n")
    # exactly two fence lines: the opener and the closer
    assert [i for i, line in enumerate(lines) if line.lstrip().startswith(("```", "~~~"))] == [
        0,
        lines.index("```"),
    ]
    assert request.body.count("<!--") == 1
    request.body.encode("utf-8")  # always sendable
    assert parse_issue_body(request.body) == ParsedAction("create_post", payload, "real-nonce")


# --- parse errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("just text", "no ```json code fence"),
        ("", "no ```json code fence"),
        ("```json\n{nope}\n```", "not hold valid JSON"),
        ("```json\n\n```", "not hold valid JSON"),
        ("```json\n[1, 2]\n```", "must hold a JSON object"),
        ('```json\n{"action": "poke"}\n```', "missing payload"),
        ('```json\n{"action": "poke", "payload": {}, "actor": "x"}\n```', "unexpected 'actor'"),
        ('```json\n{"payload": {}}\n```', "missing action"),
        ('```json\n{"action": "poke", "payload": "x"}\n```', "payload must be a JSON object"),
        ('```json\n{"action": "poke", "payload": null}\n```', "payload must be a JSON object"),
        ('```json\n{"action": 3, "payload": {}}\n```', "action must be"),
        ('```json\n{"action": "poke", "payload": {}}\n', "never closed"),
        (
            '```json\n{"action": "poke", "action": "moderate", "payload": {}}\n```',
            "repeats the key",
        ),
        ('```json\n{"action": "poke", "payload": {"n": Infinity}}\n```', "Infinity"),
        (None, "no body"),
    ],
)
def test_parse_errors(body, fragment):
    with pytest.raises(IssueBodyError, match=re.escape(fragment)):
        parse_issue_body(body)


def test_parse_rejects_deep_nesting():
    with pytest.raises(IssueBodyError, match="nested too deeply"):
        parse_issue_body("```json\n" + "[" * 100_000 + "\n```")


def test_parse_tolerates_prose_crlf_and_other_fences():
    body = (
        "Hello processor!\r\n\r\n"
        "```text\r\nnot this one\r\n```\r\n"
        "<!-- roost-nonce: abc -->\r\n"
        "~~~~ JSON\r\n"
        '{"action": "poke", "payload": {"target_agent": "kody-w"}}\r\n'
        "~~~~\r\n"
    )
    assert parse_issue_body(body) == ParsedAction("poke", {"target_agent": "kody-w"}, "abc")


def test_parse_prefers_json_fence_and_accepts_bare_fence():
    bare = '```\n{"action": "heartbeat", "payload": {}}\n```'
    assert parse_issue_body(bare).action == "heartbeat"
    both = bare + '\n```json\n{"action": "poke", "payload": {"target_agent": "a"}}\n```'
    assert parse_issue_body(both).action == "poke"


def test_nonce_inside_the_fence_is_ignored():
    body = '```json\n{"action": "heartbeat", "payload": {}}\n<!-- roost-nonce: inside -->\n```'
    with pytest.raises(IssueBodyError):
        parse_issue_body(body)  # the comment makes the JSON invalid, which is the point
    body = '```json\n{"action": "heartbeat", "payload": {"s": "<!-- roost-nonce: inside -->"}}\n```'
    assert parse_issue_body(body).nonce is None


# --- property tests -------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
action_names = st.from_regex(r"\A[a-z][a-z0-9]{0,8}(_[a-z0-9]{1,8}){0,3}\Z")
nonces = st.none() | st.from_regex(r"\A[A-Za-z0-9._:]{1,20}(-[A-Za-z0-9._:]{1,20}){0,3}\Z")


@given(
    action=action_names,
    payload=st.dictionaries(st.text(max_size=12), json_values, max_size=6),
    nonce=nonces,
)
def test_property_parse_compose_round_trip(action, payload, nonce):
    request = compose_issue(action, payload, nonce)
    assert request.title == action and request.labels == [action.replace("_", "-")]
    request.body.encode("utf-8")
    assert parse_issue_body(request.body) == ParsedAction(action, payload, nonce)


@given(st.text())
def test_property_parse_never_crashes_on_arbitrary_text(text):
    with contextlib.suppress(IssueBodyError):
        parse_issue_body(text)


def test_slug_pattern_examples():
    assert re.fullmatch(SLUG_PATTERN, "a")
    assert re.fullmatch(SLUG_PATTERN, "mars-barn-2")
    assert not re.fullmatch(SLUG_PATTERN, "Mars")
    assert not re.fullmatch(SLUG_PATTERN, "a_b")


def test_catalog_is_headless():
    code = (
        "import sys, tui.actions.catalog, tui.actions.issue_body; "
        "bad = [m for m in sys.modules if m.split('.')[0] == 'textual']; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- a deployment's own actions (config [actions.NAME]) ------------------------------------


def test_config_adds_an_action_and_overrides_one():
    from tui.actions.catalog import catalog_with_overrides

    table = catalog_with_overrides(
        {
            "wave": {
                "title": "Wave",
                "fields": {"target_agent": {"type": "str", "required": True, "help": "Who"}},
            },
            "poke": {"description": "Poke, the deployment's way."},
        }
    )
    assert table["wave"].label == "wave"
    assert [f.name for f in table["wave"].required_fields] == ["target_agent"]
    assert table["poke"].description == "Poke, the deployment's way."
    assert table["poke"].fields == CATALOG["poke"].fields  # fields kept when not given
    assert "wave" not in CATALOG


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"Bad-Name": {}}, "lowercase words"),
        ({"wave": {"colour": "red"}}, "unknown key(s) colour"),
        ({"wave": {"fields": {"x": {"type": "float"}}}}, "unknown type"),
        ({"wave": {"fields": {"x": {"pattern": "("}}}}, "actions.wave.fields.x"),
        ({"wave": "nope"}, "must be a table"),
    ],
)
def test_config_actions_errors_name_the_key(overrides, fragment):
    from tui.actions.catalog import catalog_with_overrides

    with pytest.raises(ValueError, match=re.escape(fragment)):
        catalog_with_overrides(overrides)
