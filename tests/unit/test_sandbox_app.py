"""The sandbox app through httpx.ASGITransport, plus runs over a real loopback socket."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from tui.actions.issue_body import compose_issue
from tui.network.models import parse_state
from tui.network.state_files import (
    AGENTS,
    CHANGES,
    CHANNELS,
    CONVERSATION_FILES,
    FOLLOWS,
    MANIFEST_FILE,
    NOTIFICATIONS,
    POKES,
    PULSE_FILES,
    SEEDS,
    SOCIAL_GRAPH,
    STATE_FILE_NAMES,
    STATS,
    TRENDING,
)
from tui.sandbox.app import DEMO_LOGIN, DEMO_TOKEN, create_app
from tui.sandbox.deployment import CLASSIC_ACTIONS
from tui.sandbox.faults import Faults, corrupt_same_size
from tui.sandbox.server import SandboxInfo, in_process_client, running_sandbox, serve

ISSUES = "/api/repos/roost-demo/network/issues"
SUCCESS = "✅ Delta processed successfully and added to inbox."
FAILURE = "❌ Failed to process delta."
AUTH = {"Authorization": f"Bearer {DEMO_TOKEN}"}
OTHER_TOKEN = "other-token"
OTHER = {"Authorization": f"token {OTHER_TOKEN}"}
RATE_HEADERS = (
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "x-ratelimit-used",
    "x-ratelimit-resource",
    "x-oauth-scopes",
    "x-github-api-version",
)


class Clock:
    """A settable clock for issue timestamps."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 5, 8, 0, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def app(clock):
    """The classic processor generation (✅ and close): what most tests here check; the newer
    one has its own tests (test_sandbox_deployment_today.py)."""
    return create_app(
        agents=120,
        clock=clock,
        tokens={DEMO_TOKEN: DEMO_LOGIN, OTHER_TOKEN: "zion-coder-01"},
        processor="classic",
    )


@pytest.fixture
async def client(app):
    async with in_process_client(app) as client:
        yield client


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def manifest(client) -> dict:
    response = await client.get(f"/state/{MANIFEST_FILE}")
    assert response.status_code == 200
    return response.json()


async def state(client, name: str) -> dict:
    response = await client.get(f"/state/{name}")
    assert response.status_code == 200
    return response.json()


async def post_action(client, action, payload, headers=AUTH, nonce=None):
    request = compose_issue(action, payload, nonce)
    return await client.post(ISSUES, json=request.as_json(), headers=headers)


async def act(client, action, payload, headers=AUTH):
    """Post an action, assert it was applied, return the issue as GitHub shows it now."""
    response = await post_action(client, action, payload, headers)
    assert response.status_code == 201, response.text
    issue = (await client.get(f"{ISSUES}/{response.json()['number']}")).json()
    comments = await comment_bodies(client, issue["number"])
    if issue["state_reason"] != "completed":
        pytest.fail(f"{action} was not applied: {comments}")
    assert comments == [SUCCESS] and issue["state"] == "closed" and issue["closed_at"]
    return issue


async def comment_bodies(client, number: int) -> list[str]:
    response = await client.get(f"{ISSUES}/{number}/comments")
    assert response.status_code == 200, response.text
    return [c["body"] for c in response.json()]


async def register(client, headers=AUTH):
    return await act(
        client, "register_agent", {"name": "Demo", "framework": "python", "bio": "Hello."}, headers
    )


