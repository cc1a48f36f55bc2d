"""One refresher, many readers: what a refresher tells the stores that follow it, and the
follower store itself (ARCHITECTURE.md, serving over SSH).

`roost serve-ssh` refreshes the state once per cycle for all its sessions: one :class:`Store`
in the server fetches, verifies and validates, and writes every good copy to the disk cache
(as any store does). After each cycle it sends each session one :class:`Cycle` line over a
socket the session inherited: every file's hash and integrity, the store's status, the cycle's
problems. A session's store is a :class:`FollowerStore`: it makes no request for state files
at all; a file whose hash moved is read from the shared disk cache (its bytes checked against
their recorded hash) and validated, its status bar shows the refresher's status (online,
offline, backing off) as its own. What a session asks for travels the other way, one line
each: files it wants read (:class:`Want`), a cycle now (:class:`RefreshNow`).

Messages are whole, not deltas: a reader that missed some (a frozen session whose socket was
full gets only the newest) is right again with the next one. Lines are capped both ways.

This module is part of the headless core: it never imports Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from datetime import datetime
from typing import Any

import msgspec
from msgspec.structs import replace

from tui.network.disk_cache import CachedFile
from tui.network.keyed import apply_delta
from tui.network.models import StateValidationError
from tui.network.problem_text import parse_time, validation_detail
from tui.network.snapshot import (
    FileState,
    Integrity,
    Problem,
    RefreshReport,
    Snapshot,
    StoreStatus,
)
from tui.network.state_files import OPTIONAL_FILES, STATE_FILE_NAMES
from tui.network.store import Store

__all__ = [
    "FEED_LINE_CAP",
    "Cycle",
    "FeedDelta",
    "FeedFile",
    "FollowerStore",
    "RefreshNow",
    "Want",
    "cycle_of",
    "decode_request",
    "encode",
    "known_files",
]

#: The longest line either side reads; a longer one ends the feed (a cycle is a few KB).
FEED_LINE_CAP = 1 << 20
REFRESHER_GONE = "the server's refresher is gone: this session shows the copies it has"


class FeedFile(msgspec.Struct, frozen=True):
    """One file as the refresher holds it (no model: the follower reads the bytes itself)."""

    sha256: str | None = None
    integrity: Integrity = "missing"
    fetched_at: datetime | None = None
    checked_at: datetime | None = None
    problem: Problem | None = None


class FeedDelta(msgspec.Struct, frozen=True):
    """A big keyed file's change as entries (tui/network/keyed.py: ``delta_of``): a reader
    holding the copy ``base`` makes the new one from them, reading nothing."""

    base: str
    size: int
    changed: dict[str, str]
    removed: list[str]
    rest: str  # the other members, as JSON


class Cycle(msgspec.Struct, frozen=True, tag="cycle"):
    """Refresher → session: the state after a cycle (or as it is when a session starts)."""

    cycle: int
    status: StoreStatus
    files: dict[str, FeedFile]
    online: bool = True
    problems: list[Problem] = msgspec.field(default_factory=list)
    notes: list[str] = msgspec.field(default_factory=list)
    interval_s: float = 60.0
    deltas: dict[str, FeedDelta] = msgspec.field(default_factory=dict)


class Want(msgspec.Struct, frozen=True, tag="want"):
    """Session → refresher: read these files too (the conversation's, the pulse's)."""

    names: list[str]


class RefreshNow(msgspec.Struct, frozen=True, tag="refresh"):
    """Session → refresher: a cycle now (`r`); ``force``: without validators (`R`)."""

    force: bool = False


_encoder = msgspec.json.Encoder()
_cycles = msgspec.json.Decoder(Cycle)
_requests = msgspec.json.Decoder(Want | RefreshNow)


def encode(message: Cycle | Want | RefreshNow) -> bytes:
    """One line (JSON never holds a raw newline)."""
    return _encoder.encode(message) + b"\n"


def decode_request(line: bytes) -> Want | RefreshNow:
    """A session's line, or ``msgspec.ValidationError`` / ``DecodeError``."""
    return _requests.decode(line)


def known_files(names: list[str]) -> tuple[str, ...]:
    """Of ``names``, the state files roost knows (a session never names anything else)."""
    known = set(STATE_FILE_NAMES) | set(OPTIONAL_FILES)
    return tuple(name for name in dict.fromkeys(names) if name in known)


def cycle_of(store: Store, report: RefreshReport | None) -> Cycle:
    """What ``store`` holds now, as the refresher tells its followers."""
    files = {
        name: FeedFile(
            state.sha256 if state.loaded else None,
            state.integrity,
            state.fetched_at,
            state.checked_at,
            state.problem,
        )
        for name, state in store.snapshot.files.items()
    }
    return Cycle(
        cycle=report.cycle if report is not None else 0,
        status=store.status,
        files=files,
        online=report.online if report is not None else True,
        problems=list(report.problems) if report is not None else [],
        notes=list(report.notes) if report is not None else [],
        interval_s=store.options.interval_s,
    )


