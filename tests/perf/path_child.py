"""One measured run in a fresh interpreter, for tests/perf/bench_paths.py.

    python path_child.py state URL CACHE [--json] [--trace]
                                                    `roost state [--json]` against URL

Writes one JSON line to stderr at the end: seconds, peak traced bytes (with --trace; tracemalloc
slows the run, so timings come from runs without it) and the peak RSS (``VmHWM``: unlike
``ru_maxrss`` it is not inherited from the forking parent).
"""

from __future__ import annotations

import json
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def peak_rss() -> int:
    """This process's peak resident set size in bytes (Linux ``/proc/self/status``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def main(argv: list[str]) -> int:
    trace = "--trace" in argv
    argv = [arg for arg in argv if arg != "--trace"]
    if trace:
        tracemalloc.start()
    started = time.perf_counter()
    from tui.cli import main as roost

    url, cache = argv[1], argv[2]
    code = roost(["state", "--read-url", url, "--cache-dir", cache, *argv[3:]])
    sys.stdout.flush()
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] if trace else None
    result = {"seconds": elapsed, "peak_traced_bytes": peak, "max_rss_bytes": peak_rss()}
    print(json.dumps(result), file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
