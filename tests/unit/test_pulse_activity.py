"""The change log worded for a person (tui/pulse/activity.py): every type the deployment's
processor writes, audits with their counts, unknown types from their fields; stable keys; rows
that lead somewhere; real files, hostile ones, and any model."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pulse_rig import REAL_PULSE_DIR, hostile_pulse, pulse_snapshot, real_documents

from tui.network.models import parse_state
from tui.network.pulse import Change, ChangesFile
from tui.pulse.activity import MAX_VALUE, TEMPLATES, activity_rows, describe, matches

TS = "2026-03-09T06:45:59Z"


def changes(*entries: dict) -> ChangesFile:

    return parse_state("changes.json", json.dumps({"changes": list(entries)}).encode())


def one(entry: dict):
    (row,) = activity_rows(changes({"ts": TS, **entry}))
    return row


@pytest.mark.parametrize(
    ("entry", "text", "agent", "post", "channel"),
    [
        ({"type": "heartbeat", "id": "zion-coder-03"}, "zion-coder-03 sent a heartbeat",
         "zion-coder-03", None, None),
        ({"type": "new_agent", "id": "rappter-advocate"}, "rappter-advocate joined",
         "rappter-advocate", None, None),
        ({"type": "agent_dormant", "id": "openclaw"}, "openclaw went dormant", "openclaw", None,
         None),
        ({"type": "poke", "target": "zion-archivist-03"}, "zion-archivist-03 was poked",
         "zion-archivist-03", None, None),
        ({"type": "poke", "id": "a", "target": "b"}, "a poked b", "a", None, None),
        ({"type": "heartbeat_audit", "agents_marked_dormant": 1, "total_active": 96,
          "total_dormant": 13}, "audit: 1 marked dormant · 96 active · 13 dormant", None, None,
         None),
        ({"type": "heartbeat_audit", "total_active": 12000, "newly_woken": 2.5},
         "audit: 12,000 active · 2.5 newly woken", None, None, None),
        ({"type": "heartbeat_audit"}, "audit: no counts", None, None, None),
        ({"type": "new_channel", "slug": "debates"}, "c/debates was created", None, None,
         "debates"),
        ({"type": "follow", "id": "a", "target": "b"}, "a followed b", "a", None, None),
        ({"type": "pin", "slug": "general", "discussion": 42},
         "post #42 was pinned in c/general", None, 42, "general"),
        ({"type": "pin"}, "a post was pinned in a channel", None, None, None),
        ({"type": "flag", "id": "mod", "discussion": 7}, "mod flagged post #7", "mod", 7, None),
        ({"type": "delete_post", "discussion": "7"}, "a post was deleted", None, None, None),
        ({"type": "karma_transfer", "id": "a", "target": "b", "amount": 25},
         "a gave 25 karma to b", "a", None, None),
        ({"type": "karma_transfer", "id": "a"}, "a gave some karma to someone", "a", None, None),
        ({"type": "add_moderator", "slug": "x", "target": "m"}, "m became a moderator of c/x",
         "m", None, "x"),
        ({"type": "merge", "id": "a", "partner": "b"}, "a merged souls with b", "a", None, None),
        ({"type": "token_transfer", "id": "a", "token_id": "t-1", "to_owner": "b"},
         "a sent token t-1 to b", "a", None, None),
        ({"type": "agent_resurrected", "id": "zion-x", "reason": "back", "karma": 3},
         "agent resurrected · id zion-x · reason back · karma 3", "zion-x", None, None),
        ({"type": "", "weird": True}, "a change of no type · weird yes", None, None, None),
    ],
)  # fmt: skip
def test_each_type_is_worded_and_leads_somewhere(entry, text, agent, post, channel):
    row = one(entry)
    assert (row.text, row.agent, row.post, row.channel) == (text, agent, post, channel)
    assert row.type == entry["type"] and row.ts == TS and isinstance(row.model, Change)


def test_every_type_the_processor_writes_has_a_sentence():
    # the types of the deployment's change log (scripts/actions/shared.py, add_change; the
    # heartbeat audit's dormancy)
    written = {
        "new_agent", "heartbeat", "poke", "new_channel", "profile_update", "flag", "follow",
        "unfollow", "pin", "unpin", "delete_post", "channel_update", "add_moderator",
        "remove_moderator", "recruit", "karma_transfer", "new_topic", "tier_upgrade",
        "new_listing", "purchase", "token_claim", "token_transfer", "token_list",
        "token_delist", "deploy", "battle", "merge", "echo", "stake", "unstake", "prophecy",
        "prophecy_reveal", "bounty", "bounty_claim", "quest", "quest_complete",
        "prediction_stake", "prediction_resolve", "fuse_creature", "forge", "equip",
        "alliance_form", "alliance_join", "alliance_leave", "tournament_enter", "upvote",
        "downvote", "verify", "agent_dormant", "heartbeat_audit",
    }  # fmt: skip
    assert written - {"poke", "heartbeat_audit"} <= set(TEMPLATES)
    for kind in written:
        bare = describe(Change(ts=TS, type=kind))
        full = describe(Change(ts=TS, type=kind, id="zion-a", target="zion-b"))
        for text in (bare, full):
            assert text and "{" not in text and "}" not in text and " · " not in text, kind
        assert "zion-a" in full or "zion-b" in full or kind in ("new_channel", "channel_update",
            "pin", "unpin", "delete_post", "new_topic", "heartbeat_audit"), kind  # fmt: skip


def test_every_agent_an_entry_names_is_there_to_filter_on():
    row = one({"type": "token_transfer", "id": "a", "to_owner": "b", "partner": "a"})
    assert row.agents == ("a", "b")
    assert matches(row, agent="b") and matches(row, agent="a") and not matches(row, agent="c")
    assert matches(row, types=["TOKEN_TRANSFER", "x"]) and not matches(row, types=["poke"])
    assert matches(row) and matches(row, types=[], agent=None)


def test_newest_first_and_keys_stable_across_refreshes_and_distinct_for_repeats():
    base = [
        {"ts": "2026-03-08T22:49:33Z", "type": "heartbeat", "id": "a"},
        {"ts": "2026-03-08T22:49:33Z", "type": "heartbeat", "id": "a"},  # the same, twice
        {"ts": "2026-03-09T00:00:00Z", "type": "new_agent", "id": "b"},
        {"ts": "soon", "type": "heartbeat", "id": "c"},
        {"ts": "2026-03-08T23:00:00+01:00", "type": "heartbeat", "id": "d"},
    ]
    first = activity_rows(changes(*base))
    assert [r.agent for r in first] == ["b", "a", "a", "d", "c"]
    assert len({r.key for r in first}) == 5
    # a refresh: one entry pruned from the start, one appended at the end
    later = activity_rows(changes(*base[1:], {"ts": "2026-03-10T00:00:00Z", "type": "x"}))
    assert later is not first
    assert later[0].type == "x" and later[0].key not in {r.key for r in first}
    kept = {r.key for r in later[1:]}
    assert kept < {r.key for r in first}
    # the file object unchanged: the very same rows
    again = changes(*base)
    assert activity_rows(again) is activity_rows(again)


def test_values_are_cut_in_the_sentence_and_kept_whole_in_the_row():
    row = one({"type": "follow", "id": "x" * 5000, "target": "y"})
    assert len(row.text) < 2 * MAX_VALUE and row.text.endswith("followed y")
    assert row.agent == "x" * 5000


def test_none_and_empty_files_have_no_rows():
    assert activity_rows(None) == []
    assert activity_rows(changes()) == []


def test_the_real_change_log_is_worded(real_types=("heartbeat", "poke", "new_agent")):
    if not REAL_PULSE_DIR.is_dir():
        pytest.skip("../shared/real is not present beside this clone")
    snapshot = pulse_snapshot(real_documents("changes.json"))
    rows = activity_rows(snapshot.changes)
    assert len(rows) == len(snapshot.changes.changes) == len({r.key for r in rows})
    stamps = [r.ts for r in rows]
    assert stamps == sorted(stamps, reverse=True)
    kinds = Counter(r.type for r in rows)
    assert set(real_types) <= set(kinds) and kinds["heartbeat_audit"] >= 1
    for row in rows:
        assert "{" not in row.text and "someone" not in row.text
        if row.type != "heartbeat_audit":
            assert row.agent and row.agent in row.text
    audits = [r.text for r in rows if r.type == "heartbeat_audit"]
    assert all(t.startswith("audit: ") and "active" in t and "dormant" in t for t in audits)
    assert "openclaw went dormant" in {r.text for r in rows}


def test_hostile_fields_never_break_a_row():
    rows = activity_rows(pulse_snapshot(hostile_pulse("victim")).changes)
    assert rows and len({r.key for r in rows}) == len(rows)
    for row in rows:
        assert isinstance(row.text, str) and len(row.text) < 2000
        assert row.post is None or row.post > 0
    assert any("\x1b[2J" in r.text for r in rows)  # raw: the screens clean it
    assert any(r.text.startswith("audit: ") and "a huge number" in r.text for r in rows)


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
_entries = st.fixed_dictionaries(
    {
        "type": st.sampled_from([*TEMPLATES, "poke", "heartbeat_audit", "zzz", ""])
        | st.text(max_size=8)
    },
    optional={
        "ts": st.text(max_size=25) | st.just(TS),
        "id": st.text(max_size=10),
        "target": st.text(max_size=10),
        "slug": _values,
        "discussion": _values,
        "amount": _values,
        "agents_marked_dormant": _values,
        "extra_field": _values,
    },
)


@given(st.lists(_entries, max_size=15))
def test_activity_rows_never_raises_on_any_model(entries):

    try:
        model = parse_state("changes.json", json.dumps({"changes": entries}).encode())
    except Exception:  # noqa: BLE001 - what the store refuses never reaches the rows
        return
    rows = activity_rows(model)
    assert len(rows) == len(entries) == len({r.key for r in rows})
    assert all(isinstance(r.text, str) and r.text for r in rows)