# --- read interface -------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*STATE_FILE_NAMES, MANIFEST_FILE])
async def test_state_file_etag_and_304(client, name):
    response = await client.get(f"/state/{name}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    etag = response.headers["etag"]
    assert etag == f'"{sha(response.content)}"'
    assert int(response.headers["content-length"]) == len(response.content)
    json.loads(response.content)
    for header in (etag, f"W/{etag}", f'"nope", {etag}', "*"):
        again = await client.get(f"/state/{name}", headers={"If-None-Match": header})
        assert again.status_code == 304, header
        assert again.content == b"" and again.headers["etag"] == etag
    stale = await client.get(f"/state/{name}", headers={"If-None-Match": '"0000"'})
    assert stale.status_code == 200 and stale.content == response.content


async def test_manifest_matches_every_file(client):
    files = (await manifest(client))["files"]
    assert set(files) == set(STATE_FILE_NAMES) | set(CONVERSATION_FILES) | set(PULSE_FILES)
    for name, entry in files.items():
        data = (await client.get(f"/state/{name}")).content
        assert entry == {"hash": sha(data), "size": len(data)}


async def test_unknown_file_is_404(client):
    assert (await client.get("/state/nope.json")).status_code == 404
    assert (await client.get("/state/../app.py")).status_code == 404


async def test_an_unchanged_network_costs_one_conditional_request(app, client):
    first = await client.get(f"/state/{MANIFEST_FILE}")
    app.state.sandbox.clear_log()
    again = await client.get(
        f"/state/{MANIFEST_FILE}", headers={"If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304
    assert [(m, p, s) for m, p, s, _ in app.state.sandbox.requests] == [
        ("GET", f"/state/{MANIFEST_FILE}", 304)
    ]


# --- faults ---------------------------------------------------------------------------------


async def test_latency(client):
    await client.post("/_sandbox/faults", json={"latency": 0.15})
    started = time.perf_counter()
    assert (await client.get("/state/stats.json")).status_code == 200
    assert time.perf_counter() - started >= 0.15


async def test_fail_next_counts_down(client):
    response = await client.post("/_sandbox/faults", json={"fail_next": 2, "fail_status": 502})
    assert response.json()["fail_next"] == 2
    assert (await client.get(f"/state/{MANIFEST_FILE}")).status_code == 502
    assert (await client.get("/state/stats.json")).status_code == 502
    assert (await client.get("/state/stats.json")).status_code == 200


async def test_fail_until_reset(client):
    await client.post("/_sandbox/faults", json={"fail_next": -1})
    for _ in range(3):
        assert (await client.get("/state/stats.json")).status_code == 503
    reset = await client.delete("/_sandbox/faults")
    assert reset.json() == Faults().as_dict()
    assert (await client.get("/state/stats.json")).status_code == 200


@pytest.mark.parametrize("count", [1, 2])
async def test_mismatch(client, count):
    good = (await client.get("/state/agents.json")).content
    advertised = (await manifest(client))["files"]["agents.json"]
    await client.post("/_sandbox/faults", json={"mismatch": {"agents.json": count}})
    for _ in range(count):
        bad = await client.get("/state/agents.json")
        assert bad.status_code == 200
        assert sha(bad.content) != advertised["hash"]
        assert len(bad.content) == advertised["size"]  # same size: only the hash tells
        json.loads(bad.content)  # and still valid JSON
        assert bad.headers["etag"] == f'"{sha(bad.content)}"'
        # the manifest still advertises the good hash
        assert (await manifest(client))["files"]["agents.json"] == advertised
    assert (await client.get("/state/agents.json")).content == good


async def test_mismatch_does_not_hide_a_304(client):
    first = await client.get("/state/stats.json")
    await client.post("/_sandbox/faults", json={"mismatch": {"stats.json": 1}})
    # the client revalidates its good copy: the sandbox answers with the corrupted version
    second = await client.get("/state/stats.json", headers={"If-None-Match": first.headers["etag"]})
    assert second.status_code == 200 and second.content != first.content
    third = await client.get("/state/stats.json", headers={"If-None-Match": first.headers["etag"]})
    assert third.status_code == 304


async def test_truncate(client):
    good = (await client.get("/state/channels.json")).content
    await client.post("/_sandbox/faults", json={"truncate": {"channels.json": 1}})
    cut = await client.get("/state/channels.json")
    assert cut.status_code == 200
    assert cut.content == good[: len(good) // 2]
    assert int(cut.headers["content-length"]) == len(cut.content)
    assert (await client.get("/state/channels.json")).content == good


async def test_malformed_passes_integrity_and_fails_parsing(client):
    original = await manifest(client)
    await client.post("/_sandbox/faults", json={"malformed": ["seeds.json"]})
    data = (await client.get("/state/seeds.json")).content
    listed = (await manifest(client))["files"]
    assert listed["seeds.json"] == {"hash": sha(data), "size": len(data)}
    assert listed["stats.json"] == original["files"]["stats.json"]
    with pytest.raises(json.JSONDecodeError):
        json.loads(data)
    await client.post("/_sandbox/faults", json={"malformed": []})
    assert (await manifest(client))["files"] == original["files"]


async def test_schema_invalid_passes_json_and_fails_models(client):
    models = pytest.importorskip("tui.network.models")
    await client.post("/_sandbox/faults", json={"schema_invalid": list(STATE_FILE_NAMES)})
    listed = (await manifest(client))["files"]
    for name in STATE_FILE_NAMES:
        data = (await client.get(f"/state/{name}")).content
        assert listed[name]["hash"] == sha(data)
        json.loads(data)
        with pytest.raises(models.StateValidationError):
            models.parse_state(name, data)


async def test_no_manifest(client):
    await client.post("/_sandbox/faults", json={"no_manifest": True})
    assert (await client.get(f"/state/{MANIFEST_FILE}")).status_code == 404
    assert (await client.get("/state/stats.json")).status_code == 200


@pytest.mark.parametrize(
    "changes",
    [
        {"nonsense": 1},
        {"latency": "slow"},
        {"fail_next": -2},
        {"fail_status": 200},
        {"mismatch": {"agents.json": "x"}},
        {"malformed": "agents.json"},
        {"write_status": 418},
        {"write_variant": "other"},
        {"drop_labels": 1},
        {"process_delay": -1},
        {"process_delay": "soon"},
        [],
    ],
)
async def test_bad_fault_knobs_are_refused(client, changes):
    before = (await client.get("/_sandbox/faults")).json()
    response = await client.post("/_sandbox/faults", json=changes)
    assert response.status_code == 400 and response.json()["message"]
    assert (await client.get("/_sandbox/faults")).json() == before


def test_faults_in_process(app):
    faults = app.state.sandbox.faults
    faults.update({"mismatch": {"a": 2}, "write_status": 500})
    assert faults.write_fail_next == 1
    assert faults.take_mismatch("a") and faults.take_mismatch("a") and not faults.take_mismatch("a")
    assert faults.take_write_failure() == 500 and faults.take_write_failure() is None
    assert faults.write_status is None
    assert corrupt_same_size(b"abc") != b"abc" and len(corrupt_same_size(b"abc")) == 3
    assert corrupt_same_size(b"") == b" "


# --- issue API ------------------------------------------------------------------------------


async def test_create_issue_201_shape(client):
    request = compose_issue(
        "register_agent", {"name": "Demo", "framework": "python", "bio": "Hi"}, "nonce-1"
    )
    response = await client.post(
        ISSUES,
        json=request.as_json(),
        headers={
            **AUTH,
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        },
    )
    assert response.status_code == 201
    issue = response.json()
    assert issue["number"] == 1 and isinstance(issue["id"], int) and issue["node_id"]
    assert issue["title"] == "register_agent" and issue["body"] == request.body
    assert issue["state"] == "open"  # as created; processing happens after
    assert issue["user"]["login"] == DEMO_LOGIN and issue["user"]["type"] == "User"
    assert isinstance(issue["user"]["id"], int)
    assert [label["name"] for label in issue["labels"]] == ["register-agent"]
    assert set(issue["labels"][0]) >= {"id", "name", "color", "default", "description"}
    assert issue["html_url"] == "http://sandbox.invalid/roost-demo/network/issues/1"
    assert issue["url"] == "http://sandbox.invalid/api/repos/roost-demo/network/issues/1"
    assert issue["created_at"] == issue["updated_at"] == "2026-11-05T08:00:00Z"
    assert issue["comments"] == 0
    assert response.headers["location"] == issue["url"]
    for header in RATE_HEADERS:
        assert header in response.headers, header
    assert response.headers["x-oauth-scopes"] == "repo, write:discussion"
    assert response.headers["x-ratelimit-limit"] == "5000"
    assert int(response.headers["x-ratelimit-remaining"]) == 4999
    assert response.headers["x-github-api-version"] == "2022-11-28"


async def test_token_scheme_is_accepted(client):
    response = await post_action(
        client,
        "register_agent",
        {"name": "x", "framework": "y", "bio": "z"},
        headers=OTHER,
    )
    assert response.status_code == 201
    assert response.json()["user"]["login"] == "zion-coder-01"


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "Requires authentication"),
        ({"Authorization": "Bearer wrong"}, "Bad credentials"),
        ({"Authorization": "Basic abc"}, "Bad credentials"),
        ({"Authorization": "Bearer "}, "Bad credentials"),
    ],
)
async def test_401(client, headers, message):
    response = await post_action(client, "heartbeat", {}, headers=headers)
    assert response.status_code == 401
    body = response.json()
    assert body["message"] == message and body["status"] == "401"
    assert body["documentation_url"].startswith("https://docs.github.com/")
    for header in RATE_HEADERS:
        assert header in response.headers
    assert (await client.get(ISSUES, params={"state": "all"})).json() == []


async def test_unknown_repo_is_404(client):
    request = compose_issue("heartbeat", {})
    response = await client.post(
        "/api/repos/roost-demo/elsewhere/issues", json=request.as_json(), headers=AUTH
    )
    assert response.status_code == 404 and response.json()["message"] == "Not Found"
    assert "x-ratelimit-remaining" in response.headers


async def test_unknown_api_path_is_404(client):
    response = await client.get("/api/repos/roost-demo/network/pulls", headers=AUTH)
    assert response.status_code == 404 and response.json()["message"] == "Not Found"


async def test_400_on_unparsable_json(client):
    response = await client.post(ISSUES, content=b"{not json", headers=AUTH)
    assert response.status_code == 400
    assert response.json()["message"] == "Problems parsing JSON"


@pytest.mark.parametrize(
    ("data", "field", "code"),
    [
        ({"labels": ["x"], "body": "b"}, "title", "missing_field"),
        ({"title": "t", "labels": ["x"]}, "body", "missing_field"),
        ({"title": "t", "body": "b"}, "labels", "missing_field"),
        ({"title": 5, "body": "b", "labels": ["x"]}, "title", "invalid"),
        ({"title": " ", "body": "b", "labels": ["x"]}, "title", "invalid"),
        ({"title": "t", "body": "b", "labels": "x"}, "labels", "invalid"),
        ({"title": "t", "body": "b", "labels": [1]}, "labels", "invalid"),
        ({"title": "t", "body": "x" * 70_000, "labels": ["x"]}, "body", "custom"),
        ([1, 2], "body", "invalid"),
    ],
)
async def test_422(client, data, field, code):
    response = await client.post(ISSUES, json=data, headers=AUTH)
    assert response.status_code == 422
    body = response.json()
    assert body["message"] == "Validation Failed" and body["status"] == "422"
    assert {"field": field, "code": code} in [
        {"field": e["field"], "code": e["code"]} for e in body["errors"]
    ]


async def test_issue_fault_then_recovery(app, client):
    await client.post("/_sandbox/faults", json={"write_status": 500, "write_fail_next": 2})
    for _ in range(2):
        response = await post_action(client, "heartbeat", {})
        assert response.status_code == 500
        assert response.json()["message"] == "Server Error"
    assert (await post_action(client, "heartbeat", {})).status_code == 201
    assert len(app.state.sandbox.issues) == 1  # failed requests created nothing


@pytest.mark.parametrize(
    ("knobs", "status", "check"),
    [
        ({"write_status": 401}, 401, lambda r: r.json()["message"] == "Bad credentials"),
        (
            {"write_status": 403},
            403,
            lambda r: (
                r.headers["x-ratelimit-remaining"] == "0"
                and int(r.headers["x-ratelimit-reset"]) > 0
                and "rate limit" in r.json()["message"]
                and "retry-after" not in r.headers
            ),
        ),
        (
            {"write_status": 403, "write_variant": "secondary", "retry_after": 7},
            403,
            lambda r: (
                r.headers["retry-after"] == "7"
                and "secondary rate limit" in r.json()["message"]
                and r.headers["x-ratelimit-remaining"] != "0"
            ),
        ),
        (
            {"write_status": 403, "write_variant": "scope"},
            403,
            lambda r: (
                "not accessible" in r.json()["message"]
                and "repo" not in r.headers["x-oauth-scopes"]
            ),
        ),
        ({"write_status": 404}, 404, lambda r: r.json()["message"] == "Not Found"),
        ({"write_status": 410}, 410, lambda r: "disabled" in r.json()["message"]),
        ({"write_status": 422}, 422, lambda r: r.json()["errors"][0]["field"] == "body"),
        ({"write_status": 429}, 429, lambda r: r.headers["retry-after"] == "60"),
        ({"write_status": 500}, 500, lambda r: r.json()["status"] == "500"),
        ({"write_status": 503}, 503, lambda r: r.headers["content-type"].startswith("text/html")),
    ],
)
async def test_write_faults(client, knobs, status, check):
    await client.post("/_sandbox/faults", json=knobs)
    response = await post_action(client, "heartbeat", {})
    assert response.status_code == status
    assert check(response), response.text
    for header in RATE_HEADERS:
        assert header in response.headers
    assert (await client.get("/_sandbox/faults")).json()["write_status"] is None  # one-shot


async def test_primary_rate_limit_for_real(app, client):
    app.state.sandbox.rate_limit = 3
    statuses = []
    for _ in range(4):
        response = await client.get("/api/user", headers=AUTH)
        statuses.append((response.status_code, response.headers["x-ratelimit-remaining"]))
    assert statuses == [(200, "2"), (200, "1"), (200, "0"), (403, "0")]
    assert "rate limit exceeded" in response.json()["message"]


async def test_dropped_labels_do_not_stop_processing(app, client):
    """The deployment processes every opened issue, whatever its labels."""
    await register(client)
    await client.post("/_sandbox/faults", json={"drop_labels": True})
    response = await post_action(client, "heartbeat", {"status_message": "hi"})
    assert response.status_code == 201
    assert response.json()["labels"] == []
    issue = (await client.get(f"{ISSUES}/{response.json()['number']}")).json()
    assert issue["labels"] == []
    assert (issue["state"], issue["state_reason"]) == ("closed", "completed")
    assert await comment_bodies(client, issue["number"]) == [SUCCESS]
    me = (await state(client, "agents.json"))["agents"][DEMO_LOGIN]
    assert me["status_message"] == "hi"
    assert app.state.sandbox.issue(issue["number"]).requested_labels == ["heartbeat"]


async def test_a_label_less_issue_from_another_client_is_processed(client):
    """No labels requested at all, title unrelated, raw JSON body: still a delta."""
    await register(client)
    body = json.dumps({"action": "propose_seed", "payload": {"text": "Raw body"}})
    response = await client.post(
        ISSUES, json={"title": "hello", "labels": [], "body": body}, headers=AUTH
    )
    assert response.status_code == 201
    issue = (await client.get(f"{ISSUES}/{response.json()['number']}")).json()
    assert issue["state"] == "closed"
    proposals = (await state(client, "seeds.json"))["proposals"]
    assert (proposals[-1]["text"], proposals[-1]["author"]) == ("Raw body", DEMO_LOGIN)


async def test_write_latency_applies_even_when_the_client_gives_up(client):
    await register(client)
    await client.post("/_sandbox/faults", json={"write_latency": 5})
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(
            post_action(client, "propose_seed", {"text": "Lost reply"}, nonce="n-42"), 0.2
        )
    await client.delete("/_sandbox/faults")
    listed = (await client.get(ISSUES, params={"state": "all", "creator": DEMO_LOGIN})).json()
    assert "<!-- roost-nonce: n-42 -->" in listed[0]["body"]
    assert listed[0]["state_reason"] == "completed"
    seeds = await state(client, "seeds.json")
    assert seeds["proposals"][-1]["text"] == "Lost reply"


async def test_get_user(client):
    response = await client.get("/api/user", headers=AUTH)
    assert response.status_code == 200
    user = response.json()
    assert user["login"] == DEMO_LOGIN and user["type"] == "User" and isinstance(user["id"], int)
    assert response.headers["x-oauth-scopes"] == "repo, write:discussion"
    assert (await client.get("/api/user")).status_code == 401
    assert (await client.get("/api/user", headers={"Authorization": "Bearer x"})).status_code == 401


async def test_rate_limit_endpoint(client):
    response = await client.get("/api/rate_limit", headers=AUTH)
    core = response.json()["resources"]["core"]
    assert core["limit"] == 5000 and core["remaining"] == core["limit"] - core["used"]


# --- listing --------------------------------------------------------------------------------


async def test_list_issues_filters(client, clock):
    await register(client)  # 1: completed
    await act(client, "heartbeat", {}, OTHER)  # 2: completed, other creator
    clock.advance(hours=1)
    since = clock.now.isoformat().replace("+00:00", "Z")
    await post_action(client, "poke", {"target_agent": "ghost-agent"})  # 3: failed, open
    await post_action(client, "propose_seed", {"text": "Idea"})  # 4: completed
    await client.post("/_sandbox/faults", json={"drop_labels": True})
    await post_action(client, "heartbeat", {})  # 5: completed, no labels
    await client.delete("/_sandbox/faults")

    async def numbers(**params):
        response = await client.get(ISSUES, params=params)
        assert response.status_code == 200, response.text
        return [i["number"] for i in response.json()]

    assert await numbers() == [3]  # state=open by default
    assert await numbers(state="closed") == [5, 4, 2, 1]  # newest first
    assert await numbers(state="all") == [5, 4, 3, 2, 1]
    assert await numbers(state="all", creator=DEMO_LOGIN) == [5, 4, 3, 1]
    assert await numbers(state="all", creator="ZION-CODER-01") == [2]
    assert await numbers(state="all", since=since) == [5, 4, 3]
    assert await numbers(state="all", labels="register-agent") == [1]
    assert await numbers(state="all", labels="heartbeat") == [2]
    assert await numbers(state="all", labels="poke,register-agent") == []
    assert await numbers(state="all", labels="propose-seed") == [4]
    assert await numbers(state="all", direction="asc") == [1, 2, 3, 4, 5]
    page1 = await client.get(ISSUES, params={"state": "all", "per_page": 2})
    assert [i["number"] for i in page1.json()] == [5, 4]
    assert 'rel="next"' in page1.headers["link"] and "page=2" in page1.headers["link"]
    assert await numbers(state="all", per_page=2, page=3) == [1]
    assert await numbers(state="all", per_page=2, page=4) == []
    for bad in ({"state": "nope"}, {"since": "yesterday"}):
        assert (await client.get(ISSUES, params=bad)).status_code == 422
    assert (await client.get(ISSUES, params={"per_page": "x"})).status_code == 400


async def test_a_refused_action_is_commented_and_left_open(client, clock):
    await register(client)
    before = await manifest(client)
    clock.advance(minutes=5)
    response = await post_action(
        client, "transfer_karma", {"target_agent": "system", "amount": 100}
    )
    number = response.json()["number"]
    issue = (await client.get(f"{ISSUES}/{number}")).json()
    assert issue["state"] == "open" and issue["state_reason"] is None
    assert issue["closed_at"] is None and issue["comments"] == 1
    assert issue["updated_at"] == "2026-11-05T08:05:00Z"
    comments = (await client.get(f"{ISSUES}/{number}/comments")).json()
    assert comments[0]["body"].startswith(FAILURE + " ")
    assert "insufficient karma" in comments[0]["body"]
    assert comments[0]["user"]["type"] == "Bot"
    assert comments[0]["user"]["login"] == "github-actions[bot]"
    assert await manifest(client) == before
    assert (await client.get(f"{ISSUES}/999")).status_code == 404
    assert (await client.get(f"{ISSUES}/999/comments")).status_code == 404


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("no fence here", "No ```json block"),
        ("```json\n{not json}\n```", "Invalid JSON"),
        ("```json\n[1, 2]\n```", "must be an object"),
        ('```json\n{"payload": {}}\n```', "no 'action'"),
        ('```json\n{"action": "heartbeat", "payload": []}\n```', "'payload' must be"),
        ('```json\n{"action": "launch_rocket", "payload": {}}\n```', "Unknown action"),
        ('```json\n{"action": "poke", "payload": {}}\n```', "Missing required field"),
    ],
)
async def test_bad_bodies_fail_with_the_reason(app, client, body, reason):
    await register(client)
    response = await client.post(
        ISSUES, json={"title": "heartbeat", "labels": ["heartbeat"], "body": body}, headers=AUTH
    )
    assert response.status_code == 201  # GitHub accepts it; the processor refuses it
    number = response.json()["number"]
    (comment,) = await comment_bodies(client, number)
    assert comment.startswith(FAILURE + " ") and reason in comment
    assert (await client.get(f"{ISSUES}/{number}")).json()["state"] == "open"
    assert app.state.sandbox.issue(number).result == "rejected"
    assert app.state.sandbox.inbox[-1].action == "register_agent"  # nothing added


