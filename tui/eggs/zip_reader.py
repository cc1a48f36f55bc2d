"""A strict, streaming reader for RAPP/1 egg archives (SPEC-egg.md §5.1).

The stdlib ``zipfile`` accepts what RAPP/1 forbids (comments, prepended or trailing bytes,
deflate, data descriptors, ZIP64, duplicate names, ``../`` names), so eggs are read here from the
raw structures. The reader never writes anything anywhere, holds at most the central directory
plus one read buffer, and refuses by construction:

* zip bombs: every entry must be stored with equal sizes, and entries must tile the file
  contiguously, so no entry can claim more bytes than the archive has;
* traversal, absolute names, backslashes, drive prefixes and links: every name must satisfy the
  packed-path grammar and no entry may carry the Unix symlink mode;
* duplicate names, ZIP64, comments, extra fields, trailing or prepended bytes.

Rules are checked in phases, each over every entry before the next phase starts, so a failure
names one rule and every rule before it has been fully checked (the verifier reports them so).
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from tui.eggs import rapp

try:
    # zlib-ng's CRC-32 (same polynomial, same values) runs 3-4x zlib's: at 64 MB it was 0.69 of
    # a sha256 pass with zlib, 0.2 with zlib-ng; both release the GIL on big buffers
    from zlib_ng.zlib_ng import crc32
except ImportError:  # pragma: no cover - a platform without its wheel keeps zlib's
    from zlib import crc32

__all__ = [
    "CHUNK",
    "MAX_DIRECTORY_BYTES",
    "RULES",
    "EggSource",
    "EntrySink",
    "StrictZipReader",
    "ZipEntry",
    "ZipFormatError",
    "crc32",
]

CHUNK = 1 << 20
# EggSource.tee: reads past the bytes handed over that are kept until their turn (each at most,
# all together at most); anything else is read again at the end
AHEAD_PIECE_MAX = 64 << 10
AHEAD_MAX = 1 << 20
# roost's own bound on the central directory it holds in memory (65,534 entries with names of
# up to 200 bytes fit); a larger directory is refused rather than buffered.
MAX_DIRECTORY_BYTES = 16 << 20
MAX_ENTRIES = 65_534
MAX_SIZE = 0xFFFFFFFE

_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_LOCAL_SIG, _CENTRAL_SIG, _END_SIG = 0x04034B50, 0x02014B50, 0x06054B50
_LOCAL_SIG_BYTES = b"PK\x03\x04"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_END = b"PK\x06\x06"
_UTF8_FLAG = 0x0800
_DOS_TIME, _DOS_DATE = 0x0000, 0x0021
_PLAIN_FIELDS = (_UTF8_FLAG, _DOS_TIME, _DOS_DATE, 0, 0)  # flags, time, date, extra, comment
_S_IFMT, _S_IFLNK = 0o170000, 0o120000

RULES: dict[str, str] = {
    "zip.end": "end record is the last 22 bytes: no comment, no trailing bytes, one disk",
    "zip.zip64": "no ZIP64 records or markers",
    "zip.directory": "central directory is well formed and entries tile the file from byte 0",
    "zip.fields": "every entry: flags 0x0800, time 0, date 0x0021, no extra field or comment",
    "zip.stored": "every entry stored (method 0), compressed size = size",
    "zip.names": "entry names are UTF-8 packed paths, unique, no links",
    "zip.local": "local headers match the central directory",
    "zip.crc": "every entry's CRC-32 matches its bytes",
}


class ZipFormatError(ValueError):
    """The archive breaks a §5.1 rule; ``rule`` is the key of :data:`RULES` that failed."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail


class ZipEntry(NamedTuple):
    """One central-directory entry (a tuple: built fast for directories of thousands)."""

    index: int
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


class EntrySink(Protocol):
    def update(self, data: Any) -> None: ...


