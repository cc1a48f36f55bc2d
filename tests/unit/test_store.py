"""The store against the real sandbox app (in-process over ASGI), and once over a loopback socket."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime

import httpx
import pytest
from msgspec.structs import replace

from tui.network.disk_cache import CachedMeta, DiskCache
from tui.network.store import (
    STATE_FILE_NAMES,
    Store,
    StoreOptions,
    backoff_delay,
    state_base_url,
)
from tui.sandbox.app import create_app
from tui.sandbox.server import in_process_client, running_sandbox

BASE = "http://sandbox.test"
MANIFEST_PATH = "/state/manifest-hashes.json"
FAST = StoreOptions(retry_delay_s=0, interval_s=1, jitter=0)


@pytest.fixture
def sandbox():
    return create_app(agents=60)


@pytest.fixture
async def client(sandbox):
    async with in_process_client(sandbox, base_url=BASE) as client:
        yield client


def make_store(client, tmp_path=None, **options) -> Store:
    cache = DiskCache(tmp_path / "cache") if tmp_path is not None else None
    opts = replace(FAST, **options)
    return Store(BASE, client=client, cache=cache, options=opts)


def gets(sandbox) -> list[str]:
    return sandbox.state.sandbox.paths("GET")


async def test_first_load_fetches_and_verifies_everything(sandbox, client, tmp_path):
    store = make_store(client, tmp_path)
    seen = []
    store.subscribe(lambda snapshot, report: seen.append((snapshot.generation, report.changed)))
    report = await store.refresh()
    assert report.ok, report.problems
    assert report.manifest == "fetched"
    assert report.fetched == list(STATE_FILE_NAMES)
    assert report.requests == 6
    assert report.bytes_downloaded == sum(
        store.snapshot.file(n).size for n in STATE_FILE_NAMES
    ) + len(sandbox.state.sandbox.network.manifest_bytes)
    snapshot = store.snapshot
    assert snapshot.all_verified
    assert snapshot.integrity_summary() == "all verified"
    assert len(snapshot.agents.agents) == 60
    assert snapshot.seeds.proposals
    assert seen == [(1, list(STATE_FILE_NAMES))]
    assert store.status.state == "online"


async def test_no_change_refresh_asks_only_for_the_manifest(sandbox, client):
    store = make_store(client)
    await store.refresh()
    before = store.snapshot
    sandbox.state.sandbox.clear_log()
    report = await store.refresh()
    assert gets(sandbox) == [MANIFEST_PATH]
    assert sandbox.state.sandbox.requests[0].status == 304
    assert report.manifest == "not-modified"
    assert report.requests == 1 and report.bytes_downloaded == 0
    assert report.unchanged == list(STATE_FILE_NAMES) and not report.fetched
    assert store.snapshot is before  # nothing committed, same immutable object


async def test_one_changed_file_is_the_only_one_fetched(sandbox, client):
    store = make_store(client)
    await store.refresh()
    old_agents = store.snapshot.agents
    network = sandbox.state.sandbox.network
    stats = dict(network.doc("stats.json"))
    stats["total_widgets"] = 42
    network.replace_doc("stats.json", stats)
    sandbox.state.sandbox.clear_log()
    report = await store.refresh()
    assert gets(sandbox) == [MANIFEST_PATH, "/state/stats.json"]
    assert report.fetched == ["stats.json"] and report.changed == ["stats.json"]
    assert store.snapshot.stats.counters()["total_widgets"] == 42
    assert store.snapshot.agents is old_agents  # untouched files keep their objects
    assert len(store.snapshot.stats_history) == 2


async def test_an_action_through_the_issue_api_shows_up_on_the_next_refresh(sandbox, client):
    store = make_store(client)
    await store.refresh()
    from tui.actions.issue_body import compose_issue
    from tui.sandbox.app import DEMO_TOKEN

    headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
    issue = compose_issue("register_agent", {"name": "Roo", "framework": "roost", "bio": "hi"})
    response = await client.post(
        "/api/repos/roost-demo/network/issues", json=issue.as_json(), headers=headers
    )
    assert response.status_code == 201
    report = await store.refresh()
    assert "agents.json" in report.fetched
    assert "demo-agent" in store.snapshot.agents.agents
    assert store.snapshot.all_verified


async def test_hash_mismatch_is_retried_once_and_recovers(sandbox, client):
    store = make_store(client)
    sandbox.state.sandbox.faults.mismatch = {"agents.json": 1}
    report = await store.refresh()
    assert report.ok, report.problems
    assert gets(sandbox).count("/state/agents.json") == 2
    assert store.snapshot.file("agents.json").verified


async def test_persistent_mismatch_keeps_last_good_then_recovers(sandbox, client):
    store = make_store(client)
    await store.refresh()
    good = store.snapshot.agents
    network = sandbox.state.sandbox.network
    doc = dict(network.doc("agents.json"))
    doc["_meta"] = {**doc.get("_meta", {}), "count": 999}
    network.replace_doc("agents.json", doc)
    sandbox.state.sandbox.faults.mismatch = {"agents.json": 2}
    report = await store.refresh()
    assert [p.kind for p in report.problems] == ["mismatch"]
    state = store.snapshot.file("agents.json")
    assert state.integrity == "mismatch" and not state.verified
    assert store.snapshot.agents is good  # the last good copy, never the unverified bytes
    assert "agents.json (mismatch)" in store.snapshot.integrity_summary()
    report = await store.refresh()  # the race is over
    assert report.ok
    assert store.snapshot.file("agents.json").verified
    assert store.snapshot.agents.meta.count == 999


async def test_truncated_body_is_a_mismatch_not_data(sandbox, client):
    store = make_store(client)
    sandbox.state.sandbox.faults.truncate = {"channels.json": 2}
    report = await store.refresh()
    assert [(p.file, p.kind) for p in report.problems] == [("channels.json", "mismatch")]
    assert store.snapshot.channels is None
    assert store.snapshot.file("channels.json").integrity == "mismatch"


async def test_invalid_json_keeps_last_good_and_names_the_path(sandbox, client):
    store = make_store(client)
    await store.refresh()
    good = store.snapshot.stats
    network = sandbox.state.sandbox.network
    network.replace_doc("stats.json", {**network.doc("stats.json"), "total_agents": "many"})
    report = await store.refresh()
    (problem,) = report.problems
    assert problem.kind == "invalid" and problem.file == "stats.json"
    assert "$.total_agents" in problem.detail
    assert store.snapshot.stats is good
    assert store.snapshot.file("stats.json").integrity == "invalid"
    # the same bad copy is not downloaded again, but it is still reported
    sandbox.state.sandbox.clear_log()
    report = await store.refresh()
    assert gets(sandbox) == [MANIFEST_PATH]
    assert [p.kind for p in report.problems] == ["invalid"]


async def test_malformed_json_fault(sandbox, client):
    store = make_store(client)
    sandbox.state.sandbox.faults.malformed = {"seeds.json"}
    report = await store.refresh()
    assert [(p.file, p.kind) for p in report.problems] == [("seeds.json", "invalid")]
    assert "Invalid JSON" in report.problems[0].detail
    assert store.snapshot.seeds is None
    assert store.snapshot.agents is not None


async def test_missing_manifest_fetches_conditionally_and_unverified(sandbox, client):
    store = make_store(client)
    sandbox.state.sandbox.faults.no_manifest = True
    report = await store.refresh()
    assert report.manifest == "missing"
    assert report.fetched == list(STATE_FILE_NAMES)
    assert {p.kind for p in report.problems} == {"missing", "unverified"}
    assert all(s.integrity == "unverified" for s in store.snapshot.files.values())
    assert not store.snapshot.all_verified  # never shown as verified
    sandbox.state.sandbox.clear_log()
    report = await store.refresh()
    # every file is asked for again, conditionally: all answer 304
    assert [r.status for r in sandbox.state.sandbox.requests] == [404] + [304] * 5
    assert report.bytes_downloaded < 2000
    assert not report.fetched


async def test_file_too_large_for_its_manifest_size_is_refused(sandbox, client):
    network = sandbox.state.sandbox.network
    manifest = json.loads(network.manifest_bytes)
    # a manifest that advertises a smaller size than the file has
    manifest["files"]["trending.json"]["size"] = 100

    class Shrunk(httpx.AsyncBaseTransport):
        def __init__(self, inner):
            self.inner = inner

        async def handle_async_request(self, request):
            if request.url.path.endswith("manifest-hashes.json"):
                body = json.dumps(manifest).encode()
                return httpx.Response(
                    200, content=body, headers={"content-type": "application/json"}
                )
            return await self.inner.handle_async_request(request)

    async with httpx.AsyncClient(
        transport=Shrunk(httpx.ASGITransport(app=sandbox)), base_url=BASE
    ) as shrunk:
        store = Store(
            BASE,
            client=shrunk,
            options=StoreOptions(retry_delay_s=0, size_slack=0, size_slack_min=0),
        )
        report = await store.refresh()
    assert [(p.file, p.kind) for p in report.problems] == [("trending.json", "too-large")]
    assert store.snapshot.trending is None
    others = sum(store.snapshot.file(n).size for n in STATE_FILE_NAMES if n != "trending.json")
    # refused on its Content-Length: not one byte of trending.json was read
    assert report.bytes_downloaded == others + len(json.dumps(manifest).encode())


async def test_server_errors_then_recovery(sandbox, client):
    store = make_store(client)
    await store.refresh()
    sandbox.state.sandbox.faults.fail_next = 1
    sandbox.state.sandbox.faults.fail_status = 503
    report = await store.refresh()
    assert not report.online
    assert store.status.state == "offline"
    assert store.snapshot.all_verified  # data untouched
    report = await store.refresh()
    assert report.online and store.status.state == "online"


async def test_offline_start_from_the_disk_cache(sandbox, client, tmp_path):
    store = make_store(client, tmp_path)
    await store.refresh()
    await store.refresh()  # a second cycle must not disturb the cache

    def refuse(request):
        raise httpx.ConnectError("no route to host", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(refuse), base_url=BASE) as offline:
        again = Store(BASE, client=offline, cache=DiskCache(tmp_path / "cache"), options=FAST)
        snapshot = again.load_cache()
        assert snapshot.any_loaded
        assert {s.integrity for s in snapshot.files.values()} == {"cached"}
        assert len(snapshot.agents.agents) == 60
        assert len(snapshot.stats_history) == 1
        report = await again.refresh()
        assert not report.online
        assert again.status.state == "offline"
        assert again.snapshot.agents is snapshot.agents  # still showing the cached data
        await again.refresh()
        assert again.status.state == "backing-off"
        assert again.status.consecutive_failures == 2


async def test_cached_copies_are_confirmed_without_download(sandbox, client, tmp_path):
    store = make_store(client, tmp_path)
    await store.refresh()
    again = Store(BASE, client=client, cache=DiskCache(tmp_path / "cache"), options=FAST)
    again.load_cache()
    sandbox.state.sandbox.clear_log()
    report = await again.refresh()
    assert gets(sandbox) == [MANIFEST_PATH]
    assert report.confirmed == list(STATE_FILE_NAMES)
    assert again.snapshot.all_verified


def test_damaged_cache_entries_are_ignored(tmp_path):
    cache = DiskCache(tmp_path)
    cache.store(
        "stats.json",
        b'{"total_agents": 1}',
        CachedMeta("0" * 64, 19, "2026-01-01T00:00:00+00:00", True),
    )
    assert cache.load("stats.json") is None  # hash does not match the bytes
    import hashlib

    body = b'{"total_agents": 1}'
    cache.store(
        "stats.json",
        body,
        CachedMeta(hashlib.sha256(body).hexdigest(), len(body), "2026-01-01T00:00:00", True),
    )
    assert cache.load("stats.json").body == body
    assert not list(tmp_path.glob("*.tmp"))  # atomic writes leave no temporaries
    with pytest.raises(ValueError):
        cache.store("../escape", b"", CachedMeta("", 0, "", False))


def test_cache_folder_follows_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = DiskCache.for_service("https://raw.example.org/owner/repo/main")
    assert str(cache.folder).startswith(str(tmp_path / "roost"))
    assert "raw.example.org" in cache.folder.name
    other = DiskCache.for_service("https://raw.example.org/owner/other/main")
    assert other.folder != cache.folder


def test_backoff_doubles_with_jitter_and_is_capped():
    options = StoreOptions(interval_s=60, jitter=0.1, backoff_cap_s=600)
    rng = random.Random(1)
    assert 54 <= backoff_delay(0, options, rng) <= 66
    assert 108 <= backoff_delay(1, options, rng) <= 132
    assert 216 <= backoff_delay(2, options, rng) <= 264
    assert 540 <= backoff_delay(5, options, rng) <= 660
    assert backoff_delay(50, options, rng) <= 660
    delays = {round(backoff_delay(0, options, rng), 3) for _ in range(20)}
    assert len(delays) > 1  # jitter: clients do not all poll at the same second


async def test_run_polls_and_a_refresh_request_wakes_it(sandbox, client):
    store = make_store(client, interval_s=3600)
    import asyncio

    task = asyncio.create_task(store.run())
    while store.last_report is None:
        await asyncio.sleep(0.01)
    assert store.last_report.cycle == 1
    store.request_refresh()
    for _ in range(500):
        if store.last_report.cycle == 2:
            break
        await asyncio.sleep(0.01)
    assert store.last_report.cycle == 2
    assert store.status.next_delay_s is not None
    task.cancel()


def test_state_base_url_accepts_both_forms():
    assert state_base_url("https://h/x") == "https://h/x/state/"
    assert state_base_url("https://h/x/") == "https://h/x/state/"
    assert state_base_url("https://h/x/state/") == "https://h/x/state/"


def test_end_to_end_over_a_loopback_socket(tmp_path):
    """uvicorn on an ephemeral port; the CLI's own code path with a real httpx client."""
    import asyncio

    with running_sandbox(agents=40) as (info, app):

        async def scenario():
            store = Store(info.read_url, cache=DiskCache(tmp_path / "c"), options=FAST)
            try:
                first = await store.refresh()
                second = await store.refresh()
            finally:
                await store.aclose()
            return store, first, second

        store, first, second = asyncio.run(scenario())
    assert first.fetched == list(STATE_FILE_NAMES) and first.ok
    assert second.requests == 1 and second.manifest == "not-modified"
    assert len(store.snapshot.agents.agents) == 40
    assert datetime.now(UTC) >= store.snapshot.file("agents.json").fetched_at


async def test_long_lived_builds_run_in_the_owners_memory_policy(client, tmp_path):
    """The store never switches the collector itself: each build whose models live until the
    next one runs in the ``building`` its owner gives (the dashboard: tui/ui/speed/gc_policy.py's,
    through connect(); the commands give none)."""
    import contextlib

    from tui.config import Settings
    from tui.service import connect
    from tui.ui.speed import gc_policy

    seen: list[int | None] = []

    @contextlib.contextmanager
    def building(size: int | None):
        seen.append(size)
        yield

    cache = DiskCache(tmp_path / "cache")
    store = Store(BASE, client=client, cache=cache, building=building)
    await store.refresh()
    bodies = {name: len(cache.load(name).body) for name in store.file_names}
    assert sorted(seen) == sorted(bodies.values())  # each state file's models, by its size
    seen.clear()
    Store(BASE, client=client, cache=cache, building=building).load_cache()
    assert seen == [None]  # the whole cached copy, whatever its size
    service = connect(Settings(read_url=BASE), use_cache=False, building=gc_policy.building)
    assert service.store._building is gc_policy.building
    await service.aclose()
    service = connect(Settings(read_url=BASE), use_cache=False)
    assert service.store._building is not gc_policy.building
    await service.aclose()
