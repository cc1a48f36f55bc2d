"""The zygote's own program: ``python -P -m tui.ssh.zygote_main CONTROL_FD FEED_FD``
(ARCHITECTURE.md, serving over SSH; the server's side is ``tui.ssh.zygote``).

It imports the dashboard (Textual, the app, every tab's screen), reads the state from the disk
cache and follows the server's refresher like any session, so that its copy is always the
newest. Then it waits. For each session the server sends one request over ``CONTROL_FD`` (a
``SOCK_SEQPACKET`` socket): the session's environment, folder and limits, with its PTY's slave
side and its feed from the refresher as descriptors. The zygote freezes what it holds out of
the collector's sight (``gc.freeze``: the collector never writes to those objects, so their
pages stay shared copy-on-write) and forks; the fork forks the session's dashboard and leaves
at once, so the dashboard becomes the server's own child (the server is a subreaper) and the
zygote's life is no part of it. The zygote answers with the dashboard's pid.

The dashboard, before anything else: a session of its own (``setsid``), every descriptor closed
but its PTY (made its standard streams and controlling terminal) and its own feed, its resource
limits, the environment and folder the server built for it, a new random seed. Then it runs
`roost` as ``python -m tui`` would, starting from the zygote's snapshot instead of reading the
disk cache (``tui.ui.speed.start_from``), and exits; it never returns into the zygote's loop.

The zygote is single-threaded and runs no event loop between requests (a cycle from the
refresher is applied in one ``asyncio.run``, whose threads are gone when it returns), so a fork
copies no lock held by another thread. It exits when the server closes its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import io
import json
import os
import random
import selectors
import socket
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.config import Settings
    from tui.network.feed import FollowerStore
    from tui.session import Session

__all__ = ["main"]

PR_SET_NAME = 15  # prctl(2): the name ps and top show (/proc/PID/comm)
ZYGOTE_NAME = b"roost-zygote"
SESSION_NAME = b"roost-session"
REQUEST_CAP = 1 << 20  # a request (an environment, a folder, limits) is a few KB
#: The zygote's own sockets: a dashboard lets go of them (their descriptors are closed in it,
#: and an object that still owned one would close whatever later took its number).
_OWNED: list[socket.socket] = []


def _preload(feed: int) -> FollowerStore:
    """Import the dashboard and read the state as a session would (the same settings, the
    same service and cache folder), following the refresher on ``feed``."""
    # deferred: the zygote's whole point is to import these once, before any fork
    from tui import cli
    from tui.commands import load_from
    from tui.commands.dashboard import preload_dashboard
    from tui.network.disk_cache import DiskCache
    from tui.network.feed import FollowerStore
    from tui.network.store import StoreOptions
    from tui.ssh.mode import for_session
    from tui.ui import speed

    settings, session = load_from(cli.build_parser().parse_args([]), looks_for_token=False)
    session = for_session(session)
    preload_dashboard()
    store = FollowerStore(
        settings.state_url,
        feed=feed,
        cache=DiskCache.for_service(settings.state_url, settings.cache_dir),
        options=StoreOptions(interval_s=settings.interval),
        building=speed.building(),
    )
    store.load_cache()
    _warm(settings, session, store)
    return store


def _warm(settings: Settings, session: Session, store: FollowerStore) -> None:
    """Run the dashboard once headless on the zygote's snapshot (its own service, on a feed
    that says nothing), so that what a session parses and imports at its start is done here,
    once (tui/commands/dashboard.py)."""
    # deferred: with the rest of the preload
    from tui.commands.dashboard import warm_dashboard
    from tui.network.feed import FollowerStore
    from tui.service import connect

    ours, theirs = socket.socketpair()
    try:
        service = connect(settings, session, follow=theirs.detach())
        if isinstance(service.store, FollowerStore):
            service.store.adopt(store)
        warm_dashboard(service)
    except Exception as exc:  # noqa: BLE001 — sessions then do it themselves, as spawned ones
        print(f"zygote: the dashboard's warm-up failed: {exc!r}"[:300], file=sys.stderr)
    finally:
        ours.close()


def _located(store: FollowerStore) -> None:
    """Work out the spans of the big keyed files once, here, rather than in every session on
    its first change (tui/network/keyed.py)."""
    from tui.network.keyed import located  # deferred: with the rest of the preload

    store._keyed = {name: located(keyed) for name, keyed in store._keyed.items()}


def _freeze() -> None:
    """What the zygote holds, out of the collector's sight from now on: no pass writes to those
    objects in a session (copy-on-write pages stay shared); garbage first."""
    from tui.ui import speed  # deferred: with the rest of the preload

    speed.freeze_for_fork()


def name_process(name: bytes) -> None:
    """What ps and top call this process (its command line stays the zygote's)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(PR_SET_NAME, ctypes.c_char_p(name), 0, 0, 0)


# ------------------------------------------------------------------ a session's dashboard


def _close_all_but(keep: set[int]) -> None:
    """Close every descriptor but ``keep`` (the zygote's control socket and feed above all)."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)


def _streams() -> None:
    """Standard streams on the PTY (descriptors 0, 1, 2), as a fresh interpreter makes them on
    a terminal: line-buffered, UTF-8 (the zygote's were not on a terminal)."""
    streams = {
        "stdin": io.TextIOWrapper(
            io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8"
        ),
        "stdout": io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
            encoding="utf-8",
            line_buffering=True,
        ),
        "stderr": io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
            encoding="utf-8",
            errors="backslashreplace",
            line_buffering=True,
        ),
    }
    for name, stream in streams.items():
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)  # Textual's driver writes to sys.__stdout__


