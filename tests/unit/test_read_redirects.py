"""Read-side documents follow no redirect off their origin.

A 302 from a receipt's URL to another host serving ``{"status": "applied"}`` marked an action
applied that the processor never took. Receipts, ``skill.json``, ``state/manifest.json``, the
state files and their manifest now follow a redirect only within the read URL's origin (GitHub's
raw host and Pages redirect within themselves); one to another origin is a problem naming both
URLs, and the outbox names the URL actually read. Each test reads through the clients roost
makes itself, over loopback: two servers on two ports are two origins.
"""

from __future__ import annotations

import hashlib
import json

import httpx
import pytest

from tests.hostile_server import HostileServer, json_ok, status
from tests.unit.test_actions_tracking import RECEIPT
from tui.actions.deployment_docs import DeploymentDocs
from tui.actions.issue_client import IssueClient
from tui.actions.outbox import Entry
from tui.actions.tracking import follow
from tui.config import Secret
from tui.network.fetch import BadReply, OffOrigin, fetch
from tui.network.store import Store, StoreOptions
from tui.sandbox.deployment import skill_document

PROCESSED = "/state/inbox/processed/issue-8.json"


@pytest.fixture
def elsewhere():
    """A second server: another origin (another port) than ``server``."""
    with HostileServer() as other:
        yield other


def moved(to: str, code: int = 302):
    return status(code, headers=[("Location", to)])


# --- the fetch itself ------------------------------------------------------------------------


async def test_a_redirect_within_the_origin_is_followed_and_the_url_read_is_kept(server, client):
    server.route("/a.json", moved("/b.json", 301))
    server.route("/b.json", moved(server.url + "/c.json", 307))
    server.route("/c.json", json_ok(b"{}"))
    result = await fetch(client, server.url + "/a.json", cap=100, same_origin=True)
    assert (result.status, result.body, result.url) == (200, b"{}", server.url + "/c.json")


async def test_a_redirect_to_another_origin_is_refused_naming_both(server, elsewhere):
    server.route("/a.json", moved(elsewhere.url + "/a.json"))
    elsewhere.route("/a.json", json_ok(b"{}"))
    async with httpx.AsyncClient(follow_redirects=True) as following:  # the client's setting
        with pytest.raises(OffOrigin) as caught:
            await fetch(following, server.url + "/a.json", cap=100, same_origin=True)
        assert caught.value.kind == "redirect"
        assert server.url + "/a.json" in str(caught.value)
        assert elsewhere.url + "/a.json" in str(caught.value)
        # asked to follow none, a 3xx is a status like any other, whatever the client says
        result = await fetch(following, server.url + "/a.json", cap=100)
    assert result.status == 302 and result.url == server.url + "/a.json"
    assert elsewhere.requests == []


@pytest.mark.parametrize(
    "target",
    ["//localhost:{port}/x.json", "https://127.0.0.1:{port}/x.json", "http://127.0.0.1:1/x"],
)
async def test_another_scheme_host_or_port_is_another_origin(server, client, target):
    server.route("/a.json", moved(target.format(port=server.port)))
    with pytest.raises(OffOrigin):
        await fetch(client, server.url + "/a.json", cap=100, same_origin=True)


async def test_redirects_are_bounded(server, client):
    server.route("/loop.json", moved("/loop.json"))
    with pytest.raises(BadReply, match="redirects"):
        await fetch(client, server.url + "/loop.json", cap=100, same_origin=True)
    server.route("/nowhere.json", status(302))
    with pytest.raises(BadReply, match="Location"):
        await fetch(client, server.url + "/nowhere.json", cap=100, same_origin=True)


# --- receipts --------------------------------------------------------------------------------


def _platform(request: httpx.Request) -> httpx.Response:
    """The write side: the issue is open and nobody has commented."""
    if request.url.path.endswith("/comments"):
        return httpx.Response(200, json=[])
    return httpx.Response(200, json={"number": 8, "state": "open"})


async def _follow_queued(read_url: str) -> Entry:
    """One check of a queued entry, its receipts read by the deployment documents' own client
    (the one roost makes when it is given none)."""
    docs = DeploymentDocs(read_url, repo="o/r")
    write = httpx.AsyncClient(transport=httpx.MockTransport(_platform))
    client = IssueClient("https://api.example.test", "o/r", Secret("t"), client=write)
    from tui.actions.contract import parse_skill

    docs.skill.value = parse_skill(skill_document(read_url, "o", "r"))
    entry = Entry("20270101T000000Z-00000001", "heartbeat", {}, "n", state="queued")
    entry.number, entry.author = 8, "me"
    try:
        await follow(entry, client, now=0, docs=docs)
    finally:
        await docs.aclose()
        await write.aclose()
    return entry


