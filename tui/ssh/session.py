"""One SSH session: a PTY request, the dashboard's child process, and the bytes between them
(ARCHITECTURE.md, serving over SSH).

Refused with a one-line reason on the client's stderr and exit status 1: a command (``exec``),
a subsystem (``sftp``…), a session without a PTY, and one past the server's caps. Otherwise the
dashboard starts on a PTY of the requested size and the session relays raw bytes both ways.

Bounds: output is read from the PTY only while the channel accepts more (``pause_writing`` stops
the reading, so a slow client holds back the child, not the server's memory) and a client that
reads nothing for ``stall_s`` is ended; input waits in a small buffer while the child is not
reading, and the channel stops reading from the client meanwhile. The session ends after
``idle_s`` without a key from the person (the dashboard repaints its clock every second, so
output is no sign of life), after ``max_session_s`` in all, when the client vanishes, or when
the server stops; the dashboard is warned ``warn_s`` before the first two.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import asyncssh

from tui.ssh.child import DEFAULT_SIZE, Child, ChildLimits, clamp_size
from tui.ssh.mode import FEED_VAR
from tui.untrusted import clean_line

if TYPE_CHECKING:
    from tui.ssh.auth import Identity

__all__ = ["Refusal", "SessionLimits", "SessionLink", "SessionOwner", "SSHSession", "span"]

READ_CHUNK = 64 * 1024
INPUT_LIMIT = 64 * 1024  # bytes from the client waiting for the child before reading pauses
#: Terminal modes a killed dashboard could leave on: mouse reporting, bracketed paste, focus
#: events, the kitty keyboard protocol, the alternate screen, a hidden cursor.
TERMINAL_RESET = (
    b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?2004l\x1b[?1004l"
    b"\x1b[<u\x1b[?1049l\x1b[?25h\x1b[0m"
)

#: How a session ended, as the log line and the client's last line say it.
ENDINGS = {
    "quit": "",
    "idle": "ended after {idle} without a key",
    "max-session": "ended: the session reached its time limit ({max})",
    "client-gone": "",
    "server-stopping": "ended: the server is stopping",
    "stalled": "ended: the client stopped reading",
    "child-failed": "the dashboard could not start",
}


@dataclass(frozen=True)
class Refusal:
    """Why a session may not run: ``reason``, a short fixed name (the log counts refusals by
    address and reason), and ``text``, the line the client is told."""

    reason: str
    text: str


EXEC_REFUSED = Refusal(
    "exec", "commands are not run here: this server only shows the roost dashboard"
)
NO_PTY = Refusal("no-pty", "needs a terminal: connect with a PTY (ssh -t, not ssh -T)")


@dataclass(frozen=True)
class SessionLimits:
    idle_s: float = 900.0  # 0: no idle timeout
    max_session_s: float = 14400.0  # 0: no limit
    stop_grace_s: float = 5.0
    #: Bytes queued for the client before reading the PTY pauses, and how long a client may
    #: leave it paused (reading nothing) before the session ends.
    output_buffer: int = 256 * 1024
    stall_s: float = 60.0
    child: ChildLimits = field(default_factory=ChildLimits)

    @property
    def warn_s(self) -> int:
        """How long before an idle or time-limit end the dashboard is warned."""
        spans = [s / 2 for s in (self.idle_s, self.max_session_s) if s > 0]
        return max(1, int(min([60.0, *spans])))


class SessionOwner(Protocol):
    """What a session needs from its server (``tui.ssh.server.SSHServe``)."""

    limits: SessionLimits
    command: list[str] | None  # what runs on the PTY (None: the dashboard)

    def admit(self, session: SSHSession) -> Refusal | None:
        """None to let the session start (it is counted from then), or why it may not."""

    def environment(self, session: SSHSession) -> tuple[dict[str, str], Path]:
        """The child's environment and working folder."""

    def finished(self, session: SSHSession) -> None:
        """The session is over (refused, or its dashboard reaped): log it, stop counting it."""

    def open_feed(self, session: SSHSession) -> int | None:
        """The descriptor of the session's feed from the server's refresher, for its dashboard
        to inherit (the session closes it once the dashboard runs); None: no refresher."""

    async def start_child(
        self, session: SSHSession, env: dict[str, str], cwd: Path, feed: int | None
    ) -> Child:
        """The session's dashboard, started on a PTY of its own (forked by the zygote, or
        spawned); raises when it cannot start."""


