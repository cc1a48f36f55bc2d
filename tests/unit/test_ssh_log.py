"""The server's log on its own: a line never raises, whatever became of stdout and stderr."""

from __future__ import annotations

import io

import pytest

from tui.ssh.log import ServerLog


class Closed(io.StringIO):
    """A stream whose reader went away: every write fails the way ``error`` says."""

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error
        self.tries = 0

    def write(self, text: str) -> int:
        self.tries += 1
        raise self.error


@pytest.mark.parametrize(
    "error",
    [BrokenPipeError(32, "Broken pipe"), OSError(5, "Input/output error"), ValueError("closed")],
)
def test_a_line_moves_to_stderr_once_stdout_is_gone(error):
    out, err = Closed(error), io.StringIO()
    log = ServerLog("roost serve-ssh: ", stdout=lambda: out, stderr=lambda: err)
    log("first")
    log("second")
    assert err.getvalue() == (
        "roost serve-ssh: standard output is closed: logging to standard error from now on\n"
        "roost serve-ssh: first\n"
        "roost serve-ssh: second\n"
    )
    assert out.tries == 1  # a closed stdout is not tried again


def test_with_both_streams_gone_a_line_goes_nowhere_and_never_raises():
    out, err = Closed(BrokenPipeError(32, "Broken pipe")), Closed(ValueError("closed"))
    log = ServerLog("x: ", stdout=lambda: out, stderr=lambda: err)
    for _ in range(3):
        log("a line")
    log.error("an error")
    assert out.tries == 1 and err.tries == 1  # neither is tried again


def test_no_streams_at_all_is_quiet():
    """A server started with its standard streams closed has ``sys.stdout`` None."""
    log = ServerLog("x: ", stdout=lambda: None, stderr=lambda: None)
    log("a line")
    log.error("an error")


def test_errors_go_to_stderr_then_stdout():
    out, err = io.StringIO(), io.StringIO()
    log = ServerLog("x: ", stdout=lambda: out, stderr=lambda: err)
    log.error("roost: cannot listen")
    assert err.getvalue() == "roost: cannot listen\n" and out.getvalue() == ""
    gone = ServerLog("x: ", stdout=lambda: out, stderr=lambda: Closed(OSError(9, "EBADF")))
    gone.error("roost: cannot listen")
    assert out.getvalue() == "roost: cannot listen\n"
