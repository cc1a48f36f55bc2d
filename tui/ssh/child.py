"""One session's dashboard: a child process on its own pseudo-terminal (ARCHITECTURE.md, serving
over SSH).

Textual drives one terminal per process (its driver owns stdin/stdout and process-wide signal
handlers), so each SSH session gets a process of its own: ``python -m tui`` on a fresh PTY that
is its controlling terminal (``setsid`` + ``TIOCSCTTY``), sized before it starts so the first
frame is right, resized with ``TIOCSWINSZ`` (rows first) + ``SIGWINCH``. Its environment is built
here from an allow-list — never from what the client sent — and it runs under resource limits
(address space, open files, a lower CPU priority).

Ending it: ``SIGTERM`` to its process group (the dashboard quits and restores the terminal), then
``SIGKILL`` to the group after a grace period, and it is always reaped.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import re
import resource
import signal
import struct
import sys
import termios
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tui.config import ENV_VARS, Settings
from tui.network.disk_cache import default_cache_root
from tui.ssh.mode import ROLE_VAR, WARN_VAR

__all__ = [
    "DEFAULT_SIZE",
    "Child",
    "ChildLimits",
    "child_environment",
    "clamp_size",
    "open_pty",
    "service_environment",
    "setup_in_child",
    "terminal_environment",
]

DEFAULT_SIZE = (80, 24)  # columns, rows: when the client gives none
MIN_SIZE = (20, 6)
MAX_SIZE = (1000, 500)  # beyond any real screen; a bigger request is a mistake or an attack

_TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
#: Terminals known to draw 24-bit colour whatever their TERM's terminfo says. Only TERM crosses
#: SSH (COLORTERM does not), so the server decides.
_TRUECOLOR_TERMS = frozenset(
    {
        "alacritty",
        "contour",
        "foot",
        "foot-extra",
        "iterm2",
        "wezterm",
        "xterm-ghostty",
        "xterm-kitty",
    }
)
_LOCALE = re.compile(r"LANG|LANGUAGE|LC_[A-Z]+")


def clamp_size(width: int, height: int) -> tuple[int, int]:
    """A usable (columns, rows): 0 means "unknown" (the default), the rest is kept in bounds."""
    columns = DEFAULT_SIZE[0] if width <= 0 else min(max(width, MIN_SIZE[0]), MAX_SIZE[0])
    rows = DEFAULT_SIZE[1] if height <= 0 else min(max(height, MIN_SIZE[1]), MAX_SIZE[1])
    return columns, rows


def terminal_environment(term_type: str | None) -> dict[str, str]:
    """``TERM`` from the client's PTY request (a plain name, else ``xterm-256color``) and a
    ``COLORTERM`` of ``truecolor`` when that name says the terminal draws 24-bit colour."""
    term = (term_type or "").strip()
    if not _TERM.fullmatch(term) or term in ("dumb", "unknown"):
        term = "xterm-256color"
    env = {"TERM": term}
    if term in _TRUECOLOR_TERMS or term.endswith(("-direct", "-truecolor", "-24bit")):
        env["COLORTERM"] = "truecolor"
    return env


def service_environment(settings: Settings) -> dict[str, str]:
    """The service settings as the server resolved them, for its dashboards to read the same
    service, cache and config file (never a token: that is not passed, and a session looks for
    none). A read-only server (`roost serve-ssh --readonly`) serves read-only sessions only."""
    env: dict[str, str] = {}
    for key, var in ENV_VARS.items():
        value = getattr(settings, key)
        if key == "readonly":
            if value:
                env[var] = "1"
        elif value is not None and key != "cache_dir":
            env[var] = str(value)
    env["ROOST_CACHE_DIR"] = str(settings.cache_dir or default_cache_root())
    config = settings.config_file
    if config is not None and config.is_file():
        env["ROOST_CONFIG"] = str(config)
        if settings.profile:
            env["ROOST_PROFILE"] = settings.profile
    else:  # the same "no config file" as the server's, not whatever the child's home holds
        env["ROOST_CONFIG"] = os.devnull
    return env


#: The speed machinery's switch (tui/ui/speed): set on the server, it holds for every session.
PLAIN_VAR = "ROOST_PLAIN"


def child_environment(
    *,
    term_type: str | None,
    role: str,
    home: Path,
    service: Mapping[str, str],
    warn_s: int,
    server_environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The whole environment of a session's dashboard, from an allow-list: the terminal, the
    server's locale, roost's own settings, the role, a home of its own (the keyed user's outbox
    lives there) and the server's ``ROOST_PLAIN``. Nothing the client sent is in it."""
    server_environ = os.environ if server_environ is None else server_environ
    env = {key: value for key, value in server_environ.items() if _LOCALE.fullmatch(key)}
    if not any(key in env for key in ("LANG", "LC_ALL", "LC_CTYPE")):
        env["LANG"] = "C.UTF-8"
    env.update(terminal_environment(term_type))
    env.update(service)
    if PLAIN_VAR in server_environ:  # the server's speed machinery switch holds for its sessions
        env[PLAIN_VAR] = server_environ[PLAIN_VAR]
    env.update(
        {
            ROLE_VAR: role,
            WARN_VAR: str(warn_s),
            "HOME": str(home),
            "XDG_DATA_HOME": str(home),  # the outbox: one per keyed user
            "PATH": os.defpath,
            # the same code as the server's, wherever it was imported from
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        }
    )
    return env


