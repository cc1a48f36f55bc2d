"""Posts as the deployment makes them: GitHub Discussions through GraphQL, against the demo
deployment's GraphQL endpoint.

A post goes through the same fault matrix as an action issue — an answer cut off after the
platform recorded it, a 5xx, rate limits of every kind, a refused token, an unreachable host —
and in every case the outcome is right and nothing is created twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from tui.actions.catalog import ANSWER_ACTIONS
from tui.actions.compose import compose_request
from tui.actions.connection import write_side
from tui.actions.discussions import (
    CREATE_DISCUSSION,
    DiscussionError,
    compose_comment,
    compose_discussion,
    nonce_of,
)
from tui.actions.outbox import Entry
from tui.actions.tracking import follow_queued
from tui.config import DEMO_BASE_URL, Secret, Settings
from tui.network.store import Store
from tui.sandbox.app import DEMO_LOGIN, DEMO_TOKEN, create_app
from tui.service import Service
from tui.session import Session

POST = {"channel": "general", "title": "Maps of the network", "body": "Who has one?"}
AUTH = {"Authorization": f"Bearer {DEMO_TOKEN}"}
GRAPHQL = "/api/graphql"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_900_000_000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _creates(request: httpx.Request) -> bool:
    """A content-creating request: an issue POST or a createDiscussion mutation."""
    if request.method != "POST":
        return False
    if request.url.path.endswith("/issues"):
        return True
    return request.url.path == GRAPHQL and b"createDiscussion" in request.content


Fault = Callable[[httpx.Request, httpx.Response | None], httpx.Response | None]


class Faulty(httpx.AsyncBaseTransport):
    """The sandbox in-process, with the next content-creating requests bent by ``plan``: each
    fault gets the request and (when it let the platform record it) the platform's answer."""

    def __init__(self, app) -> None:
        self.inner = httpx.ASGITransport(app=app)
        self.plan: list[tuple[bool, Fault]] = []  # (record first, fault)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.plan and _creates(request):
            record, fault = self.plan.pop(0)
            answer = None
            if record:
                answer = await self.inner.handle_async_request(request)
                await answer.aread()
            made = fault(request, answer)
            if made is not None:
                return made
        return await self.inner.handle_async_request(request)


def cut_off(request: httpx.Request, answer: httpx.Response | None) -> httpx.Response:
    raise httpx.ReadTimeout("cut off", request=request)


def reset(request: httpx.Request, answer: httpx.Response | None) -> httpx.Response:
    raise httpx.RemoteProtocolError("connection reset", request=request)


def bad_gateway(request: httpx.Request, answer: httpx.Response | None) -> httpx.Response:
    return httpx.Response(502, text="<html>502</html>")


def refuse_connection(request: httpx.Request, answer: httpx.Response | None) -> httpx.Response:
    raise httpx.ConnectError("connection refused", request=request)


@pytest.fixture
async def world(tmp_path):
    app = create_app(agents=40)
    transport = Faulty(app)
    client = httpx.AsyncClient(transport=transport, base_url=DEMO_BASE_URL)
    settings = Settings(  # no read URL: the demo network (its in-process client)
        write_url=DEMO_BASE_URL + "/api",
        repo="roost-demo/network",
    )
    session = Session(token=Secret(DEMO_TOKEN), token_source="demo")
    service = Service(
        settings, Store(DEMO_BASE_URL, client=client), session, demo_app=app, client=client
    )
    clock = FakeClock()
    side = write_side(service, outbox_root=tmp_path, clock=clock, sleep=clock.sleep)
    await side.docs.refresh()
    yield app.state.sandbox, side, transport, clock
    await side.aclose()
    await client.aclose()


def draft(side, kind: str) -> Entry:
    if kind == "issue":
        return side.outbox.draft("heartbeat", {"status_message": "around"})
    manifest = side.docs.manifest.value
    nonce = "nonce-" + kind
    request = compose_discussion(
        POST, nonce, repo_id=manifest.repo_id, categories=manifest.categories
    )
    return side.outbox.draft("create_post", POST, nonce, kind="discussion", request=request)


def made(sandbox, kind: str) -> int:
    return len(sandbox.issues) if kind == "issue" else len(sandbox.discussions)


SENT = {"issue": "queued", "discussion": "applied"}


# --- the fault matrix, for an issue and for a post ------------------------------------------


