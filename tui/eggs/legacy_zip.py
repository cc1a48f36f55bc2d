"""A safe reader for the ZIP archives of eggs made before RAPP/1.

Those eggs are ordinary ZIPs: entries deflated, DOS times set, ``manifest.json`` anywhere. The
strict reader of :mod:`tui.eggs.zip_reader` refuses them by design; this one reads them without
trusting them: every rule below is a refusal, checked in phases (each over every entry before
the next starts, so a failure names the first rule broken):

* ``legacy.container``: one end record (a comment of exactly its declared length allowed), one
  disk, no ZIP64 record, marker or extra field, at most 65,534 entries, a central directory
  that parses to its last byte;
* ``legacy.names``: every name UTF-8 (or ASCII), a safe relative path (no ``..``, no absolute
  path, no backslash, no NUL or control character, no drive letter), unique, not a link;
* ``legacy.encryption``: no entry encrypted; ``legacy.methods``: stored or deflated only;
* ``legacy.local``: each local header there, with the central directory's name and method,
  its data inside the archive and apart from every other entry's;
* ``legacy.inflate``: bounded inflation: what the directory declares is at most
  :data:`MAX_ENTRY` per entry and :data:`MAX_TOTAL` in all, and at most :data:`MAX_RATIO`
  times the compressed size (per entry, and the whole file); the inflater is streaming and
  stops one byte past the declared size, so a bomb costs nothing;
* ``legacy.crc``: each entry inflates to exactly its declared size and CRC-32.

:meth:`LegacyZipReader.stream` reads the file once, in order, handing every byte to the file's
hash and each entry's inflated bytes to the caller's sinks. Nothing is written anywhere.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from typing import Any, NamedTuple

from tui.eggs.zip_reader import MAX_DIRECTORY_BYTES, MAX_ENTRIES, EggSource, EntrySink, crc32
from tui.errors import RoostError

__all__ = [
    "LEGACY_RULES",
    "MAX_ENTRY",
    "MAX_RATIO",
    "MAX_TOTAL",
    "LegacyEntry",
    "LegacyFormatError",
    "LegacyZipReader",
    "safe_name_problem",
]

MAX_TOTAL = 64 << 20  # inflated bytes of all entries together
MAX_ENTRY = MAX_TOTAL  # of one entry
MAX_RATIO = 200  # inflated bytes per compressed byte

LEGACY_RULES: dict[str, str] = {
    "legacy.container": "one end record, one disk, no ZIP64, a well-formed central directory",
    "legacy.names": "every name a safe relative path, UTF-8, unique, not a link",
    "legacy.encryption": "no entry is encrypted",
    "legacy.methods": "every entry stored or deflated",
    "legacy.local": "local headers match the directory; entries inside the file, apart",
    "legacy.inflate": "inflated within caps: 64 MiB in all and each, 200x compressed",
    "legacy.crc": "every entry inflates to its declared size and CRC-32",
}

_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_LOCAL_SIG, _CENTRAL_SIG, _END_SIG = 0x04034B50, 0x02014B50, 0x06054B50
_ENCRYPTED = 0x0001 | 0x0040 | 0x2000  # traditional, strong, masked directory
_UTF8_FLAG, _DESCRIPTOR_FLAG = 0x0800, 0x0008
_S_IFMT, _S_IFLNK = 0o170000, 0o120000
_STORED, _DEFLATED = 0, 8
_READ = 1 << 16


class LegacyFormatError(RoostError, ValueError):
    """The archive breaks ``rule`` (a key of :data:`LEGACY_RULES`)."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail


class LegacyEntry(NamedTuple):
    number: int  # 1-based, as messages say "entry N" (``index`` is tuple's method)
    name: str
    raw_name: bytes
    flags: int
    method: int
    crc: int
    compressed_size: int
    size: int
    header_offset: int
    external_attr: int
    data_offset: int = 0  # found in the local header (``legacy.local``)

    @property
    def is_folder(self) -> bool:
        return self.name.endswith("/") and self.size == 0


def safe_name_problem(name: str) -> str | None:
    """Why ``name`` is not a safe relative path (a folder's trailing ``/`` allowed), or None."""
    if not name:
        return "is empty"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return "contains a control character"
    if "\\" in name:
        return "contains a backslash"
    if name.startswith("/"):
        return "is absolute"
    if len(name) >= 2 and name[1] == ":" and name[0].isalpha():
        return "starts with a drive letter"
    segments = name[:-1].split("/") if name.endswith("/") else name.split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        return "has an empty, '.' or '..' segment"
    return None


def _where(e: LegacyEntry) -> str:
    return f"entry {e.number} ({e.name!r})" if e.name else f"entry {e.number}"


