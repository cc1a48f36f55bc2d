"""The issue client against a platform that answers like GitHub (httpx.MockTransport).

Every answer class maps to one outcome and a message; unclear answers are looked up by nonce
before anything is resent; rate-limit waits run on a fake clock.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx
import pytest

from tui.actions.issue_body import compose_issue, new_nonce
from tui.actions.issue_client import CREATE_GAP_S, MAX_TRIES, IssueClient
from tui.actions.token import TokenError
from tui.config import Secret

TOKEN = "ghp_SECRETtoken1234567890"
WRITE = "https://api.example.test"
REPO = "owner/repo"
ISSUES = f"/repos/{REPO}/issues"

Answer = Callable[[httpx.Request, "Platform"], httpx.Response]


class FakeClock:
    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@dataclass
class Platform:
    """Issues as GitHub keeps them; ``answers`` script the next issue POSTs (then: 201)."""

    clock: FakeClock
    answers: list[Answer] = field(default_factory=list)
    issues: list[dict] = field(default_factory=list)
    requests: list[httpx.Request] = field(default_factory=list)
    scopes: str | None = "repo, write:discussion"
    drop_labels: bool = False
    list_status: int = 200

    def headers(self, **extra: str) -> dict[str, str]:
        headers = {"X-RateLimit-Remaining": "4999", "X-RateLimit-Reset": "0"}
        if self.scopes is not None:
            headers["X-OAuth-Scopes"] = self.scopes
        headers.update(extra)
        return headers

    def record(self, request: httpx.Request) -> httpx.Response:
        data = json.loads(request.content)
        number = len(self.issues) + 1
        issue = {
            "number": number,
            "url": f"{WRITE}{ISSUES}/{number}",
            "html_url": f"https://example.test/{REPO}/issues/{number}",
            "title": data["title"],
            "body": data["body"],
            "labels": [] if self.drop_labels else [{"name": n} for n in data["labels"]],
            "user": {"login": "octo"},
            "state": "open",
            "created_at": "2027-01-15T08:00:00Z",
        }
        self.issues.append(issue)
        return httpx.Response(201, json=issue, headers=self.headers())

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if request.method == "GET" and path == "/user":
            return httpx.Response(200, json={"login": "octo"}, headers=self.headers())
        if request.method == "GET" and path == ISSUES:
            if self.list_status != 200:
                return httpx.Response(self.list_status, json={"message": "Server Error"})
            assert request.url.params["creator"] == "octo"
            assert request.url.params["state"] == "all"
            assert request.url.params["sort"] == "created"
            listed = [{"pull_request": {}, "number": 999, "body": "pr"}, *reversed(self.issues)]
            return httpx.Response(200, json=listed, headers=self.headers())
        if request.method == "POST" and path == ISSUES:
            if self.answers:
                return self.answers.pop(0)(request, self)
            return self.record(request)
        return httpx.Response(404, json={"message": "Not Found"})

    @property
    def posts(self) -> list[httpx.Request]:
        return [r for r in self.requests if r.method == "POST"]


def status(code: int, body: dict | None = None, **headers: str) -> Answer:
    def answer(request: httpx.Request, platform: Platform) -> httpx.Response:
        return httpx.Response(
            code, json=body or {"message": "x"}, headers=platform.headers(**headers)
        )

    return answer


def timeout_after_recording(request: httpx.Request, platform: Platform) -> httpx.Response:
    platform.record(request)
    raise httpx.ReadTimeout("cut off", request=request)


def timeout_before_recording(request: httpx.Request, platform: Platform) -> httpx.Response:
    raise httpx.ReadTimeout("cut off", request=request)


def bad_gateway_after_recording(request: httpx.Request, platform: Platform) -> httpx.Response:
    platform.record(request)
    return httpx.Response(502, text="<html>502</html>", headers=platform.headers())


def reset_after_recording(request: httpx.Request, platform: Platform) -> httpx.Response:
    platform.record(request)
    raise httpx.RemoteProtocolError("connection reset", request=request)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def platform(clock) -> Platform:
    return Platform(clock)


@pytest.fixture
def make_client(platform, clock):
    made: list[IssueClient] = []

    def make(**kw) -> IssueClient:
        http = httpx.AsyncClient(transport=httpx.MockTransport(platform))
        client = IssueClient(
            WRITE, REPO, Secret(TOKEN), client=http, clock=clock, sleep=clock.sleep, **kw
        )
        made.append(client)
        return client

    return make


async def send(client: IssueClient, action="poke", payload=None, **kw):
    nonce = new_nonce()
    issue = compose_issue(action, payload or {"target_agent": "zion-coder-01"}, nonce)
    return await client.create(issue, nonce, **kw), issue


async def test_201_is_queued_with_the_exact_request(make_client, platform):
    result, issue = await send(make_client())
    assert (result.state, result.number, result.author) == ("queued", 1, "octo")
    assert result.html_url == f"https://example.test/{REPO}/issues/1"
    assert result.notices == []
    (post,) = platform.posts
    assert str(post.url) == f"{WRITE}{ISSUES}"
    assert post.headers["authorization"] == f"Bearer {TOKEN}"
    assert post.headers["accept"] == "application/vnd.github+json"
    assert post.headers["x-github-api-version"] == "2022-11-28"
    assert post.headers["user-agent"].startswith("roost/")
    assert json.loads(post.content) == issue.as_json()


async def test_dropped_label_is_a_notice_not_an_error(make_client, platform):
    platform.drop_labels = True
    result, _ = await send(make_client())
    assert result.state == "queued"
    (notice,) = result.notices
    assert "poke" in notice and "dropped" in notice and "no push access" in notice


@pytest.mark.parametrize(
    ("answer", "scopes", "fragments", "retry_safe"),
    [
        (status(401, {"message": "Bad credentials"}), "repo", ("token was rejected",), False),
        (
            status(403, {"message": "Resource not accessible"}),
            "read:user",
            ("permission denied", "missing scope repo, write:discussion", "read:user"),
            False,
        ),
        (
            status(403, {"message": "Resource not accessible"}),
            None,
            ("fine-grained token: needs Issues: write on owner/repo",),
            False,
        ),
        (status(404), "repo", ("repository owner/repo not found", "cannot see it"), False),
        (status(410), "repo", ("issues are disabled on owner/repo",), False),
        (
            status(
                422,
                {
                    "message": "Validation Failed",
                    "errors": [
                        {"resource": "Issue", "code": "missing_field", "field": "title"},
                        {
                            "resource": "Issue",
                            "code": "custom",
                            "field": "body",
                            "message": "too long",
                        },
                    ],
                },
            ),
            "repo",
            ("(422)", "title: is missing", "body: too long"),
            False,
        ),
        (
            status(301, {"message": "Moved"}, Location="https://elsewhere.test/x"),
            "repo",
            ("redirect", "elsewhere.test", "--write-url"),
            True,
        ),
    ],
    ids=["401", "403-scope", "403-fine-grained", "404", "410", "422", "redirect"],
)
async def test_refusals_are_failures_with_a_readable_message(
    make_client, platform, answer, scopes, fragments, retry_safe
):
    platform.scopes = scopes
    platform.answers = [answer]
    result, _ = await send(make_client())
    assert result.state == "failed"
    assert result.retry_safe is retry_safe
    for fragment in fragments:
        assert fragment in result.message
    assert TOKEN not in result.message
    assert len(platform.posts) == 1  # no resend, no redirect followed
    assert platform.issues == []


async def test_primary_rate_limit_waits_for_the_reset_then_sends(make_client, platform, clock):
    reset = int(clock.now) + 120
    platform.answers = [
        status(
            403,
            {"message": "API rate limit exceeded"},
            **{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)},
        )
    ]
    waits: list[tuple[float, str]] = []
    result, _ = await send(make_client(on_wait=lambda s, r: waits.append((s, r))))
    assert result.state == "queued" and len(platform.issues) == 1
    assert waits and waits[0][0] == pytest.approx(121) and "reset" in waits[0][1]
    assert clock.now >= reset


@pytest.mark.parametrize("code", [403, 429])
async def test_secondary_rate_limit_honours_retry_after(make_client, platform, clock, code):
    platform.answers = [status(code, {"message": "secondary rate limit"}, **{"Retry-After": "37"})]
    result, _ = await send(make_client())
    assert result.state == "queued"
    assert 37 in clock.sleeps
    assert len(platform.posts) == 2 and len(platform.issues) == 1


async def test_a_wait_longer_than_allowed_is_reported_not_sat_through(make_client, platform, clock):
    platform.answers = [status(429, {"message": "slow down"}, **{"Retry-After": "7200"})]
    result, _ = await send(make_client(max_wait_s=600))
    assert result.state == "failed" and result.retry_safe
    assert "try again in about 121 min" in result.message
    assert clock.sleeps == []


async def test_creates_are_at_least_a_second_apart(make_client, platform, clock):
    client = make_client()
    await send(client)
    first = clock.now
    await send(client)
    assert clock.sleeps == [pytest.approx(CREATE_GAP_S)]
    assert clock.now - first >= CREATE_GAP_S


@pytest.mark.parametrize(
    "answer", [timeout_after_recording, reset_after_recording, bad_gateway_after_recording]
)
async def test_unclear_answer_after_the_platform_recorded_is_found_by_lookup(
    make_client, platform, answer
):
    platform.answers = [answer]
    result, _ = await send(make_client())
    assert (result.state, result.number) == ("queued", 1)
    assert "found after an unclear answer" in result.message
    assert len(platform.posts) == 1 and len(platform.issues) == 1  # never a second issue


async def test_timeout_with_nothing_recorded_sends_once_more(make_client, platform, clock):
    platform.answers = [timeout_before_recording]
    result, _ = await send(make_client())
    assert (result.state, result.number) == ("queued", 1)
    assert len(platform.posts) == 2 and len(platform.issues) == 1
    assert any(s >= 1 for s in clock.sleeps)  # backoff before the resend


async def test_unclear_every_time_gives_up_after_three_tries(make_client, platform):
    platform.answers = [timeout_before_recording] * 5
    result, _ = await send(make_client())
    assert result.state == "failed" and result.retry_safe and result.unclear
    assert len(platform.posts) == MAX_TRIES and platform.issues == []


async def test_lookup_impossible_is_unknown_and_nothing_is_resent(make_client, platform):
    platform.answers = [timeout_after_recording]
    platform.list_status = 500
    result, _ = await send(make_client())
    assert result.state == "unknown"
    assert "could not be looked up" in result.message
    assert len(platform.posts) == 1


async def test_maybe_sent_looks_up_before_sending(make_client, platform):
    client = make_client()
    nonce = new_nonce()
    issue = compose_issue("poke", {"target_agent": "x1"}, nonce)
    platform.answers = [timeout_after_recording]
    platform.list_status = 500
    first = await client.create(issue, nonce)
    assert first.state == "unknown"
    platform.list_status = 200
    again = await client.create(issue, nonce, maybe_sent=True)
    assert (again.state, again.number) == ("queued", 1)
    assert len(platform.posts) == 1 and len(platform.issues) == 1


async def test_unreachable_is_a_safe_failure():
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    clock = FakeClock()
    http = httpx.AsyncClient(transport=httpx.MockTransport(refuse))
    client = IssueClient(WRITE, REPO, Secret(TOKEN), client=http, clock=clock, sleep=clock.sleep)
    result, _ = await send(client)
    assert result.state == "failed" and result.unreachable and result.retry_safe
    assert "nothing was sent" in result.message


async def test_pull_requests_in_the_listing_are_skipped(make_client, platform):
    client = make_client()
    assert await client.find_by_nonce("no-such-nonce") is None


@pytest.mark.parametrize(
    "url", ["http://api.example.test", "ftp://x.test", "https://user:pw@api.example.test"]
)
def test_the_token_is_refused_for_unsafe_write_urls(url):
    with pytest.raises(TokenError):
        IssueClient(url, REPO, Secret(TOKEN))


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8765/api", "http://localhost/api", "http://[::1]:9/api"]
)
def test_plain_http_is_allowed_to_loopback(url):
    assert IssueClient(url, REPO, Secret(TOKEN)).write_url == url.rstrip("/")


async def test_the_token_never_leaves_the_write_origin(make_client):
    client = make_client()
    with pytest.raises(TokenError):
        await client.request("GET", "https://raw.example.test/state/agents.json")


async def test_whoami_reports_scopes_or_fine_grained(make_client, platform):
    who = await make_client().whoami()
    assert (who.login, who.scopes) == ("octo", ("repo", "write:discussion"))
    assert who.describe(REPO) == "scopes: repo, write:discussion"
    platform.scopes = None
    fine = await make_client().whoami()
    assert fine.scopes is None
    assert fine.describe(REPO) == "fine-grained token: needs Issues: write on owner/repo"
    platform.scopes = "read:user"
    assert "missing: repo, write:discussion" in (await make_client().whoami()).describe(REPO)


def test_dry_run_headers_redact_the_token():
    client = IssueClient(WRITE, REPO, Secret(TOKEN))
    assert client.headers(redact=True)["Authorization"] == "Bearer ***"
    assert TOKEN not in repr(client.headers(redact=True))


def recorded_with_number(number):
    """The platform records the issue but answers 201 with ``number`` in place of its own."""

    def answer(request: httpx.Request, platform: Platform) -> httpx.Response:
        issue = json.loads(platform.record(request).content)
        body = json.dumps({**issue, "number": number}).replace('"1e308"', "1e308")
        return httpx.Response(201, content=body.encode(), headers=platform.headers())

    return answer


@pytest.mark.parametrize("number", ["1e308", -7, 0, 2**31, True, 3.0, "5", None], ids=repr)
async def test_a_201_whose_number_is_not_an_issue_number_is_settled_by_lookup(
    make_client, platform, number
):
    """A 201 saying ``{"number": 1e308}`` (or -7, a string, ...) is an unclear answer: the
    issue is looked up by its nonce and its real number kept; never a second issue."""
    platform.answers = [recorded_with_number(number)]
    result, _ = await send(make_client())
    assert (result.state, result.number) == ("queued", 1)
    assert "found after an unclear answer" in result.message
    assert len(platform.posts) == 1 and len(platform.issues) == 1
    assert result.attempts[0].message == "201 without an issue number"


async def test_a_lookup_that_lists_our_issue_without_a_number_is_unknown(make_client, platform):
    platform.answers = [recorded_with_number(-7)]
    original = platform.__call__

    def listing_with_bad_numbers(request: httpx.Request) -> httpx.Response:
        response = original(request)
        if request.method == "GET" and request.url.path == ISSUES:
            listed = [{**i, "number": 1e308} for i in json.loads(response.content)]
            return httpx.Response(200, json=listed, headers=platform.headers())
        return response

    http = httpx.AsyncClient(transport=httpx.MockTransport(listing_with_bad_numbers))
    client = IssueClient(WRITE, REPO, Secret(TOKEN), client=http, clock=platform.clock,
                         sleep=platform.clock.sleep)  # fmt: skip
    result, _ = await send(client)
    await http.aclose()
    assert result.state == "unknown" and result.number is None
    assert "not one (1e+308)" in result.message and len(platform.posts) == 1