class FollowerStore(Store):
    """A store that follows a refresher: the same snapshot, status and listeners as a
    :class:`Store`, but no request for state files ever (ARCHITECTURE.md, serving over SSH).

    ``feed``: the socket the refresher talks on (an inherited descriptor, or a socket). Its
    cycles come in :meth:`run`; :meth:`request_refresh` and :meth:`want` are asked of the
    refresher. A follower needs the disk cache the refresher writes to.
    """

    def __init__(self, read_url: str, *, feed: int | socket.socket, **kwargs: Any) -> None:
        super().__init__(read_url, **kwargs)
        if self.cache is None:
            raise ValueError("a follower reads the refresher's disk cache: it needs one")
        self._feed = feed if isinstance(feed, socket.socket) else socket.socket(fileno=feed)
        self._feed.setblocking(False)
        self._writer: asyncio.StreamWriter | None = None
        self._latest: Cycle | None = None
        self._applied: Cycle | None = None
        self._adopted = False  # the snapshot came from a zygote: load_cache reads nothing
        self.followed = -1  # the refresher's number of the last cycle taken (0: its start)

    # ------------------------------------------------------------------ a zygote's copy

    def adopt(self, other: Store) -> bool:
        """Start from ``other``'s snapshot instead of reading the disk cache: the zygote's,
        read before it forked this session (tui/ssh/zygote_main.py). Taken only from a store
        of the same service on the same cache folder that holds something; True if it was."""
        same = (
            other.base_url == self.base_url
            and other.cache is not None
            and self.cache is not None
            and other.cache.folder == self.cache.folder
        )
        if not same or not other.snapshot.any_loaded:
            return False
        self._snapshot = other.snapshot
        self._keyed = dict(other._keyed)
        self._etags = dict(other._etags)
        self.status = other.status
        self._adopted = True
        return True

    def load_cache(self) -> Snapshot:
        """The adopted snapshot as it is (once), else the disk cache's copies."""
        if self._adopted:
            self._adopted = False
            return self._snapshot
        return super().load_cache()

    async def follow_line(self, line: bytes) -> bool:
        """Take one line its owner read from the feed (a zygote reads it without :meth:`run`):
        a cycle not yet applied is applied now. True if one was."""
        with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
            self._latest = _cycles.decode(line)
        if self._latest is None or self._latest is self._applied:
            return False
        await self.refresh()
        return True

    # ------------------------------------------------------------------ asked of the refresher

    def _tell(self, message: Want | RefreshNow) -> None:
        if self._writer is not None and not self._writer.is_closing():
            self._writer.write(encode(message))  # small; the refresher reads them at once

    def request_refresh(self, *, force: bool = False) -> None:
        """`r` / `R`: the refresher runs a cycle for every session (it paces such requests)."""
        self._tell(RefreshNow(force))
        super().request_refresh(force=force)  # what has arrived is applied now, even if paused

    async def want(self, *names: str) -> frozenset[str]:
        new = [name for name in names if name not in self.file_names]
        loaded = await super().want(*names)
        if new:
            self._tell(Want(new))
            # the refresher may hold them already: the latest cycle is taken again for them
            self._applied = None
            self._now_requested = True
            self._wake.set()
        return loaded

    def set_interval(self, seconds: float) -> None:
        """The refresher's interval is the server's: a session cannot change it."""
        self._wake.set()

    # ------------------------------------------------------------------ the loop

    async def run(self, *, cycles: int | None = None, rng: Any = None) -> None:
        """Apply every cycle the refresher sends (while paused, only on request) until it is
        gone; then the status says so and the copies on view stay."""
        reader, self._writer = await asyncio.open_connection(sock=self._feed, limit=FEED_LINE_CAP)
        self._tell(Want(list(self.file_names)))
        done = 0
        incoming = asyncio.ensure_future(reader.readline())
        try:
            while cycles is None or done < cycles:
                woken = asyncio.ensure_future(self._wake.wait())
                await asyncio.wait({incoming, woken}, return_when=asyncio.FIRST_COMPLETED)
                woken.cancel()
                self._wake.clear()
                if incoming.done():
                    line = self._line(incoming)
                    if line is None:
                        self._gone()
                        return
                    with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
                        self._latest = _cycles.decode(line)
                    incoming = asyncio.ensure_future(reader.readline())
                if self._latest is None or self._latest is self._applied:
                    continue
                if self.paused and not self._now_requested:
                    continue
                self._now_requested = False
                await self.refresh()
                done += 1
        finally:
            incoming.cancel()

    @staticmethod
    def _line(incoming: asyncio.Future[bytes]) -> bytes | None:
        try:
            line = incoming.result()
        except (ValueError, OSError, asyncio.IncompleteReadError):  # too long, or gone
            return None
        return line or None

    def _gone(self) -> None:
        self.status = replace(self.status, state="failed", loop_error=REFRESHER_GONE)
        self._tell_listeners(RefreshReport(cycle=self._cycle, started_at=self.clock()))

    async def aclose(self) -> None:
        if self._writer is not None:
            self._writer.close()
        else:
            self._feed.close()
        await super().aclose()

    # ------------------------------------------------------------------ one cycle

    async def refresh(self, *, force: bool = False) -> RefreshReport:
        """Take the refresher's latest cycle: files whose hash moved are read from the disk
        cache and validated (in a thread); no request is made."""
        async with self._lock:
            self._cycle += 1
            cycle = self._latest
            report = RefreshReport(cycle=self._cycle, started_at=self.clock(), forced=force)
            started = time.perf_counter()
            try:
                if cycle is not None:
                    await self._follow(cycle, report)
            finally:
                report.duration_s = time.perf_counter() - started
                self._applied = cycle
                if cycle is not None:
                    self.followed = cycle.cycle
                    self.status = cycle.status
                    self.options = replace(self.options, interval_s=cycle.interval_s)
                self._tell_listeners(report)
            return report

    async def _follow(self, cycle: Cycle, report: RefreshReport) -> None:
        report.online = cycle.online
        report.problems.extend(cycle.problems)
        report.notes.extend(cycle.notes)
        report.manifest = "followed"
        updates: dict[str, FileState] = {}
        for name in self.file_names:
            told = cycle.files.get(name)
            if told is None:  # not read by the refresher yet (just wanted)
                continue
            report.checked.append(name)
            current = self._snapshot.file(name)
            if told.sha256 is not None and told.sha256 != current.sha256:
                state = self._from_delta(name, told, cycle.deltas.get(name), current)
                if state is None:
                    state = await asyncio.to_thread(self._read_shared, name, told)
                if state is not None:
                    updates[name] = state
                    report.fetched.append(name)
                    continue
                # the cache did not give the refresher's copy: ours is not the service's
                missed = Problem(name, "cache", "the server's new copy is not in its cache")
                shown = replace(
                    current, integrity="error" if current.loaded else "missing", problem=missed
                )
            else:
                shown = replace(
                    current,
                    integrity=told.integrity,
                    checked_at=told.checked_at,
                    problem=told.problem,
                )
            if shown != current:
                updates[name] = shown
            else:
                report.unchanged.append(name)
        if updates:
            self._commit(updates, report)

    def _from_delta(
        self, name: str, told: FeedFile, delta: FeedDelta | None, current: FileState
    ) -> FileState | None:
        """The new copy of a big keyed file made from the entries that changed, when the
        refresher sent them for the copy this store holds; else None (read from the cache)."""
        keyed = self._keyed.get(name)
        if delta is None or keyed is None or not current.loaded or delta.base != current.sha256:
            return None
        made = apply_delta(name, keyed, delta.changed, delta.removed, delta.rest)
        if made is None:
            return None
        model, self._keyed[name] = made
        return FileState(
            name,
            model=model,
            sha256=told.sha256,
            size=delta.size,
            integrity=told.integrity,
            fetched_at=told.fetched_at,
            checked_at=told.checked_at,
            problem=told.problem,
        )

    def _read_shared(self, name: str, told: FeedFile) -> FileState | None:
        """The refresher's copy of ``name`` from the disk cache, validated; None when the cache
        has no intact copy (the refresher's next cycle says more)."""
        assert self.cache is not None
        cached: CachedFile | None = self._load_cached(name)
        self._take_cache_damage()
        if cached is None:
            return None
        meta = cached.meta
        try:
            model, keyed = self._parse(name, cached.body, self._keyed.get(name))
        except StateValidationError as exc:
            problem = Problem(name, "invalid", validation_detail(exc))
            return replace(self._snapshot.file(name), integrity="invalid", problem=problem)
        if keyed is None:
            self._keyed.pop(name, None)
        else:
            self._keyed[name] = keyed
        # a copy newer than the cycle's (the refresher wrote again meanwhile) is its own word
        integrity: Integrity = told.integrity
        if meta.sha256 != told.sha256 or integrity not in ("verified", "unverified", "cached"):
            integrity = "verified" if meta.verified else "unverified"
        return FileState(
            name,
            model=model,
            sha256=meta.sha256,
            size=meta.size,
            integrity=integrity,
            fetched_at=parse_time(meta.fetched_at),
            checked_at=told.checked_at,
            problem=told.problem if meta.sha256 == told.sha256 else None,
        )

    def _persist(self, updates: dict[str, FileState], history_changed: bool, report: Any) -> None:
        """Nothing: the refresher keeps the disk cache, its followers only read it."""
        self._pending_bodies = {}

    def _tell_listeners(self, report: RefreshReport) -> None:
        self.last_report = report
        for listener in list(self._listeners):
            listener(self._snapshot, report)
