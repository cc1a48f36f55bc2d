"""Serving the demo network: on loopback with uvicorn, or in-process through httpx.

* ``serve(...)`` runs it until cancelled (what ``roost sandbox serve`` calls); ``port=0`` picks an
  ephemeral port, reported through ``on_ready`` once the server accepts connections.
* ``running_sandbox(...)`` runs it in a background thread for tests and stops it on exit.
* ``in_process_client(app)`` is an ``httpx.AsyncClient`` that calls the app directly.

Only loopback addresses are ever bound.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette

from tui.sandbox.app import DEMO_TOKEN, HUB_PATH, create_app
from tui.sandbox.generator import DEFAULT_EPOCH

__all__ = ["SandboxInfo", "in_process_client", "info_for", "running_sandbox", "serve"]


@dataclass(frozen=True)
class SandboxInfo:
    """Where a running sandbox answers, and the token it accepts."""

    read_url: str
    write_url: str
    repo: str
    hub_url: str
    token: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)

    @property
    def owner(self) -> str:
        return self.repo.split("/", 1)[0]

    @property
    def repo_name(self) -> str:
        return self.repo.split("/", 1)[1]


def info_for(base_url: str, app: Starlette) -> SandboxInfo:
    """The ``SandboxInfo`` of ``app`` served at ``base_url``."""
    base = base_url.rstrip("/")
    state = app.state.sandbox
    token = next(iter(state.tokens), DEMO_TOKEN)
    return SandboxInfo(
        read_url=base,
        write_url=f"{base}/api",
        repo=state.repo_full_name,
        hub_url=f"{base}{HUB_PATH}",
        token=token,
    )


def _check_loopback(host: str) -> None:
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise ValueError(f"the sandbox only listens on loopback addresses, not {host!r}")


def _bind(host: str, port: int) -> socket.socket:
    _check_loopback(host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def _base_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def _server(app: Starlette) -> uvicorn.Server:
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="off",
        access_log=False,
        server_header=False,
        # a request held open by the write_latency fault must not hold up a shutdown for long
        timeout_graceful_shutdown=1,
    )
    return uvicorn.Server(config)


async def serve(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    seed: int = 7,
    agents: int = 300,
    epoch: datetime = DEFAULT_EPOCH,
    on_ready: Callable[[SandboxInfo], None] | None = None,
    app: Starlette | None = None,
    **app_options: Any,
) -> None:
    """Serve the demo network on ``host:port`` until cancelled.

    ``on_ready`` receives the ``SandboxInfo`` (with the real port when ``port`` is 0) once the
    server accepts connections. Extra keyword arguments go to ``create_app``.
    """
    sock = _bind(host, port)
    if app is None:
        app = create_app(seed=seed, agents=agents, epoch=epoch, **app_options)
    server = _server(app)
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    try:
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started and on_ready is not None:
            on_ready(info_for(_base_url(sock), app))
        await task
    except asyncio.CancelledError:
        server.should_exit = True
        await asyncio.shield(task)
        raise
    finally:
        sock.close()


@contextmanager
def running_sandbox(
    *, host: str = "127.0.0.1", app: Starlette | None = None, timeout: float = 10.0, **kw: Any
) -> Iterator[tuple[SandboxInfo, Starlette]]:
    """Run a sandbox on an ephemeral loopback port in a background thread.

    Yields ``(info, app)``; keyword arguments go to ``create_app``. The server is stopped and the
    thread joined on exit.
    """
    if app is None:
        app = create_app(**kw)
    sock = _bind(host, 0)
    server = _server(app)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(server.serve(sockets=[sock]))
        except BaseException as exc:  # pragma: no cover - surfaced below
            errors.append(exc)

    thread = threading.Thread(target=run, name="roost-sandbox", daemon=True)
    thread.start()
    try:
        waited = 0.0
        while not server.started:
            if errors or not thread.is_alive():
                raise RuntimeError(f"the sandbox server did not start: {errors!r}")
            if waited > timeout:
                raise TimeoutError("the sandbox server did not start in time")
            threading.Event().wait(0.01)
            waited += 0.01
        yield info_for(_base_url(sock), app), app
    finally:
        server.should_exit = True
        thread.join(timeout)
        sock.close()


def in_process_client(
    app: Starlette, base_url: str = "http://sandbox.invalid", **client_options: Any
) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` that sends its requests straight to ``app`` (no socket)."""
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url=base_url, **client_options
    )
