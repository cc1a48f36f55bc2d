"""The one egg pipeline (tui/eggs/pipeline.py): a record's egg from the cache or the hub, judged
in a worker, every end a value (refusals too, never an exception attribute), a cached egg read
and hashed once."""

from __future__ import annotations

import hashlib

import pytest

from tests.unit.test_eggs_download import BASE, HUB, SLUG, record_of
from tui.eggs.boot_record import parse_boot_record
from tui.eggs.download import DownloadOptions, EggCache
from tui.eggs.egg_report import CHECKS
from tui.eggs.pipeline import Downloads, EggOutcome, check_egg
from tui.sandbox.app import create_app
from tui.sandbox.hub import hub_state
from tui.sandbox.hub_records import build_hub
from tui.sandbox.server import in_process_client

FAST = DownloadOptions(retry_delay_s=0.0, retries=0)
POSITION = {check_id: n for n, (check_id, _) in enumerate(CHECKS, start=1)}


@pytest.fixture
def app():
    return create_app(agents=20)


@pytest.fixture
def cache(tmp_path):
    return EggCache(tmp_path / "eggs")


def hub_requests(app) -> int:
    return sum(1 for r in app.state.sandbox.request_log if r.path.startswith("/hub/"))


async def test_a_cached_egg_is_judged_without_a_request_and_a_lie_is_a_failed_check(app, cache):
    record = record_of()
    async with in_process_client(app, base_url=BASE) as client:
        downloads = Downloads(client, cache, FAST)
        assert await check_egg(None, record, hub_url=HUB, downloads=downloads, download=False) == (
            EggOutcome(None)
        )
        assert hub_requests(app) == 0
        first = await check_egg(None, record, hub_url=HUB, downloads=downloads)
        assert first.report is not None and first.report.ok and not first.from_cache
        assert first.egg == cache.path_for(record.egg.sha256) and first.verdict == "verified"
        assert hub_requests(app) == 1
        again = await check_egg(None, record, hub_url=HUB, downloads=downloads, download=False)
        assert again.from_cache and again.egg == first.egg and again.report == first.report
        value = record.as_value()
        value["egg"]["utc"] = "2030-01-01T00:00:00.000Z"
        lying = await check_egg(
            None, parse_boot_record(value), hub_url=HUB, downloads=downloads, download=False
        )
        assert lying.verdict == f"failed at check {POSITION['record.utc']} (record.utc)"
    assert hub_requests(app) == 1


async def test_a_cached_egg_is_read_and_hashed_once(app, cache, monkeypatch):
    """The lookup does not hash the cached file: the verification hashes it as it reads it."""
    from tui.eggs import egg_hashing

    record = record_of()
    async with in_process_client(app, base_url=BASE) as client:
        downloads = Downloads(client, cache, FAST)
        await check_egg(None, record, hub_url=HUB, downloads=downloads)
        fed: list[int] = []
        real = egg_hashing.file_hasher

        class Counting:
            def __init__(self) -> None:
                self.hasher = real()

            def update(self, block) -> None:
                fed.append(len(block))
                self.hasher.update(block)

            def hexdigest(self) -> str:
                return self.hasher.hexdigest()

        monkeypatch.setattr("tui.eggs.verify.file_hasher", Counting)
        opened: list[str] = []
        real_sha256 = hashlib.sha256

        def counting_sha256(*args, **kwargs):
            if args and len(args[0]) >= record.egg.bytes:
                opened.append("whole")
            return real_sha256(*args, **kwargs)

        monkeypatch.setattr(hashlib, "sha256", counting_sha256)
        outcome = await check_egg(None, record, hub_url=HUB, downloads=downloads, download=False)
    assert outcome.from_cache and outcome.report is not None and outcome.report.ok
    assert sum(fed) == record.egg.bytes  # every byte once
    assert opened == []  # and no other hash of the whole file


async def test_a_damaged_cached_egg_is_removed_and_downloaded_again(app, cache):
    record = record_of()
    async with in_process_client(app, base_url=BASE) as client:
        downloads = Downloads(client, cache, FAST)
        path = (await check_egg(None, record, hub_url=HUB, downloads=downloads)).egg
        data = bytearray(path.read_bytes())
        data[100] ^= 1
        path.write_bytes(bytes(data))
        assert await check_egg(None, record, hub_url=HUB, downloads=downloads, download=False) == (
            EggOutcome(None)
        )
        assert not path.exists()
        again = await check_egg(None, record, hub_url=HUB, downloads=downloads)
    assert again.report is not None and again.report.ok and not again.from_cache
    assert hashlib.sha256(path.read_bytes()).hexdigest() == record.egg.sha256


@pytest.mark.parametrize(
    ("knob", "check"),
    [("tampered", "file.sha256"), ("truncated", "file.size"), ("oversize", "file.size")],
)
async def test_a_refusal_is_a_report_value_naming_its_check(app, cache, knob, check):
    record = record_of()
    faults = hub_state(app).faults
    if knob == "oversize":
        faults.oversize[SLUG] = 5000
    else:
        getattr(faults, knob).add(SLUG)
    async with in_process_client(app, base_url=BASE) as client:
        outcome = await check_egg(
            None, record, hub_url=HUB, downloads=Downloads(client, cache, FAST)
        )
    assert isinstance(outcome, EggOutcome) and outcome.refused
    assert outcome.egg is None and outcome.error
    assert outcome.report.failed() == [check]
    assert outcome.report.by_id("record.url").status == "pass"  # the record's own checks ran
    assert outcome.verdict == f"failed at check {POSITION[check]} ({check})"
    assert not cache.folder.exists() or not any(cache.folder.iterdir())


async def test_a_foreign_url_is_refused_before_any_request(app, cache):
    record = record_of(foreign=(SLUG,))
    async with in_process_client(app, base_url=BASE) as client:
        outcome = await check_egg(None, record, hub_url=HUB, downloads=Downloads(client, cache))
    assert outcome.refused and outcome.report.failed()[0] == "record.url"
    assert hub_requests(app) == 0


async def test_an_unreachable_hub_is_an_error_value(cache):
    import httpx

    def offline(request):
        raise httpx.ConnectError("offline", request=request)

    record = record_of()
    async with httpx.AsyncClient(transport=httpx.MockTransport(offline)) as client:
        outcome = await check_egg(
            None, record, hub_url=HUB, downloads=Downloads(client, cache, FAST)
        )
    assert outcome.report is None and outcome.egg is None and "offline" in outcome.error
    assert outcome.verdict == outcome.error


async def test_an_egg_at_hand_is_judged_and_an_unreadable_file_is_an_error(tmp_path):
    record = record_of()
    egg = build_hub(HUB).eggs[record.egg.path]
    outcome = await check_egg(egg, record, hub_url=HUB)
    assert outcome.report.ok and outcome.egg == egg
    missing = await check_egg(tmp_path / "gone.egg", record, hub_url=HUB)
    assert missing.report is None and "cannot be read" in missing.error
