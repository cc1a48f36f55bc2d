"""One egg, from wherever it is to its report, off the event loop.

:func:`check_egg` is the one way the Boots tab, the inspector and ``roost egg`` get an egg
judged: it takes the egg at hand (a file or bytes), or the record that promises one (looked up
in the egg cache, downloaded when it is not there), or a bare URL, and answers an
:class:`EggOutcome`, a value: the report, where the egg's bytes are, or why there are none.
A download the hub's reply broke a rule of (URL, size, sha256) is a report too, naming that
check; an unreachable hub is an outcome with an ``error``. Nothing raises but a programming
error.

Everything that reads or hashes a whole egg (the cache lookup and the verification, which
hashes the file as it reads it: once) runs in one worker thread per egg; a download is
network I/O on the event loop, hashed as it arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tui.eggs.boot_record import BootRecord
from tui.eggs.download import (
    CacheUnwritable,
    DownloadOptions,
    DownloadRefused,
    EggCache,
    HubUnreachable,
    Progress,
    download_egg,
    download_url,
    refusal_report,
)
from tui.eggs.egg_report import CONTAINER_CHECKS, EggReport
from tui.eggs.legacy import legacy_report, recognise, store_refusal
from tui.eggs.store import EGG_CAP, StoreApp
from tui.eggs.verify import verify_egg
from tui.eggs.zip_reader import EggSource

if TYPE_CHECKING:
    import httpx

__all__ = ["URL_CAP", "Downloads", "EggOutcome", "check_egg", "check_local", "judge"]

#: An egg named by a bare URL (no record promises its size) is not read past this.
URL_CAP = 256 << 20


@dataclass(frozen=True)
class Downloads:
    """Where eggs that are not at hand come from: a token-free client and the egg cache."""

    client: httpx.AsyncClient
    cache: EggCache
    options: DownloadOptions | None = None


@dataclass(frozen=True)
class EggOutcome:
    """What became of one egg.

    * ``report`` and ``egg``: the egg was read and judged (passed or not); ``egg`` is its file
      or bytes, for the inspector's viewer;
    * ``report`` without ``egg``: refused before a byte was kept (the report names the check);
    * neither, with ``error``: it could not be had (hub unreachable, cache unwritable, file
      unreadable); neither and no ``error``: not downloaded (only asked for a cached copy).
    """

    report: EggReport | None
    egg: Path | bytes | None = None
    error: str | None = None
    from_cache: bool = False

    @property
    def refused(self) -> bool:
        return self.report is not None and self.egg is None

    @property
    def verdict(self) -> str:
        """The egg's state in a word or three: "not downloaded", "verified", "legacy", "failed
        at check N (id)", or why it could not be had."""
        if self.report is None:
            return self.error or "not downloaded"
        failure = self.report.first_failure
        if failure is None:
            return "legacy" if self.report.legacy else "verified"
        position, check = failure
        return f"failed at check {position} ({check.id})"


def judge(
    egg: Path | bytes,
    record: BootRecord | None = None,
    *,
    store: StoreApp | None = None,
    came_from: str | None = None,
    hub_url: str | None = None,
    record_refused: str | None = None,
) -> EggReport:
    """The report of the egg at hand: RAPP/1's checks; for an egg no boot record promises that
    fails RAPP/1's container rules and names a legacy schema, the legacy checks instead (with
    the promises of its ``store`` record; ``came_from``: where it was read). Raises OSError."""
    with EggSource.of(egg) as source:
        report = verify_egg(source, record, hub_url=hub_url, record_refused=record_refused)
        failure = report.first_failure
        if record is None and failure is not None and failure[1].id in CONTAINER_CHECKS:
            schema = recognise(source)
            if schema is not None:
                return legacy_report(source, schema, store, came_from)
        return report


def check_local(
    egg: Path | bytes,
    record: BootRecord | StoreApp | None = None,
    *,
    hub_url: str | None = None,
    record_refused: str | None = None,
    came_from: str | None = None,
) -> EggOutcome:
    """Judge the egg at hand, on the calling thread (the pipeline's worker)."""
    store = record if isinstance(record, StoreApp) else None
    boot = record if isinstance(record, BootRecord) else None
    try:
        report = judge(egg, boot, store=store, came_from=came_from, hub_url=hub_url,
                       record_refused=record_refused)  # fmt: skip
    except OSError as exc:
        return EggOutcome(None, error=f"{egg!s}: cannot be read ({exc.strerror or exc})")
    return EggOutcome(report, egg)


