"""The disk cache of boot records, kept the way the store keeps state files (ARCHITECTURE.md, the read side).

Each record document is stored by the sha256 of its bytes through :class:`DiskCache` (atomic
writes, hash checked on every load), so two processes writing the same record write the same
file and a damaged copy is ignored. Beside them, one small document per source remembers which
record was last good at each place of the source; when the source is unreachable or a record
turns bad, that copy is shown instead, marked as cached.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from tui.clock import utc_now
from tui.network.disk_cache import CachedMeta, DiskCache, default_cache_root, service_folder_name

__all__ = ["LastGood", "RecordCache"]

_LAST_GOOD = "last-good.json"


@dataclass(frozen=True)
class LastGood:
    """Where a good record was last seen: its place in the source and its document's sha256."""

    origin: str
    sha256: str


class RecordCache:
    """Record documents by sha256, plus the last good set of one source."""

    def __init__(self, folder: Path) -> None:
        self.disk = DiskCache(folder)

    @classmethod
    def for_source(cls, source: str, root: Path | None = None) -> RecordCache:
        """One folder per source (a URL or a path), under the platform cache dir."""
        return cls((root or default_cache_root()) / service_folder_name(source) / "boot-records")

    @property
    def folder(self) -> Path:
        return self.disk.folder

    def put(self, raw: bytes) -> str:
        """Store a good record's bytes; returns their sha256 (the entry's name)."""
        sha256 = hashlib.sha256(raw).hexdigest()
        if self.get(sha256) is None:
            meta = CachedMeta(
                sha256=sha256,
                size=len(raw),
                fetched_at=utc_now().isoformat(),
                verified=True,
            )
            self.disk.store(f"{sha256}.json", raw, meta)
        return sha256

    def get(self, sha256: str) -> bytes | None:
        """The stored bytes of a record, or None when absent or damaged on disk."""
        if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
            return None
        cached = self.disk.load(f"{sha256}.json")
        return cached.body if cached is not None else None

    def last_good(self) -> list[LastGood]:
        """The records last seen good in this source, in source order (empty when unknown)."""
        value = self.disk.load_json(_LAST_GOOD)
        if not isinstance(value, list):
            return []
        found = []
        for item in value:
            if isinstance(item, dict) and isinstance(item.get("origin"), str):
                sha256 = item.get("sha256")
                if isinstance(sha256, str):
                    found.append(LastGood(item["origin"], sha256))
        return found

    def remember(self, entries: list[LastGood]) -> None:
        """Replace the last good set (one atomic write; the last of two writers wins whole)."""
        self.disk.store_json(
            _LAST_GOOD, [{"origin": e.origin, "sha256": e.sha256} for e in entries]
        )