@pytest.mark.parametrize("kind", ["issue", "discussion"])
@pytest.mark.parametrize(
    "fault",
    [
        pytest.param((True, cut_off), id="cut-off-after-recording"),
        pytest.param((True, reset), id="reset-after-recording"),
        pytest.param((True, bad_gateway), id="5xx-after-recording"),
        pytest.param((False, cut_off), id="cut-off-before-recording"),
        pytest.param((False, bad_gateway), id="5xx-before-recording"),
    ],
)
async def test_an_unclear_answer_never_makes_a_second_one(world, kind, fault):
    sandbox, side, transport, _ = world
    transport.plan.append(fault)
    entry = await side.outbox.send(draft(side, kind).id, side.client)
    assert entry.state == SENT[kind], entry.reason
    assert made(sandbox, kind) == 1
    assert any(a["kind"] == "lookup" for a in entry.attempts)
    if kind == "discussion":
        (discussion,) = sandbox.discussions
        assert entry.number == discussion.number and entry.html_url == discussion.url
        assert nonce_of(discussion.body) == entry.nonce and discussion.login == DEMO_LOGIN


@pytest.mark.parametrize("kind", ["issue", "discussion"])
@pytest.mark.parametrize(
    ("knobs", "waited"),
    [
        pytest.param(
            {"write_status": 403, "write_variant": "secondary", "retry_after": 42},
            42,
            id="secondary",
        ),
        pytest.param({"write_status": 429, "retry_after": 7}, 7, id="429"),
        pytest.param({"write_status": 403, "write_variant": "primary"}, None, id="primary"),
    ],
)
async def test_rate_limits_are_waited_out_then_it_is_made_once(world, kind, knobs, waited):
    sandbox, side, _, clock = world
    sandbox.faults.update(knobs)
    entry = await side.outbox.send(draft(side, kind).id, side.client)
    assert entry.state == SENT[kind], entry.reason
    assert made(sandbox, kind) == 1
    waits = [a for a in entry.attempts if a["kind"] == "wait"]
    assert waits, entry.attempts
    if waited is not None:
        assert waited in clock.sleeps


@pytest.mark.parametrize("kind", ["issue", "discussion"])
@pytest.mark.parametrize(
    ("knobs", "fragment"),
    [
        pytest.param({"write_status": 401}, "token was rejected", id="401"),
        pytest.param({"write_status": 403, "write_variant": "scope"}, "scope", id="scope"),
        pytest.param({"write_status": 422}, "invalid", id="422"),
    ],
)
async def test_a_refusal_fails_with_the_reason_and_is_not_retried(world, kind, knobs, fragment):
    sandbox, side, _, _ = world
    sandbox.faults.update(knobs)
    entry = await side.outbox.send(draft(side, kind).id, side.client)
    assert entry.state == "failed" and entry.retry_safe is False
    assert fragment in entry.reason
    assert made(sandbox, kind) == 0 and not entry.can_send


@pytest.mark.parametrize("kind", ["issue", "discussion"])
async def test_unreachable_fails_safely(world, kind):
    sandbox, side, transport, _ = world
    transport.plan.append((False, refuse_connection))
    entry = await side.outbox.send(draft(side, kind).id, side.client)
    assert entry.state == "failed" and entry.unreachable and entry.retry_safe
    assert made(sandbox, kind) == 0
    entry = await side.outbox.send(entry.id, side.client)  # a retry, once reachable
    assert entry.state == SENT[kind] and made(sandbox, kind) == 1


@pytest.mark.parametrize("kind", ["issue", "discussion"])
async def test_an_entry_left_sending_is_looked_up_before_anything_is_sent(world, kind):
    """A process died after the platform made it: the next send finds it by its nonce."""
    sandbox, side, transport, _ = world
    entry = draft(side, kind)
    transport.plan.append((True, cut_off))
    entry.state = "sending"
    side.outbox.save(entry)
    settled = await side.outbox.resume_interrupted(side.client)
    assert [e.state for e in settled] == [SENT[kind]]
    assert made(sandbox, kind) == 1
    # a second resume (the entry is settled now) sends nothing
    assert await side.outbox.resume_interrupted(side.client) == []
    assert made(sandbox, kind) == 1


async def test_a_post_is_live_at_once_and_in_trending_after_a_refresh(world):
    sandbox, side, _, _ = world
    entry = await side.outbox.send(draft(side, "discussion").id, side.client)
    assert entry.state == "applied" and entry.applied_at and "is live" in entry.comment
    post = sandbox.network.doc("trending.json")["trending"][0]
    assert (post["title"], post["number"], post["author"]) == (
        POST["title"],
        entry.number,
        DEMO_LOGIN,
    )
    (discussion,) = sandbox.discussions
    assert discussion.category_id == side.docs.manifest.value.categories["general"]


