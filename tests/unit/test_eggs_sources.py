"""Boot-record sources of every kind: one record, an array, a hub index (embedded records and
sha256-checked references), a folder; per-record problems, sibling warnings, the record cache."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import REAL_BOOTS_DIR
from tui.eggs.boot_record import record_bytes
from tui.eggs.hub_paths import INDEX_PATH, PUBLIC_HUB_URL, index_url
from tui.eggs.record_cache import RecordCache
from tui.eggs.sources import SourceOptions, load_boots
from tui.sandbox.app import create_app
from tui.sandbox.hub_records import build_hub
from tui.sandbox.server import in_process_client

BASE = "http://demo.invalid"
HUB = BASE + "/hub"
FAST = SourceOptions(retry_delay_s=0.0)


def demo_values() -> list[dict]:
    return [copy.deepcopy(r.value) for r in build_hub(HUB).records]


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def hub_tree(root: Path, values: list[dict]) -> Path:
    """A local copy of a hub: the index referencing records by {path, ref, url}."""
    seeds = []
    for value in values:
        raw = record_bytes(value)
        sha = hashlib.sha256(raw).hexdigest()
        path = f"api/hive-hub/v1/seed-boots/sha256/{sha[:2]}/{sha}.json"
        write(root / path, raw)
        seeds.append(
            {
                "slug": value["slug"],
                "boot": {
                    "document": {"path": path, "ref": f"sha256:{sha}", "url": f"{HUB}/{path}"}
                },
            }
        )
    index = {"count": len(seeds), "kind": "organization-seed-index", "seeds": seeds}
    return write(root / INDEX_PATH, json.dumps(index).encode())


@pytest.fixture
def app():
    return create_app(agents=20)


async def test_the_demo_hub_index_by_url(app, tmp_path):
    async with in_process_client(app, base_url=BASE) as client:
        boots = await load_boots(
            index_url(HUB), client=client, hub_url=HUB, cache=RecordCache(tmp_path)
        )
    assert boots.kind == "index" and boots.ok and boots.reachable
    assert len(boots.entries) == 11 and boots.requests == 12
    assert boots.find("night-shift-newsroom").record.name == "The Night Shift Newsroom"
    assert all(e.warnings == () and e.sha256 for e in boots.entries)


async def test_one_record_file(tmp_path):
    value = demo_values()[0]
    path = write(tmp_path / "one.json", record_bytes(value))
    boots = await load_boots(str(path), hub_url=HUB)
    assert boots.kind == "record" and boots.ok
    assert boots.entries[0].sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


async def test_an_array_with_a_bad_member_reports_it_and_keeps_the_rest(tmp_path):
    values = demo_values()[:3]
    del values[1]["organ"]
    path = write(tmp_path / "many.json", json.dumps(values + ["text"]).encode())
    boots = await load_boots(str(path), hub_url=HUB)
    assert boots.kind == "array"
    assert [e.ok for e in boots.entries] == [True, False, True, False]
    assert "organ" in boots.entries[1].problems[0]
    assert "not a JSON object" in boots.entries[3].problems[0]


async def test_index_with_embedded_records(tmp_path):
    values = demo_values()[:2]
    index = {
        "kind": "organization-seed-index",
        "seeds": [values[0], {"slug": values[1]["slug"], "boot": {"record": values[1]}}, 7],
    }
    path = write(tmp_path / "index.json", json.dumps(index).encode())
    boots = await load_boots(str(path), hub_url=HUB)
    assert boots.kind == "index"
    assert [e.ok for e in boots.entries] == [True, True, False]
    assert boots.entries[1].origin.endswith(values[1]["slug"])


async def test_index_references_are_read_beside_the_index_and_checked(tmp_path):
    index = hub_tree(tmp_path, demo_values())
    boots = await load_boots(str(index), hub_url=HUB)
    assert boots.ok and len(boots.entries) == 11


async def test_a_referenced_document_with_the_wrong_sha256_is_not_used(tmp_path):
    values = demo_values()
    index = hub_tree(tmp_path, values)
    document = json.loads(index.read_bytes())
    path = tmp_path / document["seeds"][2]["boot"]["document"]["path"]
    lying = copy.deepcopy(values[2])
    lying["name"] = "Someone Else"
    path.write_bytes(record_bytes(lying))
    boots = await load_boots(str(index), hub_url=HUB)
    bad = boots.entries[2]
    assert bad.record is None and "not the reference's" in bad.problems[0]
    assert [e.ok for e in boots.entries].count(True) == 10


async def test_references_without_a_hash_or_climbing_out_are_refused(tmp_path):
    value = demo_values()[0]
    write(tmp_path / "outside.json", record_bytes(value))
    sha = hashlib.sha256(record_bytes(value)).hexdigest()
    index = {
        "kind": "organization-seed-index",
        "seeds": [
            {"boot": {"document": {"path": "../outside.json", "ref": f"sha256:{sha}"}}},
            {"boot": {"document": {"path": "api/x.json"}}},
            {
                "boot": {
                    "document": {
                        "path": "api/x.json",
                        "ref": "sha256:" + "0" * 64,
                        "sha256": "1" * 64,
                    }
                }
            },
            {"boot": {"status": "boot-not-hatched"}},
        ],
    }
    path = write(tmp_path / "hub" / INDEX_PATH, json.dumps(index).encode())
    boots = await load_boots(str(path), hub_url=HUB)
    problems = [e.problems[0] for e in boots.entries]
    assert "climbs out" in problems[0]
    assert "no usable sha256" in problems[1] and "no usable sha256" in problems[2]
    assert "neither embeds nor references" in problems[3]


async def test_a_folder_of_record_files(tmp_path):
    values = demo_values()[:4]
    for value in values:
        raw = record_bytes(value)
        write(tmp_path / "boots" / f"{hashlib.sha256(raw).hexdigest()}.json", raw)
    write(tmp_path / "boots" / "broken.json", b"{not json")
    misnamed = record_bytes(demo_values()[5])
    write(tmp_path / "boots" / f"{'a' * 64}.json", misnamed)
    boots = await load_boots(str(tmp_path / "boots"), hub_url=HUB)
    assert boots.kind == "folder"
    by_origin = {e.origin: e for e in boots.entries}
    assert "not JSON" in by_origin["broken.json"].problems[0]
    assert "is named" in by_origin[f"{'a' * 64}.json"].warnings[0]
    assert sum(e.ok and not e.warnings for e in boots.entries) == 4


async def test_a_sibling_with_a_different_organ_gets_a_warning(tmp_path):
    values = demo_values()[:5]
    values[3]["organ"]["sha256"] = "f" * 64
    path = write(tmp_path / "many.json", json.dumps(values).encode())
    boots = await load_boots(str(path), hub_url=HUB)
    warned = [e.slug for e in boots.entries if e.warnings]
    assert warned == [values[3]["slug"]]
    assert "organ block differs from 4 of its 4 sibling" in boots.entries[3].warnings[0]
    assert not boots.ok


async def test_the_twelve_real_records_as_a_folder_source():
    if not REAL_BOOTS_DIR.is_dir():
        pytest.skip("../shared/real/boot-records is not present beside this clone")
    boots = await load_boots(str(REAL_BOOTS_DIR), hub_url=PUBLIC_HUB_URL)
    assert boots.kind == "folder" and len(boots.entries) == 12
    assert boots.ok, [(e.origin, e.problems, e.warnings) for e in boots.entries]
    assert all(e.origin == f"{e.sha256}.json" for e in boots.entries)
    # another hub configured is a copy of the public hub: the records naming the public hub
    # stay held to it, and their eggs are downloaded from the copy
    copy = await load_boots(str(REAL_BOOTS_DIR), hub_url=HUB)
    assert copy.ok, [(e.origin, e.problems, e.warnings) for e in copy.entries]
    assert {(e.hub_url, e.mirror) for e in copy.entries} == {(PUBLIC_HUB_URL, HUB.rstrip("/"))}


async def test_unreachable_source_without_a_cache(tmp_path):
    boots = await load_boots(index_url("http://127.0.0.1:9"), client=None)
    assert not boots.reachable and boots.entries == () and boots.problems
    missing = await load_boots(str(tmp_path / "nothing.json"))
    assert missing.reachable and "no such file" in missing.problems[0]
    write(tmp_path / "scalar.json", b"12")
    assert "neither a record" in (await load_boots(str(tmp_path / "scalar.json"))).problems[0]


async def test_the_last_good_records_are_kept_when_the_source_fails(app, tmp_path):
    cache = RecordCache(tmp_path / "cache")
    async with in_process_client(app, base_url=BASE) as client:
        fresh = await load_boots(index_url(HUB), client=client, hub_url=HUB, cache=cache)
    offline = await load_boots(index_url(HUB), client=None, hub_url=HUB, cache=cache)
    assert not offline.reachable and offline.problems
    assert [e.slug for e in offline.entries] == [e.slug for e in fresh.entries]
    assert all(e.cached and e.record is not None for e in offline.entries)


async def test_a_record_turned_bad_falls_back_to_its_last_good_copy(tmp_path):
    cache = RecordCache(tmp_path / "cache")
    values = demo_values()[:3]
    path = write(tmp_path / "many.json", json.dumps(values).encode())
    await load_boots(str(path), hub_url=HUB, cache=cache)
    values[1]["hatch"]["grantsAuthority"] = True
    path.write_bytes(json.dumps(values).encode())
    boots = await load_boots(str(path), hub_url=HUB, cache=cache)
    entry = boots.entries[1]
    assert entry.cached and entry.record.hatch.grantsAuthority is False
    assert "last good copy" in entry.problems[0] and not entry.ok
    assert boots.entries[0].ok and not boots.entries[0].cached


async def test_a_url_source_is_retried_once(tmp_path):
    import httpx

    calls = []

    def flaky(request):
        calls.append(request.url)
        if len(calls) == 1:
            return httpx.Response(503, stream=httpx.ByteStream(b"busy"))
        return httpx.Response(200, content=record_bytes(demo_values()[0]))

    async with httpx.AsyncClient(transport=httpx.MockTransport(flaky)) as client:
        boots = await load_boots(
            "http://hub.test/one.json", client=client, hub_url=HUB, options=FAST
        )
    assert boots.ok and boots.requests == 2 and len(calls) == 2


async def test_a_source_is_read_up_to_its_record_limit(tmp_path):
    values = demo_values()[:3]
    path = write(tmp_path / "many.json", json.dumps(values * 2).encode())
    boots = await load_boots(str(path), hub_url=HUB, options=SourceOptions(record_limit=4))
    assert len(boots.entries) == 5
    assert (
        boots.entries[-1].origin == "2 more" and "first 4 records" in boots.entries[-1].problems[0]
    )
    assert [e.warnings for e in boots.entries[:4]][3]  # the repeated slug is still noticed
