"""`roost state`: refresh once (or N cycles) through the store and print a summary or JSON.

Exit codes: 0 every file verified; 1 some file failed integrity or validation (the last good copy
was kept and is reported); 2 usage or configuration error; 3 nothing loadable (see
``tui/commands/__init__.py`` for the rest).

``--json`` is always valid JSON: a number the service sent as ``NaN`` or ``Infinity`` (which JSON
does not have) leaves as ``null``. The models are encoded as they are, member by member, and
the text written in slices (``tui/commands/json_text.py``): no copy of the state as plain
values, no whole-document string.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from typing import Any, TextIO

from tui import __version__
from tui.commands import (
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_PROBLEMS,
    counted,
    load_from,
    no_cache_option,
    service_options,
)
from tui.commands.json_text import as_json, write_json
from tui.config import Settings
from tui.network.state_files import STATE_FILE_NAMES
from tui.session import Session
from tui.untrusted import clean_line

__all__ = ["as_json", "cmd_state", "json_document", "register", "state_exit_code"]


def register(sub: argparse._SubParsersAction) -> None:
    state = sub.add_parser(
        "state",
        help="refresh the state files through the store and print them",
        description="Refresh through the store (with its disk cache) and print a summary or JSON.",
        epilog="exit: 0 all verified · 1 some file failed integrity/validation (last good kept) · "
        "2 usage · 3 nothing loadable",
    )
    service_options(state, interval=False)
    state.add_argument("--json", action="store_true", help="print the snapshot and reports as JSON")
    state.add_argument(
        "--cycles", type=int, default=1, metavar="N", help="refresh cycles (default 1)"
    )
    state.add_argument(
        "--pause-between",
        type=float,
        default=None,
        dest="cycle_interval",
        metavar="S",
        help="seconds to pause between two cycles (default 0)",
    )
    # its name until it was told apart from `roost --interval` (the dashboard's refresh
    # interval): still taken, with a note
    state.add_argument(
        "--interval", type=float, default=None, dest="old_interval", help=argparse.SUPPRESS
    )
    no_cache_option(state)
    state.set_defaults(handler=run, parser=state)


def run(args: argparse.Namespace) -> int:
    if args.cycles < 1:
        args.parser.error("--cycles must be at least 1")
    if args.old_interval is not None:
        print(
            "roost: note: `roost state --interval` is now --pause-between "
            "(--interval is the dashboard's refresh interval)",
            file=sys.stderr,
        )
        if args.cycle_interval is None:
            args.cycle_interval = args.old_interval
    if args.cycle_interval is not None and not (
        math.isfinite(args.cycle_interval) and args.cycle_interval >= 0
    ):
        args.parser.error("--pause-between must be a finite number of seconds, 0 or more")
    return asyncio.run(cmd_state(args, *load_from(args)))


async def cmd_state(args: argparse.Namespace, settings: Settings, session: Session) -> int:
    from tui.service import connect  # deferred: off the start path

    service = connect(settings, session, use_cache=not args.no_cache)
    store = service.store
    store.load_cache()
    reports = []
    interval = args.cycle_interval or 0.0
    out = sys.stdout
    try:
        for cycle in range(args.cycles):
            if cycle:
                await asyncio.sleep(interval)
            report = await store.refresh()
            reports.append(report)
            if not args.json:
                _print_report(report, out)
    finally:
        await service.aclose()
    snapshot = store.snapshot
    code = state_exit_code(snapshot, reports)
    if args.json:
        write_json(json_document(settings, service.demo, snapshot, reports, code), out)
    else:
        _print_summary(settings, service.demo, snapshot, out)
    return code


def json_document(settings: Settings, demo: bool, snapshot, reports, code: int) -> dict[str, Any]:
    """What ``--json`` prints; its ``snapshot`` holds the models themselves (each printed as
    :func:`~tui.network.models.dump` gives it, as :func:`~tui.network.snapshot.snapshot_as_json`
    would), never a second copy of the state as plain values."""
    return {
        "service": "demo network" if demo else settings.display_url,
        "snapshot": {
            name.removesuffix(".json"): snapshot.file(name).model or None
            for name in STATE_FILE_NAMES
        },
        "reports": [report.as_dict() for report in reports],
        "files": {name: _file_summary(state) for name, state in snapshot.files.items()},
        "integrity": snapshot.integrity_summary(),
        "exit_code": code,
    }


def state_exit_code(snapshot, reports) -> int:
    if not snapshot.any_loaded:
        return EXIT_NOTHING
    if not snapshot.all_verified:
        return EXIT_PROBLEMS
    last = reports[-1] if reports else None
    if last is not None and any(p.kind != "cache" for p in last.problems):
        return EXIT_PROBLEMS
    return EXIT_OK


def _file_summary(state) -> dict[str, Any]:
    return {
        "integrity": state.integrity,
        "loaded": state.loaded,
        "sha256": state.sha256,
        "size": state.size,
        "fetched_at": state.fetched_at.isoformat() if state.fetched_at else None,
        "problem": state.problem.as_dict() if state.problem else None,
    }


def _print_report(report, out: TextIO) -> None:
    line = (
        f"cycle {report.cycle}: manifest {report.manifest} · fetched {len(report.fetched)} · "
        f"unchanged {len(report.unchanged)} · {counted(report.requests, 'request')} · "
        f"{counted(report.bytes_downloaded, 'byte')} · {report.duration_s:.2f} s"
    )
    print(line, file=out)
    for problem in report.problems:
        print(
            f"  ! {clean_line(problem.file)} {clean_line(problem.kind)}: "
            f"{clean_line(problem.detail, 300)}",
            file=out,
        )


def _print_summary(settings: Settings, demo: bool, snapshot, out: TextIO) -> None:
    service = "demo network (in-process)" if demo else clean_line(settings.display_url)
    print(f"\nroost {__version__} — {service}", file=out)
    for name, state in snapshot.files.items():
        fetched = state.fetched_at.strftime("%Y-%m-%d %H:%M:%S") if state.fetched_at else "—"
        print(
            f"  {name:<14} {state.integrity:<10} {state.size:>12,} B  fetched {fetched}", file=out
        )
    agents, channels = snapshot.agents, snapshot.channels
    trending, seeds, stats = snapshot.trending, snapshot.seeds, snapshot.stats
    parts = []
    if agents is not None:
        statuses: dict[str, int] = {}
        for agent in agents.agents.values():
            statuses[agent.status] = statuses.get(agent.status, 0) + 1
        detail = ", ".join(f"{clean_line(k, 20)} {v}" for k, v in sorted(statuses.items()))
        parts.append(f"agents {len(agents.agents):,} ({detail})")
    if channels is not None:
        parts.append(f"channels {len(channels.channels)}")
    if trending is not None:
        parts.append(f"trending posts {len(trending.trending)}")
    if seeds is not None:
        proposals = (
            "no proposals key" if seeds.proposals is None else f"proposals {len(seeds.proposals)}"
        )
        parts.append(proposals)
    if parts:
        print("  " + " · ".join(parts), file=out)
    if seeds is not None:
        active = seeds.active
        text = f"{clean_line(active.id, 40)}: {clean_line(active.text, 70)}" if active else "none"
        print(f"  active seed: {text}", file=out)
    if stats is not None:
        counters = " ".join(f"{clean_line(k, 40)}={v:,}" for k, v in stats.counters().items())
        print(f"  stats: {counters}", file=out)
    top = trending.trending[:3] if trending is not None else ()
    for post in top:
        print(
            f"  ▲ {post.score:>8.1f}  {clean_line(post.title, 50)} — {clean_line(post.author, 24)}",
            file=out,
        )
    print(f"  integrity: {clean_line(snapshot.integrity_summary(), 300)}", file=out)
