"""Egg downloads: only from the configured hub, capped, hashed on the fly, cached by sha256.

:func:`download_egg` fetches the egg a boot record promises, and nothing else:

* the URL must be exactly ``{hub_url}/{egg.path}`` — a record pointing anywhere else is refused
  before any request, naming both URLs;
* the body is streamed to a temporary file in the cache, hashed while it is written, and the
  download stops the moment it passes ``egg.bytes`` (a Content-Length above it stops it before
  the first byte);
* only bytes whose length and sha256 are the record's are moved (atomically) to
  ``eggs/<sha256>.egg``; a second look at the same egg reads that file and makes no request;
* the request carries no token, cookie or credentials, follows no redirect, and has a
  deadline for the whole transfer and a minimum average rate; a failure is retried once, as
  the store retries.

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
from typing import TYPE_CHECKING

from tui.eggs.boot_record import (
    BootRecord,
    EggDescriptor,
    egg_path_for,
    egg_url_for,
    egg_url_problems,
)
from tui.eggs.egg_report import CHECKS, Check, EggReport
from tui.network.disk_cache import default_cache_root, service_folder_name

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
    "check_url",
    "download_egg",
    "download_url",
    "refusal_report",
]

Progress = Callable[[int, int], None]  # (bytes received, bytes promised)
_HEX64 = frozenset("0123456789abcdef")
# request headers that could carry the user's identity to a hub
_PRIVATE_HEADERS = ("authorization", "cookie", "proxy-authorization")


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

    def part_file(self) -> tuple[int, Path]:
        """A new temporary file beside the eggs (same filesystem: the final rename is atomic)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".download.", suffix=".part", dir=self.folder)
        return fd, Path(name)


def check_url(egg: EggDescriptor, hub_url: str) -> str:
    """The one URL an egg may come from; refuses a record whose ``egg.url`` is any other."""
    expected = egg_url_for(hub_url, egg.path)
    if egg.url != expected:
        raise DownloadRefused(
            "record.url",
            f"egg.url {egg.url!r} is not the hub's {expected!r}: not downloaded",
        )
    return expected


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
        raise DownloadRefused("record.url", f"{url!r} is not an http(s) URL")
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
    import httpx

    request = client.build_request(
        "GET",
        url,
        # identity: the bytes hashed and counted are the file's own, never a decoder's output
        headers={
            "Accept": "application/zip, application/octet-stream",
            "Accept-Encoding": "identity",
        },
        timeout=httpx.Timeout(options.timeout_s),
    )
    for name in _PRIVATE_HEADERS:
        if name in request.headers:
            del request.headers[name]
    fd, part = cache.part_file()
    try:
        with os.fdopen(fd, "wb") as handle:
            received, digest = await _stream(client, request, promise, handle, progress, options)
            handle.flush()
            os.fsync(handle.fileno())
        if promise.size is not None and received != promise.size:
            raise DownloadRefused(
                "file.size",
                f"{url}: the hub sent {received:,} bytes, not the record's {promise.size:,} "
                "(truncated)",
            )
        if promise.sha256 is not None and digest != promise.sha256:
            raise DownloadRefused(
                "file.sha256",
                f"{url}: the file's sha256 is {digest}, not the record's {promise.sha256}",
            )
        final = cache.path_for(digest)
        os.replace(part, final)
        return final, digest, received
    finally:
        with contextlib.suppress(OSError):
            part.unlink()


async def _stream(
    client: httpx.AsyncClient,
    request: httpx.Request,
    promise: _Promise,
    handle,  # noqa: ANN001 - a binary file
    progress: Progress | None,
    options: DownloadOptions,
) -> tuple[int, str]:
    import httpx

    url = str(request.url)
    try:
        response = await client.send(request, stream=True, auth=None, follow_redirects=False)
    except httpx.HTTPError as exc:
        raise HubUnreachable(f"{url}: unreachable ({_describe(exc)})") from None
    try:
        if response.status_code != 200:
            raise HubUnreachable(f"{url}: HTTP {response.status_code}")
        declared = response.headers.get("content-length")
        limit = promise.limit
        if declared and declared.isdigit() and int(declared) > limit:
            raise DownloadRefused(
                "file.size",
                f"{url}: the hub announces {int(declared):,} bytes, more than the "
                f"{_limit_name(promise)} {limit:,}: not downloaded",
            )
        digest = hashlib.sha256()
        received = 0
        started = time.monotonic()
        try:
            # blocks as they arrive (no re-chunking), so the rate is judged on every read
            async for block in response.aiter_bytes():
                received += len(block)
                elapsed = time.monotonic() - started
                if elapsed > options.grace_s and received < options.min_rate * elapsed:
                    raise HubUnreachable(
                        f"{url}: too slow ({received:,} bytes in {elapsed:.0f} s, under "
                        f"{options.min_rate:,.0f} bytes/s): download aborted"
                    )
                if received > limit:
                    raise DownloadRefused(
                        "file.size",
                        f"{url}: the hub sent more than the {_limit_name(promise)} {limit:,} "
                        "bytes: download aborted",
                    )
                digest.update(block)
                handle.write(block)
                if progress is not None:
                    progress(received, limit)
        except httpx.HTTPError as exc:
            if isinstance(exc, httpx.RemoteProtocolError) and promise.size is not None:
                raise DownloadRefused(
                    "file.size",
                    f"{url}: the transfer broke after {received:,} of {promise.size:,} bytes "
                    f"({_describe(exc)})",
                ) from None
            raise HubUnreachable(f"{url}: {_describe(exc)}") from None
        return received, digest.hexdigest()
    finally:
        await response.aclose()


def _limit_name(promise: _Promise) -> str:
    return "record's" if promise.size is not None else "cap of"


def _describe(exc: Exception) -> str:
    name = type(exc).__name__
    message = str(exc)
    return f"{name}: {message}" if message and message != name else name


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
