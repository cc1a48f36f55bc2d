"""One conditional, size-capped, hashing GET (DESIGN.md §3 step 2).

The body is streamed and hashed while it is read; the read stops as soon as it passes the cap,
so a hostile or runaway file costs at most ``cap`` bytes of memory and bandwidth.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

__all__ = ["FetchResult", "TooLarge", "fetch"]


class TooLarge(Exception):
    """The response passed its size cap (declared by Content-Length or while reading)."""

    def __init__(self, cap: int, seen: int):
        self.cap = cap
        self.seen = seen
        super().__init__(f"larger than the {cap:,}-byte cap (stopped after {seen:,} bytes)")


@dataclass(frozen=True, slots=True)
class FetchResult:
    status: int
    body: bytes = b""
    sha256: str = ""
    etag: str | None = None
    last_modified: str | None = None
    bytes_read: int = 0
    retry_after: str | None = None

    @property
    def not_modified(self) -> bool:
        return self.status == 304


async def fetch(
    client: httpx.AsyncClient,
    url: str,
    *,
    cap: int,
    etag: str | None = None,
    last_modified: str | None = None,
) -> FetchResult:
    """GET ``url`` conditionally. Raises TooLarge past ``cap``; httpx errors propagate."""
    headers = {"Accept": "application/json"}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    async with client.stream("GET", url, headers=headers) as response:
        meta = dict(
            status=response.status_code,
            etag=response.headers.get("etag"),
            last_modified=response.headers.get("last-modified"),
            retry_after=response.headers.get("retry-after"),
        )
        if response.status_code != 200:
            # Error bodies are small; read a bounded amount so the byte count stays honest.
            seen = 0
            async for chunk in response.aiter_raw():
                seen += len(chunk)
                if seen > 65536:
                    break
            return FetchResult(bytes_read=seen, **meta)
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > cap:
            raise TooLarge(cap, 0)
        digest = hashlib.sha256()
        chunks: list[bytes] = []
        seen = 0
        # aiter_bytes decodes any Content-Encoding; the hash is of the file's own bytes.
        async for chunk in response.aiter_bytes():
            seen += len(chunk)
            if seen > cap:
                raise TooLarge(cap, seen)
            digest.update(chunk)
            chunks.append(chunk)
        body = b"".join(chunks)
        return FetchResult(body=body, sha256=digest.hexdigest(), bytes_read=seen, **meta)