class SessionLink(Protocol):
    """The connection a session is on (``tui.ssh.server``)."""

    def session_changed(self) -> None:
        """A session on it started, ended, or closed its channel."""


def span(seconds: float) -> str:
    """``30 s``, ``15 min``, ``4 h``: a limit as the log and the client are told it."""
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds / 3600:g} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


class SSHSession(asyncssh.SSHServerSession):
    """A session channel, bytes in and out (the server runs with ``encoding=None``)."""

    def __init__(
        self,
        owner: SessionOwner,
        identity: Identity,
        address: str,
        port: int,
        link: SessionLink | None = None,
    ):
        self.owner = owner
        self.link = link
        self.identity = identity
        self.address = address
        self.port = port
        self.limits = owner.limits
        self.chan: asyncssh.SSHServerChannel | None = None
        self.term_type: str | None = None
        self.size = DEFAULT_SIZE
        self.child: Child | None = None
        self.ending: str | None = None  # why the server is ending it (None: the dashboard quit)
        self.exit_status: int | None = None
        self.refused: Refusal | None = None
        self.failure = ""  # why the dashboard could not start, for the log
        self.channel_closed = False
        self.started_at = time.monotonic()
        self.ended_at: float | None = None
        self.task: asyncio.Task[None] | None = None
        self._refusal: Refusal | None = None
        self._open = False  # the channel can still be written to
        self._last_key = time.monotonic()
        self._idle_warned = False
        self._pending = bytearray()  # from the client, not yet taken by the child
        self._writer_on = False
        self._reader_on = False
        self._output_done = asyncio.Event()
        self._stall: asyncio.TimerHandle | None = None
        self._discard = False  # the client gets no more of the dashboard's output
        self._stopping: asyncio.Task[int] | None = None
        self._killed = False

    # ------------------------------------------------------------------ asyncssh callbacks

    def connection_made(self, chan: Any) -> None:
        self.chan = chan
        self._open = True
        chan.set_write_buffer_limits(self.limits.output_buffer)

    def pty_requested(self, term_type: str, term_size: Any, term_modes: Any) -> bool:
        self.term_type = term_type
        self.size = clamp_size(term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self._refusal = EXEC_REFUSED
        return True  # refused once the session starts, where the reason can be written

    def subsystem_requested(self, subsystem: str) -> bool:
        self._refusal = Refusal(
            "subsystem",
            f"no {clean_line(subsystem, 20)} subsystem here: "
            "this server only shows the roost dashboard",
        )
        return True

    def session_started(self) -> None:
        reason = self._refusal
        if reason is None and self.term_type is None:
            reason = NO_PTY
        if reason is None:
            reason = self.owner.admit(self)
        if reason is not None:
            self._refuse(reason)
            return
        self._changed()
        self.task = asyncio.get_running_loop().create_task(self._run())

    def data_received(self, data: bytes, datatype: Any) -> None:
        self._last_key = time.monotonic()
        self._idle_warned = False
        if datatype is not None:
            return
        self._pending += data
        self._feed_child()

    def eof_received(self) -> bool:
        return True  # the client closed its input: keep the session (the screen still shows)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self._last_key = time.monotonic()
        self._idle_warned = False
        self.size = clamp_size(width, height)
        if self.child is not None and self.child.running:
            self.child.resize(*self.size)

    def break_received(self, msec: int) -> bool:
        return False

    def signal_received(self, name: str) -> None:
        return None  # a client does not signal the dashboard

    def pause_writing(self) -> None:
        if self._discard:
            return
        self._stop_reading()
        if self._stall is None:
            loop = asyncio.get_running_loop()
            self._stall = loop.call_later(self.limits.stall_s, self.end, "stalled")

    def resume_writing(self) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        self._start_reading()

    def connection_lost(self, exc: BaseException | None) -> None:
        self._open = False
        self.channel_closed = True
        self._changed()
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        self.end("client-gone")

    # ------------------------------------------------------------------ the session's life

    def end(self, why: str) -> None:
        """End the session for ``why`` (see ENDINGS): the dashboard is stopped and reaped."""
        if self.ending is None and self.exit_status is None:
            self.ending = why
        if why in ("client-gone", "stalled"):
            # no one reads it: keep draining the PTY into nothing, so that the dashboard is
            # never stuck writing while it quits
            self._discard = True
            self._start_reading()
        child = self.child
        if child is not None and child.running and self._stopping is None:
            loop = asyncio.get_running_loop()
            self._stopping = loop.create_task(child.stop(self.limits.stop_grace_s))

    def kill(self) -> None:
        """End it now: the dashboard is killed, not asked to quit (the server was told twice)."""
        self._killed = True
        self.end(self.ending or "server-stopping")
        if self.child is not None and self.child.running:
            self.child.signal_group(signal.SIGKILL)

    def _refuse(self, reason: Refusal) -> None:
        self.refused = reason
        self.ended_at = time.monotonic()
        if self.chan is not None and self._open:
            self.chan.write_stderr(f"roost: {reason.text}\r\n".encode())
            self.chan.exit(1)
        self._finish()

    def _finish(self) -> None:
        self.owner.finished(self)
        self._changed()

    def _changed(self) -> None:
        if self.link is not None:
            self.link.session_changed()

    async def _run(self) -> None:
        try:
            env, home = self.owner.environment(self)
            feed = self.owner.open_feed(self)
            if feed is not None:
                env[FEED_VAR] = str(feed)
            try:
                self.child = await self.owner.start_child(self, env, home, feed)
            finally:
                if feed is not None:
                    os.close(feed)  # the dashboard's copy only
        except Exception as exc:  # logged, never raised into asyncssh; the client is told less
            self.ending = "child-failed"
            self.failure = clean_line(str(exc), 300) or type(exc).__name__
            self.exit_status = 1
            self.ended_at = time.monotonic()
            if self._open and self.chan is not None:
                self.chan.write_stderr(
                    b"roost: could not start the dashboard (the server's log says why)\r\n"
                )
                self.chan.exit(1)
            self._finish()
            return
        child = self.child
        try:
            if self._killed:
                self.kill()
            elif self.ending is not None:  # the client left or the server stopped meanwhile
                self.end(self.ending)
            self._start_reading()
            self._feed_child()
            clock = asyncio.get_running_loop().create_task(self._watch_clock())
            try:
                code = await child.wait()
            finally:
                clock.cancel()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._output_done.wait(), 2.0)
        finally:
            self._stop_reading()
            self._stop_writing()
            child.close()
            if self._stopping is not None:
                await asyncio.gather(self._stopping, return_exceptions=True)
        self.exit_status = code
        self.ended_at = time.monotonic()
        self._say_goodbye(code)
        self._finish()

    def _say_goodbye(self, code: int) -> None:
        if not self._open or self.chan is None:
            return
        if self.ending is not None:
            if self.ending != "quit":
                self.chan.write(TERMINAL_RESET)  # the dashboard may not have restored it
            message = self.ending_text()
            if message:
                self.chan.write(f"\r\nroost: {message}\r\n".encode())
        self.chan.exit(code if code >= 0 else 1)

    def ending_text(self) -> str:
        template = ENDINGS.get(self.ending or "quit", self.ending or "")
        return template.format(idle=span(self.limits.idle_s), max=span(self.limits.max_session_s))

    async def _watch_clock(self) -> None:
        """The idle timeout and the session's time limit, each warned ``warn_s`` ahead."""
        idle_s, max_s, warn_s = self.limits.idle_s, self.limits.max_session_s, self.limits.warn_s
        warned_limit = False
        child = self.child
        assert child is not None
        while child.running:
            now = time.monotonic()
            waits = [1.0]
            if max_s > 0:
                left = max_s - (now - self.started_at)
                if left <= 0:
                    self.end("max-session")
                    return
                if left <= warn_s and not warned_limit:
                    child.signal(signal.SIGUSR2)
                    warned_limit = True
                waits.append(left if warned_limit else left - warn_s)
            if idle_s > 0:
                left = idle_s - (now - self._last_key)
                if left <= 0:
                    self.end("idle")
                    return
                if left <= warn_s and not self._idle_warned:
                    child.signal(signal.SIGUSR1)
                    self._idle_warned = True
                waits.append(left if self._idle_warned else left - warn_s)
            await asyncio.sleep(max(0.05, min(waits)))

    # ------------------------------------------------------------------ bytes both ways

    def _start_reading(self) -> None:
        child = self.child
        if child is None or child.master < 0 or self._reader_on or self._output_done.is_set():
            return
        asyncio.get_running_loop().add_reader(child.master, self._read_output)
        self._reader_on = True

    def _stop_reading(self) -> None:
        if self._reader_on and self.child is not None and self.child.master >= 0:
            asyncio.get_running_loop().remove_reader(self.child.master)
        self._reader_on = False

    def _read_output(self) -> None:
        child = self.child
        assert child is not None
        try:
            data = os.read(child.master, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:  # EIO: every copy of the PTY's other side is closed
            if exc.errno not in (errno.EIO, errno.EBADF):
                raise
            data = b""
        if not data:
            self._stop_reading()
            self._output_done.set()
            return
        if self._open and self.chan is not None and not self._discard:
            self.chan.write(data)

    def _feed_child(self) -> None:
        """Hand the client's bytes to the child as fast as it takes them, no faster."""
        child = self.child
        if child is None or child.master < 0 or not child.running:
            if len(self._pending) > INPUT_LIMIT:
                del self._pending[INPUT_LIMIT:]  # typed before the dashboard began: the rest
            return
        while self._pending:
            try:
                written = os.write(child.master, self._pending)
            except BlockingIOError:
                break
            except OSError:
                self._pending.clear()
                break
            del self._pending[:written]
        if self._pending and not self._writer_on:
            asyncio.get_running_loop().add_writer(child.master, self._feed_child)
            self._writer_on = True
            if self.chan is not None and self._open:
                self.chan.pause_reading()
        elif not self._pending and self._writer_on:
            self._stop_writing()

    def _stop_writing(self) -> None:
        if self._writer_on:
            if self.child is not None and self.child.master >= 0:
                asyncio.get_running_loop().remove_writer(self.child.master)
            self._writer_on = False
            if self.chan is not None and self._open:
                self.chan.resume_reading()

    # ------------------------------------------------------------------ the log line

    def log_line(self) -> str:
        end = self.ended_at if self.ended_at is not None else time.monotonic()
        who = clean_line(self.identity.username, 32) or "-"
        role = self.identity.role
        if self.identity.fingerprint:
            role += f" {self.identity.fingerprint}"
        if self.term_type is None:
            term, size = "no-pty", "-"
        else:
            term, size = clean_line(self.term_type, 40), f"{self.size[0]}x{self.size[1]}"
        if self.refused is not None:
            how = f"refused: {self.refused.text}"
        else:
            how = self.ending or "quit"
            if self.failure:
                how += f": {self.failure}"
            if self.exit_status is not None:
                how += f" (exit {self.exit_status})"
        return (
            f"session {who}@{self.address}:{self.port} [{role}] term={term} "
            f"size={size} duration={end - self.started_at:.1f}s {how}"
        )
