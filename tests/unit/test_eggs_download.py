"""Egg downloads against the demo hub (in-process and on loopback): the hub URL rule, the size
cap, sha256 on the fly, the cache by sha256, the deadline, and no token ever sent to the hub."""

from __future__ import annotations

import asyncio
import hashlib

import httpx
import pytest

from tui.eggs.boot_record import parse_boot_record
from tui.eggs.download import (
    CacheUnwritable,
    DownloadOptions,
    DownloadRefused,
    EggCache,
    HubUnreachable,
    download_egg,
    download_url,
    refusal_report,
)
from tui.eggs.egg_report import CHECKS
from tui.eggs.hub_paths import index_url
from tui.eggs.sources import load_boots
from tui.sandbox.app import DEMO_TOKEN, create_app
from tui.sandbox.hub import hub_state
from tui.sandbox.hub_records import FOREIGN_HUB, build_hub
from tui.sandbox.server import in_process_client, running_sandbox

BASE = "http://demo.invalid"
HUB = BASE + "/hub"
SLUG = "night-shift-newsroom"
FAST = DownloadOptions(retry_delay_s=0.0)


@pytest.fixture
def app():
    return create_app(agents=20)


@pytest.fixture
def cache(tmp_path):
    return EggCache(tmp_path / "eggs")


def record_of(slug: str = SLUG, hub_url: str = HUB, foreign: tuple[str, ...] = ()):
    return parse_boot_record(build_hub(hub_url, foreign).record(slug).value)


def hub_requests(app) -> list:
    return [r for r in app.state.sandbox.request_log if r.path.startswith("/hub/")]


def leftovers(cache: EggCache) -> list[str]:
    return sorted(p.name for p in cache.folder.iterdir()) if cache.folder.exists() else []


async def test_download_then_cache_hit_costs_no_request(app, cache):
    record = record_of()
    seen: list[tuple[int, int]] = []
    async with in_process_client(app, base_url=BASE) as client:
        first = await download_egg(
            record.egg, HUB, client=client, cache=cache, progress=lambda *a: seen.append(a)
        )
        assert not first.from_cache and first.requests == 1
        assert first.path.read_bytes() == build_hub(HUB).eggs[record.egg.path]
        assert first.path == cache.path_for(record.egg.sha256)
        assert seen[-1] == (record.egg.bytes, record.egg.bytes)
        before = len(hub_requests(app))
        second = await download_egg(record.egg, HUB, client=client, cache=cache)
    assert second.from_cache and second.path == first.path
    assert len(hub_requests(app)) == before == 1
    assert leftovers(cache) == [f"{record.egg.sha256}.egg"]


async def test_a_damaged_cached_egg_is_downloaded_again(app, cache):
    record = record_of()
    async with in_process_client(app, base_url=BASE) as client:
        path = (await download_egg(record.egg, HUB, client=client, cache=cache)).path
        data = bytearray(path.read_bytes())
        data[100] ^= 1
        path.write_bytes(bytes(data))
        again = await download_egg(record.egg, HUB, client=client, cache=cache)
    assert not again.from_cache
    assert hashlib.sha256(again.path.read_bytes()).hexdigest() == record.egg.sha256


async def test_url_not_on_the_hub_is_refused_naming_both_before_any_request(app, cache):
    record = record_of(foreign=(SLUG,))
    async with in_process_client(app, base_url=BASE) as client:
        with pytest.raises(DownloadRefused) as caught:
            await download_egg(record.egg, HUB, client=client, cache=cache)
    assert caught.value.check == "record.url"
    assert record.egg.url in caught.value.detail and FOREIGN_HUB in record.egg.url
    assert f"{HUB}/{record.egg.path}" in caught.value.detail
    assert hub_requests(app) == []


@pytest.mark.parametrize(
    ("knob", "check"),
    [("oversize", "file.size"), ("truncated", "file.size"), ("tampered", "file.sha256")],
)
async def test_a_lying_hub_is_refused_and_nothing_is_kept(app, cache, knob, check):
    faults = hub_state(app).faults
    if knob == "oversize":
        faults.oversize[SLUG] = 4096
    else:
        getattr(faults, knob).add(SLUG)
    record = record_of()
    async with in_process_client(app, base_url=BASE) as client:
        with pytest.raises(DownloadRefused) as caught:
            await download_egg(record.egg, HUB, client=client, cache=cache, options=FAST)
    assert caught.value.check == check
    # a reply that breaks a rule is not asked for again (a lying reply may also have left the
    # connection dirty); only a transfer that broke off is retried
    assert len(hub_requests(app)) == 1
    assert leftovers(cache) == []


