"""The on-disk cache of verified state files (DESIGN.md §3).

One folder per service (named after the read URL's host plus a short hash of the whole URL), under
the platform cache directory (``platformdirs``, which honours ``XDG_CACHE_HOME``). For every file
the raw bytes and a small JSON meta (hash, etag, last-modified, fetched_at, verified) are written
atomically (temp file in the same folder, fsync, ``os.replace``), so a crash leaves either the old
or the new copy, never half of one. Only data that passed the store's checks is written here.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import threading
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlsplit

import platformdirs

__all__ = ["CachedFile", "CachedMeta", "DiskCache", "default_cache_root", "service_folder_name"]

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def default_cache_root() -> Path:
    return Path(platformdirs.user_cache_dir("roost", appauthor=False))


def service_folder_name(read_url: str) -> str:
    """``raw.example.org-1a2b3c4d``: readable, and distinct for two services on one host."""
    host = urlsplit(read_url).netloc or "local"
    digest = hashlib.sha256(read_url.rstrip("/").encode()).hexdigest()[:10]
    return f"{_SAFE.sub('_', host)[:60]}-{digest}"


@dataclass(frozen=True, slots=True)
class CachedMeta:
    sha256: str
    size: int
    fetched_at: str
    verified: bool  # the bytes matched the manifest when they were fetched
    etag: str | None = None
    last_modified: str | None = None


@dataclass(frozen=True, slots=True)
class CachedFile:
    name: str
    body: bytes
    meta: CachedMeta


class DiskCache:
    """Raw bytes + meta of each file, for one service."""

    META_SUFFIX = ".meta.json"

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._prefetched: dict[str, Future[CachedFile | None]] = {}

    @classmethod
    def for_service(cls, read_url: str, root: Path | None = None) -> DiskCache:
        return cls((root or default_cache_root()) / service_folder_name(read_url))

    # ------------------------------------------------------------------ files

    def prefetch(self) -> None:
        """Start reading every cached file in a background thread; :meth:`load` takes the result.

        `roost` calls this before it imports the app: reading and hashing a big agents.json
        (~60 ms at 50k agents) releases the GIL, so it runs on another core while the main
        thread imports. Each result is handed out once and dropped; a :meth:`store` of the same
        name discards it (the next load reads the new file).
        """
        try:
            names = sorted(
                path.name.removesuffix(self.META_SUFFIX)
                for path in self.folder.glob("*" + self.META_SUFFIX)
            )
        except OSError:
            return
        pending = {name: Future() for name in names if name not in self._prefetched}
        if not pending:
            return
        self._prefetched.update(pending)

        def read() -> None:
            for name, future in pending.items():
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(self._read(name))
                    except BaseException as exc:  # handed to whoever loads it
                        future.set_exception(exc)

        threading.Thread(target=read, name="roost-cache-prefetch", daemon=True).start()

    def load(self, name: str) -> CachedFile | None:
        """The cached copy of ``name`` if present and intact (bytes still match their hash)."""
        future = self._prefetched.pop(name, None)
        if future is not None and not future.cancelled():
            return future.result()
        return self._read(name)

    def _read(self, name: str) -> CachedFile | None:
        body_path = self._path(name)
        meta_path = self._path(name + self.META_SUFFIX)
        try:
            body = body_path.read_bytes()
            raw_meta = json.loads(meta_path.read_text("utf-8"))
            meta = CachedMeta(**raw_meta)
        except (OSError, ValueError, TypeError):
            return None
        if hashlib.sha256(body).hexdigest() != meta.sha256:
            return None  # damaged on disk: ignore it rather than show it
        return CachedFile(name, body, meta)

    def store(self, name: str, body: bytes, meta: CachedMeta) -> None:
        """Write body then meta; a reader never sees a meta whose body is not complete."""
        stale = self._prefetched.pop(name, None)
        if stale is not None:
            stale.cancel()
        self.folder.mkdir(parents=True, exist_ok=True)
        _atomic_write(self._path(name), body)
        _atomic_write(
            self._path(name + self.META_SUFFIX), json.dumps(asdict(meta), indent=1).encode()
        )

    # ------------------------------------------------------------------ json documents

    def load_json(self, name: str) -> object | None:
        try:
            return json.loads(self._path(name).read_text("utf-8"))
        except (OSError, ValueError):
            return None

    def store_json(self, name: str, value: object) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        _atomic_write(self._path(name), json.dumps(value, separators=(",", ":")).encode())

    def _path(self, name: str) -> Path:
        if "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"not a cache entry name: {name!r}")
        return self.folder / name


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
