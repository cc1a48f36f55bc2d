"""What the running sandbox keeps (``app.state.sandbox``) and how it processes issues.

``SandboxState`` holds the published demo network, the fault knobs, the accepted tokens, the
issues created so far, the request log and the rate-limit accounts; ``process`` plays the
deployment's processor on one issue. The HTTP interfaces (``read_interface``, ``github_api``,
``control``) are thin layers over it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from starlette.requests import Request

from tui.actions.catalog import action_label
from tui.actions.issue_body import IssueBodyError, parse_issue_body
from tui.sandbox.faults import Faults
from tui.sandbox.generator import iso
from tui.sandbox.github_shapes import label_json, stable_int, user_json
from tui.sandbox.processor import ActionRejected
from tui.sandbox.published import DemoNetwork
from tui.sandbox.request_log import LOG_LIMIT, RequestRecord

__all__ = [
    "PRIMARY_RATE_LIMIT",
    "SandboxIssue",
    "SandboxState",
    "base_url_of",
    "pause",
    "sandbox_of",
]

#: Primary rate limit per authenticated user and hour (GitHub's is 5000).
PRIMARY_RATE_LIMIT = 5000


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
    rate_limit: int = PRIMARY_RATE_LIMIT
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
            "id": stable_int(f"comment:{issue.number}:{len(issue.comments)}"),
            "user_login": "roost-processor[bot]",
            "body": body,
            "created_at": stamp,
            "updated_at": stamp,
        }


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