async def test_a_path_with_dot_segments_is_refused_before_any_request(app, cache):
    """``{hub_url}/{egg.path}`` equals egg.url, but the client would resolve ``..`` to a place
    outside the hub: the content-addressed path is required before anything is asked."""
    record = record_of()
    value = record.as_value()
    sneaky = "api/hive-hub/v1/seed-boots/downloads/sha256/../../../../../elsewhere/x.egg"
    value["egg"] = {**value["egg"], "path": sneaky, "url": f"{HUB}/{sneaky}"}
    sneaky_record = parse_boot_record(value)
    async with in_process_client(app, base_url=BASE) as client:
        with pytest.raises(DownloadRefused) as caught:
            await download_egg(sneaky_record.egg, HUB, client=client, cache=cache)
    assert caught.value.check == "record.path" and "content-addressed" in caught.value.detail
    assert hub_requests(app) == []


async def test_an_unwritable_cache_is_named_not_a_crash(app, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    async with in_process_client(app, base_url=BASE) as client:
        with pytest.raises(CacheUnwritable) as caught:
            await download_egg(
                record_of().egg, HUB, client=client, cache=EggCache(blocker / "eggs")
            )
    assert "cannot be written" in caught.value.detail and str(blocker) in caught.value.detail


class EndlessEgg(httpx.AsyncByteStream):
    """A body with no Content-Length that never ends: counts what the client pulled."""

    def __init__(self) -> None:
        self.sent = 0

    async def __aiter__(self):
        while True:
            self.sent += 4096
            yield b"PK" + b"\0" * 4094


async def test_an_unannounced_oversize_body_stops_right_after_egg_bytes(cache):
    record = record_of()
    body = EndlessEgg()
    async with httpx.AsyncClient(
        transport=httpx.MockTransport(lambda request: httpx.Response(200, stream=body))
    ) as client:
        with pytest.raises(DownloadRefused, match="download aborted") as caught:
            await download_egg(
                record.egg,
                HUB,
                client=client,
                cache=cache,
                options=DownloadOptions(retries=0),
            )
    assert caught.value.check == "file.size"
    assert record.egg.bytes < body.sent <= record.egg.bytes + 2 * 4096  # one block past it
    assert leftovers(cache) == []


async def test_a_slow_hub_meets_the_deadline(app, cache):
    hub_state(app).faults.slow = 30.0
    record = record_of()
    async with in_process_client(app, base_url=BASE) as client:
        with pytest.raises(HubUnreachable, match="did not finish|no complete reply"):
            await download_egg(
                record.egg,
                HUB,
                client=client,
                cache=cache,
                options=DownloadOptions(deadline_s=0.2, retry_delay_s=0.0),
            )
    assert leftovers(cache) == []


class TrickleEgg(httpx.AsyncByteStream):
    """A body that arrives one small block at a time, far below any useful rate."""

    async def __aiter__(self):
        for _ in range(1000):
            await asyncio.sleep(0.01)
            yield b"P"


async def test_a_trickling_hub_is_dropped_under_the_minimum_rate(cache):
    record = record_of()
    options = DownloadOptions(retries=0, grace_s=0.05, min_rate=1 << 20)
    async with httpx.AsyncClient(
        transport=httpx.MockTransport(lambda request: httpx.Response(200, stream=TrickleEgg()))
    ) as client:
        with pytest.raises(HubUnreachable, match="slower than"):
            await download_egg(record.egg, HUB, client=client, cache=cache, options=options)
    assert leftovers(cache) == []


async def test_the_token_is_never_sent_to_the_hub():
    from tui.config import Settings
    from tui.service import connect

    service = connect(Settings(), use_cache=False)
    app = service.demo_app
    try:
        assert service.session.token  # the demo has one, for the issue API
        hub_index = index_url(service.hub_url)
        assert service.settings.boots.startswith(hub_index + ",")  # and the demo store's
        boots = await load_boots(hub_index, client=service.hub_client(), hub_url=service.hub_url)
        record = boots.find(SLUG).record
        cache = EggCache.for_hub(service.hub_url)
        await download_egg(record.egg, service.hub_url, client=service.hub_client(), cache=cache)
    finally:
        await service.aclose()
    hub = hub_requests(app)
    assert len(hub) == 13  # the index, eleven records, one egg
    assert all(r.header("authorization") is None and r.header("cookie") is None for r in hub)


@pytest.mark.parametrize(
    "options",
    [
        {"headers": {"Authorization": f"Bearer {DEMO_TOKEN}"}},
        {"headers": {"Cookie": "session=secret"}},
        {"auth": ("user", "password")},
        {"follow_redirects": True},
    ],
)
async def test_a_client_that_could_leak_the_token_is_refused(app, cache, options):
    record = record_of()
    async with in_process_client(app, base_url=BASE, **options) as client:
        with pytest.raises(ValueError, match="no token"):
            await download_egg(record.egg, HUB, client=client, cache=cache)
        with pytest.raises(ValueError, match="no token"):
            await download_url(record.egg.url, client=client, cache=cache, cap=1 << 20)
    assert hub_requests(app) == []


async def test_offline_hub_is_unreachable(cache):
    record = record_of()

    def refuse(request):
        raise httpx.ConnectError("connection refused", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as client:
        with pytest.raises(HubUnreachable, match="^offline: the hub could not be reached"):
            await download_egg(record.egg, HUB, client=client, cache=cache, options=FAST)


async def test_a_redirect_is_named_and_not_followed(cache):
    seen: list[str] = []

    def elsewhere(request):
        seen.append(str(request.url))
        return httpx.Response(302, headers={"Location": "https://elsewhere.invalid/x.egg"})

    record = record_of()
    async with httpx.AsyncClient(transport=httpx.MockTransport(elsewhere)) as client:
        with pytest.raises(HubUnreachable, match="HTTP 302, a redirect: not followed"):
            await download_egg(record.egg, HUB, client=client, cache=cache, options=FAST)
    assert all("elsewhere" not in url for url in seen)
    assert leftovers(cache) == []


async def test_truncated_over_a_real_socket_is_a_size_refusal(cache):
    with running_sandbox(agents=20) as (info, app):
        hub_state(app).faults.truncated.add(SLUG)
        record = record_of(hub_url=info.hub_url)
        async with httpx.AsyncClient() as client:
            with pytest.raises(DownloadRefused) as caught:
                await download_egg(
                    record.egg, info.hub_url, client=client, cache=cache, options=FAST
                )
    assert caught.value.check == "file.size"
    assert leftovers(cache) == []


async def test_two_downloads_of_one_egg_share_the_cache(app, tmp_path):
    record = record_of()
    one, two = EggCache(tmp_path / "eggs"), EggCache(tmp_path / "eggs")
    async with in_process_client(app, base_url=BASE) as client:
        first, second = await asyncio.gather(
            download_egg(record.egg, HUB, client=client, cache=one),
            download_egg(record.egg, HUB, client=client, cache=two),
        )
    assert first.path == second.path
    assert leftovers(one) == [f"{record.egg.sha256}.egg"]


async def test_download_by_url_is_capped_and_stored_by_its_sha256(app, cache):
    record = record_of()
    async with in_process_client(app, base_url=BASE) as client:
        egg = await download_url(record.egg.url, client=client, cache=cache, cap=1 << 20)
        assert egg.sha256 == record.egg.sha256 and egg.path.name == f"{egg.sha256}.egg"
        with pytest.raises(DownloadRefused, match="cap"):
            await download_url(record.egg.url, client=client, cache=cache, cap=100, options=FAST)
        with pytest.raises(DownloadRefused):
            await download_url("file:///etc/passwd", client=client, cache=cache, cap=100)


def test_refusal_report_fails_the_broken_rule_and_skips_what_needs_bytes():
    record = record_of(foreign=(SLUG,))
    report = refusal_report(record, HUB, DownloadRefused("record.url", "egg.url elsewhere"))
    assert [c.id for c in report.checks] == [check_id for check_id, _ in CHECKS]
    assert report.failed() == ["record.url"]
    assert report.status_of("record.ref") == "pass" and report.status_of("record.path") == "pass"
    assert report.status_of("integrity") == "skip"
    assert report.as_json()["ok"] is False
    size = refusal_report(record_of(), HUB, DownloadRefused("file.size", "short"))
    position = [check_id for check_id, _ in CHECKS].index("file.size") + 1
    assert size.failed() == ["file.size"] and size.first_failure[0] == position


def test_partial_files_of_a_killed_download_are_swept_once_old(cache):
    """A process killed mid-download leaves its partial file; the next download removes it once
    it is older than any download lasts, and leaves a younger one (another roost's) alone."""
    import os
    import time

    from tui.eggs.download import ABANDONED_AFTER_S

    cache.folder.mkdir(parents=True, exist_ok=True)
    old = cache.folder / ".download.killed.tmp"
    young = cache.folder / ".download.writing.tmp"
    old.write_bytes(b"x" * 1000)
    young.write_bytes(b"y" * 10)
    past = time.time() - ABANDONED_AFTER_S - 60
    os.utime(old, (past, past))
    partial = cache.begin()
    partial.abandon()
    assert not old.exists() and young.exists()
