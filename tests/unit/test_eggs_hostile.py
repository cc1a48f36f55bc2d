"""Egg downloads and boot-record sources against the hostile loopback server
(tests/hostile_server.py): every hostile reply is a refusal or a reported problem with its
reason, in bounded time and memory, and nothing half-written stays in the egg cache."""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.hostile_server import gzip_bomb, lying_length, reset, stacked_gzip, status, trickle
from tui.eggs.download import DownloadFailed, DownloadOptions, EggCache, download_url
from tui.eggs.sources import load_boots

OPTIONS = DownloadOptions(retries=0, deadline_s=3.0, grace_s=0.3, min_rate=4096)

HOSTILE = {
    "gzip bomb": (lambda: gzip_bomb(64 << 20), "larger than|more than"),
    "stacked gzip": (lambda: stacked_gzip(b"PK\x03\x04" + bytes(100)), "stacked"),
    "lying length": (lambda: lying_length(b"PK\x03\x04", 10_000), "RemoteProtocolError|broke"),
    "trickle": (lambda: trickle(b"PK" * 200, every_s=0.2), "slower than|no complete reply"),
    "reset": (lambda: reset(), "Error"),
    "non-ASCII headers": (
        lambda: status(500, b"", [("Retry-After", "\u0663"), ("ETag", '"caf\u00e9"')]),
        "HTTP 500",
    ),
}


@pytest.mark.parametrize("behaviour", list(HOSTILE))
async def test_a_hostile_hub_is_refused_with_its_reason(server, client, tmp_path, behaviour):
    reply, reason = HOSTILE[behaviour]
    server.route("/eggs/x.egg", reply())
    cache = EggCache(tmp_path / "eggs")
    with pytest.raises(DownloadFailed, match=reason):
        await download_url(
            f"{server.url}/eggs/x.egg", client=client, cache=cache, cap=1 << 20, options=OPTIONS
        )
    assert not cache.folder.exists() or not any(cache.folder.iterdir())


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        pytest.param(lambda: gzip_bomb(64 << 20), "larger than|more than", id="gzip bomb"),
        pytest.param(lambda: stacked_gzip(b"[]"), "stacked", id="stacked gzip"),
        pytest.param(lambda: status(200, b"\xff\xfe[not json"), "JSON", id="not JSON"),
        pytest.param(lambda: reset(), "Error", id="reset"),
    ],
)
async def test_a_hostile_boot_record_source_is_a_reported_problem(server, client, reply, said):
    server.route("/hub/index.json", reply())
    boots = await asyncio.wait_for(load_boots(f"{server.url}/hub/index.json", client=client), 60)
    assert boots.records == [] and not boots.ok
    assert boots.problems, boots
    assert any(re.search(said, p) for p in boots.problems), boots.problems
