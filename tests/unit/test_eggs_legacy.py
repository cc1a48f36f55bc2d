"""Eggs from before RAPP/1: recognised, read safely under caps, checked against their store
record, listed and read, never called verified; hostile ones refused with the check that failed."""

from __future__ import annotations

import hashlib
import json
import zipfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import REAL_DIR
from tests.legacy_eggs import (
    AGENT,
    PAGE,
    brainstem_entries,
    identity,
    indented,
    legacy_egg,
    patch,
    rapp_egg,
    store_app,
    zip_of,
)
from tui.eggs import legacy_zip
from tui.eggs.legacy import LEGACY_CHECKS, read_entry, recognise
from tui.eggs.pipeline import judge
from tui.eggs.store import app_from_record
from tui.eggs.zip_reader import EggSource

REAL_STORE = REAL_DIR / "rapp-store"
IDS = [check_id for check_id, _ in LEGACY_CHECKS]


def first_failure(report) -> str | None:
    failure = report.first_failure
    return failure[1].id if failure is not None else None


def test_a_brainstem_egg_is_legacy_read_whole_and_never_verified():
    egg = legacy_egg()
    report = judge(egg, store=store_app(egg), came_from="https://store.example/egg/x.egg")
    assert [c.id for c in report.checks] == IDS
    assert report.format == "legacy (brainstem-egg/2.2-rapplication)"
    assert report.ok and report.legacy and not report.verified
    assert report.as_json()["format"] == report.format and report.as_json()["verified"] is False
    assert report.sha256 == hashlib.sha256(egg).hexdigest() and report.size == len(egg)
    assert {c.status for c in report.checks} == {"pass"}
    assert report.manifest["rappid"] == identity()["rappid"]
    names = [e.name for e in report.entries]
    assert names == ["rappid.json", "agents/field_notes_agent.py",
                     "rapp_ui/field_notes/index.html", "manifest.json"]  # fmt: skip
    with EggSource.of(egg) as source:
        assert read_entry(source, "agents/field_notes_agent.py") == AGENT
        assert read_entry(source, "rapp_ui/field_notes/index.html") == PAGE


def test_an_older_rapp_egg_is_legacy_too_and_says_what_does_not_apply():
    report = judge(rapp_egg())
    assert report.format == "legacy (rapp-egg/1.0)" and report.ok and not report.verified
    assert report.by_id("legacy.identity").detail == "the egg has no rappid.json"
    assert report.by_id("store.size").status == "skip"


def test_a_rapp1_egg_is_not_taken_for_a_legacy_one():
    from tui.sandbox.eggs import SeedBootSpec, build_seed_boot

    egg, _ = build_seed_boot(SeedBootSpec("x-co", "X Co", "t", "m"), "https://hub.example")
    assert recognise(EggSource.of(egg)) is None
    report = judge(egg)
    assert report.format == "rapp/1" and report.verified
    other = zip_of([("manifest.json", indented({"schema": "something-else/1"}))])
    assert judge(other).format == "rapp/1" and not judge(other).ok  # refused by RAPP/1's rules


@pytest.mark.parametrize(
    ("changes", "check", "words"),
    [
        ({"egg_bytes": 1}, "store.size", "the store record says 1"),
        ({"singleton_sha256": "0" * 64}, "store.agent", "sha256"),
        ({"singleton_bytes": 3}, "store.agent", "says 3 bytes"),
        ({"rappid": "rappid:@demo/other:" + "0" * 32}, "store.rappid", "other"),
    ],
)
def test_a_broken_store_promise_fails_its_check(changes, check, words):
    egg = legacy_egg()
    report = judge(egg, store=store_app(egg, **changes))
    assert report.failed() == [check] and words in report.by_id(check).detail


def test_an_egg_without_its_agent_file_says_so_rather_than_failing():
    egg = zip_of([e for e in brainstem_entries() if not e[0].startswith("agents/")])
    report = judge(egg, store=store_app(egg))
    assert report.ok
    agent = report.by_id("store.agent")
    assert agent.status == "skip" and "is not in this egg" in agent.detail


