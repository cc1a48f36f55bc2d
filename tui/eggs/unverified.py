"""A failed egg, looked at without vouching for it.

An egg that fails a check is not hidden: the inspector and ``roost egg ls/cat --unverified``
show what could be read of it, under a banner that says nothing in it is vouched for. It is read
by the same safe reader, caps and checks as an egg from before RAPP/1
(:mod:`tui.eggs.legacy_zip`: safe relative names, no links, duplicates, encryption or ZIP64,
local headers that agree with the directory and do not overlap, bounded inflation), so a failed
egg can never show more, or other, bytes than a careful reader would see. An archive that reader
refuses "cannot be read safely": then only the report is shown, with why.

:func:`look_at` answers a :class:`FailedEgg`: the manifest as far as it parsed (strict JSON, said
when it is not its canonical form), and each file with its hash status against the manifest's
``contents`` — ``matches``, ``differs``, ``missing`` (listed, not in the archive) or ``extra``
(in the archive, not listed). :func:`read_file` reads one file's bytes the same way.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Literal

from tui.eggs import rapp
from tui.eggs.canonical_json import MAX_CANONICAL_BYTES, CanonicalJsonError, strict_parse
from tui.eggs.egg_hashing import EntryHashes
from tui.eggs.egg_report import EggReport
from tui.eggs.legacy import read_entry
from tui.eggs.legacy_zip import LegacyFormatError, LegacyZipReader
from tui.eggs.zip_reader import EggSource

__all__ = [
    "HASH_STATUSES",
    "FailedEgg",
    "HashStatus",
    "LooseFile",
    "banner",
    "look_at",
    "read_file",
]

HashStatus = Literal["matches", "differs", "missing", "extra", "manifest", "unlisted"]
#: What each status means, in the words the inspector and ``egg ls --unverified`` use.
HASH_STATUSES: dict[str, str] = {
    "matches": "its bytes hash to the manifest's contents hash",
    "differs": "its bytes do not hash to the manifest's contents hash",
    "missing": "listed in the manifest's contents, not in the archive",
    "extra": "in the archive, not listed in the manifest's contents",
    "manifest": "the manifest itself (hashed by the egg address, not by contents)",
    "unlisted": "no contents to check it against (the manifest did not parse)",
}


@dataclass(frozen=True)
class LooseFile:
    """One file of a failed egg: ``size`` None for a file the manifest lists but the archive
    lacks; ``egg_hash`` what its bytes hash to, ``expected`` what the manifest says."""

    name: str
    size: int | None
    status: HashStatus
    egg_hash: str | None = None
    expected: str | None = None


@dataclass(frozen=True)
class FailedEgg:
    """What could be read of an egg that failed ``check`` (``position``: its number)."""

    position: int
    check: str
    #: why the archive cannot be read safely (then nothing but the report is shown), or None
    unreadable: str | None = None
    manifest: Any = None
    #: how the manifest was read: "canonical", "not its canonical form", or why it was not
    manifest_note: str = ""
    files: tuple[LooseFile, ...] = ()
    #: something read that the report may not say (a CRC that differs), or ""
    note: str = ""

    @property
    def banner(self) -> str:
        return banner(self.position, self.unreadable)

    def file(self, name: str) -> LooseFile | None:
        return next((f for f in self.files if f.name == name), None)

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for f in self.files:
            counts[f.status] = counts.get(f.status, 0) + 1
        return counts


def banner(position: int, unreadable: str | None = None) -> str:
    """The one line over a failed egg: the inspector's banner, ``--unverified``'s stderr."""
    line = f"FAILED at check {position} — nothing in it is vouched for"
    if unreadable is not None:
        line += f"\nits container cannot be read safely ({unreadable}): only the report is shown"
    return line


def look_at(source: EggSource, report: EggReport) -> FailedEgg:
    """What can be read of ``source``, an egg whose ``report`` has a failure. Reads the file
    once (on the calling thread: a worker's), never raises for anything in the egg."""
    failure = report.first_failure
    position, check = (failure[0], failure[1].id) if failure is not None else (0, "")
    if source.read(0, 2) != b"PK":
        return _json_egg(source, position, check)
    reader = LegacyZipReader(source)
    try:
        entries = reader.read_directory()
    except LegacyFormatError as exc:
        return FailedEgg(position, check, unreadable=_why(exc))
    hashes: dict[str, EntryHashes] = {}

    def sink_for(entry: Any) -> EntryHashes:
        small = entry.name == rapp.MANIFEST_NAME and entry.size <= MAX_CANONICAL_BYTES
        hashes[entry.name] = EntryHashes(capture=small)
        return hashes[entry.name]

    note = ""
    try:
        reader.stream(sink_for)
    except LegacyFormatError as exc:
        if exc.rule != "legacy.crc":
            return FailedEgg(position, check, unreadable=_why(exc))
        note = f"{exc.detail} (its bytes are shown as they are)"
    sizes = {e.name: e.size for e in entries if not e.is_folder}
    manifest_entry = hashes.get(rapp.MANIFEST_NAME)
    manifest, manifest_note = _manifest(
        manifest_entry.data if manifest_entry is not None else None,
        sizes.get(rapp.MANIFEST_NAME),
    )
    files = _statuses(manifest, sizes, {n: h.egg_hash for n, h in hashes.items()})
    return FailedEgg(position, check, None, manifest, manifest_note, files, note)


def read_file(source: EggSource, name: str) -> bytes:
    """The bytes of file ``name`` of a failed egg, through the same safe reader and caps
    (raises :class:`LegacyFormatError`, ``KeyError``). A CRC-32 that differs does not stop
    it: the bytes are those every reader sees; their hash status says what they are worth."""
    try:
        return read_entry(source, name)
    except LegacyFormatError as exc:
        if exc.rule != "legacy.crc":
            raise
    reader = LegacyZipReader(source)
    wanted = next(e for e in reader.read_directory() if e.name == name)
    reader.entries = [wanted]
    kept = EntryHashes(capture=True)
    with contextlib.suppress(LegacyFormatError):
        reader.stream(lambda entry: kept)
    assert kept.data is not None
    return kept.data


def _why(exc: LegacyFormatError) -> str:
    return f"{exc.rule}: {exc.detail}"


def _json_egg(source: EggSource, position: int, check: str) -> FailedEgg:
    """A JSON egg (not a ZIP): its whole file is the manifest, read when within 1 MiB."""
    if source.size > MAX_CANONICAL_BYTES:
        why = f"a JSON egg of {source.size:,} bytes, more than {MAX_CANONICAL_BYTES:,}"
        return FailedEgg(position, check, unreadable=why)
    manifest, note = _manifest(source.read(0, source.size), source.size)
    return FailedEgg(position, check, None, manifest, note)


def _manifest(data: bytes | None, size: int | None) -> tuple[Any, str]:
    if size is None:
        return None, "the archive has no manifest.json"
    if data is None:
        return None, f"manifest.json is {size:,} bytes, more than {MAX_CANONICAL_BYTES:,}: not read"
    try:
        value, canonical = strict_parse(data)
    except CanonicalJsonError as exc:
        return None, f"manifest.json is not strict JSON: {exc}"
    if canonical != data:
        return value, "strict JSON, but not its canonical form"
    return value, "strict JSON, its canonical form"


def _statuses(
    manifest: Any, sizes: dict[str, int], actual: dict[str, str]
) -> tuple[LooseFile, ...]:
    contents = manifest.get("contents") if isinstance(manifest, dict) else None
    listed: dict[str, Any] | None = None
    if isinstance(contents, list):
        listed = {}
        for item in contents:
            if isinstance(item, dict) and isinstance(item.get("path"), str):
                listed.setdefault(item["path"], item.get("hash"))
    files: list[LooseFile] = []
    for name, size in sizes.items():
        got = actual.get(name)
        if name == rapp.MANIFEST_NAME:
            files.append(LooseFile(name, size, "manifest"))
        elif listed is None:
            files.append(LooseFile(name, size, "unlisted", got))
        elif name not in listed:
            files.append(LooseFile(name, size, "extra", got))
        else:
            want = listed[name]
            shown = want if isinstance(want, str) else None
            status: HashStatus = "matches" if got == want else "differs"
            files.append(LooseFile(name, size, status, got, shown))
    for name, want in (listed or {}).items():
        if name not in sizes:
            files.append(LooseFile(name, None, "missing", None, want if isinstance(want, str) else None))  # fmt: skip
    return tuple(files)
