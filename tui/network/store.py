"""The shared async store: refreshes the state files by manifest hashes (ARCHITECTURE.md, the read side).

``Store.refresh()`` runs one cycle:

1. ``GET manifest-hashes.json`` conditionally (ETag / Last-Modified). 304 and every file's last
   verified hash equal to its manifest hash → nothing else is requested.
2. Each state file whose manifest hash differs from its last verified hash (or that the manifest
   does not list, or every file when there is no manifest) is fetched — conditionally, streamed,
   hashed while read, stopped past a size cap — concurrently, a few at a time.
3. Hash ≠ manifest → one retry after a short delay (the manifest and the files are two uploads
   that race); still wrong → the last good copy stays, the file is marked ``mismatch``.
4. The bytes are validated into the typed models (in a thread: a 50k-agent file takes a while);
   invalid → the last good copy stays, the file is marked ``invalid`` with the JSON path.
5. All changed files are committed as one new immutable :class:`Snapshot`, written to the disk
   cache, and published to subscribers with the cycle's :class:`RefreshReport`.

Nothing here imports Textual: the CLI, the tests and the benchmark drive the same object the TUI
polls from a worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import random
import sys
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypedDict

from msgspec.structs import replace

from tui.clock import utc_now
from tui.network.disk_cache import CachedFile, CachedMeta, DiskCache
from tui.network.fetch import FetchError, FetchResult, OffOrigin, TooLarge, fetch
from tui.network.keyed import Keyed, parse_keyed
from tui.network.models import (
    MANIFEST_FILE,
    ManifestFile,
    StateValidationError,
    parse_manifest,
)
from tui.network.problem_text import (
    describe_bug,
    describe_status,
    fetch_detail,
    parse_time,
    validation_detail,
)
from tui.network.snapshot import (
    FileState,
    Integrity,
    Problem,
    RefreshReport,
    Snapshot,
    StatsPoint,
    StoreOptions,
    StoreStatus,
    backoff_delay,
)
from tui.network.state_files import OPTIONAL_FILES, STATE_FILE_NAMES, STATS
from tui.network.stats_history import STATS_HISTORY_LIMIT, load_history, store_history
from tui.network.urls import layout_candidates, redact_url, state_base_url

if TYPE_CHECKING:
    import httpx

__all__ = [
    "Building",
    "FileState",
    "Integrity",
    "Problem",
    "RefreshReport",
    "Snapshot",
    "StatsPoint",
    "Store",
    "StoreOptions",
    "StoreStatus",
    "backoff_delay",
    "state_base_url",
]

MANIFEST_CAP = 1 << 20  # 1 MiB: the manifest is a few hundred bytes
OFFLINE_KINDS = frozenset({"network", "too-slow"})  # problems that mean "the service is not there"


Listener = Callable[[Snapshot, RefreshReport], None]


# --------------------------------------------------------------------------- the store


#: What an owner hands the store to wrap each long-lived build in, given its size in bytes (None:
#: the disk cache's copies at start): the dashboard's memory policy (tui/ui/speed/gc_policy.py).
Building = Callable[[int | None], AbstractContextManager[object]]


def _as_it_is(size: int | None) -> AbstractContextManager[object]:
    """No memory policy: a build runs as it is."""
    return contextlib.nullcontext()


class RequestLimits(TypedDict):
    """One request's deadline and rate floor (:func:`tui.network.fetch.fetch`'s keywords)."""

    deadline_s: float
    min_rate: float


class Store:
    """Holds the current snapshot of one service and refreshes it."""

    def __init__(
        self,
        read_url: str,
        *,
        client: httpx.AsyncClient | None = None,
        cache: DiskCache | None = None,
        options: StoreOptions | None = None,
        clock: Callable[[], datetime] = utc_now,
        files: Iterable[str] = STATE_FILE_NAMES,
        building: Building | None = None,
    ):
        """``building``: what each long-lived build (a state file's models of ``size`` bytes;
        None: the disk cache's copies at start) runs in. The owner's memory policy
        (tui/ui/speed/gc_policy.py, handed over by :func:`tui.service.connect`); none by default."""
        self._building = building or _as_it_is
        self.read_url = read_url
        self.base_url = state_base_url(read_url)
        self.options = options or StoreOptions()
        # httpx is imported (and the client made) on the first refresh, not at start: it costs
        # imports that the first paint from the disk cache does not need (README, performance)
        self._http: httpx.AsyncClient | None = client
        self._own_client = client is None
        self.cache = cache
        self.clock = clock
        self.file_names = tuple(files)
        self._snapshot = Snapshot(
            MappingProxyType({name: FileState(name) for name in self.file_names})
        )
        self._pending_bodies: dict[str, bytes] = {}  # verified bytes awaiting the cache
        self._keyed: dict[str, Keyed] = {}  # per big keyed file: entries' text and models
        self._rejected: dict[str, str] = {}  # name -> manifest hash of a copy found invalid
        self._etags: dict[str, tuple[str | None, str | None]] = {}  # name -> (etag, last-mod)
        self._cache_problems: list[Problem] = []  # damaged cache entries not yet reported
        self._manifest: ManifestFile | None = None
        self._manifest_validators: tuple[str | None, str | None] = (None, None)
        self._lock = asyncio.Lock()
        # load_cache (a thread) and want (the event loop) may replace the snapshot at once:
        # each takes the latest one and replaces it under this lock
        self._swap = threading.Lock()
        self._wake = asyncio.Event()
        self._now_requested = False  # wake the loop for a cycle (not just to re-read its options)
        self._force_requested = False
        self._layout_checked = False  # whether the read URL was tried as the files' folder
        self.paused = False  # the polling loop waits for request_refresh or resume
        self._listeners: list[Listener] = []
        self._cycle = 0
        self.status = StoreStatus()
        self.last_report: RefreshReport | None = None

    # ------------------------------------------------------------------ public API

    @property
    def snapshot(self) -> Snapshot:
        return self._snapshot

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(snapshot, report)`` after every cycle; returns an unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def request_refresh(self, *, force: bool = False) -> None:
        """Wake the polling loop for a cycle now (`r`); ``force``: ignore validators (`R`)."""
        self._now_requested = True
        self._force_requested = self._force_requested or force
        self._wake.set()

    def pause(self, paused: bool = True) -> None:
        """Stop (or restart) automatic cycles; a requested refresh still runs."""
        self.paused = paused
        self._wake.set()

    def set_interval(self, seconds: float) -> None:
        """Poll every ``seconds`` from now on (floored at ``min_interval_s``)."""
        self.options = replace(self.options, interval_s=max(seconds, self.options.min_interval_s))
        self._wake.set()

    @property
    def busy(self) -> bool:
        """A refresh cycle is under way."""
        return self._lock.locked()

    async def aclose(self) -> None:
        if self._own_client and self._http is not None:
            await self._http.aclose()

    @property
    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            import httpx  # deferred: off the start path

            # redirects are followed by fetch(), and only within the read URL's origin
            self._http = httpx.AsyncClient(timeout=self.options.timeout_s, follow_redirects=False)
        return self._http

    def request_limits(self, size: int | None = None) -> RequestLimits:
        """Deadline and rate floor of one request; a big file gets time for its size."""
        extra = (size or 0) / self.options.deadline_rate if self.options.deadline_rate > 0 else 0
        return RequestLimits(
            deadline_s=self.options.deadline_s + extra, min_rate=self.options.min_rate
        )

    @property
    def unreported_cache_problems(self) -> tuple[Problem, ...]:
        """Damaged cache entries found and dropped, to be reported with the next refresh."""
        return tuple(self._cache_problems)

    def load_cache(self) -> Snapshot:
        """Instant start: the last good copies from disk, marked ``cached`` until confirmed.

        Everything it builds lives until a refresh replaces it: it is built in the owner's
        ``building`` (see ``__init__``) whatever its size.
        """
        if self.cache is None:
            return self._snapshot
        with self._building(None):
            return self._load_cache()

    def _load_cache(self) -> Snapshot:
        cache = self.cache
        assert cache is not None
        files: dict[str, FileState] = {}  # what the cache gives, over the snapshot at the end
        # Prefetched entries come checked; the others are checked in a thread while they are
        # validated (what their checks refuse is read again below, as load() reads it).
        prefetched = [name for name in self.file_names if cache.prefetching(name)]
        unchecked = [
            cached
            for name in self.file_names
            if name not in prefetched and (cached := self._load_cached(name, checked=False))
        ]
        failed_checks = cache.check_in_thread(unchecked) if unchecked else None
        found = [cached for name in prefetched if (cached := self._load_cached(name))]
        found += unchecked
        # Smallest first: the small files' models are built before a big agents.json fills the
        # heap (and before the owner's building, if it freezes, freezes anything with them).
        parsed: dict[str, tuple[CachedFile, tuple[Any, Keyed | None] | BaseException] | None] = {
            cached.name: self._parse_cached(cached)
            for cached in sorted(found, key=lambda cached: len(cached.body))
        }
        for name in failed_checks() if failed_checks is not None else ():
            again = self._load_cached(name)  # read again: a store may have been under way
            parsed[name] = self._parse_cached(again) if again is not None else None
        for name in self.file_names:
            outcome = parsed.get(name)
            state = self._cached_state(*outcome) if outcome is not None else None
            if state is not None:
                files[name] = state
        history = load_history(self.cache) if self.cache is not None else ()
        self._take_cache_damage()
        # over the snapshot as it is now, not as it was when the read began: a file wanted
        # meanwhile (want(), on the event loop) keeps the copy it was given
        with self._swap:
            current = self._snapshot
            self._snapshot = Snapshot(
                MappingProxyType({**current.files, **files}),
                current.generation + 1,
                stats_history=history,
            )
            return self._snapshot

    def _cached_state(
        self, cached: CachedFile, result: tuple[Any, Keyed | None] | BaseException
    ) -> FileState | None:
        """A cached copy's state (``cached`` until the service confirms it); damage dropped."""
        assert self.cache is not None
        name = cached.name
        if isinstance(result, BaseException):
            detail = validation_detail(result) if isinstance(result, StateValidationError) else ""
            self.cache.drop(name, detail or describe_bug(result))
            return None
        model, keyed = result
        if keyed is not None:
            self._keyed[name] = keyed
        self._etags[name] = (cached.meta.etag, cached.meta.last_modified)
        return FileState(
            name,
            model=model,
            sha256=cached.meta.sha256,
            size=cached.meta.size,
            integrity="cached",
            fetched_at=parse_time(cached.meta.fetched_at),
        )

    async def want(self, *names: str) -> frozenset[str]:
        """Read the optional files ``names`` too (the conversation's: big, and wanted only by
        some screens and commands), refreshed like the five from the next cycle on; their disk
        copies are read now, in a thread. Returns the names a cached copy was loaded for (the
        caller tells its screens and asks for a refresh)."""
        new = tuple(name for name in dict.fromkeys(names) if name not in self.file_names)
        if not new:
            return frozenset()
        self.file_names = (*self.file_names, *new)
        loaded: dict[str, FileState] = {}
        if self.cache is not None:
            loaded = await asyncio.to_thread(self._load_wanted, new)
        async with self._lock:
            with self._swap:
                files = dict(self._snapshot.files)
                for name in new:
                    current = files.get(name)
                    if current is None or not current.loaded:  # a refresh may have been quicker
                        files[name] = loaded.get(name) or current or FileState(name)
                self._snapshot = Snapshot(
                    MappingProxyType(files),
                    self._snapshot.generation + 1,
                    self._snapshot.stats_history,
                )
        return frozenset(loaded)

    def _load_wanted(self, names: tuple[str, ...]) -> dict[str, FileState]:
        loaded: dict[str, FileState] = {}
        for name in names:
            cached = self._load_cached(name)
            if cached is None:
                continue
            with self._building(len(cached.body)):
                state = self._cached_state(*self._parse_cached(cached))
            if state is not None:
                loaded[name] = state
        self._take_cache_damage()
        return loaded

    async def refresh(self, *, force: bool = False) -> RefreshReport:
        """One refresh cycle (ARCHITECTURE.md, the read side). Never raises for service trouble: it is in the report.

        ``force``: every file is asked for again without ETag / Last-Modified, whatever the
        manifest says (for a server or proxy whose validators lie).
        """
        if "httpx" not in sys.modules:  # first cycle: import it off the event loop
            await asyncio.to_thread(importlib.import_module, "httpx")
        async with self._lock:
            self._cycle += 1
            report = RefreshReport(cycle=self._cycle, started_at=self.clock(), forced=force)
            if force:
                self._etags.clear()
                self._manifest_validators = (None, None)
                self._rejected.clear()
            started = time.perf_counter()
            try:
                await self._refresh(report)
            except Exception as exc:  # a bug met by some reply: reported, the loop goes on
                report.online = False
                report.problems.append(Problem("refresh", "internal", describe_bug(exc)))
            finally:
                report.duration_s = time.perf_counter() - started
                self._after_cycle(report)
            return report

    async def run(self, *, cycles: int | None = None, rng: random.Random | None = None) -> None:
        """Poll forever (or ``cycles`` times): interval with jitter, backoff on failure."""
        done = 0
        while cycles is None or done < cycles:
            force, self._force_requested = self._force_requested, False
            self._now_requested = False
            try:
                await self.refresh(force=force)
            except Exception as exc:  # e.g. a listener's bug: the loop must not die of it
                failures = self.status.consecutive_failures + 1
                self.status = replace(
                    self.status,
                    state="failed",
                    consecutive_failures=failures,
                    loop_error=describe_bug(exc),
                )
            done += 1
            if cycles is not None and done >= cycles:
                break
            await self._wait_for_next_cycle(rng)

    async def _wait_for_next_cycle(self, rng: random.Random | None) -> None:
        """Until the interval (or backoff) has passed, or a refresh is requested; while paused,
        only a request ends the wait. Pause and interval changes take effect at once."""
        loop = asyncio.get_running_loop()
        since = loop.time()
        options = None
        delay = 0.0
        while not self._now_requested:
            if options is not self.options:
                options = self.options
                delay = backoff_delay(self.status.consecutive_failures, options, rng)
            left = None if self.paused else since + delay - loop.time()
            self.status = replace(self.status, next_delay_s=None if self.paused else delay)
            if left is not None and left <= 0:
                return
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=left)

    # ------------------------------------------------------------------ the cycle

    def _parse(self, name: str, body: bytes, previous: Keyed | None) -> tuple[Any, Keyed | None]:
        """``name``'s models from ``body``, in the owner's ``building`` (a thread runs it)."""
        with self._building(len(body)):
            return parse_keyed(name, body, previous)

    def _parse_cached(
        self, cached: CachedFile
    ) -> tuple[CachedFile, tuple[Any, Keyed | None] | BaseException]:
        """A cached file validated (a big agents.json also leaves what the first refresh
        compares with), or what stopped it: damage on disk is dropped, never fatal."""
        try:
            return cached, parse_keyed(cached.name, cached.body, None)
        except Exception as exc:  # noqa: BLE001
            return cached, exc

    def _load_cached(self, name: str, *, checked: bool = True) -> CachedFile | None:
        """``name``'s entry (:meth:`DiskCache.load`, or ``read_unchecked``); a bug met while
        reading it drops it: the cache is an optimisation, never fatal."""
        cache = self.cache
        assert cache is not None
        try:
            return cache.load(name) if checked else cache.read_unchecked(name)
        except Exception as exc:  # noqa: BLE001
            cache.drop(name, describe_bug(exc))
            return None

    def _take_cache_damage(self) -> None:
        if self.cache is not None:
            self._cache_problems.extend(
                Problem(name, "cache", f"damaged cache entry dropped ({why})")
                for name, why in self.cache.take_damaged()
            )

    async def _refresh(self, report: RefreshReport) -> None:
        self._take_cache_damage()
        report.problems.extend(self._cache_problems)  # each reported once
        self._cache_problems = []
        manifest_ok = await self._refresh_manifest(report)
        if manifest_ok is None:  # the service is unreachable: nothing more to try this cycle
            report.online = False
            return
        to_fetch: list[str] = []
        updates: dict[str, FileState] = {}
        now = self.clock()
        for name in self.file_names:
            report.checked.append(name)
            current = self._snapshot.file(name)
            entry = self._manifest.entry(name) if self._manifest else None
            expected = entry.hash.lower() if entry else None
            if (
                not report.forced
                and expected is not None
                and current.loaded
                and current.sha256 == expected
            ):
                # The bytes we hold are the ones the manifest describes (their hash was computed
                # when they were read, from the wire or from the disk cache): no request needed.
                report.unchanged.append(name)
                if current.integrity != "verified":
                    report.confirmed.append(name)
                    updates[name] = replace(
                        current, integrity="verified", problem=None, checked_at=now
                    )
                continue
            if expected is not None and self._rejected.get(name) == expected:
                # Already downloaded and found invalid; it cannot become valid until it changes.
                if current.problem is not None:
                    report.problems.append(current.problem)
                continue
            to_fetch.append(name)
        if not to_fetch:
            if updates:
                self._commit(updates, report)
            return
        limit = asyncio.Semaphore(max(1, self.options.concurrency))

        async def bounded(name: str) -> tuple[str, FileState | None]:
            async with limit:
                try:
                    return name, await self._refresh_file(name, report)
                except Exception as exc:  # one file's surprise must not sink the others
                    self._pending_bodies.pop(name, None)
                    problem = Problem(name, "internal", describe_bug(exc))
                    return name, self._failed(self._snapshot.file(name), problem, report, "error")

        results = await asyncio.gather(*(bounded(name) for name in to_fetch))
        # fetches finish in any order; the report lists files in the store's order
        report.fetched.sort(key=self.file_names.index)
        updates.update({name: state for name, state in results if state is not None})
        if updates:
            self._commit(updates, report)

    async def _refresh_manifest(self, report: RefreshReport) -> bool | None:
        """True: a manifest is in force; False: no usable manifest; None: service unreachable."""
        etag, last_modified = self._manifest_validators
        if self._manifest is None:
            etag = last_modified = None
        manifest_url = self.base_url + MANIFEST_FILE
        try:
            report.requests += 1
            result = await fetch(
                self._client,
                manifest_url,
                cap=MANIFEST_CAP,
                etag=etag,
                last_modified=last_modified,
                same_origin=True,
                **self.request_limits(),
            )
        except (TooLarge, OffOrigin) as exc:  # there, but not a manifest roost may use
            report.bytes_downloaded += exc.bytes_read
            report.manifest = "invalid" if isinstance(exc, TooLarge) else "error"
            report.problems.append(Problem(MANIFEST_FILE, exc.kind, fetch_detail(exc)))
            self._manifest = None
            return False
        except FetchError as exc:
            report.bytes_downloaded += exc.bytes_read
            report.manifest = "error"
            report.problems.append(Problem(MANIFEST_FILE, exc.kind, fetch_detail(exc)))
            return None
        report.bytes_downloaded += result.bytes_read
        if result.not_modified and self._manifest is not None:
            report.manifest = "not-modified"
            return True
        if result.status == 404 and (moved := await self._try_folder_layout(report)) is not None:
            result, manifest_url = moved
        if result.status == 404:
            report.manifest = "missing"
            detail = f"no manifest (HTTP 404 from {redact_url(manifest_url)}): files are fetched unverified"
            report.problems.append(Problem(MANIFEST_FILE, "missing", detail))
            self._manifest = None
            return False
        if result.status != 200:
            report.manifest = "error"
            report.problems.append(
                Problem(MANIFEST_FILE, "http", describe_status(result, manifest_url))
            )
            if result.status >= 500 or result.status == 429:
                return None
            self._manifest = None
            return False
        try:
            self._manifest = parse_manifest(result.body)
        except StateValidationError as exc:
            report.manifest = "invalid"
            detail = validation_detail(exc) + "; files are fetched unverified"
            report.problems.append(Problem(MANIFEST_FILE, "invalid", detail))
            self._manifest = None
            return False
        self._manifest_validators = (result.etag, result.last_modified)
        report.manifest = "fetched"
        return True

    async def _try_folder_layout(self, report: RefreshReport) -> tuple[FetchResult, str] | None:
        """The manifest is not under ``{read_url}/state/``: try the other layouts a read URL
        may point at (:func:`~tui.network.urls.layout_candidates`: the folder itself, a
        repository without its branch, a repository's web page). The first folder whose
        manifest is valid becomes the base from now on, and the report says which URL to set.
        Tried once, so a service without a manifest is not asked again every cycle."""
        if self._layout_checked:
            return None
        self._layout_checked = True
        tried = self.base_url + MANIFEST_FILE
        for folder in layout_candidates(self.read_url):
            url = folder + MANIFEST_FILE
            try:
                report.requests += 1
                result = await fetch(
                    self._client, url, cap=MANIFEST_CAP, same_origin=True, **self.request_limits()
                )
            except FetchError as exc:
                report.bytes_downloaded += exc.bytes_read
                continue
            report.bytes_downloaded += result.bytes_read
            if result.status != 200:
                continue
            try:
                parse_manifest(result.body)
            except StateValidationError:
                continue
            setting = folder.removesuffix("/").removesuffix("/state") or folder
            report.notes.append(
                f"{redact_url(tried)} is not there (HTTP 404) but {redact_url(url)} is: "
                f"reading the state files from {redact_url(folder)} "
                f"(--read-url {redact_url(setting)} says so at once)"
            )
            self.base_url = folder
            return result, url
        return None

    async def _refresh_file(self, name: str, report: RefreshReport) -> FileState | None:
        """Fetch/verify/validate one file; returns its new FileState, or None if unchanged."""
        current = self._snapshot.file(name)
        entry = self._manifest.entry(name) if self._manifest else None
        expected = entry.hash.lower() if entry else None
        cap = self.options.hard_cap
        if entry is not None and entry.size is not None:
            cap = min(
                cap,
                entry.size
                + max(self.options.size_slack_min, int(entry.size * self.options.size_slack)),
            )
        etag, last_modified = self._etags.get(name, (None, None))
        if current.sha256 is None:
            etag = last_modified = None
        url = self.base_url + name
        started = time.perf_counter()
        now = self.clock()
        try:
            for attempt in range(2):
                try:
                    report.requests += 1
                    result = await fetch(
                        self._client,
                        url,
                        cap=cap,
                        etag=etag,
                        last_modified=last_modified,
                        same_origin=True,
                        **self.request_limits(entry.size if entry is not None else current.size),
                    )
                except FetchError as exc:
                    report.bytes_downloaded += exc.bytes_read
                    return self._failed(
                        current, Problem(name, exc.kind, fetch_detail(exc)), report, "error"
                    )
                report.bytes_downloaded += result.bytes_read
                if result.not_modified:
                    if current.sha256 is None:
                        # nothing was asked conditionally: a 304 here has no copy to point at
                        problem = Problem(name, "http", "HTTP 304 for a file never loaded")
                        return self._failed(current, problem, report, "error")
                    body_hash = current.sha256
                elif result.status == 200:
                    body_hash = result.sha256
                elif result.status == 404 and name in OPTIONAL_FILES:
                    # optional: a deployment that does not publish it is not in trouble
                    if current.integrity == "absent":
                        return None
                    return replace(current, integrity="absent", problem=None, checked_at=now)
                else:
                    kind = "missing" if result.status == 404 else "http"
                    return self._failed(
                        current, Problem(name, kind, describe_status(result, url)), report, "error"
                    )
                if expected is None or body_hash == expected:
                    break
                if attempt == 0:
                    # The manifest and the files are separate uploads: give the other a moment.
                    await asyncio.sleep(self.options.retry_delay_s)
                    etag = last_modified = None  # ask for the bytes themselves this time
                    continue
                detail = f"sha256 {body_hash[:12]}… ≠ manifest {expected[:12]}… (after one retry)"
                return self._failed(current, Problem(name, "mismatch", detail), report, "mismatch")
            integrity: Integrity = "verified" if expected is not None else "unverified"
            if result.not_modified:
                # The bytes we hold are the current ones.
                report.unchanged.append(name)
                if integrity == "unverified":
                    report.problems.append(
                        Problem(name, "unverified", "not listed in the manifest: not verified")
                    )
                if current.integrity == integrity and current.problem is None:
                    return None
                return replace(current, integrity=integrity, checked_at=now, problem=None)
            try:
                # a big agents.json: only the agents whose text changed are validated again
                model, keyed = await asyncio.to_thread(
                    self._parse, name, result.body, self._keyed.get(name)
                )
            except StateValidationError as exc:
                if expected is not None:
                    self._rejected[name] = expected
                problem = Problem(name, "invalid", validation_detail(exc))
                return self._failed(current, problem, report, "invalid")
            self._rejected.pop(name, None)
            if keyed is None:
                self._keyed.pop(name, None)
            else:
                self._keyed[name] = keyed
            report.fetched.append(name)
            if integrity == "unverified":
                report.problems.append(
                    Problem(name, "unverified", "not listed in the manifest: not verified")
                )
            self._etags[name] = (result.etag, result.last_modified)
            state = FileState(
                name,
                model=model,
                sha256=result.sha256,
                size=len(result.body),
                integrity=integrity,
                fetched_at=now,
                checked_at=now,
            )
            self._pending_bodies[name] = result.body  # written to the cache at commit
            return state
        finally:
            report.durations_s[name] = time.perf_counter() - started

    def _failed(
        self, current: FileState, problem: Problem, report: RefreshReport, integrity: Integrity
    ) -> FileState:
        if integrity in ("mismatch", "invalid"):
            # say "keeping the last good copy" only when there is one
            kept = "keeping the last good copy" if current.loaded else "no good copy yet"
            problem = replace(problem, detail=f"{problem.detail}; {kept}")
        report.problems.append(problem)
        return replace(current, integrity=integrity, problem=problem)

    # ------------------------------------------------------------------ commit

    def _commit(self, updates: dict[str, FileState], report: RefreshReport) -> None:
        with self._swap:  # load_cache, in its thread, may be replacing it at this moment
            old = self._snapshot
            files = dict(old.files)
            changed = []
            for name, state in updates.items():
                if files.get(name) != state:
                    files[name] = state
                    changed.append(name)
            if not changed:
                return
            history = old.stats_history
            stats_state = updates.get(STATS)
            if (
                stats_state is not None
                and stats_state.model is not None
                and stats_state.sha256 != old.file(STATS).sha256
            ):
                point = StatsPoint(
                    at=(stats_state.fetched_at or self.clock()).isoformat(),
                    counters=MappingProxyType(stats_state.model.counters()),
                )
                history = (*history, point)[-STATS_HISTORY_LIMIT:]
            self._snapshot = Snapshot(MappingProxyType(files), old.generation + 1, history)
        report.changed = sorted(changed, key=self.file_names.index)
        self._persist(updates, history is not old.stats_history, report)

    def _persist(
        self, updates: dict[str, FileState], history_changed: bool, report: RefreshReport
    ) -> None:
        bodies, self._pending_bodies = self._pending_bodies, {}
        if self.cache is None:
            return
        for name, body in bodies.items():
            state = updates.get(name)
            if state is None or state.sha256 is None:
                continue
            etag, last_modified = self._etags.get(name, (None, None))
            meta = CachedMeta(
                sha256=state.sha256,
                size=state.size,
                fetched_at=(state.fetched_at or self.clock()).isoformat(),
                verified=state.integrity == "verified",
                etag=etag,
                last_modified=last_modified,
            )
            try:
                self.cache.store(name, body, meta)
            except OSError as exc:  # a read-only or full disk must not stop the dashboard
                report.problems.append(Problem(name, "cache", f"not cached: {exc}"))
        if history_changed:
            with contextlib.suppress(OSError):
                store_history(self.cache, self._snapshot.stats_history)

    def _after_cycle(self, report: RefreshReport) -> None:
        self._pending_bodies = {}
        now = self.clock()
        if report.online and not any(p.kind in OFFLINE_KINDS for p in report.problems):
            self.status = StoreStatus(state="online", last_success=now, last_attempt=now)
        else:
            failures = self.status.consecutive_failures + 1
            error = next((p.detail for p in report.problems), None)
            bug = next((p.detail for p in report.problems if p.kind == "internal"), None)
            self.status = StoreStatus(
                state="failed" if bug else "offline" if failures == 1 else "backing-off",
                last_success=self.status.last_success,
                last_attempt=now,
                consecutive_failures=failures,
                last_error=error,
                loop_error=bug,
            )
        self.last_report = report
        for listener in list(self._listeners):
            listener(self._snapshot, report)
