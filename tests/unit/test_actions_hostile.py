"""The issue client against the hostile loopback server (tests/hostile_server.py): the write
side meets the servers the read side meets, with the same guards.

Every hostile answer to a create is an *unclear* answer: the action may have been recorded, so
the client looks it up by nonce before anything is resent, and ends in an outcome (queued,
failed, unknown) with a message — never an exception, never two issues, in bounded time and
memory. Reads (who am I, the lookup, following an issue) end in ``LookupFailed`` or a recorded
error the same way.
"""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from tests.hostile_server import (
    HostileServer,
    gzip_bomb,
    json_ok,
    lying_length,
    not_modified,
    reset,
    stacked_gzip,
    status,
    trickle,
)
from tui.actions.issue_body import compose_issue, new_nonce
from tui.actions.issue_client import MAX_TRIES, IssueClient, LookupFailed, SendResult
from tui.actions.outbox import Outbox
from tui.actions.tracking import follow_queued
from tui.config import Secret

TOKEN = "ghp_HOSTILEtoken0987654321"
REPO = "o/r"
ISSUES = f"/repos/{REPO}/issues"
LOGIN = "ada"
TIMEOUT_S = 1.5  # the client's whole-request deadline in these tests


async def no_sleep(_seconds: float) -> None:
    return None


def make_client(server: HostileServer) -> IssueClient:
    return IssueClient(server.url, REPO, Secret(TOKEN), timeout_s=TIMEOUT_S, sleep=no_sleep)


def issue_json(number: int, body: str) -> dict:
    return {
        "number": number,
        "body": body,
        "html_url": f"https://example.test/{REPO}/issues/{number}",
        "url": f"https://api.example.test/repos/{REPO}/issues/{number}",
        "user": {"login": LOGIN},
        "labels": [{"name": "heartbeat"}],
        "created_at": "2030-01-01T00:00:00Z",
    }


def serve_platform(server: HostileServer, create, *, listed: list[dict] | None = None) -> None:
    """``create`` answers the issue POST; ``/user`` and the listing answer like GitHub."""
    server.route("/user", json_ok(json.dumps({"login": LOGIN}).encode()))
    server.route(f"GET {ISSUES}", json_ok(json.dumps(listed or []).encode()))
    server.route(f"POST {ISSUES}", create)


def posts(server: HostileServer) -> int:
    return sum(1 for r in server.requests if r.method == "POST")


HOSTILE_CREATES = {
    "trickle": lambda: trickle(b'{"number": 1}' * 50, every_s=0.3),
    "gzip bomb": lambda: gzip_bomb(64 << 20),
    "stacked gzip": lambda: stacked_gzip(b'{"number": 1}'),
    "lying length": lambda: lying_length(b'{"number": 1}', 10_000),
    "201 not JSON": lambda: status(201, b"<html>created, maybe</html>"),
    "201 huge JSON": lambda: status(201, b'{"pad": "' + b"x" * (9 << 20) + b'"}'),
    "reset": lambda: reset(),
    "non-ASCII headers": lambda: status(
        201, b"not json", [("Retry-After", "\u0663"), ("X-RateLimit-Reset", "\u00e9t\u00e9")]
    ),
}


#: Far above what any of these needs: the point is that nothing waits for ever.
BOUND_S = 30.0


async def create_against(server: HostileServer, behaviour: str, listed: bool) -> SendResult:
    """Send one heartbeat to a platform whose create answer is ``behaviour``; ``listed``: the
    platform recorded the issue anyway (the lookup by nonce finds it)."""
    issue = compose_issue("heartbeat", {}, nonce := new_nonce())
    found = [issue_json(7, issue.body)] if listed else None
    serve_platform(server, HOSTILE_CREATES[behaviour](), listed=found)
    client = make_client(server)
    try:
        return await asyncio.wait_for(client.create(issue, nonce), BOUND_S)
    finally:
        await client.aclose()


