"""Boot-record and egg-manifest models: the twelve published records, constants, unknown fields."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tests.conftest import REAL_BOOTS_DIR
from tui.eggs.boot_record import (
    PUBLIC_HUB_URL,
    boundary_problems,
    parse_boot_record,
    record_bytes,
)
from tui.eggs.egg_manifest import parse_manifest

MICRO = "e4a72dcadb9f0aa204dc4c0393d75bf1c15ead20f978cd4e8dac84a827634835.json"


@pytest.fixture
def real_boots():
    if not REAL_BOOTS_DIR.is_dir():
        pytest.skip("../shared/real/boot-records is not present beside this clone")
    return sorted(REAL_BOOTS_DIR.glob("*.json"))


def test_the_twelve_real_records_validate(real_boots):
    import hashlib

    assert len(real_boots) == 12
    slugs = set()
    for path in real_boots:
        data = path.read_bytes()
        assert hashlib.sha256(data).hexdigest() == path.stem  # content-addressed file names
        record = parse_boot_record(data)
        assert record_bytes(record.as_value()) == data  # nothing lost, nothing reordered
        assert boundary_problems(record, PUBLIC_HUB_URL) == []
        assert boundary_problems(record) == []
        assert record.unknown_fields() == {}
        slugs.add(record.slug)
    assert len(slugs) == 12


@pytest.fixture
def micro(real_boots):
    return json.loads((REAL_BOOTS_DIR / MICRO).read_bytes())


@pytest.mark.parametrize(
    ("where", "member", "value"),
    [
        ((), "kind", "organization-seed"),
        ((), "schema", "hive-hub-organization-seed-boot/2"),
        ((), "classification", "public"),
        ((), "status", "hatched"),
        (("hatch",), "grantsAuthority", True),
        (("egg",), "variant", "rapplication"),
        (("egg",), "payloadKind", "x"),
        (("egg",), "mediaType", "application/octet-stream"),
        (("egg",), "sha256", "ABC"),
        (("egg",), "rappid", "rappid:@hive-hub/x:1"),
        (("egg",), "utc", "2026-09-23T20:07:37Z"),
        (("egg",), "bytes", "359074"),
        (("organ",), "name", "Other"),
        (("seed",), "recordSha256", 5),
    ],
)
def test_constants_and_types_are_checked(micro, where, member, value):
    target = micro
    for key in where:
        target = target[key]
    target[member] = value
    with pytest.raises(ValidationError):
        parse_boot_record(micro)


@pytest.mark.parametrize("member", ["egg", "organ", "slug", "hatch"])
def test_missing_members_are_refused(micro, member):
    del micro[member]
    with pytest.raises(ValidationError):
        parse_boot_record(micro)


def test_unknown_fields_are_kept_and_listed(micro):
    micro["mirror"] = {"url": "x"}
    micro["egg"]["signature"] = "s"
    micro["brainstem"]["hatcher"]["note"] = 1
    record = parse_boot_record(micro)
    assert record.unknown_fields() == {
        "brainstem.hatcher.note": 1,
        "egg.signature": "s",
        "mirror": {"url": "x"},
    }
    assert record.as_value() == micro


def test_boundary_problems(micro):
    micro["slug"] = "Micro"
    micro["egg"]["ref"] = "sha256:" + "0" * 64
    micro["egg"]["url"] = "https://elsewhere.example/x.egg"
    problems = boundary_problems(parse_boot_record(micro))
    assert any("slug" in p for p in problems)
    assert any("egg.ref" in p for p in problems)
    assert any("egg.url" in p for p in problems)
    assert any("egg.rappid slug" in p for p in problems)
    micro2 = json.loads((REAL_BOOTS_DIR / MICRO).read_bytes())
    assert boundary_problems(parse_boot_record(micro2), "http://127.0.0.1:8000") != []


def test_egg_manifest_model():
    tail = "ab" * 32
    value = {
        "schema": "rapp/1-egg",
        "variant": "organism",
        "rappid": f"rappid:@hive-hub/x-boot:{tail}",
        "created_utc": "2026-09-23T20:07:37.819Z",
        "contents": [{"path": "soul.md", "hash": tail}],
        "payload": {"kind": "rapp-seed-boot/1"},
        "sig": None,
    }
    manifest = parse_manifest(value)
    assert manifest.as_value() == value
    assert manifest.payload_kind == "rapp-seed-boot/1"
    assert len(manifest.address) == 64
    for bad in (
        {"extra": 1},
        {"schema": "rapp/2-egg"},
        {"variant": "x"},
        {"created_utc": "now"},
        {"contents": [{"path": "../x", "hash": tail}]},
        {"sig": "nope"},
        {"payload": []},
    ):
        with pytest.raises(ValidationError):
            parse_manifest({**value, **bad})


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://kody-w.github.io/rapp-hive-hub/P", True),
        ("https://127.0.0.1:8765/P", True),
        ("https://[::1]:8765/P", True),
        ("http://127.0.0.1:8765/P", True),  # a hub on loopback may be http://
        ("http://hub.example/P", False),  # no hub known: https only, but on loopback
        ("http://kody-w.github.io/rapp-hive-hub/P", False),
        ("https://user:pw@host/P", False),
        ("https://user@host/P", False),
        ("https://host/P?x=1", False),
        ("https://host/x#/P", False),
        ("ftp://host/P", False),
        ("https:///P", False),
        ("https://ho st/P", False),
        ("https://host:0/P", False),
        ("https://host:99999/P", False),
        ("https://host/other", False),
    ],
)
def test_egg_url_pattern_without_a_pinned_hub(url, ok):
    from tui.eggs.boot_record import egg_url_problems

    path = "api/hive-hub/v1/seed-boots/downloads/sha256/00/x.egg"
    assert (egg_url_problems(url.replace("P", path), path) == []) is ok


def test_with_a_hub_known_the_url_must_be_exactly_that_hubs():
    from tui.eggs.boot_record import egg_url_problems, implied_hub

    path = "api/hive-hub/v1/seed-boots/downloads/sha256/00/x.egg"
    real = "https://kody-w.github.io/rapp-hive-hub"
    assert egg_url_problems(f"{real}/{path}", path, real) == []
    assert egg_url_problems(f"{real}/{path}", path, real + "/") == []
    (problem,) = egg_url_problems(f"{real}/{path}", path, "http://demo.roost.invalid/hub")
    assert f"http://demo.roost.invalid/hub/{path}" in problem  # named in full, never cut
    assert implied_hub(f"{real}/{path}", path) == real
