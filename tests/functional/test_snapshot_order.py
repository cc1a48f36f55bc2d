"""Snapshots reach the app out of order: the start-up's read of the disk cache (a thread) can
hand its snapshot over after a newer one, from the Posts tab's own read of the log (another
thread), was shown. The older one must never put the tab back to before the log came."""

from __future__ import annotations

import asyncio
import threading
import time

from app_rig import BASE, loaded, make_rig, service_for

from tui.network.conversation import PostedLog
from tui.network.disk_cache import DiskCache
from tui.network.snapshot import Snapshot
from tui.network.state_files import CONVERSATION_FILES
from tui.network.store import Store
from tui.sandbox.app import create_app
from tui.sandbox.server import in_process_client
from tui.ui.app import RoostApp
from tui.ui.screens.posts import PostsScreen

SIZE = (80, 24)


class _LateCacheRead(Store):
    """The start-up reads the cache first (the five files); the Posts tab's read of the log
    goes next, and reaches the app first: the start-up's snapshot is handed over only once the
    app shows the newer one."""

    app: RoostApp | None = None
    late: Snapshot | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.read = threading.Event()

    async def want(self, *names: str) -> frozenset[str]:
        while not self.read.is_set():
            await asyncio.sleep(0.005)
        return await super().want(*names)

    def load_cache(self) -> Snapshot:
        snapshot = super().load_cache()
        self.read.set()
        deadline = time.monotonic() + 10
        while self.app is None or self.app.snapshot.generation <= snapshot.generation:
            if time.monotonic() > deadline:
                raise AssertionError("the Posts tab's own read never reached the app")
            time.sleep(0.005)
        self.late = snapshot
        return snapshot


async def _on_posts(tmp_path, kind: type[Store]) -> tuple[RoostApp, Store, PostedLog]:
    """The dashboard on the Posts tab, over a cache that holds the five files and the log
    from a previous run; no polling (one cycle once the cache is read)."""
    rig = make_rig()
    cache = DiskCache(tmp_path / "cache")
    client = in_process_client(create_app(rig.network), BASE)
    warm = Store(BASE, client=client, cache=cache)
    await warm.want(*CONVERSATION_FILES)
    await warm.refresh()
    log = warm.snapshot.posted_log
    assert log is not None and log.posts
    store = kind(BASE, client=client, cache=cache, clock=rig.clock)
    app = RoostApp(service_for(store), initial_screen="posts", clock=rig.clock, poll=False)
    store.app = app  # type: ignore[attr-defined]
    return app, store, log


async def test_an_older_snapshot_arriving_late_never_hides_the_log(tmp_path) -> None:
    app, store, log = await _on_posts(tmp_path, _LateCacheRead)
    assert isinstance(store, _LateCacheRead)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.pause()
        assert store.late is not None and store.late.posted_log is None  # the race happened
        screen = app.screen
        assert isinstance(screen, PostsScreen)
        assert screen.table.total_count == len(log.posts)
        assert app.snapshot.posted_log is not None
        assert app.snapshot.generation >= store.snapshot.generation


class _SlowCacheRead(Store):
    """The start-up's read of the cache begins only once the Posts tab's read of the log has
    asked for a refresh (the dashboard without polling: one cycle at once)."""

    app: RoostApp | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.reading = False
        self.refreshed_while_reading = False

    def load_cache(self) -> Snapshot:
        self.reading = True
        try:
            deadline = time.monotonic() + 10
            while not any(worker.group == "refresh-once" for worker in self.app.workers):
                if time.monotonic() > deadline:
                    raise AssertionError("the Posts tab's read never asked for a refresh")
                time.sleep(0.005)
            time.sleep(0.1)  # time for a refresh that does not wait to get under way
            return super().load_cache()
        finally:
            self.reading = False

    async def refresh(self, *, force: bool = False):
        self.refreshed_while_reading |= self.reading
        return await super().refresh(force=force)


async def test_a_refresh_asked_for_while_the_cache_is_read_waits_for_it(tmp_path) -> None:
    app, store, log = await _on_posts(tmp_path, _SlowCacheRead)
    assert isinstance(store, _SlowCacheRead)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not store.refreshed_while_reading
        assert app.snapshot.all_verified  # the refresh came after, and confirmed every copy
        assert isinstance(app.screen, PostsScreen)
        assert app.screen.table.total_count == len(log.posts)
