"""A strict, streaming reader for RAPP/1 egg archives.

The stdlib ``zipfile`` accepts what RAPP/1 forbids (comments, prepended or trailing bytes,
deflate, data descriptors, ZIP64, duplicate names, ``../`` names), so eggs are read here from the
raw structures. The reader never writes anything anywhere, holds at most the central directory
plus one read buffer, and refuses by construction:

* zip bombs: every entry must be stored with equal sizes, and entries must tile the file
  contiguously, so no entry can claim more bytes than the archive has;
* traversal, absolute names, backslashes, drive prefixes and links: every name must satisfy the
  packed-path grammar and no entry may carry the Unix symlink mode;
* duplicate names, names that look alike (equal once case and Unicode form are set aside, a file
  that is also a folder, letters of confusable scripts mixed in one segment), ZIP64, comments,
  extra fields, encryption, data descriptors, trailing or prepended bytes.

Those rules decide which bytes a reader sees: breaking one fails the egg. The fields that only
make two packings of one manifest byte-identical (the UTF-8 flag on an ASCII name, the DOS time
and date, the version fields, the attributes) are not failures: each departure is a
:class:`PackagingNote` ("not byte-reproducible") in :attr:`StrictZipReader.packaging`. A name
that is not ASCII must carry the UTF-8 flag all the same, since readers decode it differently
without it.

The directory's rules are checked in phases, each over every entry before the next phase
starts, so a failure names one rule and every rule before it has been fully checked (the
verifier reports them so). Then :meth:`StrictZipReader.stream` reads the file once, from its
first byte to its last: each entry's local header (``zip.local``), then its data (to the
caller's sinks and the CRC-32, ``zip.crc``), every byte also handed to the whole file's hash.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from tui.eggs import lookalike, rapp
from tui.errors import RoostError
from tui.untrusted import clean_line

try:
    # zlib-ng's CRC-32: the same polynomial and values as zlib's, several times faster
    from zlib_ng.zlib_ng import crc32
except ImportError:  # pragma: no cover - a platform without its wheel keeps zlib's
    from zlib import crc32

__all__ = [
    "CHUNK",
    "MAX_DIRECTORY_BYTES",
    "PACKAGING_RULES",
    "RULES",
    "EggSource",
    "EntrySink",
    "PackagingNote",
    "StrictZipReader",
    "ZipEntry",
    "ZipFormatError",
    "crc32",
]

CHUNK = 1 << 20
# roost's own bound on the central directory it holds in memory (65,534 entries with names of
# up to 200 bytes fit); a larger directory is refused rather than buffered.
MAX_DIRECTORY_BYTES = 16 << 20
MAX_ENTRIES = 65_534
MAX_SIZE = 0xFFFFFFFE
_NAME_LIMIT = 200  # characters of an entry's name kept in a packaging note

_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_LOCAL_SIG, _CENTRAL_SIG, _END_SIG = 0x04034B50, 0x02014B50, 0x06054B50
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_END = b"PK\x06\x06"
_UTF8_FLAG = 0x0800
_ENCRYPTED = 0x0001 | 0x0040 | 0x2000  # traditional, strong, masked directory
_DESCRIPTOR = 0x0008
_DOS_TIME, _DOS_DATE = 0x0000, 0x0021
_VERSION = 20
# version made by: spec 2.0 from MS-DOS (0x0014, RAPP/1's writer) or Unix (0x0314, CPython's)
_MADE_BY = frozenset({0x0014, 0x0314})
# external attributes: none (RAPP/1's writer) or a regular file rw------- (CPython's, the hub's)
_EXTERNAL = frozenset({0, 0o100600 << 16, 0o600 << 16})
_S_IFMT, _S_IFLNK = 0o170000, 0o120000

RULES: dict[str, str] = {
    "zip.end": "end record is the last 22 bytes: no comment, no trailing bytes, one disk",
    "zip.zip64": "no ZIP64 records or markers",
    "zip.directory": "central directory is well formed and entries tile the file from byte 0",
    "zip.fields": "every entry: not encrypted, no data descriptor, extra field or comment",
    "zip.stored": "every entry stored (method 0), compressed size = size",
    "zip.names": "entry names: packed paths, UTF-8 (flagged when not ASCII), none alike, no links",
    "zip.local": "local headers match the central directory",
    "zip.crc": "every entry's CRC-32 matches its bytes",
}


#: The packaging rules: a departure makes the egg "not byte-reproducible", never failed.
PACKAGING_RULES: dict[str, str] = {
    "zip.utf8-flag": "an ASCII name carries the UTF-8 name flag 0x0800",
    "zip.dos-time": "time 0x0000 and date 0x0021 (1980-01-01 00:00)",
    "zip.versions": "version needed 20; version made by 2.0 (0x0014 or 0x0314)",
    "zip.attributes": "internal attributes 0; external attributes 0 or a plain file (0o600)",
}


@dataclass(frozen=True)
class PackagingNote:
    """One departure from the byte-reproducible packing: the ``entry`` (its name, already through
    :func:`tui.untrusted.clean_line`: one line, no control characters, bounded), the ``rule`` (a
    key of :data:`PACKAGING_RULES`) and what the entry carries (numbers only)."""

    entry: str
    rule: str
    detail: str

    def as_json(self) -> dict[str, str]:
        return {"entry": self.entry, "rule": self.rule, "detail": self.detail}


class ZipFormatError(RoostError, ValueError):
    """The archive breaks a §5.1 rule; ``rule`` is the key of :data:`RULES` that failed."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail


