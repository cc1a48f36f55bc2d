"""Egg downloads: only from the configured hub, capped, hashed on the fly, cached by sha256.

:func:`download_egg` fetches the egg a boot record promises, and nothing else:

* ``egg.path`` must be the content-addressed download path of ``egg.sha256`` and the URL
  exactly ``{hub_url}/{egg.path}`` — a record pointing anywhere else is refused before any
  request, naming both;
* the body is read through the hardened :func:`tui.network.fetch.fetch` (deadline, minimum
  rate, encodings checked), hashed while it is read and written to a temporary file in the egg
  cache (memory holds one read, whatever the size), and the read stops the moment it passes
  ``egg.bytes`` (a Content-Length above it stops it before the first byte);
* only a file whose length and sha256 are the record's is renamed (atomically) to
  ``eggs/<sha256>.egg``; any other is removed; a second look at the same egg reads that file and
  makes no request;
* the client must carry no token, cookie or credentials and follow no redirect (refused
  otherwise), so the hub never sees the user's token; a failure to reach the hub, or a transfer
  that broke off, is retried once, as the store retries, within one deadline for the whole
  download; a reply that breaks a rule (size, sha256) is not asked again.

Nothing here opens, runs or extracts the egg; :func:`tui.eggs.verify.verify_egg` reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from tui.eggs import rapp
from tui.eggs.boot_record import (
    BootRecord,
    EggDescriptor,
    egg_path_for,
    egg_url_for,
    egg_url_problems,
)
from tui.eggs.egg_report import CHECKS, Check, EggReport
from tui.eggs.hub_paths import OFFLINE, scheme_problem
from tui.errors import RoostError
from tui.network.disk_cache import default_cache_root, service_folder_name
from tui.network.urls import redact_url

if TYPE_CHECKING:
    import httpx

__all__ = [
    "DownloadFailed",
    "DownloadOptions",
    "DownloadRefused",
    "EggCache",
    "EggFile",
    "CacheUnwritable",
    "HubUnreachable",
    "Progress",
    "check_client",
    "check_url",
    "download_egg",
    "download_url",
    "refusal_report",
]

Progress = Callable[[int, int], None]  # (bytes received, bytes promised)
_PARTIAL_PREFIX = ".download."
#: A partial download file this old was left by a process that died (a download's deadline is
#: 600 s by default, and every write refreshes the file's time).
ABANDONED_AFTER_S = 3600.0
_HEX64 = frozenset("0123456789abcdef")


class DownloadFailed(RoostError):
    """No verified egg: ``check`` is the report check the failure belongs to (or None)."""

    check: str | None = None

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class DownloadRefused(DownloadFailed):
    """The hub or the record broke a rule: wrong URL, size or sha256. Exit code 1.

    A refusal is not asked again (the hub answered; asking again gets the same answer, on a
    connection a lying reply may have left dirty), except a transfer that broke off
    (``retryable``), which a network hiccup explains as well as a lie."""

    def __init__(self, check: str, detail: str, *, retryable: bool = False) -> None:
        super().__init__(detail)
        self.check = check
        self.retryable = retryable


class HubUnreachable(DownloadFailed):
    """The hub could not be asked (offline, timeout, deadline, HTTP error). Exit code 3."""


class CacheUnwritable(DownloadFailed):
    """The egg could not be kept: its cache folder cannot be written (exit code 3)."""

    @classmethod
    def of(cls, folder: Path, exc: OSError) -> CacheUnwritable:
        return cls(f"the egg cache {folder} cannot be written ({exc.strerror or exc})")


@dataclass(frozen=True)
class DownloadOptions:
    timeout_s: float = 30.0  # connect / between two reads
    deadline_s: float = 600.0  # the whole transfer, retries included
    retries: int = 1
    retry_delay_s: float = 0.75
    min_rate: float = 1024.0  # bytes per second on average, once the grace period is over
    grace_s: float = 10.0


@dataclass(frozen=True)
class EggFile:
    """A verified-length, verified-sha256 egg in the cache."""

    path: Path
    sha256: str
    size: int
    from_cache: bool
    requests: int = 0


class EggCache:
    """``<cache root>/<hub folder>/eggs/<sha256>.egg``: content-addressed, so two processes that
    download the same egg write the same file, and a reader never sees half of one."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    @classmethod
    def for_hub(cls, hub_url: str, root: Path | None = None) -> EggCache:
        return cls((root or default_cache_root()) / service_folder_name(hub_url) / "eggs")

    def path_for(self, sha256: str) -> Path:
        if len(sha256) != 64 or not set(sha256) <= _HEX64:
            raise ValueError(f"not a sha256: {sha256!r}")
        return self.folder / f"{sha256}.egg"

    def lookup(self, sha256: str, size: int) -> Path | None:
        """The cached egg if present with this length and sha256 (a damaged copy is removed)."""
        path = self.path_for(sha256)
        try:
            if path.stat().st_size != size:
                return None
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                while block := handle.read(1 << 20):
                    digest.update(block)
        except OSError:
            return None
        if digest.hexdigest() != sha256:
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        return path

    def begin(self) -> _Partial:
        """A new temporary file in the cache folder that a download streams into; nothing
        reads it until :meth:`_Partial.commit` renames it to its sha256's name. Partial files
        left by a process that was killed mid-download are removed once they are older than any
        download can last (another roost may be writing a younger one)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._sweep_abandoned()
        fd, name = tempfile.mkstemp(prefix=_PARTIAL_PREFIX, suffix=".tmp", dir=self.folder)
        return _Partial(self, Path(name), os.fdopen(fd, "wb"))

    def _sweep_abandoned(self) -> None:
        too_old = time.time() - ABANDONED_AFTER_S
        with contextlib.suppress(OSError):
            for path in self.folder.glob(f"{_PARTIAL_PREFIX}*.tmp"):
                with contextlib.suppress(OSError):
                    if path.stat().st_mtime < too_old:
                        path.unlink()


@dataclass
class _Partial:
    """A download being written: bytes on disk (memory stays at one read's worth), kept under
    the egg's sha256 only once its length and sha256 are the promised ones."""

    cache: EggCache
    path: Path
    handle: BinaryIO

    def write(self, piece: bytes) -> None:
        self.handle.write(piece)

    def commit(self, sha256: str) -> Path:
        """fsync, then rename over ``<sha256>.egg`` (another process may have put the same bytes
        there meanwhile: the rename replaces them with equal bytes, atomically)."""
        final = self.cache.path_for(sha256)
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.handle.close()
        os.replace(self.path, final)
        return final

    def abandon(self) -> None:
        with contextlib.suppress(OSError):
            self.handle.close()
        with contextlib.suppress(OSError):
            self.path.unlink()


def check_url(egg: EggDescriptor, hub_url: str | None) -> str:
    """The one URL an egg may come from: ``{hub_url}/{egg.path}``, or with no hub known the
    URL the record names when it is one its own hub could publish (https, ending in
    ``/`` + ``egg.path``); a record whose ``egg.url`` is any other is refused."""
    if hub_url is None:
        problems = egg_url_problems(egg.url, egg.path, None)
        if problems:
            raise DownloadRefused("record.url", f"{problems[0]}: not downloaded")
        return egg.url
    expected = egg_url_for(hub_url, egg.path)
    if egg.url != expected:
        raise DownloadRefused(
            "record.url",
            f"egg.url {egg.url!r} is not the hub's {expected!r}: not downloaded",
        )
    return expected


def check_client(client: httpx.AsyncClient) -> None:
    """A hub client carries no credentials and follows no redirect (a programming error else)."""
    private = [name for name in ("authorization", "cookie") if name in client.headers]
    if private or client.auth is not None or client.follow_redirects:
        raise ValueError(
            "a hub client must carry no token, cookie or auth and follow no redirect "
            f"(found: {', '.join(private) or 'auth or redirects'})"
        )


async def download_egg(
    egg: EggDescriptor,
    hub_url: str | None,
    *,
    client: httpx.AsyncClient,
    cache: EggCache,
    progress: Progress | None = None,
    options: DownloadOptions | None = None,
    mirror: str | None = None,
) -> EggFile:
    """The egg of ``egg`` (a record's descriptor) from the cache, or downloaded from the hub.

    ``mirror``: a copy of the hub to download it from, at ``{mirror}/{egg.path}`` (``egg.url``
    is still held to ``hub_url``, the record's own hub); https, or http:// on loopback.

    Raises :class:`DownloadRefused` (URL, size or sha256 rule broken) or
    :class:`HubUnreachable`; never keeps bytes that are not exactly the promised egg.
    """
    expected_path = egg_path_for(egg.sha256) if rapp.is_hex64(egg.sha256) else None
    if egg.path != expected_path:
        # checked before the URL: a path with dot segments would pass the URL's equality with
        # {hub_url}/{egg.path} and then be resolved by the client to a place outside the hub
        raise DownloadRefused(
            "record.path",
            f"egg.path {egg.path!r} is not the content-addressed {expected_path!r}: not downloaded",
        )
    url = check_url(egg, hub_url)
    if mirror is not None:
        problem = scheme_problem(mirror)
        if problem is not None:
            raise DownloadRefused("record.url", f"the hub's copy {problem}: not downloaded")
        url = egg_url_for(mirror, egg.path)
    check_client(client)
    cache.path_for(egg.sha256)  # refuses a malformed sha256 before anything else
    cached = await asyncio.to_thread(cache.lookup, egg.sha256, egg.bytes)
    if cached is not None:
        if progress is not None:
            progress(egg.bytes, egg.bytes)
        return EggFile(cached, egg.sha256, egg.bytes, from_cache=True)
    return await _download(url, _Promise(egg.bytes, egg.sha256), client, cache, progress, options)


async def download_url(
    url: str,
    *,
    client: httpx.AsyncClient,
    cache: EggCache,
    cap: int,
    progress: Progress | None = None,
    options: DownloadOptions | None = None,
) -> EggFile:
    """An egg named only by its URL (no record promises it): capped at ``cap`` bytes and stored
    under the sha256 it turns out to have; the verifier then judges it without a record."""
    if not url.startswith(("https://", "http://")):
        raise DownloadRefused("record.url", f"{redact_url(url)!r} is not an http(s) URL")
    check_client(client)
    return await _download(url, _Promise(None, None, cap), client, cache, progress, options)


@dataclass(frozen=True)
class _Promise:
    """What the bytes must be: an exact size and sha256 (a record's), or just under a cap."""

    size: int | None
    sha256: str | None
    cap: int = 0

    @property
    def limit(self) -> int:
        return self.size if self.size is not None else self.cap


async def _download(
    url: str,
    promise: _Promise,
    client: httpx.AsyncClient,
    cache: EggCache,
    progress: Progress | None,
    options: DownloadOptions | None,
) -> EggFile:
    options = options or DownloadOptions()
    requests = 0
    failure: DownloadFailed | None = None
    try:
        async with asyncio.timeout(options.deadline_s):
            for attempt in range(options.retries + 1):
                if attempt:
                    await asyncio.sleep(options.retry_delay_s)
                requests += 1
                try:
                    path, sha256, size = await _transfer(
                        client, url, promise, cache, progress, options
                    )
                except DownloadRefused as exc:
                    if not exc.retryable:
                        raise
                    failure = exc
                    continue
                except CacheUnwritable:
                    raise
                except DownloadFailed as exc:
                    # a broken transfer stays the diagnosis when the retry cannot even connect
                    if not isinstance(failure, DownloadRefused):
                        failure = exc
                    continue
                return EggFile(path, sha256, size, from_cache=False, requests=requests)
    except TimeoutError:
        failure = HubUnreachable(
            f"{url}: the download did not finish within {options.deadline_s:g} s"
        )
    assert failure is not None
    raise failure


async def _transfer(
    client: httpx.AsyncClient,
    url: str,
    promise: _Promise,
    cache: EggCache,
    progress: Progress | None,
    options: DownloadOptions,
) -> tuple[Path, str, int]:
    """One GET through the hardened :func:`tui.network.fetch.fetch` (deadline, minimum rate,
    cap on the decoded bytes, no bomb) streamed into a temporary file of the cache, then the
    size and sha256 rules, then the rename to its sha256 (or the file's removal)."""
    try:
        partial = await asyncio.to_thread(cache.begin)
    except OSError as exc:
        raise CacheUnwritable.of(cache.folder, exc) from None
    try:
        return await _receive(client, url, promise, partial, progress, options)
    except BaseException:
        await asyncio.to_thread(partial.abandon)
        raise


async def _receive(
    client: httpx.AsyncClient,
    url: str,
    promise: _Promise,
    partial: _Partial,
    progress: Progress | None,
    options: DownloadOptions,
) -> tuple[Path, str, int]:
    # deferred: off the start path
    from tui.network.fetch import FetchError, TooLarge, Unreachable, fetch

    limit = promise.limit
    shown = redact_url(url)
    wire: list[int | None] = [0, None]  # bytes seen on the wire, length the hub declared

    def seen(received: int, declared: int | None) -> None:
        wire[:] = [received, declared]
        if progress is not None:
            progress(min(received, limit), limit)

    try:
        result = await fetch(
            client,
            url,
            cap=limit,
            accept="application/zip, application/octet-stream",
            deadline_s=options.deadline_s,
            min_rate=options.min_rate,
            rate_grace_s=options.grace_s,
            on_progress=seen,
            sink=partial.write,
        )
    except TooLarge as exc:
        raise DownloadRefused(
            "file.size",
            f"{exc.url}: more than the {_limit_name(promise)} {limit:,} bytes "
            f"({exc.reason}): download aborted",
        ) from None
    except FetchError as exc:
        received, declared = wire
        broke = exc.kind == "network" and promise.size is not None and bool(received)
        if broke and (declared is None or received < declared):  # type: ignore[operator]
            raise DownloadRefused(
                "file.size",
                f"{exc.url}: the transfer broke after {received:,} of {promise.size:,} bytes "
                f"({exc.reason})",
                retryable=True,
            ) from None
        if isinstance(exc, Unreachable):
            raise HubUnreachable(f"{OFFLINE} ({exc.url})") from None
        raise HubUnreachable(f"{exc.url}: {exc.reason}") from None
    except OSError as exc:  # the partial file could not be written (disk full, …)
        raise CacheUnwritable.of(partial.cache.folder, exc) from None
    if 300 <= result.status < 400 and result.status != 304:
        raise HubUnreachable(
            f"{shown}: HTTP {result.status}, a redirect: not followed (eggs come from the hub "
            "URL only)"
        )
    if result.status != 200:
        raise HubUnreachable(f"{shown}: HTTP {result.status}")
    size, digest = result.size, result.sha256
    if promise.size is not None and size != promise.size:
        raise DownloadRefused(
            "file.size",
            f"{shown}: the hub sent {size:,} bytes, not the record's {promise.size:,} (truncated)",
        )
    if promise.sha256 is not None and digest != promise.sha256:
        raise DownloadRefused(
            "file.sha256",
            f"{shown}: the file's sha256 is {digest}, not the record's {promise.sha256}",
        )
    try:
        path = await asyncio.to_thread(partial.commit, digest)
    except OSError as exc:
        raise CacheUnwritable.of(partial.cache.folder, exc) from None
    return path, digest, size


def _limit_name(promise: _Promise) -> str:
    return "record's" if promise.size is not None else "cap of"


def refusal_report(
    record: BootRecord | None, hub_url: str | None, failure: DownloadRefused
) -> EggReport:
    """The report of an egg that was refused before it could be read: the record's own checks
    (when a record promised it), the broken rule failed, and every check that needs the egg's
    bytes skipped."""
    from tui.eggs.egg_rules import record_document_checks  # deferred: off the start path

    own = {}
    if record is not None:
        own = {
            check_id: (good, detail)
            for check_id, good, detail in record_document_checks(record, hub_url)
        }
    skipped = f"not checked: the egg was refused ({failure.check} failed)"
    checks = []
    for check_id, name in CHECKS:
        if check_id == failure.check:
            checks.append(Check(check_id, name, "fail", failure.detail))
        elif check_id in own:
            good, detail = own[check_id]
            checks.append(Check(check_id, name, "pass" if good else "fail", detail))
        else:
            checks.append(Check(check_id, name, "skip", skipped))
    return EggReport(checks=checks)
