"""Viability rules of the variants roost meets less often than seed boots."""

from __future__ import annotations

import base64

import pytest

from tui.eggs import rapp
from tui.eggs.canonical_json import canonical
from tui.eggs.verify import verify_egg
from tui.sandbox.eggs import write_stored_zip

ME = "rappid:@me/thing:" + "ab" * 32
UTC = "2026-01-01T00:00:00.000Z"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


SIG = (
    b64(canonical({"alg": "EdDSA", "b64": False, "crit": ["b64"], "kid": ME}))
    + ".."
    + b64(b"\1" * 64)
)


def manifest(variant: str, payload: dict, sig: str | None = None) -> dict:
    return {"schema": "rapp/1-egg", "variant": variant, "rappid": ME, "created_utc": UTC,
            "contents": [], "payload": payload, "sig": sig}  # fmt: skip


def zip_egg(value: dict, files: dict[str, bytes]) -> bytes:
    paths = sorted(files, key=rapp.path_sort_key)
    value = {
        **value,
        "contents": [{"path": p, "hash": rapp.Hb("rapp/1:egg", files[p])} for p in paths],
    }
    return write_stored_zip([("manifest.json", canonical(value))] + [(p, files[p]) for p in paths])


IDENTITY = {"rappid.json": canonical({"rappid": ME, "schema": "rapp/1"})}


def test_rapplication_needs_exactly_agent_py_at_the_root():
    good = zip_egg(manifest("rapplication", {}), {**IDENTITY, "agent.py": b"", "lib/x.py": b""})
    assert verify_egg(good).failed() == []
    bad = zip_egg(manifest("rapplication", {}), {**IDENTITY, "agent.py": b"", "other.py": b""})
    assert verify_egg(bad).failed() == ["viability"]


def test_invite_needs_a_signature_and_a_plain_target():
    payload = {"target_rappid": ME, "target_url": "https://hub.example/n", "target_kind": "estate"}
    report = verify_egg(canonical(manifest("invite", payload, SIG)))
    assert report.failed() == ["signature"]  # well formed, but roost holds no key
    unsigned = verify_egg(canonical(manifest("invite", payload)))
    assert "viability" in unsigned.failed()
    creds = verify_egg(
        canonical(manifest("invite", {**payload, "target_url": "https://u:p@h/"}, SIG))
    )
    assert creds.failed() == ["viability", "signature"]


def test_session_payload_shape():
    assert (
        verify_egg(canonical(manifest("session", {"runtime": "r", "transcript": []}))).failed()
        == []
    )
    assert verify_egg(
        canonical(manifest("session", {"runtime": "r", "transcript": [1]}))
    ).failed() == ["viability"]
    zipped = zip_egg(manifest("session", {"runtime": "r", "transcript": []}), {})
    assert verify_egg(zipped).failed() == ["manifest.container"]


def sealed_payload(size: int) -> dict:
    payload = {
        "schema": "rapp-sealed-artifact/1", "cipher": "A256GCM", "nonce": b64(b"\0" * 12),
        "plaintext_commitment": "cd" * 32, "plaintext_bytes": size, "media_type": "text/plain",
        "key_id": "ef" * 32, "key_service_rappid": ME, "key_service_url": "https://keys.example/v1/chat",
        "access": "scoped-key-release",
    }  # fmt: skip
    aad = {"schema": payload["schema"], "artifact_rappid": ME, "created_utc": UTC, "key_id": payload["key_id"],
           "plaintext_commitment": payload["plaintext_commitment"], "plaintext_bytes": size,
           "media_type": "text/plain"}  # fmt: skip
    payload["aad_hash"] = rapp.H("rapp/1:sealed-aad", aad)
    return payload


@pytest.mark.parametrize(
    ("change", "cipher_len", "failed"),
    [
        ({}, 26, ["signature"]),
        ({}, 25, ["viability", "signature"]),
        ({"cipher": "A128GCM"}, 26, ["viability", "signature"]),
        ({"key_service_url": "https://keys.example/v1/chat?x=1"}, 26, ["viability", "signature"]),
        ({"aad_hash": "00" * 32}, 26, ["viability", "signature"]),
    ],
)
def test_sealed_rules(change, cipher_len, failed):
    egg = zip_egg(
        manifest("sealed", {**sealed_payload(10), **change}, SIG),
        {"ciphertext.bin": b"\0" * cipher_len},
    )
    assert verify_egg(egg).failed() == failed


def test_estate_of_neighborhoods_of_organisms_and_the_nesting_limit():
    organism = zip_egg(manifest("organism", {}), {**IDENTITY, "soul.md": b"# me\n"})
    hood_id = "rappid:@me/street:" + "cd" * 32
    hood_value = {**manifest("neighborhood", {"members": [ME]}), "rappid": hood_id}
    hood = zip_egg(hood_value, {"me--thing.egg": organism})
    estate_value = {
        **manifest("estate", {"neighborhoods": [hood_id]}),
        "rappid": "rappid:@me/land:" + "ef" * 32,
    }
    assert verify_egg(zip_egg(estate_value, {"me--street.egg": hood})).failed() == []
    wrong_kind = zip_egg(estate_value, {"me--street.egg": organism})
    assert verify_egg(wrong_kind).failed() == ["viability"]
    assert verify_egg(organism, depth=9).failed() == ["nesting"]
