"""An agent's inbox (tui/pulse/inbox.py): its notifications and the pokes aimed at it, newest
first, a poke listed once, read markers kept locally; real files, hostile ones, and any model."""

from __future__ import annotations

from collections import Counter
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pulse_rig import REAL_PULSE_DIR, hostile_pulse, pulse_snapshot, real_documents

from tui.network.pulse import Notification, NotificationsFile, Poke, PokeContext, PokesFile
from tui.network.snapshot import FileState, Snapshot
from tui.pulse.inbox import InboxItem, inbox_for, place_text, poke_key
from tui.pulse.read_state import ReadState

ME = "zion-coder-03"


def note(sender: str, ts: str, detail: str, kind: str = "poke", **more) -> dict:
    return {
        "agent_id": more.pop("agent_id", ME),
        "type": kind,
        "from_agent": sender,
        "timestamp": ts,
        "read": more.pop("read", False),
        "detail": detail,
        **more,
    }


def poke(sender: str, ts: str, message: str, **more) -> dict:
    return {
        "from_agent": sender,
        "target_agent": more.pop("target_agent", ME),
        "message": message,
        "timestamp": ts,
        **more,
    }


PIN = {
    "type": "space_summon",
    "discussion": 2031,
    "location": {"lat": 46.2044, "lon": 6.0536, "name": "CERN, Geneva"},
    "url": "https://github.com/o/r/discussions/2031",
}


def docs(notifications: list[dict], pokes: list[dict] | None = None) -> dict:
    out = {"notifications.json": {"notifications": notifications}}
    if pokes is not None:
        out["pokes.json"] = {"pokes": pokes}
    return out


def test_a_poke_and_its_notification_are_one_item_with_the_pokes_context():
    snapshot = pulse_snapshot(
        docs(
            [
                note("system", "2026-02-15T23:39:57Z", "Summoned to CERN"),
                note("kody-w", "2026-03-08T02:40:31Z", "media-1", kind="media_verified"),
                note("someone", "2026-03-01T00:00:00Z", "not for me", agent_id="other"),
            ],
            [
                poke("system", "2026-02-15T23:39:57Z", "Summoned to CERN", context=PIN,
                     resolved=True, resolved_at="2026-02-15T23:45:23Z"),
                poke("zion-debater-01", "2026-03-10T10:00:00Z", "Come back!"),
                poke("x", "2026-03-11T10:00:00Z", "for another", target_agent="other"),
            ],
        )
    )  # fmt: skip
    items = inbox_for(ME, snapshot, ReadState(None))
    assert [(i.kind, i.type, i.sender) for i in items] == [
        ("poke", "poke", "zion-debater-01"),
        ("notification", "media_verified", "kody-w"),
        ("poke", "poke", "system"),
    ]
    pin = items[2]
    assert pin.discussion == 2031 and pin.url == PIN["url"] and pin.resolved is True
    assert pin.place == "CERN, Geneva (46.2044, 6.0536)"
    assert isinstance(pin.model, Poke) and pin.unread and pin.copies == 1
    assert pin.key == poke_key(pin.model)
    media = items[1]
    assert media.text == "media-1" and isinstance(media.model, Notification)
    assert media.resolved is None and media.place is None and media.discussion is None


def test_a_key_does_not_depend_on_which_file_is_published_or_on_order():
    both = [note("a", "2026-03-01T00:00:00Z", "hi"), note("b", "2026-03-02T00:00:00Z", "yo")]
    pokes = [poke("b", "2026-03-02T00:00:00Z", "yo"), poke("a", "2026-03-01T00:00:00Z", "hi")]
    read = ReadState(None)
    keys = [
        {i.key for i in inbox_for(ME, pulse_snapshot(d), read)}
        for d in (docs(both), docs(both[::-1], pokes), {"pokes.json": {"pokes": pokes}})
    ]
    assert keys[0] == keys[1] == keys[2] and len(keys[0]) == 2


def test_identical_entries_are_one_item_with_their_count():
    twice = note("zion-coder-06", "2026-03-07T23:24:37Z", "we miss you")
    snapshot = pulse_snapshot(
        docs([twice, twice, note("z", "2026-03-07T23:24:37Z", "other")],
             [poke("zion-coder-06", "2026-03-07T23:24:37Z", "we miss you")] * 3)
    )  # fmt: skip
    items = inbox_for(ME, snapshot, ReadState(None))
    assert {i.sender: i.copies for i in items} == {"z": 1, "zion-coder-06": 3}
    assert len(items) == 2


def test_read_here_or_on_the_deployment_is_not_unread(tmp_path):
    snapshot = pulse_snapshot(
        docs(
            [
                note("a", "2026-03-01T00:00:00Z", "one"),
                note("b", "2026-03-02T00:00:00Z", "two", read=True),
                note("c", "2026-03-03T00:00:00Z", "three", kind="follow"),
            ]
        )
    )
    read = ReadState(tmp_path / "read.json")
    items = inbox_for(ME, snapshot, read)
    assert [i.unread for i in items] == [True, False, True]
    assert read.unread_count(items) == 2
    read.mark_read([items[0].key])
    assert read.unread_count(items) == 1  # the items listed before count it read at once
    again = inbox_for(ME, snapshot, ReadState(tmp_path / "read.json"))  # after a restart
    assert [i.unread for i in again] == [False, False, True]
    read.mark_all(again)
    assert read.unread_count(inbox_for(ME, snapshot, read)) == 0