class LegacyZipReader:
    """:meth:`read_directory` (every rule but the last two), then :meth:`stream` once."""

    def __init__(self, source: EggSource) -> None:
        self.source = source
        self.entries: list[LegacyEntry] = []
        self.cd_offset = 0

    # ---------------------------------------------------------------- the directory

    def read_directory(self) -> list[LegacyEntry]:
        entries = self.structure()
        self._names(entries)
        for e in entries:
            if e.flags & _ENCRYPTED or e.method == 99:
                raise LegacyFormatError("legacy.encryption", f"{_where(e)} is encrypted")
        for e in entries:
            if e.method not in (_STORED, _DEFLATED):
                raise LegacyFormatError(
                    "legacy.methods", f"{_where(e)} uses method {e.method}, not stored or deflated"
                )
            if e.method == _STORED and e.compressed_size != e.size:
                raise LegacyFormatError(
                    "legacy.methods", f"{_where(e)} is stored with two different sizes"
                )
        entries = self._local(entries)
        self._caps(entries)
        self.entries = entries
        return entries

    def structure(self) -> list[LegacyEntry]:
        """The central directory's entries (``legacy.container`` only: names unchecked)."""
        size = self.source.size
        if size < _END.size:
            raise LegacyFormatError("legacy.container", f"the file is {size} bytes, no end record")
        start = max(0, size - (0xFFFF + _END.size))
        tail = self.source.read(start, size - start)
        at = tail.rfind(b"PK\x05\x06")
        while at >= 0 and struct.unpack_from("<H", tail, at + 20)[0] != len(tail) - at - _END.size:
            at = tail.rfind(b"PK\x05\x06", 0, at)
        if at < 0 or len(tail) - at < _END.size:
            raise LegacyFormatError("legacy.container", "no end-of-central-directory record")
        end_at = start + at
        _, disk, cd_disk, on_disk, total, cd_size, cd_offset, _ = _END.unpack_from(tail, at)
        if disk or cd_disk or on_disk != total:
            raise LegacyFormatError("legacy.container", "a multi-disk archive")
        if (
            total == 0xFFFF
            or 0xFFFFFFFF in (cd_size, cd_offset)
            or (end_at >= 20 and self.source.read(end_at - 20, 4) == b"PK\x06\x07")
        ):
            raise LegacyFormatError("legacy.container", "a ZIP64 archive")
        if not 0 < total <= MAX_ENTRIES:
            raise LegacyFormatError("legacy.container", f"{total} entries")
        if cd_offset + cd_size > end_at or cd_size > MAX_DIRECTORY_BYTES:
            raise LegacyFormatError(
                "legacy.container", "the central directory does not end before the end record"
            )
        directory = self.source.read(cd_offset, cd_size)
        entries, pos = [], 0
        for index in range(1, total + 1):
            if pos + _CENTRAL.size > cd_size:
                raise LegacyFormatError("legacy.container", f"central header {index} is cut short")
            (sig, _made_by, _needed, flags, method, _time, _date, crc, csize, usize, name_len,
             extra_len, comment_len, _disk, _internal, external, offset) = _CENTRAL.unpack_from(directory, pos)  # fmt: skip
            end = pos + _CENTRAL.size + name_len + extra_len + comment_len
            if sig != _CENTRAL_SIG or end > cd_size:
                raise LegacyFormatError("legacy.container", f"central header {index} is malformed")
            if 0xFFFFFFFF in (csize, usize, offset) or _zip64_extra(
                directory[
                    pos + _CENTRAL.size + name_len : pos + _CENTRAL.size + name_len + extra_len
                ]
            ):
                raise LegacyFormatError("legacy.container", f"entry {index} has a ZIP64 field")
            raw = directory[pos + _CENTRAL.size : pos + _CENTRAL.size + name_len]
            try:
                name = raw.decode("utf-8" if flags & _UTF8_FLAG else "ascii")
            except UnicodeDecodeError:
                name = ""
            entries.append(
                LegacyEntry(index, name, raw, flags, method, crc, csize, usize, offset, external)
            )
            pos = end
        if pos != cd_size:
            raise LegacyFormatError(
                "legacy.container", f"{cd_size - pos} bytes follow the last central header"
            )
        self.cd_offset = cd_offset
        return entries

    @staticmethod
    def _names(entries: list[LegacyEntry]) -> None:
        seen: set[str] = set()
        for e in entries:
            if not e.name and e.raw_name:
                raise LegacyFormatError(
                    "legacy.names", f"entry {e.number} name {e.raw_name!r} is not UTF-8 (or ASCII)"
                )
            problem = safe_name_problem(e.name)
            if problem is not None:
                raise LegacyFormatError(
                    "legacy.names", f"entry {e.number} name {e.name!r} {problem}"
                )
            if e.name in seen:
                raise LegacyFormatError(
                    "legacy.names", f"entry {e.number} name {e.name!r} is a duplicate"
                )
            if (e.external_attr >> 16) & _S_IFMT == _S_IFLNK:
                raise LegacyFormatError("legacy.names", f"{_where(e)} is a symbolic link")
            seen.add(e.name)

    def _local(self, entries: list[LegacyEntry]) -> list[LegacyEntry]:
        found = []
        for e in entries:
            raw = self.source.read(e.header_offset, _LOCAL.size)
            if len(raw) < _LOCAL.size or _LOCAL.unpack(raw)[0] != _LOCAL_SIG:
                raise LegacyFormatError("legacy.local", f"{_where(e)}: no local header at {e.header_offset}")  # fmt: skip
            _, _, _, method, _, _, _, _, _, name_len, extra_len = _LOCAL.unpack(raw)
            name = self.source.read(e.header_offset + _LOCAL.size, name_len)
            if name != e.raw_name or method != e.method:
                raise LegacyFormatError("legacy.local", f"{_where(e)}: the local header differs from the directory")  # fmt: skip
            found.append(
                e._replace(data_offset=e.header_offset + _LOCAL.size + name_len + extra_len)
            )
        ordered = sorted(found, key=lambda e: e.header_offset)
        for e, following in zip(ordered, [*ordered[1:], None], strict=True):
            end = e.data_offset + e.compressed_size
            limit = following.header_offset if following is not None else self.cd_offset
            if end > limit:
                raise LegacyFormatError("legacy.local", f"{_where(e)} overlaps what follows it")
        return found

    def _caps(self, entries: list[LegacyEntry]) -> None:
        total = 0
        for e in entries:
            if e.size > MAX_ENTRY or (e.size and e.size > MAX_RATIO * e.compressed_size):
                raise LegacyFormatError(
                    "legacy.inflate",
                    f"{_where(e)} declares {e.size:,} bytes from {e.compressed_size:,}: more than "
                    f"{MAX_ENTRY:,} or {MAX_RATIO}x (a deflate bomb?): not inflated",
                )
            total += e.size
        if total > MAX_TOTAL or total > MAX_RATIO * self.source.size:
            raise LegacyFormatError(
                "legacy.inflate",
                f"the entries declare {total:,} bytes in all from a {self.source.size:,}-byte "
                f"file: more than {MAX_TOTAL:,} or {MAX_RATIO}x: not inflated",
            )

    # ---------------------------------------------------------------- the one pass

    def stream(
        self, sink_for: Callable[[LegacyEntry], EntrySink | None], whole: EntrySink | None = None
    ) -> None:
        """Read the file once, in order: each entry's compressed bytes inflated (bounded by its
        declared size) into ``sink_for(entry)`` and checked; ``whole`` gets every byte of the
        file, after a failure too. A size or CRC-32 that differs is raised once every entry
        has inflated within the caps (``legacy.inflate`` comes first in the report)."""
        source = self.source
        update = whole.update if whole is not None else None
        bad: LegacyFormatError | None = None
        position = 0
        try:
            for e in sorted(self.entries, key=lambda e: e.header_offset):
                if update is not None:  # what lies between: headers, descriptors
                    for block in source.chunks(position, e.data_offset):
                        update(block)
                position = e.data_offset
                sink = sink_for(e)
                produced, crc = 0, 0

                def take(data: bytes | memoryview, e: LegacyEntry = e, sink: Any = sink) -> None:
                    nonlocal produced, crc
                    produced += len(data)
                    if produced > e.size:
                        raise LegacyFormatError(
                            "legacy.inflate",
                            f"{_where(e)} inflates past the {e.size:,} bytes it declares: stopped",
                        )
                    crc = crc32(data, crc)
                    if sink is not None:
                        sink.update(data)

                inflater = zlib.decompressobj(-15) if e.method == _DEFLATED else None
                for block in source.chunks(e.data_offset, e.data_offset + e.compressed_size, _READ):
                    if update is not None:
                        update(block)
                    position += len(block)
                    if inflater is None:
                        take(block)
                        continue
                    pending = block
                    while pending:
                        try:
                            take(inflater.decompress(pending, e.size + 1 - produced))
                        except zlib.error as exc:
                            raise LegacyFormatError(
                                "legacy.inflate",
                                f"{_where(e)} is not a valid deflate stream ({exc})",
                            ) from None
                        pending = inflater.unconsumed_tail
                if inflater is not None:
                    take(inflater.flush())
                    if not inflater.eof:
                        raise LegacyFormatError(
                            "legacy.inflate", f"{_where(e)}: its deflate stream is cut short"
                        )
                if bad is None and (produced != e.size or crc != e.crc):
                    bad = LegacyFormatError(
                        "legacy.crc",
                        f"{_where(e)} inflates to {produced:,} bytes with CRC-32 {crc:#010x}; "
                        f"the directory says {e.size:,} bytes, {e.crc:#010x}",
                    )
        finally:
            if update is not None:  # the rest of the file, after a failure too
                for block in source.chunks(position, source.size):
                    update(block)
        if bad is not None:
            raise bad


def _zip64_extra(extra: bytes) -> bool:
    """True when an extra field block holds a ZIP64 record (header id 0x0001)."""
    pos = 0
    while pos + 4 <= len(extra):
        header, length = struct.unpack_from("<HH", extra, pos)
        if header == 0x0001:
            return True
        pos += 4 + length
    return False
