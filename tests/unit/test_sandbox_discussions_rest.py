"""The demo network's Discussions over REST, as GitHub serves them: a Discussion, its comments
paginated by ``Link``, ETags and 304s, the rate-limit budgets (per address, per token, and the
``rest_read_budget`` knob), notifications (tui/sandbox/discussions_api.py)."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tui.sandbox.app import DEMO_LOGIN, DEMO_TOKEN, create_app

AUTH = {"Authorization": f"Bearer {DEMO_TOKEN}"}
OTHER = {"Authorization": "Bearer other-token"}
REPO = "/api/repos/roost-demo/network"
RATE_HEADERS = ("limit", "remaining", "used", "reset", "resource")
GRAPHQL = "/api/graphql"
COMMENT = """mutation($id: ID!, $body: String!, $to: ID) {
  addDiscussionComment(input: {discussionId: $id, body: $body, replyToId: $to}) { comment { id } }
}"""


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@contextlib.asynccontextmanager
async def running(clock: Clock, **options):
    """(client, sandbox state) of a demo network of 60 agents on ``clock``, with a second
    token (``OTHER``), called from the address 203.0.113.7."""
    app = create_app(
        agents=60,
        clock=clock,
        tokens={DEMO_TOKEN: DEMO_LOGIN, "other-token": "other-agent"},
        **options,
    )
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 4000))
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox.invalid") as client:
        yield client, app.state.sandbox


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def sandbox(clock):
    async with running(clock) as opened:
        yield opened


def busiest(sandbox) -> dict:
    return max(sandbox.network.log["posts"], key=lambda p: p["commentCount"])


async def test_a_discussion_in_githubs_shape(sandbox):
    client, state = sandbox
    post = busiest(state)
    answer = await client.get(f"{REPO}/discussions/{post['number']}")
    assert answer.status_code == 200
    body = answer.json()
    assert {
        "number", "title", "body", "user", "created_at", "updated_at", "html_url", "comments",
        "category", "reactions", "node_id", "id", "state", "locked", "author_association",
        "answer_chosen_at", "repository_url", "timeline_url",
    } <= set(body)  # fmt: skip
    assert (body["number"], body["title"], body["html_url"]) == (
        post["number"],
        post["title"],
        post["url"],
    )
    assert body["comments"] == post["commentCount"] and body["node_id"].startswith("D_kwROOST")
    assert body["user"]["login"] == "roost-demo" and isinstance(body["user"]["id"], int)
    assert body["body"].startswith(f"*Posted by **{post['author']}***")
    assert body["category"]["slug"] == post["channel"]
    reactions = body["reactions"]
    assert set(reactions) == {
        "url", "total_count", "+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes",
    }  # fmt: skip
    assert (reactions["+1"], reactions["-1"]) == (post["upvotes"], post["downvotes"])
    for name in RATE_HEADERS:
        assert f"x-ratelimit-{name}" in answer.headers
    assert answer.headers["etag"]


async def test_unknown_numbers_repositories_and_tokens(sandbox):
    client, _ = sandbox
    missing = await client.get(f"{REPO}/discussions/99999999")
    assert missing.status_code == 404
    assert missing.json() == {
        "message": "Not Found",
        "documentation_url": "https://docs.github.com/rest/discussions",
        "status": "404",
    }
    assert (await client.get("/api/repos/nobody/nothing/discussions/1")).status_code == 404
    bad = await client.get(f"{REPO}/discussions/1", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and bad.json()["message"] == "Bad credentials"


async def test_comments_come_a_page_at_a_time_by_link(sandbox):
    client, state = sandbox
    post = busiest(state)
    assert post["commentCount"] > 100
    url, seen, pages = f"{REPO}/discussions/{post['number']}/comments?per_page=100", [], 0
    while url:
        answer = await client.get(url)
        assert answer.status_code == 200
        seen += answer.json()
        pages += 1
        url = answer.links.get("next", {}).get("url")
        if url:
            assert answer.links["last"]["url"].endswith(f"page={-(-post['commentCount'] // 100)}")
    assert pages == -(-post["commentCount"] // 100) and len(seen) == post["commentCount"]
    assert len({c["id"] for c in seen}) == len(seen)
    first = seen[0]
    assert set(first) == {
        "id", "node_id", "html_url", "parent_id", "child_comment_count", "repository_url",
        "discussion_id", "author_association", "user", "created_at", "updated_at", "body",
        "reactions",
    }  # fmt: skip
    assert first["html_url"] == f"{post['url']}#discussioncomment-{first['id']}"
    tops = {c["id"]: c for c in seen if c["parent_id"] is None}
    replies = [c for c in seen if c["parent_id"] is not None]
    assert replies and all(c["parent_id"] in tops for c in replies)
    assert sum(c["child_comment_count"] for c in tops.values()) == len(replies)
    assert [c["created_at"] for c in seen] == sorted(c["created_at"] for c in seen)
    capped = await client.get(f"{REPO}/discussions/{post['number']}/comments?per_page=500")
    assert len(capped.json()) == 100
    default = await client.get(f"{REPO}/discussions/{post['number']}/comments")
    assert len(default.json()) == 30 and 'rel="next"' in default.headers["link"]
    last = await client.get(f"{REPO}/discussions/{post['number']}/comments?per_page=100&page=99")
    assert last.json() == [] and 'rel="prev"' in last.headers["link"]


async def test_a_304_costs_nothing(sandbox):
    client, state = sandbox
    url = f"{REPO}/discussions/{busiest(state)['number']}/comments"
    first = await client.get(url)
    again = await client.get(url, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["x-ratelimit-remaining"] == first.headers["x-ratelimit-remaining"]
    assert again.headers["etag"] == first.headers["etag"]


async def test_without_a_token_sixty_an_hour_per_address_with_one_five_thousand(sandbox):
    client, _ = sandbox
    anonymous = await client.get(f"{REPO}/discussions")
    assert anonymous.headers["x-ratelimit-limit"] == "60"
    assert anonymous.headers["x-ratelimit-resource"] == "core"
    token = await client.get(f"{REPO}/discussions", headers=AUTH)
    assert token.headers["x-ratelimit-limit"] == "5000"
    assert token.headers["x-ratelimit-used"] == "1"


async def test_the_budget_knob_spends_the_limit_in_a_few_calls(sandbox, clock):
    client, state = sandbox
    reset = int(clock.now.timestamp()) + 900
    knob = await client.post(
        "/_sandbox/faults", json={"rest_read_budget": 2, "rest_read_reset": reset}
    )
    assert knob.status_code == 200
    url = f"{REPO}/discussions/{busiest(state)['number']}"
    seen = []
    for _ in range(3):
        answer = await client.get(url)
        seen.append((answer.status_code, answer.headers["x-ratelimit-remaining"]))
    assert seen == [(200, "1"), (200, "0"), (403, "0")]
    assert answer.headers["x-ratelimit-reset"] == str(reset)
    assert answer.json() == {
        "message": "API rate limit exceeded for 203.0.113.7. (But here's the good news: "
        "Authenticated requests get a higher rate limit. Check out the documentation for "
        "more details.)",
        "documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api"
        "#rate-limiting",
    }
    assert (await client.get(f"{REPO}/discussions/99999999")).status_code == 403
    # a token has a budget of its own, and a 304 is still free for everyone
    assert (await client.get(url, headers=AUTH)).status_code == 200
    # GraphQL is another resource: the REST budget does not touch it
    viewer = await client.post(GRAPHQL, json={"query": "{ viewer { login } }"}, headers=AUTH)
    assert viewer.json() == {"data": {"viewer": {"login": DEMO_LOGIN}}}
    # the reset time passes: GitHub's budgets again
    clock.now += timedelta(seconds=901)
    assert (await client.get(url)).status_code == 200
    # setting the knob again starts every caller afresh
    await client.post("/_sandbox/faults", json={"rest_read_budget": 1, "rest_read_reset": None})
    assert (await client.get(url)).status_code == 200
    assert (await client.get(url)).status_code == 403
    await client.delete("/_sandbox/faults")
    assert (await client.get(url)).headers["x-ratelimit-limit"] == "60"


async def test_the_budget_applies_to_the_issue_api_too(sandbox):
    client, _ = sandbox
    await client.post("/_sandbox/faults", json={"rest_read_budget": 1})
    assert (await client.get(f"{REPO}/issues")).status_code == 200
    spent = await client.get(f"{REPO}/issues")
    assert spent.status_code == 403 and "rate limit exceeded" in spent.json()["message"]


async def test_bad_budget_knobs_are_refused(sandbox):
    client, _ = sandbox
    for knob in ({"rest_read_budget": -1}, {"rest_read_budget": "3"}, {"rest_read_reset": 1.5}):
        assert (await client.post("/_sandbox/faults", json=knob)).status_code == 400


async def test_the_discussions_list_newest_first(sandbox):
    client, state = sandbox
    answer = await client.get(f"{REPO}/discussions", params={"per_page": 5})
    listed = [d["number"] for d in answer.json()]
    newest = sorted(state.network.log["posts"], key=lambda p: p["timestamp"])[-5:][::-1]
    assert listed == [p["number"] for p in newest] and 'rel="next"' in answer.headers["link"]


async def test_notifications_need_a_token_and_have_githubs_shape(sandbox):
    client, state = sandbox
    refused = await client.get(f"{REPO}/notifications", params={"participating": "true"})
    assert refused.status_code == 401 and refused.json()["message"] == "Requires authentication"
    empty = await client.get(
        f"{REPO}/notifications", params={"participating": "true"}, headers=AUTH
    )
    assert empty.status_code == 200 and empty.json() == []
    number = state.network.log["posts"][-1]["number"]
    node = f"D_kwROOST{number:08d}"

    async def comment(headers: dict, body: str, to: str | None = None) -> str:
        answer = await client.post(
            GRAPHQL,
            json={"query": COMMENT, "variables": {"id": node, "body": body, "to": to}},
            headers=headers,
        )
        return answer.json()["data"]["addDiscussionComment"]["comment"]["id"]

    mine = await comment(AUTH, "I have a question.")
    await comment(OTHER, "Here is an answer.", mine)
    await comment(OTHER, "And @demo-agent, one more thing.")
    threads = (await client.get("/api/notifications", headers=AUTH)).json()
    assert len(threads) == 1
    (thread,) = threads
    assert thread["reason"] == "mention" and thread["unread"] is True
    assert thread["subject"] == {
        "title": state.network.log["posts"][-1]["title"],
        "url": None,
        "latest_comment_url": None,
        "type": "Discussion",
    }
    assert {"id", "repository", "updated_at", "last_read_at", "url", "subscription_url"} <= set(
        thread
    )
    assert thread["repository"]["full_name"] == "roost-demo/network"
    assert (await client.get(f"{REPO}/notifications", headers=OTHER)).json() == []
