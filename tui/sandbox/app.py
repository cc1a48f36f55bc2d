"""The demo network as a Starlette app: read interface, GitHub-shaped issue API, fault knobs.

URL layout, relative to the app's base URL (``http://127.0.0.1:<port>`` or an ASGI base URL):

* read_url  = base          ``GET /state/<file>`` (ETag / If-None-Match, manifest included)
* write_url = base + /api   ``POST|GET /api/repos/{owner}/{repo}/issues``,
                            ``GET /api/repos/{owner}/{repo}/issues/{n}[/comments]``,
                            ``GET /api/user``, ``GET /api/rate_limit``
* hub_url   = base + /hub   (the demo hub, ``tui.sandbox.hub``, unless another is given)
* control                   ``GET|POST|DELETE /_sandbox/faults``, ``POST /_sandbox/process``,
                            ``POST /_sandbox/apply``, ``GET /_sandbox/issues``

Issues are processed as GitHub's real workflow would, only at once: the body is parsed with
``parse_issue_body``, the actor is the token's user, and the processor applies the action to
the state, so the next manifest fetch shows the change. An issue whose labels were dropped
(no push access) carries no action label and is left open, unprocessed — as on the real service.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tui.actions.catalog import action_label
from tui.actions.issue_body import MAX_BODY_CHARS, IssueBodyError, parse_issue_body
from tui.sandbox.faults import (
    Faults,
    FaultsError,
    corrupt_same_size,
    malformed_bytes,
    schema_invalid_bytes,
)
from tui.sandbox.generator import DEFAULT_EPOCH, MANIFEST_FILE, build_manifest, iso
from tui.sandbox.hub import create_hub
from tui.sandbox.network import DemoNetwork
from tui.sandbox.processor import ActionRejected

__all__ = [
    "API_VERSION",
    "DEMO_LOGIN",
    "DEMO_TOKEN",
    "OAUTH_SCOPES",
    "RequestRecord",
    "SandboxIssue",
    "SandboxState",
    "create_app",
]

DEMO_TOKEN = "roost-demo-token"
DEMO_LOGIN = "demo-agent"
API_VERSION = "2022-11-28"
OAUTH_SCOPES = "repo, write:discussion"
RATE_LIMIT = 5000
ANONYMOUS_RATE_LIMIT = 60
DOCS = "https://docs.github.com/rest"
DOC_CREATE_ISSUE = f"{DOCS}/issues/issues#create-an-issue"
DOC_LIST_ISSUES = f"{DOCS}/issues/issues#list-repository-issues"
DOC_RATE_LIMITS = f"{DOCS}/using-the-rest-api/rate-limits-for-the-rest-api"
LOG_LIMIT = 10_000
JSON_TYPE = "application/json; charset=utf-8"


# ---------------------------------------------------------------------------------------------
# state


@dataclass(frozen=True)
class RequestRecord:
    """One request the sandbox answered. Unpacks as ``(method, path, status, body)`` where body
    is the *request* body; the rest is kept for finer assertions."""

    method: str
    path: str
    status: int
    body: bytes
    query: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    response_bytes: int = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter((self.method, self.path, self.status, self.body))

    def header(self, name: str) -> str | None:
        name = name.lower()
        return next((v for k, v in self.headers if k == name), None)


@dataclass
class SandboxIssue:
    """An issue as the sandbox keeps it (rendered in GitHub's shape by ``as_github``)."""

    number: int
    title: str
    body: str
    labels: list[str]
    requested_labels: list[str]
    login: str
    created_at: str
    updated_at: str
    state: str = "open"
    state_reason: str | None = None
    closed_at: str | None = None
    comments: list[dict[str, Any]] = field(default_factory=list)
    processed: bool = False
    #: "applied", "rejected" or "ignored" once processed; ``reason`` explains a rejection.
    result: str | None = None
    reason: str | None = None
    changed_files: list[str] = field(default_factory=list)

    @property
    def id(self) -> int:
        return 3_000_000_000 + self.number

    def as_github(self, base: str, owner: str, repo: str) -> dict[str, Any]:
        api = f"{base}/api/repos/{owner}/{repo}"
        return {
            "url": f"{api}/issues/{self.number}",
            "repository_url": api,
            "labels_url": f"{api}/issues/{self.number}/labels{{/name}}",
            "comments_url": f"{api}/issues/{self.number}/comments",
            "events_url": f"{api}/issues/{self.number}/events",
            "html_url": f"{base}/{owner}/{repo}/issues/{self.number}",
            "id": self.id,
            "node_id": f"I_kwROOST{self.number:08d}",
            "number": self.number,
            "title": self.title,
            "user": _user(self.login, base),
            "labels": [_label(name, api) for name in self.labels],
            "state": self.state,
            "state_reason": self.state_reason,
            "locked": False,
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "comments": len(self.comments),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "closed_at": self.closed_at,
            "author_association": "NONE",
            "active_lock_reason": None,
            "body": self.body,
        }


def _stable_int(text: str, modulo: int = 90_000_000) -> int:
    return 10_000_000 + int(hashlib.sha256(text.encode()).hexdigest()[:12], 16) % modulo


def _user(login: str, base: str) -> dict[str, Any]:
    return {
        "login": login,
        "id": _stable_int(login),
        "node_id": f"U_kgROOST{_stable_int(login)}",
        "avatar_url": f"{base}/avatars/{login}.png",
        "html_url": f"{base}/{login}",
        "type": "User",
        "site_admin": False,
    }


def _label(name: str, api: str) -> dict[str, Any]:
    digest = hashlib.sha256(name.encode()).hexdigest()
    return {
        "id": _stable_int("label:" + name),
        "node_id": f"LA_kwROOST{digest[:10]}",
        "url": f"{api}/labels/{name}",
        "name": name,
        "color": digest[:6],
        "default": False,
        "description": None,
    }


@dataclass
class SandboxState:
    """Everything the app keeps: ``app.state.sandbox``."""

    network: DemoNetwork
    faults: Faults
    tokens: dict[str, str]
    owner: str
    repo: str
    auto_process: bool
    clock: Callable[[], datetime]
    issues: list[SandboxIssue] = field(default_factory=list)
    requests: list[RequestRecord] = field(default_factory=list)
    #: Primary rate limit per authenticated user and hour (GitHub's is 5000).
    rate_limit: int = RATE_LIMIT
    _rate: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def request_log(self) -> list[RequestRecord]:
        return self.requests

    @property
    def repo_full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    def clear_log(self) -> None:
        self.requests.clear()

    def paths(self, method: str | None = None) -> list[str]:
        """Paths requested so far (optionally only one method), in order."""
        return [r.path for r in self.requests if method is None or r.method == method]

    def log(self, record: RequestRecord) -> None:
        self.requests.append(record)
        if len(self.requests) > LOG_LIMIT:
            del self.requests[: len(self.requests) - LOG_LIMIT]

    def issue(self, number: int) -> SandboxIssue | None:
        return next((i for i in self.issues if i.number == number), None)

    # -- rate limit ----------------------------------------------------------------------------

    def rate_account(self, identity: str, *, count: bool = True) -> tuple[int, int]:
        """(used, reset epoch seconds) for ``identity`` in the current hour window."""
        now = int(self.clock().timestamp())
        window = now - now % 3600
        start, used = self._rate.get(identity, (window, 0))
        if start != window:
            start, used = window, 0
        if count:
            used += 1
        self._rate[identity] = (start, used)
        return used, start + 3600

    # -- processing ----------------------------------------------------------------------------

    def process(self, issue: SandboxIssue) -> SandboxIssue:
        """Apply one open issue's action to the network, closing the issue with the outcome."""
        if issue.processed:
            return issue
        now = self.clock()
        stamp = iso(now)
        issue.processed = True
        try:
            parsed = parse_issue_body(issue.body)
            if parsed.action != issue.title:
                raise ActionRejected(
                    f"the title {issue.title!r} does not name the action {parsed.action!r}"
                )
            if action_label(parsed.action) not in issue.labels:
                raise ActionRejected(f"the issue lacks the label {action_label(parsed.action)!r}")
            changed = self.network.apply(parsed.action, parsed.payload, issue.login, now)
        except (IssueBodyError, ActionRejected) as exc:
            reason = exc.reason if isinstance(exc, ActionRejected) else str(exc)
            issue.result, issue.reason = "rejected", reason
            issue.state, issue.state_reason = "closed", "not_planned"
            issue.comments.append(self._comment(issue, f"Rejected: {reason}", stamp))
        else:
            issue.result, issue.changed_files = "applied", sorted(changed)
            issue.state, issue.state_reason = "closed", "completed"
            issue.comments.append(
                self._comment(
                    issue, f"Applied {parsed.action}: {', '.join(sorted(changed))}", stamp
                )
            )
        issue.closed_at = issue.updated_at = stamp
        return issue

    def process_pending(self) -> list[SandboxIssue]:
        """Process every open issue that carries an action label; returns the processed ones."""
        done = []
        for issue in self.issues:
            if issue.processed or issue.state != "open":
                continue
            if not issue.labels:
                continue  # the processor only sees labelled issues
            done.append(self.process(issue))
        return done

    def _comment(self, issue: SandboxIssue, body: str, stamp: str) -> dict[str, Any]:
        return {
            "id": _stable_int(f"comment:{issue.number}:{len(issue.comments)}"),
            "user_login": "roost-processor[bot]",
            "body": body,
            "created_at": stamp,
            "updated_at": stamp,
        }


# ---------------------------------------------------------------------------------------------
# request log middleware


class _RequestLogMiddleware:
    def __init__(self, app: ASGIApp, get_state: Callable[[], SandboxState]):
        self.app = app
        self.get_state = get_state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/_sandbox"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        status = 0
        size = 0

        async def logging_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                chunks.append(message.get("body", b""))
            return message

        async def logging_send(message: Message) -> None:
            nonlocal status, size
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                size += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, logging_receive, logging_send)
        finally:
            headers = tuple(
                (
                    k.decode("latin-1").lower(),
                    "<redacted>" if k.lower() == b"authorization" else v.decode("latin-1"),
                )
                for k, v in scope.get("headers", [])
            )
            self.get_state().log(
                RequestRecord(
                    method=scope["method"],
                    path=scope["path"],
                    status=status,
                    body=b"".join(chunks),
                    query=scope.get("query_string", b"").decode("latin-1"),
                    headers=headers,
                    response_bytes=size,
                )
            )


