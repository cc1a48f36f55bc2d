"""One egg entry cut into pages for the inspector's viewer: text or hex, and search inside.

The bytes are read from the egg where the strict reader found them (``data_offset``, ``size``),
a page at a time, so a large entry is never held whole and nothing is written to disk. Pages
end on a line break when one is near, so a page of text never splits a line or a UTF-8 sequence
when it can be helped. No Textual import: the viewer widget only draws what this computes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from tui.eggs.zip_reader import EggSource
from tui.strict_json import unique_members
from tui.untrusted import clean

__all__ = ["HEX_PAGE", "PRETTY_MAX", "TEXT_PAGE", "EntryPages", "hex_lines", "language_for"]

TEXT_PAGE = 32 * 1024
#: A JSON entry up to this size is shown pretty-printed (its own bytes one key away)
PRETTY_MAX = 4 << 20
HEX_PAGE = 4 * 1024  # 256 lines of 16 bytes
_SNIFF = 8 * 1024
_SEARCH_BLOCK = 1 << 20

_LANGUAGES = {
    ".py": "python",
    ".json": "json",
    ".md": "markdown",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".sh": "bash",
    ".js": "javascript",
    ".mjs": "javascript",
    ".ts": "typescript",
    ".html": "html",
    ".css": "css",
}


def language_for(name: str) -> str | None:
    """The highlighter for an entry, by its name's suffix only (never by sniffing contents)."""
    return _LANGUAGES.get(PurePosixPath(name).suffix.lower())


#: Control bytes that do not belong in text (tab, newline, form feed and carriage return do)
_CONTROL_BYTES = bytes(b for b in range(0x20) if b not in b"\t\n\x0c\r") + b"\x7f"
#: Past this share of control bytes a file is binary, even when it decodes as UTF-8: shown
#: "as text" it would be a wall of visible control symbols (a file of 0x01 bytes)
_MOST_CONTROL = 0.30


def looks_binary(data: bytes, *, cut: bool = False) -> bool:
    """Whether ``data`` is binary for showing: a NUL, bytes that are not UTF-8, or mostly
    control characters. ``cut``: ``data`` is the head of a longer file, so a multi-byte
    character cut at its end is still text."""
    if not data:
        return False
    if b"\x00" in data:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not cut or exc.start < len(data) - 3:
            return True
    controls = len(data) - len(data.translate(None, _CONTROL_BYTES))
    return controls > _MOST_CONTROL * len(data)


def hex_lines(data: bytes, offset: int) -> list[str]:
    """``offset  hex bytes  |ascii|`` lines of 16 bytes; only printable ASCII is shown as such."""
    lines = []
    for start in range(0, len(data), 16):
        row = data[start : start + 16]
        hexes = " ".join(f"{b:02x}" for b in row[:8]) + "  " + " ".join(f"{b:02x}" for b in row[8:])
        shown = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in row)
        lines.append(f"{offset + start:08x}  {hexes:<48}  |{shown}|")
    return lines