async def test_the_body_decides_and_the_author_acts(client):
    """Title and labels play no part, and a body cannot name another acting agent."""
    await register(client)
    body = (
        "Some words first.\n\n```json\n"
        '{"action": "heartbeat", "payload": {"status_message": "mine"}, "actor": "zion-coder-01"}'
        "\n```\n\n```json\n"
        '{"action": "poke", "payload": {"target_agent": "zion-coder-02"}}\n```\n'
    )
    response = await client.post(
        ISSUES, json={"title": "poke", "labels": ["poke"], "body": body}, headers=AUTH
    )
    number = response.json()["number"]
    assert await comment_bodies(client, number) == [SUCCESS]
    agents = (await state(client, "agents.json"))["agents"]
    assert agents[DEMO_LOGIN]["status_message"] == "mine"
    assert agents["zion-coder-01"].get("status_message") != "mine"


async def test_manual_processing(clock):
    app = create_app(agents=60, clock=clock, auto_process=False)
    async with in_process_client(app) as client:
        before = await manifest(client)
        response = await post_action(
            client, "register_agent", {"name": "Later", "framework": "f", "bio": "b"}
        )
        assert response.status_code == 201
        assert (await client.get(f"{ISSUES}/1")).json()["state"] == "open"
        assert await manifest(client) == before
        processed = (await client.post("/_sandbox/process")).json()["processed"]
        assert [(p["number"], p["result"]) for p in processed] == [(1, "applied")]
        assert (await client.post("/_sandbox/process")).json()["processed"] == []
        agents = await state(client, "agents.json")
        assert agents["agents"][DEMO_LOGIN]["name"] == "Later"
        summary = (await client.get("/_sandbox/issues")).json()
        assert summary[0]["changed_files"] == ["agents.json", "changes.json", "stats.json"]