class EggSource:
    """Random and sequential access to an egg's bytes: an in-memory buffer or a file path.

    Files are read in :data:`CHUNK`-sized pieces and never held whole; buffers are sliced
    through ``memoryview`` so no copy of the egg is made.
    """

    def __init__(
        self,
        data: bytes | bytearray | memoryview | None = None,
        path: Path | None = None,
        base: int = 0,
        size: int | None = None,
    ) -> None:
        if data is None:
            self._view = None
        else:  # bytes are viewed as unsigned bytes already; anything else is cast to them
            self._view = memoryview(data) if type(data) is bytes else memoryview(data).cast("B")
        self._path = path
        whole = len(self._view) if self._view is not None else os.path.getsize(path)  # type: ignore[arg-type]
        self._base = base
        self.size = whole - base if size is None else size
        self._file: Any = None
        self._tee: Callable[[bytes], None] | None = None  # see tee()
        self._teed = 0
        self._ahead: dict[int, bytes] = {}  # small reads past what was handed over, by offset
        self._ahead_bytes = 0

    @classmethod
    def of(cls, egg: bytes | bytearray | memoryview | str | Path) -> EggSource:
        if isinstance(egg, (str, Path)):
            return cls(path=Path(egg))
        return cls(data=egg)

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

    def read(self, offset: int, length: int) -> bytes:
        """The bytes in ``[offset, offset+length)``, clipped to the source."""
        length = max(0, min(length, self.size - offset))
        if self._view is not None:
            start = self._base + offset
            return bytes(self._view[start : start + length])
        if self._file is None:
            self._file = open(self._path, "rb")  # noqa: SIM115 - closed by close()
        self._file.seek(self._base + offset)
        data = self._file.read(length)
        self._fed(offset, data)
        return data

    def tee(self, update: Callable[[bytes], None]) -> None:
        """Hand ``update`` every byte of this file once, in order, as the reads bring them:
        a read that starts at or before the first byte not handed over yet hands over what it
        adds; a small read further on (a local header, the central directory) is kept until
        the bytes before it have been handed over. :meth:`end_tee` reads what no read brought.
        A file is then read once for the checks and the archive's hash together, and the hash
        is of the bytes the checks saw (two separate reads could each see a different file)."""
        self._tee, self._teed = update, 0
        self._ahead, self._ahead_bytes = {}, 0

    def end_tee(self) -> None:
        """Read and hand over the bytes no read brought (past the last entry, or all of them
        after an early failure); then stop handing over."""
        if self._tee is not None and self._teed < self.size:
            for _ in self.chunks(self._teed, self.size):
                pass  # chunks() hands each block over
        self._tee = None
        self._ahead, self._ahead_bytes = {}, 0

    def _fed(self, offset: int, block: bytes) -> None:
        if self._tee is None:
            return
        end = offset + len(block)
        if offset > self._teed:
            if len(block) <= AHEAD_PIECE_MAX and self._ahead_bytes < AHEAD_MAX:
                self._ahead[offset] = block
                self._ahead_bytes += len(block)
            return
        if end <= self._teed:
            return
        self._tee(block if offset == self._teed else block[self._teed - offset :])
        self._teed = end
        while self._ahead:
            piece = self._ahead.pop(self._teed, None)
            if piece is None:
                break
            self._tee(piece)
            self._teed += len(piece)

    def buffer(self) -> memoryview | None:
        """The whole source as one view (no copy) when it is in memory, else None."""
        if self._view is None:
            return None
        return self._view[self._base : self._base + self.size]

    @property
    def in_memory(self) -> bool:
        """True for a buffer (slices cost no copy), False for a file (read in chunks)."""
        return self._view is not None

    def chunks(self, start: int, end: int, size: int = CHUNK) -> Iterator[memoryview | bytes]:
        end = min(end, self.size)
        if self._view is not None:
            for offset in range(self._base + start, self._base + end, size):
                yield self._view[offset : min(offset + size, self._base + end)]
            return
        with open(self._path, "rb") as handle:  # type: ignore[arg-type]
            handle.seek(self._base + start)
            remaining = end - start
            position = start
            while remaining > 0:
                block = handle.read(min(size, remaining))
                if not block:
                    raise OSError(f"{self._path} changed while it was being read")
                remaining -= len(block)
                self._fed(position, block)
                position += len(block)
                yield block

    def sha256(self) -> str:
        if self._view is not None:  # one call: the GIL is let go once, for the whole buffer
            return hashlib.sha256(self._view[self._base : self._base + self.size]).hexdigest()
        hasher = hashlib.sha256()
        for block in self.chunks(0, self.size):
            hasher.update(block)
        return hasher.hexdigest()


