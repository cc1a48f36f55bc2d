"""A store as a source: its index (rapp-pokedex-api/1.0 or rapp-store/1.0) by URL or path, its
rapplications beside boot records, eggs only from the index's origin, capped at egg_bytes, from
the mirror beside a file index; and a record held to its own hub when no hub is known."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.conftest import REAL_BOOTS_DIR, REAL_DIR
from tui.eggs.boot_record import parse_boot_record
from tui.eggs.download import DownloadOptions, EggCache
from tui.eggs.egg_rules import record_document_checks
from tui.eggs.hub_paths import demo_sources, records_hub, split_sources
from tui.eggs.pipeline import Downloads, check_egg
from tui.eggs.sources import load_boots
from tui.sandbox.app import create_app
from tui.sandbox.hub import hub_state
from tui.sandbox.server import in_process_client

REAL_STORE = REAL_DIR / "rapp-store"
BASE = "http://demo.invalid"
HUB = BASE + "/hub"
STORE = f"{HUB}/store/api/v1/index.json"
FAST = DownloadOptions(retries=0, retry_delay_s=0.0)


def real_store():
    if not REAL_STORE.is_dir():
        pytest.skip("../shared/real/rapp-store is not present beside this clone")
    return REAL_STORE


async def test_the_real_store_index_read_from_its_path_uses_its_mirror():
    index = real_store() / "api" / "v1" / "index.json"
    boots = await load_boots(str(index))  # no client: nothing may come from the network
    assert boots.kind == "store" and len(boots.apps) == 14 and boots.records == []
    mirrored = [a for a in boots.apps if a.local_egg is not None]
    assert len(mirrored) == 8
    assert {a.egg_origin for a in boots.apps} == {"https://raw.githubusercontent.com"}
    zoo = boots.find_app("rapp-zoo")
    assert (zoo.name, zoo.publisher, zoo.version, zoo.category) == (
        "rapp-zoo", "@rapp", "0.3.0", "platform",
    )  # fmt: skip
    assert zoo.egg_bytes == 18795 and zoo.singleton_sha256 and not zoo.problems
    missing = [a for a in boots.apps if a.local_egg is None]
    assert all("record could not be read" in a.problems[0] for a in missing)
    for app in mirrored:
        outcome = await check_egg(None, app, download=False)
        assert outcome.report.ok and outcome.report.legacy and not outcome.report.verified
        assert outcome.report.by_id("store.url").status == "pass"
        assert outcome.report.by_id("store.size").status == "pass"


async def test_the_real_older_index_lists_rapplications_and_says_which_have_no_egg():
    boots = await load_boots(str(real_store() / "index.json"))
    assert boots.kind == "store" and len(boots.apps) == 10
    no_egg = [a for a in boots.apps if a.egg_url is None]
    assert len(no_egg) == 8 and all(a.egg_note for a in no_egg)
    outcome = await check_egg(None, no_egg[0], download=False)
    assert outcome.report is None and outcome.error.startswith("the store ships no egg for it")
    assert {a.egg_origin for a in boots.apps} == {"https://raw.githubusercontent.com"}


async def served(app, tmp_path, **faults):
    """The demo store's index read in-process, its rapplications and a Downloads."""
    for knob, ids in faults.items():
        getattr(hub_state(app).faults, knob).update(ids)
    client = in_process_client(app, base_url=BASE)
    boots = await load_boots(STORE, client=client)
    return boots, Downloads(client, EggCache(tmp_path / "eggs"), FAST), client


async def test_a_served_store_egg_is_downloaded_from_its_origin_and_judged_legacy(tmp_path):
    app = create_app(agents=20)
    boots, downloads, client = await served(app, tmp_path)
    notes = boots.find_app("field_notes")
    assert notes.egg_origin == BASE and notes.egg_url.startswith(STORE.rsplit("/", 1)[0])
    before = len(app.state.sandbox.request_log)
    not_yet = await check_egg(None, notes, downloads=downloads, download=False)
    assert not_yet.report is None and not_yet.error is None  # not downloaded, nothing asked
    assert len(app.state.sandbox.request_log) == before
    outcome = await check_egg(None, notes, downloads=downloads)
    await client.aclose()
    report = outcome.report
    assert report.format == "legacy (brainstem-egg/2.2-rapplication)" and report.ok
    assert report.by_id("store.url").detail == notes.egg_url
    for check in ("store.size", "store.agent", "store.rappid"):
        assert report.by_id(check).status == "pass"
    assert [a.id for a in boots.apps if a.egg_url is None] == ["quiet_hours"]