def _become_session(request: dict[str, Any], slave: int, feed: int, store: Any) -> int:
    """In the forked dashboard: its own session, PTY, limits, environment; then `roost`."""
    # deferred: already imported by the preload, named here for what the child uses
    from tui import cli
    from tui.ssh.child import ChildLimits, setup_in_child
    from tui.ssh.mode import FEED_VAR
    from tui.ui import speed

    os.setsid()
    name_process(SESSION_NAME)
    for owned in _OWNED:
        owned.detach()
    _close_all_but({slave, feed})
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    if slave > 2:
        os.close(slave)
    env = {str(key): str(value) for key, value in request["env"].items()}
    env[FEED_VAR] = str(feed)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(request["cwd"])
    setup_in_child(ChildLimits(*request["limits"]))()  # controlling terminal, rlimits, nice
    random.seed()  # not the zygote's sequence, shared by every fork
    _streams()
    speed.start_from(store)
    return cli.main([])


def _fork_session(request: dict[str, Any], slave: int, feed: int, store: Any) -> int:
    """Fork the session's dashboard through a middle process that leaves at once (so the
    dashboard is the server's child); its pid. (What the zygote holds was frozen when it last
    changed: freezing again here would collect over all of it, for every session.)"""
    read, write = os.pipe()
    middle = os.fork()
    if middle == 0:  # the middle process
        code = 1
        try:
            os.close(read)
            pid = os.fork()
            if pid == 0:  # the session's dashboard
                try:
                    os.close(write)
                    code = _become_session(request, slave, feed, store)
                finally:
                    with contextlib.suppress(Exception):
                        sys.stdout.flush()
                    os._exit(code if isinstance(code, int) else 1)
            os.write(write, str(pid).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    try:
        with os.fdopen(read, "rb") as pipe:
            answer = pipe.read()
    finally:
        os.waitpid(middle, 0)  # gone: the dashboard is the server's child from here on
    return int(answer)


# ------------------------------------------------------------------ the loop


def _answer(control: socket.socket, message: dict[str, Any]) -> None:
    control.send(json.dumps(message).encode())


def _request(control: socket.socket, store: Any) -> bool:
    """Serve one request; False when the server has gone."""
    data, fds, _flags, _address = socket.recv_fds(control, REQUEST_CAP, 2)
    if not data:
        return False
    try:
        if len(fds) != 2:
            _answer(control, {"error": "a request needs a PTY and a feed"})
            return True
        try:
            request = json.loads(data)
            pid = _fork_session(request, fds[0], fds[1], store)
        except Exception as exc:  # noqa: BLE001 — told to the server, which spawns instead
            _answer(control, {"error": f"{type(exc).__name__}: {exc}"[:300]})
            return True
        _answer(control, {"pid": pid})
        return True
    finally:
        for fd in fds:
            os.close(fd)


def _follow(store: Any, lines: list[bytes]) -> None:
    """Apply the newest cycle from the refresher (each is whole: older ones add nothing)."""
    if lines and asyncio.run(store.follow_line(lines[-1])):
        _located(store)
        _freeze()


def serve(control: socket.socket, feed: socket.socket, store: Any) -> int:
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ, "control")
    selector.register(feed, selectors.EVENT_READ, "feed")
    pending = bytearray()
    while True:
        for key, _events in selector.select():
            if key.data == "control":
                if not _request(control, store):
                    return 0
                continue
            try:
                data = feed.recv(1 << 16)
            except OSError:
                data = b""
            if not data:  # the refresher is gone: the copy stays as it is
                selector.unregister(feed)
                continue
            pending += data
            *lines, rest = bytes(pending).split(b"\n")
            pending = bytearray(rest)
            _follow(store, lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    control = socket.socket(fileno=int(args[0]))
    feed_fd = int(args[1])
    name_process(ZYGOTE_NAME)
    started = time.perf_counter()
    store = _preload(os.dup(feed_fd))  # the store's own copy; the loop reads this one
    feed = socket.socket(fileno=feed_fd)
    _OWNED.extend([control, feed, store._feed])
    _located(store)
    _freeze()
    control.setblocking(True)
    _answer(control, {"ready": os.getpid(), "read_s": round(time.perf_counter() - started, 3)})
    return serve(control, feed, store)


if __name__ == "__main__":
    sys.exit(main())