async def test_apply_endpoint_acts_as_another_agent(client):
    response = await client.post(
        "/_sandbox/apply",
        json={"action": "propose_seed", "payload": {"text": "From afar"}, "actor": "zion-coder-02"},
    )
    assert response.json() == {"result": "applied", "changed_files": ["seeds.json", "stats.json"]}
    seeds = await state(client, "seeds.json")
    assert seeds["proposals"][-1]["author"] == "zion-coder-02"
    refused = await client.post(
        "/_sandbox/apply", json={"action": "heartbeat", "payload": {}, "actor": "nobody"}
    )
    assert refused.status_code == 409 and "not a registered agent" in refused.json()["reason"]
    assert (await client.post("/_sandbox/apply", content=b"{}")).status_code == 400


# --- every known action round-trips: issue → comment → closed → the next refresh ------------

TARGET = "zion-coder-03"
ROOM = {"slug": "demo-room", "name": "Demo", "description": "A room."}
ASK = "Ask anything about the demo network; answers cite the state files."
Docs = dict[str, dict]


def _mine(docs: Docs) -> dict:
    return docs[AGENTS]["agents"][DEMO_LOGIN]


def _my_proposal(docs: Docs) -> dict:
    return {"proposal_id": docs[SEEDS]["proposals"][-1]["id"]}


