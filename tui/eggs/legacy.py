"""Eggs from before RAPP/1: recognised, read safely, shown, never called verified.

A ZIP that fails RAPP/1's container rules and whose ``manifest.json`` names a ``brainstem-egg/…``
or ``rapp-egg/…`` schema is such an egg; one with no ``manifest.json`` at all is read the same way
and called "no manifest". It lists no hashes of its files, so nothing proves
what it holds; :func:`legacy_report` runs the checks that do apply, in order — the container
read safely (:mod:`tui.eggs.legacy_zip`), ``manifest.json`` and ``rappid.json`` parsed strictly
with their ``rappid`` in agreement, and the promises of the store record it came with (its
size, its agent file's sha256, its rappid) — and answers a report whose ``format`` says
"legacy". Its files can then be listed and read (:func:`read_entry`) under the same caps.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any

from tui.eggs.canonical_json import MAX_CANONICAL_BYTES, CanonicalJsonError, strict_loads
from tui.eggs.egg_hashing import file_hasher
from tui.eggs.egg_report import NO_MANIFEST, EggReport, EntryResult, Results
from tui.eggs.egg_rules import short
from tui.eggs.legacy_zip import (
    LEGACY_RULES,
    MAX_RATIO,
    LegacyEntry,
    LegacyFormatError,
    LegacyZipReader,
)
from tui.eggs.lookalike import lookalikes
from tui.eggs.store import StoreApp
from tui.eggs.zip_reader import EggSource

__all__ = [
    "LEGACY_CHECKS",
    "LEGACY_LACKS",
    "LEGACY_PREFIXES",
    "agent_path",
    "checked_instead",
    "legacy_report",
    "read_entry",
    "recognise",
    "store_refusal",
]

LEGACY_PREFIXES = ("brainstem-egg/", "rapp-egg/")
LEGACY_CHECKS: tuple[tuple[str, str], ...] = (
    *LEGACY_RULES.items(),
    ("legacy.manifest", "manifest.json is strict JSON: an object naming a legacy schema"),
    ("legacy.identity", "rappid.json is strict JSON: an object"),
    ("legacy.rappid", "manifest and rappid.json name the same rappid"),
    ("store.url", "the egg came from the URL its store names, on the store's origin"),
    ("store.size", "file length equals the store record's egg_bytes"),
    ("store.agent", "the agent file matches the store record's singleton_sha256 and size"),
    ("store.rappid", "the store record's rappid is the egg's"),
)
_CONTAINER = frozenset(LEGACY_RULES)
#: What an egg from before RAPP/1 does not have, so nothing can verify it (the inspector's words).
LEGACY_LACKS = (
    "no per-file hashes (nothing proves which bytes each file should hold)",
    "no signature (nothing says who packed it)",
    "no canonical manifest (no address to compare two copies by)",
)
_SMALL = MAX_CANONICAL_BYTES  # manifest.json and rappid.json are read whole up to this


def recognise(source: EggSource) -> str | None:
    """The legacy schema ``source``'s ``manifest.json`` names, :data:`NO_MANIFEST` when the
    archive's directory reads and has no ``manifest.json``, or None (not a ZIP, another schema,
    or a manifest that cannot be inflated within the caps). Only the central
    directory and that one entry are read; the report's checks come after."""
    if source.read(0, 2) != b"PK":
        return None
    try:
        reader = LegacyZipReader(source)
        entries = reader.structure()
        manifest = next((e for e in entries if e.raw_name == b"manifest.json"), None)
        if manifest is None:
            return NO_MANIFEST
        if manifest.size > _SMALL or manifest.method not in (0, 8):
            return None
        data = _inflate_alone(source, manifest)
        schema = json.loads(data).get("schema") if data is not None else None
    except (LegacyFormatError, ValueError, AttributeError, RecursionError):
        return None
    if isinstance(schema, str) and schema.startswith(LEGACY_PREFIXES):
        return schema
    return None


def _inflate_alone(source: EggSource, entry: LegacyEntry) -> bytes | None:
    """One small entry's bytes (at most its declared size, within the ratio), found through its
    local header; None when anything about it is off."""
    header = source.read(entry.header_offset, 30)
    if len(header) < 30 or header[:4] != b"PK\x03\x04":
        return None
    name_len = int.from_bytes(header[26:28], "little")
    extra_len = int.from_bytes(header[28:30], "little")
    raw = source.read(entry.header_offset + 30 + name_len + extra_len, entry.compressed_size)
    if entry.method == 0:
        return raw
    if entry.size > MAX_RATIO * max(1, entry.compressed_size):
        return None
    inflater = zlib.decompressobj(-15)
    try:
        data = inflater.decompress(raw, entry.size + 1)
    except zlib.error:
        return None
    return data if len(data) == entry.size else None


