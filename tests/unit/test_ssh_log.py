"""The server's log on its own: a line never raises, whatever became of stdout and stderr, and
refusals are logged at most once per address and reason a minute, the rest counted."""

from __future__ import annotations

import io

import pytest

from tui.ssh.log import RefusalLog, ServerLog


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


# ------------------------------------------------------------------ refusals


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def refusals() -> tuple[RefusalLog, list[str], Clock]:
    lines: list[str] = []
    clock = Clock()
    return RefusalLog(lines.append, clock=clock), lines, clock


def test_a_flood_is_one_line_then_one_a_minute_with_the_count(refusals):
    log, lines, clock = refusals
    for n in range(6172):
        log.refused("203.0.113.7", "exec", f"refused #{n}")
    assert lines == ["refused #0"]  # the first at once
    assert log.next_due() == pytest.approx(60.0)
    clock.now += 59.9
    log.tick()
    assert lines == ["refused #0"]
    clock.now += 0.1
    log.tick()
    assert lines == ["refused #0", "refused #6171 (and 6,170 more in the last minute)"]
    # the flood goes on: one line a minute; then it stops, and the window closes quietly
    log.refused("203.0.113.7", "exec", "refused again")
    clock.now += 60
    log.tick()
    assert lines[-1] == "refused again"
    clock.now += 60
    log.tick()
    assert len(lines) == 3 and log.next_due() is None
    log.refused("203.0.113.7", "exec", "much later")  # a new minute: at once again
    assert lines[-1] == "much later"


def test_each_address_and_each_reason_has_its_own_minute(refusals):
    log, lines, _ = refusals
    for _ in range(3):
        log.refused("203.0.113.7", "exec", "exec from .7")
        log.refused("203.0.113.7", "no-pty", "no-pty from .7")
        log.refused("198.51.100.2", "exec", "exec from .2")
    assert lines == ["exec from .7", "no-pty from .7", "exec from .2"]
    log.flush()  # the server stops: what was counted is said
    assert lines[3:] == [
        "exec from .7 (and 1 more in the last minute)",
        "no-pty from .7 (and 1 more in the last minute)",
        "exec from .2 (and 1 more in the last minute)",
    ]
    log.flush()
    assert len(lines) == 6


def test_a_single_repeat_is_logged_plain_when_its_minute_closes(refusals):
    log, lines, clock = refusals
    log.refused("203.0.113.7", "exec", "one")
    log.refused("203.0.113.7", "exec", "two")
    clock.now += 60
    log.tick()
    assert lines == ["one", "two"]


def test_many_addresses_share_one_count_past_a_bound():
    """Memory stays bounded when every refusal comes from a new address (an IPv6 block)."""
    lines: list[str] = []
    log = RefusalLog(lines.append, clock=Clock(), max_keys=4)
    for n in range(100):
        log.refused(f"2001:db8::{n:x}", "exec", f"exec from {n}")
    assert lines == [f"exec from {n}" for n in range(5)]
    assert len(log) == 5
    log.flush()
    assert lines[-1] == "exec from 99 (and 94 more from other addresses in the last minute)"