class ZipEntry(NamedTuple):
    """One central-directory entry."""

    number: int  # 1-based, as messages say "entry N" (``index`` is tuple's method)
    name: str
    raw_name: bytes
    header_offset: int
    data_offset: int
    size: int
    crc: int
    version_made_by: int
    version_needed: int
    flags: int
    method: int
    time: int
    date: int
    compressed_size: int
    extra_length: int
    comment_length: int
    disk: int
    external_attr: int
    internal_attr: int = 0


class EntrySink(Protocol):
    def update(self, data: Any) -> None: ...


class EggSource:
    """Random and sequential access to an egg's bytes: an in-memory buffer or a file path.

    A file is read through one handle in :data:`CHUNK`-sized pieces and never held whole;
    a buffer is sliced through ``memoryview``, so no copy of the egg is made.
    """

    def __init__(
        self,
        data: bytes | bytearray | memoryview | None = None,
        path: Path | None = None,
        base: int = 0,
        size: int | None = None,
    ) -> None:
        self._view = None if data is None else memoryview(data).cast("B")
        self._path = path
        whole = len(self._view) if self._view is not None else os.path.getsize(path)  # type: ignore[arg-type]
        self._base = base
        self.size = whole - base if size is None else size
        self._file: Any = None

    @classmethod
    def of(cls, egg: bytes | bytearray | memoryview | str | Path) -> EggSource:
        if isinstance(egg, (str, Path)):
            return cls(path=Path(egg))
        return cls(data=egg)

    @property
    def path(self) -> Path | None:
        """The file this source reads (None for bytes in memory)."""
        return self._path if self._view is None else None

    def window(self, offset: int, length: int) -> EggSource:
        """The bytes ``[offset, offset+length)`` as a source of their own (a nested egg), no copy."""
        if self._view is not None:
            return EggSource(data=self._view[self._base + offset : self._base + offset + length])
        return EggSource(path=self._path, base=self._base + offset, size=length)

    def __enter__(self) -> EggSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _handle(self) -> Any:
        if self._file is None:
            assert self._path is not None  # no buffer: built from a path (see __init__)
            self._file = open(self._path, "rb")  # noqa: SIM115 - closed by close()
        return self._file

    def read(self, offset: int, length: int) -> bytes:
        """The bytes in ``[offset, offset+length)``, clipped to the source."""
        length = max(0, min(length, self.size - offset))
        if self._view is not None:
            start = self._base + offset
            return bytes(self._view[start : start + length])
        handle = self._handle()
        handle.seek(self._base + offset)
        return handle.read(length)

    def chunks(self, start: int, end: int, size: int = CHUNK) -> Iterator[memoryview | bytes]:
        """The bytes in ``[start, end)`` in pieces of at most ``size`` (views of a buffer)."""
        end = min(end, self.size)
        if self._view is not None:
            for offset in range(self._base + start, self._base + end, size):
                yield self._view[offset : min(offset + size, self._base + end)]
            return
        handle = self._handle()
        handle.seek(self._base + start)
        remaining = end - start
        while remaining > 0:
            block = handle.read(min(size, remaining))
            if not block:
                raise OSError(f"{self._path} changed while it was being read")
            remaining -= len(block)
            yield block

    def sha256(self) -> str:
        """The sha256 of every byte, in one pass."""
        hasher = hashlib.sha256()
        for block in self.chunks(0, self.size):
            hasher.update(block)
        return hasher.hexdigest()