class _Capture:
    """An entry's inflated bytes (up to a cap) and its plain sha256."""

    def __init__(self, keep: bool) -> None:
        self.sha256 = hashlib.sha256()
        self.data = bytearray() if keep else None
        self.size = 0

    def update(self, block: Any) -> None:
        self.sha256.update(block)
        self.size += len(block)
        if self.data is not None:
            self.data += block


def legacy_report(
    source: EggSource, schema: str, store: StoreApp | None = None, came_from: str | None = None
) -> EggReport:
    """The report of a legacy egg whose manifest names ``schema``; ``store``: the store record
    it came with, ``came_from``: where it was read (the store's URL or its mirror)."""
    r = Results(LEGACY_CHECKS, _CONTAINER)
    reader = LegacyZipReader(source)
    captures: dict[str, _Capture] = {}
    whole = None
    rules = list(LEGACY_RULES)
    try:
        entries = reader.read_directory()
        for rule in rules[: rules.index("legacy.inflate")]:
            r.ok(rule)
        alike = lookalikes(e.name for e in entries if not e.is_folder)
        r.ok("legacy.names", _names_detail(len(entries), alike))
        whole = file_hasher()

        def sink_for(entry: LegacyEntry) -> _Capture:
            keep = entry.name in ("manifest.json", "rappid.json") and entry.size <= _SMALL
            captures[entry.name] = _Capture(keep)
            return captures[entry.name]

        reader.stream(sink_for, whole)
        r.ok("legacy.inflate", f"{sum(e.size for e in entries):,} bytes in all")
        r.ok("legacy.crc", f"{len(entries)} entries")
    except LegacyFormatError as exc:
        for rule in rules[: rules.index(exc.rule)]:
            if r.status(rule) is None:
                r.ok(rule)
        r.fail(exc.rule, exc.detail)
    sha256 = whole.hexdigest() if whole is not None else source.sha256()
    manifest = None
    if schema == NO_MANIFEST:
        _no_manifest(r)
    elif r.container_failure is None:
        manifest = _manifest(r, captures, schema)
        _identity(r, captures, manifest)
    _store(r, store, came_from, source.size, captures, manifest)
    kind = NO_MANIFEST if schema == NO_MANIFEST else f"legacy ({schema})"
    report = EggReport(checks=r.checks(), size=source.size, sha256=sha256, format=kind)
    report.manifest = manifest
    alike = lookalikes(e.name for e in reader.entries if not e.is_folder)
    report.entries = [
        EntryResult(e.name, e.size, e.data_offset, None, None, None, alike.get(e.name))
        for e in reader.entries
        if not e.is_folder
    ]
    return report


def _names_detail(count: int, alike: dict[str, str]) -> str:
    """``legacy.names``' detail: the entries, and the names that pass for others, flagged."""
    if not alike:
        return f"{count} entries"
    shown = "; ".join(f"{name!r}: {why}" for name, why in list(alike.items())[:3])
    more = f"; and {len(alike) - 3} more" if len(alike) > 3 else ""
    return f"{count} entries; LOOK-ALIKE NAMES, {len(alike)}: {shown}{more}"


def _no_manifest(r: Results) -> None:
    why = "the egg has no manifest.json: nothing in it says what it is"
    for check_id in ("legacy.manifest", "legacy.identity", "legacy.rappid"):
        r.skip(check_id, why)


def checked_instead(report: EggReport) -> list[str]:
    """What was checked of a legacy (or manifest-less) egg in place of what it lacks, one line
    each, from its report: the checks that passed, by their names."""
    return [check.name for check in report.checks if check.status == "pass"]


def _strict(capture: _Capture | None, name: str) -> tuple[Any, str | None]:
    if capture is None:
        return None, f"{name} is not in the egg"
    if capture.data is None:
        return None, f"{name} is {capture.size:,} bytes, more than {_SMALL:,}"
    try:
        value = strict_loads(bytes(capture.data))
    except CanonicalJsonError as exc:
        return None, f"{name} is not strict JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"{name} is not a JSON object"
    return value, None


def _manifest(r: Results, captures: dict[str, _Capture], schema: str) -> dict[str, Any] | None:
    value, problem = _strict(captures.get("manifest.json"), "manifest.json")
    if value is not None and value.get("schema") != schema:
        problem = f"schema is {short(value.get('schema'))}, not {schema!r}"
    r.expect("legacy.manifest", problem is None, schema, lambda: problem or "")
    return value if problem is None else None


