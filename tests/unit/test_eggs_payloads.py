"""JSON eggs in words (tui/eggs/json_eggs.py) and nested eggs' members (tui/eggs/nested.py)."""

from __future__ import annotations

from tui.eggs import rapp
from tui.eggs.canonical_json import canonical
from tui.eggs.json_eggs import invite, signature_words, transcript
from tui.eggs.nested import SubEgg, can_enter, members, open_egg, within
from tui.eggs.verify import MAX_NESTING, verify_egg
from tui.eggs.zip_reader import EggSource
from tui.sandbox.eggs import pack_egg, write_stored_zip

UTC = "2026-01-01T00:00:00.000Z"
TAIL = "ab" * 32
ME = f"rappid:@me/thing:{TAIL}"
PLACEHOLDER = "MIGRATED-UNSIGNED-legacy-pointer"


def test_a_transcript_reads_as_a_conversation_whatever_its_members_are_called():
    payload = {"runtime": "brainstem", "transcript": [
        {"role": "user", "content": "hello", "ts": "2026-01-01T00:00:00Z"},
        {"speaker": "agent", "text": [{"text": "part one"}, {"text": "two"}], "extra": 1},
        "not an object",
    ]}  # fmt: skip
    turns, line = transcript(payload)
    assert [(t.role, t.text, t.time) for t in turns] == [
        ("user", "hello", "2026-01-01T00:00:00Z"),
        ("agent", "part one\ntwo", ""),
        ("?", "not an object", ""),
    ]
    assert turns[1].other == '{"extra":1}'
    assert line == "runtime brainstem · 3 turns"
    assert transcript({"runtime": 1, "transcript": {}})[1].endswith(
        "the transcript is not an array"
    )


def test_a_placeholder_signature_is_named_not_a_signature():
    words = signature_words(PLACEHOLDER)
    assert words.startswith("not a signature:") and PLACEHOLDER in words and "placeholder" in words
    assert signature_words(None) == "unsigned: sig is null"
    assert signature_words("a..b").startswith("not a signature:")
    manifest = {"payload": {"target_rappid": ME, "target_url": "https://hub.example/n",
                            "target_kind": "estate"}, "sig": PLACEHOLDER}  # fmt: skip
    seen = invite(manifest)
    assert (seen.target_rappid, seen.target_url, seen.target_kind) == (
        ME,
        "https://hub.example/n",
        "estate",
    )
    assert seen.rappid_problem == seen.url_problem == seen.kind_problem == ""
    assert seen.signature.startswith("not a signature")
    odd = invite({"payload": {"target_rappid": "x", "target_url": 3, "target_kind": "a"}})
    assert odd.rappid_problem and odd.url_problem and odd.kind_problem


def organism(slug: str) -> tuple[bytes, str]:
    rappid = f"rappid:@me/{slug}:{TAIL}"
    egg, _ = pack_egg(variant="organism", rappid=rappid, created_utc=UTC, payload={},
                      files={"rappid.json": canonical({"rappid": rappid}), "soul.md": b"s"})  # fmt: skip
    return egg, rappid


def test_each_member_of_a_neighborhood_is_listed_with_whether_it_matches():
    one, first = organism("one")
    two, second = organism("two")
    hood, _ = pack_egg(variant="neighborhood", rappid=f"rappid:@me/street:{TAIL}",
                       created_utc=UTC, payload={"members": [first, second]},
                       files={"me--one.egg": one, "me--two.egg": two})  # fmt: skip
    report = verify_egg(hood)
    assert report.verified
    with EggSource.of(hood) as source:
        found = members(source, report)
    assert [(m.name, m.listed, m.matches, m.verdict) for m in found] == [
        ("me--one.egg", first, True, "verified"),
        ("me--two.egg", second, True, "verified"),
    ]
    sub = within(hood, found[1].data_offset, found[1].size)
    with open_egg(sub) as source:
        assert verify_egg(source).manifest["rappid"] == second


def test_a_member_that_is_not_its_name_or_is_missing_says_so():
    one, first = organism("one")
    two, _ = organism("two")
    value = {"schema": "rapp/1-egg", "variant": "neighborhood", "rappid": f"rappid:@me/s:{TAIL}",
             "created_utc": UTC, "payload": {"members": [first, f"rappid:@me/gone:{TAIL}"]},
             "sig": None}  # fmt: skip
    files = {"me--one.egg": two, "stray.egg": one}
    paths = sorted(files, key=rapp.path_sort_key)
    value["contents"] = [{"path": p, "hash": rapp.Hb("rapp/1:egg", files[p])} for p in paths]
    rapp_zip = write_stored_zip(
        [("manifest.json", canonical(value))] + [(p, files[p]) for p in paths]
    )
    report = verify_egg(rapp_zip)
    with EggSource.of(rapp_zip) as source:
        found = {m.name: m for m in members(source, report)}
    assert not found["me--one.egg"].matches and "not payload.members[]" in found["me--one.egg"].why
    assert found["stray.egg"].listed is None and not found["stray.egg"].matches
    assert found["me--gone.egg"].verdict == "not in the archive"


def test_depth_is_bounded_by_the_nesting_check():
    assert can_enter(MAX_NESTING - 1) and not can_enter(MAX_NESTING)
    assert SubEgg(b"0123456789", 2, 4).inner(1, 2).open().read(0, 2) == b"34"