@pytest.mark.parametrize("behaviour", list(HOSTILE_CREATES))
async def test_a_hostile_answer_to_a_create_is_looked_up_never_sent_twice(server, behaviour):
    """The platform recorded the issue; its answer was hostile: the lookup finds it."""
    result = await create_against(server, behaviour, listed=True)
    assert result.state == "queued", result.message
    assert result.number == 7 and "found after an unclear answer" in result.message
    assert posts(server) == 1  # never a second issue


@pytest.mark.parametrize("behaviour", list(HOSTILE_CREATES))
async def test_a_hostile_answer_with_nothing_recorded_ends_failed_with_a_reason(server, behaviour):
    result = await create_against(server, behaviour, listed=False)
    assert result.state == "failed" and result.retry_safe
    assert f"no clear answer after {MAX_TRIES} tries" in result.message
    assert posts(server) == MAX_TRIES
    creates = [a for a in result.attempts if a.kind == "create"]
    assert len(creates) >= MAX_TRIES and all(a.message for a in creates)
    assert TOKEN not in repr(result)


async def test_no_connection_means_nothing_was_sent():
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = IssueClient(f"http://127.0.0.1:{port}", REPO, Secret(TOKEN), timeout_s=TIMEOUT_S)
    issue = compose_issue("heartbeat", {}, nonce := new_nonce())
    try:
        result = await client.create(issue, nonce)
    finally:
        await client.aclose()
    assert result.state == "failed" and result.unreachable and result.retry_safe
    assert "nothing was sent" in result.message


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(lambda: gzip_bomb(64 << 20), id="gzip bomb"),
        pytest.param(lambda: stacked_gzip(b'{"login": "ada"}'), id="stacked gzip"),
        pytest.param(lambda: trickle(b'{"login": "ada"}' * 20, every_s=0.3), id="trickle"),
        pytest.param(lambda: status(200, b"\xff\xfe not json"), id="not JSON"),
        pytest.param(lambda: reset(), id="reset"),
    ],
)
async def test_who_am_i_against_a_hostile_server_is_a_lookup_failure(server, reply):
    server.route("/user", reply())
    client = make_client(server)
    try:
        with pytest.raises(LookupFailed) as caught:
            await asyncio.wait_for(client.whoami(), BOUND_S)
    finally:
        await client.aclose()
    assert TOKEN not in str(caught.value)


async def test_a_non_ascii_etag_is_never_sent_back(server, tmp_path):
    """Following an issue: an ETag the server made unsendable is dropped, not replayed (it
    would crash the next conditional request)."""
    outbox = Outbox(tmp_path / "svc")
    entry = outbox.draft("heartbeat", {}, nonce=new_nonce())
    entry.state, entry.number = "queued", 7
    outbox.save(entry)
    server.route(f"{ISSUES}/7", status(200, b'{"state": "open"}', [("ETag", '"caf\u00e9"')]))
    server.route(f"{ISSUES}/7/comments", status(200, b"[]", [("ETag", '"ok-etag"')]))
    client = make_client(server)
    try:
        await follow_queued(outbox, client, now=10**9)
        await follow_queued(outbox, client, now=2 * 10**9)
    finally:
        await client.aclose()
    asked = [r for r in server.requests if r.path == f"{ISSUES}/7"]
    assert len(asked) == 2
    assert all("if-none-match" not in r.headers for r in asked)
    comments = [r for r in server.requests if r.path == f"{ISSUES}/7/comments"]
    assert comments[-1].headers.get("if-none-match") == '"ok-etag"'


async def test_following_an_issue_through_a_bomb_records_the_error(server, tmp_path):
    outbox = Outbox(tmp_path / "svc")
    entry = outbox.draft("heartbeat", {}, nonce=new_nonce())
    entry.state, entry.number = "queued", 7
    outbox.save(entry)
    server.route(f"{ISSUES}/7", not_modified())
    server.route(f"{ISSUES}/7/comments", gzip_bomb(64 << 20))
    client = make_client(server)
    try:
        await follow_queued(outbox, client, now=10**9)
    finally:
        await client.aclose()
    (kept,) = outbox.entries()
    assert kept.state == "queued"  # still followed, nothing lost
    assert kept.tracking.get("last_error", "").startswith("too-large: ")
