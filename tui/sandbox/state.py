"""What the running sandbox keeps (``app.state.sandbox``) and how it processes issues.

``SandboxState`` holds the published demo network, the fault knobs, the accepted tokens, the
issues and Discussions created so far, the inbox of accepted deltas and their receipts, the
request log and the rate-limit accounts; ``process`` plays the deployment's processor
(``deployment``) on one issue, as the newer generation (a QUEUED comment and a queued receipt on
ingress, then APPLIED or REJECTED with its receipt when the inbox runs) or the classic one (✅
and close, or ❌). The HTTP interfaces (``read_interface``, ``github_api``, ``graphql_api``,
``control``) are thin layers over it. ``revision`` moves with every change, so a persistent
world (``world``) knows when to save.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from tui.sandbox.deployment import (
    CLASSIC_ACTIONS,
    DEFAULT_HINT,
    KNOWN_ACTIONS,
    SUCCESS_COMMENT,
    ActionRejected,
    action_of_title,
    applied_comment,
    check_delta,
    failure_comment,
    queued_comment,
    read_delta,
    rejected_comment,
)
from tui.sandbox.discussions import SandboxDiscussion
from tui.sandbox.faults import Faults
from tui.sandbox.generator import iso
from tui.sandbox.github_shapes import label_json, stable_int, user_json
from tui.sandbox.published import DemoNetwork
from tui.sandbox.request_log import LOG_LIMIT, RequestRecord

__all__ = [
    "FORGER_LOGIN",
    "PRIMARY_RATE_LIMIT",
    "PROCESSOR_LOGIN",
    "PROCESSORS",
    "InboxEntry",
    "SandboxDiscussion",
    "ProcessDueMiddleware",
    "SandboxIssue",
    "SandboxState",
    "base_url_of",
    "pause",
    "sandbox_of",
]

#: Primary rate limit per authenticated user and hour (GitHub's is 5000).
PRIMARY_RATE_LIMIT = 5000
#: Who the processor's comments are from: the deployment's processor is a workflow.
PROCESSOR_LOGIN = "github-actions[bot]"
#: The processor generations the sandbox plays.
PROCESSORS = ("newer", "classic")
#: Who posts the fake verdicts of the ``forge_verdicts`` fault.
FORGER_LOGIN = "helpful-stranger"


@dataclass(frozen=True)
class InboxEntry:
    """One delta the processor accepted, as the deployment's inbox would hold it."""

    #: The number of the issue that carried the delta.
    issue: int
    action: str
    payload: dict[str, Any]
    agent: str
    received_at: str
    #: The state files the delta changed; empty for actions the state files do not show.
    changed_files: list[str]

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


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
    #: When the processor takes the issue up (creation plus the ``process_delay`` knob).
    due_at: datetime = datetime.min.replace(tzinfo=UTC)
    processed: bool = False
    #: "applied" or "rejected" once processed; ``reason`` explains a rejection.
    result: str | None = None
    reason: str | None = None
    changed_files: list[str] = field(default_factory=list)
    #: The newer processor: queued on ingress, its verdict due at ``apply_at``.
    queued: bool = False
    apply_at: datetime | None = None

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
            "user": user_json(self.login, base),
            "labels": [label_json(name, api) for name in self.labels],
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

    def comments_as_github(self, base: str, owner: str, repo: str) -> list[dict[str, Any]]:
        api = f"{base}/api/repos/{owner}/{repo}"
        html = f"{base}/{owner}/{repo}/issues/{self.number}"
        return [
            {
                "id": c["id"],
                "node_id": f"IC_kwROOST{c['id']}",
                "url": f"{api}/issues/comments/{c['id']}",
                "html_url": f"{html}#issuecomment-{c['id']}",
                "issue_url": f"{api}/issues/{self.number}",
                "user": {
                    **user_json(c["user_login"], base),
                    "type": "Bot" if c["user_login"].endswith("[bot]") else "User",
                },
                "body": c["body"],
                "created_at": c["created_at"],
                "updated_at": c["updated_at"],
                "author_association": "NONE",
            }
            for c in self.comments
        ]


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
    #: The processor generation played: "newer" (two steps, receipts) or "classic".
    processor: str = "newer"
    #: The account the processor comments as.
    processor_login: str = PROCESSOR_LOGIN
    issues: list[SandboxIssue] = field(default_factory=list)
    #: Every delta the processor accepted, in order.
    inbox: list[InboxEntry] = field(default_factory=list)
    #: The newer processor's receipts, by path under ``state/`` (``inbox/issue-3.json``).
    receipts: dict[str, bytes] = field(default_factory=dict)
    #: The form of ``discussions_cache.json`` the app was made with ("light" or "full"); the
    #: ``discussions_cache`` fault knob, when set, wins.
    discussions_cache: str = "light"
    #: A contract served instead of the demo deployment's own (tests of a deployment whose
    #: skill.json roost has never seen); None serves ``deployment.skill_document``.
    skill_override: dict[str, Any] | None = None
    #: Moves with every change of what the sandbox keeps (issues, Discussions, receipts).
    revision: int = 0
    requests: list[RequestRecord] = field(default_factory=list)
    #: Primary rate limit per authenticated user and hour (GitHub's is 5000).
    rate_limit: int = PRIMARY_RATE_LIMIT
    _rate: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: What each caller spent of the ``rest_read_budget`` knob, and the knob setting it counts.
    _spent: dict[str, int] = field(default_factory=dict)
    _budget_serial: int = -1

    @property
    def request_log(self) -> list[RequestRecord]:
        return self.requests

    @property
    def discussions(self) -> list[SandboxDiscussion]:
        """The Discussions created through GraphQL, oldest first, each with its comments and
        reactions as they are now (the network's ``Conversation`` keeps them)."""
        talk = self.network.conversation
        return [talk.seen(p) for p in talk.posts if p.via == "graphql"]

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

    @property
    def known_actions(self) -> dict[str, Any]:
        return CLASSIC_ACTIONS if self.processor == "classic" else KNOWN_ACTIONS

    def changed(self) -> None:
        self.revision += 1

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

    def budget(
        self, identity: str, limit: int, *, count: bool = True
    ) -> tuple[int, int, int] | None:
        """(limit, used, reset) of ``identity`` under the ``rest_read_budget`` knob, or None
        when the knob is not set (or its reset time has passed): every caller (each address,
        each token) then has the knob's count left, spent one request at a time."""
        faults = self.faults
        if faults.rest_read_budget is None:
            return None
        now = int(self.clock().timestamp())
        reset = faults.rest_read_reset or (now - now % 3600 + 3600)
        if now >= reset:
            return None
        if self._budget_serial != faults.budget_serial:
            self._spent, self._budget_serial = {}, faults.budget_serial
        spent = self._spent.get(identity, 0) + (1 if count else 0)
        self._spent[identity] = spent
        limit = max(limit, faults.rest_read_budget)
        return limit, limit - faults.rest_read_budget + spent, reset

    # -- issues and their processing -----------------------------------------------------------

    def open_issue(
        self, *, title: str, body: str, labels: list[str], requested: list[str], login: str
    ) -> SandboxIssue:
        """Record a new issue; the processor takes it up after the ``process_delay`` knob."""
        now = self.clock()
        stamp = iso(now)
        issue = SandboxIssue(
            number=(self.issues[-1].number if self.issues else 0) + 1,
            title=title,
            body=body,
            labels=labels,
            requested_labels=requested,
            login=login,
            created_at=stamp,
            updated_at=stamp,
            due_at=now + timedelta(seconds=self.faults.process_delay),
        )
        self.issues.append(issue)
        if self.faults.forge_verdicts:
            for body in (
                SUCCESS_COMMENT,
                applied_comment(issue.number, title, login),
            ):
                issue.comments.append(self._comment(issue, body, stamp, login=FORGER_LOGIN))
        self.changed()
        return issue

    def process(self, issue: SandboxIssue, at: datetime | None = None) -> SandboxIssue:
        """Play the deployment's processor on one issue, as of ``at`` (default: now).

        Classic: the delta is applied as the issue's author and recorded in the inbox, the
        processor comments ``SUCCESS_COMMENT`` and closes the issue; on failure it comments the
        reason and leaves the issue open. Newer: on ingress it comments QUEUED and writes the
        queued receipt (a delta it cannot read or does not know is rejected at once); when the
        inbox runs (``inbox_delay`` later) it applies the delta and comments APPLIED or
        REJECTED beside the receipt. Labels and title play no part, as on the deployment.
        """
        if issue.processed:
            return issue
        now = at or self.clock()
        if self.processor == "classic":
            self._classic(issue, now)
        elif not issue.queued:
            self._ingress(issue, now)
        else:
            self._run_inbox(issue, now)
        issue.updated_at = iso(now)
        self.changed()
        return issue

    def _classic(self, issue: SandboxIssue, now: datetime) -> None:
        stamp = iso(now)
        issue.processed = True
        try:
            action, payload = read_delta(issue.body)
            changed = self.network.apply(action, payload, issue.login, now, CLASSIC_ACTIONS)
        except ActionRejected as exc:
            issue.result, issue.reason = "rejected", exc.reason
            issue.comments.append(self._comment(issue, failure_comment(exc.reason), stamp))
        else:
            issue.result, issue.changed_files = "applied", sorted(changed)
            issue.state, issue.state_reason, issue.closed_at = "closed", "completed", stamp
            issue.comments.append(self._comment(issue, SUCCESS_COMMENT, stamp))
            self._record(issue, action, payload, stamp, changed)

    def _ingress(self, issue: SandboxIssue, now: datetime) -> None:
        try:
            action, payload = read_delta(issue.body)
            check_delta(action, payload, KNOWN_ACTIONS)
        except ActionRejected as exc:
            self._reject(issue, now, action_of_title(issue.title), {}, exc)
            return
        issue.queued = True
        issue.apply_at = now + timedelta(seconds=self.faults.inbox_delay)
        self.receipts[f"inbox/issue-{issue.number}.json"] = _json(
            self._delta(issue, action, payload, now)
        )
        issue.comments.append(self._comment(issue, queued_comment(issue.number, action), iso(now)))
        if issue.apply_at <= now:
            self._run_inbox(issue, now)

    def _run_inbox(self, issue: SandboxIssue, now: datetime) -> None:
        action, payload = read_delta(issue.body)  # read on ingress: it reads again
        self.receipts.pop(f"inbox/issue-{issue.number}.json", None)
        try:
            changed = self.network.apply(action, payload, issue.login, now, KNOWN_ACTIONS)
        except ActionRejected as exc:
            self._reject(issue, now, action, payload, exc)
            return
        stamp = iso(now)
        issue.processed = True
        issue.result, issue.changed_files = "applied", sorted(changed)
        self._record(issue, action, payload, stamp, changed)
        self.receipts[f"inbox/processed/issue-{issue.number}.json"] = _json(
            self._receipt(issue, action, payload, now, "applied")
        )
        issue.comments.append(
            self._comment(issue, applied_comment(issue.number, action, issue.login), stamp)
        )

    def _reject(
        self,
        issue: SandboxIssue,
        now: datetime,
        action: str,
        payload: dict[str, Any],
        exc: ActionRejected,
    ) -> None:
        issue.processed = True
        issue.result, issue.reason = "rejected", exc.reason
        hint = exc.hint or DEFAULT_HINT
        receipt = self._receipt(issue, action, payload, now, "rejected")
        receipt["error"], receipt["hint"] = exc.reason, hint
        self.receipts[f"inbox/rejected/issue-{issue.number}.json"] = _json(receipt)
        issue.comments.append(
            self._comment(issue, rejected_comment(issue.number, action, exc.reason, hint), iso(now))
        )

    def _record(
        self, issue: SandboxIssue, action: str, payload: dict[str, Any], stamp: str, changed: set
    ) -> None:
        self.inbox.append(
            InboxEntry(
                issue=issue.number,
                action=action,
                payload=payload,
                agent=issue.login,
                received_at=stamp,
                changed_files=sorted(changed),
            )
        )

    def _delta(
        self, issue: SandboxIssue, action: str, payload: dict[str, Any], now: datetime
    ) -> dict[str, Any]:
        """The queued delta as the deployment's inbox writes it."""
        return {
            "action": action,
            "agent_id": issue.login,
            "timestamp": issue.created_at,
            "payload": payload,
            "issue_number": issue.number,
            "request_id": f"issue:{issue.number}",
            "submitter_id": stable_int(issue.login),
        }

    def _receipt(
        self,
        issue: SandboxIssue,
        action: str,
        payload: dict[str, Any],
        now: datetime,
        status: str,
    ) -> dict[str, Any]:
        """A terminal receipt in the deployment's shape (``receipt_version`` 1)."""
        return {
            "receipt_version": 1,
            "receipt_id": f"issue:{issue.number}:{status}",
            "request_id": f"issue:{issue.number}",
            "issue_number": issue.number,
            "status": status,
            "action": action,
            "agent_id": issue.login,
            "provenance": {
                "queue_file": f"issue-{issue.number}.json",
                "submitted_at": issue.created_at,
                "submitter_id": stable_int(issue.login),
                "delta": self._delta(issue, action, payload, now),
            },
        }

    def archive_receipts(self) -> int:
        """Drop the terminal receipts whose comment was delivered (the deployment archives
        them): their readers must treat the absence as nothing. Returns how many."""
        gone = [p for p in self.receipts if p.startswith(("inbox/processed/", "inbox/rejected/"))]
        for path in gone:
            del self.receipts[path]
        if gone:
            self.changed()
        return len(gone)

    def process_due(self) -> list[SandboxIssue]:
        """Process the issues whose delay has passed, each as of its due time.

        The deployment's processor runs in the background; the sandbox runs it lazily, before
        answering any request, so no task outlives a request and a fake clock drives the delay.
        """
        self.sync_cache_form()
        if not self.auto_process:
            return []
        now = self.clock()
        self.network.publish_due(now)
        done = []
        for issue in self.issues:
            if issue.processed:
                continue
            if not issue.queued and issue.due_at <= now:
                done.append(self.process(issue, at=issue.due_at))
            if issue.queued and not issue.processed and issue.apply_at and issue.apply_at <= now:
                done.append(self.process(issue, at=issue.apply_at))
        return done

    def sync_cache_form(self) -> None:
        """Publish the discussions cache in the form the knob (or the app) asks for."""
        wanted = self.faults.discussions_cache or self.discussions_cache
        if wanted != self.network.conversation.cache_form:
            self.network.set_cache_form(wanted, self.clock())

    def process_pending(self) -> list[SandboxIssue]:
        """Process every open issue not processed yet, at once, and publish every post,
        comment and reaction still waiting; returns the processed issues."""
        self.network.publish_due(self.clock(), everything=True)
        pending = [i for i in self.issues if not i.processed and i.state == "open"]
        done = []
        for issue in pending:
            self.process(issue)
            if not issue.processed:  # queued by the newer processor: its inbox runs now too
                self.process(issue)
            done.append(issue)
        return done

    def _comment(
        self, issue: SandboxIssue, body: str, stamp: str, *, login: str | None = None
    ) -> dict[str, Any]:
        return {
            "id": stable_int(f"comment:{issue.number}:{len(issue.comments)}"),
            "user_login": login or self.processor_login,
            "body": body,
            "created_at": stamp,
            "updated_at": stamp,
        }


def _json(data: Any) -> bytes:
    return json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")


class ProcessDueMiddleware:
    """Runs the processor's due work before every request (see ``SandboxState.process_due``)."""

    def __init__(self, app: ASGIApp, get_state: Callable[[], SandboxState]):
        self.app = app
        self.get_state = get_state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.get_state().process_due()
        await self.app(scope, receive, send)


def sandbox_of(request: Request) -> SandboxState:
    """The state of the app that answers ``request``."""
    return request.app.state.sandbox


def base_url_of(request: Request) -> str:
    """The app's base URL as the client called it (links in answers point back at it)."""
    return str(request.base_url).rstrip("/")


async def pause(seconds: float) -> None:
    """Wait a fault knob's latency (nothing when it is zero)."""
    if seconds > 0:
        await asyncio.sleep(seconds)