@pytest.mark.parametrize(
    ("entries", "check"),
    [
        ({"manifest.json": b'{"schema": "brainstem-egg/2.2-rapplication", "a": 1, "a": 2}'},
         "legacy.manifest"),
        ({"rappid.json": b"[1, 2]"}, "legacy.identity"),
        ({"rappid.json": indented(identity(rappid="rappid:@demo/else:" + "1" * 32))},
         "legacy.rappid"),
    ],
)  # fmt: skip
def test_manifest_and_rappid_json_are_parsed_strictly_and_must_agree(entries, check):
    egg = zip_of([(name, entries.get(name, data)) for name, data in brainstem_entries()])
    report = judge(egg)
    assert report.legacy and first_failure(report) == check


# ---------------------------------------------------------------------- hostile containers


@pytest.mark.parametrize(
    "name",
    ["../evil.py", "/etc/passwd", "a\\b.py", "C:evil.py", "agents/../../x", "a/./b", "a//b",
     "esc\x1b.py"],
)  # fmt: skip
def test_traversal_and_unsafe_names_are_refused(name):
    egg = zip_of([*brainstem_entries()[:-1], (name, b"x"), brainstem_entries()[-1]])
    report = judge(egg)
    assert report.legacy and first_failure(report) == "legacy.names"
    assert not report.ok and report.by_id("legacy.crc").detail.startswith("not run")


def test_a_name_with_a_nul_is_refused():
    egg = legacy_egg()
    hostile = egg.replace(b"rapp_ui/field_notes/index.html", b"rapp_ui/field_n\x00tes/index.html")
    report = judge(hostile)
    assert (
        first_failure(report) == "legacy.names" and "control" in report.by_id("legacy.names").detail
    )


def test_links_duplicates_encryption_and_odd_methods_are_refused():
    egg = legacy_egg()
    link = patch(egg, "rappid.json", external=0o120777 << 16)
    assert first_failure(judge(link)) == "legacy.names"
    assert "symbolic link" in judge(link).by_id("legacy.names").detail
    with pytest.warns(UserWarning):  # zipfile says so, and writes it all the same
        twice = zip_of([("rappid.json", b"{}"), *brainstem_entries()])
    assert "duplicate" in judge(twice).by_id("legacy.names").detail
    encrypted = patch(egg, "agents/field_notes_agent.py", flags=0x0001)
    assert first_failure(judge(encrypted)) == "legacy.encryption"
    bzip2 = patch(egg, "agents/field_notes_agent.py", method=12)
    assert first_failure(judge(bzip2)) == "legacy.methods"


def test_a_wrong_crc_or_size_is_refused_after_every_entry_inflated_within_the_caps():
    egg = legacy_egg()
    report = judge(patch(egg, "agents/field_notes_agent.py", crc=0x12345678))
    assert (
        first_failure(report) == "legacy.crc" and "0x12345678" in report.by_id("legacy.crc").detail
    )
    short = judge(patch(egg, "rappid.json", size=10))  # inflates past what it declares
    assert (
        first_failure(short) == "legacy.inflate"
        and "stopped" in short.by_id("legacy.inflate").detail
    )


def test_overlapping_entries_are_refused():
    egg = legacy_egg()
    overlapping = patch(egg, "agents/field_notes_agent.py", offset=0)  # rappid.json's place
    report = judge(overlapping)
    assert first_failure(report) == "legacy.local"


def test_a_deflate_bomb_declared_honestly_is_refused_unread():
    bomb = b"\0" * (20 << 20)  # 20 MiB of zeros deflate ~1000x: past the ratio cap
    egg = zip_of([*brainstem_entries()[:-1], ("data/zeros.bin", bomb), brainstem_entries()[-1]])
    assert len(egg) < 100_000
    report = judge(egg)
    assert first_failure(report) == "legacy.inflate"
    assert (
        "200x" in report.by_id("legacy.inflate").detail
        and "not inflated" in report.by_id("legacy.inflate").detail
    )


