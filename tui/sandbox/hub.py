"""The demo hub: an ASGI app serving the boot records and eggs of :mod:`tui.sandbox.hub_records`,
and beside them a small store of rapplications (``/store/api/v1/…``) whose eggs are legacy ones.

Mounted by the sandbox at ``/hub`` (so ``hub_url = base + "/hub"``). It answers the index,
the record documents and the egg downloads at the real hub's paths, with fault knobs that make
it lie the ways a hostile hub could (:class:`HubFaults`). The hub URL is taken from each request
(scheme, host and mount point), so the same app serves correct records in-process and on a
loopback port.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Mount, Route

from tui.eggs.hub_paths import EGG_PREFIX, INDEX_PATH, RECORD_PREFIX

if TYPE_CHECKING:
    from tui.sandbox.hub_records import HubContent, StoreContent

__all__ = ["CHUNK", "HubFaults", "HubState", "create_hub", "hub_state"]

CHUNK = 16 << 10
INDEX_ROUTE = "/" + INDEX_PATH
RECORD_ROUTE = "/" + RECORD_PREFIX + "{aa}/{name}.json"
EGG_ROUTE = "/" + EGG_PREFIX + "{aa}/{name}.egg"
STORE_ROUTE = "/store/api/v1/{path:path}"
JSON_TYPE = "application/json; charset=utf-8"


@dataclass
class HubFaults:
    """How the hub misbehaves; each set holds slugs or store app ids (``"*"`` = every one)."""

    #: Eggs served with one byte changed (same length, wrong sha256).
    tampered: set[str] = field(default_factory=set)
    #: Eggs served with this many extra bytes after the real ones (longer than ``egg.bytes``).
    oversize: dict[str, int] = field(default_factory=dict)
    #: Eggs cut in half while the Content-Length still promises the whole file.
    truncated: set[str] = field(default_factory=set)
    #: Records whose ``egg.url`` points at another host (the index and documents change too).
    foreign_url: set[str] = field(default_factory=set)
    #: Seconds to wait before each chunk of an egg download.
    slow: float = 0.0

    def hits(self, table: set[str] | dict[str, int], slug: str) -> bool:
        return slug in table or "*" in table

    def reset(self) -> None:
        self.tampered.clear()
        self.oversize.clear()
        self.truncated.clear()
        self.foreign_url.clear()
        self.slow = 0.0


@dataclass
class HubState:
    """``hub_app.state.hub``: the fault knobs (what was served is in the sandbox's request log)."""

    faults: HubFaults = field(default_factory=HubFaults)

    def content(self, hub_url: str) -> HubContent:
        # built on the first request: the packer and the egg models stay out of `roost` start-up
        from tui.sandbox.hub_records import build_hub, demo_specs

        slugs = set(self.faults.foreign_url)
        if "*" in slugs:
            slugs = {spec.slug for spec in demo_specs()}
        return build_hub(hub_url, slugs)

    def store(self, hub_url: str) -> StoreContent:
        from tui.sandbox.hub_records import build_store  # deferred: off the start path

        return build_store(hub_url, self.faults.foreign_url)


def _hub_url(request: Request) -> str:
    url = request.url
    return f"{url.scheme}://{url.netloc}{request.scope.get('root_path', '')}".rstrip("/")


def _relative(route: str, request: Request) -> str:
    """The hub-relative path a route matched (``api/...``), rebuilt from its parameters."""
    return route[1:].format(**request.path_params)


def _state(request: Request) -> HubState:
    return request.app.state.hub


async def index(request: Request) -> Response:
    content = _state(request).content(_hub_url(request))
    return Response(content.index, media_type=JSON_TYPE)


async def document(request: Request) -> Response:
    content = _state(request).content(_hub_url(request))
    raw = content.documents.get(_relative(RECORD_ROUTE, request))
    if raw is None:
        return Response(b'{"error":"not found"}\n', status_code=404, media_type=JSON_TYPE)
    return Response(raw, media_type=JSON_TYPE)


async def download(request: Request) -> Response:
    state = _state(request)
    content = state.content(_hub_url(request))
    path = _relative(EGG_ROUTE, request)
    egg = content.eggs.get(path)
    if egg is None:
        return Response(b"not found\n", status_code=404, media_type="text/plain")
    slug = next(r.slug for r in content.records if r.value["egg"]["path"] == path)
    return _egg_response(egg, slug, state.faults)


async def store(request: Request) -> Response:
    """The demo store's static API: its index, its records and its (legacy) eggs."""
    state = _state(request)
    content = state.store(_hub_url(request))
    path = request.path_params["path"]
    if path == "index.json":
        return Response(content.index, media_type=JSON_TYPE)
    if path in content.documents:
        return Response(content.documents[path], media_type=JSON_TYPE)
    if path in content.eggs:
        app_id = path.removeprefix("egg/").removesuffix(".egg")
        return _egg_response(content.eggs[path], app_id, state.faults)
    return Response(b"not found\n", status_code=404, media_type="text/plain")


def _egg_response(egg: bytes, name: str, faults: HubFaults) -> Response:
    """An egg download, lying as the fault knobs of ``name`` (a slug or a store app id) say."""
    body = egg
    declared = len(egg)
    if faults.hits(faults.tampered, name):
        middle = len(egg) // 2
        body = egg[:middle] + bytes([egg[middle] ^ 0x20]) + egg[middle + 1 :]
    extra = faults.oversize.get(name, faults.oversize.get("*", 0))
    if extra:
        body += b"\0" * extra
        declared = len(body)
    if faults.hits(faults.truncated, name):
        body = body[: len(body) // 2]  # the Content-Length below still promises it all
    headers = {"Content-Length": str(declared), "Content-Type": "application/zip"}
    return StreamingResponse(_chunks(body, faults.slow), headers=headers)


async def _chunks(body: bytes, delay: float) -> AsyncIterator[bytes]:
    for start in range(0, len(body), CHUNK):
        if delay:
            await asyncio.sleep(delay)
        yield body[start : start + CHUNK]


def create_hub(faults: HubFaults | None = None) -> Starlette:
    """The demo hub app; ``app.state.hub`` is its :class:`HubState`."""
    app = Starlette(
        routes=[
            Route(INDEX_ROUTE, index, methods=["GET"]),
            Route(RECORD_ROUTE, document, methods=["GET"]),
            Route(EGG_ROUTE, download, methods=["GET"]),
            Route(STORE_ROUTE, store, methods=["GET"]),
        ]
    )
    app.state.hub = HubState(faults or HubFaults())
    return app


def hub_state(sandbox: Starlette) -> HubState:
    """The :class:`HubState` of the hub mounted in a sandbox app (for tests and the CLI)."""
    for route in sandbox.routes:
        if isinstance(route, Mount) and route.path == "/hub":
            hub = route.app
            assert isinstance(hub, Starlette)  # mounted by this module
            return hub.state.hub
    raise LookupError("no demo hub is mounted in this sandbox")
