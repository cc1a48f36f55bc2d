"""The RAPP/1 primitives eggs are built from: domain-separated hashes, the egg address and the
grammars of rappids, timestamps, packed paths and detached signatures.

Each grammar is a predicate plus, where a person needs to know why, a function naming the first
broken rule; the verifier reports those words next to the offending value.
"""

from __future__ import annotations

import base64
import calendar
import hashlib
import re
import unicodedata
from typing import Any

from tui.eggs.canonical_json import CanonicalJsonError, canonical, strict_loads

__all__ = [
    "JSON_VARIANTS",
    "MANIFEST_MEMBERS",
    "MANIFEST_NAME",
    "OCTET_TAGS",
    "SCHEMA",
    "VALUE_TAGS",
    "VARIANTS",
    "H",
    "Hb",
    "egg_address",
    "is_hex64",
    "is_kind",
    "is_rappid",
    "is_utc",
    "path_problem",
    "path_sort_key",
    "rappid_parts",
    "sig_problem",
]

SCHEMA = "rapp/1-egg"
MANIFEST_NAME = "manifest.json"
MANIFEST_MEMBERS = frozenset(
    {"schema", "variant", "rappid", "created_utc", "contents", "payload", "sig"}
)
VARIANTS = ("organism", "rapplication", "session", "invite", "neighborhood", "estate", "sealed")
JSON_VARIANTS = frozenset({"session", "invite"})

VALUE_TAGS = frozenset(
    {
        "rapp/1:particle",
        "rapp/1:wave",
        "rapp/1:egg-manifest",
        "rapp/1:sealed-aad",
        "rapp/1:sealed-key-request",
    }
)
OCTET_TAGS = frozenset({"rapp/1:egg", "rapp/1:rappid", "rapp/1:grail", "rapp/1:seal"})

_HEX64 = re.compile(r"[0-9a-f]{64}")
_LCLABEL = r"[a-z0-9]+(?:-[a-z0-9]+)*"
_RAPPID = re.compile(rf"rappid:@({_LCLABEL})/({_LCLABEL}):([0-9a-f]{{64}})")
_UTC = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z")
_DRIVE = re.compile(r"[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f]")
_B64URL = re.compile(r"[A-Za-z0-9_-]*")
_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL"}
    | {f"COM{n}" for n in range(1, 10)}
    | {f"LPT{n}" for n in range(1, 10)}
)


def H(tag: str, value: Any) -> str:  # noqa: N802 - the specification's name
    """Value hash: sha256(tag || LF || canonical(value)); only the §3 value tags are allowed."""
    if tag not in VALUE_TAGS:
        raise ValueError(f"{tag!r} is not a RAPP/1 value-hash tag")
    return hashlib.sha256(tag.encode("ascii") + b"\n" + canonical(value)).hexdigest()


def Hb(tag: str, data: bytes | bytearray | memoryview) -> str:  # noqa: N802
    """Octet hash: sha256(tag || LF || bytes); only the §3 octet tags are allowed."""
    return hb_hasher(tag, data).hexdigest()


def hb_hasher(tag: str, data: bytes | bytearray | memoryview = b"") -> Any:
    """A running sha256 already fed with the tag prefix, for hashing an entry as it streams past."""
    if tag not in OCTET_TAGS:
        raise ValueError(f"{tag!r} is not a RAPP/1 octet-hash tag")
    hasher = hashlib.sha256(tag.encode("ascii") + b"\n")
    hasher.update(data)
    return hasher


def egg_address(manifest: dict[str, Any]) -> str:
    """The egg address: ``H("rapp/1:egg-manifest", manifest without sig)``; re-signing keeps it."""
    without_sig = {k: v for k, v in manifest.items() if k != "sig"}
    return H("rapp/1:egg-manifest", without_sig)


def is_hex64(value: Any) -> bool:
    return isinstance(value, str) and _HEX64.fullmatch(value) is not None


def rappid_parts(value: Any) -> tuple[str, str, str] | None:
    """``(owner, slug, tail)`` of a valid rappid (§4, including the label lengths), else None."""
    if not isinstance(value, str):
        return None
    match = _RAPPID.fullmatch(value)
    if match is None:
        return None
    owner, slug, tail = match.groups()
    if len(owner) > 39 or len(slug) > 100:
        return None
    return owner, slug, tail


