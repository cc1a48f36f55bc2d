"""`roost sandbox serve`: the embedded demo network on a loopback port, playing the deployment
as it runs today (its contract, its receipts, Discussions) or, with ``--processor classic``, its
older processor."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import UTC, datetime

from tui.commands import EXIT_OK, EXIT_USAGE

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    sandbox = sub.add_parser("sandbox", help="the embedded demo network")
    sandbox_sub = sandbox.add_subparsers(dest="sandbox_command", metavar="SANDBOX_COMMAND")
    sandbox.set_defaults(handler=lambda args: _help(sandbox))
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
    serve.add_argument(
        "--epoch",
        type=_epoch,
        default=None,
        metavar="ISO-TIME",
        help="the network's 'now' (default: the current hour, as `roost demo` takes it)",
    )
    serve.add_argument(
        "--processor",
        choices=("newer", "classic"),
        default="newer",
        help="the processor generation to play: newer (QUEUED, then APPLIED/REJECTED with "
        "receipts under state/inbox/; the default) or classic (✅ and close, or ❌)",
    )
    serve.add_argument(
        "--discussions-cache",
        choices=("light", "full"),
        default="light",
        help="the form state/discussions_cache.json is published in: light (post bodies and "
        "comment authors, as the deployment's; the default) or full (comment bodies too)",
    )
    serve.add_argument(
        "--unpublish",
        action="append",
        default=[],
        metavar="FILE",
        help="play a deployment that does not publish FILE under state/ (it answers 404 and "
        "the manifest leaves it out), e.g. notifications.json, or memory for every soul page; "
        "repeatable",
    )
    serve.add_argument("--json", action="store_true", help="first line of output: the URLs as JSON")
    serve.set_defaults(handler=cmd_sandbox_serve)


def _epoch(text: str) -> datetime:
    """An ISO time for --epoch (naive means UTC)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO time: {text!r}") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return EXIT_OK


def cmd_sandbox_serve(args: argparse.Namespace) -> int:
    # deferred: off the start path
    from tui.sandbox.faults import Faults
    from tui.sandbox.server import serve
    from tui.service import demo_epoch

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
        # the same "now" as `roost demo`: the data is current
        epoch = args.epoch or demo_epoch()
        asyncio.run(
            serve(
                args.host,
                args.port,
                seed=args.seed,
                agents=args.agents,
                epoch=epoch,
                on_ready=ready,
                processor=args.processor,
                discussions_cache=args.discussions_cache,
                faults=Faults(unpublished=set(args.unpublish)),
            )
        )
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(
            f"roost: cannot serve on {args.host}:{args.port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return EXIT_OK
