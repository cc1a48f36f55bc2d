"""One hardened GET: conditional, deadlined, size-capped after decoding, hashed while read.

Every request roost makes to a server it does not control goes through :func:`fetch` (state
files, the manifest, eggs, boot records) or :func:`exchange` (the issue API, any method), because a hostile server can trickle, lie about
lengths, compress a bomb or send headers that crash a client that trusts them. The API::

    result = await fetch(client, url, cap=1 << 20, etag=..., last_modified=...,
                         deadline_s=120, min_rate=1024, rate_grace_s=10, on_progress=None)

returns a :class:`FetchResult` (``status``, ``body``, ``sha256`` of the decoded body,
``bytes_read`` from the wire, and the ``etag`` / ``last_modified`` / ``retry_after`` headers, each
kept only when it is visible ASCII, so it can be sent back safely), or raises a
:class:`FetchError` — and only a FetchError (cancellation aside):

* :class:`TooLarge` — the decoded body passed ``cap`` (counted as bytes are produced, so memory
  stays near ``cap``), ``Content-Length`` declared more, or the decoded/wire ratio passed
  :data:`MAX_RATIO` (a compression bomb);
* :class:`TooSlow` — no complete reply within ``deadline_s``, or, after ``rate_grace_s``, fewer
  than ``min_rate`` bytes per second on average (headers included: one timer covers both);
* :class:`BadEncoding` — a ``Content-Encoding`` that is stacked (``gzip, gzip``), unknown, or
  whose data does not decode;
* :class:`NetworkError` — connection, protocol or TLS trouble (httpx's errors, described);
* :class:`OffOrigin` — a redirect to another origin (scheme, host, port), when the caller
  follows redirects within the URL's origin (``same_origin=True``); it names both URLs;
* :class:`BadReply` — anything else the reply did that a client cannot use.

Redirects: :func:`fetch` follows none unless asked to follow those within the URL's origin
(``same_origin=True``, at most :data:`MAX_REDIRECTS`; GitHub's raw host and Pages redirect
within themselves), whatever the client's own setting; a 3xx it does not follow is a status
like any other. ``FetchResult.url`` is the URL actually read.

Every error has ``kind`` (a short word for reports), ``reason`` (one readable line), ``url``
(credentials redacted) and ``bytes_read`` (from the wire before it gave up); ``str(error)`` is
``"<url>: <reason>"``. Non-200 replies are not errors:
the caller reads ``status`` (their bodies are read up to 64 KiB, not decoded, not kept).
``on_progress(wire_bytes, declared_length)`` is called after each chunk (egg downloads draw a
progress bar with it). Only gzip and deflate are asked for and accepted.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import msgspec

from tui.errors import RoostError
from tui.network.urls import origin_of, redact_url

if TYPE_CHECKING:
    import httpx

__all__ = [
    "MAX_RATIO",
    "BadEncoding",
    "BadReply",
    "FetchError",
    "FetchResult",
    "NetworkError",
    "OffOrigin",
    "Reply",
    "Unreachable",
    "TooLarge",
    "TooSlow",
    "exchange",
    "fetch",
    "header_token",
]

DEADLINE_S = 120.0
MIN_RATE = 1024.0  # bytes per second, averaged from the start of the request
RATE_GRACE_S = 10.0
MAX_RATIO = 100  # decoded bytes per wire byte; real state files compress about 5:1
RATIO_SLACK = 1 << 20  # below this many decoded bytes the ratio is not checked
ERROR_BODY_CAP = 64 * 1024
_PIECE = 64 * 1024  # the most a decoder produces before the cap is checked again
_ACCEPTED_ENCODINGS = ("gzip", "x-gzip", "deflate")
#: The most redirects one fetch follows within its origin.
MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_VISIBLE_ASCII = re.compile(rb"[\x21-\x7e](?:[\x20-\x7e]{0,1022}[\x21-\x7e])?")


class FetchError(RoostError):
    """A request that did not give a usable reply; ``reason`` says why in one line."""

    kind = "network"
    bytes_read = 0  # bytes that came over the wire before the request was given up

    def __init__(self, url: str, reason: str):
        self.url = redact_url(url)
        self.reason = reason.replace(url, self.url)
        super().__init__(f"{self.url}: {self.reason}")


class TooLarge(FetchError):
    """The decoded body passed its cap (or a compression ratio that only a bomb reaches)."""

    kind = "too-large"

    def __init__(self, url: str, cap: int, seen: int, why: str = ""):
        self.cap = cap
        self.seen = seen
        super().__init__(
            url, why or f"larger than the {cap:,}-byte cap (stopped after {seen:,} bytes)"
        )


class TooSlow(FetchError):
    """The reply missed the deadline or the minimum transfer rate."""

    kind = "too-slow"


class BadEncoding(FetchError):
    """A Content-Encoding that is stacked, unknown or does not decode."""

    kind = "encoding"


class NetworkError(FetchError):
    """Connection, TLS or HTTP protocol trouble."""

    kind = "network"


class Unreachable(NetworkError):
    """No connection could be made: nothing was sent (a write may safely be sent again)."""


class OffOrigin(FetchError):
    """A redirect to another origin than the URL's: not followed (``target`` is where it
    pointed, redacted)."""

    kind = "redirect"

    def __init__(self, url: str, target: str, status: int):
        self.target = redact_url(target)
        super().__init__(
            url,
            f"HTTP {status} redirected to {self.target}, another origin: not followed "
            "(a read URL's documents are read from its own origin only)",
        )


class BadReply(FetchError):
    """A reply the client cannot use for any other reason."""

    kind = "bad-reply"


class FetchResult(msgspec.Struct, frozen=True):
    status: int
    body: bytes = b""
    sha256: str = ""
    etag: str | None = None
    last_modified: str | None = None
    bytes_read: int = 0  # from the wire, before decoding
    retry_after: str | None = None
    size: int = 0  # decoded bytes (``body`` is empty when they went to a ``sink``)
    url: str = ""  # the URL actually read (after redirects within its origin)

    @property
    def not_modified(self) -> bool:
        return self.status == 304


class Reply(msgspec.Struct, frozen=True):
    """What :func:`exchange` got: any status, its headers and its decoded, capped body.

    ``headers`` has lower-case names and keeps a value only when it is visible ASCII (see
    :func:`header_token`): a value that could not be sent back or shown safely is absent."""

    status: int
    headers: Mapping[str, str]
    body: bytes = b""

    def json(self) -> Any:
        """The body as JSON; ``ValueError`` when it is not (bad UTF-8 included)."""
        return json.loads(self.body)


def header_token(value: object) -> str | None:
    """``value`` if it is a header value safe to send back (visible ASCII, ≤1 KiB), else None.

    ETag and Last-Modified come from the server and from the disk cache; anything else (non-ASCII,
    controls, a number from a damaged meta file) is dropped rather than replayed.
    """
    if isinstance(value, str):
        try:
            value = value.encode("ascii")
        except UnicodeEncodeError:
            return None
    if not isinstance(value, bytes) or not _VISIBLE_ASCII.fullmatch(value):
        return None
    return value.decode("ascii")


async def fetch(
    client: httpx.AsyncClient,
    url: str,
    *,
    cap: int,
    etag: str | None = None,
    last_modified: str | None = None,
    deadline_s: float = DEADLINE_S,
    min_rate: float = MIN_RATE,
    rate_grace_s: float = RATE_GRACE_S,
    accept: str = "application/json",
    on_progress: Callable[[int, int | None], None] | None = None,
    sink: Callable[[bytes], object] | None = None,
    same_origin: bool = False,
) -> FetchResult:
    """GET ``url`` (conditionally when validators are given). See the module docstring.

    ``sink``: a 200's decoded body is handed to it piece by piece instead of being kept (the
    result's ``body`` is then empty; ``size`` and ``sha256`` still describe it).
    ``same_origin``: follow redirects within ``url``'s origin; one elsewhere raises
    :class:`OffOrigin`. Otherwise no redirect is followed."""

    headers = {"Accept": accept, "Accept-Encoding": "gzip, deflate"}
    if etag := header_token(etag):
        headers["If-None-Match"] = etag
    if last_modified := header_token(last_modified):
        headers["If-Modified-Since"] = last_modified
    request = _Request(url, cap, deadline_s, min_rate, rate_grace_s, on_progress)
    request.sink, request.same_origin = sink, same_origin
    result = await _guarded(url, request.run(client, headers))
    assert isinstance(result, FetchResult)
    return result


async def exchange(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    headers: Mapping[str, str],
    content: bytes | None = None,
    params: Mapping[str, Any] | None = None,
    cap: int,
    deadline_s: float = DEADLINE_S,
    min_rate: float = MIN_RATE,
    rate_grace_s: float = RATE_GRACE_S,
    timeout: Any = None,
) -> Reply:
    """One request to an API (the issue platform) with :func:`fetch`'s guards: one deadline
    and rate floor, the decoded body capped at ``cap`` whatever its status, stacked encodings
    and bombs refused, header values kept only when safe; redirects are not followed. Raises
    only :class:`FetchError` (:class:`Unreachable` when no connection was made)."""
    sent = {"Accept-Encoding": "gzip, deflate", **headers}
    request = _Request(url, cap, deadline_s, min_rate, rate_grace_s, None)
    request.method, request.content, request.params, request.any_status = (
        method,
        content,
        params,
        True,
    )
    request.timeout = timeout
    reply = await _guarded(url, request.run(client, sent))
    assert isinstance(reply, Reply)
    return reply


async def _guarded(url: str, running: Awaitable[FetchResult | Reply]) -> FetchResult | Reply:
    """Every failure of one request as a :class:`FetchError`, never anything else."""
    import httpx  # deferred: off the start path

    try:
        return await running
    except FetchError:
        raise
    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
        raise Unreachable(url, _describe(exc)) from None
    except httpx.TimeoutException as exc:
        raise TooSlow(url, _describe(exc)) from None
    except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as exc:
        raise NetworkError(url, _describe(exc)) from None
    except (OSError, ValueError, LookupError, TypeError, AttributeError, zlib.error) as exc:
        # A reply that trips something below httpx (h11, the socket, the header codec) is the
        # server's fault: it becomes a reported problem, never a crash of the refresh.
        raise BadReply(url, _describe(exc)) from None


class _Request:
    """One fetch's state: the timer, the counters, the decoder."""

    def __init__(
        self,
        url: str,
        cap: int,
        deadline_s: float,
        min_rate: float,
        rate_grace_s: float,
        on_progress: Callable[[int, int | None], None] | None,
    ):
        self.url = url
        self.cap = cap
        self.deadline_s = deadline_s
        self.min_rate = min_rate
        self.rate_grace_s = rate_grace_s
        self.on_progress = on_progress
        self.wire = 0
        self.decoded = 0
        self.method = "GET"
        self.content: bytes | None = None
        self.params: Mapping[str, Any] | None = None
        self.any_status = False  # exchange(): every status's body is read, capped and kept
        self.timeout: Any = None  # httpx's per-phase timeouts (connect, read), when given
        self.sink: Callable[[bytes], object] | None = None  # fetch(): where a 200's body goes
        self.same_origin = False  # fetch(): follow redirects within the URL's origin

    async def run(self, client: httpx.AsyncClient, headers: dict[str, str]) -> FetchResult | Reply:
        loop = asyncio.get_running_loop()
        self.started = loop.time()
        self.deadline_at = self.started + self.deadline_s
        try:
            async with asyncio.timeout_at(self._due()) as self.timer:
                extra: dict[str, Any] = {"follow_redirects": False}
                if self.timeout is not None:
                    extra["timeout"] = self.timeout
                url = self.url
                for _hop in range(MAX_REDIRECTS + 1):
                    async with client.stream(
                        self.method,
                        url,
                        headers=headers,
                        content=self.content,
                        params=self.params,
                        **extra,
                    ) as response:
                        if self.any_status:
                            return await self._reply(response)
                        target = self._redirect(response, url)
                        if target is None:
                            return await self._read(response, url)
                    url = target
                raise BadReply(self.url, f"more than {MAX_REDIRECTS} redirects")
        except FetchError as exc:
            exc.bytes_read = self.wire
            raise
        except TimeoutError:
            if loop.time() >= self.deadline_at - 0.001:
                reason = f"no complete reply within {self.deadline_s:g} s"
            else:
                reason = (
                    f"slower than {self.min_rate:,.0f} bytes/s "
                    f"({self.wire:,} bytes in {loop.time() - self.started:.0f} s)"
                )
            error = TooSlow(self.url, reason)
            error.bytes_read = self.wire
            raise error from None

    def _due(self) -> float:
        """When the timer fires: the deadline, or when the average rate falls below the floor."""
        if self.min_rate <= 0:
            return self.deadline_at
        rate_due = self.started + self.rate_grace_s + self.wire / self.min_rate
        return min(self.deadline_at, rate_due)

    def _got(self, raw: bytes, declared: int | None) -> None:
        self.wire += len(raw)
        self.timer.reschedule(self._due())
        if self.on_progress is not None:
            self.on_progress(self.wire, declared)

    def _redirect(self, response: httpx.Response, url: str) -> str | None:
        """Where a redirect within ``url``'s origin goes (None: no redirect to follow);
        :class:`OffOrigin` for one elsewhere."""
        status = response.status_code
        if not self.same_origin or status not in _REDIRECTS:
            return None
        location = header_token(_header(response.headers.raw, b"location"))
        if location is None:
            raise BadReply(self.url, f"HTTP {status} without a usable Location")
        target = urljoin(url, location)
        if origin_of(target) != origin_of(self.url):
            raise OffOrigin(self.url, target, status)
        return target

    async def _read(self, response: httpx.Response, url: str) -> FetchResult:
        raw_headers = response.headers.raw
        meta: dict[str, Any] = dict(
            url=url,
            status=response.status_code,
            etag=header_token(_header(raw_headers, b"etag")),
            last_modified=header_token(_header(raw_headers, b"last-modified")),
            retry_after=header_token(_header(raw_headers, b"retry-after")),
        )
        if response.status_code != 200:
            async for chunk in _wire(response):
                self._got(chunk, None)
                if self.wire > ERROR_BODY_CAP:
                    break
            return FetchResult(bytes_read=self.wire, **meta)
        body, sha256 = await self._body(response, self.sink)
        return FetchResult(
            body=body, sha256=sha256, bytes_read=self.wire, size=self.decoded, **meta
        )

    async def _reply(self, response: httpx.Response) -> Reply:
        headers: dict[str, str] = {}
        for key, value in response.headers.raw:
            safe = header_token(value)
            if safe is not None:
                name = key.decode("ascii", "replace").lower()
                headers[name] = f"{headers[name]}, {safe}" if name in headers else safe
        body, _sha256 = await self._body(response)
        return Reply(response.status_code, MappingProxyType(headers), body)

    async def _body(
        self, response: httpx.Response, sink: Callable[[bytes], object] | None = None
    ) -> tuple[bytes, str]:
        """The decoded body (empty when it went to ``sink``) and its SHA-256, every cap held
        as it is read."""
        raw_headers = response.headers.raw
        # a response built in memory by a test transport arrives already read and decoded
        decoder = None if response.is_stream_consumed else _decoder(self.url, raw_headers)
        declared = _content_length(raw_headers)
        if declared is not None and decoder is None and declared > self.cap:
            raise TooLarge(self.url, self.cap, 0)
        digest = hashlib.sha256()
        chunks: list[bytes] = []
        async for raw in _wire(response):
            self._got(raw, declared)
            pieces = (raw,) if decoder is None else decoder.feed(raw)
            for piece in pieces:
                self.decoded += len(piece)
                if self.decoded > self.cap:
                    raise TooLarge(self.url, self.cap, self.decoded)
                if self.decoded > RATIO_SLACK and self.decoded > MAX_RATIO * self.wire:
                    raise TooLarge(
                        self.url,
                        self.cap,
                        self.decoded,
                        f"larger than a {MAX_RATIO}:1 compression ratio allows ({self.wire:,} "
                        f"bytes on the wire gave {self.decoded:,}): refused as a compression bomb",
                    )
                digest.update(piece)
                if sink is None:
                    chunks.append(piece)
                else:
                    sink(piece)
        if decoder is not None:
            decoder.finish()
        return b"".join(chunks), digest.hexdigest()


