"""RAPP/1 primitives: domain-separated hashes, egg address, rappid / utc / path / sig grammars."""

from __future__ import annotations

import base64
import hashlib

import pytest

from tui.eggs import rapp
from tui.eggs.canonical_json import canonical

TAIL = "3e0d62dfe9a49259fb331d8b570e35da53592250cebb41334dbc5f5273b599c7"


def test_hashes_are_domain_separated():
    assert rapp.Hb("rapp/1:egg", b"abc") == hashlib.sha256(b"rapp/1:egg\nabc").hexdigest()
    assert rapp.Hb("rapp/1:egg", b"abc") != hashlib.sha256(b"abc").hexdigest()
    value = {"b": 1, "a": [True, None]}
    assert (
        rapp.H("rapp/1:egg-manifest", value)
        == hashlib.sha256(b'rapp/1:egg-manifest\n{"a":[true,null],"b":1}').hexdigest()
    )
    with pytest.raises(ValueError):
        rapp.H("rapp/1:egg", value)  # an octet tag is not a value tag
    with pytest.raises(ValueError):
        rapp.Hb("rapp/1:egg-manifest", b"")
    hasher = rapp.hb_hasher("rapp/1:egg")
    hasher.update(b"ab")
    hasher.update(b"c")
    assert hasher.hexdigest() == rapp.Hb("rapp/1:egg", b"abc")


def test_egg_address_ignores_sig_only():
    manifest = {
        "schema": "rapp/1-egg",
        "variant": "organism",
        "rappid": "x",
        "created_utc": "y",
        "contents": [],
        "payload": {"k": 1},
        "sig": None,
    }
    address = rapp.egg_address(manifest)
    assert (
        address
        == hashlib.sha256(
            b"rapp/1:egg-manifest\n" + canonical({k: v for k, v in manifest.items() if k != "sig"})
        ).hexdigest()
    )
    assert rapp.egg_address({**manifest, "sig": "anything"}) == address
    assert rapp.egg_address({**manifest, "payload": {"k": 2}}) != address


@pytest.mark.parametrize(
    "value",
    [
        f"rappid:@hive-hub/micro-manufacturing-company-boot:{TAIL}",
        f"rappid:@a/b:{TAIL}",
        f"rappid:@{'a' * 39}/{'b' * 100}:{TAIL}",
    ],
)
def test_valid_rappids(value):
    assert rapp.is_rappid(value)


@pytest.mark.parametrize(
    "value",
    [
        f"rappid:@{'a' * 40}/b:{TAIL}",
        f"rappid:@a/{'b' * 101}:{TAIL}",
        f"rappid:@A/b:{TAIL}",
        f"rappid:@a-/b:{TAIL}",
        f"rappid:@a--b/c:{TAIL}",
        f"rappid:@a/b:{TAIL.upper()}",
        f"rappid:@a/b:{TAIL[:-1]}",
        f"rappid:@a/b:{TAIL}\n",
        f" rappid:@a/b:{TAIL}",
        "rappid:@a/b:",
        7,
        None,
    ],
)
def test_invalid_rappids(value):
    assert not rapp.is_rappid(value)


@pytest.mark.parametrize(
    "value",
    [
        "2026-09-23T20:07:37.819Z",
        "2024-02-29T00:00:00.000Z",
        "2000-02-29T23:59:59.999Z",
        "0000-01-01T00:00:00.000Z",
    ],
)
def test_valid_utc(value):
    assert rapp.is_utc(value)


@pytest.mark.parametrize(
    "value",
    [
        "2026-09-23T20:07:37Z",
        "2026-09-23t20:07:37.819Z",
        "2026-09-23T20:07:37.819z",
        "2026-09-23T20:07:37.819+00:00",
        "2023-02-29T00:00:00.000Z",
        "1900-02-29T00:00:00.000Z",
        "2026-13-01T00:00:00.000Z",
        "2026-00-01T00:00:00.000Z",
        "2026-04-31T00:00:00.000Z",
        "2026-01-01T24:00:00.000Z",
        "2026-01-01T00:60:00.000Z",
        "2026-06-30T23:59:60.000Z",
        "２026-01-01T00:00:00.000Z",
        "2026-09-23T20:07:37.819Z\n",
        None,
    ],
)
def test_invalid_utc(value):
    assert not rapp.is_utc(value)


@pytest.mark.parametrize(
    "path",
    [
        "soul.md",
        "agents/rapp_seed_runner_agent.py",
        "x/manifest.json",
        "a/b c/d.txt",
        "é.md",
        "CONSOLE.txt",
    ],
)
def test_valid_paths(path):
    assert rapp.path_problem(path) is None


@pytest.mark.parametrize(
    "path",
    [
        "",
        "/etc/passwd",
        "../x",
        "a/../b",
        "a/./b",
        "a//b",
        "a/",
        "a\\b",
        "C:x",
        "a/b.",
        "a/b ",
        "a:b",
        "a/\x01",
        "con",
        "nul.txt",
        "LPT9.log",
        "e\u0301.md",
        "\udc80",
        3,
    ],
)
def test_invalid_paths(path):
    assert rapp.path_problem(path) is not None


def test_path_sort_is_by_utf8_bytes():
    # U+FB33 sorts before U+1F600 by UTF-8 bytes, after it by UTF-16 code units.
    paths = ["\U0001f600", "\ufb33", "b", "B", "a/b", "a-b"]
    assert sorted(paths, key=rapp.path_sort_key) == ["B", "a-b", "a/b", "b", "\ufb33", "\U0001f600"]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _sig(header: dict | bytes, signature: bytes = b"\x01" * 64) -> str:
    raw = header if isinstance(header, bytes) else canonical(header)
    return _b64(raw) + ".." + _b64(signature)


GOOD_HEADER = {"alg": "EdDSA", "b64": False, "crit": ["b64"], "kid": f"rappid:@owner/key:{TAIL}"}


def test_sig_grammar():
    assert rapp.sig_problem(None) is None
    assert rapp.sig_problem(_sig(GOOD_HEADER)) is None
    assert rapp.sig_problem(_sig({**GOOD_HEADER, "alg": "ES256"})) is None
    bad = [
        5,
        "abc",
        _sig(GOOD_HEADER).replace("..", "."),
        _sig(GOOD_HEADER, b"\x01" * 63),
        _sig({**GOOD_HEADER, "alg": "RS256"}),
        _sig({**GOOD_HEADER, "b64": True}),
        _sig({**GOOD_HEADER, "kid": "me"}),
        _sig({**GOOD_HEADER, "x": 1}),
        _sig(
            b'{"kid":"%s","alg":"EdDSA","b64":false,"crit":["b64"]}' % GOOD_HEADER["kid"].encode()
        ),
        _sig(GOOD_HEADER) + "=",
        _sig(GOOD_HEADER)[:-1] + "B",  # non-canonical trailing bits
    ]
    for sig in bad:
        assert rapp.sig_problem(sig) is not None, sig


def test_kind_grammar():
    assert rapp.is_kind("twin.birth") and rapp.is_kind(f"{'a' * 64}.b-c")
    for bad in ("twin", "twin.birth.x", "Twin.birth", f"{'a' * 65}.b", ".b", "a.", "a-.b", None):
        assert not rapp.is_kind(bad), bad
