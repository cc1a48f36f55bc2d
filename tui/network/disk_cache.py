"""The on-disk cache of verified state files (ARCHITECTURE.md, the read side).

One folder per service (named after the read URL's host plus a short hash of the whole URL), under
the platform cache directory (:func:`tui.locations.cache_root`, which honours ``XDG_CACHE_HOME``). For every file
the raw bytes and a small JSON meta (hash, etag, last-modified, fetched_at, verified) are written
atomically (temp file in the same folder, fsync, ``os.replace``), so a crash leaves either the old
or the new copy, never half of one. Only data that passed the store's checks is written here.

What is read back is not trusted either: a file that is not a regular file (a FIFO, a device) is
never read (it is opened non-blocking and checked with ``fstat``), and an entry whose meta does not
validate, whose size or hash does not match, is dropped from disk and listed once in
:attr:`DiskCache.damaged` for the store to report; it never stops roost.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

import msgspec
from msgspec.structs import asdict

from tui.locations import cache_root as default_cache_root

__all__ = [
    "CachedFile",
    "CachedMeta",
    "DiskCache",
    "atomic_write",
    "default_cache_root",
    "service_folder_name",
]

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SHA256 = re.compile(r"[0-9a-f]{64}")
READ_LIMIT = 1 << 30  # a cached file bigger than any cap the store allows is damage


def service_folder_name(read_url: str) -> str:
    """``raw.example.org-1a2b3c4d``: readable, and distinct for two services on one host.

    The readable part is the host and port only: credentials in the URL never name a folder.
    """
    try:
        parts = urlsplit(read_url)
        host = parts.netloc.rpartition("@")[2] or "local"
        named = read_url.replace(parts.netloc, host, 1) if "@" in parts.netloc else read_url
    except ValueError:
        host, named = "local", read_url
    # nor a hash of them: a short hash of a URL with a password in it can be guessed back
    digest = hashlib.sha256(named.rstrip("/").encode()).hexdigest()[:10]
    return f"{_SAFE.sub('_', host)[:60]}-{digest}"


class CachedMeta(msgspec.Struct, frozen=True):
    sha256: str
    size: int
    fetched_at: str
    verified: bool  # the bytes matched the manifest when they were fetched
    etag: str | None = None
    last_modified: str | None = None

    @classmethod
    def from_json(cls, raw: object) -> CachedMeta:
        """The meta of a cache file, or ValueError saying what is wrong with it."""
        from tui.network.fetch import header_token  # deferred: off the start path

        if not isinstance(raw, dict) or set(raw) - set(cls.__struct_fields__):
            raise ValueError("meta is not an object of the known fields")
        sha, size, at = raw.get("sha256"), raw.get("size"), raw.get("fetched_at")
        if not isinstance(sha, str) or not _SHA256.fullmatch(sha):
            raise ValueError("sha256 is not a hex digest")
        if type(size) is not int or size < 0:
            raise ValueError("size is not a count of bytes")
        if not isinstance(at, str):
            raise ValueError("fetched_at is not a time")
        datetime.fromisoformat(at)  # ValueError when it is not one
        if not isinstance(raw.get("verified"), bool):
            raise ValueError("verified is not true/false")
        for key in ("etag", "last_modified"):
            if raw.get(key) is not None and header_token(raw[key]) != raw[key]:
                raise ValueError(f"{key} is not a header value")
        return cls(**raw)


class CachedFile(msgspec.Struct, frozen=True):
    name: str
    body: bytes
    meta: CachedMeta


class DiskCache:
    """Raw bytes + meta of each file, for one service."""

    META_SUFFIX = ".meta.json"

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._prefetched: dict[str, Future[CachedFile | None]] = {}
        self.damaged: list[tuple[str, str]] = []  # (name, why) of entries dropped since asked

    @classmethod
    def for_service(cls, read_url: str, root: Path | None = None) -> DiskCache:
        return cls((root or default_cache_root()) / service_folder_name(read_url))

    # ------------------------------------------------------------------ files

    def prefetch(self) -> None:
        """Start reading every cached file in a background thread; :meth:`load` takes the result.

        `roost` calls this before it imports the app: reading and hashing a big agents.json
        releases the GIL, so it runs on another core while the main
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
        pending: dict[str, Future[CachedFile | None]] = {
            name: Future() for name in names if name not in self._prefetched
        }
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

    def prefetching(self, name: str) -> bool:
        """Whether a :meth:`prefetch` result for ``name`` is waiting to be loaded."""
        future = self._prefetched.get(name)
        return future is not None and not future.cancelled()

    def read_unchecked(self, name: str) -> CachedFile | None:
        """The entry's bytes and meta, not yet checked against each other: for a caller that
        works on the bytes while :meth:`check_in_thread` checks them, and uses its work only if
        they pass. None when there is no entry; an unreadable entry is dropped, as by
        :meth:`load`."""
        try:
            body = _read_regular(self._path(name))
            meta = CachedMeta.from_json(
                json.loads(_read_regular(self._path(name + self.META_SUFFIX)))
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError, RecursionError) as exc:
            self.drop(name, str(exc) or type(exc).__name__)
            return None
        return CachedFile(name, body, meta)

    @staticmethod
    def check_in_thread(entries: list[CachedFile]) -> Callable[[], list[str]]:
        """Check each entry's bytes against its meta (size, sha256) in a background thread;
        the returned call waits for it and answers the names that do not match (nothing is
        dropped: :meth:`load` reads such an entry again, as a store may be under way).

        hashlib releases the GIL, so a 50 MB agents.json is hashed on another core while the
        caller validates it."""
        bad: list[str] = []

        def check() -> None:
            bad.extend(entry.name for entry in entries if not _intact(entry))

        thread = threading.Thread(target=check, name="roost-cache-check", daemon=True)
        thread.start()

        def result() -> list[str]:
            thread.join()
            return bad

        return result

    def take_damaged(self) -> list[tuple[str, str]]:
        """The entries dropped since the last call (each is reported once)."""
        damaged, self.damaged = self.damaged, []
        return damaged

    def _read(self, name: str) -> CachedFile | None:
        """The entry if it is intact. Bytes that do not match their meta are read again a
        couple of times before the entry counts as damaged: a store (this process's prefetch
        racing it, or another roost process sharing the cache) renames the new body into place
        before its meta, and a reader between the two renames sees the new bytes beside the
        old meta. Dropping the entry then deleted the writer's good files."""
        for wait in (*_MISMATCH_RETRY_S, None):
            entry = self.read_unchecked(name)
            if entry is None or _intact(entry):
                return entry
            if wait is not None:
                time.sleep(wait)
        self.drop(name, "bytes do not match their recorded size and hash")
        return None

    def drop(self, name: str, why: str) -> None:
        """Forget a damaged entry: remove its files and remember it for one report."""
        self.damaged.append((name, why))
        for path in (self._path(name), self._path(name + self.META_SUFFIX)):
            with contextlib.suppress(OSError):
                path.unlink()

    def store(self, name: str, body: bytes, meta: CachedMeta) -> None:
        """Write body then meta; a reader never sees a meta whose body is not complete."""
        stale = self._prefetched.pop(name, None)
        if stale is not None:
            stale.cancel()
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self._path(name), body)
        atomic_write(
            self._path(name + self.META_SUFFIX), json.dumps(asdict(meta), indent=1).encode()
        )

    # ------------------------------------------------------------------ json documents

    def load_json(self, name: str) -> object | None:
        """The document ``name`` holds; None when there is none, or when it is damaged (then
        dropped and remembered for one report, as any damaged entry)."""
        try:
            return json.loads(_read_regular(self._path(name)))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError) as exc:
            self.drop(name, str(exc) or type(exc).__name__)
            return None

    def store_json(self, name: str, value: object) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self._path(name), json.dumps(value, separators=(",", ":")).encode())

    def _path(self, name: str) -> Path:
        if "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"not a cache entry name: {name!r}")
        return self.folder / name


