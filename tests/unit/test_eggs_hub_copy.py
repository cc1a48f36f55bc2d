"""The Boots tab with a copy of a hub (records naming the public hub, eggs from the copy), a
loopback hub over http://, and an offline hub in words."""

from __future__ import annotations

import httpx
import pytest

from tui.eggs.boot_record import egg_url_problems, parse_boot_record
from tui.eggs.boot_rows import EggState
from tui.eggs.download import DownloadOptions, DownloadRefused, EggCache, download_egg
from tui.eggs.hub_paths import OFFLINE, PUBLIC_HUB_URL, hub_for_record, is_loopback
from tui.eggs.pipeline import Downloads, check_egg
from tui.sandbox.hub_records import build_hub

COPY = "http://127.0.0.1:8765/mirror"
FAST = DownloadOptions(retry_delay_s=0.0)


def public_record():
    hub = build_hub(PUBLIC_HUB_URL)
    record = hub.record("night-shift-newsroom")
    return parse_boot_record(record.value), hub.eggs[record.value["egg"]["path"]]


def test_a_record_naming_the_public_hub_is_held_to_it_and_fetched_from_the_copy():
    assert hub_for_record(PUBLIC_HUB_URL, COPY) == (PUBLIC_HUB_URL, COPY)
    assert hub_for_record("https://other.example/hub", COPY) == (COPY, None)
    assert hub_for_record(PUBLIC_HUB_URL, None) == (None, None)
    assert hub_for_record(PUBLIC_HUB_URL, PUBLIC_HUB_URL + "/") == (PUBLIC_HUB_URL, None)


def test_loopback_may_be_http_and_nothing_else_may():
    assert is_loopback("http://127.0.0.1:1/x") and is_loopback("http://[::1]/x")
    assert is_loopback("http://localhost/x") and not is_loopback("http://127.evil.example/")
    assert egg_url_problems("http://localhost:8/hub/P", "P") == []
    assert egg_url_problems("http://127.evil.example/P", "P")


async def test_the_egg_comes_from_the_copy_and_is_checked_against_its_record(tmp_path):
    record, egg = public_record()
    asked: list[str] = []

    def serve(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return httpx.Response(200, content=egg)

    cache = EggCache(tmp_path / "eggs")
    async with httpx.AsyncClient(transport=httpx.MockTransport(serve)) as client:
        outcome = await check_egg(None, record, hub_url=PUBLIC_HUB_URL, mirror=COPY,
                                  downloads=Downloads(client, cache, FAST))  # fmt: skip
    assert asked == [f"{COPY}/{record.egg.path}"]
    assert outcome.report is not None and outcome.report.verified
    assert outcome.report.status_of("record.url") == "pass"


async def test_a_copy_over_plain_http_off_loopback_is_refused(tmp_path):
    record, _ = public_record()
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: None)) as client:
        with pytest.raises(DownloadRefused, match="http:// only on loopback"):
            await download_egg(record.egg, PUBLIC_HUB_URL, client=client,
                               cache=EggCache(tmp_path), mirror="http://copy.example")  # fmt: skip


async def test_offline_a_row_says_so_in_words(tmp_path):
    record, _ = public_record()

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as client:
        outcome = await check_egg(None, record, hub_url=PUBLIC_HUB_URL, mirror=COPY,
                                  downloads=Downloads(client, EggCache(tmp_path), FAST))  # fmt: skip
    assert outcome.error.startswith(OFFLINE) and "ConnectError" not in outcome.error
    assert EggState.of_outcome(outcome).label == "offline: the hub could not be reached"
