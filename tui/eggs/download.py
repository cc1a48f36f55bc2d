"""Egg downloads: only from the configured hub, capped, hashed on the fly, cached by sha256.

:func:`download_egg` fetches the egg a boot record promises, and nothing else:

* the URL must be exactly ``{hub_url}/{egg.path}`` — a record pointing anywhere else is refused
  before any request, naming both URLs;
* the body is read through the hardened :func:`tui.network.fetch.fetch` (deadline, minimum
  rate, encodings checked), hashed while it is read, and the read stops the moment it passes
  ``egg.bytes`` (a Content-Length above it stops it before the first byte), so memory stays
  within the size the record promised;
* only bytes whose length and sha256 are the record's are written (atomically) to
  ``eggs/<sha256>.egg``; a second look at the same egg reads that file and makes no request;
* the client must carry no token, cookie or credentials and follow no redirect (refused
  otherwise), so the hub never sees the user's token; a failure is retried once, as the store
  retries, within one deadline for the whole download.

Nothing here opens, runs or extracts the egg; :func:`tui.eggs.verify.verify_egg` reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tui.eggs.boot_record import (
    BootRecord,
    EggDescriptor,
    egg_path_for,
    egg_url_for,
    egg_url_problems,
)
from tui.eggs.egg_report import CHECKS, Check, EggReport
from tui.network.disk_cache import atomic_write, default_cache_root, service_folder_name
from tui.network.urls import redact_url

if TYPE_CHECKING:
    import httpx

__all__ = [
    "DownloadFailed",
    "cached_verdict",
    "DownloadOptions",
    "DownloadRefused",
    "EggCache",
    "EggFile",
    "HubUnreachable",
    "Progress",
    "check_client",
    "check_url",
    "download_egg",
    "download_url",
    "refusal_report",
]

Progress = Callable[[int, int], None]  # (bytes received, bytes promised)
_HEX64 = frozenset("0123456789abcdef")


class DownloadFailed(Exception):
    """No verified egg: ``check`` is the report check the failure belongs to (or None)."""

    check: str | None = None

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class DownloadRefused(DownloadFailed):
    """The hub or the record broke a rule: wrong URL, size or sha256. Exit code 1."""

    def __init__(self, check: str, detail: str) -> None:
        super().__init__(detail)
        self.check = check


class HubUnreachable(DownloadFailed):
    """The hub could not be asked (offline, timeout, deadline, HTTP error). Exit code 3."""


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

    def store(self, sha256: str, data: bytes) -> Path:
        """Write verified bytes under their sha256, atomically as the state cache writes (two
        processes storing the same egg store the same bytes; a reader never sees half)."""
        final = self.path_for(sha256)
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(final, data)
        return final


def check_url(egg: EggDescriptor, hub_url: str) -> str:
    """The one URL an egg may come from; refuses a record whose ``egg.url`` is any other."""
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
    hub_url: str,
    *,
    client: httpx.AsyncClient,
    cache: EggCache,
    progress: Progress | None = None,
    options: DownloadOptions | None = None,
) -> EggFile:
    """The egg of ``egg`` (a record's descriptor) from the cache, or downloaded from the hub.

    Raises :class:`DownloadRefused` (URL, size or sha256 rule broken) or
    :class:`HubUnreachable`; never keeps bytes that are not exactly the promised egg.
    """
    url = check_url(egg, hub_url)
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
                except DownloadFailed as exc:
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
    cap on the decoded bytes, no bomb), then the size and sha256 rules, then the atomic store."""
    from tui.network.fetch import FetchError, TooLarge, fetch

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
            ) from None
        raise HubUnreachable(f"{exc.url}: {exc.reason}") from None
    if result.status != 200:
        raise HubUnreachable(f"{shown}: HTTP {result.status}")
    body, digest = result.body, result.sha256
    if promise.size is not None and len(body) != promise.size:
        raise DownloadRefused(
            "file.size",
            f"{shown}: the hub sent {len(body):,} bytes, not the record's {promise.size:,} "
            "(truncated)",
        )
    if promise.sha256 is not None and digest != promise.sha256:
        raise DownloadRefused(
            "file.sha256",
            f"{shown}: the file's sha256 is {digest}, not the record's {promise.sha256}",
        )
    path = await asyncio.to_thread(cache.store, digest, body)
    return path, digest, len(body)


def _limit_name(promise: _Promise) -> str:
    return "record's" if promise.size is not None else "cap of"


def refusal_report(record: BootRecord, hub_url: str, failure: DownloadRefused) -> EggReport:
    """The report of an egg that was refused before it could be read: the record's own checks,
    the broken rule failed, and every check that needs the egg's bytes skipped."""
    egg = record.egg
    path = egg_path_for(egg.sha256)
    url_problems = egg_url_problems(egg.url, egg.path, hub_url)
    # (good, detail when good, detail when not), worded as the verifier words them
    own = {
        "record.ref": (
            egg.ref == f"sha256:{egg.sha256}",
            egg.ref,
            f"egg.ref {egg.ref!r} != 'sha256:{egg.sha256}'",
        ),
        "record.path": (egg.path == path, egg.path, f"egg.path {egg.path!r} != {path!r}"),
        "record.url": (not url_problems, egg.url, "; ".join(url_problems)),
    }
    skipped = f"not checked: the egg was refused ({failure.check} failed)"
    checks = []
    for check_id, name in CHECKS:
        if check_id == failure.check:
            checks.append(Check(check_id, name, "fail", failure.detail))
        elif check_id in own:
            good, detail_ok, detail_bad = own[check_id]
            status = "pass" if good else "fail"
            checks.append(Check(check_id, name, status, detail_ok if good else detail_bad))
        else:
            checks.append(Check(check_id, name, "skip", skipped))
    return EggReport(checks=checks)


def cached_verdict(record: BootRecord, hub_url: str, cache: EggCache) -> str:
    """The egg's state without a request, in the Boots tab's words: "not downloaded",
    "verified" or "failed at check N (id)" — the cached egg re-verified against its record."""
    from tui.eggs.verify import verify_egg

    egg = record.egg
    try:
        path = cache.lookup(egg.sha256, egg.bytes)
    except ValueError:
        path = None
    if path is None:
        return "not downloaded"
    report = verify_egg(path, record, hub_url=hub_url)
    failure = report.first_failure
    if failure is None:
        return "verified"
    position, check = failure
    return f"failed at check {position} ({check.id})"
