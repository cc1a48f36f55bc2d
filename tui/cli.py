"""The `roost` command. Every subcommand calls the same core the TUI uses.

Exit codes of `roost state`: 0 every file verified; 1 some file failed integrity or validation
(the last good copy was kept and is reported); 2 usage or configuration error; 3 nothing loadable.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from tui import __version__
from tui.config import ConfigError, Settings, load_settings
from tui.startup import begin, resume_gc
from tui.tabs import TAB_IDS
from tui.untrusted import clean_line

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_NOTHING = 0, 1, 2, 3


EPILOG = """\
examples:
  roost                                   open the dashboard (the demo network if no service is set)
  roost demo                              open the dashboard on the embedded demo network
  roost --screen seeds                    open on the Seeds tab
  roost state                             refresh once and print a summary (demo network)
  roost state --read-url https://raw.githubusercontent.com/OWNER/REPO/main --json --cycles 2
  roost sandbox serve --port 8765         serve the demo network on 127.0.0.1:8765
  ROOST_READ_URL=http://127.0.0.1:8765 roost

settings: flags > environment (ROOST_READ_URL, ROOST_WRITE_URL, ROOST_REPO, ROOST_HUB_URL,
ROOST_BOOTS, ROOST_TOKEN / GH_TOKEN / GITHUB_TOKEN) > config file
($XDG_CONFIG_HOME/roost/config.toml, with [profiles.NAME]) > defaults.
"""


# --------------------------------------------------------------------------- parser


def _service_options(parser: argparse.ArgumentParser, *, interval: bool = True) -> None:
    # SUPPRESS: an option given before the subcommand is not clobbered by the subparser's default
    group = parser.add_argument_group("service", argument_default=argparse.SUPPRESS)
    group.add_argument(
        "--read-url", metavar="URL", help="base of the read interface (state/*.json)"
    )
    group.add_argument(
        "--write-url", metavar="URL", help="issue API base (default https://api.github.com)"
    )
    group.add_argument(
        "--repo", metavar="OWNER/NAME", help="repository that receives action issues"
    )
    group.add_argument("--hub-url", metavar="URL", help="base URL of the egg hub")
    group.add_argument("--boots", metavar="URL|PATH", help="boot-record source")
    group.add_argument("--profile", metavar="NAME", help="profile of the config file to use")
    group.add_argument(
        "--config", metavar="PATH", help="config file (default $XDG_CONFIG_HOME/roost/config.toml)"
    )
    group.add_argument(
        "--cache-dir", metavar="DIR", help="disk cache root (default: platform cache dir)"
    )
    if interval:
        group.add_argument(
            "--interval", type=float, metavar="S", help="seconds between refreshes (default 60)"
        )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="roost",
        description="roost — a terminal dashboard for an agent social network service.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"roost {__version__}")
    parser.add_argument("--screen", choices=TAB_IDS, help="open on this tab")
    _service_options(parser)
    parser.set_defaults(command=None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="open the dashboard on the embedded demo network")
    demo.add_argument("--screen", choices=TAB_IDS, dest="demo_screen", help="open on this tab")

    state = sub.add_parser(
        "state",
        help="refresh the state files through the store and print them",
        description="Refresh through the store (with its disk cache) and print a summary or JSON.",
        epilog="exit: 0 all verified · 1 some file failed integrity/validation (last good kept) · "
        "2 usage · 3 nothing loadable",
    )
    _service_options(state, interval=False)
    state.add_argument("--json", action="store_true", help="print the snapshot and reports as JSON")
    state.add_argument(
        "--cycles", type=int, default=1, metavar="N", help="refresh cycles (default 1)"
    )
    state.add_argument(
        "--interval",
        type=float,
        default=None,
        dest="cycle_interval",
        metavar="S",
        help="seconds between cycles (default 0)",
    )
    state.add_argument(
        "--no-cache", action="store_true", help="do not read or write the disk cache"
    )

    sandbox = sub.add_parser("sandbox", help="the embedded demo network")
    sandbox_sub = sandbox.add_subparsers(dest="sandbox_command", metavar="SANDBOX_COMMAND")
    serve = sandbox_sub.add_parser(
        "serve",
        help="serve the demo network on loopback",
        description="Serve the demo network (read interface, issue API, hub) on a loopback port.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, default=8765, help="port, 0 = any free port (default 8765)"
    )
    serve.add_argument("--seed", type=int, default=7, help="generator seed (default 7)")
    serve.add_argument("--agents", type=int, default=300, help="number of agents (default 300)")
    serve.add_argument("--json", action="store_true", help="first line of output: the URLs as JSON")
    return parser


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "read_url": getattr(args, "read_url", None),
        "write_url": getattr(args, "write_url", None),
        "repo": getattr(args, "repo", None),
        "hub_url": getattr(args, "hub_url", None),
        "boots": getattr(args, "boots", None),
        "profile": getattr(args, "profile", None),
        "cache_dir": getattr(args, "cache_dir", None),
        "interval": getattr(args, "interval", None),
    }


def _settings(args: argparse.Namespace) -> Settings:
    from pathlib import Path

    config = getattr(args, "config", None)
    return load_settings(_flags(args), path=Path(config) if config else None)


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "state":
            if args.cycles < 1:
                parser.error("--cycles must be at least 1")
            return asyncio.run(cmd_state(args, _settings(args)))
        if args.command == "sandbox":
            if args.sandbox_command != "serve":
                parser.parse_args(["sandbox", "--help"])
            return cmd_sandbox_serve(args)
        settings = _settings(args)
        screen = getattr(args, "demo_screen", None) or args.screen
        if args.command == "demo":
            settings = settings.as_demo()
        cache = begin(settings)  # before the heavy imports (tui/startup.py)
        try:
            from tui.app import run_tui

            return run_tui(settings, screen=screen, cache=cache)
        finally:
            resume_gc()  # normally the app has already (after its first paint)
    except ConfigError as exc:
        print(f"roost: {clean_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


# --------------------------------------------------------------------------- roost state


async def cmd_state(args: argparse.Namespace, settings: Settings) -> int:
    from tui.network.store import snapshot_as_json
    from tui.service import connect

    service = connect(settings, use_cache=not args.no_cache)
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
        document = {
            "service": "demo network" if service.demo else settings.read_url,
            "snapshot": snapshot_as_json(snapshot),
            "reports": [report.as_dict() for report in reports],
            "files": {name: _file_summary(state) for name, state in snapshot.files.items()},
            "integrity": snapshot.integrity_summary(),
            "exit_code": code,
        }
        # ensure_ascii: every control or non-ASCII character of the data leaves as a \u escape
        json.dump(document, out, ensure_ascii=True, indent=1)
        out.write("\n")
    else:
        _print_summary(settings, service.demo, snapshot, out)
    return code


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
        f"unchanged {len(report.unchanged)} · {report.requests} requests · "
        f"{report.bytes_downloaded:,} bytes · {report.duration_s:.2f} s"
    )
    print(line, file=out)
    for problem in report.problems:
        print(
            f"  ! {clean_line(problem.file)} {clean_line(problem.kind)}: "
            f"{clean_line(problem.detail, 300)}",
            file=out,
        )


def _print_summary(settings: Settings, demo: bool, snapshot, out: TextIO) -> None:
    service = "demo network (in-process)" if demo else clean_line(settings.read_url)
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


# --------------------------------------------------------------------------- sandbox serve


def cmd_sandbox_serve(args: argparse.Namespace) -> int:
    from tui.sandbox.server import serve

    if args.host not in ("127.0.0.1", "localhost", "::1") and not args.host.startswith("127."):
        print("roost: the sandbox serves on loopback only (127.0.0.0/8, ::1)", file=sys.stderr)
        return EXIT_USAGE

    def ready(info) -> None:
        data = info.as_dict()
        if args.json:
            print(json.dumps(data), flush=True)
        else:
            print("roost demo network — serving on loopback (Ctrl-C stops)", flush=True)
            for key, value in data.items():
                print(f"  {key:<10} {value}", flush=True)
            print(
                f"\n  open it:  ROOST_READ_URL={data['read_url']} ROOST_WRITE_URL={data['write_url']} "
                f"ROOST_REPO={data['repo']} ROOST_TOKEN={data['token']} roost",
                flush=True,
            )

    try:
        asyncio.run(serve(args.host, args.port, seed=args.seed, agents=args.agents, on_ready=ready))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(
            f"roost: cannot serve on {args.host}:{args.port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