class StrictZipReader:
    """Reads the directory (:meth:`read_directory`), then the file once (:meth:`stream`)."""

    def __init__(self, source: EggSource) -> None:
        self.source = source
        self.entries: list[ZipEntry] = []
        self.cd_offset = 0
        self._directory_bytes = b""
        self._end_bytes = b""
        #: what the directory departs from the byte-reproducible packing in (never a failure)
        self.packaging: list[PackagingNote] = []

    # ---------------------------------------------------------------- directory phases

    def read_directory(self) -> list[ZipEntry]:
        """Check every rule of the directory (all but ``zip.local`` and ``zip.crc``); raises
        :class:`ZipFormatError` at the first break."""
        count, cd_size, cd_offset, end_at = self._end_record()
        self._no_zip64(count, cd_size, cd_offset, end_at)
        entries = self._directory(count, cd_size, cd_offset, end_at)
        self._fields(entries)
        self._stored(entries)
        self._names(entries)
        self.entries = entries
        self.cd_offset = cd_offset
        return entries

    def _end_record(self) -> tuple[int, int, int, int]:
        size = self.source.size
        if size < _END.size:
            raise ZipFormatError(
                "zip.end", f"the file is {size} bytes, too short for an end record"
            )
        end_at = size - _END.size
        tail = self._end_bytes = self.source.read(end_at, _END.size)
        sig, disk, cd_disk, on_disk, total, cd_size, cd_offset, comment = _END.unpack(tail)
        if sig != _END_SIG:
            raise ZipFormatError("zip.end", self._why_no_end_record())
        if comment != 0:
            raise ZipFormatError("zip.end", f"the end record declares a {comment}-byte comment")
        if disk != 0 or cd_disk != 0:
            raise ZipFormatError(
                "zip.end", f"multi-disk archive (disk {disk}, directory disk {cd_disk})"
            )
        if on_disk != total:
            raise ZipFormatError(
                "zip.end", f"entries on this disk {on_disk} != total entries {total}"
            )
        real_end = cd_offset + cd_size
        if real_end + _END.size <= end_at and self.source.read(real_end, 4) == b"PK\x05\x06":
            # the directory ends where another end record starts: that one is the archive's,
            # and what follows it (here ending in a copy of an end record) is appended bytes
            raise ZipFormatError(
                "zip.end",
                f"{end_at + _END.size - real_end - _END.size} bytes follow the "
                f"end-of-central-directory record at {real_end}",
            )
        return total, cd_size, cd_offset, end_at

    def _why_no_end_record(self) -> str:
        """Name what follows the real end record: an archive comment or appended bytes."""
        size = self.source.size
        start = max(0, size - (0xFFFF + _END.size))
        window = self.source.read(start, size - start)
        found = window.rfind(b"PK\x05\x06", 0, max(0, len(window) - _END.size + 1))
        if found < 0:
            return "no end-of-central-directory record at the end of the file"
        after = len(window) - found - _END.size
        (declared,) = struct.unpack_from("<H", window, found + 20)
        if declared and declared == after:
            return f"the archive has a {declared}-byte comment after the end record"
        return f"{after} bytes follow the end-of-central-directory record"

    def _no_zip64(self, count: int, cd_size: int, cd_offset: int, end_at: int) -> None:
        if count == 0xFFFF or cd_size == 0xFFFFFFFF or cd_offset == 0xFFFFFFFF:
            raise ZipFormatError(
                "zip.zip64", "the end record carries a ZIP64 marker value (0xFFFF/0xFFFFFFFF)"
            )
        if end_at >= 20 and self.source.read(end_at - 20, 4) == _ZIP64_LOCATOR:
            raise ZipFormatError(
                "zip.zip64", "a ZIP64 end-of-directory locator precedes the end record"
            )
        if end_at >= 56 and cd_offset + cd_size != end_at:
            probe = (
                self.source.read(cd_offset + cd_size, 4) if cd_offset + cd_size < end_at else b""
            )
            if probe == _ZIP64_END:
                raise ZipFormatError(
                    "zip.zip64", "a ZIP64 end-of-directory record follows the directory"
                )

    def _directory(self, count: int, cd_size: int, cd_offset: int, end_at: int) -> list[ZipEntry]:
        if count == 0:
            raise ZipFormatError("zip.directory", "the archive has no entries")
        if count > MAX_ENTRIES:
            raise ZipFormatError("zip.directory", f"{count} entries, more than {MAX_ENTRIES}")
        if cd_offset + cd_size != end_at:
            raise ZipFormatError(
                "zip.directory",
                f"central directory ends at {cd_offset + cd_size}, the end record starts at {end_at}",
            )
        if cd_size > MAX_DIRECTORY_BYTES:
            raise ZipFormatError(
                "zip.directory",
                f"central directory is {cd_size} bytes, more than {MAX_DIRECTORY_BYTES}",
            )
        directory = self._directory_bytes = self.source.read(cd_offset, cd_size)
        entries: list[ZipEntry] = []
        pos = 0
        cursor = 0
        for index in range(count):
            if pos + _CENTRAL.size > cd_size:
                raise ZipFormatError("zip.directory", f"central header {index + 1} is cut short")
            fields = _CENTRAL.unpack_from(directory, pos)
            (sig, made_by, needed, flags, method, time, date, crc, csize, usize,
             name_len, extra_len, comment_len, disk, internal, external, offset) = fields  # fmt: skip
            if sig != _CENTRAL_SIG:
                raise ZipFormatError(
                    "zip.directory", f"central header {index + 1} has signature {sig:#010x}"
                )
            if 0xFFFFFFFF in (csize, usize, offset):
                raise ZipFormatError(
                    "zip.zip64", f"central header {index + 1} has a ZIP64 marker size/offset"
                )
            extra_at = pos + _CENTRAL.size + name_len
            if extra_len >= 4 and directory[extra_at : extra_at + 2] == b"\x01\x00":
                raise ZipFormatError(
                    "zip.zip64", f"central header {index + 1} has a ZIP64 extra field"
                )
            if disk != 0:
                raise ZipFormatError(
                    "zip.directory", f"central header {index + 1} starts on disk {disk}"
                )
            end = pos + _CENTRAL.size + name_len + extra_len + comment_len
            if end > cd_size:
                raise ZipFormatError(
                    "zip.directory", f"central header {index + 1} runs past the directory"
                )
            raw_name = directory[pos + _CENTRAL.size : pos + _CENTRAL.size + name_len]
            if offset != cursor:
                raise ZipFormatError(
                    "zip.directory",
                    f"entry {index + 1} starts at {offset}, expected {cursor} (entries must be contiguous, in order)",
                )
            data_offset = offset + _LOCAL.size + name_len + extra_len
            cursor = data_offset + csize
            if cursor > cd_offset:
                raise ZipFormatError(
                    "zip.directory", f"entry {index + 1} runs into the central directory"
                )
            try:
                name = raw_name.decode("utf-8")  # refused in its own phase (zip.names) if not
            except UnicodeDecodeError:
                name = ""
            entries.append(
                ZipEntry(index + 1, name, raw_name, offset, data_offset, usize, crc, made_by,
                         needed, flags, method, time, date, csize, extra_len, comment_len,
                         disk, external, internal)
            )  # fmt: skip
            pos = end
        if pos != cd_size:
            raise ZipFormatError(
                "zip.directory", f"{cd_size - pos} bytes follow the last central header"
            )
        if cursor != cd_offset:
            raise ZipFormatError(
                "zip.directory",
                f"{cd_offset - cursor} bytes lie between the last entry and the directory",
            )
        return entries

    def _fields(self, entries: list[ZipEntry]) -> None:
        """The fields that change what a reader sees fail; the others are noted."""
        for e in entries:
            where = f"entry {e.number} ({_show(e.raw_name)})"
            if e.flags & _ENCRYPTED:
                raise ZipFormatError("zip.fields", f"{where} is encrypted (flags {e.flags:#06x})")
            if e.flags & _DESCRIPTOR:
                raise ZipFormatError(
                    "zip.fields", f"{where} has a data descriptor (flags {e.flags:#06x})"
                )
            if e.flags & ~_UTF8_FLAG:
                raise ZipFormatError(
                    "zip.fields", f"{where} has flags {e.flags:#06x}: only 0x0800 may be set"
                )
            if e.extra_length:
                raise ZipFormatError(
                    "zip.fields", f"{where} has a {e.extra_length}-byte extra field"
                )
            if e.comment_length:
                raise ZipFormatError(
                    "zip.fields", f"{where} has a {e.comment_length}-byte file comment"
                )
        self.packaging = [note for e in entries for note in _packaging_notes(e)]

    def _stored(self, entries: list[ZipEntry]) -> None:
        for e in entries:
            if e.method == 0 and e.compressed_size == e.size:
                continue
            where = f"entry {e.number} ({_show(e.raw_name)})"
            if e.method != 0:
                kind = "deflated" if e.method == 8 else f"method {e.method}"
                raise ZipFormatError("zip.stored", f"{where} is {kind}; only stored (0) is allowed")
            if e.compressed_size != e.size:
                raise ZipFormatError(
                    "zip.stored", f"{where} compressed size {e.compressed_size} != size {e.size}"
                )

    def _names(self, entries: list[ZipEntry]) -> None:
        seen: set[bytes] = set()
        for e in entries:
            name = e.name  # decoded with the directory; "" when it is not UTF-8
            if e.raw_name and not name:
                raise ZipFormatError(
                    "zip.names", f"entry {e.number} name {_show(e.raw_name)} is not UTF-8"
                )
            if not e.flags & _UTF8_FLAG and not e.raw_name.isascii():
                raise ZipFormatError(
                    "zip.names",
                    f"entry {e.number} name {name!r} is not ASCII and lacks the UTF-8 flag "
                    "(readers would decode it differently)",
                )
            problem = rapp.path_problem(name) or lookalike.name_problem(name)
            if problem is not None:
                raise ZipFormatError("zip.names", f"entry {e.number} name {name!r}: {problem}")
            if e.raw_name in seen:
                raise ZipFormatError("zip.names", f"entry {e.number} name {name!r} is a duplicate")
            if (e.external_attr >> 16) & _S_IFMT == _S_IFLNK:
                raise ZipFormatError("zip.names", f"entry {e.number} {name!r} is a symbolic link")
            seen.add(e.raw_name)
        clash = next(iter(lookalike.collisions(e.name for e in entries)), None)
        if clash is not None:
            name, other, how = clash
            raise ZipFormatError("zip.names", f"name {name!r} and {other!r}: {how}")

    @staticmethod
    def _local_header(e: ZipEntry, raw: bytes) -> None:
        """The local header of ``e`` (its bytes as read: ``raw``) against the directory."""
        if len(raw) < _LOCAL.size:
            raise ZipFormatError("zip.local", f"{_where(e)}: local header cut short")
        (sig, needed, flags, method, time, date, crc, csize, usize, name_len, extra_len) = (
            _LOCAL.unpack_from(raw)
        )
        if sig != _LOCAL_SIG:
            raise ZipFormatError(
                "zip.local", f"{_where(e)}: no local header at offset {e.header_offset}"
            )
        local = (needed, flags, method, time, date, crc, csize, usize, name_len, extra_len)
        central = (e.version_needed, e.flags, e.method, e.time, e.date, e.crc, e.compressed_size,
                   e.size, len(e.raw_name), e.extra_length)  # fmt: skip
        if local != central:
            names = ("version", "flags", "method", "time", "date", "crc", "compressed size", "size",
                     "name length", "extra length")  # fmt: skip
            which = next(n for n, a, b in zip(names, local, central, strict=True) if a != b)
            raise ZipFormatError(
                "zip.local", f"{_where(e)}: local {which} differs from the central directory"
            )
        if raw[_LOCAL.size :] != e.raw_name:
            raise ZipFormatError(
                "zip.local", f"{_where(e)}: local name {_show(raw[_LOCAL.size :])} differs"
            )

    # ---------------------------------------------------------------- the one pass

    def stream(
        self, sink_for: Callable[[ZipEntry], EntrySink | None], whole: EntrySink | None = None
    ) -> None:
        """Read the file once, in order: each entry's local header (checked against the
        directory), then its data, fed to ``sink_for(entry)`` and checked against its CRC-32;
        then the directory and the end record read by :meth:`read_directory`. ``whole`` gets
        every byte of the file once, in order, including after a failure (the file's hash is
        of the bytes these checks saw).

        ``sink_for`` is called when an entry starts, after every earlier entry was fed, so a
        caller can decide what to keep of entry n from what entry 1 (the manifest) said.
        A local header that differs stops the entries there (``zip.local``); a CRC-32 that
        differs is raised once every local header has been checked, since ``zip.local`` comes
        first in the report's order.
        """
        source = self.source
        update = whole.update if whole is not None else None
        bad_crc: ZipFormatError | None = None
        position = 0
        try:
            for e in self.entries:
                header = source.read(e.header_offset, e.data_offset - e.header_offset)
                if update is not None:
                    update(header)
                position = e.header_offset + len(header)
                self._local_header(e, header)
                sink = sink_for(e)
                crc = 0
                for block in source.chunks(e.data_offset, e.data_offset + e.size):
                    if update is not None:
                        update(block)
                    if sink is not None:
                        sink.update(block)
                    crc = crc32(block, crc)
                    position += len(block)
                if crc != e.crc and bad_crc is None:
                    bad_crc = ZipFormatError(
                        "zip.crc",
                        f"entry {e.number} ({e.name!r}) CRC-32 is {crc:#010x}, "
                        f"the header says {e.crc:#010x}",
                    )
        finally:
            if update is not None:  # the rest of the file, after a failure too
                for block in source.chunks(position, self.cd_offset):
                    update(block)
                update(self._directory_bytes)
                update(self._end_bytes)
        if bad_crc is not None:
            raise bad_crc