def _identity(r: Results, captures: dict[str, _Capture], manifest: dict[str, Any] | None) -> None:
    if manifest is None:
        r.skip("legacy.identity", "not run: the manifest did not parse")
        r.skip("legacy.rappid", "not run: the manifest did not parse")
        return
    if "rappid.json" not in captures:
        why = "the egg has no rappid.json"
        r.skip("legacy.identity", why)
        r.skip("legacy.rappid", why)
        return
    identity, problem = _strict(captures["rappid.json"], "rappid.json")
    schema = identity.get("schema") if identity is not None else None
    r.expect("legacy.identity", problem is None, f"schema {short(schema)}", lambda: problem or "")
    if identity is None:
        r.skip("legacy.rappid", "not run: rappid.json did not parse")
        return
    ours, theirs = manifest.get("rappid"), identity.get("rappid")
    r.expect(
        "legacy.rappid",
        isinstance(ours, str) and ours == theirs,
        str(ours),
        lambda: f"manifest rappid {short(ours)}, rappid.json rappid {short(theirs)}",
    )


def agent_path(manifest: dict[str, Any] | None, schema: str) -> str | None:
    """Where the manifest says the agent file is: under ``agents/`` for a brainstem egg, at the
    top for a ``rapp-egg`` (None when the manifest names none)."""
    name = manifest.get("agent_filename") if isinstance(manifest, dict) else None
    if not isinstance(name, str) or not name:
        return None
    return f"agents/{name}" if schema.startswith("brainstem-egg/") else name


def _store(
    r: Results,
    store: StoreApp | None,
    came_from: str | None,
    size: int,
    captures: dict[str, _Capture],
    manifest: dict[str, Any] | None,
) -> None:
    if store is None:
        for check_id in ("store.url", "store.size", "store.agent", "store.rappid"):
            r.skip(check_id, "no store record given")
        return
    if came_from is None:
        r.skip("store.url", "the egg was given as a file")
    else:
        r.ok("store.url", came_from)
    if store.egg_bytes is None:
        r.skip("store.size", f"the store gives no egg_bytes (file is {size:,} bytes)")
    else:
        r.expect("store.size", size == store.egg_bytes, f"{size:,} bytes",
                 f"file is {size:,} bytes, the store record says {store.egg_bytes:,}")  # fmt: skip
    if manifest is None:
        r.skip("store.agent", "not run: the manifest did not parse")
        r.skip("store.rappid", "not run: the manifest did not parse")
        return
    schema = str(manifest.get("schema"))
    path = agent_path(manifest, schema)
    capture = captures.get(path) if path is not None else None
    if store.singleton_sha256 is None:
        r.skip("store.agent", "the store gives no singleton_sha256")
    elif capture is None:
        r.skip("store.agent", f"the agent file {path or '(none named)'} is not in this egg")
    else:
        actual = capture.sha256.hexdigest()
        good = actual == store.singleton_sha256 and store.singleton_bytes in (None, capture.size)
        r.expect("store.agent", good, f"{path} {actual}",
                 f"{path} is {capture.size:,} bytes, sha256 {actual}; the store record says "
                 f"{store.singleton_bytes} bytes, {store.singleton_sha256}")  # fmt: skip
    ours = manifest.get("rappid")
    if store.rappid is None:
        r.skip("store.rappid", "the store gives no rappid")
    elif ours is None:
        r.skip("store.rappid", "the egg names no rappid")
    else:
        r.expect("store.rappid", ours == store.rappid, str(ours),
                 lambda: f"egg has {short(ours)}, the store record says {short(store.rappid)}")  # fmt: skip


def store_refusal(check_id: str, detail: str) -> EggReport:
    """The report of a store egg refused before a byte of it was kept (its URL, its size)."""
    r = Results(LEGACY_CHECKS, _CONTAINER)
    r.fail(check_id, detail)
    for other, _ in LEGACY_CHECKS:
        if other != check_id:
            r.skip(other, f"not checked: the egg was refused ({check_id} failed)")
    return EggReport(checks=r.checks(), format="store egg (refused before it was read)")


def read_entry(source: EggSource, name: str) -> bytes:
    """The inflated bytes of entry ``name`` of a legacy egg, read under the same caps and
    checks as the report's (raises :class:`LegacyFormatError` or ``KeyError``)."""
    reader = LegacyZipReader(source)
    entries = reader.read_directory()
    wanted = next((e for e in entries if e.name == name), None)
    if wanted is None:
        raise KeyError(name)
    reader.entries = [wanted]
    capture = _Capture(keep=True)
    reader.stream(lambda entry: capture)
    assert capture.data is not None
    return bytes(capture.data)