def _fixed(payload: dict) -> Callable[[Docs], dict]:
    return lambda docs: payload


@dataclass(frozen=True)
class Trip:
    """One action's round trip: what to send (built from the state before), which files the
    next manifest shows changed, and the effect to find in the state files."""

    payload: Callable[[Docs], dict]
    changed: set[str]
    effect: Callable[[Docs, Docs], bool]
    setup: tuple[tuple[str, Callable[[Docs], dict]], ...] = ()
    registered: bool = True


MEDIA = {
    "channel": "general",
    "title": "A sketch",
    "media_type": "image",
    "source_url": "https://media.roost-demo.invalid/sketch.png",
    "filename": "sketch.png",
}

TRIPS: dict[str, Trip] = {
    "register_agent": Trip(
        _fixed({"name": "Demo", "framework": "python", "bio": "Hello."}),
        {AGENTS, STATS, CHANGES},
        lambda b, a: (
            _mine(a)["name"] == "Demo" and a[STATS]["total_agents"] == len(a[AGENTS]["agents"])
        ),
        registered=False,
    ),
    "heartbeat": Trip(
        _fixed({"status_message": "busy"}),
        {AGENTS, CHANGES},
        lambda b, a: _mine(a)["status_message"] == "busy",
    ),
    "poke": Trip(
        _fixed({"target_agent": TARGET}),
        {AGENTS, STATS, CHANGES, POKES, NOTIFICATIONS, SOCIAL_GRAPH},
        lambda b, a: (
            a[AGENTS]["agents"][TARGET]["poke_count"]
            == b[AGENTS]["agents"][TARGET].get("poke_count", 0) + 1
        ),
    ),
    "follow_agent": Trip(
        _fixed({"target_agent": TARGET}),
        {AGENTS, CHANGES, FOLLOWS, NOTIFICATIONS, SOCIAL_GRAPH},
        lambda b, a: _mine(a)["following"] == [TARGET] and _mine(a)["following_count"] == 1,
    ),
    "unfollow_agent": Trip(
        _fixed({"target_agent": TARGET}),
        {AGENTS, CHANGES, FOLLOWS, SOCIAL_GRAPH},
        lambda b, a: _mine(a)["following"] == [] and _mine(a)["following_count"] == 0,
        setup=(("follow_agent", _fixed({"target_agent": TARGET})),),
    ),
    "update_profile": Trip(
        _fixed({"name": "The Demo"}),
        {AGENTS, CHANGES},
        lambda b, a: _mine(a)["name"] == "The Demo",
    ),
    "create_channel": Trip(
        _fixed(ROOM),
        {CHANNELS, STATS, CHANGES},
        lambda b, a: a[CHANNELS]["channels"]["demo-room"]["created_by"] == DEMO_LOGIN,
    ),
    "update_channel": Trip(
        _fixed({"slug": "demo-room", "rules": "None."}),
        {CHANNELS, CHANGES},
        lambda b, a: a[CHANNELS]["channels"]["demo-room"]["rules"] == "None.",
        setup=(("create_channel", _fixed(ROOM)),),
    ),
    "create_topic": Trip(
        _fixed({"slug": "ask-demo", "name": "Ask", "description": "Q", "constitution": ASK}),
        {CHANNELS, STATS, CHANGES},
        lambda b, a: a[CHANNELS]["channels"]["ask-demo"]["tag"] == "[ASKDEMO]",
    ),
    "moderate": Trip(
        lambda b: {"discussion_number": b[TRENDING]["trending"][0]["number"], "reason": "spam"},
        {STATS, TRENDING, CHANGES},
        lambda b, a: a[TRENDING]["trending"][0]["flagged_by"] == [DEMO_LOGIN],
    ),
    "transfer_karma": Trip(
        _fixed({"target_agent": TARGET, "amount": 5}),
        {AGENTS, CHANGES, NOTIFICATIONS},
        lambda b, a: (
            a[AGENTS]["agents"][TARGET]["karma_balance"]
            == b[AGENTS]["agents"][TARGET]["karma_balance"] + 5
        ),
    ),
    "propose_seed": Trip(
        _fixed({"text": "Chart the channels", "tags": ["maps"]}),
        {SEEDS, STATS},
        lambda b, a: a[SEEDS]["proposals"][-1]["author"] == DEMO_LOGIN,
    ),
    "vote_seed": Trip(
        _my_proposal,
        {SEEDS},
        lambda b, a: a[SEEDS]["proposals"][-1]["votes"] == [DEMO_LOGIN],
        setup=(("propose_seed", _fixed({"text": "Vote me"})),),
    ),
    "unvote_seed": Trip(
        _my_proposal,
        {SEEDS},
        lambda b, a: a[SEEDS]["proposals"][-1]["vote_count"] == 0,
        setup=(("propose_seed", _fixed({"text": "Vote me"})), ("vote_seed", _my_proposal)),
    ),
    "create_post": Trip(
        _fixed({"channel": "general", "title": "Hi all", "body": "Hello"}),
        {AGENTS, CHANNELS, STATS, TRENDING, *CONVERSATION_FILES},
        lambda b, a: (
            (a[TRENDING]["trending"][0]["title"], a[TRENDING]["trending"][0]["author"])
            == ("Hi all", DEMO_LOGIN)
        ),
    ),
    "add_moderator": Trip(
        _fixed({"slug": "demo-room", "target_agent": TARGET}),
        {CHANNELS, CHANGES},
        lambda b, a: a[CHANNELS]["channels"]["demo-room"]["moderators"] == [TARGET],
        setup=(("create_channel", _fixed(ROOM)),),
    ),
    "remove_moderator": Trip(
        _fixed({"slug": "demo-room", "target_agent": TARGET}),
        {CHANNELS, CHANGES},
        lambda b, a: a[CHANNELS]["channels"]["demo-room"]["moderators"] == [],
        setup=(
            ("create_channel", _fixed(ROOM)),
            ("add_moderator", _fixed({"slug": "demo-room", "target_agent": TARGET})),
        ),
    ),
    "recruit_agent": Trip(
        _fixed({"name": "Nova Scout", "framework": "python", "bio": "Recruited."}),
        {AGENTS, STATS, CHANGES, NOTIFICATIONS},
        lambda b, a: a[AGENTS]["agents"]["nova-scout"]["recruited_by"] == DEMO_LOGIN,
    ),
    "verify_agent": Trip(
        _fixed({"github_username": DEMO_LOGIN}),
        {AGENTS, CHANGES},
        lambda b, a: _mine(a)["verified"] is True,
    ),
    "submit_media": Trip(
        _fixed({**MEDIA, "description": "optional", "discussion_number": 1}),
        set(),
        lambda b, a: a == b,
    ),
    "verify_media": Trip(
        _fixed({"submission_id": "media-1", "decision": "approve"}),
        set(),
        lambda b, a: a == b,
    ),
}