async def test_a_store_egg_on_a_foreign_origin_is_refused_before_any_request(tmp_path):
    app = create_app(agents=20)
    boots, downloads, client = await served(app, tmp_path, foreign_url={"field_notes"})
    notes = boots.find_app("field_notes")
    assert notes.problems and "not on the store's origin" in notes.problems[0]
    before = len(app.state.sandbox.request_log)
    outcome = await check_egg(None, notes, downloads=downloads)
    await client.aclose()
    assert outcome.refused and outcome.report.failed() == ["store.url"]
    assert "mirror.example.invalid" in outcome.report.by_id("store.url").detail
    assert len(app.state.sandbox.request_log) == before  # nothing was asked of anyone


async def test_an_oversized_store_egg_is_stopped_past_egg_bytes(tmp_path):
    app = create_app(agents=20)
    boots, downloads, client = await served(app, tmp_path, oversize={"tide_tables": 50_000})
    outcome = await check_egg(None, boots.find_app("tide_tables"), downloads=downloads)
    await client.aclose()
    assert outcome.refused and outcome.report.failed() == ["store.size"]
    assert not (tmp_path / "eggs").exists() or not any((tmp_path / "eggs").iterdir())


async def test_a_store_index_on_loopback_with_a_foreign_record_url_is_not_read(tmp_path):
    index = {
        "schema": "rapp-pokedex-api/1.0",
        "rapplications": [
            {"id": "x", "name": "X", "url": "https://elsewhere.example/x.json",
             "egg": "http://127.0.0.1:8/store/egg/x.egg"},
            "not an object",
            {"name": "no id"},
        ],
    }  # fmt: skip
    asked: list[str] = []

    def reply(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return httpx.Response(200, content=json.dumps(index).encode())

    async with httpx.AsyncClient(transport=httpx.MockTransport(reply)) as client:
        boots = await load_boots("http://127.0.0.1:8/store/index.json", client=client)
    assert asked == ["http://127.0.0.1:8/store/index.json"]
    first, second, third = boots.apps
    assert "not on the store's origin" in first.problems[0] and not boots.ok
    assert second.problems == ("the index entry has no id",) and third.problems


def test_several_sources_and_the_demo_default():
    assert split_sources("a.json, https://h.example/i.json") == [
        "a.json",
        "https://h.example/i.json",
    ]
    assert demo_sources(HUB) == f"{HUB}/api/hive-hub/v1/organization-seeds.json,{STORE}"


def test_which_hub_a_sources_records_are_held_to(tmp_path):
    real = "https://kody-w.github.io/rapp-hive-hub"
    index = f"{real}/api/hive-hub/v1/organization-seeds.json"
    assert records_hub(index, configured=None) == real
    assert records_hub(index, configured="https://mine.example/") == "https://mine.example"
    assert records_hub(str(tmp_path), configured=None, demo_hub=HUB) is None  # never the demo's
    assert records_hub(f"{HUB}/api/hive-hub/v1/organization-seeds.json", configured=None,
                       demo_hub=HUB) == HUB  # fmt: skip


def test_the_real_records_hold_with_no_hub_configured():
    if not REAL_BOOTS_DIR.is_dir():
        pytest.skip("../shared/real/boot-records is not present beside this clone")
    for path in sorted(REAL_BOOTS_DIR.glob("*.json")):
        record = parse_boot_record(path.read_bytes())
        checks = {check_id: (good, detail) for check_id, good, detail in record_document_checks(record, None)}  # fmt: skip
        assert all(good for good, _ in checks.values()), (path.name, checks)
        assert (
            "the record's own hub https://kody-w.github.io/rapp-hive-hub" in checks["record.url"][1]
        )
        # with the demo hub assumed, the same record failed: it is never assumed
        demo = record_document_checks(record, "http://demo.roost.invalid/hub")
        assert not dict((c, g) for c, g, _ in demo)["record.url"]
