"""The egg verifier on demo eggs and on a tamper corpus: each tampering fails its own check first."""

from __future__ import annotations

import base64
import copy
import hashlib
import io
import json
import struct
import zipfile
import zlib

import pytest

from tui.eggs import rapp
from tui.eggs.boot_record import boundary_problems, parse_boot_record
from tui.eggs.canonical_json import canonical
from tui.eggs.egg_manifest import parse_manifest
from tui.eggs.egg_report import CHECKS
from tui.eggs.verify import verify_egg
from tui.sandbox.eggs import PackError, SeedBootSpec, build_seed_boot, pack_egg, write_stored_zip

HUB = "http://127.0.0.1:8765"
SPEC = SeedBootSpec(
    slug="micro-manufacturing-company",
    name="The Micro-Manufacturing Company",
    tagline="Small batches, made well.",
    mission="Run a profitable micro-factory.",
)


@pytest.fixture(scope="module")
def demo():
    return build_seed_boot(SPEC, HUB)


def entries_of(egg: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(egg)) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def manifest_of(egg: bytes) -> dict:
    return json.loads(entries_of(egg)[0][1])


def repack(manifest: dict | bytes, files: list[tuple[str, bytes]]) -> bytes:
    raw = manifest if isinstance(manifest, bytes) else canonical(manifest)
    return write_stored_zip([("manifest.json", raw), *files])


def rebuilt(egg: bytes, change) -> bytes:
    """Re-pack ``egg`` after ``change(manifest, files)`` edits them; contents hashes follow the files."""
    manifest = manifest_of(egg)
    files = dict(entries_of(egg)[1:])
    change(manifest, files)
    manifest["contents"] = [{"path": p, "hash": rapp.Hb("rapp/1:egg", files[p])} for p in files]
    return repack(manifest, list(files.items()))


def first_failure(report) -> str:
    failure = report.first_failure
    return failure[1].id if failure else "none"


def central_offsets(egg: bytes) -> list[int]:
    (cd_size, cd_offset) = struct.unpack_from("<II", egg, len(egg) - 22 + 12)
    offsets, pos = [], cd_offset
    while pos < cd_offset + cd_size:
        offsets.append(pos)
        n, x, c = struct.unpack_from("<HHH", egg, pos + 28)
        pos += 46 + n + x + c
    return offsets


def local_offsets(egg: bytes) -> list[int]:
    return [struct.unpack_from("<I", egg, pos + 42)[0] for pos in central_offsets(egg)]


# local header field offsets; central = local + 2 (the central header has version made by first)
FLAGS, METHOD, CRC, CSIZE = 6, 8, 14, 18


def patch(
    egg: bytes, index: int, field: int, fmt: str, value: int, *, local=True, central=True
) -> bytes:
    data = bytearray(egg)
    if local:
        struct.pack_into(fmt, data, local_offsets(egg)[index] + field, value)
    if central:
        struct.pack_into(fmt, data, central_offsets(egg)[index] + field + 2, value)
    return bytes(data)


# --------------------------------------------------------------------------- good eggs


def test_demo_egg_passes_every_check(demo):
    egg, record = demo
    report = verify_egg(egg, record, hub_url=HUB)
    assert [c.id for c in report.checks] == [i for i, _ in CHECKS]
    assert report.failed() == []
    skipped = [c.id for c in report.checks if c.status == "skip"]
    assert skipped == ["json.canonical"]
    assert report.ok and report.as_json()["ok"] is True
    assert report.address == record["egg"]["address"]
    assert [e.name for e in report.entries][0] == "manifest.json"
    assert all(e.hash_ok for e in report.entries[1:])


