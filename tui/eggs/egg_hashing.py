"""The hashes one read of an egg feeds (the egg's digest, its entries', the record's promises).

The verifier reads an egg once (:meth:`tui.eggs.zip_reader.StrictZipReader.stream`) and hands
each block to the sinks here: the whole file's sha256 (``file.sha256``), and per entry the
domain-separated egg hash (``integrity``), the plain sha256 when a boot record promises one
(the organ, the seed record) and the bytes themselves for the two small files the rules read
(``manifest.json``, ``rappid.json``). All on the calling thread; nothing here keeps more than
the bytes it was asked to capture.
"""

from __future__ import annotations

import hashlib
from typing import Any

from tui.eggs import rapp

__all__ = ["EntryHashes", "file_hasher"]


def file_hasher() -> Any:
    """The sha256 of the whole file, fed every byte in order."""
    return hashlib.sha256()


class EntryHashes:
    """What one pass over an entry's bytes yields: its egg hash, its plain sha256 when
    ``plain``, and its bytes when ``capture`` (only ever for entries of bounded size)."""

    __slots__ = ("_data", "_egg", "_plain")

    def __init__(self, *, plain: bool = False, capture: bool = False) -> None:
        self._egg = rapp.hb_hasher("rapp/1:egg")
        self._plain = hashlib.sha256() if plain else None
        self._data = bytearray() if capture else None

    def update(self, block: Any) -> None:
        self._egg.update(block)
        if self._plain is not None:
            self._plain.update(block)
        if self._data is not None:
            self._data += block

    @property
    def egg_hash(self) -> str:
        """``Hb("rapp/1:egg", bytes)``: what the manifest's ``contents`` promises."""
        return self._egg.hexdigest()

    @property
    def plain_sha256(self) -> str | None:
        """The plain sha256 (None when it was not asked for)."""
        return self._plain.hexdigest() if self._plain is not None else None

    @property
    def data(self) -> bytes | None:
        """The captured bytes (None when they were not asked for)."""
        return bytes(self._data) if self._data is not None else None
