"""State models: real shapes, optional fields, unknown fields kept, errors with JSON paths."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.network.models import (
    MANIFEST_FILE,
    STATE_FILES,
    Agent,
    InvalidDocument,
    StateValidationError,
    as_utc,
    convert,
    decode,
    dump,
    parse_manifest,
    parse_state,
    replace,
)


def test_real_files_validate(real_state_dir):
    for name in STATE_FILES:
        model = parse_state(name, (real_state_dir / name).read_bytes())
        assert model is not None
    agents = parse_state("agents.json", (real_state_dir / "agents.json").read_bytes())
    assert len(agents.agents) == agents.meta.count
    # optional fields really are missing on some agents and present on others
    assert any(a.traits is None for a in agents.agents.values())
    assert any(a.traits for a in agents.agents.values())
    assert any(a.display_name is not None for a in agents.agents.values())
    assert all(as_utc(a.joined) is not None for a in agents.agents.values())


def test_real_files_keep_every_member_they_were_sent(real_state_dir):
    # the real service sends fields roost does not model (agents' last_renamed, channels'
    # banner_url, new stats counters): each file, dumped, is the document it was decoded from
    for name in STATE_FILES:
        data = (real_state_dir / name).read_bytes()
        model = parse_state(name, data)
        assert _without_nulls(dump(model)) == _without_nulls(json.loads(data)), name
        assert dump(model) == dump(convert(STATE_FILES[name], json.loads(data)))
    agents = parse_state("agents.json", (real_state_dir / "agents.json").read_bytes())
    assert any("last_renamed" in agent.extras for agent in agents.agents.values())


def _without_nulls(value):
    """``value`` with null members left out (a model has a member for every field it knows)."""
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [_without_nulls(item) for item in value]
    return value


def test_real_seeds_is_the_older_shape(real_state_dir):
    seeds = parse_state("seeds.json", (real_state_dir / "seeds.json").read_bytes())
    assert seeds.proposals is None  # older deployment: no proposals key
    assert seeds.active is not None and seeds.active.convergence is not None
    assert seeds.history


def test_real_manifest_matches_files(real_state_dir):
    import hashlib

    manifest = parse_manifest((real_state_dir / MANIFEST_FILE).read_bytes())
    for name, entry in manifest.files.items():
        body = (real_state_dir / name).read_bytes()
        assert hashlib.sha256(body).hexdigest() == entry.hash
        assert entry.size == len(body)


def test_unknown_fields_are_kept_not_fatal():
    doc = {
        "agents": {"a1": {"name": "A", "brand_new_field": {"x": 1}, "karma": 3}},
        "_meta": {"count": 1, "also_new": True},
        "top_level_new": [1, 2],
    }
    model = parse_state("agents.json", json.dumps(doc))
    agent = model.agents["a1"]
    assert agent.extras == {"brand_new_field": {"x": 1}}
    assert model.extras == {"top_level_new": [1, 2]} and model.meta.extras == {"also_new": True}
    dumped = dump(model)
    assert dumped["top_level_new"] == [1, 2]
    assert dumped["agents"]["a1"]["brand_new_field"] == {"x": 1}
    assert dumped["_meta"]["also_new"] is True


def test_seeds_active_null_and_proposals_present():
    doc = {
        "active": None,
        "proposals": [{"id": "p1", "text": "t", "votes": ["a", "b"], "vote_count": 2}],
        "queue": [],
        "history": [],
    }
    seeds = parse_state("seeds.json", json.dumps(doc))
    assert seeds.active is None
    assert seeds.proposals[0].votes == ("a", "b")


def test_stats_counters_include_new_ones():
    stats = parse_state(
        "stats.json", b'{"total_agents": 3, "total_widgets": 7, "ratio": 0.5, "flag": true}'
    )
    counters = stats.counters()
    assert counters["total_widgets"] == 7
    assert counters["ratio"] == 0.5
    assert "flag" not in counters  # booleans are not counters


def test_validation_error_names_file_and_json_path():
    doc = {"agents": {"good": {"name": "x"}, "bad one": {"name": "y", "karma": "lots"}}}
    with pytest.raises(StateValidationError) as info:
        parse_state("agents.json", json.dumps(doc))
    error = info.value
    assert error.file == "agents.json"
    assert error.errors[0][0] == '$.agents["bad one"].karma'
    assert "agents.json" in str(error)


def test_trending_paths_use_indexes():
    with pytest.raises(StateValidationError) as info:
        parse_state("trending.json", b'{"trending": [{"title": "ok"}, {"upvotes": "many"}]}')
    assert info.value.errors[0][0] == "$.trending[1].upvotes"


def test_invalid_json_is_a_validation_error():
    with pytest.raises(StateValidationError) as info:
        parse_state("stats.json", b'{"total_agents": ')
    assert "Invalid JSON" in str(info.value)


def test_manifest_rejects_bad_hashes():
    with pytest.raises(StateValidationError):
        parse_manifest(b'{"files": {"agents.json": {"hash": "zz", "size": 3}}}')


def test_as_utc_is_lenient():
    assert as_utc("2026-03-15T10:41:34Z").tzinfo is not None
    assert as_utc("2026-03-15T17:51:43.337335+00:00").microsecond == 337335
    assert as_utc("2026-03-15T10:41:34").tzinfo is not None  # naive means UTC
    assert as_utc("yesterday") is None
    assert as_utc(None) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)


@given(name=st.sampled_from([*STATE_FILES, MANIFEST_FILE]), value=json_values)
def test_any_json_validates_or_raises_state_validation_error(name, value):
    data = json.dumps(value)
    try:
        if name == MANIFEST_FILE:
            parse_manifest(data)
        else:
            parse_state(name, data)
    except StateValidationError as exc:
        assert exc.file == name
        assert exc.errors


@given(data=st.binary(max_size=200))
def test_any_bytes_validate_or_raise_state_validation_error(data):
    for name in STATE_FILES:
        with contextlib.suppress(StateValidationError):
            parse_state(name, data)


@given(
    agents=st.dictionaries(
        st.text(min_size=1, max_size=12),
        st.fixed_dictionaries(
            {"name": st.text(max_size=20)},
            optional={
                "karma": st.integers(),
                "traits": st.dictionaries(st.text(max_size=8), st.floats(allow_nan=False)),
                "subscribed_channels": st.lists(st.text(max_size=8)),
                "status": st.text(max_size=8),
                "heartbeat_last": st.text(max_size=30),
                "surprise": json_values,
            },
        ),
        max_size=5,
    )
)
def test_agent_shaped_documents_always_validate(agents):
    model = parse_state("agents.json", json.dumps({"agents": agents}))
    assert set(model.agents) == set(agents)


def test_a_replaced_model_keeps_its_extras_and_leaves_the_original_alone():
    document = {"agents": {"a": {"name": "A", "karma": 1, "new": 2}}, "top": True}
    parsed = parse_state("agents.json", json.dumps(document).encode())
    agent = parsed.agents["a"]
    changed = replace(agent, karma=5)
    assert changed.karma == 5 and agent.karma == 1
    assert changed.extras == agent.extras == {"new": 2}
    copied = replace(parsed, agents={})
    assert copied.extras == {"top": True} and parsed.agents
    with pytest.raises(AttributeError):
        agent.karma = 7  # frozen: a snapshot is shared by every screen


def test_model_from_plain_values_keeps_extras_and_names_the_failing_key():
    agent = convert(Agent, {"name": "A", "karma": "3", "shiny": [1]})
    assert agent.karma == 3 and agent.extras == {"shiny": [1]}
    with pytest.raises(InvalidDocument) as info:
        convert(dict[str, Agent], {"ok": {"name": "A"}, "x y": {"name": "B", "karma": "q"}})
    assert info.value.path == '$["x y"].karma'


def test_nan_and_infinity_as_python_writes_them_are_accepted():
    model = parse_state(
        "agents.json", '{"agents": {"a": {"name": "A", "traits": {"t": NaN, "u": Infinity}}}}'
    )
    traits = model.agents["a"].traits
    assert traits["u"] == float("inf") and traits["t"] != traits["t"]


def test_hostile_shapes_are_validation_errors_not_crashes():
    for text in [
        "[" * 100_000,
        '{"agents": ' + "[" * 100_000,
        b"\xff\xfe",
        '{"agents": {"a": {"name": "A", "karma": 1e400}}}',
        "",
    ]:
        with pytest.raises(StateValidationError):
            parse_state("agents.json", text)


def test_entries_are_decoded_one_by_one_when_some_have_unknown_fields():
    # dict[str, Agent] (a piece of agents.json): entries with unknown fields get them as
    # extras, the others none; the same text decoded twice gives the same, whichever way the
    # first decode went (a hint remembers that the last one had extras)
    entries = {
        "plain": {"name": "P", "karma": 1},
        "new": {"name": "N", "karma": "2", "badges": ["early"]},
        "odd": {"name": "O", "traits": {"t": float("nan")}},
    }
    text = json.dumps(entries).encode()
    for _ in range(2):
        decoded = decode(dict[str, Agent], text)
        assert list(decoded) == ["plain", "new", "odd"]
        assert decoded["plain"].extras == {} and decoded["new"].extras == {"badges": ["early"]}
        assert (
            decoded["new"].karma == 2 and decoded["odd"].traits["t"] != decoded["odd"].traits["t"]
        )
    # a failure in one entry is reported with the whole text's path
    entries["x y"] = {"name": "B", "karma": "q", "badges": []}
    with pytest.raises(InvalidDocument) as info:
        decode(dict[str, Agent], json.dumps(entries))
    assert info.value.path == '$["x y"].karma'
    with pytest.raises(InvalidDocument) as info:
        decode(dict[str, Agent], b'{"a": {"name": "A", "badges": 1}, "b": {"name": 2}}')
    assert info.value.path == "$.b.name"


def _with_unknown_members(value, rng):
    """``value`` with an unknown member added to some of its objects, at every depth."""
    if isinstance(value, dict):
        changed = {key: _with_unknown_members(item, rng) for key, item in value.items()}
        key = rng.choice(["zz_new", "badges", "_extra", "x y", None, None])
        if key is not None and key not in changed:
            changed[key] = rng.choice(
                [None, 1, "s", [1], {"a": None}, {}, float("inf"), 2**70, 1e-320, "\x1b[31m"]
            )
        return changed
    if isinstance(value, list):
        return [_with_unknown_members(item, rng) for item in value]
    return value


def _decoded_or_error(decoding):
    try:
        return dump(decoding())
    except InvalidDocument as exc:
        return ("error", exc.path, exc.message)


def test_documents_with_unknown_members_anywhere_decode_as_plain_json_converts():
    # decode() finds members' and entries' texts and decodes them one by one; convert() takes
    # the plain-JSON way: both keep the same unknown members in the same places, and refuse the
    # same documents with the same error (an unknown member added inside a typed dict, such as
    # an agent's traits, makes the document invalid)
    import random

    from tui.sandbox.generator import generate_state

    network = generate_state(seed=3, agents=12)
    outcomes = set()
    for seed in range(60):
        rng = random.Random(seed)
        for name, model in STATE_FILES.items():
            text = json.dumps(_with_unknown_members(network[name], rng)).encode()
            for _ in range(2):  # the second time, the hint says the last one had unknown members
                decoded = _decoded_or_error(lambda: decode(model, text))  # noqa: B023
                assert decoded == _decoded_or_error(lambda: convert(model, json.loads(text)))  # noqa: B023
                outcomes.add(decoded[0] == "error" if isinstance(decoded, tuple) else False)
    assert outcomes == {True, False}  # both kinds were met
