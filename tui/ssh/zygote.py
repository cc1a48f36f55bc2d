"""Cheap sessions: the server's side of the zygote (ARCHITECTURE.md, serving over SSH; the
zygote's own program is ``tui.ssh.zygote_main``).

A session's dashboard costs, spawned, a fresh interpreter that imports Textual and the app and
reads and validates the state: most of its start and most of its memory, the same in every
session. The zygote is one process that has done all that once and follows the refresher like
a session; each session's dashboard is forked from it, so it starts with everything in place
and shares those pages with the zygote and the other sessions (copy-on-write) until it writes
to them.

Each session is still a process of its own on a PTY of its own, under its limits, in a session
of its own: the zygote forks a middle process that forks the dashboard and leaves, so the
dashboard is reparented to the server (a *subreaper*, ``PR_SET_CHILD_SUBREAPER``) and the server
waits for it, signals its group and reaps it exactly as a spawned one (``ForkedProcess`` through
a pidfd). Nothing mutable is shared after the fork: a dashboard closes every descriptor but its
PTY and its own feed (the zygote's control socket and feed among them), so it can neither ask
the zygote for anything nor hear another session; a dashboard that freezes or crashes ends
alone, and so does the zygote: sessions already forked run on.

The server notices the zygote's end (its process exits, or a request goes unanswered): it logs
it, starts a new one after a pause that grows with each failure, and spawns sessions as before
meanwhile. After :data:`GIVE_UP_AFTER` failures within :data:`FAILURE_WINDOW_S` it stops
trying and every session is spawned (said once in the log).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from tui.ssh.child import Child, ChildLimits, open_pty
from tui.untrusted import clean_line

__all__ = [
    "FAILURE_WINDOW_S",
    "GIVE_UP_AFTER",
    "ForkedProcess",
    "Zygote",
    "become_subreaper",
    "reap_strays",
]

PR_SET_CHILD_SUBREAPER = 36  # prctl(2)
ANSWER_S = 10.0  # a fork request unanswered this long: the zygote is stuck
READY_S = 300.0  # a zygote not ready this long after its start is stuck in its preload
GIVE_UP_AFTER = 5
FAILURE_WINDOW_S = 600.0
ANSWER_CAP = 4096


def become_subreaper() -> bool:
    """Make this process adopt its orphaned descendants (Linux); True if it did."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def reap_strays(known: set[int]) -> list[int]:
    """Reap this process's children that ended and that nobody waits for (a dashboard orphaned
    while its zygote died between the fork and the answer); their pids."""
    reaped = []
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in known:
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] == "Z" and int(fields[1]) == me:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(int(entry.name), os.WNOHANG)
                reaped.append(int(entry.name))
    return reaped


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):  # gone already
        process.kill()


