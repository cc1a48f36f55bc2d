"""What one idle session writes to its terminal: bytes a minute, as over SSH.

    python tests/perf/bench_idle.py [SECONDS]

`roost` on the demo network runs as its own process on a pseudo-terminal at 80×24 (its own
folders, so its own demo world), exactly as `roost serve-ssh` starts a session's dashboard
(``python -m tui``). Once its screen has been quiet for a second, nothing is typed for
SECONDS (60 by default: one refresh cycle at the default interval falls inside it) and every
byte the dashboard writes is counted: what an SSH client with nobody at the keyboard receives.
Goal: at most 5 KB a minute.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PERF = Path(__file__).resolve().parent
for _path in (ROOT, PERF):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from bench_quit import START_MAX_S, _Terminal  # noqa: E402
from figures import figure  # noqa: E402

__all__ = ["measure_idle_output"]

GOAL_KB_A_MINUTE = 5.0
#: Quiet this long after the first frame: the start is over (a bar redrawn every second is
#: never quiet for a whole one), then this long more before counting.
QUIET_S = 0.6
SETTLE_S = 5.0


def _idle_bytes(folder: Path, seconds: float) -> int:
    env = {
        "XDG_CACHE_HOME": str(folder / "cache"),
        "XDG_DATA_HOME": str(folder / "data"),
        "XDG_STATE_HOME": str(folder / "state"),
        "XDG_CONFIG_HOME": str(folder / "config"),
    }
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)  # _Terminal starts the process with this process's environment
    try:
        terminal = _Terminal([sys.executable, "-P", "-m", "tui"], ROOT)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    try:
        terminal.until_quiet(QUIET_S, START_MAX_S)
        _drain(terminal, SETTLE_S)
        before = terminal.output
        _drain(terminal, seconds)
        return terminal.output - before
    finally:
        terminal.close()


def _drain(terminal: _Terminal, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        terminal._read(min(0.2, left))


def measure_idle_output(seconds: float = 60.0) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        written = _idle_bytes(Path(tmp), seconds)
    per_minute_kb = round(written / 1024 * 60 / seconds, 2)
    return {
        "figures": [
            figure(
                "bytes one idle session writes to its terminal, a minute",
                per_minute_kb,
                "KB",
                at_most=GOAL_KB_A_MINUTE,
            )
        ],
        "seconds": seconds,
        "bytes": written,
        "kb_a_minute": per_minute_kb,
        "method": "the demo dashboard on a pseudo-terminal at 80x24, no key, every byte counted",
    }


if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    print(json.dumps(measure_idle_output(seconds), indent=2))
