"""Completion in the action forms at 50 000 agents: the prepared index vs a Python scan.

    python tests/perf/bench_completion.py [--agents 50000] [--runs 20]

Prints one JSON document: the time to build the agent index from a demo snapshot, and per query
(a prefix, a substring, letters in order, no match) the best time of one search with the index
(tui/actions/completion.py) and with a scan that scores every agent with the palette's
fuzzy_match (what a per-keystroke loop over the snapshot would cost).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_paths import best_quick as _best  # noqa: E402
from forms_rig import demo_snapshot  # noqa: E402

from tui.actions.completion import References  # noqa: E402
from tui.ui.screens.palette import fuzzy_match  # noqa: E402


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args(argv)
    snapshot = demo_snapshot(args.agents)
    start = time.perf_counter()
    references = References(snapshot)
    references.index("agent")
    build = time.perf_counter() - start
    lines = [f"{key} {agent.name}".lower() for key, agent in snapshot.agents.agents.items()]

    def scan(query: str) -> list[str]:
        scored = [(fuzzy_match(query, line)[0], line) for line in lines]
        return [line for score, line in sorted(scored, reverse=True)[:8] if score > 0]

    queries = {"prefix": "zion-c", "substring": "coder-0", "letters": "zcd4", "none": "qqqxz"}
    result = {"agents": args.agents, "index_build_s": round(build, 4), "queries": {}}
    for name, query in queries.items():
        result["queries"][name] = {
            "query": query,
            "index_s": round(_best(lambda q=query: references.search("agent", q), args.runs), 6),
            "scan_s": round(_best(lambda q=query: scan(q), max(1, args.runs // 10)), 4),
        }
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
