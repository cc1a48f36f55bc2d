"""The demo hub: eleven deterministic seed-boot records whose eggs pass every check, served at
the real hub's paths, and the fault knobs that make it lie."""

from __future__ import annotations

import hashlib

import pytest

from tui.eggs.boot_record import parse_boot_record
from tui.eggs.hub_paths import index_url
from tui.eggs.verify import verify_egg
from tui.sandbox.app import create_app
from tui.sandbox.hub import hub_state
from tui.sandbox.hub_records import FOREIGN_HUB, build_hub
from tui.sandbox.server import in_process_client

BASE = "http://demo.invalid"
HUB = BASE + "/hub"


@pytest.fixture
def app():
    return create_app(agents=20)


def test_eleven_records_whose_eggs_pass_every_check():
    content = build_hub(HUB)
    assert len(content.records) == 11
    assert len({r.slug for r in content.records}) == 11
    for record in content.records:
        egg = content.eggs[record.value["egg"]["path"]]
        report = verify_egg(egg, record.value, hub_url=HUB)
        assert report.failed() == [], record.slug
        skipped = [c.id for c in report.checks if c.status == "skip"]
        assert skipped == ["json.canonical"], (record.slug, skipped)  # a ZIP egg
        assert record.sha256 == hashlib.sha256(record.raw).hexdigest()
        assert record.path.endswith(f"/{record.sha256[:2]}/{record.sha256}.json")


def test_the_hub_is_deterministic_and_only_urls_depend_on_where_it_is_served():
    first, again, elsewhere = build_hub(HUB), build_hub(HUB + "/"), build_hub("http://x.test/hub")
    assert first.index == again.index and first.documents == again.documents
    assert first.eggs == elsewhere.eggs
    assert first.index != elsewhere.index
    assert {len(egg) for egg in first.eggs.values()} != 1  # eggs of varied size


async def test_served_index_references_resolve_and_hash_to_their_ref(app):
    async with in_process_client(app, base_url=BASE) as client:
        index = (await client.get(index_url(HUB))).json()
        assert index["kind"] == "organization-seed-index" and index["count"] == 11
        for seed in index["seeds"]:
            document = seed["boot"]["document"]
            assert document["url"] == f"{HUB}/{document['path']}"
            raw = (await client.get(document["url"])).content
            assert "sha256:" + hashlib.sha256(raw).hexdigest() == document["ref"]
            record = parse_boot_record(raw)
            assert seed["boot"]["egg"]["sha256"] == record.egg.sha256
            egg = await client.get(record.egg.url)
            assert egg.headers["content-type"] == "application/zip"
            assert hashlib.sha256(egg.content).hexdigest() == record.egg.sha256
        missing = await client.get(f"{HUB}/api/hive-hub/v1/seed-boots/sha256/00/{'0' * 64}.json")
        assert missing.status_code == 404
        missing = await client.get(
            f"{HUB}/api/hive-hub/v1/seed-boots/downloads/sha256/00/{'0' * 64}.egg"
        )
        assert missing.status_code == 404


async def _egg_response(app, slug: str):
    async with in_process_client(app, base_url=BASE) as client:
        record = build_hub(HUB).record(slug).value
        return record, await client.get(record["egg"]["url"])


async def test_fault_tampered_egg_keeps_its_length_but_not_its_hash(app):
    hub_state(app).faults.tampered.add("night-shift-newsroom")
    record, response = await _egg_response(app, "night-shift-newsroom")
    assert len(response.content) == record["egg"]["bytes"]
    assert hashlib.sha256(response.content).hexdigest() != record["egg"]["sha256"]
    _, other = await _egg_response(app, "open-ledger-foundation")
    assert (
        hashlib.sha256(other.content).hexdigest()
        == build_hub(HUB).record("open-ledger-foundation").value["egg"]["sha256"]
    )


async def test_fault_oversize_and_truncated(app):
    faults = hub_state(app).faults
    faults.oversize["*"] = 100
    record, response = await _egg_response(app, "night-shift-newsroom")
    assert len(response.content) == record["egg"]["bytes"] + 100
    faults.reset()
    faults.truncated.add("*")
    record, response = await _egg_response(app, "night-shift-newsroom")
    assert int(response.headers["content-length"]) == record["egg"]["bytes"]
    assert len(response.content) == record["egg"]["bytes"] // 2


async def test_fault_foreign_url_changes_the_record_and_the_index(app):
    hub_state(app).faults.foreign_url.add("repair-cafe-network")
    async with in_process_client(app, base_url=BASE) as client:
        index = (await client.get(index_url(HUB))).json()
        seed = next(s for s in index["seeds"] if s["slug"] == "repair-cafe-network")
        record = (await client.get(seed["boot"]["document"]["url"])).json()
    assert record["egg"]["url"].startswith(FOREIGN_HUB + "/")
    assert seed["boot"]["egg"]["url"] == record["egg"]["url"]
    assert build_hub(HUB).record("repair-cafe-network").value["egg"]["url"].startswith(HUB)


def test_hub_state_needs_a_mounted_hub():
    from starlette.applications import Starlette

    with pytest.raises(LookupError):
        hub_state(Starlette())


async def test_the_demo_service_reads_its_hub_by_default():
    from tui.config import Settings
    from tui.eggs.sources import load_boots
    from tui.service import connect

    service = connect(Settings(), use_cache=False)
    try:
        hub, store = service.settings.boots.split(",")
        assert hub == index_url(service.hub_url)
        assert store == f"{service.hub_url}/store/api/v1/index.json"
        hub_client = service.hub_client()
        assert hub_client is service.hub_client() and hub_client is not service.client
        assert "authorization" not in hub_client.headers and not hub_client.follow_redirects
        boots = await load_boots(hub, client=service.hub_client(), hub_url=service.hub_url)
        assert boots.ok and len(boots.entries) == 11
        shop = await load_boots(store, client=service.hub_client())
        assert shop.ok and shop.kind == "store" and len(shop.apps) == 4
        assert [a.egg_bytes is not None for a in shop.apps] == [True, True, True, False]
    finally:
        await service.aclose()
    kept = connect(Settings(boots="/some/records"), use_cache=False)
    assert kept.settings.boots == "/some/records"
    await kept.aclose()


async def test_a_real_service_gets_a_hub_client_of_its_own():
    from tui.config import Secret, Settings
    from tui.eggs.hub_paths import PUBLIC_HUB_URL
    from tui.service import connect
    from tui.session import Session

    service = connect(
        Settings(read_url="http://127.0.0.1:9"), Session(token=Secret("t0ken")), use_cache=False
    )
    try:
        assert service.hub_url == PUBLIC_HUB_URL
        client = service.hub_client()
        assert client is service.hub_client() and client is not service.client
        assert "authorization" not in client.headers
        assert not client.follow_redirects
    finally:
        await service.aclose()
