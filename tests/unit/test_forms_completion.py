"""Completion over a prepared index (tui/actions/completion.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import MappingProxyType

from hypothesis import given
from hypothesis import strategies as st

from tui.actions.completion import Completion, ReferenceIndex, References
from tui.network.store import Snapshot

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from forms_rig import demo_snapshot  # noqa: E402

ENTRIES = [
    ("zion-coder-04", "Ada Coder"),
    ("zion-coder-01", "Bob Coder"),
    ("kody-w", "Kody"),
    ("Abeginner22", "A beginner"),
    ("zion-welcomer-01", "Welcome wagon"),
]


def keys(found: list[Completion]) -> list[str]:
    return [item.key for item in found]


def test_prefix_first_in_order_then_substring_then_letters():
    index = ReferenceIndex(ENTRIES)
    # ids starting with the text first, then (here) zion-welcomer-01 for z,i,o,n,-,c in order
    assert keys(index.search("zion-c")) == ["zion-coder-01", "zion-coder-04", "zion-welcomer-01"]
    assert keys(index.search("ZION-COD")) == ["zion-coder-01", "zion-coder-04"]
    # "coder" starts no id: lines containing it, in sorted order
    assert keys(index.search("coder")) == ["zion-coder-01", "zion-coder-04"]
    # a label word matches too
    assert keys(index.search("wagon")) == ["zion-welcomer-01"]
    # letters in order
    assert keys(index.search("zwl")) == ["zion-welcomer-01"]
    assert keys(index.search("kw")) == ["kody-w"]
    assert index.search("qqq") == []


def test_results_are_bounded_and_unique():
    index = ReferenceIndex((f"agent-{n:05d}", "") for n in range(5000))
    found = index.search("agent-0", limit=7)
    assert keys(found) == [f"agent-{n:05d}" for n in range(7)]
    assert len(index.search("a", limit=3)) == 3
    assert index.search("a", limit=0) == []
    found = index.search("00", limit=50)
    assert len(found) == 50 and len(set(keys(found))) == 50


def test_empty_query_gives_the_first_entries():
    assert keys(ReferenceIndex(ENTRIES).search("", limit=2)) == ["Abeginner22", "kody-w"]


def test_hostile_labels_are_cleaned_keys_kept():
    index = ReferenceIndex([("a[/]b", "\x1b[2Jclear\nline"), ("x\x1by", "[@click=app.quit]")])
    found = index.search("a[")
    assert keys(found) == ["a[/]b"]
    assert "\x1b" not in found[0].line and "\n" not in found[0].line
    assert found[0].label.startswith("\u241b[2Jclear")
    other = index.search("click")
    assert keys(other) == ["x\x1by"]  # the key as the service spelled it (validation judges it)
    assert "\x1b" not in other[0].line


@given(
    st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=30, unique=True),
    st.text(max_size=6),
)
def test_every_result_matches_and_no_prefix_match_is_missed(ids, query):
    index = ReferenceIndex((key, "") for key in ids)
    found = keys(index.search(query, limit=len(ids)))
    assert len(found) == len(set(found))
    assert set(found) <= set(ids)
    needle = query.lower().strip()
    if needle and "\n" not in needle and needle.isprintable():
        prefixed = sorted(
            (k for k in ids if k.lower().startswith(needle)), key=lambda k: (k.lower(), k)
        )
        assert found[: len(prefixed)] == prefixed


def test_references_from_a_demo_snapshot():
    snapshot = demo_snapshot()
    references = References(snapshot)
    agent = next(iter(snapshot.agents.agents))
    assert keys(references.search("agent", agent))[0] == agent
    channel = next(iter(snapshot.channels.channels))
    assert channel in keys(references.search("channel", channel))
    proposal = snapshot.seeds.proposals[0].id
    assert keys(references.search("proposal", proposal)) == [proposal]
    number = next(p.number for p in snapshot.trending.trending if p.number is not None)
    assert str(number) in keys(references.search("discussion", str(number), limit=50))
    assert references.search("nothing-of-this-kind", "a") == []
    assert references.index("agent") is references.index("agent")  # built once


def test_references_of_an_empty_snapshot():
    from tui.network.store import Snapshot

    assert References(Snapshot.empty()).search("agent", "a") == []


# ------------------------------------------------------------------------- ids not in the state


def test_an_id_not_in_the_state_is_said_and_one_that_is_is_not():
    from tui.actions.builtin_actions import CATALOG as BUILTIN
    from tui.actions.completion import reference_warnings

    snapshot = demo_snapshot()
    references = References(snapshot)
    agent = next(iter(snapshot.agents.agents))
    channel = sorted(snapshot.channels.channels)[0]
    proposal = snapshot.seeds.proposals[0].id
    assert references.unknown("agent", agent) is None
    assert references.unknown("agent", "nobody-here") == "not an agent in this network's state"
    assert references.unknown("channel", channel) is None
    assert references.unknown("channel", "no-such-channel") == (
        "not a channel in this network's state"
    )
    assert references.unknown("proposal", proposal) is None
    assert references.unknown("proposal", "prop-x") == "not a proposal in this network's state"
    # the same id in another case is not the id: what was meant is named
    assert references.unknown("agent", agent.upper()) == (
        f"not an agent in this network's state (did you mean {agent}?)"
    )
    # a list names the ids that are not there, once each
    assert references.unknown("channel", [channel, "nope", "nope", "gone"]) == (
        "not channels in this network's state: nope, gone"
    )
    assert references.unknown("channel", ["nope", channel]) == (
        "not a channel in this network's state: nope"
    )
    # nothing to check, or nothing to check against: no word
    assert references.unknown("agent", "") is None
    assert references.unknown("channel", []) is None
    assert references.unknown("discussion", "99999") is None  # the state lists trending's only
    empty = References(Snapshot.empty())
    assert empty.unknown("agent", "nobody-here") is None  # agents.json not loaded: cannot tell
    # the CLI's question, field by field, from the same check
    payload = {"channel": "no-such-channel", "title": "t", "body": "b"}
    assert reference_warnings(BUILTIN["create_post"], payload, references) == {
        "channel": "not a channel in this network's state"
    }
    assert reference_warnings(BUILTIN["poke"], {"target_agent": agent}, references) == {}


def test_a_deployment_without_proposals_cannot_tell_and_an_empty_list_can():
    import msgspec

    snapshot = demo_snapshot()
    seeds = snapshot.seeds
    files = dict(snapshot.files)
    files["seeds.json"] = msgspec.structs.replace(
        files["seeds.json"], model=msgspec.structs.replace(seeds, proposals=None)
    )
    assert References(Snapshot(MappingProxyType(files))).unknown("proposal", "p-1") is None
    files["seeds.json"] = msgspec.structs.replace(
        files["seeds.json"], model=msgspec.structs.replace(seeds, proposals=())
    )
    without = References(Snapshot(MappingProxyType(files)))
    assert without.unknown("proposal", "p-1") == "not a proposal in this network's state"
    assert without.search("proposal", "") == []


def test_hostile_ids_are_quoted_clean_and_short():
    references = References(demo_snapshot())
    said = references.unknown("channel", ["a\x1b[2J\nb" + "x" * 200])
    assert said is not None and "\x1b" not in said and "\n" not in said
    assert len(said) < 130
