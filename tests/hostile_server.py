"""A hostile HTTP server on loopback, for the fetch path, the store, the CLI (and eggs, issues).

``with HostileServer() as server:`` runs an asyncio server on ``127.0.0.1`` in its own thread
(so a ``subprocess`` CLI test can use it as well as an async test); ``server.route(path, reply)``
says how a path answers and ``server.url`` is its base. A reply is a coroutine function
``(writer, request) -> None`` that writes whatever bytes it likes; the builders below make the
behaviours a hostile server shows: :func:`ok`, :func:`trickle`, :func:`gzip_bomb`,
:func:`stacked_gzip`, :func:`lying_length`, :func:`not_modified`, :func:`raw`, :func:`reset`,
:func:`slow_headers`.
Every loop is bounded by its own data, and a reply that meets a closed client just stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import socket
import struct
import threading
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

__all__ = [
    "HostileServer",
    "Request",
    "gzip_bomb",
    "json_ok",
    "lying_length",
    "not_modified",
    "ok",
    "raw",
    "reset",
    "slow_headers",
    "stacked_gzip",
    "status",
    "trickle",
]


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]


Reply = Callable[[asyncio.StreamWriter, Request], Awaitable[None]]


def _head(status: int, headers: list[tuple[str | bytes, str | bytes]]) -> bytes:
    reason = {200: b"OK", 201: b"Created", 304: b"Not Modified", 404: b"Not Found"}.get(
        status, b"X"
    )
    lines = [b"HTTP/1.1 %d %s" % (status, reason), b"Connection: close"]
    for name, value in headers:
        name = name.encode("latin-1") if isinstance(name, str) else name
        value = value.encode("utf-8") if isinstance(value, str) else value
        lines.append(name + b": " + value)
    return b"\r\n".join(lines) + b"\r\n\r\n"


def ok(body: bytes, headers: list[tuple[str | bytes, str | bytes]] = ()) -> Reply:
    """200 with ``body`` and a true Content-Length (plus ``headers``)."""

    async def reply(writer: asyncio.StreamWriter, request: Request) -> None:
        writer.write(_head(200, [("Content-Length", str(len(body))), *headers]) + body)

    return reply


def status(
    code: int, body: bytes = b"", headers: list[tuple[str | bytes, str | bytes]] = ()
) -> Reply:
    """Any status with ``body`` and a true Content-Length (plus ``headers``)."""

    async def reply(writer: asyncio.StreamWriter, request: Request) -> None:
        writer.write(_head(code, [("Content-Length", str(len(body))), *headers]) + body)

    return reply


def json_ok(body: bytes, **extra: str) -> Reply:
    return ok(body, [("Content-Type", "application/json"), *extra.items()])


def raw(data: bytes) -> Reply:
    """Exactly these bytes (status line, headers and body), then close."""

    async def reply(writer: asyncio.StreamWriter, request: Request) -> None:
        writer.write(data)

    return reply


def trickle(body: bytes, every_s: float, step: int = 1) -> Reply:
    """Chunked, ``step`` bytes every ``every_s`` seconds, until the body is sent."""

    async def reply(writer: asyncio.StreamWriter, request: Request) -> None:
        writer.write(_head(200, [("Transfer-Encoding", "chunked")]))
        for start in range(0, len(body), step):
            piece = body[start : start + step]
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            await asyncio.sleep(every_s)
        writer.write(b"0\r\n\r\n")

    return reply


def slow_headers(every_s: float, count: int = 10_000) -> Reply:
    """The status line, then one header byte every ``every_s`` seconds (``count`` at most)."""

    async def reply(writer: asyncio.StreamWriter, request: Request) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\n")
        for _ in range(count):
            writer.write(b"X")
            await writer.drain()
            await asyncio.sleep(every_s)

    return reply


_BOMBS: dict[int, bytes] = {}


def bomb_bytes(decoded: int) -> bytes:
    """A gzip stream of ``decoded`` zero bytes (about a thousandth of that on the wire)."""
    if decoded not in _BOMBS:
        engine = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
        block = bytes(1 << 20)
        parts = [
            engine.compress(block[: min(len(block), decoded - done)])
            for done in range(0, decoded, len(block))
        ]
        _BOMBS[decoded] = b"".join(parts) + engine.flush()
    return _BOMBS[decoded]


def gzip_bomb(decoded: int, encoding: str = "gzip") -> Reply:
    """``Content-Encoding: gzip`` whose body inflates to ``decoded`` bytes."""
    data = bomb_bytes(decoded)
    return ok(data, [("Content-Encoding", encoding)])


def stacked_gzip(body: bytes, layers: int = 2) -> Reply:
    """``Content-Encoding: gzip, gzip`` (the body really compressed ``layers`` times)."""
    data = body
    for _ in range(layers):
        data = gzip.compress(data)
    return ok(data, [("Content-Encoding", ", ".join(["gzip"] * layers))])


def lying_length(body: bytes, declared: int) -> Reply:
    """``Content-Length: declared`` over a body of another length, then close."""

    async def reply(writer: asyncio.StreamWriter, request: Request) -> None:
        writer.write(_head(200, [("Content-Length", str(declared))]) + body)

    return reply


def not_modified(headers: list[tuple[str | bytes, str | bytes]] = ()) -> Reply:
    """304, whatever was asked (with or without an ETag of its own)."""

    async def reply(writer: asyncio.StreamWriter, request: Request) -> None:
        writer.write(_head(304, list(headers)))

    return reply


def reset() -> Reply:
    """Drop the connection with a TCP reset before any reply."""

    async def reply(writer: asyncio.StreamWriter, request: Request) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()

    return reply


@dataclass
class HostileServer:
    """The server; use it as a context manager. Unrouted paths answer 404.

    A route is found by ``"METHOD /path?query"``, ``"METHOD /path"``, ``"/path?query"``, then
    ``"/path"``."""

    routes: dict[str, Reply] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)

    def route(self, path: str, reply: Reply) -> None:
        self.routes[path] = reply

    def __enter__(self) -> HostileServer:
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        async def start() -> None:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()

        self._thread = threading.Thread(
            target=self._loop.run_forever, name="hostile-server", daemon=True
        )
        self._thread.start()
        asyncio.run_coroutine_threadsafe(start(), self._loop)
        ready.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # CancelledError too: a reply still trickling when the server stops just ends
        with contextlib.suppress(
            ConnectionError, asyncio.IncompleteReadError, OSError, asyncio.CancelledError
        ):
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
            request = Request(method, path, headers)
            self.requests.append(request)
            bare = path.split("?", 1)[0]
            reply = (
                self.routes.get(f"{method} {path}")
                or self.routes.get(f"{method} {bare}")
                or self.routes.get(path)
                or self.routes.get(bare)
                or raw(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            )
            await reply(writer, request)
            await writer.drain()
        with contextlib.suppress(Exception):
            writer.close()
