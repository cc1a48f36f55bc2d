"""The HTTP client of a reader that may be handed one: the one given (the demo network's
in-process client, a test's), else one of its own, made on first use and closed by
:meth:`LazyClient.aclose`. Its own follows no redirect: :func:`tui.network.fetch.fetch` follows
those within the URL's origin, and only when asked.

No Textual import; httpx is imported when a client is first made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

__all__ = ["LazyClient"]


class LazyClient:
    """``client()`` is the client to use; ``await client.aclose()`` closes it if it is its own."""

    def __init__(self, given: httpx.AsyncClient | None = None):
        self._given = given
        self._own: httpx.AsyncClient | None = None

    def __call__(self) -> httpx.AsyncClient:
        if self._given is not None:
            return self._given
        if self._own is None:
            import httpx  # deferred: off the start path

            self._own = httpx.AsyncClient(follow_redirects=False)
        return self._own

    async def aclose(self) -> None:
        if self._own is not None:
            await self._own.aclose()
            self._own = None
