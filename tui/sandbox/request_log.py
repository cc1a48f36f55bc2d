"""The sandbox's request log: what each request asked and how it was answered.

Tests assert on it (a token never reaches the read URL, a refresh costs one conditional request),
so every request outside the control endpoints is recorded, with the Authorization header
redacted before it is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["LOG_LIMIT", "RequestLog", "RequestLogMiddleware", "RequestRecord"]

#: The log keeps the latest requests only, so a long demo session does not grow without end.
LOG_LIMIT = 10_000


@dataclass(frozen=True)
class RequestRecord:
    """One request the sandbox answered. Unpacks as ``(method, path, status, body)`` where body
    is the *request* body; the rest is kept for finer assertions."""

    method: str
    path: str
    status: int
    body: bytes
    query: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    response_bytes: int = 0

    def __iter__(self):
        return iter((self.method, self.path, self.status, self.body))

    def header(self, name: str) -> str | None:
        name = name.lower()
        return next((v for k, v in self.headers if k == name), None)


class RequestLog(Protocol):
    """Where the middleware puts a record (the sandbox state)."""

    def log(self, record: RequestRecord) -> None: ...


class RequestLogMiddleware:
    """Records every request outside ``unlogged_prefix`` (the Authorization header redacted)."""

    def __init__(
        self, app: ASGIApp, get_state: Callable[[], RequestLog], unlogged_prefix: str = "/_sandbox"
    ):
        self.app = app
        self.get_state = get_state
        self.unlogged_prefix = unlogged_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(self.unlogged_prefix):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        status = 0
        size = 0

        async def logging_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                chunks.append(message.get("body", b""))
            return message

        async def logging_send(message: Message) -> None:
            nonlocal status, size
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                size += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, logging_receive, logging_send)
        finally:
            headers = tuple(
                (
                    k.decode("latin-1").lower(),
                    "<redacted>" if k.lower() == b"authorization" else v.decode("latin-1"),
                )
                for k, v in scope.get("headers", [])
            )
            self.get_state().log(
                RequestRecord(
                    method=scope["method"],
                    path=scope["path"],
                    status=status,
                    body=b"".join(chunks),
                    query=scope.get("query_string", b"").decode("latin-1"),
                    headers=headers,
                    response_bytes=size,
                )
            )