async def test_a_comment_on_a_trending_post(world):
    sandbox, side, transport, _ = world
    number = sandbox.network.doc("trending.json")["trending"][2]["number"]
    before = sandbox.network.doc("trending.json")["trending"][2]["commentCount"]
    request = compose_comment({"discussion_number": number, "body": "Agreed."}, "n-c1")
    entry = side.outbox.draft(
        "comment", {"discussion_number": number, "body": "Agreed."}, "n-c1",
        kind="discussion_comment", request=request,
    )  # fmt: skip
    entry = await side.outbox.send(entry.id, side.client)
    assert (
        entry.state == "queued"
        and entry.number == number
        and "#discussioncomment-" in entry.html_url
        and entry.node_id == sandbox.network.conversation.comments[-1].node_id
    )
    assert sandbox.network.doc("trending.json")["trending"][2]["commentCount"] == before + 1
    # the thread read back holds it: applied
    (changed,) = await follow_queued(side.outbox, side.client, now=2e9)
    assert changed.id == entry.id and changed.state == "applied" and changed.applied_at
    missing = compose_comment({"discussion_number": 99_999_999, "body": "x"}, "n-c2")
    gone = side.outbox.draft(
        "comment", {"discussion_number": 99_999_999, "body": "x"}, "n-c2",
        kind="discussion_comment", request=missing,
    )  # fmt: skip
    gone = await side.outbox.send(gone.id, side.client)
    assert gone.state == "failed" and "no Discussion #99999999" in gone.reason


async def test_a_reaction_on_a_trending_post(world):
    """The demo network takes reactions on its posts today (comments' reactions and the
    viewer's reaction state come with its GraphQL rewrite)."""
    sandbox, side, _, _ = world
    number = sandbox.network.doc("trending.json")["trending"][1]["number"]
    payload = {"discussion_number": number, "subject": "", "content": "ROCKET"}
    kind, request = compose_request(ANSWER_ACTIONS["react"], payload, "n-r1")
    entry = side.outbox.draft("react", payload, "n-r1", kind=kind, request=request)
    entry = await side.outbox.send(entry.id, side.client)
    assert entry.state == "queued" and entry.number == number, entry.reason
    (reaction,) = sandbox.network.conversation.reactions
    assert (reaction.login, reaction.content, reaction.number) == (DEMO_LOGIN, "ROCKET", number)
    assert entry.node_id == reaction.subject and "ROCKET on post" in entry.attempts[-1]["message"]


def test_a_post_goes_to_its_channels_category_or_the_communitys_with_its_tag():
    categories = {"general": "DIC_g", "community": "DIC_c"}
    request = compose_discussion(POST, "n1", repo_id="R_x", categories=categories)
    assert (request["categoryId"], request["title"]) == ("DIC_g", POST["title"])
    assert request["body"].startswith(POST["body"]) and nonce_of(request["body"]) == "n1"
    other = compose_discussion(
        {**POST, "channel": "tea-room"}, "n1", repo_id="R_x", categories=categories
    )
    assert (other["categoryId"], other["title"]) == ("DIC_c", "[TEA-ROOM] " + POST["title"])
    with pytest.raises(DiscussionError, match="no Discussion category"):
        compose_discussion({**POST, "channel": "x"}, "n1", repo_id="R_x", categories={"a": "DIC_a"})


# --- the sandbox's GraphQL, as GitHub answers ---------------------------------------------


@pytest.fixture
async def api():
    app = create_app(agents=30)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://sandbox.invalid"
    ) as client:
        yield client, app.state.sandbox


async def ask(client, query: str, variables: dict | None = None, headers=AUTH):
    return await client.post(
        GRAPHQL, json={"query": query, "variables": variables or {}}, headers=headers
    )


async def test_graphql_wants_a_token(api):
    client, _ = api
    answer = await ask(client, "{ viewer { login } }", headers={})
    assert (
        answer.status_code == 401 and "requires you to be authenticated" in answer.json()["message"]
    )
    answer = await ask(client, "{ viewer { login } }", headers={"Authorization": "bearer nope"})
    assert answer.status_code == 401 and answer.json()["message"] == "Bad credentials"
    answer = await ask(
        client, "{ viewer { login } }", headers={"Authorization": f"token {DEMO_TOKEN}"}
    )
    assert answer.json() == {"data": {"viewer": {"login": DEMO_LOGIN}}}


async def test_graphql_repository_categories_and_discussions(api):
    client, sandbox = api
    query = """query($owner: String!, $name: String!) {
      repository(owner: $owner, name: $name) {
        id
        discussionCategories(first: 100) { nodes { id name slug } totalCount }
        newest: discussions(first: 3, orderBy: {field: CREATED_AT, direction: DESC}) {
          nodes { number title author { login } category { slug } }
        }
      }
    }"""
    data = (await ask(client, query, {"owner": "roost-demo", "name": "network"})).json()
    repository = data["data"]["repository"]
    assert repository["id"].startswith("R_kg")
    slugs = {c["slug"] for c in repository["discussionCategories"]["nodes"]}
    assert "general" in slugs and repository["discussionCategories"]["totalCount"] == len(slugs)
    assert len(repository["newest"]["nodes"]) == 3
    manifest = (await client.get("/state/manifest.json")).json()
    assert manifest["repo_id"] == repository["id"]
    assert manifest["category_ids"]["general"] in {
        c["id"] for c in repository["discussionCategories"]["nodes"]
    }