def is_rappid(value: Any) -> bool:
    return rappid_parts(value) is not None


def is_utc(value: Any) -> bool:
    """§7.4 timestamp: exactly ``YYYY-MM-DDTHH:MM:SS.mmmZ`` naming a real instant (no leap second)."""
    if not isinstance(value, str) or len(value) != 24 or not value.isascii():
        return False
    match = _UTC.fullmatch(value)
    if match is None:
        return False
    year, month, day, hour, minute, second, _ = map(int, match.groups())
    if not 1 <= month <= 12 or hour > 23 or minute > 59 or second > 59:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = 29 if month == 2 and leap else calendar.monthrange(2001, month)[1]
    return 1 <= day <= days


def is_kind(value: Any) -> bool:
    """Frame kind (§4): ``lclabel "." lclabel``, each label 1-64 characters (``twin.birth``)."""
    if not isinstance(value, str) or value.count(".") != 1:
        return False
    return all(
        len(label) <= 64 and re.fullmatch(_LCLABEL, label) is not None for label in value.split(".")
    )


def path_problem(path: Any) -> str | None:
    """Why ``path`` is not a valid packed path (§6.1), or None when it is."""
    if not isinstance(path, str):
        return "not a string"
    if not path:
        return "empty"
    if path.startswith("/"):
        return "absolute (starts with '/')"
    if "\\" in path:
        return "contains a backslash"
    if _DRIVE.match(path):
        return "starts with a drive prefix"
    if not unicodedata.is_normalized("NFC", path):
        return "not NFC-normalized"
    if _CONTROL.search(path):
        return "contains a control character"
    for segment in path.split("/"):
        if not segment:
            return "has an empty segment"
        if segment in (".", ".."):
            return f"has a {segment!r} segment"
        if segment[-1] in " .":
            return f"segment {segment!r} ends with a space or a dot"
        if ":" in segment:
            return f"segment {segment!r} contains ':'"
        if segment.split(".", 1)[0].upper() in _RESERVED:
            return f"segment {segment!r} is a reserved device name"
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a surrogate"
    return None


def path_sort_key(path: str) -> bytes:
    """Packed paths sort by their UTF-8 bytes (§6.1), not by code point or UTF-16 unit."""
    return path.encode("utf-8", "surrogatepass")


def _b64url_decode(text: str) -> bytes | None:
    if not _B64URL.fullmatch(text) or len(text) % 4 == 1:
        return None
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii") != text:
        return None
    return raw


def b64url_length(text: str) -> int | None:
    """Decoded length of canonical unpadded base64url text, or None when it is not that."""
    raw = _b64url_decode(text)
    return None if raw is None else len(raw)


def sig_problem(sig: Any) -> str | None:
    """Why ``sig`` is not null or a well-formed §6.2 detached JWS, or None (parsing only)."""
    if sig is None:
        return None
    if not isinstance(sig, str):
        return f"sig is a {type(sig).__name__}, not null or a string"
    parts = sig.split(".")
    if len(parts) != 3 or parts[1] != "":
        return "not of the form <protected>..<signature>"
    header_raw = _b64url_decode(parts[0])
    signature = _b64url_decode(parts[2])
    if header_raw is None or signature is None:
        return "not canonical unpadded base64url"
    try:
        header = strict_loads(header_raw)
    except CanonicalJsonError as exc:
        return f"protected header is not JSON: {exc}"
    if not isinstance(header, dict) or set(header) != {"alg", "b64", "crit", "kid"}:
        return "protected header must have exactly alg, b64, crit, kid"
    if header["alg"] not in ("EdDSA", "ES256") or header["b64"] is not False:
        return "protected header alg/b64 outside the profile"
    if header["crit"] != ["b64"] or not is_rappid(header["kid"]):
        return "protected header crit/kid outside the profile"
    if canonical(header) != header_raw:
        return "protected header is not canonical JSON"
    if len(signature) != 64:
        return f"signature is {len(signature)} bytes, not 64"
    return None
