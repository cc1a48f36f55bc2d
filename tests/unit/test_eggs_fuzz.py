"""Hypothesis: the strict ZIP reader and the verifier never fail with anything but their own words."""

from __future__ import annotations

import struct

from hypothesis import given
from hypothesis import strategies as st

from tui.eggs.egg_report import CHECKS
from tui.eggs.verify import verify_egg
from tui.eggs.zip_reader import RULES, EggSource, StrictZipReader, ZipFormatError
from tui.sandbox.eggs import SeedBootSpec, build_seed_boot, write_stored_zip

EGG, RECORD = build_seed_boot(
    SeedBootSpec("fuzz-co", "Fuzz Co", "Tagline.", "Mission."), "http://hub.invalid"
)
CHECK_IDS = [check_id for check_id, _ in CHECKS]


def read_all(data: bytes) -> None:
    reader = StrictZipReader(EggSource.of(data))
    try:
        reader.read_directory()
        reader.stream(lambda entry: None)
    except ZipFormatError as exc:
        assert exc.rule in RULES


def verify_all(data: bytes) -> None:
    report = verify_egg(data, RECORD)
    assert [c.id for c in report.checks] == CHECK_IDS
    assert all(c.status in ("pass", "fail", "skip") for c in report.checks)
    report.as_json()
    if data != EGG:
        assert not report.ok  # any change of the bytes breaks at least the record's sha256


mutation = st.lists(
    st.tuples(st.integers(0, len(EGG) - 1), st.integers(0, 255)), min_size=1, max_size=4
)


@given(mutation)
def test_byte_mutations_of_a_real_egg(changes):
    data = bytearray(EGG)
    for offset, value in changes:
        data[offset] = value
    read_all(bytes(data))
    verify_all(bytes(data))


# Mutations aimed at the header fields the reader parses: the end record and the directory.
_END = len(EGG) - 22
_CD = struct.unpack_from("<I", EGG, _END + 16)[0]


@given(st.integers(_CD, len(EGG) - 1), st.integers(0, 255), st.integers(0, 3))
def test_header_mutations(offset, value, width):
    data = bytearray(EGG)
    for i in range(width + 1):
        if offset + i < len(data):
            data[offset + i] = value
    read_all(bytes(data))
    verify_all(bytes(data))


@given(st.integers(0, len(EGG)), st.binary(max_size=64), st.integers(0, 64))
def test_cuts_and_insertions(at, inserted, removed):
    data = EGG[:at] + inserted + EGG[at + removed :]
    read_all(data)
    verify_all(data)


@given(st.binary(max_size=300))
def test_arbitrary_bytes(data):
    read_all(data)
    read_all(b"PK" + data)
    verify_egg(data)
    verify_egg(b"PK\x03\x04" + data)


names = st.text(min_size=0, max_size=12).map(lambda t: t.encode("utf-8", "surrogatepass"))


@given(
    st.lists(
        st.tuples(names | st.binary(max_size=8), st.binary(max_size=40)), min_size=1, max_size=5
    )
)
def test_well_framed_archives_with_hostile_names_and_manifests(entries):
    data = write_stored_zip(entries)
    read_all(data)
    report = verify_egg(data)
    assert [c.id for c in report.checks] == CHECK_IDS


_MEMBER_NAMES = [
    "runtime", "transcript", "target_rappid", "target_url", "target_kind", "members", "neighborhoods",
    "schema", "cipher", "nonce", "plaintext_commitment", "plaintext_bytes", "media_type", "key_id",
    "key_service_rappid", "key_service_url", "access", "aad_hash", "kind", "seed", "brainstem",
]  # fmt: skip
_RAPPID = "rappid:@me/thing:" + "ab" * 32
_leaf = (
    st.none() | st.booleans() | st.integers(-5, 2**31) | st.text(max_size=12)
    | st.sampled_from([_RAPPID, "https://h.example/chat", "neighborhood", "A256GCM", "ab" * 32,
                       "AAAAAAAAAAAAAAAA", "rapp-sealed-artifact/1", "scoped-key-release"])
)  # fmt: skip
_values = st.recursive(
    _leaf,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
    max_leaves=8,
)
manifests = st.fixed_dictionaries(
    {
        "schema": st.sampled_from(["rapp/1-egg", "rapp/2-egg"]),
        "variant": st.sampled_from(
            [
                "organism",
                "rapplication",
                "session",
                "invite",
                "neighborhood",
                "estate",
                "sealed",
                "x",
            ]
        ),
        "rappid": st.sampled_from([_RAPPID, "rappid:@x/y:1"]),
        "created_utc": st.sampled_from(["2026-01-01T00:00:00.000Z", "2026-02-30T00:00:00.000Z"]),
        "contents": st.just([]),
        "payload": st.dictionaries(st.sampled_from(_MEMBER_NAMES), _values, max_size=11) | _values,
        "sig": st.none() | st.text(max_size=10),
    }
)
_files = st.dictionaries(
    st.sampled_from(
        ["rappid.json", "soul.md", "agent.py", "x.py", "ciphertext.bin", "me--thing.egg", "a/b"]
    ),
    st.binary(max_size=30) | st.just(b'{"rappid":"' + _RAPPID.encode() + b'"}'),
    max_size=4,
)


@given(manifests, _files)
def test_manifests_of_every_variant_never_crash_the_verifier(manifest, files):
    from tui.eggs import rapp
    from tui.eggs.canonical_json import CanonicalJsonError, canonical

    manifest = dict(manifest)
    paths = sorted(files, key=rapp.path_sort_key)
    manifest["contents"] = [{"path": p, "hash": rapp.Hb("rapp/1:egg", files[p])} for p in paths]
    try:
        text = canonical(manifest)
    except CanonicalJsonError:
        return  # generated text with a noncharacter: no producer can write it
    zipped = write_stored_zip([("manifest.json", text)] + [(p, files[p]) for p in paths])
    for data in (zipped, canonical({**manifest, "contents": []})):
        report = verify_egg(data)
        assert [c.id for c in report.checks] == CHECK_IDS