@dataclass
class EntryPages:
    """Pages of the entry ``name`` (``size`` bytes at ``data_offset`` of ``source``)."""

    source: EggSource
    name: str
    data_offset: int
    size: int
    binary: bool = False
    #: these pages show the entry's JSON indented, not its own bytes (:meth:`pretty_json`)
    pretty: bool = False
    _starts: list[int] = field(default_factory=lambda: [0])

    @classmethod
    def open(cls, source: EggSource, name: str, data_offset: int, size: int) -> EntryPages:
        pages = cls(source, name, data_offset, size)
        pages.binary = looks_binary(source.read(data_offset, min(size, _SNIFF)), cut=size > _SNIFF)
        return pages

    @classmethod
    def of_bytes(cls, name: str, data: bytes) -> EntryPages:
        """Pages over bytes at hand (an inflated entry of a legacy egg)."""
        return cls.open(EggSource(data=data), name, 0, len(data))

    def pretty_json(self) -> EntryPages | None:
        """The entry's JSON indented two spaces (a minified file becomes lines a person can
        read), or None: not a ``.json`` name, larger than :data:`PRETTY_MAX`, not JSON, or
        JSON whose pretty form would hide something (a repeated member name)."""
        if self.binary or language_for(self.name) != "json" or self.size > PRETTY_MAX:
            return None
        try:
            value = json.loads(self._read(0, self.size), object_pairs_hook=unique_members())
            text = json.dumps(value, indent=2, ensure_ascii=False)
        except (ValueError, RecursionError):
            return None
        pages = EntryPages.of_bytes(self.name, text.encode("utf-8"))
        pages.pretty = True
        return pages

    @property
    def page_size(self) -> int:
        return HEX_PAGE if self.binary else TEXT_PAGE

    def _read(self, start: int, length: int) -> bytes:
        length = max(0, min(length, self.size - start))
        return self.source.read(self.data_offset + start, length)

    def _end_of(self, start: int) -> int:
        """Where the page that begins at ``start`` ends (exclusive)."""
        end = min(self.size, start + self.page_size)
        if self.binary or end == self.size:
            return end
        chunk = self._read(start, end - start)
        cut = chunk.rfind(b"\n")
        if cut >= len(chunk) // 2:
            return start + cut + 1
        while end > start and (self._read(end, 1)[:1] or b"\x00")[0] & 0xC0 == 0x80:
            end -= 1  # do not start the next page inside a UTF-8 sequence
        return end

    def page_count(self) -> int:
        """An estimate for text, exact for binary: ``size / page size`` rounded up, at least 1."""
        return max(1, -(-self.size // self.page_size))

    def page_of(self, position: int) -> int:
        """The page holding byte ``position`` of the entry (locating pages as needed)."""
        page = 0
        while True:
            end = self.bounds(page)[1]
            if position < end or end >= self.size:
                return page
            page += 1

    def bounds(self, page: int) -> tuple[int, int]:
        """``(start, end)`` byte range of ``page`` within the entry."""
        while len(self._starts) <= page:
            last = self._starts[-1]
            end = self._end_of(last)
            if end >= self.size:
                break
            self._starts.append(end)
        page = min(page, len(self._starts) - 1)
        start = self._starts[page]
        return start, self._end_of(start)

    def last_page(self, page: int) -> bool:
        return self.bounds(page)[1] >= self.size

    def text(self, page: int) -> str:
        """The page as text safe to draw: decoded with replacement, controls made visible."""
        start, end = self.bounds(page)
        data = self._read(start, end - start)
        if self.binary:
            return "\n".join(hex_lines(data, start))
        return clean(data.decode("utf-8", errors="replace"), multiline=True)

    def find(self, needle: str, after: int = -1) -> int | None:
        """Byte position of the first occurrence of ``needle`` (UTF-8) beyond ``after``, wrapping."""
        raw = needle.encode("utf-8")
        if not raw:
            return None
        found = self._scan(raw, after + 1, self.size)
        if found is None and after >= 0:
            found = self._scan(raw, 0, min(self.size, after + len(raw)))
        return found

    def find_before(self, needle: str, before: int) -> int | None:
        """Byte position of the last occurrence of ``needle`` starting before ``before``,
        wrapping to the last one of the entry (``N``: the previous match)."""
        raw = needle.encode("utf-8")
        if not raw:
            return None
        found = self._rscan(raw, 0, max(0, before))
        if found is None:
            found = self._rscan(raw, max(0, before), self.size)
        return found

    def _rscan(self, raw: bytes, start: int, stop: int) -> int | None:
        """The last occurrence of ``raw`` that begins in ``[start, stop)``, read backwards in
        blocks (an entry is never read whole)."""
        end = stop
        while end > start:
            low = max(start, end - _SEARCH_BLOCK)
            block = self._read(low, end - low + len(raw) - 1)
            hit = block.rfind(raw)
            while hit >= 0 and low + hit >= end:
                hit = block.rfind(raw, 0, hit + len(raw) - 1)
            if hit >= 0:
                return low + hit
            end = low
        return None

    def _scan(self, raw: bytes, start: int, stop: int) -> int | None:
        position = start
        while position < stop:
            block = self._read(position, min(_SEARCH_BLOCK, stop - position) + len(raw) - 1)
            hit = block.find(raw)
            if hit >= 0 and position + hit < stop:
                return position + hit
            position += _SEARCH_BLOCK
        return None
