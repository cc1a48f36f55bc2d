"""The GitHub-shaped issue client: one action = one ``POST /repos/{owner}/{repo}/issues``.

Every answer maps to one :class:`SendResult` with a message a person understands (ARCHITECTURE.md,
the write side). GitHub has no idempotency key, so an unclear answer (5xx, a reset connection, a
timeout) is never simply resent: the client first lists the user's recent issues and looks for the
action's nonce; only when the platform shows no such issue is the request sent again (at most
:data:`MAX_TRIES` sends). Creates go out one at a time, at least :data:`CREATE_GAP_S` apart;
``Retry-After`` and an exhausted primary limit (``X-RateLimit-Reset``) are waited out with an
injectable clock and sleep, so tests run on a fake clock.

The token is attached only to requests for the write URL's origin, redirects are never
followed, and no message, exception or log line carries it.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import asyncio
import json as _json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypeGuard

import httpx

from tui import __version__
from tui.actions.issue_body import IssueBodyError, IssueRequest, parse_issue_body
from tui.actions.token import TokenError, check_write_url, same_origin
from tui.config import Secret
from tui.errors import RoostError
from tui.network.fetch import FetchError, Reply, Unreachable, exchange, header_token
from tui.untrusted import clean_line

__all__ = [
    "CREATE_GAP_S",
    "MAX_TRIES",
    "NEEDED_SCOPES",
    "NO_TOKEN",
    "REQUEST_TIMEOUT_S",
    "Attempt",
    "FoundIssue",
    "IssueClient",
    "MAX_ISSUE_NUMBER",
    "LookupFailed",
    "Outcome",
    "PlatformUnreachable",
    "SendResult",
    "Whoami",
    "is_issue_number",
]

API_VERSION = "2022-11-28"
ACCEPT = "application/vnd.github+json"
#: Whole-request deadline (connect, send, answer).
REQUEST_TIMEOUT_S = 30.0
#: Connecting may take this long (part of the whole-request deadline).
CONNECT_TIMEOUT_S = 10.0
#: The most of one decoded reply read (a page of 30 issues with long bodies is ~2 MiB).
REPLY_CAP = 8 << 20
#: Sends of one action before giving up on unclear answers.
MAX_TRIES = 3
#: Secondary limits: content-creating requests go out one at a time, this far apart at least.
CREATE_GAP_S = 1.0
#: Longest single rate-limit wait roost sits through before reporting "try later".
MAX_WAIT_S = 900.0
#: Rate-limit waits sat through for one action before they count as tries.
MAX_WAITS = 5
#: Pause before the second and third send after an unclear answer with nothing recorded.
BACKOFF_S = (2.0, 5.0)
#: Classic-token scopes an action needs.
NEEDED_SCOPES = ("repo", "write:discussion")
#: Pages of the user's recent issues searched for a nonce.
LOOKUP_PAGES = 3

State = Literal["queued", "applied", "failed", "unknown"]
#: What one answer to a content-creating request means for the send loop.
Outcome = Literal["done", "again", "unclear"]
#: What a send without any token says.
NO_TOKEN = (
    "no token: set ROOST_TOKEN (or RAPPTERBOOK_TOKEN, DISCUSSIONS_TOKEN, GH_TOKEN, GITHUB_TOKEN, "
    "the config's token, or log in with gh)"
)


@dataclass(frozen=True)
class Attempt:
    """One exchange with the platform, kept in the outbox entry (no headers, no token)."""

    at: float
    kind: str  # "create", "lookup", "wait"
    status: int | None
    message: str

    def as_json(self) -> dict[str, Any]:
        return {"at": self.at, "kind": self.kind, "status": self.status, "message": self.message}


@dataclass
class SendResult:
    """Where one action ended: queued (with its issue), failed (and whether a retry is safe) or
    unknown (the platform may hold it; the next step is a lookup, never a blind resend)."""

    state: State
    message: str
    number: int | None = None
    html_url: str | None = None
    api_url: str | None = None
    author: str | None = None
    #: When the platform says it created the issue (or Discussion).
    created_at: str | None = None
    #: The GraphQL node id of what was made (a Discussion comment), or reacted to.
    node_id: str | None = None
    retry_safe: bool = False
    unreachable: bool = False
    #: Some send got no clear answer: the platform may hold the issue even when not found yet.
    unclear: bool = False
    notices: list[str] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)


@dataclass(frozen=True)
class FoundIssue:
    """An issue of the user's that carries a given nonce."""

    number: int
    html_url: str | None
    api_url: str | None
    author: str | None
    labels: tuple[str, ...]
    created_at: str | None = None