def _packaging_notes(e: ZipEntry) -> Iterator[PackagingNote]:
    """Where entry ``e`` departs from the byte-reproducible packing (its name is shown safely)."""
    name = clean_line(e.name or e.raw_name.decode("utf-8", "backslashreplace"), _NAME_LIMIT)
    if not e.flags & _UTF8_FLAG:
        yield PackagingNote(name, "zip.utf8-flag", f"flags {e.flags:#06x}: the UTF-8 flag is unset")
    if (e.time, e.date) != (_DOS_TIME, _DOS_DATE):
        yield PackagingNote(name, "zip.dos-time", f"time/date {e.time:#06x}/{e.date:#06x}")
    if e.version_needed != _VERSION or e.version_made_by not in _MADE_BY:
        yield PackagingNote(
            name,
            "zip.versions",
            f"version needed {e.version_needed}, made by {e.version_made_by:#06x}",
        )
    if e.internal_attr or e.external_attr not in _EXTERNAL:
        yield PackagingNote(
            name,
            "zip.attributes",
            f"internal {e.internal_attr:#x}, external {e.external_attr:#010x}",
        )


def _where(entry: ZipEntry) -> str:
    return f"entry {entry.number} ({entry.name!r})"


def _show(raw: bytes) -> str:
    return repr(raw.decode("utf-8", "backslashreplace"))
