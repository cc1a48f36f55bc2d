"""Hypothesis: the strict ZIP reader and the verifier never fail with anything but their own words."""

from __future__ import annotations

import struct

from hypothesis import HealthCheck, given, settings
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


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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


@settings(max_examples=400, deadline=None)
@given(st.integers(_CD, len(EGG) - 1), st.integers(0, 255), st.integers(0, 3))
def test_header_mutations(offset, value, width):
    data = bytearray(EGG)
    for i in range(width + 1):
        if offset + i < len(data):
            data[offset + i] = value
    read_all(bytes(data))
    verify_all(bytes(data))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, len(EGG)), st.binary(max_size=64), st.integers(0, 64))
def test_cuts_and_insertions(at, inserted, removed):
    data = EGG[:at] + inserted + EGG[at + removed :]
    read_all(data)
    verify_all(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes(data):
    read_all(data)
    read_all(b"PK" + data)
    verify_egg(data)
    verify_egg(b"PK\x03\x04" + data)


names = st.text(min_size=0, max_size=12).map(lambda t: t.encode("utf-8", "surrogatepass"))


@settings(max_examples=300, deadline=None)
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
