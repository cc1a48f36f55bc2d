"""The sandbox's GitHub-shaped issue API: bearer auth, rate limits, issues and their comments.

Under the app's ``/api`` (the write URL): ``POST|GET /repos/{owner}/{repo}/issues``,
``GET /repos/{owner}/{repo}/issues/{n}[/comments]``, ``GET /user``, ``GET /rate_limit``. Answers
carry the headers GitHub sends (rate limit, OAuth scopes, API version) and its error bodies,
and the write fault knobs turn an issue POST into any failure a client must handle.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tui.actions.issue_body import MAX_BODY_CHARS
from tui.sandbox.conditional import JSON_TYPE, etag_matches
from tui.sandbox.github_shapes import DEMO_LOGIN, stable_int, user_json
from tui.sandbox.state import SandboxIssue, SandboxState, base_url_of, pause, sandbox_of

__all__ = [
    "API_VERSION",
    "ApiContext",
    "DEMO_LOGIN",
    "DEMO_TOKEN",
    "OAUTH_SCOPES",
    "int_param",
    "paginate",
    "routes",
]

DEMO_TOKEN = "roost-demo-token"
API_VERSION = "2022-11-28"
OAUTH_SCOPES = "repo, write:discussion"
ANONYMOUS_RATE_LIMIT = 60
DOCS = "https://docs.github.com/rest"
DOC_CREATE_ISSUE = f"{DOCS}/issues/issues#create-an-issue"
DOC_LIST_ISSUES = f"{DOCS}/issues/issues#list-repository-issues"
DOC_RATE_LIMITS = f"{DOCS}/using-the-rest-api/rate-limits-for-the-rest-api"
DOC_ANONYMOUS_LIMIT = (
    "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"
)


def _json_bytes(data: Any) -> bytes:
    return json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")


def _token_of(request: Request) -> tuple[bool, str | None]:
    """(header present, token) from ``Authorization: Bearer <t>`` or ``token <t>``."""
    header = request.headers.get("authorization")
    if header is None:
        return False, None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() not in ("bearer", "token") or not token.strip():
        return True, None
    return True, token.strip()


class ApiContext:
    """Builds GitHub-shaped responses with the headers every API response carries (the REST
    routes here and the GraphQL endpoint, ``graphql_api``)."""

    def __init__(self, request: Request, state: SandboxState, *, resource: str = "core"):
        self.request = request
        self.state = state
        #: The rate-limit resource the request spends ("core" for REST, "graphql").
        self.resource = resource
        self.login: str | None = None
        self.scopes = OAUTH_SCOPES
        self._counted = False
        self._rate: tuple[int, int, int] | None = None  # limit, used, reset

    @property
    def address(self) -> str:
        """The caller's address (what GitHub counts a request without a token against)."""
        client = self.request.client
        return client.host if client is not None and client.host else "127.0.0.1"

    async def admit(
        self, *, required: bool, rate_limited: bool = True, delay: bool = True
    ) -> Response | None:
        """The prelude of every API handler: latency fault, authentication, rate limit.
        Returns the refusal to send, or None to go on."""
        if delay:
            await pause(self.state.faults.latency)
        denied = self.authenticate(required=required)
        if denied is not None or not rate_limited:
            return denied
        return self.over_limit()

    def authenticate(self, *, required: bool) -> Response | None:
        present, token = _token_of(self.request)
        if not present and not required:
            return None
        if not present:
            return self.error(401, "Requires authentication")
        login = self.state.tokens.get(token or "")
        if login is None:
            return self.error(401, "Bad credentials")
        self.login = login
        return None

    def rate(self, *, count: bool = True) -> tuple[int, int, int]:
        """(limit, used, reset) for this request's identity; the request counts once, unless
        the first call says not to (a 304 answer costs nothing, as on GitHub)."""
        if self._rate is None:
            identity = self.login or f"address:{self.address}"
            limit = self.state.rate_limit if self.login else ANONYMOUS_RATE_LIMIT
            budget = None
            if self.resource == "core":
                budget = self.state.budget(identity, limit, count=count)
            if budget is not None:
                self._rate = budget
            else:
                used, reset = self.state.rate_account(identity, count=count)
                self._rate = (limit, used, reset)
        return self._rate

    def headers(self, *, exhausted: bool = False) -> dict[str, str]:
        limit, used, reset = self.rate()
        if exhausted:
            used = max(used, limit)
        return {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(max(0, limit - used)),
            "X-RateLimit-Reset": str(reset),
            "X-RateLimit-Used": str(used),
            "X-RateLimit-Resource": self.resource,
            "X-OAuth-Scopes": self.scopes if self.login else "",
            "X-Accepted-OAuth-Scopes": "repo",
            "X-GitHub-Api-Version": self.request.headers.get("x-github-api-version", API_VERSION),
            "X-GitHub-Media-Type": "github.v3; format=json",
            "X-GitHub-Request-Id": f"ROOST:{len(self.state.requests):08X}",
        }

    def json(
        self,
        data: Any,
        status: int = 200,
        *,
        headers: dict[str, str] | None = None,
        limited: bool = False,
    ) -> Response:
        """A JSON answer. A GET carries an ETag and answers 304 to a matching
        ``If-None-Match``, so a client polling an issue or its comments pays nothing until the
        processor has acted. ``limited``: any other answer spends the caller's budget first
        (a 403 once it is spent), as on GitHub, where a 304 costs nothing."""
        body = _json_bytes(data)
        extra = dict(headers or {})
        if self.request.method == "GET" and status == 200:
            etag = f'W/"{hashlib.sha256(body).hexdigest()}"'
            extra["ETag"] = etag
            if etag_matches(self.request.headers.get("if-none-match"), etag):
                self.rate(count=False)
                return Response(status_code=304, headers={**self.headers(), **extra})
        if limited:
            refused = self.over_limit()
            if refused is not None:
                return refused
        all_headers = self.headers()
        all_headers.update(extra)
        return Response(body, status, headers=all_headers, media_type=JSON_TYPE)

    def error(
        self,
        status: int,
        message: str,
        *,
        doc: str = DOC_CREATE_ISSUE,
        errors: list[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
        exhausted: bool = False,
        with_status: bool = True,
    ) -> Response:
        body: dict[str, Any] = {"message": message}
        if errors is not None:
            body["errors"] = errors
        body["documentation_url"] = doc
        if with_status:
            body["status"] = str(status)
        all_headers = self.headers(exhausted=exhausted)
        all_headers.update(headers or {})
        return Response(_json_bytes(body), status, headers=all_headers, media_type=JSON_TYPE)

    def over_limit(self) -> Response | None:
        limit, used, _ = self.rate()
        if used <= limit:
            return None
        if self.login is None:  # GitHub's words to a caller without a token
            return self.error(
                403,
                f"API rate limit exceeded for {self.address}. (But here's the good news: "
                "Authenticated requests get a higher rate limit. Check out the documentation "
                "for more details.)",
                doc=DOC_ANONYMOUS_LIMIT,
                exhausted=True,
                with_status=False,
            )
        return self.error(
            403,
            f"API rate limit exceeded for user ID {stable_int(self.login)}.",
            doc=DOC_RATE_LIMITS,
            exhausted=True,
        )

    def known_repo(self, owner: str, repo: str) -> bool:
        return owner.lower() == self.state.owner.lower() and repo.lower() == self.state.repo.lower()


def _write_fault(api: ApiContext, status: int) -> Response:
    faults = api.state.faults
    if status == 401:
        return api.error(401, "Bad credentials")
    if status == 403:
        if faults.write_variant == "scope":
            api.scopes = "read:user"
            return api.error(403, "Resource not accessible by personal access token")
        if faults.write_variant == "secondary":
            return api.error(
                403,
                "You have exceeded a secondary rate limit. Please wait a few minutes before you "
                "try again.",
                doc=f"{DOC_RATE_LIMITS}#about-secondary-rate-limits",
                headers={"Retry-After": str(faults.retry_after)},
            )
        return api.error(
            403,
            f"API rate limit exceeded for user ID {stable_int(api.login or 'anonymous')}.",
            doc=DOC_RATE_LIMITS,
            exhausted=True,
        )
    if status == 429:
        return api.error(
            429,
            "You have exceeded a secondary rate limit. Please wait a few minutes before you "
            "try again.",
            doc=f"{DOC_RATE_LIMITS}#about-secondary-rate-limits",
            headers={"Retry-After": str(faults.retry_after)},
        )
    if status == 404:
        return api.error(404, "Not Found")
    if status == 410:
        return api.error(410, "Issues are disabled for this repo", doc=f"{DOCS}/issues")
    if status == 422:
        return api.error(
            422,
            "Validation Failed",
            errors=[
                {
                    "resource": "Issue",
                    "code": "custom",
                    "field": "body",
                    "message": "body is invalid (sandbox fault)",
                }
            ],
        )
    if status == 400:
        return api.error(400, "Problems parsing JSON")
    if status in (502, 503):
        html = f"<html><body><h1>{status} Service Unavailable</h1></body></html>"
        return Response(html, status, headers=api.headers(), media_type="text/html")
    return api.error(status, "Server Error")


# ---------------------------------------------------------------------------------------------
# endpoints


def _validate_issue_request(data: Any) -> list[dict[str, Any]]:
    if not isinstance(data, dict):
        return [{"resource": "Issue", "code": "invalid", "field": "body"}]
    errors = []
    for key in ("title", "body"):
        if key not in data or data[key] is None:
            errors.append({"resource": "Issue", "code": "missing_field", "field": key})
        elif not isinstance(data[key], str) or (key == "title" and not data[key].strip()):
            errors.append({"resource": "Issue", "code": "invalid", "field": key})
    body = data.get("body")
    if isinstance(body, str) and len(body) > MAX_BODY_CHARS:
        errors.append(
            {
                "resource": "Issue",
                "code": "custom",
                "field": "body",
                "message": f"body is too long (maximum is {MAX_BODY_CHARS} characters)",
            }
        )
    labels = data.get("labels")
    if "labels" not in data or labels is None:
        errors.append({"resource": "Issue", "code": "missing_field", "field": "labels"})
    elif not isinstance(labels, list) or not all(
        isinstance(x, str) and x.strip() and len(x) <= 50 for x in labels
    ):
        errors.append({"resource": "Issue", "code": "invalid", "field": "labels"})
    return errors


async def create_issue(request: Request) -> Response:
    state = sandbox_of(request)
    faults = state.faults
    api = ApiContext(request, state)
    refused = await api.admit(required=True)
    if refused is not None:
        return refused
    failure = faults.take_write_failure()
    if failure is not None:
        return _write_fault(api, failure)
    owner, repo = request.path_params["owner"], request.path_params["repo"]
    if not api.known_repo(owner, repo):
        return api.error(404, "Not Found")
    raw = await request.body()
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return api.error(400, "Problems parsing JSON")
    errors = _validate_issue_request(data)
    if errors:
        return api.error(422, "Validation Failed", errors=errors)
    requested = list(dict.fromkeys(data["labels"]))
    issue = state.open_issue(
        title=data["title"],
        body=data["body"],
        labels=[] if faults.drop_labels else requested,
        requested=requested,
        login=api.login or "",
    )
    payload = issue.as_github(base_url_of(request), state.owner, state.repo)
    state.process_due()
    await pause(faults.write_latency)
    return api.json(payload, 201, headers={"Location": payload["url"]})


def _parse_since(value: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def int_param(request: Request, name: str, default: int, low: int, high: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        return None
    return max(low, min(high, value))


async def list_issues(request: Request) -> Response:
    state = sandbox_of(request)
    api = ApiContext(request, state)
    refused = await api.admit(required=False)
    if refused is not None:
        return refused
    if not api.known_repo(request.path_params["owner"], request.path_params["repo"]):
        return api.error(404, "Not Found", doc=DOC_LIST_ISSUES)
    params = request.query_params
    wanted_state = params.get("state", "open")
    if wanted_state not in ("open", "closed", "all"):
        return api.error(
            422,
            "Validation Failed",
            doc=DOC_LIST_ISSUES,
            errors=[{"resource": "Issue", "code": "invalid", "field": "state"}],
        )
    since = None
    if "since" in params:
        since = _parse_since(params["since"])
        if since is None:
            return api.error(
                422,
                "Validation Failed",
                doc=DOC_LIST_ISSUES,
                errors=[{"resource": "Issue", "code": "invalid", "field": "since"}],
            )
    per_page = int_param(request, "per_page", 30, 1, 100)
    page = int_param(request, "page", 1, 1, 10_000)
    if per_page is None or page is None:
        return api.error(400, "Invalid pagination parameter", doc=DOC_LIST_ISSUES)
    creator = params.get("creator")
    labels = [x.strip() for x in params.get("labels", "").split(",") if x.strip()]
    sort = params.get("sort", "created")
    descending = params.get("direction", "desc") != "asc"

    selected = []
    for issue in state.issues:
        if wanted_state != "all" and issue.state != wanted_state:
            continue
        if creator and issue.login.lower() != creator.lower():
            continue
        if labels and not all(label in issue.labels for label in labels):
            continue
        if since is not None and _parse_since(issue.updated_at) < since:  # type: ignore[operator]
            continue
        selected.append(issue)
    key = (lambda i: (i.updated_at, i.number)) if sort == "updated" else (lambda i: i.number)
    selected.sort(key=key, reverse=descending)
    chunk, headers = paginate(request, selected, per_page, page)
    base = base_url_of(request)
    return api.json([i.as_github(base, state.owner, state.repo) for i in chunk], headers=headers)


def paginate(
    request: Request, items: list[Any], per_page: int, page: int
) -> tuple[list[Any], dict[str, str]]:
    """(the items of ``page``, the headers: GitHub's ``Link`` to the next, last, previous and
    first pages, when there are others)."""
    start = (page - 1) * per_page
    last_page = max(1, -(-len(items) // per_page))
    base, path, query = base_url_of(request), request.url.path, dict(request.query_params)

    def link(number: int, rel: str) -> str:
        return f'<{base}{path}?{urlencode({**query, "page": number})}>; rel="{rel}"'

    links = []
    if page < last_page:
        links += [link(page + 1, "next"), link(last_page, "last")]
    if page > 1:
        links += [link(page - 1, "prev"), link(1, "first")]
    return items[start : start + per_page], ({"Link": ", ".join(links)} if links else {})


def _find_issue(request: Request, api: ApiContext, state: SandboxState) -> SandboxIssue | None:
    """The issue the path names, or None when the repo or the number is unknown."""
    params = request.path_params
    if not api.known_repo(params["owner"], params["repo"]):
        return None
    return state.issue(params["number"]) or None


async def _named_issue(
    request: Request, doc: str
) -> tuple[ApiContext, SandboxState, SandboxIssue] | Response:
    """The prelude of the per-issue endpoints: the API context and the issue, or the refusal."""
    state = sandbox_of(request)
    api = ApiContext(request, state)
    refused = await api.admit(required=False, rate_limited=False)
    if refused is not None:
        return refused
    issue = _find_issue(request, api, state)
    if issue is None:
        return api.error(404, "Not Found", doc=doc)
    return api, state, issue


async def get_issue(request: Request) -> Response:
    found = await _named_issue(request, f"{DOCS}/issues/issues#get-an-issue")
    if isinstance(found, Response):
        return found
    api, state, issue = found
    return api.json(issue.as_github(base_url_of(request), state.owner, state.repo))


async def issue_comments(request: Request) -> Response:
    found = await _named_issue(request, f"{DOCS}/issues/comments")
    if isinstance(found, Response):
        return found
    api, state, issue = found
    return api.json(issue.comments_as_github(base_url_of(request), state.owner, state.repo))


async def current_user(request: Request) -> Response:
    state = sandbox_of(request)
    api = ApiContext(request, state)
    refused = await api.admit(required=True)
    if refused is not None:
        return refused
    return api.json(user_json(api.login or "", base_url_of(request)))


async def rate_limit(request: Request) -> Response:
    state = sandbox_of(request)
    api = ApiContext(request, state)
    refused = await api.admit(required=False, rate_limited=False, delay=False)
    if refused is not None:
        return refused
    limit, used, reset = api.rate()
    core = {"limit": limit, "used": used, "remaining": max(0, limit - used), "reset": reset}
    return api.json({"resources": {"core": core}, "rate": core})


async def api_not_found(request: Request) -> Response:
    api = ApiContext(request, sandbox_of(request))
    return api.error(404, "Not Found", doc=DOCS)


def routes(prefix: str = "/api") -> list[Route]:
    """The API's routes under ``prefix`` (the write URL's path)."""
    issues = prefix + "/repos/{owner}/{repo}/issues"
    return [
        Route(issues, create_issue, methods=["POST"]),
        Route(issues, list_issues, methods=["GET"]),
        Route(issues + "/{number:int}", get_issue, methods=["GET"]),
        Route(issues + "/{number:int}/comments", issue_comments, methods=["GET"]),
        Route(prefix + "/user", current_user, methods=["GET"]),
        Route(prefix + "/rate_limit", rate_limit, methods=["GET"]),
        Route(
            prefix + "/{rest:path}",
            api_not_found,
            methods=["GET", "POST", "PATCH", "PUT", "DELETE"],
        ),
    ]