# ---------------------------------------------------------------------------------------------
# helpers


def _sandbox(request: Request) -> SandboxState:
    return request.app.state.sandbox


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


async def _delay(seconds: float) -> None:
    if seconds > 0:
        await asyncio.sleep(seconds)


def _json_bytes(data: Any) -> bytes:
    return json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    if header.strip() == "*":
        return True
    bare = etag.strip('"')
    for candidate in header.split(","):
        candidate = candidate.strip()
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        if candidate.strip('"') == bare:
            return True
    return False


def _token_of(request: Request) -> tuple[bool, str | None]:
    """(header present, token) from ``Authorization: Bearer <t>`` or ``token <t>``."""
    header = request.headers.get("authorization")
    if header is None:
        return False, None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() not in ("bearer", "token") or not token.strip():
        return True, None
    return True, token.strip()


class _Api:
    """Builds GitHub-shaped responses with the headers every API response carries."""

    def __init__(self, request: Request, state: SandboxState):
        self.request = request
        self.state = state
        self.login: str | None = None
        self.scopes = OAUTH_SCOPES
        self._counted = False
        self._rate: tuple[int, int, int] | None = None  # limit, used, reset

    async def admit(
        self, *, required: bool, rate_limited: bool = True, delay: bool = True
    ) -> Response | None:
        """The prelude of every API handler: latency fault, authentication, rate limit.
        Returns the refusal to send, or None to go on."""
        if delay:
            await _delay(self.state.faults.latency)
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

    def rate(self) -> tuple[int, int, int]:
        if self._rate is None:
            identity = self.login or "anonymous"
            limit = self.state.rate_limit if self.login else ANONYMOUS_RATE_LIMIT
            used, reset = self.state.rate_account(identity)
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
            "X-RateLimit-Resource": "core",
            "X-OAuth-Scopes": self.scopes if self.login else "",
            "X-Accepted-OAuth-Scopes": "repo",
            "X-GitHub-Api-Version": self.request.headers.get("x-github-api-version", API_VERSION),
            "X-GitHub-Media-Type": "github.v3; format=json",
            "X-GitHub-Request-Id": f"ROOST:{len(self.state.requests):08X}",
        }

    def json(
        self, data: Any, status: int = 200, *, headers: dict[str, str] | None = None
    ) -> Response:
        all_headers = self.headers()
        all_headers.update(headers or {})
        return Response(_json_bytes(data), status, headers=all_headers, media_type=JSON_TYPE)

    def error(
        self,
        status: int,
        message: str,
        *,
        doc: str = DOC_CREATE_ISSUE,
        errors: list[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
        exhausted: bool = False,
    ) -> Response:
        body: dict[str, Any] = {"message": message}
        if errors is not None:
            body["errors"] = errors
        body["documentation_url"] = doc
        body["status"] = str(status)
        all_headers = self.headers(exhausted=exhausted)
        all_headers.update(headers or {})
        return Response(_json_bytes(body), status, headers=all_headers, media_type=JSON_TYPE)

    def over_limit(self) -> Response | None:
        limit, used, _ = self.rate()
        if used > limit:
            return self.error(
                403,
                f"API rate limit exceeded for user ID {_stable_int(self.login or 'anonymous')}.",
                doc=DOC_RATE_LIMITS,
                exhausted=True,
            )
        return None

    def known_repo(self, owner: str, repo: str) -> bool:
        return owner.lower() == self.state.owner.lower() and repo.lower() == self.state.repo.lower()


def _write_fault(api: _Api, status: int) -> Response:
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
            f"API rate limit exceeded for user ID {_stable_int(api.login or 'anonymous')}.",
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
# read interface


def _served(state: SandboxState, name: str) -> tuple[bytes, str] | None:
    """The bytes (and their hash) the read interface serves for ``name`` under the
    persistent faults (malformed / schema-invalid files, and the manifest that lists them)."""
    faults = state.faults
    broken = {n for n in faults.malformed | faults.schema_invalid if n != MANIFEST_FILE}
    if not broken:
        return state.network.entry(name)
    files, _ = state.network.snapshot()
    for file_name in broken:
        if file_name in files:
            if file_name in faults.malformed:
                files[file_name] = malformed_bytes(files[file_name])
            else:
                files[file_name] = schema_invalid_bytes(files[file_name])
    if name == MANIFEST_FILE:
        data = build_manifest(files, state.network.generated_at)
    elif name in files:
        data = files[name]
    else:
        return None
    return data, hashlib.sha256(data).hexdigest()


async def state_file(request: Request) -> Response:
    state = _sandbox(request)
    faults = state.faults
    name = request.path_params["file"]
    await _delay(faults.latency)
    failure = faults.take_read_failure()
    if failure is not None:
        return JSONResponse({"message": f"sandbox fault: {failure}"}, failure)
    if name == MANIFEST_FILE and faults.no_manifest:
        return JSONResponse({"message": "Not Found"}, 404)
    entry = _served(state, name)
    if entry is None:
        return JSONResponse({"message": "Not Found"}, 404)
    data, digest = entry
    mismatch = name != MANIFEST_FILE and faults.mismatch.get(name, 0) != 0
    if mismatch:
        data = corrupt_same_size(data)
        digest = hashlib.sha256(data).hexdigest()
    etag = f'"{digest}"'
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if _etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    if mismatch:
        faults.take_mismatch(name)
    if faults.take_truncate(name):
        data = data[: len(data) // 2]
    return Response(data, 200, headers=headers, media_type=JSON_TYPE)


# ---------------------------------------------------------------------------------------------
# issue API


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
    state = _sandbox(request)
    faults = state.faults
    api = _Api(request, state)
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
    stamp = iso(state.clock())
    requested = list(dict.fromkeys(data["labels"]))
    number = (state.issues[-1].number if state.issues else 0) + 1
    issue = SandboxIssue(
        number=number,
        title=data["title"],
        body=data["body"],
        labels=[] if faults.drop_labels else requested,
        requested_labels=requested,
        login=api.login or "",
        created_at=stamp,
        updated_at=stamp,
    )
    state.issues.append(issue)
    base = _base(request)
    payload = issue.as_github(base, state.owner, state.repo)
    if state.auto_process and issue.labels:
        state.process(issue)
    await _delay(faults.write_latency)
    return api.json(payload, 201, headers={"Location": payload["url"]})


def _parse_since(value: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        return None
    return max(low, min(high, value))


async def list_issues(request: Request) -> Response:
    state = _sandbox(request)
    api = _Api(request, state)
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
    per_page = _int_param(request, "per_page", 30, 1, 100)
    page = _int_param(request, "page", 1, 1, 10_000)
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
    start = (page - 1) * per_page
    chunk = selected[start : start + per_page]
    base = _base(request)
    headers: dict[str, str] = {}
    last_page = max(1, -(-len(selected) // per_page))
    links = []
    query = dict(params)
    if page < last_page:
        links.append(
            f'<{base}{request.url.path}?{urlencode({**query, "page": page + 1})}>; rel="next"'
        )
        links.append(
            f'<{base}{request.url.path}?{urlencode({**query, "page": last_page})}>; rel="last"'
        )
    if page > 1:
        links.append(
            f'<{base}{request.url.path}?{urlencode({**query, "page": page - 1})}>; rel="prev"'
        )
        links.append(f'<{base}{request.url.path}?{urlencode({**query, "page": 1})}>; rel="first"')
    if links:
        headers["Link"] = ", ".join(links)
    return api.json([i.as_github(base, state.owner, state.repo) for i in chunk], headers=headers)


def _find_issue(request: Request, api: _Api, state: SandboxState) -> SandboxIssue | None:
    """The issue the path names, or None when the repo or the number is unknown."""
    params = request.path_params
    if not api.known_repo(params["owner"], params["repo"]):
        return None
    return state.issue(params["number"]) or None


async def get_issue(request: Request) -> Response:
    state = _sandbox(request)
    api = _Api(request, state)
    refused = await api.admit(required=False, rate_limited=False)
    if refused is not None:
        return refused
    issue = _find_issue(request, api, state)
    if issue is None:
        return api.error(404, "Not Found", doc=f"{DOCS}/issues/issues#get-an-issue")
    return api.json(issue.as_github(_base(request), state.owner, state.repo))


async def issue_comments(request: Request) -> Response:
    state = _sandbox(request)
    api = _Api(request, state)
    refused = await api.admit(required=False, rate_limited=False)
    if refused is not None:
        return refused
    issue = _find_issue(request, api, state)
    if issue is None:
        return api.error(404, "Not Found", doc=f"{DOCS}/issues/comments")
    base = _base(request)
    api_base = f"{base}/api/repos/{state.owner}/{state.repo}"
    comments = [
        {
            "id": c["id"],
            "url": f"{api_base}/issues/comments/{c['id']}",
            "html_url": f"{base}/{state.owner}/{state.repo}/issues/{issue.number}#issuecomment-{c['id']}",
            "issue_url": f"{api_base}/issues/{issue.number}",
            "user": {**_user(c["user_login"], base), "type": "Bot"},
            "body": c["body"],
            "created_at": c["created_at"],
            "updated_at": c["updated_at"],
            "author_association": "NONE",
        }
        for c in issue.comments
    ]
    return api.json(comments)


async def current_user(request: Request) -> Response:
    state = _sandbox(request)
    api = _Api(request, state)
    refused = await api.admit(required=True)
    if refused is not None:
        return refused
    return api.json(_user(api.login or "", _base(request)))


async def rate_limit(request: Request) -> Response:
    state = _sandbox(request)
    api = _Api(request, state)
    refused = await api.admit(required=False, rate_limited=False, delay=False)
    if refused is not None:
        return refused
    limit, used, reset = api.rate()
    core = {"limit": limit, "used": used, "remaining": max(0, limit - used), "reset": reset}
    return api.json({"resources": {"core": core}, "rate": core})


async def api_not_found(request: Request) -> Response:
    api = _Api(request, _sandbox(request))
    return api.error(404, "Not Found", doc=DOCS)


# ---------------------------------------------------------------------------------------------
# control endpoints


def _issue_summary(issue: SandboxIssue) -> dict[str, Any]:
    return {
        "number": issue.number,
        "title": issue.title,
        "login": issue.login,
        "labels": issue.labels,
        "state": issue.state,
        "state_reason": issue.state_reason,
        "result": issue.result,
        "reason": issue.reason,
        "changed_files": issue.changed_files,
    }


async def faults_endpoint(request: Request) -> Response:
    faults = _sandbox(request).faults
    if request.method == "POST":
        try:
            changes = json.loads(await request.body() or b"{}")
            faults.update(changes)
        except (ValueError, FaultsError) as exc:
            return JSONResponse({"message": str(exc)}, 400)
    elif request.method == "DELETE":
        faults.reset()
    return JSONResponse(faults.as_dict())


async def process_endpoint(request: Request) -> Response:
    done = _sandbox(request).process_pending()
    return JSONResponse({"processed": [_issue_summary(i) for i in done]})


async def apply_endpoint(request: Request) -> Response:
    """Apply an action directly as any agent (``{"action", "payload", "actor"}``): lets tests
    and demos make "someone else" change the network between two refreshes."""
    state = _sandbox(request)
    try:
        data = json.loads(await request.body())
        action, payload, actor = data["action"], data.get("payload", {}), data["actor"]
        if not isinstance(actor, str) or not isinstance(payload, dict):
            raise TypeError("actor must be a string and payload an object")
    except (ValueError, KeyError, TypeError) as exc:
        return JSONResponse({"message": f"bad request: {exc}"}, 400)
    try:
        changed = state.network.apply(action, payload, actor, state.clock())
    except ActionRejected as exc:
        return JSONResponse({"result": "rejected", "reason": exc.reason}, 409)
    return JSONResponse({"result": "applied", "changed_files": sorted(changed)})


async def issues_endpoint(request: Request) -> Response:
    return JSONResponse([_issue_summary(i) for i in _sandbox(request).issues])


# ---------------------------------------------------------------------------------------------
# the app


def _wall_clock() -> datetime:
    return datetime.now(UTC)


def create_app(
    network: DemoNetwork | None = None,
    *,
    seed: int = 7,
    agents: int = 300,
    epoch: datetime = DEFAULT_EPOCH,
    tokens: dict[str, str] | None = None,
    owner: str = "roost-demo",
    repo: str = "network",
    auto_process: bool = True,
    faults: Faults | None = None,
    clock: Callable[[], datetime] | None = None,
    hub: ASGIApp | None = None,
) -> Starlette:
    """The sandbox app. ``app.state.sandbox`` is its ``SandboxState``.

    ``tokens`` maps bearer tokens to logins (default ``{DEMO_TOKEN: "demo-agent"}``); ``clock``
    gives issue and action timestamps (default: the wall clock, so clients can list their
    issues ``since`` a moment they measured); ``hub`` is mounted at ``/hub``.
    """
    if network is None:
        network = DemoNetwork.generate(seed=seed, agents=agents, epoch=epoch)
    state = SandboxState(
        network=network,
        faults=faults or Faults(),
        tokens=dict(tokens) if tokens is not None else {DEMO_TOKEN: DEMO_LOGIN},
        owner=owner,
        repo=repo,
        auto_process=auto_process,
        clock=clock or _wall_clock,
    )
    api = "/api/repos/{owner}/{repo}/issues"
    routes: list[Route | Mount] = [
        Route("/state/{file:path}", state_file, methods=["GET"]),
        Route(api, create_issue, methods=["POST"]),
        Route(api, list_issues, methods=["GET"]),
        Route(api + "/{number:int}", get_issue, methods=["GET"]),
        Route(api + "/{number:int}/comments", issue_comments, methods=["GET"]),
        Route("/api/user", current_user, methods=["GET"]),
        Route("/api/rate_limit", rate_limit, methods=["GET"]),
        Route("/api/{rest:path}", api_not_found, methods=["GET", "POST", "PATCH", "PUT", "DELETE"]),
        Route("/_sandbox/faults", faults_endpoint, methods=["GET", "POST", "DELETE"]),
        Route("/_sandbox/process", process_endpoint, methods=["POST"]),
        Route("/_sandbox/apply", apply_endpoint, methods=["POST"]),
        Route("/_sandbox/issues", issues_endpoint, methods=["GET"]),
    ]
    routes.append(Mount("/hub", app=hub if hub is not None else create_hub()))
    app = Starlette(routes=routes)
    app.state.sandbox = state
    app.add_middleware(_RequestLogMiddleware, get_state=lambda: state)
    return app
