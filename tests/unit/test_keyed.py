"""Re-validating a big agents.json entry by entry (tui/network/keyed.py): always the same result
as validating the whole document, unchanged agents keep their model objects, and anything
unusual is left to the whole-document validation (same models, same errors)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hostile import PAYLOADS
from hypothesis import given
from hypothesis import strategies as st

from tui.network.keyed import Keyed, parse_keyed
from tui.network.models import StateValidationError, dump, parse_state
from tui.network.store import Store
from tui.sandbox.app import create_app
from tui.sandbox.generator import generate_state, serialize
from tui.sandbox.server import in_process_client

NAME = "agents.json"


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return generate_state(seed=3, agents=40)[NAME]


def keyed(data: bytes, previous: Keyed | None = None) -> tuple[Any, Keyed | None]:
    return parse_keyed(NAME, data, previous, min_size=0)


def assert_same_as_whole(data: bytes, previous: Keyed | None = None) -> tuple[Any, Keyed | None]:
    """parse_keyed gives what parse_state gives, or raises what it raises."""
    try:
        whole = parse_state(NAME, data)
    except StateValidationError as exc:
        with pytest.raises(StateValidationError) as caught:
            keyed(data, previous)
        assert str(caught.value) == str(exc)
        assert caught.value.errors == exc.errors
        return None, None
    model, parsed = keyed(data, previous)
    assert model == whole
    assert list(model.agents) == list(whole.agents)  # document order
    assert model.extras == whole.extras
    assert dump(model) == dump(whole)
    return model, parsed


def test_first_parse_equals_the_whole_document_and_keeps_each_entrys_text(doc):
    data = serialize(doc)
    model, parsed = assert_same_as_whole(data)
    assert parsed is not None
    assert parsed.document is data  # kept once, shared with the caller: no copy per entry
    assert parsed.spans is None  # worked out when a changed copy is compared with it
    texts = parsed.entry_texts()
    assert list(texts) == list(doc["agents"])
    some = next(iter(doc["agents"]))
    assert json.loads(texts[some]) == doc["agents"][some]
    assert parsed.models[some] is model.agents[some]


def test_a_compared_copy_keeps_spans_into_one_text_not_a_copy_per_entry(doc):
    _, parsed = keyed(serialize(doc))
    changed = copy.deepcopy(doc)
    first = next(iter(changed["agents"]))
    changed["agents"][first]["karma"] += 1
    _, again = assert_same_as_whole(serialize(changed), parsed)
    assert again is not None and isinstance(again.document, str) and again.spans is not None
    start, end = again.spans[first]
    assert json.loads(again.document[start:end]) == changed["agents"][first]


def test_a_previous_copy_with_a_duplicate_key_is_not_compared_with():
    text = '{"agents": {"a": {"name": "one"}, "b": {"name": "b"}, "a": {"name": "two"}}}'
    first, parsed = assert_same_as_whole(text.encode())
    assert parsed is not None and first.agents["a"].name == "two"
    model, _ = assert_same_as_whole(
        b'{"agents": {"a": {"name": "one"}, "b": {"name": "b"}}}', parsed
    )
    assert model.agents["a"].name == "one" and model.agents["a"] is not first.agents["a"]


def test_unchanged_agents_keep_their_objects_and_changed_ones_are_validated_again(doc):
    first, parsed = keyed(serialize(doc))
    changed = copy.deepcopy(doc)
    ids = list(changed["agents"])
    changed["agents"][ids[3]]["karma"] += 5
    changed["agents"][ids[7]]["bio"] = "[bold]new[/] bio \x1b[2J"
    del changed["agents"][ids[9]]
    changed["agents"]["new-agent"] = dict(changed["agents"][ids[0]], name="Newcomer")
    changed["_meta"] = {"count": 41, "last_updated": "2026-11-22T00:00:00Z"}

    model, again = assert_same_as_whole(serialize(changed), parsed)
    assert again is not None
    same = {key for key in model.agents if model.agents[key] is first.agents.get(key)}
    assert same == set(ids) - {ids[3], ids[7], ids[9]}
    assert model.agents[ids[3]].karma == first.agents[ids[3]].karma + 5
    assert model.agents[ids[7]].bio == "[bold]new[/] bio \x1b[2J"
    assert "new-agent" in model.agents and ids[9] not in model.agents


def test_reformatted_text_is_validated_again_with_the_same_result(doc):
    _, parsed = keyed(serialize(doc))
    compact = json.dumps(doc, separators=(",", ":")).encode()
    model, again = assert_same_as_whole(compact, parsed)
    assert again is not None and not any(
        model.agents[key] is parsed.models[key] for key in model.agents
    )


def test_an_entry_whose_old_text_is_a_prefix_of_a_longer_value_is_not_reused(doc):
    _, parsed = keyed(serialize(doc))
    key = next(iter(doc["agents"]))
    old = parsed.entry_texts()[key]
    data = serialize(doc).replace(old.encode(), old.encode() + b" ", 1)  # whitespace: same value
    model, _ = assert_same_as_whole(data, parsed)
    assert model.agents[key] is parsed.models[key]


@pytest.mark.parametrize(
    "text",
    [
        # whitespace, escapes and odd spellings the walk must read exactly
        '{"agents":{}}',
        ' \n\t{ "agents" : { "a\\u0062" : {"name": "x"} , "c\\"d" : {"name": "y"} } , "_meta" : null } \r\n',
        '{"_meta": {"count": 1}, "agents": {"a": {"name": "x", "karma": 1e2}}, "extra": [1, {}]}',
        '{"agents": {"\\u00e9": {"name": "\\ud83d\\ude00"}}, "agents_note": "not the member"}',
        # left to the whole-document validation: it decides, and its errors are reported
        '{"agents": {"a": {"name": "one"}, "b": {"name": "b"}, "a": {"name": "two"}}}',  # twice
        '{"agents": {"a": {"name": "a"}}, "agents": {"b": {"name": "b"}}}',  # the member twice
        '{"agents": {}, "agents": {"b": {"name": "b"}}}',
        '{"agents": [{"name": "x"}]}',  # not an object
        '{"_meta": {}}',  # no agents at all
        '{"agents": {"a": {"karma": "lots"}}}',  # an invalid agent
        '{"agents": {"a": 5}}',
        '{"agents": {"a": {"name": "x"}}, "_meta": {"count": "many"}}',  # an invalid member
        '{"agents": {"a": {"name": "x"}}} trailing',
        '{"agents": {"a": {"name": "x"},}}',  # a trailing comma
        '{"agents": {"a": {"name": "x"}}',  # cut short
        '{"agents": {"a\x01": {"name": "x"}}}',  # a raw control character in a key
        '{"agents": {"a": {"name": "x", "karma": NaN}}}',
        '["agents"]',
        "",
    ],
)
def test_unusual_documents_give_the_whole_documents_result(text):
    assert_same_as_whole(text.encode())


def test_bytes_that_are_not_utf8_give_the_whole_documents_error():
    assert_same_as_whole(b'{"agents": {"a": {"name": "\xff"}}}')


def test_hostile_text_in_keys_and_values_is_kept_exactly(doc):
    hostile = copy.deepcopy(doc)
    template = next(iter(hostile["agents"].values()))
    for index, text in enumerate(PAYLOADS):
        hostile["agents"][f"{text}-{index}"] = dict(template, name=text, bio=text)
    model, parsed = assert_same_as_whole(serialize(hostile))
    assert parsed is not None
    again, _ = assert_same_as_whole(serialize(hostile), parsed)
    assert all(again.agents[key] is model.agents[key] for key in model.agents)


def test_small_files_and_other_files_are_validated_whole(doc):
    data = serialize(doc)
    model, parsed = parse_keyed(NAME, data, None)  # under the 1 MiB default
    assert parsed is None and model == parse_state(NAME, data)
    stats = serialize(generate_state(seed=3, agents=5)["stats.json"])
    model, parsed = parse_keyed("stats.json", stats, None, min_size=0)
    assert parsed is None and model == parse_state("stats.json", stats)


async def change_one_agent_and_refresh(network, store: Store, before: Any):
    """Change one agent's karma and refresh: the result is the whole document's and every
    other agent keeps its object from ``before``."""
    changed = copy.deepcopy(network.doc(NAME))
    key = next(iter(changed["agents"]))
    changed["agents"][key]["karma"] += 1
    network.replace_doc(NAME, changed)
    report = await store.refresh()
    agents = store.snapshot.agents
    assert agents is not None and agents == parse_state(NAME, network.file_bytes(NAME) or b"")
    reused = [k for k in agents.agents if agents.agents[k] is before.agents[k]]
    assert len(reused) == len(before.agents) - 1
    return changed, key, report


async def test_store_refresh_of_a_big_agents_file_reuses_unchanged_agents():
    sandbox = create_app(agents=1300)  # agents.json over 1 MiB: the keyed path
    network = sandbox.state.sandbox.network
    assert len(network.file_bytes(NAME) or b"") > 1 << 20
    async with in_process_client(sandbox, base_url="http://sandbox.invalid") as client:
        store = Store("http://sandbox.invalid", client=client)
        await store.refresh()
        first = store.snapshot.agents
        assert first is not None

        changed, key, report = await change_one_agent_and_refresh(network, store, first)
        assert report.changed == [NAME]
        agents = store.snapshot.agents
        assert agents.agents[key].karma == first.agents[key].karma + 1

        broken = copy.deepcopy(changed)
        broken["agents"][key]["karma"] = "lots"
        network.replace_doc(NAME, broken)
        report = await store.refresh()
        assert store.snapshot.agents is agents  # the last good copy stays
        assert [p.kind for p in report.problems] == ["invalid"]
        assert "$.agents" in report.problems[0].detail and ".karma" in report.problems[0].detail


async def test_the_first_refresh_after_a_start_from_the_cache_compares_with_the_cached_copy(
    tmp_path,
):
    from tui.network.disk_cache import DiskCache

    sandbox = create_app(agents=1300)  # agents.json over 1 MiB: the keyed path
    network = sandbox.state.sandbox.network
    async with in_process_client(sandbox, base_url="http://sandbox.invalid") as client:
        await Store("http://sandbox.invalid", client=client, cache=DiskCache(tmp_path)).refresh()
        store = Store("http://sandbox.invalid", client=client, cache=DiskCache(tmp_path))
        cached = store.load_cache().agents
        assert cached is not None

        _, _, report = await change_one_agent_and_refresh(network, store, cached)
        assert report.fetched == [NAME]


# --------------------------------------------------------------------------- the first copy, in pieces

LAYOUTS = {
    "indent 2 (the service's)": {"indent": 2},
    "indent 4": {"indent": 4},
    "tabs": {"indent": "\t"},
    "default separators": {},
    "compact": {"separators": (",", ":")},
}


def _in_pieces_only(monkeypatch) -> None:
    """Fail the test if the whole-document validation is used instead of the pieces."""

    def whole(*_args, **_kwargs):
        raise AssertionError("validated whole, not in pieces")

    monkeypatch.setattr("tui.network.keyed.parse_state", whole)


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=list(LAYOUTS))
@pytest.mark.parametrize("piece", [1, 200, 1500, 1 << 20])
def test_a_first_copy_validated_in_pieces_equals_the_whole_document(doc, layout, piece):
    data = json.dumps(doc, **layout).encode()
    whole = parse_state(NAME, data)
    model, parsed = parse_keyed(NAME, data, None, min_size=0, piece=piece)
    assert model == whole
    assert list(model.agents) == list(whole.agents)
    assert dump(model) == dump(whole)
    assert parsed is not None and parsed.document is data


@pytest.mark.parametrize("layout", ["indent 2 (the service's)", "indent 4", "tabs"])
def test_a_laid_out_document_is_never_validated_whole(doc, layout, monkeypatch):
    """In an indented document no cut can fall inside an entry: not one piece is re-tried."""
    _in_pieces_only(monkeypatch)
    data = json.dumps(doc, **LAYOUTS[layout]).encode()
    model, _ = parse_keyed(NAME, data, None, min_size=0, piece=1)
    assert len(model.agents) == len(doc["agents"])


def test_text_that_looks_like_a_cut_is_not_cut(doc):
    """Values holding the very bytes a cut is looked for at (in a compact layout, where nested
    objects end the same way as entries): the pieces still hold exactly the entries."""
    tricky = copy.deepcopy(doc)
    for index, (key, agent) in enumerate(list(tricky["agents"].items())):
        agent["bio"] = ['},"', "}}", '}, "x": {', "},\n  }"][index % 4]
        agent["traits"] = {"a": 0.5}
        agent["nested"] = {"deeper": {'}},"': [{}]}}
        tricky["agents"][key + '},"'] = dict(agent)
    for layout in LAYOUTS.values():
        data = json.dumps(tricky, **layout).encode()
        for piece in (1, 300):
            whole = parse_state(NAME, data)
            model, _ = parse_keyed(NAME, data, None, min_size=0, piece=piece)
            assert model == whole
            assert list(model.agents) == list(whole.agents)


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=list(LAYOUTS))
def test_a_bad_agent_in_a_later_piece_gives_the_whole_documents_error(doc, layout):
    broken = copy.deepcopy(doc)
    last = list(broken["agents"])[-3]
    broken["agents"][last]["karma"] = "lots"
    data = json.dumps(broken, **layout).encode()
    with pytest.raises(StateValidationError) as whole:
        parse_state(NAME, data)
    with pytest.raises(StateValidationError) as pieces:
        parse_keyed(NAME, data, None, min_size=0, piece=100)
    assert str(pieces.value) == str(whole.value)
    assert pieces.value.errors == whole.value.errors


@pytest.mark.parametrize(
    "text",
    [
        # a key in two pieces (whole-document rules: the later value in the earlier place)
        '{\n  "agents": {\n    "a": {"name": "one"},\n    "b": {"name": "b"},\n    "a": {"name": "two"}\n  }\n}',
        # the member again after the first (the later one wins, even when it is empty)
        '{\n  "agents": {\n    "a": {"name": "a"}\n  },\n  "agents": {}\n}',
        '{\n  "agents": {\n    "a": {"name": "a"}\n  },\n  "\\u0061gents": {}\n}',
        # the member's brace never closed, or closed twice
        '{\n  "agents": {\n    "a": {"name": "a"}\n  }',
        '{\n  "agents": {\n    "a": {"name": "a"}\n  }\n  }\n}',
        # members after the keyed one, invalid or not
        '{\n  "agents": {\n    "a": {"name": "a"}\n  },\n  "_meta": {"count": "x"}\n}',
        '{\n  "agents": {\n    "a": {"name": "a"}\n  },\n  "_meta": {"count": 1}, "x": [1]\n}',
    ],
)
def test_unusual_documents_in_pieces_give_the_whole_documents_result(text):
    data = text.encode()
    try:
        whole = parse_state(NAME, data)
    except StateValidationError as exc:
        with pytest.raises(StateValidationError) as caught:
            parse_keyed(NAME, data, None, min_size=0, piece=1)
        assert caught.value.errors == exc.errors
        return
    model, _ = parse_keyed(NAME, data, None, min_size=0, piece=1)
    assert model == whole
    assert list(model.agents) == list(whole.agents)


_text = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    ['},"', "}}", "},\n", '"', "\\", "{"]
)
_agent = st.fixed_dictionaries(
    {"name": _text},
    optional={
        "bio": _text,
        "karma": st.integers(-5, 5),
        "traits": st.dictionaries(_text, st.floats(0, 1), max_size=2),
        "extra": st.recursive(
            st.none() | _text, lambda inner: st.dictionaries(_text, inner, max_size=2), max_leaves=4
        ),
    },
)


@given(
    agents=st.dictionaries(_text, _agent, max_size=8),
    layout=st.sampled_from(list(LAYOUTS.values())),
    piece=st.integers(1, 400),
    meta_first=st.booleans(),
)
def test_pieces_fuzz_equal_the_whole_document(agents, layout, piece, meta_first):
    doc = {"_meta": {"count": len(agents)}, "agents": agents}
    if not meta_first:
        doc = {"agents": agents, "_meta": doc["_meta"]}
    data = json.dumps(doc, ensure_ascii=False, **layout).encode()
    whole = parse_state(NAME, data)
    model, _ = parse_keyed(NAME, data, None, min_size=0, piece=piece)
    assert model == whole
    assert list(model.agents) == list(whole.agents)