class ForkedProcess:
    """A dashboard the zygote forked, now this process's child: waited for through a pidfd
    (what :class:`~tui.ssh.child.Child` needs of a process)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._loop = asyncio.get_running_loop()
        self._done: asyncio.Future[int] = self._loop.create_future()
        self._pidfd = os.pidfd_open(pid)
        self._loop.add_reader(self._pidfd, self._exited)

    def _exited(self) -> None:
        try:
            result = os.waitid(os.P_PIDFD, self._pidfd, os.WEXITED | os.WNOHANG)
        except ChildProcessError:  # not ours after all: it is gone, with no status for us
            result = None
        else:
            if result is None:  # not ended yet (a spurious wake)
                return
        self._loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        if result is None:
            code = 255
        elif result.si_code == os.CLD_EXITED:
            code = result.si_status
        else:
            code = -result.si_status
        self.returncode = code
        self._done.set_result(code)

    async def wait(self) -> int:
        return await asyncio.shield(self._done)


class Zygote:
    """The zygote process, started, watched and restarted by the server."""

    def __init__(
        self,
        *,
        env: Mapping[str, str],
        cwd: Path,
        open_feed: Callable[[object], int],
        close_feed: Callable[[object], None],
        log: Callable[[str], None] = print,
        argv: list[str] | None = None,
        pause_s: float = 1.0,
    ) -> None:
        self.env = dict(env)
        self.cwd = cwd
        self.open_feed = open_feed
        self.close_feed = close_feed
        self.log = log
        self.argv = argv or [sys.executable, "-P", "-m", "tui.ssh.zygote_main"]
        self.pause_s = pause_s
        self.process: asyncio.subprocess.Process | None = None
        self.pid: int | None = None  # while ready
        self.ready = False
        self.gave_up = False
        self.forked = 0  # dashboards forked, all zygotes together
        self.starts = 0
        self._control: socket.socket | None = None
        self._lock = asyncio.Lock()  # one request at a time on the control socket
        self._task: asyncio.Task[None] | None = None
        self._failures: list[float] = []
        self._stopping = False
        self._stderr: list[str] = []

    # ------------------------------------------------------------------ its life

    def start(self) -> None:
        """Start the zygote in the background (sessions are spawned until it is ready)."""
        self._task = asyncio.get_running_loop().create_task(self._keep(), name="zygote")

    async def _keep(self) -> None:
        while not self._stopping:
            try:
                code, why = await self._run_once()
            except Exception as exc:  # noqa: BLE001 — logged, then tried again
                code, why = None, f"{type(exc).__name__}: {exc}"
            if self._stopping:
                return
            self._lost(code, why)
            now = time.monotonic()
            self._failures = [t for t in self._failures if now - t < FAILURE_WINDOW_S] + [now]
            if len(self._failures) >= GIVE_UP_AFTER:
                self.gave_up = True
                self.log(
                    f"zygote: failed {len(self._failures)} times in "
                    f"{FAILURE_WINDOW_S / 60:g} min; every session is spawned from now on"
                )
                return
            pause = self.pause_s * 2 ** (len(self._failures) - 1)
            self.log(f"zygote: starting again in {pause:g} s; sessions are spawned meanwhile")
            await asyncio.sleep(pause)

    def _lost(self, code: int | None, why: str) -> None:
        self.ready = False
        self.pid = None
        last = clean_line(self._stderr[-1], 300) if self._stderr else ""
        said = f"exited ({code})" if code is not None else why
        if code is not None and why:
            said = f"{why}: ended ({code})"
        self.log(f"zygote: {said}{f': {last}' if last else ''}")

    async def _run_once(self) -> tuple[int | None, str]:
        """One zygote, from its start until it ends: (its exit status, why)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        feed = self.open_feed(self)
        self._stderr = []
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.argv,
                str(theirs.fileno()),
                str(feed),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
                env=self.env,
                cwd=self.cwd,
                pass_fds=(theirs.fileno(), feed),
                start_new_session=True,  # the server's signals are for the server
            )
        except BaseException:
            ours.close()
            self.close_feed(self)
            raise
        finally:
            theirs.close()
            os.close(feed)
        self.starts += 1
        process = self.process
        ours.setblocking(False)
        self._control = ours
        reader = asyncio.get_running_loop().create_task(self._read_stderr(process))
        try:
            started = time.monotonic()
            answer = await self._receive(ours, timeout=READY_S)
            if answer is None or "ready" not in answer:
                stuck = time.monotonic() - started >= READY_S
                _kill(process)
                return await process.wait(), f"not ready within {READY_S:g} s" if stuck else ""
            self.pid = process.pid
            self.ready = True
            self.log(f"zygote: ready (pid {process.pid}, state read in {answer.get('read_s')} s)")
            return await process.wait(), ""
        finally:
            self.ready = False
            self._control = None
            ours.close()
            self.close_feed(self)
            if process.returncode is None:
                _kill(process)
                await process.wait()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(reader, 2.0)

    async def _read_stderr(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        while line := await process.stderr.readline():
            self._stderr = [*self._stderr[-4:], line.decode("utf-8", "replace").rstrip()]

    async def _receive(self, sock: socket.socket, timeout: float | None) -> dict | None:
        loop = asyncio.get_running_loop()
        try:
            data = await asyncio.wait_for(loop.sock_recv(sock, ANSWER_CAP), timeout)
        except (OSError, TimeoutError):
            return None
        if not data:
            return None
        try:
            answer = json.loads(data)
        except ValueError:
            return None
        return answer if isinstance(answer, dict) else None

    async def stop(self) -> None:
        self._stopping = True
        process = self.process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 5.0)
            if process.returncode is None:
                _kill(process)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    # ------------------------------------------------------------------ a session

    async def start_child(
        self,
        env: Mapping[str, str],
        size: tuple[int, int],
        limits: ChildLimits,
        cwd: Path,
        feed: int,
    ) -> Child | None:
        """A session's dashboard forked by the zygote, or None (not ready, or it failed: the
        caller spawns one instead, and a zygote that failed is replaced)."""
        if not self.ready:
            return None
        async with self._lock:
            control = self._control
            if not self.ready or control is None:
                return None
            master, slave = open_pty(size)
            request = {
                "env": dict(env),
                "cwd": str(cwd),
                "limits": [limits.memory_bytes, limits.open_files, limits.niceness],
            }
            try:
                socket.send_fds(control, [json.dumps(request).encode()], [slave, feed])
                answer = await self._receive(control, ANSWER_S)
            except OSError:
                answer = None
            finally:
                os.close(slave)  # the dashboard's copy only: otherwise the master never sees EOF
            pid = answer.get("pid") if answer is not None else None
            if not isinstance(pid, int):
                os.close(master)
                self._failed(answer)
                return None
        self.forked += 1
        return Child(ForkedProcess(pid), master)

    def _failed(self, answer: dict | None) -> None:
        """A request went wrong: a refusal is logged; no answer ends this zygote (replaced)."""
        if answer is not None:
            self.log(
                f"zygote: could not fork a session: {clean_line(str(answer.get('error')), 300)}"
            )
            return
        self.log("zygote: no answer to a session's request; ending it")
        self.ready = False
        if self.process is not None and self.process.returncode is None:
            _kill(self.process)
