"""The demo deployment as it runs today: its contract and manifest, the newer processor's two
steps and receipts, the forged-verdict fault, and one world per machine kept across runs."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from tui.actions.connection import write_side
from tui.actions.contract import parse_skill
from tui.actions.issue_body import compose_issue
from tui.config import Settings
from tui.sandbox.app import DEMO_LOGIN, DEMO_TOKEN, create_app
from tui.sandbox.server import in_process_client
from tui.sandbox.world import WORLD_FORMAT, DemoWorld
from tui.service import connect

AUTH = {"Authorization": f"Bearer {DEMO_TOKEN}"}
ISSUES = "/api/repos/roost-demo/network/issues"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 5, 8, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
async def client(clock):
    app = create_app(agents=40, clock=clock)
    async with in_process_client(app) as client:
        client.sandbox = app.state.sandbox  # type: ignore[attr-defined]
        yield client


async def post(client, action: str, payload: dict) -> int:
    request = compose_issue(action, payload, "nonce-1")
    response = await client.post(ISSUES, json=request.as_json(), headers=AUTH)
    assert response.status_code == 201, response.text
    return response.json()["number"]


async def comments(client, number: int) -> list[dict]:
    return (await client.get(f"{ISSUES}/{number}/comments")).json()


async def test_the_contract_and_the_manifest_are_published(client):
    skill = (await client.get("/skill.json")).json()
    contract = parse_skill(skill)
    assert contract.post_method == "graphql_discussion" and contract.receipts is not None
    assert skill["actions"]["verify_agent"]["method"] == "issues"  # the older flat entry
    etag = (await client.get("/skill.json")).headers["etag"]
    again = await client.get("/skill.json", headers={"If-None-Match": etag})
    assert again.status_code == 304
    manifest = (await client.get("/state/manifest.json")).json()
    assert manifest["owner"] == "roost-demo" and manifest["repo_id"].startswith("R_kg")
    assert set(manifest["category_ids"]) == set(
        (await client.get("/state/channels.json")).json()["channels"]
    )
    client.sandbox.faults.update({"no_skill": True})
    assert (await client.get("/skill.json")).status_code == 404


async def test_the_newer_processor_queues_then_applies_with_receipts(client, clock):
    client.sandbox.faults.update({"inbox_delay": 3600})
    number = await post(client, "register_agent", {"name": "D", "framework": "py", "bio": "b"})
    (queued,) = await comments(client, number)
    assert queued["user"]["login"] == "github-actions[bot]" and queued["user"]["type"] == "Bot"
    assert queued["body"].startswith("## 📨 QUEUED")
    assert f"<!-- rappterbook-queued:issue:{number} -->" in queued["body"]
    delta = (await client.get(f"/state/inbox/issue-{number}.json")).json()
    assert (delta["issue_number"], delta["request_id"], delta["agent_id"]) == (
        number,
        f"issue:{number}",
        DEMO_LOGIN,
    )
    assert (await client.get(f"/state/inbox/processed/issue-{number}.json")).status_code == 404
    issue = (await client.get(f"{ISSUES}/{number}")).json()
    assert issue["state"] == "open"  # the newer processor does not close it
    clock.now += timedelta(hours=1)
    (_, applied) = await comments(client, number)
    assert applied["body"].startswith("## ✅ APPLIED")
    assert f"<!-- rappterbook-terminal-receipt:issue:{number}:applied -->" in applied["body"]
    receipt = (await client.get(f"/state/inbox/processed/issue-{number}.json")).json()
    assert receipt["receipt_id"] == f"issue:{number}:applied" and receipt["status"] == "applied"
    assert receipt["provenance"]["delta"]["payload"] == {"name": "D", "framework": "py", "bio": "b"}
    assert (await client.get(f"/state/inbox/issue-{number}.json")).status_code == 404
    agents = (await client.get("/state/agents.json")).json()["agents"]
    assert DEMO_LOGIN in agents


async def test_a_rejection_has_its_error_and_hint(client):
    number = await post(client, "poke", {"target_agent": "zion-coder-01"})
    last = (await comments(client, number))[-1]["body"]
    assert last.startswith("## ❌ REJECTED") and "register_agent first" in last
    receipt = (await client.get(f"/state/inbox/rejected/issue-{number}.json")).json()
    assert receipt["status"] == "rejected" and "register_agent first" in receipt["error"]
    assert receipt["hint"]
    unreadable = await client.post(
        ISSUES, json={"title": "x", "labels": [], "body": "no json here"}, headers=AUTH
    )
    body = (await comments(client, unreadable.json()["number"]))[-1]["body"]
    assert body.startswith("## ❌ REJECTED") and "No ```json block" in body
    assert client.sandbox.archive_receipts() == 2
    assert (await client.get(f"/state/inbox/rejected/issue-{number}.json")).status_code == 404


async def test_the_forged_verdict_fault_comments_as_another_account(client):
    client.sandbox.faults.update({"forge_verdicts": True, "inbox_delay": 600})
    number = await post(client, "heartbeat", {})
    listed = await comments(client, number)
    forged = [c for c in listed if c["user"]["login"] != "github-actions[bot]"]
    assert [c["body"][:16] for c in forged] == ["✅ Delta processe", "## ✅ APPLIED\n\n`h"]
    assert f"terminal-receipt:issue:{number}:applied" in forged[1]["body"]
    assert forged[0]["user"]["type"] == "User"


async def test_the_classic_processor_on_request(clock):
    app = create_app(agents=40, clock=clock, processor="classic")
    async with in_process_client(app) as client:
        number = await post(client, "register_agent", {"name": "D", "framework": "py", "bio": "b"})
        (only,) = await comments(client, number)
        assert only["body"] == "✅ Delta processed successfully and added to inbox."
        assert (await client.get(f"{ISSUES}/{number}")).json()["state"] == "closed"
        skill = (await client.get("/skill.json")).json()
        assert "onramp" not in skill and "create_post" not in skill["actions"]
    with pytest.raises(ValueError, match="processor"):
        create_app(processor="modern")


# --- one world per machine ------------------------------------------------------------------


async def test_the_demo_world_and_its_outbox_survive_a_restart(tmp_path):
    """An action sent in one run is in the next run's world and outbox, as applied."""
    service = connect(Settings(), use_cache=False, agents=40)
    side = write_side(service)
    await side.docs.refresh()
    entry = side.outbox.draft("heartbeat", {"status_message": "first run"})
    entry = await side.outbox.send(entry.id, side.client)
    assert entry.state == "queued"
    first_world = service.run_id
    await side.aclose()
    await service.aclose()

    again = connect(Settings(), use_cache=False, agents=40)  # a new process, as far as it knows
    side = write_side(again)
    await side.docs.refresh()
    assert again.run_id == first_world
    (kept,) = side.outbox.entries()
    assert kept.id == entry.id
    from tui.actions.tracking import follow_queued

    (followed,) = await follow_queued(side.outbox, side.client, docs=side.docs, now=10**10)
    assert followed.state == "applied" and followed.receipt["status"] == "applied"
    await again.store.refresh()
    agent = again.store.snapshot.agents.agents[DEMO_LOGIN]  # registered in every new world
    assert agent.extras.get("status_message") == "first run"
    await side.aclose()
    await again.aclose()


