"""Store.want while the disk cache is being read: the dashboard's first screen (the Posts tab)
asks for the log while the app's start-up reads the cache in a thread; neither read may drop
what the other one put in the snapshot."""

from __future__ import annotations

import asyncio
import hashlib
import json

import httpx

from tui.network.disk_cache import CachedMeta, DiskCache
from tui.network.state_files import POSTED_LOG, STATE_FILE_NAMES
from tui.network.store import Store

LOG = json.dumps({"posts": [{"number": 1, "title": "hi"}], "comments": []}).encode()


def _cached(cache: DiskCache, name: str, body: bytes) -> None:
    meta = CachedMeta(
        sha256=hashlib.sha256(body).hexdigest(),
        size=len(body),
        fetched_at="2026-11-01T12:00:00+00:00",
        verified=True,
    )
    cache.store(name, body, meta)


async def test_a_file_wanted_while_the_cache_is_read_keeps_its_copy(tmp_path) -> None:
    cache = DiskCache(tmp_path)
    for name in STATE_FILE_NAMES:
        _cached(cache, name, b"{}")
    _cached(cache, POSTED_LOG, LOG)
    client = httpx.AsyncClient(transport=httpx.MockTransport(lambda request: httpx.Response(404)))
    store = Store("http://x.test", client=client, cache=cache)
    loop = asyncio.get_running_loop()
    parse = store._parse_cached
    wanted: list[frozenset[str]] = []
    asked = False

    def parse_while_wanted(cached):  # the start-up's read, in its thread, meets a want()
        nonlocal asked
        if not asked:
            asked = True
            wanted.append(asyncio.run_coroutine_threadsafe(store.want(POSTED_LOG), loop).result())
        return parse(cached)

    store._parse_cached = parse_while_wanted  # type: ignore[method-assign]
    snapshot = await asyncio.to_thread(store.load_cache)
    assert wanted == [frozenset({POSTED_LOG})]
    assert snapshot.posted_log is not None and snapshot.posted_log.posts[0].title == "hi"
    assert store.snapshot is snapshot
    await client.aclose()