async def test_a_receipt_redirected_to_another_host_never_applies_the_action(server, elsewhere):
    server.route(PROCESSED, moved(elsewhere.url + PROCESSED))
    elsewhere.route(PROCESSED, json_ok(json.dumps(RECEIPT).encode()))
    entry = await _follow_queued(server.url)
    assert entry.state == "queued" and entry.receipt is None
    error = entry.tracking["receipt_error"]
    assert server.url + PROCESSED in error and elsewhere.url + PROCESSED in error
    assert elsewhere.requests == []


async def test_a_receipt_moved_within_the_origin_names_the_url_read(server):
    server.route(PROCESSED, moved("/archive/issue-8.json"))
    server.route("/archive/issue-8.json", json_ok(json.dumps(RECEIPT).encode()))
    entry = await _follow_queued(server.url)
    assert entry.state == "applied"
    assert entry.receipt["url"] == server.url + "/archive/issue-8.json"


# --- skill.json and state/manifest.json ------------------------------------------------------


async def test_the_contract_and_manifest_are_not_read_from_another_host(server, elsewhere):
    other_skill = skill_document(elsewhere.url, "evil", "r")
    server.route("/skill.json", moved(elsewhere.url + "/skill.json"))
    server.route("/state/manifest.json", moved(elsewhere.url + "/state/manifest.json", 308))
    elsewhere.route("/skill.json", json_ok(json.dumps(other_skill).encode()))
    elsewhere.route("/state/manifest.json", json_ok(b'{"repo_id": "R_evil", "category_ids": {}}'))
    docs = DeploymentDocs(server.url, repo="o/r")
    try:
        assert await docs.refresh() is False
    finally:
        await docs.aclose()
    assert docs.contract is None and docs.manifest.value is None
    for problem, name in ((docs.skill.problem, "/skill.json"),
                          (docs.manifest.problem, "/state/manifest.json")):  # fmt: skip
        assert server.url + name in problem and elsewhere.url + name in problem
    assert elsewhere.requests == []


# --- the state files and their manifest ------------------------------------------------------


STATS = b'{"total_agents": 1}'
FAST = StoreOptions(retry_delay_s=0, interval_s=1, jitter=0, min_interval_s=0.01)


def _manifest(body: bytes) -> bytes:
    digest = hashlib.sha256(body).hexdigest()
    return json.dumps({"files": {"stats.json": {"hash": digest, "size": len(body)}}}).encode()


async def _refresh(read_url: str):
    store = Store(read_url, options=FAST, files=("stats.json",))  # its own client
    try:
        return store, await store.refresh()
    finally:
        await store.aclose()


async def test_a_manifest_redirected_to_another_host_is_not_taken(server, elsewhere):
    forged = b'{"total_agents": 666}'
    server.route("/state/manifest-hashes.json", moved(elsewhere.url + "/m.json"))
    server.route("/state/stats.json", json_ok(STATS))
    elsewhere.route("/m.json", json_ok(_manifest(forged)))
    store, report = await _refresh(server.url)
    (problem,) = [p for p in report.problems if p.file == "manifest-hashes.json"]
    assert problem.kind == "redirect" and elsewhere.url + "/m.json" in problem.detail
    stats = store.snapshot.file("stats.json")
    assert stats.integrity == "unverified" and stats.model.total_agents == 1
    assert elsewhere.requests == []


async def test_a_state_file_redirected_to_another_host_keeps_nothing_from_it(server, elsewhere):
    server.route("/state/manifest-hashes.json", json_ok(_manifest(STATS)))
    server.route("/state/stats.json", moved(elsewhere.url + "/state/stats.json"))
    elsewhere.route("/state/stats.json", json_ok(STATS))
    store, report = await _refresh(server.url)
    (problem,) = report.problems
    assert (problem.file, problem.kind) == ("stats.json", "redirect")
    assert server.url + "/state/stats.json" in problem.detail
    assert elsewhere.url + "/state/stats.json" in problem.detail
    assert not store.snapshot.file("stats.json").loaded and elsewhere.requests == []


async def test_state_files_moved_within_the_origin_are_read(server):
    """GitHub's raw host and Pages redirect within themselves: that is followed."""
    server.route("/state/manifest-hashes.json", moved("/v2/state/manifest-hashes.json"))
    server.route("/v2/state/manifest-hashes.json", json_ok(_manifest(STATS)))
    server.route("/state/stats.json", moved("/v2/state/stats.json", 301))
    server.route("/v2/state/stats.json", json_ok(STATS))
    store, report = await _refresh(server.url)
    assert report.problems == [] and store.snapshot.file("stats.json").integrity == "verified"