def test_demo_egg_is_deterministic_and_hub_shaped(demo):
    egg, record = demo
    again, record_again = build_seed_boot(SPEC, HUB)
    assert again == egg and record_again == record
    boot = parse_boot_record(record)  # the record is a valid boot record
    assert boundary_problems(boot, HUB) == [] and boot.unknown_fields() == {}
    manifest = parse_manifest(manifest_of(egg))
    assert manifest.address == record["egg"]["address"]
    assert manifest.payload_kind == record["egg"]["payloadKind"]
    names = [name for name, _ in entries_of(egg)]
    assert names == ["manifest.json", "agents/rapp_seed_runner_agent.py", "rappid.json",
                     "seed/record.json", "soul.md", "twin/profile.json"]  # fmt: skip
    with zipfile.ZipFile(io.BytesIO(egg)) as archive:
        for info in archive.infolist():
            assert (info.create_system, info.create_version, info.external_attr) == (
                3,
                20,
                0o600 << 16,
            )
            assert (
                info.flag_bits == 0x0800
                and info.compress_type == 0
                and info.date_time == (1980, 1, 1, 0, 0, 0)
            )
    files = dict(entries_of(egg))
    seed_record = json.loads(files["seed/record.json"])
    assert record["seed"]["recordSha256"] == hashlib.sha256(files["seed/record.json"]).hexdigest()
    archive = base64.b64decode(seed_record["archive"]["base64"])
    assert hashlib.sha256(archive).hexdigest() == record["seed"]["archiveSha256"]
    assert json.loads(files["rappid.json"])["rappid"] == record["egg"]["rappid"]


def test_file_path_and_bytes_give_the_same_report(demo, tmp_path):
    egg, record = demo
    path = tmp_path / "x.egg"
    path.write_bytes(egg)
    assert (
        verify_egg(path, record, hub_url=HUB).as_json()
        == verify_egg(egg, record, hub_url=HUB).as_json()
    )
    bad = bytearray(egg)
    bad[-30] ^= 1
    path.write_bytes(bytes(bad))
    assert verify_egg(path).as_json() == verify_egg(bytes(bad)).as_json()


