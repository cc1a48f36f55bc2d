"""Integrity first, packaging second: which container departures fail an egg and which only make
it "not byte-reproducible"."""

from __future__ import annotations

import json
import struct

import pytest

from tests.reference_eggs import ORGANISMS, manifest_of, organism, organism_files, pack, zip_entries
from tui.eggs.canonical_json import canonical
from tui.eggs.egg_report import packaging_summary
from tui.eggs.verify import verify_egg
from tui.eggs.zip_reader import PACKAGING_RULES
from tui.sandbox.eggs import write_stored_zip


def hub_style() -> bytes:
    """The organism as the hub's writer packs it: flags 0x0800 on every entry."""
    files = organism_files(ORGANISMS[0])
    value = manifest_of("organism", ORGANISMS[0], files, None, None)
    entries = [(i["path"], files[i["path"]]) for i in value["contents"]]
    return write_stored_zip([("manifest.json", canonical(value)), *entries])


def headers(egg: bytes) -> list[tuple[int, int]]:
    """``(local header offset, central header offset)`` of every entry."""
    (cd_size, cd_offset) = struct.unpack_from("<II", egg, len(egg) - 22 + 12)
    found, pos = [], cd_offset
    while pos < cd_offset + cd_size:
        n, x, c = struct.unpack_from("<HHH", egg, pos + 28)
        found.append((struct.unpack_from("<I", egg, pos + 42)[0], pos))
        pos += 46 + n + x + c
    return found


def patched(
    egg: bytes, field: int, fmt: str, value: int, entries=None, central_only=False
) -> bytes:
    """Set local header ``field`` (and the central one, 2 bytes further) of ``entries`` (all)."""
    data = bytearray(egg)
    for index, (local, central) in enumerate(headers(egg)):
        if entries is None or index in entries:
            if not central_only:
                struct.pack_into(fmt, data, local + field, value)
            struct.pack_into(fmt, data, central + field + 2, value)
    return bytes(data)


def test_the_hub_style_egg_is_byte_reproducible():
    report = verify_egg(hub_style())
    assert report.verified and report.reproducible and report.reproducibility == ()
    assert report.as_json()["reproducibility"] == []


def test_flags_zero_on_ascii_names_verify_with_a_note_per_entry():
    report = verify_egg(organism())
    assert report.verified and not report.reproducible
    assert {n.rule for n in report.reproducibility} == {"zip.utf8-flag"}
    (line,) = packaging_summary(report.reproducibility)
    assert line.startswith("zip.utf8-flag (an ASCII name carries the UTF-8 name flag 0x0800): 4 entries, manifest.json")  # fmt: skip
    assert "and 1 more" in line


@pytest.mark.parametrize(
    ("field", "fmt", "value", "rule"),
    [(10, "<H", 0x6000, "zip.dos-time"), (12, "<H", 0x5A21, "zip.dos-time"),
     (4, "<H", 45, "zip.versions")],
)  # fmt: skip
def test_time_date_and_version_only_make_it_not_byte_reproducible(field, fmt, value, rule):
    report = verify_egg(patched(hub_style(), field, fmt, value, entries={2}))
    assert report.verified
    assert [(n.rule, n.entry) for n in report.reproducibility] == [(rule, "docs/caf\u00e9.md")]


def test_made_by_and_attributes_only_make_it_not_byte_reproducible():
    egg = bytearray(hub_style())
    (_, central), *_ = headers(bytes(egg))
    struct.pack_into("<H", egg, central + 4, 0x0A3F)  # made by: another host and version
    struct.pack_into("<I", egg, central + 38, 0o100755 << 16)  # an executable file
    struct.pack_into("<H", egg, central + 36, 1)  # internal: "text"
    report = verify_egg(bytes(egg))
    assert report.verified
    rules = [(n.rule, n.detail) for n in report.reproducibility]
    assert rules == [
        ("zip.versions", "version needed 20, made by 0x0a3f"),
        ("zip.attributes", "internal 0x1, external 0x81ed0000"),
    ]
    assert (
        json.loads(json.dumps(report.as_json()))["reproducibility"][1]["rule"] == "zip.attributes"
    )


def test_a_non_ascii_name_without_the_utf8_flag_fails():
    egg = patched(hub_style(), 6, "<H", 0, entries={2})
    report = verify_egg(egg)
    assert report.first_failure[1].id == "zip.names"
    assert "not ASCII and lacks the UTF-8 flag" in report.first_failure[1].detail


@pytest.mark.parametrize(
    ("flags", "words"),
    [(0x0801, "encrypted"), (0x0808, "data descriptor"), (0x0802, "only 0x0800 may be set"),
     (0x0041, "encrypted")],
)  # fmt: skip
def test_integrity_flags_still_fail(flags, words):
    report = verify_egg(patched(hub_style(), 6, "<H", flags, entries={1}))
    assert report.first_failure[1].id == "zip.fields"
    assert words in report.first_failure[1].detail


def test_a_local_header_that_differs_in_a_packaging_field_still_fails_local():
    egg = patched(hub_style(), 10, "<H", 0x6000, entries={1}, central_only=True)
    assert verify_egg(egg).first_failure[1].id == "zip.local"


def test_a_failed_egg_keeps_its_notes_too():
    files = organism_files(ORGANISMS[0])
    files.pop("soul.md")
    report = verify_egg(pack("organism", ORGANISMS[0], files))
    assert report.failed() == ["viability"]
    assert report.reproducibility  # shown beside the failure


@pytest.mark.parametrize(
    "name",
    ["manif\u0435st.json", "agents/p\u0430yload.py", "\uff53oul.md"],
)
def test_names_that_pass_for_others_fail_names(name):
    egg = zip_entries([("manifest.json", b"{}"), (name, b"x")])
    report = verify_egg(egg)
    assert report.first_failure[1].id == "zip.names"


def test_a_hostile_name_in_a_note_is_one_clean_line():
    name = "notes\u202e\u0007.md"  # a bidi override and a bell: path grammar lets the first by
    egg = zip_entries([("manifest.json", b"{}"), ("notes\u202e.md", b"x")])
    report = verify_egg(egg)
    entries = {n.entry for n in report.reproducibility}
    assert all("\u202e" not in e and "\x07" not in e for e in entries), entries
    assert name not in entries
    for line in packaging_summary(report.reproducibility):
        assert "\u202e" not in line and "\n" not in line


def test_every_packaging_rule_is_named_in_the_docs():
    from pathlib import Path

    docs = (Path(__file__).parents[2] / "docs" / "eggs.md").read_text()
    for rule in PACKAGING_RULES:
        assert f"`{rule}`" in docs