@dataclass(frozen=True)
class Whoami:
    """Who the token acts as. ``scopes`` is None for a fine-grained token (no header)."""

    login: str
    scopes: tuple[str, ...] | None

    def describe(self, repo: str | None = None) -> str:
        if self.scopes is None:
            where = repo or "OWNER/REPO"
            return f"fine-grained token: needs Issues: write on {where}"
        missing = [s for s in NEEDED_SCOPES if s not in self.scopes]
        shown = ", ".join(self.scopes) or "none"
        return f"scopes: {shown}" + (f" (missing: {', '.join(missing)})" if missing else "")


#: The largest issue or Discussion number taken as one (GitHub's are 32-bit integers).
MAX_ISSUE_NUMBER = 2**31 - 1


def is_issue_number(value: Any) -> TypeGuard[int]:
    """Whether the platform's ``number`` is one: a whole number from 1 to
    :data:`MAX_ISSUE_NUMBER` (not a bool, not a float such as ``1e308``, not a string). Any
    other answer is unclear, and the send is settled by a lookup."""
    return type(value) is int and 1 <= value <= MAX_ISSUE_NUMBER


class LookupFailed(RoostError):
    """The user's issues could not be listed, so whether an action was recorded is unknown."""


class PlatformUnreachable(LookupFailed):
    """No connection to the write URL could be made (nothing was asked)."""


def _platform_message(response: Reply) -> str:
    try:
        data = response.json()
    except ValueError:
        return ""
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return clean_line(data["message"], 200)
    return ""


def _field_errors(response: Reply) -> list[str]:
    """The platform's ``errors[]`` of a 422, one readable line per field."""
    try:
        errors = response.json().get("errors")
    except (ValueError, AttributeError):
        return []
    lines = []
    for error in errors if isinstance(errors, list) else []:
        if isinstance(error, str):
            lines.append(clean_line(error, 200))
            continue
        if not isinstance(error, dict):
            continue
        name = clean_line(error.get("field") or error.get("resource") or "request", 60)
        text = error.get("message") or {
            "missing_field": "is missing",
            "missing": "does not exist",
            "invalid": "is invalid",
            "already_exists": "already exists",
            "unprocessable": "could not be processed",
        }.get(str(error.get("code")), str(error.get("code") or "is invalid"))
        lines.append(f"{name}: {clean_line(text, 200)}")
    return lines


def _scopes(response: Reply) -> tuple[str, ...] | None:
    header = response.headers.get("x-oauth-scopes")
    if header is None:
        return None
    return tuple(s.strip() for s in header.split(",") if s.strip())


def _header_int(response: Reply, name: str) -> int | None:
    try:
        return int(response.headers.get(name, ""))
    except ValueError:
        return None


def _label_names(labels: Any) -> tuple[str, ...]:
    names = []
    for label in labels if isinstance(labels, list) else []:
        name = label.get("name") if isinstance(label, dict) else label
        if isinstance(name, str):
            names.append(name)
    return tuple(names)


def _found(issue: dict[str, Any]) -> FoundIssue:
    """The issue as found; ``LookupFailed`` when its number is not one (a found issue must say
    where it is)."""
    if not is_issue_number(issue.get("number")):
        raise LookupFailed(
            f"the platform answered an issue number that is not one "
            f"({clean_line(str(issue.get('number')), 24)})"
        )
    user = issue.get("user")
    return FoundIssue(
        number=issue["number"],
        html_url=issue.get("html_url") if isinstance(issue.get("html_url"), str) else None,
        api_url=issue.get("url") if isinstance(issue.get("url"), str) else None,
        author=user.get("login") if isinstance(user, dict) else None,
        labels=_label_names(issue.get("labels")),
        created_at=issue.get("created_at") if isinstance(issue.get("created_at"), str) else None,
    )