def test_a_big_egg_from_a_file_is_read_once_and_hashed_as_read(tmp_path, monkeypatch):
    # the file is read once, in order: the archive's hash is fed by the checks' own reads. The
    # reports from the file and from the bytes are the same, untouched or tampered anywhere
    import random

    from tui.eggs.zip_reader import EggSource

    rng = random.Random(5)
    files = {f"pkg/f{i}.md": "".join(rng.choices("abc \n", k=20_000)) for i in range(12)}
    spec = SeedBootSpec("big-co", "Big Co", "T.", "M.", seed_files=files)
    egg, record = build_seed_boot(spec, HUB)
    assert len(egg) > 300 << 10
    path = tmp_path / "big.egg"
    reads: list[int] = []
    chunks, read = EggSource.chunks, EggSource.read

    def counting_chunks(self, start, end, size=1 << 20):
        for block in chunks(self, start, end, size):
            if self.path is not None:
                reads.append(len(block))
            yield block

    def counting_read(self, offset, length):
        data = read(self, offset, length)
        if self.path is not None:
            reads.append(len(data))
        return data

    monkeypatch.setattr(EggSource, "chunks", counting_chunks)
    monkeypatch.setattr(EggSource, "read", counting_read)
    for where in (None, 100, len(egg) // 2, len(egg) - 30, len(egg) - 1):
        data = bytearray(egg)
        if where is not None:
            data[where] ^= 1
        path.write_bytes(bytes(data))
        reads.clear()
        from_file = verify_egg(path, record, hub_url=HUB)
        read_bytes = sum(reads)
        assert from_file.sha256 == hashlib.sha256(data).hexdigest()
        assert from_file.as_json() == verify_egg(bytes(data), record, hub_url=HUB).as_json()
        if where is None:
            assert from_file.ok
            assert read_bytes < 1.02 * len(egg)  # once, not once for the hash and once more


def test_json_egg_session_passes_and_noncanonical_fails():
    tail = "ab" * 32
    manifest = {"schema": "rapp/1-egg", "variant": "session", "rappid": f"rappid:@me/chat:{tail}",
                "created_utc": "2026-01-01T00:00:00.000Z", "contents": [],
                "payload": {"runtime": "brainstem", "transcript": [{"role": "user"}]}, "sig": None}  # fmt: skip
    report = verify_egg(canonical(manifest))
    assert report.failed() == [] and report.status_of("json.canonical") == "pass"
    assert report.status_of("zip.end") == "skip"
    assert first_failure(verify_egg(json.dumps(manifest).encode())) == "json.canonical"
    assert (
        first_failure(verify_egg(canonical({**manifest, "payload": {"runtime": 1}}))) == "viability"
    )


def test_neighborhood_verifies_its_member_eggs(demo):
    egg, _ = demo
    member = manifest_of(egg)["rappid"]
    owner, slug, _ = rapp.rappid_parts(member)
    tail = "cd" * 32
    hood, _ = pack_egg(variant="neighborhood", rappid=f"rappid:@me/street:{tail}", created_utc="2026-01-01T00:00:00.000Z",
                       payload={"members": [member]}, files={f"{owner}--{slug}.egg": egg})  # fmt: skip
    assert verify_egg(hood).failed() == []
    broken = bytearray(egg)
    broken[200] ^= 1
    bad = rebuilt(hood, lambda m, f: f.update({f"{owner}--{slug}.egg": bytes(broken)}))
    report = verify_egg(bad)
    assert first_failure(report) == "viability" and "zip.crc" in report.by_id("viability").detail


def test_signed_egg_is_never_passed_without_a_key(demo):
    egg, _ = demo
    header = canonical(
        {"alg": "EdDSA", "b64": False, "crit": ["b64"], "kid": f"rappid:@me/key:{'ef' * 32}"}
    )
    sig = (
        base64.urlsafe_b64encode(header).rstrip(b"=").decode()
        + ".."
        + base64.urlsafe_b64encode(b"\0" * 64).rstrip(b"=").decode()
    )
    signed = rebuilt(egg, lambda m, f: m.update(sig=sig))
    report = verify_egg(signed)
    assert report.failed() == ["signature"]
    assert report.by_id("signature").detail.startswith("not verified: no key")
    assert not report.ok


def test_packer_refuses_what_producers_must_refuse():
    ok = {"variant": "organism", "rappid": f"rappid:@a/b:{'0' * 64}", "created_utc": "2026-01-01T00:00:00.000Z",
          "payload": {}, "files": {"rappid.json": b"{}", "soul.md": b""}}  # fmt: skip
    for bad in ({"variant": "session"}, {"variant": "x"}, {"rappid": "x"}, {"created_utc": "2026"},
                {"payload": []}, {"files": {"../x": b""}}, {"files": {"manifest.json": b""}},
                {"files": {"a": "text"}}, {"sig": "x"}):  # fmt: skip
        with pytest.raises(PackError):
            pack_egg(**{**ok, **bad})
    with pytest.raises(PackError, match="viability"):
        pack_egg(**ok)  # rappid.json has no rappid: the self-check refuses to emit it


# --------------------------------------------------------------------------- tamper corpus


def flip_in_entry(egg: bytes, name: str) -> bytes:
    offset = next(
        o for (n, _), o in zip(entries_of(egg), local_offsets(egg), strict=True) if n == name
    )
    data = bytearray(egg)
    data[offset + 30 + len(name.encode()) + 5] ^= 0x01
    return bytes(data)


def test_flipped_byte_in_an_entry_fails_crc(demo):
    report = verify_egg(flip_in_entry(demo[0], "soul.md"))
    assert first_failure(report) == "zip.crc"
    assert "soul.md" in report.by_id("zip.crc").detail
    assert report.status_of("integrity") == "skip" and "zip.crc" in report.by_id("integrity").detail


def test_flipped_byte_with_a_matching_crc_fails_integrity(demo):
    egg = flip_in_entry(demo[0], "soul.md")
    index = [n for n, _ in entries_of(demo[0])].index("soul.md")
    offset = local_offsets(egg)[index] + 30 + len(b"soul.md")
    size = struct.unpack_from("<I", egg, local_offsets(egg)[index] + 22)[0]
    data = egg[offset : offset + size]
    egg = patch(egg, index, CRC, "<I", zlib.crc32(data))
    report = verify_egg(egg)
    assert first_failure(report) == "integrity" and "soul.md" in report.by_id("integrity").detail


def test_wrong_crc_fails_crc_and_a_central_only_change_fails_local(demo):
    egg = demo[0]
    assert first_failure(verify_egg(patch(egg, 2, CRC, "<I", 0x12345678))) == "zip.crc"
    assert (
        first_failure(verify_egg(patch(egg, 2, CRC, "<I", 0x12345678, local=False))) == "zip.local"
    )


def test_reordered_entries_fail_order(demo):
    files = entries_of(demo[0])
    manifest, rest = files[0], files[1:]
    rest[1], rest[2] = rest[2], rest[1]
    report = verify_egg(write_stored_zip([manifest, *rest]))
    assert first_failure(report) == "zip.order"
    moved = write_stored_zip([rest[0], manifest, *rest[1:]])
    assert first_failure(verify_egg(moved)) == "zip.first"


def test_trailing_bytes_fail_end(demo):
    report = verify_egg(demo[0] + b"\0\0junk")
    assert first_failure(report) == "zip.end" and "6 bytes follow" in report.by_id("zip.end").detail
    assert first_failure(verify_egg(b"PK\0\0" + demo[0])) == "zip.directory"  # prepended
    assert first_failure(verify_egg(b"junk" + demo[0])) == "json.canonical"  # not PK: a JSON egg


def test_archive_comment_fails_end(demo):
    egg = bytearray(demo[0])
    struct.pack_into("<H", egg, len(egg) - 2, 7)
    report = verify_egg(bytes(egg) + b"comment")
    assert first_failure(report) == "zip.end" and "comment" in report.by_id("zip.end").detail
    # the stdlib reader accepts it (that is why roost has its own)
    assert zipfile.ZipFile(io.BytesIO(bytes(egg) + b"comment")).comment == b"comment"


def test_zip64_markers_fail_zip64(demo):
    egg = demo[0]
    end = len(egg) - 22
    locator = b"PK\x06\x07" + struct.pack("<IQI", 0, 0, 1)
    assert first_failure(verify_egg(egg[:end] + locator + egg[end:])) == "zip.zip64"
    marked = bytearray(egg)
    struct.pack_into("<HH", marked, end + 8, 0xFFFF, 0xFFFF)
    assert first_failure(verify_egg(bytes(marked))) == "zip.zip64"


@pytest.mark.parametrize("field", [CSIZE, CSIZE + 4], ids=["compressed-size", "size"])
def test_a_zip64_marker_in_an_entry_fails_zip64_not_directory(demo, field):
    """0xFFFFFFFF in a central header's sizes says "the real value is in a ZIP64 extra": the
    ZIP64 rule is the one broken, and the directory rule after it is not reported as run."""
    report = verify_egg(patch(demo[0], 2, field, "<I", 0xFFFFFFFF, local=False))
    assert report.failed() == ["zip.zip64"] and "ZIP64 marker" in report.by_id("zip.zip64").detail
    assert report.status_of("zip.end") == "pass"
    assert report.status_of("zip.directory") == "skip"


def test_a_zip64_extra_field_fails_zip64(demo):
    egg = bytearray(demo[0])
    central = central_offsets(bytes(egg))[1]
    name_len = struct.unpack_from("<H", egg, central + 28)[0]
    extra = struct.pack("<HHQ", 0x0001, 8, 0)
    struct.pack_into("<H", egg, central + 30, len(extra))
    egg[central + 46 + name_len : central + 46 + name_len] = extra
    cd_size, cd_offset = struct.unpack_from("<II", egg, len(egg) - 22 + 12)
    struct.pack_into("<I", egg, len(egg) - 22 + 12, cd_size + len(extra))
    report = verify_egg(bytes(egg))
    assert report.failed() == ["zip.zip64"] and "extra" in report.by_id("zip.zip64").detail


def test_a_second_end_record_appended_fails_end(demo):
    """A copy of the end record appended: the last 22 bytes parse, but the directory ends where
    the real end record starts, so 22 bytes follow the archive's end."""
    egg = demo[0]
    report = verify_egg(egg + egg[-22:])
    assert report.failed() == ["zip.end"]
    assert "22 bytes follow" in report.by_id("zip.end").detail


def test_deflated_entry_fails_stored(demo):
    files = entries_of(demo[0])
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.flag_bits = 0x0800
            archive.writestr(
                info,
                data,
                compress_type=zipfile.ZIP_DEFLATED if name == "soul.md" else zipfile.ZIP_STORED,
            )
    egg = out.getvalue()
    for index in range(len(files)):  # zipfile clears the UTF-8 flag on ASCII names
        egg = patch(egg, index, FLAGS, "<H", 0x0800)
    report = verify_egg(egg)
    assert first_failure(report) == "zip.stored" and "deflated" in report.by_id("zip.stored").detail


def test_data_descriptor_flag_fails_fields(demo):
    assert first_failure(verify_egg(patch(demo[0], 1, FLAGS, "<H", 0x0808))) == "zip.fields"


@pytest.mark.parametrize("bad_name", ["../evil.py", "/etc/passwd", "a\\b", "C:x", "agents/../../x"])
def test_traversal_and_absolute_names_fail_names(demo, bad_name):
    def change(manifest, files):
        files[bad_name] = files.pop("soul.md")

    report = verify_egg(rebuilt(demo[0], change))
    assert first_failure(report) == "zip.names"
    assert repr(bad_name) in report.by_id("zip.names").detail


def test_duplicate_name_fails_names(demo):
    files = entries_of(demo[0])
    manifest = json.loads(files[0][1])
    manifest["contents"].append(manifest["contents"][-1])
    report = verify_egg(repack(manifest, [*files[1:], files[-1]]))
    assert first_failure(report) == "zip.names" and "duplicate" in report.by_id("zip.names").detail


def test_symlink_entry_fails_names(demo):
    egg = bytearray(demo[0])
    struct.pack_into("<I", egg, central_offsets(demo[0])[4] + 38, 0o120777 << 16)
    assert first_failure(verify_egg(bytes(egg))) == "zip.names"


def test_noncanonical_manifest_fails_parse(demo):
    files = entries_of(demo[0])
    manifest = json.loads(files[0][1])
    report = verify_egg(repack(json.dumps(manifest, indent=1).encode(), files[1:]))
    assert (
        first_failure(report) == "manifest.parse"
        and "byte" in report.by_id("manifest.parse").detail
    )
    assert first_failure(verify_egg(repack(b'{"a":1,"a":1}', files[1:]))) == "manifest.parse"


def test_extra_manifest_member_fails_members(demo):
    report = verify_egg(rebuilt(demo[0], lambda m, f: m.update(extra=1)))
    assert (
        first_failure(report) == "manifest.members"
        and "extra" in report.by_id("manifest.members").detail
    )


@pytest.mark.parametrize(
    ("member", "value", "check"),
    [
        ("rappid", "rappid:@Hive-Hub/x:" + "0" * 64, "manifest.rappid"),
        ("created_utc", "2026-02-30T00:00:00.000Z", "manifest.utc"),
        ("schema", "rapp/2-egg", "manifest.schema"),
        ("variant", "egg", "manifest.variant"),
        ("payload", [], "manifest.payload"),
        ("sig", "not-a-jws", "manifest.sig"),
    ],
)
def test_bad_manifest_members_fail_their_check(demo, member, value, check):
    report = verify_egg(rebuilt(demo[0], lambda m, f: m.update({member: value})))
    assert first_failure(report) == check
    assert report.by_id(check).status == "fail"


def test_unsorted_contents_fail_sorted(demo):
    files = entries_of(demo[0])
    manifest = json.loads(files[0][1])
    rest = files[1:]
    rest[0], rest[1] = rest[1], rest[0]
    manifest["contents"] = [{"path": n, "hash": rapp.Hb("rapp/1:egg", d)} for n, d in rest]
    assert first_failure(verify_egg(repack(manifest, rest))) == "manifest.sorted"


def test_wrong_contents_hash_fails_integrity(demo):
    files = entries_of(demo[0])
    manifest = json.loads(files[0][1])
    manifest["contents"][3]["hash"] = "0" * 64
    assert first_failure(verify_egg(repack(manifest, files[1:]))) == "integrity"


def test_missing_soul_fails_viability(demo):
    report = verify_egg(rebuilt(demo[0], lambda m, f: f.pop("soul.md")))
    assert first_failure(report) == "viability" and "soul.md" in report.by_id("viability").detail


def test_rappid_json_mismatch_fails_viability(demo):
    other = json.dumps({"rappid": "rappid:@hive-hub/other:" + "1" * 64}).encode()
    report = verify_egg(rebuilt(demo[0], lambda m, f: f.update({"rappid.json": other})))
    assert (
        first_failure(report) == "viability" and "rappid.json" in report.by_id("viability").detail
    )


# --------------------------------------------------------------------------- against the record


def with_record(demo, **egg_changes) -> dict:
    record = copy.deepcopy(demo[1])
    record["egg"].update(egg_changes)
    return record


def test_wrong_address_fails_record_address(demo):
    report = verify_egg(demo[0], with_record(demo, address="0" * 64), hub_url=HUB)
    assert first_failure(report) == "record.address" and report.failed() == ["record.address"]


def test_size_and_sha_mismatch_with_the_record(demo):
    report = verify_egg(demo[0], with_record(demo, bytes=demo[1]["egg"]["bytes"] + 1), hub_url=HUB)
    assert report.failed() == ["file.size"]
    sha = "f" * 64
    report = verify_egg(demo[0], with_record(demo, sha256=sha, ref=f"sha256:{sha}", path=f"api/hive-hub/v1/seed-boots/downloads/sha256/ff/{sha}.egg",
                                             url=f"{HUB}/api/hive-hub/v1/seed-boots/downloads/sha256/ff/{sha}.egg"), hub_url=HUB)  # fmt: skip
    assert report.failed() == ["file.sha256"]


def test_record_url_elsewhere_fails_record_url(demo):
    report = verify_egg(demo[0], with_record(demo, url="https://evil.example/x.egg"), hub_url=HUB)
    assert report.failed() == ["record.url"] and "evil.example" in report.by_id("record.url").detail


@pytest.mark.parametrize(
    ("where", "member", "value", "check"),
    [
        ("organ", "sha256", "0" * 64, "record.organ"),
        ("seed", "recordSha256", "0" * 64, "record.seed-record"),
        ("seed", "archiveSha256", "0" * 64, "record.seed-archive"),
        (
            "egg",
            "rappid",
            "rappid:@hive-hub/micro-manufacturing-company-boot:" + "0" * 64,
            "record.rappid",
        ),
        ("egg", "utc", "2026-09-23T20:41:48.837Z", "record.utc"),
    ],
)
def test_record_cross_checks(demo, where, member, value, check):
    record = copy.deepcopy(demo[1])
    record[where][member] = value
    report = verify_egg(demo[0], record, hub_url=HUB)
    assert report.failed() == [check]


def test_container_failure_skips_what_cannot_run(demo):
    report = verify_egg(demo[0] + b"x", demo[1], hub_url=HUB)
    assert report.failed() == ["zip.end", "file.size", "file.sha256"]
    assert first_failure(report) == "zip.end"
    later = report.checks[[c.id for c in report.checks].index("zip.end") + 1 :]
    independent = {
        *("record.document", "record.ref", "record.path", "record.url"),
        *("file.size", "file.sha256"),
    }
    assert all(c.status == "skip" for c in later if c.id not in independent)
    assert all(
        "zip.end" in c.detail or c.id == "json.canonical" for c in later if c.id not in independent
    )
    assert report.as_json()["ok"] is False
    assert verify_egg(b"").first_failure[1].id == "json.canonical"
    assert verify_egg(b"PK").first_failure[1].id == "zip.end"


def test_layout_matches_the_published_micro_manufacturing_egg(demo):
    # the real egg, as published: manifest.json is 2,032 bytes and the organ
    # starts at 2,075; rappid.json is 215 bytes and twin/profile.json 222 (same name and slug here).
    egg, _ = demo
    files = dict(entries_of(egg))
    assert len(files["manifest.json"]) == 2032
    assert local_offsets(egg)[1] == 2075
    assert len(files["rappid.json"]) == 215
    assert len(files["twin/profile.json"]) == 222


def test_an_entry_claiming_more_bytes_than_the_archive_is_refused(demo):
    # the zip-bomb shape: sizes that do not fit the file; entries must tile the archive exactly
    big = patch(patch(demo[0], 3, CSIZE, "<I", 10**9), 3, CSIZE + 4, "<I", 10**9)
    report = verify_egg(big)
    assert first_failure(report) == "zip.directory"


def test_many_entries_verify_and_are_listed():
    files = {f"data/{i:05d}.txt": f"{i}\n".encode() for i in range(5000)}
    files["rappid.json"] = json.dumps({"rappid": f"rappid:@me/big:{'ab' * 32}"}).encode()
    files["soul.md"] = b"# big\n"
    egg, manifest = pack_egg(variant="organism", rappid=f"rappid:@me/big:{'ab' * 32}",
                             created_utc="2026-01-01T00:00:00.000Z", payload={}, files=files)  # fmt: skip
    report = verify_egg(egg)
    assert report.failed() == [] and len(report.entries) == 5003
    assert report.address == rapp.egg_address(manifest)


def test_a_deep_manifest_is_refused_not_crashed(demo):
    deep: object = 0
    for _ in range(70):
        deep = [deep]
    raw = b'{"contents":[],"payload":' + json.dumps(deep, separators=(",", ":")).encode() + b"}"
    report = verify_egg(repack(raw, []))
    assert (
        first_failure(report) == "manifest.parse"
        and "deeper" in report.by_id("manifest.parse").detail
    )


def test_details_quoting_hostile_values_are_safe_to_print(demo):
    # a bidi override is legal in a packed path; the organ check's pass detail quotes the path
    organ = "agents/\u202eyp.evil"
    egg = rebuilt(demo[0], lambda m, f: f.update({organ: b"x"}))
    record = with_record(demo, sha256=hashlib.sha256(egg).hexdigest())
    record["organ"]["path"] = organ
    record["organ"]["sha256"] = hashlib.sha256(b"x").hexdigest()
    report = verify_egg(egg, record)
    detail = report.by_id("record.organ").detail
    assert "evil" in detail and "\u202e" not in detail
    hostile = f"https://evil\x1b[2J.example/{demo[1]['egg']['path']}"
    report = verify_egg(demo[0], with_record(demo, url=hostile))
    assert report.failed() == ["record.url"] and "\x1b" not in report.by_id("record.url").detail
    long_name = "x" * 5000
    report = verify_egg(rebuilt(demo[0], lambda m, f: f.update({"a/\x1b" + long_name: b""})))
    assert first_failure(report) == "zip.names"
    assert len(report.by_id("zip.names").detail) <= 400


@pytest.mark.parametrize(
    ("tamper", "check"),
    [
        (lambda egg: flip_in_entry(egg, "seed/record.json"), "zip.crc"),
        (lambda egg: egg + b"\0", "zip.end"),
        (lambda egg: patch(egg, 1, METHOD, "<H", 8), "zip.stored"),
        (lambda egg: rebuilt(egg, lambda m, f: m.update(extra=1)), "manifest.members"),
        (lambda egg: rebuilt(egg, lambda m, f: f.pop("soul.md")), "viability"),
    ],
)
def test_with_the_original_record_the_first_failure_still_names_the_tampering(demo, tamper, check):
    egg, record = demo
    report = verify_egg(tamper(egg), record, hub_url=HUB)
    assert first_failure(report) == check
    assert report.status_of("file.sha256") == "fail"  # and the record's promise is broken too


def test_a_swapped_organ_breaks_the_records_promises(demo):
    organ = {"agents/rapp_seed_runner_agent.py": b"# another organ\n"}
    report = verify_egg(rebuilt(demo[0], lambda m, f: f.update(organ)), demo[1], hub_url=HUB)
    assert report.failed() == ["file.size", "file.sha256", "record.address", "record.organ"]


def test_an_entrys_bytes_are_read_where_the_report_says(demo, tmp_path):
    from tui.eggs.zip_reader import EggSource

    egg, _ = demo
    path = tmp_path / "x.egg"
    path.write_bytes(egg)
    report = verify_egg(path)
    soul = report.entry("soul.md")
    assert soul is not None and soul.hash_ok and report.entry("nope") is None
    with EggSource.of(path) as source:
        data = b"".join(
            bytes(b) for b in source.chunks(soul.data_offset, soul.data_offset + soul.size)
        )
    assert data == dict(entries_of(egg))["soul.md"]


def test_concurrent_verifications_of_big_eggs_agree(demo):
    from concurrent.futures import ThreadPoolExecutor

    spec = SeedBootSpec("big-co", "Big Co", "t", "m", organ_padding=600_000)
    egg, record = build_seed_boot(spec, HUB)
    assert len(egg) > 256 << 10  # big enough for the worker-thread hashing
    bad = flip_in_entry(egg, "agents/rapp_seed_runner_agent.py")
    with ThreadPoolExecutor(4) as pool:
        reports = list(pool.map(lambda data: verify_egg(data, record, hub_url=HUB), [egg, bad] * 4))
    assert all(r.ok for r in reports[0::2])
    assert all(r.failed() == ["zip.crc", "file.sha256"] for r in reports[1::2])


@pytest.mark.parametrize(
    ("field", "fmt", "name"),
    [(4, "<H", "version"), (6, "<H", "flags"), (8, "<H", "method"), (10, "<H", "time"),
     (12, "<H", "date"), (18, "<I", "compressed size"), (22, "<I", "size"),
     (28, "<H", "extra length")],
)  # fmt: skip
def test_a_local_header_field_that_differs_from_the_directory_fails_local(demo, field, fmt, name):
    egg = patch(demo[0], 1, field, fmt, 0x0101, central=False)
    report = verify_egg(egg)
    assert first_failure(report) == "zip.local"
    assert f"local {name} differs" in report.by_id("zip.local").detail


def test_a_local_name_that_differs_from_the_directory_fails_local(demo):
    egg = bytearray(demo[0])
    at = local_offsets(demo[0])[2] + 30
    egg[at] ^= 0x01  # same length, another name
    report = verify_egg(bytes(egg))
    assert first_failure(report) == "zip.local" and "local name" in report.by_id("zip.local").detail
