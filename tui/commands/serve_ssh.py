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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.commands import EXIT_OK, EXIT_USAGE, counted, load_from, service_options
from tui.errors import RoostError
from tui.ssh.log import ServerLog
from tui.untrusted import clean_line

if TYPE_CHECKING:
    from tui.config import Settings
    from tui.session import Session
    from tui.ssh.refresher import Refresher
    from tui.ssh.server import ServerLimits, SSHServe

__all__ = ["register", "run_serve_ssh"]

DESCRIPTION = """\
Serve the roost dashboard over SSH: `ssh -p PORT guest@HOST` opens it, nothing to install.
Guests browse and inspect eggs (read-only); users whose key is in --authorized-keys may post
with a token they type in their session. Each session runs its own dashboard process on its
own terminal, under limits (forked from one that has imported the dashboard and read the
state: they start at once and share its memory). The host key is made once under roost's state folder and kept.
SIGTERM, SIGINT or SIGHUP stops the server and ends every session (a second one ends them at
once)."""


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
_places = _number(int, 0, 10**6, "a whole number")


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
        "--guest-sessions",
        type=_places,
        metavar="N",
        help="of those, how many guests may hold; the rest are kept for keyed users "
        "(default: --max-sessions minus 2; needs --authorized-keys)",
    )
    parser.add_argument(
        "--max-per-address",
        type=_count,
        default=4,
        metavar="N",
        help="sessions at once from one address (default 4)",
    )
    parser.add_argument(
        "--max-connections",
        type=_count,
        metavar="N",
        help="connections at once, logged in or not (default: 4 × --max-sessions)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=_seconds,
        default=900.0,
        metavar="S",
        help="end a session after S seconds without a key, warned a minute ahead; a "
        "logged-in connection with no session is closed after S seconds too, when that is "
        "sooner than the 30 s login timeout (default 900; 0 = never)",
    )
    parser.add_argument(
        "--max-session",
        type=_seconds,
        default=14400.0,
        metavar="S",
        help="end any session after S seconds (default 14400; 0 = never)",
    )
    parser.add_argument(
        "--no-zygote",
        dest="zygote",
        action="store_false",
        help="start each session's dashboard as a fresh process, instead of forking it from "
        "one that has already imported the dashboard and read the state",
    )
    service_options(parser)
    parser.set_defaults(handler=run_serve_ssh)


def server_limits(args: argparse.Namespace) -> ServerLimits:
    """The server's caps and timeouts from the command line."""
    # deferred: off the start path
    from tui.ssh.server import ServerLimits
    from tui.ssh.session import SessionLimits

    return ServerLimits(
        max_sessions=args.max_sessions,
        max_per_address=args.max_per_address,
        max_connections=args.max_connections,
        guest_sessions=args.guest_sessions,
        session=SessionLimits(idle_s=args.idle_timeout, max_session_s=args.max_session),
    )


def run_serve_ssh(args: argparse.Namespace) -> int:
    # deferred: off the start path
    from tui.ssh.auth import AuthorizedKeys
    from tui.ssh.child import service_environment
    from tui.ssh.hostkey import load_or_create, ssh_state_dir
    from tui.ssh.server import SSHServe

    log = ServerLog("roost serve-ssh: ")
    if args.guest_sessions is not None and args.authorized_keys is None:
        log.error(
            "roost: --guest-sessions needs --authorized-keys (without it every login is a "
            "guest, and --max-sessions is their cap)"
        )
        return EXIT_USAGE
    # its sessions never read a token
    settings, session = load_from(args, looks_for_token=False)
    state_dir = ssh_state_dir()
    try:
        authorized = (
            AuthorizedKeys.read(args.authorized_keys)
            if args.authorized_keys is not None
            else AuthorizedKeys.none()
        )
        host_key = load_or_create(state_dir)
    except RoostError as exc:
        log.error(f"roost: {clean_line(exc.describe())}")
        return EXIT_USAGE
    serve = SSHServe(
        refresher=_refresher(settings, session, log),
        host_key=host_key,
        authorized=authorized,
        service_env=service_environment(settings),
        state_dir=state_dir,
        host=args.host,
        port=args.port,
        limits=server_limits(args),
        log=log,
        zygote=args.zygote,
    )
    return asyncio.run(_serve(serve, settings.display_url, log))


def _refresher(settings: Settings, session: Session, log: ServerLog) -> Refresher:
    """The server's one store (the service's own, as `roost` builds it, on the same disk cache
    its sessions read): it refreshes the state for every session (tui/ssh/refresher.py)."""
    # deferred: off the start path
    from tui.service import connect
    from tui.ssh.refresher import Refresher

    return Refresher(connect(settings, session).store, log=log)


def _stop_signals() -> list[signal.Signals]:
    """SIGTERM, and SIGINT and SIGHUP unless the server was started to ignore them (``nohup``,
    a background job of a script): those stay ignored."""
    wanted = [signal.SIGTERM]
    for signum in (signal.SIGINT, signal.SIGHUP):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            wanted.append(signum)
    return wanted


async def _serve(serve: SSHServe, service: str, log: ServerLog) -> int:
    try:
        await serve.start()
    except OSError as exc:
        log.error(f"roost: cannot listen on {serve.host}:{serve.port} ({exc.strerror or exc})")
        return EXIT_USAGE
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[int]] = []

    def stop(signum: signal.Signals) -> None:
        # the stop is under way before anything is said: a line can never keep it from starting
        if not stopping:
            stopping.append(loop.create_task(serve.stop()))
            log(f"{signum.name}: stopping, ending every session")
        else:
            serve.hurry()
            log(f"{signum.name} again: ending every session now")

    for signum in _stop_signals():
        loop.add_signal_handler(signum, stop, signum)
    host = f"[{serve.host}]" if ":" in serve.host else serve.host
    key = serve.host_key
    log(f"listening on {host}:{serve.port} — connect with: ssh -p {serve.port} guest@{host}")
    log(
        f"host key {key.algorithm} {key.fingerprint} "
        f"({'created' if key.created else 'kept'}: {key.path})"
    )
    log(f"service: {service}")
    limits = serve.server_limits
    if serve.authorized.enabled:
        log(
            f"guests: the user name guest, read-only, {limits.guest_places} of the "
            f"{counted(limits.max_sessions, 'place')}; keyed users: "
            f"{counted(serve.authorized.count, 'key')} from {serve.authorized.source}, may post"
        )
    else:
        log("guests: every login (no --authorized-keys), read-only")
    await serve.serve_until_stopped()
    ended = await stopping[0] if stopping else 0
    log(f"stopped ({counted(ended, 'session')} ended)")
    return EXIT_OK