class StrictZipReader:
    """Reads the directory (:meth:`read_directory`) then streams entry data (:meth:`stream`)."""

    def __init__(self, source: EggSource) -> None:
        self.source = source
        self.entries: list[ZipEntry] = []
        self.cd_offset = 0

    # ---------------------------------------------------------------- directory phases

    def read_directory(self) -> list[ZipEntry]:
        """Check every rule except ``zip.crc``; raises :class:`ZipFormatError` at the first break."""
        count, cd_size, cd_offset, end_at = self._end_record()
        self._no_zip64(count, cd_size, cd_offset, end_at)
        entries = self._plain_directory(count, cd_size, cd_offset, end_at)
        if entries is None:  # something is off: the phases find the first rule it breaks
            entries = self._directory(count, cd_size, cd_offset, end_at)
            self._fields(entries)
            self._stored(entries)
            self._names(entries)
            self._local_headers(entries)
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
        tail = self.source.read(end_at, _END.size)
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

    def _plain_directory(
        self, count: int, cd_size: int, cd_offset: int, end_at: int
    ) -> list[ZipEntry] | None:
        """The usual archive in one pass: the entries when every rule the phases below check
        holds (each condition here is one of theirs: nothing they refuse gets through), else
        None, and the phases run to name the first rule that breaks (no detail is made here)."""
        if not 0 < count <= MAX_ENTRIES or cd_offset + cd_size != end_at:
            return None
        if cd_size > MAX_DIRECTORY_BYTES:
            return None
        directory = self.source.read(cd_offset, cd_size)
        read, head, local_sig = self.source.read, _CENTRAL.size, _LOCAL_SIG_BYTES
        unpack, make = _CENTRAL.unpack_from, tuple.__new__
        entries: list[ZipEntry] = []
        names: list[str] = []
        pos = cursor = 0
        for index in range(1, count + 1):
            if pos + head > cd_size:
                return None
            (sig, made_by, needed, flags, method, time, date, crc, csize, usize,
             name_len, extra_len, comment_len, disk, _internal, external, offset) = unpack(directory, pos)  # fmt: skip
            end = pos + head + name_len
            if (
                sig != _CENTRAL_SIG
                or flags != _UTF8_FLAG  # zip.fields
                or time != _DOS_TIME
                or date != _DOS_DATE
                or extra_len  # (so no ZIP64 extra field either)
                or comment_len
                or method  # zip.stored
                or csize != usize
                or usize == 0xFFFFFFFF  # zip.zip64
                or offset == 0xFFFFFFFF
                or offset != cursor  # zip.directory
                or disk
                or end > cd_size
                or (external >> 16) & _S_IFMT == _S_IFLNK  # zip.names: a link
            ):
                return None
            raw_name = directory[pos + head : end]
            data_offset = offset + _LOCAL.size + name_len
            cursor = data_offset + csize
            if cursor > cd_offset:
                return None
            # zip.local: the signature, the central header's bytes from version needed to
            # extra length, the name
            if (
                read(offset, _LOCAL.size + name_len)
                != local_sig + directory[pos + 6 : pos + 32] + raw_name
            ):
                return None  # fmt: skip
            try:
                name = raw_name.decode("utf-8")
            except UnicodeDecodeError:
                return None
            names.append(name)
            entries.append(
                make(ZipEntry, (index, name, raw_name, offset, data_offset, usize, crc, made_by,
                                needed, flags, method, time, date, csize, extra_len, comment_len,
                                disk, external))
            )  # fmt: skip
            pos = end
        # zip.names: every name a plain packed path (none empty), no two alike
        if pos != cd_size or cursor != cd_offset or not rapp.plain_paths(names):
            return None
        if len(set(names)) != len(names):
            return None
        return entries

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
        directory = self.source.read(cd_offset, cd_size)
        entries: list[ZipEntry] = []
        make = tuple.__new__  # ZipEntry's own __new__ is a Python call; the fields are 18
        pos = 0
        cursor = 0
        for index in range(count):
            if pos + _CENTRAL.size > cd_size:
                raise ZipFormatError("zip.directory", f"central header {index + 1} is cut short")
            fields = _CENTRAL.unpack_from(directory, pos)
            (sig, made_by, needed, flags, method, time, date, crc, csize, usize,
             name_len, extra_len, comment_len, disk, _internal, external, offset) = fields  # fmt: skip
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
                make(ZipEntry, (index + 1, name, raw_name, offset, data_offset, usize, crc, made_by,
                                needed, flags, method, time, date, csize, extra_len, comment_len,
                                disk, external))
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
        for e in entries:
            if (e.flags, e.time, e.date, e.extra_length, e.comment_length) == _PLAIN_FIELDS:
                continue
            where = f"entry {e.index} ({_show(e.raw_name)})"
            if e.flags != _UTF8_FLAG:
                why = (
                    "data descriptor"
                    if e.flags & 0x8
                    else "encrypted"
                    if e.flags & 0x1
                    else "flags"
                )
                raise ZipFormatError(
                    "zip.fields", f"{where} has flags {e.flags:#06x} ({why}), expected 0x0800"
                )
            if e.time != _DOS_TIME or e.date != _DOS_DATE:
                raise ZipFormatError(
                    "zip.fields",
                    f"{where} has time/date {e.time:#06x}/{e.date:#06x}, expected 0x0000/0x0021",
                )
            if e.extra_length:
                raise ZipFormatError(
                    "zip.fields", f"{where} has a {e.extra_length}-byte extra field"
                )
            if e.comment_length:
                raise ZipFormatError(
                    "zip.fields", f"{where} has a {e.comment_length}-byte file comment"
                )

    def _stored(self, entries: list[ZipEntry]) -> None:
        for e in entries:
            if e.method == 0 and e.compressed_size == e.size:
                continue
            where = f"entry {e.index} ({_show(e.raw_name)})"
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
                    "zip.names", f"entry {e.index} name {_show(e.raw_name)} is not UTF-8"
                )
            problem = rapp.path_problem(name)
            if problem is not None:
                raise ZipFormatError("zip.names", f"entry {e.index} name {name!r}: {problem}")
            if e.raw_name in seen:
                raise ZipFormatError("zip.names", f"entry {e.index} name {name!r} is a duplicate")
            if (e.external_attr >> 16) & _S_IFMT == _S_IFLNK:
                raise ZipFormatError("zip.names", f"entry {e.index} {name!r} is a symbolic link")
            seen.add(e.raw_name)

    def _local_headers(self, entries: list[ZipEntry]) -> None:
        for e in entries:
            raw = self.source.read(e.header_offset, _LOCAL.size + len(e.raw_name))
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

    # ---------------------------------------------------------------- data phase

    def stream(
        self,
        sink_for: Callable[[ZipEntry], EntrySink | None],
        crc_of: Callable[[int], int | None] | None = None,
    ) -> None:
        """Feed each entry's data, in order, to ``sink_for(entry)`` and check its CRC-32.

        ``sink_for`` is called when an entry starts, after every earlier entry was fed, so a
        caller can decide what to keep of entry n from what entry 1 (the manifest) said.
        ``crc_of(index)``: an entry's CRC-32 computed elsewhere (another thread), or None to
        compute it here; either way it is checked here, in entry order (an egg in memory).

        All on the calling thread: the sinks' C hashes release the GIL on big buffers, but a
        worker fed here would wait for the GIL after every block while this thread runs
        Python (up to the interpreter's 5 ms switch interval each time): slower, not faster.
        """
        view = self.source.buffer()
        if view is not None:  # a buffer's entries go as one view each: no copy, fewer calls
            for e in self.entries:
                sink = sink_for(e)
                block = view[e.data_offset : e.data_offset + e.size]
                if sink is not None:
                    sink.update(block)  # first: a hash it hands to a worker starts sooner
                crc = crc_of(e.index) if crc_of is not None else None
                if crc is None:
                    crc = crc32(block)
                if crc != e.crc:
                    self._bad_crc(e, crc)
            return
        for e in self.entries:
            sink = sink_for(e)
            crc = 0
            for block in self.source.chunks(e.data_offset, e.data_offset + e.size):
                if sink is not None:
                    sink.update(block)
                crc = crc32(block, crc)
            if crc != e.crc:
                self._bad_crc(e, crc)

    @staticmethod
    def _bad_crc(e: ZipEntry, crc: int) -> None:
        raise ZipFormatError(
            "zip.crc",
            f"entry {e.index} ({e.name!r}) CRC-32 is {crc:#010x}, the header says {e.crc:#010x}",
        )


def _where(entry: ZipEntry) -> str:
    return f"entry {entry.index} ({entry.name!r})"


def _show(raw: bytes) -> str:
    return repr(raw.decode("utf-8", "backslashreplace"))