async def all_docs(client) -> Docs:
    return {name: await state(client, name) for name in STATE_FILE_NAMES}


def test_the_round_trips_cover_every_known_action():
    assert set(TRIPS) == set(CLASSIC_ACTIONS)


@pytest.mark.parametrize("action", sorted(TRIPS))
async def test_every_known_action_round_trips_to_the_state(client, action):
    trip = TRIPS[action]
    if trip.registered:
        await register(client)
    for name, payload in trip.setup:
        await act(client, name, payload(await all_docs(client)))
    old_manifest, before = await manifest(client), await all_docs(client)

    payload = trip.payload(before)
    issue = await act(client, action, payload)  # ✅ comment, closed, completed

    new_manifest, after = await manifest(client), await all_docs(client)
    changed = {
        n for n in new_manifest["files"] if new_manifest["files"][n] != old_manifest["files"][n]
    }
    assert changed == trip.changed
    assert trip.effect(before, after)
    for name in changed & set(STATE_FILE_NAMES):
        parse_state(name, json.dumps(after[name]).encode())  # roost's models accept it
    inbox = (await client.get("/_sandbox/inbox")).json()
    assert inbox[-1] == {
        "issue": issue["number"],
        "action": action,
        "payload": payload,
        "agent": DEMO_LOGIN,
        "received_at": issue["closed_at"],
        "changed_files": sorted(changed),
    }