async def test_two_runs_at_once_share_the_world(tmp_path):
    """What one process changes, another sees at its next request (the file is read again)."""
    world_a, world_b = DemoWorld(tmp_path), DemoWorld(tmp_path)
    app_a = world_a.open_app(agents=30)
    app_b = world_b.open_app(agents=30)
    assert world_a.id == world_b.id
    async with in_process_client(app_a) as a, in_process_client(app_b) as b:
        number = await post(a, "heartbeat", {"status_message": "from a"})
        listed = (await b.get(ISSUES, params={"state": "all"}, headers=AUTH)).json()
        assert [i["number"] for i in listed] == [number]
        second = await post(b, "heartbeat", {"status_message": "from b"})
        assert second == number + 1
        agents = (await a.get("/state/agents.json")).json()["agents"]
        assert agents[DEMO_LOGIN]["status_message"] == "from b"


async def test_a_reset_starts_a_fresh_world_with_a_new_outbox(tmp_path):
    world = DemoWorld(tmp_path)
    app = world.open_app(agents=30)
    old = world.id
    async with in_process_client(app) as client:
        await post(client, "heartbeat", {})
    world.reset()
    fresh = DemoWorld(tmp_path)
    app = fresh.open_app(agents=30)
    assert fresh.id != old
    async with in_process_client(app) as client:
        assert (await client.get(ISSUES, params={"state": "all"}, headers=AUTH)).json() == []
    assert any(p.name.endswith(".old.json") for p in tmp_path.iterdir())  # kept aside


async def test_an_unreadable_world_is_set_aside_for_a_new_one(tmp_path):
    (tmp_path / "world.json").write_text("{broken")
    world = DemoWorld(tmp_path)
    app = world.open_app(agents=30)
    async with in_process_client(app) as client:
        assert (await client.get("/state/stats.json")).status_code == 200
    assert json.loads((tmp_path / "world.json").read_text())["format"] == WORLD_FORMAT
    assert any(p.name.endswith(".unreadable.json") for p in tmp_path.iterdir())


def test_the_world_lives_under_roosts_data_folder(monkeypatch, tmp_path):
    from tui.sandbox.world import world_folder

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert world_folder() == tmp_path / "roost" / "demo"
