"""Drive `roost serve-ssh` the way its users do: the real command in a process of its own on a
loopback port, asyncssh clients, and what a client's terminal shows (pyte plays the terminal).

Everything waits on a condition with a generous deadline, never a fixed sleep: the suite runs
on a loaded two-core machine.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import asyncssh
import pyte

ROOT = Path(__file__).resolve().parents[1]
START_S = 60.0  # a server's start, a dashboard's first frame: generous on a loaded machine
_LISTENING = re.compile(r"listening on (\S+):(\d+)")
_FINGERPRINT = re.compile(r"host key \S+ (SHA256:\S+)")


def _polls(condition: Callable[[], object], timeout: float, what: str) -> Iterator[object]:
    """``condition``'s value at each poll, falsy until it holds; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        yield value
        if not value and time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or condition}")


def wait_until(condition: Callable[[], object], timeout: float = START_S, what: str = "") -> object:
    """Poll ``condition`` until it is truthy (its value is returned) or fail after ``timeout``."""
    for value in _polls(condition, timeout, what):
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("unreachable")  # pragma: no cover


async def until(
    condition: Callable[[], object], timeout: float = START_S, what: str = ""
) -> object:
    """:func:`wait_until` on the event loop."""
    for value in _polls(condition, timeout, what):
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError("unreachable")  # pragma: no cover


def server_env(home: Path) -> dict[str, str]:
    """A clean environment for the server: its own state, cache, config and data folders."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ROOST_", "GH_", "GITHUB_", "XDG_", "TEXTUAL"))
    }
    env.update(
        {
            "XDG_STATE_HOME": str(home / "state"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "PYTHONPATH": str(ROOT),
        }
    )
    return env


class Server:
    """`roost serve-ssh --port 0 …` in a process of its own; its output lines are collected."""

    def __init__(self, home: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.home = home
        self.args = list(args)
        self.env = env if env is not None else server_env(home)
        self.lines: list[str] = []
        self.process: subprocess.Popen[str] | None = None
        self.port = 0
        self.fingerprint = ""

    def start(self) -> Server:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tui", "serve-ssh", "--port", "0", *self.args],
            env=self.env,
            cwd=self.home,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            # stop() may send it ctrl+c: SIGINT as a terminal gives it, even to a test run
            # started in the background (tests/signals_rig.py)
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        threading.Thread(target=self._collect, daemon=True).start()
        line = self.wait_for_line(_LISTENING.pattern)
        match = _LISTENING.search(line)
        assert match is not None
        self.port = int(match.group(2))
        key_line = self.wait_for_line(_FINGERPRINT.pattern)
        found = _FINGERPRINT.search(key_line)
        assert found is not None
        self.fingerprint = found.group(1)
        return self

    def _collect(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for_line(self, pattern: str, timeout: float = START_S) -> str:
        compiled = re.compile(pattern)

        def found() -> str | None:
            line = next((line for line in self.lines if compiled.search(line)), None)
            if line is None and self.process is not None and self.process.poll() is not None:
                raise AssertionError(f"the server exited: {self.lines}")
            return line

        return str(wait_until(found, timeout, f"a server line matching {pattern!r}"))

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def children(self) -> list[int]:
        """The server's child processes but its zygote: each session's dashboard, zombies
        included."""
        return dashboards_of(self.pid)

    def zygotes(self) -> list[int]:
        """The server's zygote (tui/ssh/zygote_main.py), when it has one."""
        return [pid for pid in children_of(self.pid) if is_zygote(pid)]

    def stop(self, signum: int = signal.SIGTERM, timeout: float = START_S) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signum)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
            raise

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def is_zygote(pid: int) -> bool:
    """Whether ``pid`` is a server's zygote (tui/ssh/zygote_main.py): its program, and not a
    dashboard forked from it (those name themselves at once)."""
    try:
        program = Path(f"/proc/{pid}/cmdline").read_bytes()
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return False
    return b"tui.ssh.zygote_main" in program and name != "roost-session"


def dashboards_of(pid: int) -> list[int]:
    """A server's children but its zygote: each session's dashboard, zombies included."""
    return [child for child in children_of(pid) if not is_zygote(child)]


def alive(pid: int) -> bool:
    """Whether ``pid`` exists at all (a zombie counts: it was not reaped)."""
    return Path(f"/proc/{pid}").exists()


def environ_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {key.decode(): value.decode() for key, value in pairs}


class Terminal(asyncssh.SSHClientSession):
    """The client's terminal: what the server sends is drawn on a pyte screen."""

    def __init__(self, columns: int = 80, rows: int = 24) -> None:
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.stderr = b""
        self.output = bytearray()
        self.exit_status: int | None = None
        self.closed = False
        self.chan: asyncssh.SSHClientChannel | None = None

    def connection_made(self, chan: asyncssh.SSHClientChannel) -> None:
        self.chan = chan

    def data_received(self, data: bytes, datatype: object) -> None:
        if datatype == asyncssh.EXTENDED_DATA_STDERR:
            self.stderr += data
            return
        self.output += data
        del self.output[: max(0, len(self.output) - 200_000)]
        self.stream.feed(data)

    def exit_status_received(self, status: int) -> None:
        self.exit_status = status

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, *texts: str, timeout: float = START_S) -> str:
        def shown() -> str | None:
            screen = self.text()
            return screen if all(text in screen for text in texts) else None

        return str(await until(shown, timeout, f"{texts!r} on the screen:\n{self.text()}"))

    def type(self, *keys: str) -> None:
        assert self.chan is not None
        for key in keys:
            self.chan.write(key.encode())

    def resize(self, columns: int, rows: int) -> None:
        assert self.chan is not None
        self.screen.resize(rows, columns)
        self.chan.change_terminal_size(columns, rows)

    async def wait_closed(self, timeout: float = START_S) -> None:
        await until(lambda: self.closed, timeout, "the session to close")


async def connect(
    port: int, username: str = "guest", keys: Iterable[asyncssh.SSHKey] | None = None, **kwargs
) -> asyncssh.SSHClientConnection:
    """A client connection with nothing from this machine's own SSH set-up (no agent, no
    ~/.ssh keys or config) and the host key not checked (the tests compare fingerprints)."""
    return await asyncssh.connect(
        "127.0.0.1",
        port,
        username=username,
        client_keys=list(keys) if keys is not None else None,
        agent_path=None,
        known_hosts=None,
        config=None,
        **kwargs,
    )


async def open_terminal(
    conn: asyncssh.SSHClientConnection,
    columns: int = 80,
    rows: int = 24,
    term: str | None = "xterm-256color",
    **kwargs,
) -> Terminal:
    _, terminal = await conn.create_session(
        lambda: Terminal(columns, rows),
        term_type=term,
        term_size=(columns, rows) if term else None,
        encoding=None,
        **kwargs,
    )
    return terminal
