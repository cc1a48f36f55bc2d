"""`roost serve-ssh`'s log: lines that never raise, and refusals that cannot flood it
(ARCHITECTURE.md, serving over SSH).

A server outlives whoever reads its output: ``roost serve-ssh | head -1``, a terminal closed, a
log collector restarted. :class:`ServerLog` writes each line to standard output, moves to
standard error once that is gone (saying so there), and drops lines once both are; it never
raises, so a stop handler that logs always stops.

An attacker can make the server refuse as fast as the network allows (one client repeating a
command request, over and over). :class:`RefusalLog` writes the first refusal of each
address and reason at once and counts the rest for a minute; when the minute closes, the last
of them is written with the count ("… (and 6,171 more in the last minute)"), and a flood that
goes on is one line a minute. The windows it keeps are bounded: past ``max_keys`` addresses,
the rest share one count per reason.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

__all__ = ["RefusalLog", "ServerLog"]

Stream = Callable[[], "TextIO | None"]


def _write(stream: TextIO | None, text: str) -> bool:
    """Whether ``text`` (and a newline) went out on ``stream``."""
    if stream is None:
        return False
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError):  # a closed pipe or terminal, a closed file object
        return False
    return True


def _silence(stream: TextIO | None) -> None:
    """Point a dead stream's descriptor at /dev/null, so that what is still buffered in it
    cannot fail again (the interpreter's flush at exit would print a traceback)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fd = stream.fileno()  # type: ignore[union-attr]
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)


class ServerLog:
    """``log(line)``: ``prefix + line`` on stdout, else stderr, else nowhere; never raises."""

    def __init__(
        self,
        prefix: str,
        *,
        stdout: Stream | None = None,
        stderr: Stream | None = None,
    ) -> None:
        self.prefix = prefix
        # looked up at each line: the interpreter's streams as they are then
        self._stdout = stdout or (lambda: sys.stdout)
        self._stderr = stderr or (lambda: sys.stderr)
        self._stdout_gone = False
        self._stderr_gone = False

    def __call__(self, line: str) -> None:
        text = self.prefix + line
        if not self._stdout_gone:
            out = self._stdout()
            if _write(out, text):
                return
            self._stdout_gone = True
            _silence(out)
            self._to_stderr(
                self.prefix + "standard output is closed: logging to standard error from now on"
            )
        self._to_stderr(text)

    def error(self, text: str) -> None:
        """``text`` as is, on stderr, else stdout: an error that stops the server."""
        if self._to_stderr(text):
            return
        if not self._stdout_gone and not _write(self._stdout(), text):
            self._stdout_gone = True

    def _to_stderr(self, text: str) -> bool:
        if self._stderr_gone:
            return False
        err = self._stderr()
        if _write(err, text):
            return True
        self._stderr_gone = True
        _silence(err)
        return False


#: The key of the window that addresses past ``max_keys`` share.
OTHERS = "other addresses"


@dataclass
class _Window:
    opened: float
    count: int = 0  # refusals counted, not written
    last: str = ""  # the last of them, written with the count when the window closes


class RefusalLog:
    """Refusals written at most once per address and reason a ``window_s``, the rest counted."""

    def __init__(
        self,
        log: Callable[[str], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 1024,
    ) -> None:
        self._log = log
        self.window_s = 60.0  # the minute the lines speak of
        self._clock = clock
        self.max_keys = max_keys
        self._windows: dict[tuple[str, str], _Window] = {}

    def __len__(self) -> int:
        return len(self._windows)

    def refused(self, address: str, reason: str, line: str) -> None:
        """A refusal of ``reason`` (a short fixed name: the text may vary) from ``address``;
        ``line`` is what the log says of it."""
        self.tick()
        key = (address, reason)
        if key not in self._windows and len(self._windows) >= self.max_keys:
            key = (OTHERS, reason)
        window = self._windows.get(key)
        if window is None:
            self._windows[key] = _Window(self._clock())
            self._log(line)
            return
        window.count += 1
        window.last = line

    def next_due(self) -> float | None:
        """Seconds until the next window closes (None: none is open)."""
        if not self._windows:
            return None
        first = min(window.opened for window in self._windows.values())
        return max(0.0, first + self.window_s - self._clock())

    def tick(self) -> None:
        """Close the windows whose time is up: a count is written, and a window with one opens
        again (the flood goes on: one line a minute); a quiet one is forgotten."""
        now = self._clock()
        for key, window in list(self._windows.items()):
            if now - window.opened < self.window_s:
                continue
            if window.count:
                self._say(key, window)
                self._windows[key] = _Window(now)
            else:
                del self._windows[key]

    def flush(self) -> None:
        """Write every count now (the server is stopping) and forget every window."""
        for key, window in self._windows.items():
            if window.count:
                self._say(key, window)
        self._windows.clear()

    def _say(self, key: tuple[str, str], window: _Window) -> None:
        more = window.count - 1
        if not more:
            self._log(window.last)
            return
        where = " from other addresses" if key[0] == OTHERS else ""
        self._log(f"{window.last} (and {more:,} more{where} in the last minute)")