@pytest.mark.parametrize("action", sorted(a for a, k in CLASSIC_ACTIONS.items() if k.required))
async def test_a_missing_required_field_fails_and_leaves_the_issue_open(client, action):
    required = list(CLASSIC_ACTIONS[action].required)
    await register(client)
    payload = dict.fromkeys(required[1:], "x")
    response = await post_action(client, action, payload)
    number = response.json()["number"]
    (comment,) = await comment_bodies(client, number)
    assert comment == f"{FAILURE} Missing required field(s) for {action}: {required[0]}."
    issue = (await client.get(f"{ISSUES}/{number}")).json()
    assert (issue["state"], issue["closed_at"]) == ("open", None)


# --- processing delay and polite polling ----------------------------------------------------


async def test_process_delay_shows_queued_before_accepted(client, clock):
    await register(client)
    before = await manifest(client)
    await client.post("/_sandbox/faults", json={"process_delay": 30})
    response = await post_action(client, "propose_seed", {"text": "Later"})
    number = response.json()["number"]
    created = response.json()["created_at"]

    clock.advance(seconds=29)
    issue = (await client.get(f"{ISSUES}/{number}")).json()
    assert (issue["state"], issue["comments"], issue["updated_at"]) == ("open", 0, created)
    assert await comment_bodies(client, number) == []
    assert await manifest(client) == before

    clock.advance(seconds=1)
    issue = (await client.get(f"{ISSUES}/{number}")).json()
    assert (issue["state"], issue["state_reason"]) == ("closed", "completed")
    assert issue["closed_at"] == issue["updated_at"] == "2026-11-05T08:00:30Z"
    comments = (await client.get(f"{ISSUES}/{number}/comments")).json()
    assert [(c["body"], c["created_at"]) for c in comments] == [(SUCCESS, "2026-11-05T08:00:30Z")]
    assert (await state(client, "seeds.json"))["proposals"][-1]["text"] == "Later"


async def test_a_delayed_failure_moves_updated_at_and_stays_open(client, clock):
    await register(client)
    await client.post("/_sandbox/faults", json={"process_delay": 5})
    number = (await post_action(client, "poke", {"target_agent": "ghost"})).json()["number"]
    clock.advance(seconds=5)
    issue = (await client.get(f"{ISSUES}/{number}")).json()
    assert (issue["state"], issue["comments"]) == ("open", 1)
    assert issue["updated_at"] == "2026-11-05T08:00:05Z" and issue["closed_at"] is None


async def test_the_delay_knob_is_read_when_an_issue_is_created(client, clock):
    await register(client)
    await client.post("/_sandbox/faults", json={"process_delay": 60})
    number = (await post_action(client, "heartbeat", {})).json()["number"]
    await client.delete("/_sandbox/faults")
    assert (await client.get(f"{ISSUES}/{number}")).json()["state"] == "open"
    clock.advance(minutes=1)
    assert (await client.get(f"{ISSUES}/{number}")).json()["state"] == "closed"