_READ_STEP = 1 << 16  # what is read at a time past the size the file had when it was opened

# pauses before reading an entry again whose bytes and meta disagree (a store in progress)
_MISMATCH_RETRY_S = (0.01, 0.05)


def _intact(entry: CachedFile) -> bool:
    meta = entry.meta
    return meta.size == len(entry.body) and hashlib.sha256(entry.body).hexdigest() == meta.sha256


def _read_regular(path: Path) -> bytes:
    """The bytes of a regular file; a link, FIFO, device or directory is an error, never
    followed or waited on."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if info.st_size > READ_LIMIT:
            raise ValueError("larger than any cached file can be")
        # Reads sized by the file (one more byte sees it grown, then EOF): a read of the whole
        # limit would allocate a buffer of that size for every file, small ones too.
        parts: list[bytes] = []
        total, want = 0, info.st_size + 1
        while total <= READ_LIMIT:
            block = os.read(fd, min(max(want - total, _READ_STEP), READ_LIMIT + 1 - total))
            if not block:
                break
            parts.append(block)
            total += len(block)
        if total > READ_LIMIT:
            raise ValueError("larger than any cached file can be")
        return parts[0] if len(parts) == 1 else b"".join(parts)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader (another roost process included) sees the
    old file or the whole new one, never a part: a temporary file in the same folder, fsync,
    then rename over ``path``. The one writer of every file roost keeps (cache, outbox, drafts,
    eggs)."""
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