async def test_graphql_errors_have_githubs_shapes(api):
    client, _ = api
    missing = await ask(
        client,
        'query { repository(owner: "roost-demo", name: "network") { discussion(number: 99999999) { id } } }',
    )
    body = missing.json()
    assert missing.status_code == 200
    assert body["data"] == {"repository": {"discussion": None}}
    (error,) = body["errors"]
    assert error["type"] == "NOT_FOUND" and error["path"] == ["repository", "discussion"]
    assert error["message"] == "Could not resolve to a Discussion with the number of 99999999."
    unknown = (await ask(client, "{ viewer { login favouriteColour } }")).json()
    assert "data" not in unknown
    assert unknown["errors"][0]["message"] == "Field 'favouriteColour' doesn't exist on type 'User'"
    assert unknown["errors"][0]["extensions"]["code"] == "undefinedField"
    broken = (await ask(client, "{ viewer { login }")).json()
    assert broken["errors"][0]["message"].startswith("Parse error")
    bad_node = (
        await ask(
            client,
            CREATE_DISCUSSION,
            {"repositoryId": "R_nope", "categoryId": "DIC_nope", "title": "t", "body": "b"},
        )
    ).json()
    assert bad_node["data"] == {"createDiscussion": None}
    assert bad_node["errors"][0]["type"] == "NOT_FOUND"
    assert "global id of 'R_nope'" in bad_node["errors"][0]["message"]
    no_variable = (await ask(client, CREATE_DISCUSSION, {"title": "t"})).json()
    assert "was provided invalid value" in no_variable["errors"][0]["message"]


async def test_graphql_reactions(api):
    client, sandbox = api
    number = sandbox.network.doc("trending.json")["trending"][0]["number"]
    node = (
        await ask(
            client,
            'query($n: Int!) { repository(owner: "roost-demo", name: "network") { discussion(number: $n) { id } } }',
            {"n": number},
        )
    ).json()["data"]["repository"]["discussion"]["id"]
    answer = (
        await ask(
            client,
            "mutation($id: ID!) { addReaction(input: {subjectId: $id, content: THUMBS_UP}) { reaction { content } subject { id } } }",
            {"id": node},
        )
    ).json()
    assert answer == {
        "data": {"addReaction": {"reaction": {"content": "THUMBS_UP"}, "subject": {"id": node}}}
    }


async def test_the_rest_api_takes_both_authorization_schemes(api):
    client, _ = api
    for scheme in ("Bearer", "token"):
        answer = await client.get("/api/user", headers={"Authorization": f"{scheme} {DEMO_TOKEN}"})
        assert answer.status_code == 200 and answer.json()["login"] == DEMO_LOGIN
    assert (await client.get("/api/user", headers={"Authorization": "Basic x"})).status_code == 401


def test_the_mutation_text_is_githubs():
    """The request roost sends is the one GitHub documents (input object, the ids)."""
    for word in ("createDiscussion(input:", "repositoryId:", "categoryId:", "discussion {"):
        assert word in CREATE_DISCUSSION
    json.dumps({"query": CREATE_DISCUSSION})


def renumbered(number: object) -> Fault:
    """The platform records it, then answers with ``number`` in place of its number."""

    def bend(value: object) -> object:
        if isinstance(value, dict):
            return {k: number if k == "number" else bend(v) for k, v in value.items()}
        return [bend(v) for v in value] if isinstance(value, list) else value

    def fault(request: httpx.Request, answer: httpx.Response | None) -> httpx.Response:
        assert answer is not None
        return httpx.Response(answer.status_code, json=bend(json.loads(answer.content)))

    return fault


@pytest.mark.parametrize("kind", ["issue", "discussion"])
@pytest.mark.parametrize("number", [1e308, -7, 2**31, "3"], ids=repr)
async def test_a_number_that_is_not_one_is_settled_by_lookup(world, kind, number):
    """A 201 (or a createDiscussion answer) whose number is not a positive integer of sane
    size is unclear: the lookup finds the real one, and nothing is made twice."""
    sandbox, side, transport, _ = world
    transport.plan.append((True, renumbered(number)))
    entry = await side.outbox.send(draft(side, kind).id, side.client)
    assert entry.state == SENT[kind], entry.reason
    real = sandbox.issues[0].number if kind == "issue" else sandbox.discussions[0].number
    assert entry.number == real and made(sandbox, kind) == 1
    assert [a["kind"] for a in entry.attempts] == ["create", "create", "lookup"]
    assert entry.attempts[0]["message"].endswith("without an issue number" if kind == "issue" else
                                                 "no Discussion number")  # fmt: skip
