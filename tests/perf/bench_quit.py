"""Quit as a person waits for it: from the ``q`` written to the terminal until the process has
exited (the shell prompt is back), `roost` beside a bare Textual app.

    python tests/perf/bench_quit.py [AGENTS] [ROUNDS]

Each app runs as its own process on a pseudo-terminal at 80×24, as over SSH: ``roost
--read-url BASE --cache-dir DIR`` (``python -m tui.cli``, the command's own path, from a disk
cache of AGENTS agents, no network) and a one-``Static`` Textual app. Once its screen has been
quiet for a second, roost is taken through every tab (each key once the screen is quiet again),
then ``q`` (the bare app: ``ctrl+q``) is written and the time until the process is gone is
taken. Rounds alternate the two apps. This includes what the in-process pilot timing of
``bench_keys`` cannot see: the terminal driver's stop and the interpreter's exit.
Goal: roost's quit ≤ 2× the bare app's (medians of the rounds).
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PERF = Path(__file__).resolve().parent
for _path in (ROOT, PERF):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from figures import figure  # noqa: E402

__all__ = ["measure_process_quit"]

ROWS, COLUMNS = 24, 80
GOAL_RATIO = 2.0
QUIET_START_S = 1.0  # no output for this long: the start (and its warm-ups) is over
QUIET_KEY_S = 0.5
START_MAX_S = 60.0
EXIT_MAX_S = 30.0

BARE_APP = """\
from textual.app import App
from textual.widgets import Static


class Bare(App[None]):
    def compose(self):
        yield Static("hello")


Bare().run()
"""


class _Terminal:
    """A process on a pseudo-terminal of ROWS×COLUMNS; its output is read and thrown away."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(COLUMNS), LINES=str(ROWS))
        env.pop("PYTHONUNBUFFERED", None)
        self.process = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self.output = 0

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.master, 1 << 16)
        except OSError:  # the process has gone and closed its side
            return False
        self.output += len(data)
        return bool(data)

    def until_quiet(self, quiet_s: float, most_s: float) -> None:
        """Read until the screen has written nothing for ``quiet_s`` (after something)."""
        deadline = time.monotonic() + most_s
        last = time.monotonic()
        while time.monotonic() < deadline and self.process.poll() is None:
            if self._read(0.02):
                last = time.monotonic()
            elif self.output and time.monotonic() - last >= quiet_s:
                return
        if self.process.poll() is not None:
            raise RuntimeError(f"{self.process.args[:3]} exited early ({self.process.returncode})")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def time_exit(self, key: str) -> float:
        """Write ``key`` and return the seconds until the process has exited."""
        sent = time.perf_counter()
        self.type(key)
        while self.process.poll() is None:
            self._read(0.002)
            if time.perf_counter() - sent > EXIT_MAX_S:
                self.process.kill()
                raise RuntimeError(f"{self.process.args[:3]} did not quit")
        return time.perf_counter() - sent

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def _quit_once(argv: list[str], cwd: Path, keys: str, quit_key: str) -> float:
    terminal = _Terminal(argv, cwd)
    try:
        terminal.until_quiet(QUIET_START_S, START_MAX_S)
        for key in keys:
            terminal.type(key)
            terminal.until_quiet(QUIET_KEY_S, 10)
        return terminal.time_exit(quit_key)
    finally:
        terminal.close()


def measure_process_quit(cache_dir: Path, agents: int, *, rounds: int = 5) -> dict[str, Any]:
    from bench_app import BASE, fill_cache

    from tui.tabs import TABS

    fill_cache(cache_dir, agents)
    bare_script = cache_dir / "bare_app.py"
    bare_script.write_text(BARE_APP)
    roost = [sys.executable, "-m", "tui.cli", "--read-url", BASE, "--cache-dir", str(cache_dir)]
    bare = [sys.executable, str(bare_script)]
    keys = "".join(tab.key for tab in TABS[1:]) + TABS[0].key  # every tab, back to the first
    roost_s: list[float] = []
    bare_s: list[float] = []
    for _ in range(rounds):
        bare_s.append(_quit_once(bare, ROOT, "", "\x11"))  # ctrl+q
        roost_s.append(_quit_once(roost, ROOT, keys, "q"))
    roost_median, bare_median = statistics.median(roost_s), statistics.median(bare_s)
    ratio = round(roost_median / bare_median, 2)
    return {
        "figures": [
            figure(
                "quit over a bare app's, key written to a terminal until the process exits",
                ratio,
                "×",
                at_most=GOAL_RATIO,
            ),
        ],
        "agents": agents,
        "size": [COLUMNS, ROWS],
        "method": "q written to a pseudo-terminal until the process has exited, after every tab",
        "roost_s": round(roost_median, 3),
        "bare_s": round(bare_median, 3),
        "ratio": ratio,
        "runs": {
            "roost_s": [round(x, 3) for x in roost_s],
            "bare_s": [round(x, 3) for x in bare_s],
        },
    }


if __name__ == "__main__":
    agents = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(measure_process_quit(Path(tmp), agents, rounds=rounds), indent=2))