async def test_conditional_gets_of_an_issue_and_its_comments(client, clock):
    await register(client)
    await client.post("/_sandbox/faults", json={"process_delay": 10})
    number = (await post_action(client, "heartbeat", {})).json()["number"]
    for path in (f"{ISSUES}/{number}", f"{ISSUES}/{number}/comments"):
        first = await client.get(path, headers=AUTH)
        etag = first.headers["etag"]
        again = await client.get(path, headers={**AUTH, "If-None-Match": etag})
        assert again.status_code == 304 and again.content == b""
        assert again.headers["etag"] == etag
        # a 304 costs nothing against the rate limit
        assert again.headers["x-ratelimit-used"] == first.headers["x-ratelimit-used"]
    old_issue = (await client.get(f"{ISSUES}/{number}")).headers["etag"]
    old_comments = (await client.get(f"{ISSUES}/{number}/comments")).headers["etag"]

    clock.advance(seconds=10)
    comments = await client.get(
        f"{ISSUES}/{number}/comments", headers={"If-None-Match": old_comments}
    )
    assert comments.status_code == 200 and comments.json()[0]["body"] == SUCCESS
    assert comments.headers["etag"] != old_comments
    issue = await client.get(f"{ISSUES}/{number}", headers={"If-None-Match": old_issue})
    assert issue.status_code == 200 and issue.json()["state"] == "closed"


# --- request log ----------------------------------------------------------------------------


async def test_request_log(app, client):
    await client.get("/_sandbox/faults")
    await post_action(client, "heartbeat", {})
    await client.get("/state/stats.json")
    records = app.state.sandbox.requests
    assert [(m, p, s) for m, p, s, _ in records] == [
        ("POST", ISSUES, 201),
        ("GET", "/state/stats.json", 200),
    ]
    post = records[0]
    assert json.loads(post.body)["title"] == "heartbeat"
    assert post.header("authorization") == "<redacted>"
    assert records[1].header("authorization") is None
    assert records[1].response_bytes > 0
    assert app.state.sandbox.paths("GET") == ["/state/stats.json"]


async def test_hub_is_mounted():
    hub = Starlette(routes=[Route("/ping", lambda request: PlainTextResponse("pong"))])
    app = create_app(agents=20, hub=hub)
    async with in_process_client(app) as client:
        assert (await client.get("/hub/ping")).text == "pong"


def test_package_exports():
    import tui.sandbox as sandbox

    assert sandbox.create_app is create_app and sandbox.DEMO_TOKEN == DEMO_TOKEN
    assert set(sandbox.__all__) >= {"generate_state", "DemoNetwork", "running_sandbox", "Faults"}
    with pytest.raises(AttributeError):
        sandbox.nothing_here  # noqa: B018


def test_sandbox_package_is_headless():
    code = (
        "import sys, tui.sandbox.app, tui.sandbox.server; "
        "bad = [m for m in sys.modules if m.split('.')[0] == 'textual']; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- over a real loopback socket ------------------------------------------------------------


def test_loopback_end_to_end():
    with running_sandbox(agents=80) as (info, app):
        assert info.read_url.startswith("http://127.0.0.1:")
        assert info.write_url == info.read_url + "/api"
        assert info.hub_url == info.read_url + "/hub"
        assert info.repo == "roost-demo/network" and info.token == DEMO_TOKEN
        assert info.as_dict()["token"] == DEMO_TOKEN
        with httpx.Client(base_url=info.read_url, timeout=5) as http:
            first = http.get(f"/state/{MANIFEST_FILE}")
            assert first.status_code == 200
            assert (
                http.get(
                    f"/state/{MANIFEST_FILE}", headers={"If-None-Match": first.headers["etag"]}
                ).status_code
                == 304
            )
            request = compose_issue("register_agent", {"name": "L", "framework": "f", "bio": "b"})
            created = http.post(
                f"{info.write_url}/repos/{info.repo}/issues",
                json=request.as_json(),
                headers={"Authorization": f"Bearer {info.token}"},
            )
            assert created.status_code == 201
            assert created.json()["html_url"] == f"{info.read_url}/{info.repo}/issues/1"
            changed = http.get(
                f"/state/{MANIFEST_FILE}", headers={"If-None-Match": first.headers["etag"]}
            )
            assert changed.status_code == 200
            agents = http.get("/state/agents.json").json()["agents"]
            assert DEMO_LOGIN in agents
            # a reply that never arrives: the action is still applied
            app.state.sandbox.faults.write_latency = 1
            request = compose_issue("propose_seed", {"text": "Sent into the void"}, "void-1")
            with pytest.raises(httpx.ReadTimeout):
                http.post(
                    f"{info.write_url}/repos/{info.repo}/issues",
                    json=request.as_json(),
                    headers={"Authorization": f"Bearer {info.token}"},
                    timeout=0.3,
                )
            app.state.sandbox.faults.write_latency = 0
        texts = [p["text"] for p in app.state.sandbox.network.docs["seeds.json"]["proposals"]]
        assert "Sent into the void" in texts
        url = info.read_url
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/state/stats.json", timeout=2)


async def test_serve_reports_the_bound_port():
    ready: list[SandboxInfo] = []
    task = asyncio.create_task(serve(port=0, agents=30, on_ready=ready.append))
    for _ in range(500):
        if ready or task.done():
            break
        await asyncio.sleep(0.01)
    assert ready, "serve() never became ready"
    info = ready[0]
    assert not info.read_url.endswith(":0")
    async with httpx.AsyncClient(base_url=info.read_url, timeout=5) as http:
        assert (await http.get("/state/stats.json")).json()["total_agents"] == 30
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "::"])
async def test_serve_refuses_non_loopback(host):
    with pytest.raises(ValueError, match="loopback"):
        await serve(host=host, port=0)
