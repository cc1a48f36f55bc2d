"""One refresher per server: `roost serve-ssh` refreshes the state once for all its sessions
(ARCHITECTURE.md, serving over SSH).

The server holds one :class:`~tui.network.store.Store` (the service's, as `roost` builds it)
and runs its polling loop. Every good copy it takes goes to the disk cache, as always; after
each cycle each session is sent one line (:class:`~tui.network.feed.Cycle`) over a socket pair
made for it, whose other end its dashboard inherits (``ROOST_SSH_FEED_FD``). A session's store
follows (:class:`~tui.network.feed.FollowerStore`): it reads what changed from the cache and
never asks the service for a state file. So a changed file costs one download whatever the
number of sessions.

A session cannot hold the server up: its socket is written without blocking, and while it is
full only the newest cycle waits (each cycle is whole, so a session that missed some is right
with the next). What a session asks (files to read, a cycle now) is read in capped lines, only
known file names are taken, and requested cycles are paced.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from tui.network.feed import (
    FEED_LINE_CAP,
    FeedDelta,
    RefreshNow,
    Want,
    cycle_of,
    decode_request,
    encode,
    known_files,
)
from tui.network.keyed import delta_of
from tui.network.snapshot import RefreshReport, Snapshot
from tui.network.store import Store
from tui.untrusted import clean_line

__all__ = ["FORCE_PACE_S", "Refresher", "SessionFeed"]

#: The least time between two forced cycles (`R`: every file again) asked by sessions.
FORCE_PACE_S = 60.0


class SessionFeed:
    """The server's end of one session's feed: written without ever blocking, read in lines."""

    def __init__(self, sock: socket.socket, on_line: Callable[[SessionFeed, bytes], None]) -> None:
        self.sock = sock
        sock.setblocking(False)
        self._on_line = on_line
        self._loop = asyncio.get_running_loop()
        self._unsent = b""  # the rest of a line the socket did not take at once
        self._newest: bytes | None = None  # the cycle waiting behind it (older ones dropped)
        self._read = bytearray()
        self.closed = False
        self.dropped = 0  # cycles never sent: a newer one replaced them
        self._loop.add_reader(sock, self._readable)

    def send(self, line: bytes) -> None:
        if self.closed:
            return
        if self._unsent:
            self.dropped += self._newest is not None
            self._newest = line
            return
        self._write(line)

    def _write(self, line: bytes) -> None:
        try:
            sent = self.sock.send(line)
        except BlockingIOError:
            sent = 0
        except OSError:  # the session is gone
            self.close()
            return
        if sent < len(line):
            self._unsent = line[sent:]
            self._loop.add_writer(self.sock, self._writable)

    def _writable(self) -> None:
        unsent, self._unsent = self._unsent, b""
        self._loop.remove_writer(self.sock)
        self._write(unsent)
        if not self._unsent and self._newest is not None and not self.closed:
            newest, self._newest = self._newest, None
            self._write(newest)

    def _readable(self) -> None:
        try:
            data = self.sock.recv(1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.close()
            return
        self._read += data
        while (end := self._read.find(b"\n")) >= 0:
            line = bytes(self._read[:end])
            del self._read[: end + 1]
            self._on_line(self, line)
        if len(self._read) > FEED_LINE_CAP:
            self.close()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._loop.remove_reader(self.sock)
        self._loop.remove_writer(self.sock)
        self.sock.close()


class Refresher:
    """The server's one store, its polling loop, and a feed per session."""

    def __init__(self, store: Store, *, log: Callable[[str], None] = print) -> None:
        self.store = store
        self.log = log
        self.feeds: dict[object, SessionFeed] = {}
        self._task: asyncio.Task[None] | None = None
        self._wants: set[asyncio.Task[None]] = set()
        self._asked_at = -1e9  # when a session's request last started a cycle
        self._forced_at = -1e9
        self._line = encode(cycle_of(store, None))
        self._state = store.status.state
        #: Per big keyed file: the hash and entries sessions were last told of.
        self._seen: dict[str, tuple[str, Any]] = {}
        self._unsubscribe = store.subscribe(self._cycled)

    async def start(self) -> None:
        """Take the disk cache's copies (sessions start from them at once), then poll."""
        await asyncio.to_thread(self.store.load_cache)
        self._line = encode(cycle_of(self.store, None))
        self._deltas()  # what the sessions start from
        self._task = asyncio.get_running_loop().create_task(self.store.run(), name="refresher")

    async def stop(self) -> None:
        for feed in list(self.feeds.values()):
            feed.close()
        self.feeds.clear()
        for task in (self._task, *self._wants):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._unsubscribe()
        await self.store.aclose()

    # ------------------------------------------------------------------ sessions

    def open_feed(self, session: object) -> int:
        """A feed for ``session``: the descriptor its dashboard inherits (the caller closes
        it once the dashboard has started). It is told the state at once."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        feed = SessionFeed(ours, self._asked)
        self.feeds[session] = feed
        feed.send(self._line)
        return theirs.detach()

    def close_feed(self, session: object) -> None:
        feed = self.feeds.pop(session, None)
        if feed is not None:
            feed.close()

    def _cycled(self, snapshot: Snapshot, report: RefreshReport) -> None:
        # told once the polling loop has set its next wait: a session's bar counts it down
        asyncio.get_running_loop().call_soon(self._broadcast, report)

    def _broadcast(self, report: RefreshReport) -> None:
        status = self.store.status
        if status.state != self._state:  # the operator hears of each change, once
            self._state = status.state
            self.log(f"refresher: {clean_line(status.describe(), 300)}")
        self._line = encode(replace(cycle_of(self.store, report), deltas=self._deltas()))
        for session, feed in list(self.feeds.items()):
            if feed.closed:
                self.feeds.pop(session, None)
            else:
                feed.send(self._line)

    def _deltas(self) -> dict[str, FeedDelta]:
        """Each big keyed file that changed since the last cycle, as the entries that changed
        (a session holding the last copy then reads nothing: tui/network/keyed.py); the copies
        kept for the next comparison hold no document."""
        deltas: dict[str, FeedDelta] = {}
        seen: dict[str, tuple[str, Any]] = {}
        for name, keyed in self.store._keyed.items():
            state = self.store.snapshot.file(name)
            if not state.loaded or state.sha256 is None:
                continue
            seen[name] = (state.sha256, keyed.models)
            before = self._seen.get(name)
            if before is None or before[0] == state.sha256:
                continue
            found = delta_of(before[1], keyed, state.model)
            if found is not None:
                deltas[name] = FeedDelta(before[0], state.size or 0, *found)
        self._seen = seen
        return deltas

    def _asked(self, feed: SessionFeed, line: bytes) -> None:
        """A session's line: only what a dashboard sends is taken; anything else is ignored."""
        try:
            request = decode_request(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return
        if isinstance(request, Want):
            names = known_files(request.names)
            new = [name for name in names if name not in self.store.file_names]
            if new:
                task = asyncio.get_running_loop().create_task(self._want(new))
                self._wants.add(task)
                task.add_done_callback(self._wants.discard)
            return
        assert isinstance(request, RefreshNow)
        now = time.monotonic()
        if now - self._asked_at < self.store.options.min_interval_s:
            return  # a cycle asked for moments ago serves this session too
        force = request.force and now - self._forced_at >= FORCE_PACE_S
        self._asked_at = now
        if force:
            self._forced_at = now
        self.store.request_refresh(force=force)

    async def _want(self, names: list[str]) -> None:
        await self.store.want(*names)
        self._line = encode(cycle_of(self.store, self.store.last_report))
        self.store.request_refresh()  # read at once, for the session that asked