def _cached(record: BootRecord, hub_url: str | None, cache: EggCache) -> EggOutcome | None:
    """The record's egg from the cache, judged (it is hashed once, by the verification); None
    when it is not there, or was damaged (then it is removed: its sha256 is not its name)."""
    egg = record.egg
    try:
        path = cache.path_for(egg.sha256)
        if path.stat().st_size != egg.bytes:
            return None
    except (OSError, ValueError):  # absent, or not a sha256: nothing is cached under it
        return None
    outcome = check_local(path, record, hub_url=hub_url)
    if outcome.report is None or outcome.report.sha256 != egg.sha256:
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    return EggOutcome(outcome.report, path, from_cache=True)


async def check_egg(
    source: Path | bytes | str | None,
    record: BootRecord | StoreApp | None = None,
    *,
    hub_url: str | None = None,
    downloads: Downloads | None = None,
    download: bool = True,
    progress: Progress | None = None,
    record_refused: str | None = None,
    mirror: str | None = None,
) -> EggOutcome:
    """Judge one egg: ``source`` is the egg at hand (a path or bytes), a URL to download it
    from (no record: capped at :data:`URL_CAP`), or None for ``record``'s egg (from the cache,
    else downloaded from the URL the record names when it is the hub's). ``download=False``:
    a cached copy only. ``hub_url``: where the record's ``egg.url`` must point (None: the
    record's own hub); ``mirror``: a copy of that hub the egg is downloaded from."""
    if isinstance(source, (Path, bytes)):
        return await asyncio.to_thread(
            check_local, source, record, hub_url=hub_url, record_refused=record_refused
        )
    if source is None and isinstance(record, StoreApp):
        return await _store_egg(record, downloads, download, progress)
    if downloads is None:
        raise ValueError("an egg that is not at hand needs somewhere to download it from")
    if source is None:
        if not isinstance(record, BootRecord):
            raise ValueError("no egg and no record that promises one")
        cached = await asyncio.to_thread(_cached, record, hub_url, downloads.cache)
        if cached is not None or not download:
            return cached or EggOutcome(None)
    try:
        if source is None:
            assert isinstance(record, BootRecord)
            found = await download_egg(
                record.egg, hub_url, client=downloads.client, cache=downloads.cache,
                progress=progress, options=downloads.options, mirror=mirror,
            )  # fmt: skip
        else:
            found = await download_url(
                source, client=downloads.client, cache=downloads.cache, cap=URL_CAP,
                progress=progress, options=downloads.options,
            )  # fmt: skip
    except DownloadRefused as exc:
        boot = record if isinstance(record, BootRecord) else None
        return EggOutcome(refusal_report(boot, hub_url, exc), error=exc.detail)
    except (HubUnreachable, CacheUnwritable) as exc:
        return EggOutcome(None, error=exc.detail)
    outcome = await asyncio.to_thread(check_local, found.path, record, hub_url=hub_url)
    return EggOutcome(outcome.report, outcome.egg, outcome.error, from_cache=found.from_cache)


async def _store_egg(
    app: StoreApp, downloads: Downloads | None, download: bool, progress: Progress | None
) -> EggOutcome:
    """A store's egg: from the mirror beside a file index, else downloaded only from the URL
    the store names, on its origin, stopped past its ``egg_bytes``."""
    if app.local_egg is not None:
        mirror = f"{app.local_egg} (the store's copy of {app.egg_url})"
        return await asyncio.to_thread(check_local, Path(app.local_egg), app, came_from=mirror)
    if app.egg_url is None:
        return EggOutcome(None, error=app.url_problem())
    problem = app.url_problem()
    if problem is not None:
        return EggOutcome(store_refusal("store.url", problem), error=problem)
    if not download or downloads is None:
        return EggOutcome(None)
    cap = app.egg_bytes if app.egg_bytes is not None else EGG_CAP
    try:
        found = await download_url(
            app.egg_url, client=downloads.client, cache=downloads.cache, cap=cap,
            progress=progress, options=downloads.options,
        )  # fmt: skip
    except DownloadRefused as exc:
        return EggOutcome(store_refusal("store.size", exc.detail), error=exc.detail)
    except (HubUnreachable, CacheUnwritable) as exc:
        return EggOutcome(None, error=exc.detail)
    outcome = await asyncio.to_thread(check_local, found.path, app, came_from=app.egg_url)
    return EggOutcome(outcome.report, outcome.egg, outcome.error, from_cache=found.from_cache)
