"""The store against a hostile loopback server and a damaged disk cache.

Every reply must end as a reported problem of the file it concerns, never an exception; the
polling loop must survive its own bugs and say so; a damaged cache entry is dropped and reported
once; nothing unverified is shown as verified.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os

import pytest
from msgspec.structs import replace

from tests.hostile_server import (
    gzip_bomb,
    json_ok,
    not_modified,
    raw,
    stacked_gzip,
    trickle,
)
from tui.network.disk_cache import CachedMeta, DiskCache
from tui.network.store import Store, StoreOptions, backoff_delay

STATS = b'{"total_agents": 1}'
OTHER = b'{"total_agents": 2}'
FAST = StoreOptions(retry_delay_s=0, interval_s=1, jitter=0, min_interval_s=0.01)


def manifest(**bodies: bytes) -> bytes:
    files = {
        name.replace("_", "."): {"hash": hashlib.sha256(body).hexdigest(), "size": len(body)}
        for name, body in bodies.items()
    }
    return json.dumps({"files": files}).encode()


def make_store(server, client, cache=None, **options) -> Store:
    opts = replace(FAST, **options)
    return Store(server.url, client=client, cache=cache, options=opts, files=("stats.json",))


def serve(server, stats_reply, manifest_body: bytes | None = None) -> None:
    server.route(
        "/state/manifest-hashes.json", json_ok(manifest_body or manifest(stats_json=STATS))
    )
    server.route("/state/stats.json", stats_reply)


def non_ascii_validators():
    """STATS with a UTF-8 ETag and a Last-Modified that is not text at all."""
    return raw(
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n"
        b'ETag: "\xc3\xa9"\r\nLast-Modified: \xff\xfe\r\n\r\n%s' % (len(STATS), STATS)
    )


async def test_304_without_etag_for_a_never_loaded_file_is_a_problem(server, client):
    serve(server, not_modified())
    report = await make_store(server, client).refresh()
    assert [(p.file, p.kind) for p in report.problems] == [("stats.json", "http")]
    assert "never loaded" in report.problems[0].detail


async def test_non_ascii_etag_is_not_kept_nor_sent_back(server, client, tmp_path):
    cache = DiskCache(tmp_path)
    # mismatch: the file is asked for again, unconditionally
    serve(server, non_ascii_validators(), manifest(stats_json=OTHER))
    store = make_store(server, client, cache)
    first = await store.refresh()
    assert [p.kind for p in first.problems] == ["mismatch"]
    serve(server, json_ok(STATS), manifest(stats_json=OTHER))
    second = await store.refresh()  # used to be UnicodeEncodeError on the conditional request
    assert store.snapshot.file("stats.json").verified is False
    assert all("if-none-match" not in r.headers for r in server.requests)
    assert second.problems  # still the mismatch, reported


async def test_non_ascii_etag_from_a_good_reply_is_dropped_before_the_cache(
    server, client, tmp_path
):
    cache = DiskCache(tmp_path)
    serve(server, non_ascii_validators())
    report = await make_store(server, client, cache).refresh()
    assert report.ok, report.problems
    assert json.loads((tmp_path / "stats.json.meta.json").read_text())["etag"] is None
    again = make_store(server, client, DiskCache(tmp_path))
    again.load_cache()
    serve(server, json_ok(STATS), manifest(stats_json=OTHER))
    await again.refresh()
    assert "if-none-match" not in server.requests[-1].headers


async def test_trickling_state_file_fails_in_bounded_time(server, client):
    serve(server, trickle(STATS, every_s=0.3))
    store = make_store(server, client, deadline_s=0.6)
    report = await store.refresh()
    assert [(p.file, p.kind) for p in report.problems] == [("stats.json", "too-slow")]


async def test_trickling_manifest_marks_the_service_offline(server, client):
    server.route("/state/manifest-hashes.json", trickle(manifest(stats_json=STATS), 0.3))
    store = make_store(server, client, deadline_s=0.6)
    report = await store.refresh()
    assert [(p.file, p.kind) for p in report.problems] == [("manifest-hashes.json", "too-slow")]
    assert store.status.state == "offline" and not report.online


async def test_gzip_bomb_manifest_is_too_large(server, client):
    server.route("/state/manifest-hashes.json", gzip_bomb(32 << 20))
    server.route("/state/stats.json", json_ok(STATS))
    report = await make_store(server, client).refresh()
    assert report.problems[0].kind == "too-large"
    assert report.bytes_downloaded < 1 << 20  # wire bytes only, far under the bomb


async def test_stacked_gzip_state_file_is_an_encoding_problem(server, client):
    serve(server, stacked_gzip(STATS))
    report = await make_store(server, client).refresh()
    assert [(p.file, p.kind) for p in report.problems] == [("stats.json", "encoding")]


async def test_a_bug_in_one_file_is_that_files_problem(server, client, monkeypatch):
    serve(server, json_ok(STATS))
    store = make_store(server, client)

    async def broken(name, report):
        raise TypeError("boom")

    monkeypatch.setattr(store, "_refresh_file", broken)
    report = await store.refresh()
    assert [(p.file, p.kind) for p in report.problems] == [("stats.json", "internal")]


async def test_run_survives_a_failing_cycle_and_says_so(server, client):
    serve(server, json_ok(STATS))
    store = make_store(server, client)
    calls = []

    def listener(snapshot, report):
        calls.append(report.cycle)
        if len(calls) == 1:
            raise RuntimeError("listener bug")

    store.subscribe(listener)
    await store.run(cycles=1)
    assert store.status.state == "failed"
    assert store.status.loop_error == "RuntimeError: listener bug"
    assert store.status.describe().startswith("refresh loop failed: RuntimeError: listener bug")
    await store.run(cycles=1)
    assert calls == [1, 2] and store.status.state == "online"


async def test_mismatch_without_a_good_copy_does_not_claim_one(server, client):
    serve(server, json_ok(STATS), manifest(stats_json=OTHER))
    report = await make_store(server, client).refresh()
    assert report.problems[0].kind == "mismatch"
    assert "keeping the last good copy" not in report.problems[0].detail
    assert "no good copy yet" in report.problems[0].detail


def test_interval_must_be_finite_and_positive():
    for bad in (math.nan, math.inf, 0, -1):
        with pytest.raises(ValueError):
            StoreOptions(interval_s=bad)


def test_automatic_refreshes_keep_a_floor():
    options = StoreOptions(interval_s=0.001, jitter=0.5)
    assert backoff_delay(0, options) >= options.min_interval_s
    assert backoff_delay(3, options) >= options.min_interval_s


# --------------------------------------------------------------------------- damaged cache


def put(tmp_path, meta: dict, body: bytes = STATS) -> DiskCache:
    cache = DiskCache(tmp_path)
    cache.store(
        "stats.json",
        body,
        CachedMeta(hashlib.sha256(body).hexdigest(), len(body), "2026-01-01T00:00:00", True),
    )
    path = tmp_path / "stats.json.meta.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **meta}))
    return DiskCache(tmp_path)


@pytest.mark.parametrize(
    "meta",
    [
        {"fetched_at": 12345},
        {"size": "abc"},
        {"etag": 123},
        {"etag": '"\u00e9"'},
        {"verified": "yes"},
        {"sha256": None},
        {"extra": 1},
        {"size": 3},
    ],
)
async def test_damaged_meta_is_dropped_and_reported_once(server, client, tmp_path, meta):
    cache = put(tmp_path, meta)
    serve(server, json_ok(STATS))
    store = make_store(server, client, cache)
    snapshot = store.load_cache()  # used to raise TypeError / ValueError
    assert not snapshot.file("stats.json").loaded
    assert not (tmp_path / "stats.json.meta.json").exists()
    first = await store.refresh()
    assert [(p.file, p.kind) for p in first.problems] == [("stats.json", "cache")]
    assert store.snapshot.file("stats.json").verified  # fetched afresh
    second = await store.refresh()
    assert second.ok


async def test_cached_body_that_no_longer_validates_is_dropped(tmp_path):
    cache = put(tmp_path, {}, body=b'{"total_agents": "many"}')
    store = Store("http://127.0.0.1:9", cache=cache, files=("stats.json",))
    store.load_cache()
    assert cache.damaged or store.unreported_cache_problems
    assert not (tmp_path / "stats.json").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("which", ["stats.json", "stats.json.meta.json", "stats-history.json"])
def test_a_fifo_in_the_cache_is_never_opened_for_a_wait(tmp_path, which):
    put(tmp_path, {})
    (tmp_path / which).unlink(missing_ok=True)
    os.mkfifo(tmp_path / which)
    store = Store("http://127.0.0.1:9", cache=DiskCache(tmp_path), files=("stats.json",))
    snapshot = store.load_cache()  # used to block forever on open()
    if which != "stats-history.json":
        assert not snapshot.file("stats.json").loaded
        assert [name for name, _ in store.cache.damaged] == [] and store.unreported_cache_problems
    else:
        assert snapshot.file("stats.json").loaded


@pytest.mark.parametrize("which", ["stats.json", "stats.json.meta.json"])
def test_a_link_in_the_cache_is_never_followed(tmp_path, which):
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    put(cache_dir, {})
    elsewhere = tmp_path / "elsewhere"
    (cache_dir / which).rename(elsewhere)  # the same good bytes, reached through a link
    (cache_dir / which).symlink_to(elsewhere)
    store = Store("http://127.0.0.1:9", cache=DiskCache(cache_dir), files=("stats.json",))
    snapshot = store.load_cache()
    assert not snapshot.file("stats.json").loaded
    assert store.unreported_cache_problems
    assert elsewhere.exists()  # what the link pointed at is left alone


GOOD_POINT = {"at": "2026-01-01T00:00:00Z", "counters": {"total_agents": 3}}


@pytest.mark.parametrize(
    ("content", "kept", "why"),
    [
        pytest.param(b"{not json", 0, "Expecting property name", id="not JSON"),
        pytest.param(b'{"at": 1}', 0, "not a list of points", id="not a list"),
        pytest.param(
            json.dumps([GOOD_POINT, "junk", {"at": "x", "counters": []}]).encode(),
            1,
            "2 of 3 points did not validate",
            id="some points damaged",
        ),
        pytest.param(
            json.dumps([{"at": "x", "counters": {"total_agents": "many"}}, GOOD_POINT]).encode(),
            2,
            "1 of 2 points did not validate",
            id="a counter damaged",
        ),
    ],
)
async def test_damaged_stats_history_is_reported_once_and_what_validates_is_kept(
    server, client, tmp_path, content, kept, why
):
    cache = put(tmp_path, {})
    (tmp_path / "stats-history.json").write_bytes(content)
    serve(server, json_ok(STATS))
    store = make_store(server, client, cache)
    snapshot = store.load_cache()
    assert snapshot.file("stats.json").loaded  # the state file itself is fine
    assert len(snapshot.stats_history) == kept
    first = await store.refresh()
    history = [p for p in first.problems if p.file == "stats-history.json"]
    assert [p.kind for p in history] == ["cache"] and why in history[0].detail
    second = await store.refresh()
    assert not [p for p in second.problems if p.file == "stats-history.json"]
    if kept:  # written back without the damage
        assert len(json.loads((tmp_path / "stats-history.json").read_text())) >= kept


def test_a_directory_in_place_of_a_body_is_damage(tmp_path):
    put(tmp_path, {})
    (tmp_path / "stats.json").unlink()
    (tmp_path / "stats.json").mkdir()
    store = Store("http://127.0.0.1:9", cache=DiskCache(tmp_path), files=("stats.json",))
    assert not store.load_cache().file("stats.json").loaded


async def test_redacted_url_names_the_cache_folder():
    from tui.network.disk_cache import service_folder_name

    secret = service_folder_name("http://alice:s3cretpw@host.example/x")
    assert "s3cretpw" not in secret and "alice" not in secret
    assert secret == service_folder_name("http://host.example/x")


async def test_a_stuck_refresh_can_be_cancelled_and_the_store_goes_on(server, client):
    serve(server, trickle(STATS, every_s=0.5))
    store = make_store(server, client)
    task = asyncio.create_task(store.refresh())
    while not any(r.path == "/state/stats.json" for r in server.requests):
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    serve(server, json_ok(STATS))
    report = await store.refresh()  # the lock was released, the store works on
    assert report.ok, report.problems


def test_a_big_file_gets_time_for_its_size():
    store = Store("http://127.0.0.1:9", options=StoreOptions(deadline_s=60, deadline_rate=1000))
    assert store.request_limits(10_000)["deadline_s"] == 70
    assert store.request_limits(None)["deadline_s"] == 60
