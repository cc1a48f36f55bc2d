"""A failed egg looked at without vouching for it: tui/eggs/unverified.py."""

from __future__ import annotations

import io
import zipfile

from tui.eggs import rapp
from tui.eggs.canonical_json import canonical
from tui.eggs.unverified import banner, look_at, read_file
from tui.eggs.verify import verify_egg
from tui.eggs.zip_reader import EggSource
from tui.sandbox.eggs import write_stored_zip

ME = "rappid:@me/thing:" + "ab" * 32
UTC = "2026-01-01T00:00:00.000Z"
FILES = {"agent.py": b"print('hi')\n", "rappid.json": canonical({"rappid": ME}), "soul.md": b"# s"}


def manifest(files: dict[str, bytes], **changes: object) -> dict:
    paths = sorted(files, key=rapp.path_sort_key)
    value = {"schema": "rapp/1-egg", "variant": "rapplication", "rappid": ME, "created_utc": UTC,
             "contents": [{"path": p, "hash": rapp.Hb("rapp/1:egg", files[p])} for p in paths],
             "payload": {}, "sig": None}  # fmt: skip
    value.update(changes)
    return value


def packed(value: dict, files: dict[str, bytes]) -> bytes:
    return write_stored_zip([("manifest.json", canonical(value))] + sorted(files.items()))


def looked(egg: bytes):
    report = verify_egg(egg)
    assert report.first_failure is not None
    with EggSource.of(egg) as source:
        return report, look_at(source, report)


def test_each_file_says_matches_differs_missing_or_extra():
    value = manifest({**FILES, "gone.txt": b"x"})
    files = {**FILES, "agent.py": b"tampered", "new.txt": b"y"}
    report, failed = looked(packed(value, files))
    statuses = {f.name: f.status for f in failed.files}
    assert statuses == {
        "manifest.json": "manifest", "agent.py": "differs", "rappid.json": "matches",
        "soul.md": "matches", "new.txt": "extra", "gone.txt": "missing",
    }  # fmt: skip
    assert failed.unreadable is None
    assert failed.manifest["rappid"] == ME
    assert failed.manifest_note == "strict JSON, its canonical form"
    assert failed.position == report.first_failure[0]
    assert failed.banner == f"FAILED at check {failed.position} — nothing in it is vouched for"
    assert failed.file("gone.txt").size is None
    with EggSource.of(packed(value, files)) as source:
        assert read_file(source, "agent.py") == b"tampered"


def test_a_reference_packed_egg_is_read_through_the_safe_reader():
    """zipfile's own packing (flags 0, DOS dates, deflate even) is read, under the caps."""
    value = manifest(FILES)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("manifest.json", canonical(value))
        for name, data in FILES.items():
            z.writestr(name, data)
    _, failed = looked(buffer.getvalue())
    assert failed.unreadable is None
    assert {f.status for f in failed.files} == {"manifest", "matches"}
    with EggSource.of(buffer.getvalue()) as source:
        assert read_file(source, "soul.md") == b"# s"


def test_a_manifest_that_does_not_parse_leaves_the_files_unlisted():
    egg = write_stored_zip([("manifest.json", b"{not json"), ("a.txt", b"a")])
    _, failed = looked(egg)
    assert failed.manifest is None
    assert failed.manifest_note.startswith("manifest.json is not strict JSON")
    assert [f.status for f in failed.files] == ["manifest", "unlisted"]


def test_a_container_that_cannot_be_read_safely_shows_the_report_only():
    egg = write_stored_zip([("manifest.json", b"{}"), ("../evil", b"x")])
    _, failed = looked(egg)
    assert failed.files == () and failed.manifest is None
    assert failed.unreadable.startswith("legacy.names")
    assert "cannot be read safely" in failed.banner and "\n" in failed.banner
    assert "only the report is shown" in banner(3, failed.unreadable)


def test_a_failed_json_egg_shows_its_manifest():
    value = manifest({}, variant="session", contents=[], payload={"runtime": 1, "transcript": []})
    _, failed = looked(canonical(value))
    assert failed.files == () and failed.manifest["variant"] == "session"


def test_a_file_whose_crc_differs_is_still_read_as_it_is():
    value = manifest(FILES)
    egg = bytearray(packed(value, FILES))
    at = bytes(egg).index(b"# s")
    egg[at + 2] = ord("X")
    report, failed = looked(bytes(egg))
    assert report.first_failure[1].id == "zip.crc"
    assert failed.file("soul.md").status == "differs" and "CRC-32" in failed.note
    with EggSource.of(bytes(egg)) as source:
        assert read_file(source, "soul.md") == b"# X"
