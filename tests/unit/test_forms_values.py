"""Typed form values ↔ payload (tui/actions/form_values.py), drafts and context suggestions."""

from __future__ import annotations

import stat

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.actions.action_context import ActionContext, Suggestion, suggestions
from tui.actions.catalog import CATALOG, ActionSpec, FieldSpec, validate_payload
from tui.actions.drafts import Draft, FileDrafts, MemoryDrafts
from tui.actions.form_values import (
    field_messages,
    has_input,
    payload_from_values,
    values_from_payload,
    widget_kind,
)
from tui.actions.issue_body import compose_issue

FAMILIES = ActionSpec(
    "family_test",
    fields=(
        FieldSpec("line", "str", required=True, max_length=10),
        FieldSpec("story", "text"),
        FieldSpec("count", "int", min_value=1, max_value=9),
        FieldSpec("flag", "bool"),
        FieldSpec("must_flag", "bool", required=True),
        FieldSpec("mood", "str", choices=("calm", "loud")),
        FieldSpec("tags", "list[str]", pattern=r"^[a-z]+$", max_items=3),
        FieldSpec("url", "str", nullable=True, pattern=r"^https?://\S+$"),
    ),
)


def test_widget_per_type():
    kinds = {spec.name: widget_kind(spec) for spec in FAMILIES.fields}
    assert kinds == {
        "line": "input",
        "story": "textarea",
        "count": "integer",
        "flag": "checkbox",
        "must_flag": "checkbox",
        "mood": "select",
        "tags": "lines",
        "url": "input",
    }


def test_values_become_the_payload():
    values = {
        "line": "hello",
        "story": "two\nlines",
        "count": " 7 ",
        "flag": True,
        "must_flag": False,
        "mood": "calm",
        "tags": " ai \n\nart\n",
        "url": "null",
    }
    payload, problems = payload_from_values(FAMILIES, values)
    assert problems == {}
    assert payload == {
        "line": "hello",
        "story": "two\nlines",
        "count": 7,
        "flag": True,
        "must_flag": False,
        "mood": "calm",
        "tags": ["ai", "art"],
        "url": None,
    }
    assert validate_payload(FAMILIES, payload) == []


def test_empty_optional_fields_are_left_out():
    payload, problems = payload_from_values(FAMILIES, {"line": "x"})
    assert payload == {"line": "x", "must_flag": False}
    assert problems == {}


def test_problems_in_the_catalogs_words():
    values = {"line": "", "count": "12x", "tags": "ok\nBad Tag", "mood": ""}
    _payload, problems = payload_from_values(FAMILIES, values)
    assert problems["line"] == ["is required"]
    assert problems["count"] == ["must be a whole number"]
    assert problems["tags"][0].startswith("line 2 has an invalid format")
    assert field_messages(FAMILIES.field("count"), "0") == ["must be at least 1"]
    assert field_messages(FAMILIES.field("line"), "x" * 11) == [
        "is too long (11 characters; at most 10)"
    ]
    assert field_messages(FAMILIES.field("count"), "") == []


def test_prefill_round_trips():
    payload = {"line": "a", "count": 3, "flag": True, "tags": ["x", "y"], "url": None}
    values = values_from_payload(FAMILIES, payload)
    assert values == {"line": "a", "count": "3", "flag": True, "tags": "x\ny", "url": "null"}
    again, problems = payload_from_values(FAMILIES, values)
    assert problems == {}
    assert again == {**payload, "must_flag": False}


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_any_story_text_composes_to_a_request_the_catalog_reads(text):
    spec = CATALOG["propose_seed"]
    payload, problems = payload_from_values(spec, {"text": text})
    if text.strip():
        assert problems == {}
        assert payload["text"] == text
        assert compose_issue(spec.name, payload).title == "propose_seed"
    else:
        assert problems == {"text": ["is required"]}


def test_has_input():
    assert not has_input(FAMILIES, {"line": "  ", "flag": False})
    assert has_input(FAMILIES, {"flag": True})
    assert has_input(FAMILIES, {"story": "x"})


def test_draft_json_round_trip_and_request():
    draft = Draft("poke", {"target_agent": "kody-w"}, {"target_agent": "kody-w"}, "n0nce")
    assert Draft.from_json(draft.as_json()) == draft
    assert draft.request() == compose_issue("poke", {"target_agent": "kody-w"}, "n0nce")
    odd = Draft.from_json({"action": "poke", "values": {"a": 1, "b": "x"}, "nonce": 5})
    assert odd.values == {"b": "x"} and odd.nonce is None


def test_memory_drafts():
    drafts = MemoryDrafts()
    drafts.keep(Draft("poke", {"target_agent": "a"}))
    assert drafts.kept("poke").values == {"target_agent": "a"}
    drafts.forget("poke")
    assert drafts.kept("poke") is None


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        (
            ActionContext("agent", "kody-w"),
            [
                Suggestion("poke", {"target_agent": "kody-w"}),
                Suggestion("follow_agent", {"target_agent": "kody-w"}),
                Suggestion("unfollow_agent", {"target_agent": "kody-w"}),
                Suggestion("transfer_karma", {"target_agent": "kody-w"}),
                Suggestion("heartbeat"),
            ],
        ),
        (
            ActionContext("proposal", "prop-1"),
            [
                Suggestion("vote_seed", {"proposal_id": "prop-1"}),
                Suggestion("unvote_seed", {"proposal_id": "prop-1"}),
                Suggestion("heartbeat"),
            ],
        ),
        (
            ActionContext("channel", "general"),
            [
                Suggestion("create_post", {"channel": "general"}),
                Suggestion("update_channel", {"slug": "general"}),
                Suggestion("heartbeat"),
            ],
        ),
        (ActionContext(), [Suggestion("heartbeat")]),
    ],
)
def test_context_suggestions(context, expected):
    assert suggestions(context) == expected


def test_suggestions_skip_actions_the_catalog_lacks():
    table = {"poke": CATALOG["poke"]}
    assert suggestions(ActionContext("agent", "a"), table) == [
        Suggestion("poke", {"target_agent": "a"})
    ]


def test_file_drafts_round_trip_durably(tmp_path):
    folder = tmp_path / "drafts"
    drafts = FileDrafts(folder)
    assert drafts.kept("poke") is None
    draft = Draft("create_post", {"title": "t", "body": "b\nc"}, {"title": "t"}, "abc")
    drafts.keep(draft)
    assert FileDrafts(folder).kept("create_post") == draft  # another process reads it
    assert [p.name for p in folder.iterdir()] == ["create_post.json"]  # no temporary left
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    drafts.forget("create_post")
    assert drafts.kept("create_post") is None
    drafts.forget("create_post")  # twice is fine


def test_file_drafts_unreadable_file_is_left_alone(tmp_path):
    drafts = FileDrafts(tmp_path)
    path = tmp_path / "poke.json"
    path.write_text("{not json")
    assert drafts.kept("poke") is None
    assert path.read_text() == "{not json"
    (tmp_path / "follow_agent.json").write_text('{"action": "poke", "values": {}}')
    assert drafts.kept("follow_agent") is None  # a file that holds another action's draft


@pytest.mark.parametrize("name", ["../evil", "a/b", "", "Poke", ".hidden"])
def test_file_drafts_refuse_names_that_are_not_actions(tmp_path, name):
    with pytest.raises(ValueError):
        FileDrafts(tmp_path).forget(name)
