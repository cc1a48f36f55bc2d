"""`roost serve-ssh`: the dashboard for anyone with an SSH client (ARCHITECTURE.md, serving over
SSH).

Guests (the user name ``guest``, or anyone when no ``--authorized-keys`` is given) browse and
inspect eggs, read-only; users with a listed key may also post, with a token they type in their
own session. Each session is its own dashboard process on its own PTY (``tui/ssh``).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui.commands import EXIT_OK, EXIT_USAGE, counted, service_options, settings_from
from tui.errors import RoostError
from tui.untrusted import clean_line

__all__ = ["register", "run_serve_ssh"]

DESCRIPTION = """\
Serve the roost dashboard over SSH: `ssh -p PORT guest@HOST` opens it, nothing to install.
Guests browse and inspect eggs (read-only); users whose key is in --authorized-keys may post
with a token they type in their session. Each session runs its own dashboard process on its
own terminal, under limits. The host key is made once under roost's state folder and kept.
SIGTERM or SIGINT stops the server and ends every session."""


def _number(kind: type, low: int, high: int, what: str) -> Callable[[str], Any]:
    """An argparse type: a ``kind`` from ``low`` to ``high``; ``what`` says what is wanted."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} from {low} to {high}, got {text}")
        return value

    return parse


_count = _number(int, 1, 10**6, "a whole number")
_seconds = _number(float, 0, 10**9, "a number of seconds")
_port = _number(int, 0, 65535, "a port number")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "serve-ssh",
        help="serve the dashboard over SSH (guests read-only; keyed users may post)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=_port, default=2222, help="port, 0 = any free port (default 2222)"
    )
    parser.add_argument(
        "--authorized-keys",
        type=Path,
        metavar="FILE",
        help="OpenSSH authorized_keys of the users who may post (default: everyone is a guest)",
    )
    parser.add_argument(
        "--max-sessions", type=_count, default=16, metavar="N", help="sessions at once (default 16)"
    )
    parser.add_argument(
        "--max-per-address",
        type=_count,
        default=4,
        metavar="N",
        help="sessions at once from one address (default 4)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=_seconds,
        default=900.0,
        metavar="S",
        help="end a session after S seconds without a key, warned a minute ahead "
        "(default 900; 0 = never)",
    )
    parser.add_argument(
        "--max-session",
        type=_seconds,
        default=14400.0,
        metavar="S",
        help="end any session after S seconds (default 14400; 0 = never)",
    )
    service_options(parser)
    parser.set_defaults(handler=run_serve_ssh)


def run_serve_ssh(args: argparse.Namespace) -> int:
    from tui.ssh.auth import AuthorizedKeys
    from tui.ssh.child import service_environment
    from tui.ssh.hostkey import load_or_create, ssh_state_dir
    from tui.ssh.server import ServerLimits, SSHServe
    from tui.ssh.session import SessionLimits

    settings = settings_from(args, looks_for_token=False)  # its sessions never read a token
    state_dir = ssh_state_dir()
    try:
        authorized = (
            AuthorizedKeys.read(args.authorized_keys)
            if args.authorized_keys is not None
            else AuthorizedKeys.none()
        )
        host_key = load_or_create(state_dir)
    except RoostError as exc:  # the authorized keys, the host key or its folder
        print(f"roost: {clean_line(exc.describe())}", file=sys.stderr)
        return EXIT_USAGE
    limits = ServerLimits(
        max_sessions=args.max_sessions,
        max_per_address=args.max_per_address,
        session=SessionLimits(idle_s=args.idle_timeout, max_session_s=args.max_session),
    )
    serve = SSHServe(
        host_key=host_key,
        authorized=authorized,
        service_env=service_environment(settings),
        state_dir=state_dir,
        host=args.host,
        port=args.port,
        limits=limits,
        log=_log,
    )
    return asyncio.run(_serve(serve, settings.display_url))


def _log(line: str) -> None:
    print(f"roost serve-ssh: {line}", flush=True)


async def _serve(serve, service: str) -> int:
    try:
        await serve.start()
    except OSError as exc:
        print(
            f"roost: cannot listen on {serve.host}:{serve.port} ({exc.strerror or exc})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    host = f"[{serve.host}]" if ":" in serve.host else serve.host
    key = serve.host_key
    _log(f"listening on {host}:{serve.port} — connect with: ssh -p {serve.port} guest@{host}")
    _log(
        f"host key {key.algorithm} {key.fingerprint} "
        f"({'created' if key.created else 'kept'}: {key.path})"
    )
    _log(f"service: {service}")
    if serve.authorized.enabled:
        _log(
            f"guests: the user name guest, read-only; keyed users: "
            f"{counted(serve.authorized.count, 'key')} from {serve.authorized.source}, may post"
        )
    else:
        _log("guests: every login (no --authorized-keys), read-only")
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[int]] = []

    def stop(signum: int) -> None:
        if not stopping:
            _log(f"{signal.Signals(signum).name}: stopping, ending every session")
            stopping.append(loop.create_task(serve.stop()))

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop, signum)
    await serve.serve_until_stopped()
    ended = await stopping[0] if stopping else 0
    _log(f"stopped ({counted(ended, 'session')} ended)")
    return EXIT_OK