async def _wire(response: httpx.Response) -> AsyncIterator[bytes]:
    """The body as it came over the wire (undecoded)."""
    if response.is_stream_consumed:
        yield response.content
        return
    async for chunk in response.aiter_raw():
        yield chunk


def _header(raw: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    return next((value for key, value in raw if key.lower() == name), None)


def _content_length(raw: list[tuple[bytes, bytes]]) -> int | None:
    value = _header(raw, b"content-length")
    return int(value) if value is not None and value.strip().isdigit() else None


def _decoder(url: str, raw: list[tuple[bytes, bytes]]) -> _Decoder | None:
    """The decoder for the reply's Content-Encoding; stacked or unknown codings are refused."""
    values = [value for key, value in raw if key.lower() == b"content-encoding"]
    try:
        names = [
            name.strip().lower()
            for value in values
            for name in value.decode("ascii").split(",")
            if name.strip() and name.strip().lower() != "identity"
        ]
    except UnicodeDecodeError:
        raise BadEncoding(url, "Content-Encoding is not ASCII") from None
    if not names:
        return None
    if len(names) > 1:
        raise BadEncoding(url, f"stacked Content-Encoding {', '.join(names)!r} refused")
    if names[0] not in _ACCEPTED_ENCODINGS:
        raise BadEncoding(url, f"Content-Encoding {names[0]!r} was not asked for")
    return _Decoder(url, names[0])


class _Decoder:
    """gzip/deflate that yields at most :data:`_PIECE` bytes at a time, so caps hold mid-chunk."""

    def __init__(self, url: str, coding: str):
        self.url = url
        self.gzip = coding != "deflate"
        self.pending = b""  # deflate: the first bytes, until the zlib header can be recognised
        self.engine: zlib._Decompress | None = (
            zlib.decompressobj(zlib.MAX_WBITS | 16) if self.gzip else None
        )

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.engine is None:
            self.pending += data
            if len(self.pending) < 2:
                return
            first, second = self.pending[0], self.pending[1]
            zlib_wrapped = first & 0x0F == 8 and ((first << 8) | second) % 31 == 0
            self.engine = zlib.decompressobj(zlib.MAX_WBITS if zlib_wrapped else -zlib.MAX_WBITS)
            data, self.pending = self.pending, b""
        try:
            while True:
                piece = self.engine.decompress(data, _PIECE)
                if piece:
                    yield piece
                data = self.engine.unconsumed_tail
                if self.engine.eof and self.engine.unused_data:
                    if not self.gzip:
                        raise BadEncoding(self.url, "data after the end of the deflate stream")
                    data = self.engine.unused_data  # another gzip member follows
                    self.engine = zlib.decompressobj(zlib.MAX_WBITS | 16)
                    continue
                if not data and len(piece) < _PIECE:
                    return
        except zlib.error as exc:
            raise BadEncoding(self.url, f"compressed body does not decode ({exc})") from None

    def finish(self) -> None:
        if self.engine is None or not self.engine.eof:
            raise BadEncoding(self.url, "compressed body ends early")


def _describe(exc: BaseException) -> str:
    name = type(exc).__name__
    message = str(exc) or name
    return f"{name}: {message}" if message != name else name