def test_a_bomb_that_lies_about_its_size_is_stopped_at_the_size_it_declares(monkeypatch):
    """The directory says a few bytes; the stream inflates to megabytes: the inflater stops one
    byte past the declared size, whatever follows (bounded memory, bounded time)."""
    seen: list[int] = []
    real = legacy_zip.zlib.decompressobj

    class Counting:
        def __init__(self, *args):
            self.inner = real(*args)

        def decompress(self, data, max_length=0):
            out = self.inner.decompress(data, max_length)
            seen.append(len(out))
            return out

        def __getattr__(self, name):
            return getattr(self.inner, name)

    monkeypatch.setattr(legacy_zip.zlib, "decompressobj", Counting)
    bomb = b"\0" * (8 << 20)
    egg = zip_of([*brainstem_entries()[:-1], ("data/zeros.bin", bomb), brainstem_entries()[-1]])
    compressed = legacy_zip.LegacyZipReader(EggSource.of(egg)).structure()
    entry = next(e for e in compressed if e.name == "data/zeros.bin")
    lying = patch(egg, "data/zeros.bin", size=entry.compressed_size * 2)
    report = judge(lying)
    assert (
        first_failure(report) == "legacy.inflate"
        and "stopped" in report.by_id("legacy.inflate").detail
    )
    assert max(seen) <= entry.compressed_size * 2 + 1


def test_the_total_cap_holds_over_many_entries(monkeypatch):
    monkeypatch.setattr(legacy_zip, "MAX_TOTAL", 4000)
    egg = zip_of([*brainstem_entries()[:-1], *((f"data/{n}.txt", bytes(range(256)) * 4)
                                               for n in range(5)), brainstem_entries()[-1]])  # fmt: skip
    report = judge(egg)
    assert (
        first_failure(report) == "legacy.inflate"
        and "in all" in report.by_id("legacy.inflate").detail
    )


def test_zip64_and_trailing_garbage_are_container_failures():
    egg = legacy_egg()
    end = egg.rindex(b"PK\x05\x06")
    zip64 = egg[:end] + egg[end : end + 16] + b"\xff\xff\xff\xff" + egg[end + 20 :]
    assert recognise(EggSource.of(zip64)) is None and not judge(zip64).ok
    trailing = egg + b"junk after the end record"
    report = judge(trailing)  # no end record where one should be: not even recognised
    assert not report.ok


mutation = st.lists(st.tuples(st.integers(0, 2000), st.integers(0, 255)), min_size=1, max_size=4)


@given(mutation)
def test_byte_mutations_of_a_legacy_egg_never_crash(changes):
    data = bytearray(legacy_egg())
    for offset, value in changes:
        data[offset % len(data)] = value
    report = judge(bytes(data))
    assert all(c.status in ("pass", "fail", "skip") for c in report.checks)
    assert not report.verified or bytes(data) == legacy_egg()


# ---------------------------------------------------------------------- the real store


def real_eggs():
    if not REAL_STORE.is_dir():
        pytest.skip("../shared/real/rapp-store is not present beside this clone")
    return sorted((REAL_STORE / "api" / "v1" / "egg").glob("*.egg"))


def test_every_real_store_egg_is_legacy_and_keeps_its_records_promises():
    eggs = real_eggs()
    assert len(eggs) == 8
    for path in eggs:
        record = REAL_STORE / "api" / "v1" / "rapplication" / f"{path.stem}.json"
        app = app_from_record(json.loads(record.read_bytes()), str(record))
        report = judge(path, store=app)
        assert report.format == "legacy (brainstem-egg/2.2-rapplication)", path
        assert report.ok and not report.verified, (path, report.failed())
        for check in ("store.size", "store.agent", "store.rappid", "legacy.rappid", "legacy.crc"):
            assert report.by_id(check).status == "pass", (path, check)
        names = [e.name for e in report.entries]
        assert names[-1] == "manifest.json" and "rappid.json" in names
        agent = next(n for n in names if n.startswith("agents/"))
        with EggSource.of(path) as source:
            data = read_entry(source, agent)
        assert hashlib.sha256(data).hexdigest() == app.singleton_sha256


def test_the_real_older_egg_is_a_rapp_egg():
    real_eggs()
    path = REAL_STORE / "apps" / "@kody-w" / "thoughtbox" / "eggs" / "thoughtbox-1.0.0.egg"
    report = judge(path)
    assert report.format == "legacy (rapp-egg/1.0)" and report.ok
    assert [e.name for e in report.entries] == [
        "manifest.json",
        "thoughtbox_agent.py",
        "ui/index.html",
    ]


def test_zipfile_agrees_with_what_the_reader_inflates():
    egg = legacy_egg()
    with zipfile.ZipFile(__import__("io").BytesIO(egg)) as archive, EggSource.of(egg) as source:
        for info in archive.infolist():
            assert read_entry(source, info.filename) == archive.read(info)