class _Unclear(Exception):
    """The request may or may not have reached the platform."""


class IssueClient:
    """Sends action issues to one repository and reads them back.

    ``client`` may be shared with the read side: the token is a per-request header here, never
    a client default. ``clock`` (epoch seconds) and ``sleep`` drive every wait; ``on_wait``
    hears each wait (seconds, reason) so a front end can show a countdown.
    """

    def __init__(
        self,
        write_url: str,
        repo: str,
        token: Secret | None,
        *,
        client: httpx.AsyncClient | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        on_wait: Callable[[float, str], None] | None = None,
        timeout_s: float = REQUEST_TIMEOUT_S,
        max_wait_s: float = MAX_WAIT_S,
        in_process: bool = False,
    ):
        self.write_url = check_write_url(write_url, in_process=in_process)
        if not repo or repo.count("/") != 1:
            raise TokenError(f"the repository must look like OWNER/NAME, not {repo!r}")
        self.repo = repo
        self._token = token
        self._own_client = client is None
        self._client = client or httpx.AsyncClient(follow_redirects=False)
        self.clock = clock
        self.sleep = sleep
        self.on_wait = on_wait
        self.timeout_s = timeout_s
        self.max_wait_s = max_wait_s
        self._last_create: float | None = None
        self._create_lock = asyncio.Lock()
        self._whoami: Whoami | None = None

    @property
    def known_login(self) -> str | None:
        """The token's login once :meth:`whoami` has answered (asks nothing)."""
        return self._whoami.login if self._whoami is not None else None

    @property
    def has_token(self) -> bool:
        return bool(self._token)

    def set_token(self, token: Secret) -> None:
        """Use ``token`` from now on (typed in the TUI); who it acts as is asked again."""
        self._token = token
        self._whoami = None

    async def aclose(self) -> None:
        if self._own_client:
            await self._client.aclose()

    # -- requests ------------------------------------------------------------------------------

    @property
    def issues_url(self) -> str:
        return f"{self.write_url}/repos/{self.repo}/issues"

    def headers(self, *, redact: bool = False) -> dict[str, str]:
        """The headers of every request; ``redact`` shows the token as ``***`` (for dry runs)."""
        headers = {
            "Accept": ACCEPT,
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"roost/{__version__}",
        }
        if self._token:
            headers["Authorization"] = "Bearer ***" if redact else f"Bearer {self._token.reveal()}"
        return headers

    async def request(
        self,
        method: str,
        url: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        extra_headers: dict[str, str] | None = None,
    ) -> Reply:
        """One request to the write origin with the read side's guards (one deadline, a rate
        floor, the decoded reply capped at :data:`REPLY_CAP`, stacked encodings and bombs
        refused, unsafe header values dropped, no redirect followed). Raises ``FetchError``
        (``Unreachable`` when nothing was sent) and ``TokenError`` for another origin."""
        if not same_origin(url, self.write_url):
            raise TokenError("refusing to send the token outside the write URL's origin")
        headers = self.headers()
        for name, value in (extra_headers or {}).items():
            if (safe := header_token(value)) is not None:  # an ETag the server made unsafe
                headers[name] = safe
        content = None
        if json is not None:
            content = _json.dumps(
                json, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            ).encode("utf-8")
            headers["Content-Type"] = "application/json"
        return await exchange(
            self._client,
            method,
            url,
            headers=headers,
            content=content,
            params=params,
            cap=REPLY_CAP,
            deadline_s=self.timeout_s,
            timeout=httpx.Timeout(self.timeout_s, connect=min(CONNECT_TIMEOUT_S, self.timeout_s)),
        )

    # -- who am I ------------------------------------------------------------------------------

    async def whoami(self) -> Whoami:
        """The login and scopes of the token (``GET /user``); raises ``LookupFailed``."""
        if self._whoami is not None:
            return self._whoami
        if not self._token:
            raise LookupFailed(NO_TOKEN)
        try:
            response = await self.request("GET", f"{self.write_url}/user")
        except Unreachable as exc:
            raise PlatformUnreachable(f"cannot reach {self.write_url}: {exc.reason}") from None
        except FetchError as exc:
            raise LookupFailed(f"cannot reach {self.write_url}: {exc.reason}") from None
        if response.status == 401:
            raise LookupFailed("the token was rejected (401): it is wrong, expired or revoked")
        if response.status != 200:
            raise LookupFailed(f"GET /user answered {response.status}")
        try:
            login = response.json()["login"]
        except (ValueError, KeyError, TypeError):
            login = None
        if not isinstance(login, str) or not login:
            raise LookupFailed("GET /user did not say who the token belongs to")
        self._whoami = Whoami(login=login, scopes=_scopes(response))
        return self._whoami

    # -- looking an action up by its nonce -----------------------------------------------------

    async def find_by_nonce(
        self, nonce: str, *, not_before: float | None = None
    ) -> FoundIssue | None:
        """The user's issue carrying ``nonce``, None if the platform shows none; raises
        ``LookupFailed`` when it cannot tell. ``not_before`` (epoch seconds) stops the search at
        issues created earlier than the action."""
        login = (await self.whoami()).login
        for page in range(1, LOOKUP_PAGES + 1):
            params = {
                "creator": login,
                "state": "all",
                "sort": "created",
                "direction": "desc",
                "per_page": 30,
                "page": page,
            }
            try:
                response = await self.request("GET", self.issues_url, params=params)
            except FetchError as exc:
                raise LookupFailed(f"listing issues failed: {exc.reason}") from None
            if response.status != 200:
                raise LookupFailed(f"listing issues answered {response.status}")
            try:
                issues = response.json()
            except ValueError:
                raise LookupFailed("listing issues did not answer JSON") from None
            if not isinstance(issues, list):
                raise LookupFailed("listing issues did not answer a list")
            older = False
            for issue in issues:
                if not isinstance(issue, dict) or "pull_request" in issue:
                    continue
                try:
                    parsed = parse_issue_body(issue.get("body") or "")
                except IssueBodyError:
                    parsed = None
                if parsed is not None and parsed.nonce == nonce and "number" in issue:
                    return _found(issue)
                if not_before is not None and _created(issue) < not_before - 300:
                    older = True
            if older or len(issues) < 30:
                return None
        return None

    # -- creating ------------------------------------------------------------------------------

    async def _paced(self) -> None:
        if self._last_create is not None:
            gap = self._last_create + CREATE_GAP_S - self.clock()
            if gap > 0:
                await self.sleep(gap)
        self._last_create = self.clock()

    async def _wait(self, seconds: float, reason: str, result: SendResult) -> bool:
        """Wait out a limit; False (and the result marked failed) when it is too long."""
        seconds = max(0.0, seconds)
        if seconds > self.max_wait_s:
            minutes = int(seconds // 60) + 1
            result.state, result.retry_safe = "failed", True
            result.message = f"{reason}: try again in about {minutes} min"
            return False
        result.attempts.append(Attempt(self.clock(), "wait", None, f"{reason}: {seconds:.0f} s"))
        if self.on_wait is not None:
            self.on_wait(seconds, reason)
        await self.sleep(seconds)
        return True

    async def create(
        self, issue: IssueRequest, nonce: str, *, maybe_sent: bool = False
    ) -> SendResult:
        """Create the issue for one action, or find the one an earlier unclear send created.

        ``maybe_sent`` says an earlier send may have reached the platform (a killed process, an
        unknown outcome): the nonce is looked up before anything is sent.
        """

        async def post() -> Reply:
            return await self.request("POST", self.issues_url, json=issue.as_json())

        async def answer(response: Reply, result: SendResult) -> Outcome:
            return await self._answer(response, issue, result)

        async def look_up(not_before: float, result: SendResult) -> bool:
            return await self._look_up(nonce, not_before, result)

        return await self.send_content(post, answer, look_up, maybe_sent=maybe_sent)

    async def send_content(
        self,
        post: Callable[[], Awaitable[Reply]],
        answer: Callable[[Reply, SendResult], Awaitable[Outcome]],
        look_up: Callable[[float, SendResult], Awaitable[bool]],
        *,
        maybe_sent: bool = False,
    ) -> SendResult:
        """Send one content-creating request the safe way: one at a time and paced, rate limits
        waited out, and after an unclear answer ``look_up`` (by the nonce) before any resend.

        ``post`` makes the request; ``answer`` reads a reply into the result ("done", "again"
        after a wait, or "unclear"); ``look_up(not_before, result)`` is True when the platform
        already holds the content (the result then says where).
        """
        async with self._create_lock:
            return await self._send(post, answer, look_up, maybe_sent)

    async def _send(
        self,
        post: Callable[[], Awaitable[Reply]],
        answer: Callable[[Reply, SendResult], Awaitable[Outcome]],
        look_up: Callable[[float, SendResult], Awaitable[bool]],
        maybe_sent: bool,
    ) -> SendResult:
        result = SendResult("unknown", "")
        if not self._token:
            result.state, result.retry_safe = "failed", True
            result.message = NO_TOKEN
            return result
        started = self.clock()
        if maybe_sent and await look_up(started - 86_400, result):
            return result
        if maybe_sent and result.state == "unknown" and result.message:
            return result
        tries = waits = 0
        while tries < MAX_TRIES:
            await self._paced()
            tries += 1
            try:
                response = await post()
            except Unreachable as exc:
                result.state, result.retry_safe, result.unreachable = "failed", True, True
                result.message = f"cannot reach {self.write_url} ({exc.reason}); nothing was sent"
                result.attempts.append(Attempt(self.clock(), "create", None, result.message))
                return result
            except FetchError as exc:  # slow, cut off, too big, undecodable: maybe created
                note = f"no clear answer ({exc.kind}: {exc.reason})"
                result.unclear = True
                result.attempts.append(Attempt(self.clock(), "create", None, note))
            else:
                outcome = await answer(response, result)
                if outcome == "again":
                    waits += 1
                    if waits <= MAX_WAITS:
                        tries -= 1  # a rate-limit wait is not a failed try
                    continue
                if outcome == "done":
                    return result
                result.unclear = True
                result.attempts.append(
                    Attempt(self.clock(), "create", response.status, "no clear answer")
                )
            # Unclear: look before anything else.
            if await look_up(started, result):
                return result
            if result.state == "unknown" and result.message:
                return result
            if tries < MAX_TRIES:
                await self.sleep(BACKOFF_S[min(tries - 1, len(BACKOFF_S) - 1)])
        result.state, result.retry_safe = "failed", True
        result.message = (
            f"no clear answer after {MAX_TRIES} tries and the platform shows nothing with this "
            "action's nonce; a retry looks it up again first"
        )
        return result

    async def _look_up(self, nonce: str, not_before: float, result: SendResult) -> bool:
        """True when the issue was found (the result is then queued); an impossible lookup
        leaves the result unknown with a message."""
        try:
            found = await self.find_by_nonce(nonce, not_before=not_before)
        except LookupFailed as exc:
            result.state, result.retry_safe = "unknown", False
            result.message = (
                f"the answer was unclear and the issue could not be looked up ({exc}); "
                "it may have been created — roost looks again before any resend"
            )
            result.attempts.append(Attempt(self.clock(), "lookup", None, str(exc)))
            return False
        result.attempts.append(
            Attempt(self.clock(), "lookup", None, f"found #{found.number}" if found else "none")
        )
        if found is None:
            return False
        self._queued(result, found)
        result.message = f"queued as issue #{found.number} (found after an unclear answer)"
        return True

    def _queued(self, result: SendResult, found: FoundIssue) -> None:
        result.state, result.number = "queued", found.number
        result.html_url, result.api_url = found.html_url, found.api_url
        result.created_at = found.created_at
        # the processor acts as the issue's author: the token's login when the answer is mute
        result.author = found.author or (self._whoami.login if self._whoami else None)

    async def _answer(self, response: Reply, issue: IssueRequest, result: SendResult) -> Outcome:
        status = response.status
        said = _platform_message(response)
        if status == 201:
            try:
                data = response.json()
            except ValueError:
                data = None
            if not isinstance(data, dict) or not is_issue_number(data.get("number")):
                said = "201 without an issue number" if isinstance(data, dict) else "201 not JSON"
                result.attempts.append(Attempt(self.clock(), "create", status, said))
                return "unclear"
            found = _found(data)
            self._queued(result, found)
            result.message = f"queued as issue #{found.number}"
            dropped = [label for label in issue.labels if label not in found.labels]
            if dropped:
                result.notices.append(
                    f"label {', '.join(dropped)} was dropped (the account has no push access); "
                    "the processor still handles the action"
                )
            result.attempts.append(Attempt(self.clock(), "create", status, result.message))
            return "done"
        if status >= 500:
            return "unclear"
        result.attempts.append(Attempt(self.clock(), "create", status, said or str(status)))
        limited = await self.rate_limited(response, result)
        if limited is not None:
            return limited
        result.state = "failed"
        result.retry_safe = False
        result.message = self._refusal(status, said, response)
        if 300 <= status < 400:
            result.retry_safe = True
        return "done"

    async def rate_limited(
        self, response: Reply, result: SendResult, *, exhausted: bool = False
    ) -> Literal["again", "done"] | None:
        """Wait out the rate limit ``response`` reports ("again": send once more; "done": the
        wait is too long and the result says so); None when it reports none. ``exhausted``:
        the body already said the primary limit is spent (GraphQL answers that with a 200)."""
        status = response.status
        retry_after = _header_int(response, "retry-after")
        if status in (403, 429) and retry_after is not None:
            ok = await self._wait(retry_after, "secondary rate limit (Retry-After)", result)
            return "again" if ok else "done"
        if exhausted or (status == 403 and response.headers.get("x-ratelimit-remaining") == "0"):
            reset = _header_int(response, "x-ratelimit-reset")
            seconds = (reset - self.clock()) if reset is not None else 60.0
            ok = await self._wait(
                seconds + 1, "rate limit exhausted, waiting for its reset", result
            )
            return "again" if ok else "done"
        if status == 429:
            ok = await self._wait(60.0, "too many requests", result)
            return "again" if ok else "done"
        return None

    def _refusal(self, status: int, said: str, response: Reply) -> str:
        repo = self.repo
        if 300 <= status < 400:
            where = clean_line(response.headers.get("location", "elsewhere"), 200)
            return (
                f"the write URL answered with a redirect ({status}) to {where}; roost does not "
                "follow it with the token: set --write-url to the final address"
            )
        if status == 401:
            return "the token was rejected (401): it is wrong, expired or revoked"
        if status == 403:
            scopes = _scopes(response)
            if scopes is None:
                return f"permission denied (403): fine-grained token: needs Issues: write on {repo}"
            missing = [s for s in NEEDED_SCOPES if s not in scopes]
            detail = f"missing scope {', '.join(missing)}" if missing else "no access"
            return (
                f"permission denied (403): {detail} (token scopes: {', '.join(scopes) or 'none'})"
            )
        if status == 404:
            return (
                f"repository {repo} not found (404): the name is wrong or the token cannot see it"
            )
        if status == 410:
            return f"issues are disabled on {repo} (410)"
        if status == 422:
            lines = _field_errors(response)
            detail = "; ".join(lines) if lines else said or "validation failed"
            return f"the platform refused the issue (422): {detail}"
        return f"the platform refused the issue ({status}){': ' + said if said else ''}"

    # -- following an issue --------------------------------------------------------------------

    async def conditional_get(self, url: str, etag: str | None) -> Reply:
        """A GET with ``If-None-Match`` (a 304 costs no rate limit on GitHub)."""
        extra = {"If-None-Match": etag} if etag else None
        return await self.request("GET", url, extra_headers=extra)


def _created(issue: dict[str, Any]) -> float:
    stamp = issue.get("created_at")
    try:
        return datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return float("inf")