def test_newest_first_with_unreadable_times_last_and_later_entries_first_among_equals():
    snapshot = pulse_snapshot(
        docs(
            [
                note("no-time", "", "x", kind="a"),
                note("bad-time", "yesterday", "x", kind="b"),
                note("old", "2026-01-01T00:00:00Z", "x", kind="c"),
                note("tie-1", "2026-02-01T00:00:00Z", "x", kind="d"),
                note("tie-2", "2026-02-01T00:00:00Z", "x", kind="e"),
                note("naive", "2026-03-01T00:00:00", "x", kind="f"),
                note("offset", "2026-02-15T00:00:00+05:00", "x", kind="g"),
            ]
        )
    )
    senders = [i.sender for i in inbox_for(ME, snapshot, ReadState(None))]
    assert senders == ["naive", "offset", "tie-2", "tie-1", "old", "bad-time", "no-time"]


def test_no_files_no_items_and_another_agent_sees_nothing_of_mine():
    empty = Snapshot(MappingProxyType({"x": FileState("x")}))
    assert inbox_for(ME, empty, ReadState(None)) == []
    snapshot = pulse_snapshot(docs([note("a", "2026-03-01T00:00:00Z", "hi")], []))
    assert inbox_for("someone-else", snapshot, ReadState(None)) == []


@pytest.mark.parametrize(
    ("location", "text"),
    [
        ({"lat": 46.2044, "lon": 6.0536, "name": "CERN, Geneva"}, "CERN, Geneva (46.2044, 6.0536)"),
        ({"lat": -33.5, "lon": 151}, "(-33.5, 151)"),
        ({"name": "Mars"}, "Mars"),
        ("a named place", "a named place"),
        ({"lat": True, "lon": 2, "name": "  "}, None),
        ({"lat": 10**400, "lon": 1e308}, None),
        ({"lat": float("nan"), "lon": 1.0, "name": "N"}, "N"),
        ([1, 2], None),
        (None, None),
        ("", None),
    ],
)
def test_a_place_is_shown_as_text(location, text):
    assert place_text(location) == text


def test_the_real_files_make_inboxes(tmp_path):
    if not REAL_PULSE_DIR.is_dir():
        pytest.skip("../shared/real is not present beside this clone")
    snapshot = pulse_snapshot(real_documents("notifications.json", "pokes.json"))
    read = ReadState(tmp_path / "read.json")
    notes = snapshot.notifications.notifications
    counted = {}
    for agent in {n.agent_id for n in notes} | {p.target_agent for p in snapshot.pokes.pokes}:
        items = inbox_for(agent, snapshot, read)
        counted[agent] = items
        assert len({i.key for i in items}) == len(items)
        stamps = [i.timestamp for i in items]
        assert stamps == sorted(stamps, reverse=True)
    # every poke notification has its pokes entry: no item is a bare poke notification
    every = [i for items in counted.values() for i in items]
    assert not [i for i in every if i.kind == "notification" and i.type == "poke"]
    kinds = Counter(i.type for i in every)
    assert kinds["media_verified"] == kinds["media_rejected"] == 1
    pins = [i for i in every if i.discussion is not None]
    assert pins and all(i.place == "CERN, Geneva (46.2044, 6.0536)" for i in pins)
    assert all(i.resolved for i in pins)
    # duplicates are counted, not listed twice
    assert sum(i.copies for i in counted["zion-wildcard-04"]) >= len(counted["zion-wildcard-04"])


def test_hostile_text_in_every_field_is_kept_raw_and_bounded(tmp_path):
    snapshot = pulse_snapshot(hostile_pulse("victim"))
    items = inbox_for("victim", snapshot, ReadState(tmp_path / "r.json"))
    assert items and all(isinstance(i, InboxItem) for i in items)
    for item in items:
        assert len(item.text) <= 2000 and (item.url is None or len(item.url) <= 2000)
        assert item.place is None or len(item.place) <= 2100
        assert item.discussion is None or item.discussion > 0
        assert len(item.key) == 20 and item.key.isalnum()
    assert any("\x1b[2J" in i.text for i in items)  # raw: the screens clean it
    assert any(i.discussion is None and i.kind == "notification" for i in items)


# --------------------------------------------------------------------------- any model

_text = st.text(max_size=30) | st.none()
_notification = st.builds(
    Notification,
    agent_id=st.sampled_from([ME, "other", ""]),
    type=st.text(max_size=10),
    from_agent=_text,
    timestamp=_text | st.sampled_from(["2026-03-01T00:00:00Z", "2026-03-01T00:00:00+99:00"]),
    read=st.booleans(),
    detail=_text,
)
_context = st.builds(
    PokeContext,
    type=_text,
    discussion=st.integers(min_value=-(2**70), max_value=2**70) | st.none(),
    url=_text,
    location=st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=10),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.sampled_from(["lat", "lon", "name", "x"]), inner, max_size=4)
        ),
        max_leaves=8,
    ),
)
_poke = st.builds(
    Poke,
    from_agent=st.text(max_size=10),
    target_agent=st.sampled_from([ME, "other"]),
    message=_text,
    timestamp=_text,
    context=_context | st.none(),
    resolved=st.booleans() | st.none(),
)


@given(
    st.lists(_notification, max_size=12) | st.none(),
    st.lists(_poke, max_size=12) | st.none(),
)
def test_inbox_for_never_raises_on_any_model(notifications, pokes):
    files = {}
    if notifications is not None:
        model = NotificationsFile(notifications=tuple(notifications))
        files["notifications.json"] = FileState("notifications.json", model=model)
    if pokes is not None:
        files["pokes.json"] = FileState("pokes.json", model=PokesFile(pokes=tuple(pokes)))
    snapshot = Snapshot(MappingProxyType(files))
    read = ReadState(None)
    items = inbox_for(ME, snapshot, read)
    assert len({i.key for i in items}) == len(items)
    assert read.unread_count(items) == sum(i.unread for i in items)
    assert read.new_since_told(items) == [i for i in items if i.unread]
    assert read.new_since_told(items) == []
