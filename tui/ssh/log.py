"""`roost serve-ssh`'s log: lines that never raise (ARCHITECTURE.md, serving over SSH).

A server outlives whoever reads its output: ``roost serve-ssh | head -1``, a terminal closed, a
log collector restarted. :class:`ServerLog` writes each line to standard output, moves to
standard error once that is gone (saying so there), and drops lines once both are; it never
raises, so a stop handler that logs always stops.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import TextIO

__all__ = ["ServerLog"]

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