@dataclass(frozen=True)
class ChildLimits:
    """Resource limits of each session's dashboard."""

    memory_bytes: int = 2 << 30  # RLIMIT_AS: address space (a demo session maps ~120 MB)
    open_files: int = 256
    niceness: int = 10


def _set_size(fd: int, columns: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


def open_pty(size: tuple[int, int]) -> tuple[int, int]:
    """A new PTY (master, slave), sized before the child starts so its first frame has the
    size; the master non-blocking."""
    master, slave = pty.openpty()
    try:
        _set_size(slave, *size)
        os.set_blocking(master, False)
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    return master, slave


def setup_in_child(limits: ChildLimits) -> Callable[[], None]:
    """What runs in the child between fork and exec: the PTY (its stdin) becomes its controlling
    terminal, the limits are set (hard limits too: it cannot raise them), and the server's
    warning signals are ignored until the dashboard installs its handlers."""
    memory = limits.memory_bytes
    _, hard_files = resource.getrlimit(resource.RLIMIT_NOFILE)
    files = (
        limits.open_files
        if hard_files == resource.RLIM_INFINITY
        else min(limits.open_files, hard_files)
    )
    niceness = limits.niceness

    def setup() -> None:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
        os.nice(niceness)
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        signal.signal(signal.SIGUSR2, signal.SIG_IGN)

    return setup


class ChildProcess(Protocol):
    """What a session needs of its dashboard's process: spawned (``asyncio``'s) or forked by
    the zygote (``tui.ssh.zygote.ForkedProcess``)."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...


class Child:
    """A started dashboard: its process and the PTY's master side (non-blocking)."""

    def __init__(self, process: ChildProcess, master: int) -> None:
        self.process = process
        self.master = master

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        return self.process.returncode is None

    @classmethod
    async def start(
        cls,
        env: Mapping[str, str],
        size: tuple[int, int],
        limits: ChildLimits,
        argv: list[str] | None = None,
        cwd: Path | None = None,
        pass_fds: tuple[int, ...] = (),
    ) -> Child:
        # -P: the working folder (the user's home here) is not put on the import path
        argv = argv or [sys.executable, "-P", "-m", "tui"]
        master, slave = open_pty(size)
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=dict(env),
                cwd=cwd,
                start_new_session=True,
                pass_fds=pass_fds,  # the session's feed from the server's refresher
                preexec_fn=setup_in_child(limits),
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)  # the child's copies only: otherwise the master never sees EOF
        return cls(process, master)

    def resize(self, columns: int, rows: int) -> None:
        with contextlib.suppress(OSError):
            _set_size(self.master, columns, rows)
        self.signal_group(signal.SIGWINCH)

    def signal_group(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signum)

    def signal(self, signum: int) -> None:
        """Signal the dashboard itself (not its group)."""
        if self.running:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, signum)

    async def wait(self) -> int:
        return await self.process.wait()

    async def stop(self, grace_s: float) -> int:
        """End it: SIGTERM to the group, SIGKILL after ``grace_s``; reaped either way."""
        if self.running:
            self.signal_group(signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.process.wait()), grace_s)
        if self.running:  # while it runs its pid (the group's id) cannot have been reused
            self.signal_group(signal.SIGKILL)
        return await self.process.wait()

    def close(self) -> None:
        if self.master >= 0:
            with contextlib.suppress(OSError):
                os.close(self.master)
            self.master = -1
