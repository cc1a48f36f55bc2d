"""The sandbox's control endpoints (``/_sandbox/...``), for tests and demos.

``GET|POST|DELETE /_sandbox/faults`` read, merge or reset the fault knobs; ``POST
/_sandbox/process`` processes the open issues (when ``auto_process`` is off); ``POST
/_sandbox/apply`` applies an action as any agent; ``GET /_sandbox/issues`` summarises the
issues and their outcome; ``GET /_sandbox/inbox`` lists the deltas the processor accepted;
``POST /_sandbox/archive`` archives the terminal receipts (they disappear, as on the
deployment once their comment is delivered); ``POST /_sandbox/audit`` runs the deployment's
daily heartbeat audit now (agents silent for a week go dormant, the change log says so).
The request log does not record these calls.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tui.sandbox.faults import FaultsError
from tui.sandbox.processor import ActionRejected
from tui.sandbox.state import SandboxIssue, sandbox_of

__all__ = ["CONTROL_PREFIX", "routes"]

CONTROL_PREFIX = "/_sandbox"


def _issue_summary(issue: SandboxIssue) -> dict[str, Any]:
    return {
        "number": issue.number,
        "title": issue.title,
        "login": issue.login,
        "labels": issue.labels,
        "state": issue.state,
        "state_reason": issue.state_reason,
        "queued": issue.queued,
        "result": issue.result,
        "reason": issue.reason,
        "changed_files": issue.changed_files,
        "comments": [c["body"] for c in issue.comments],
    }


async def faults_endpoint(request: Request) -> Response:
    faults = sandbox_of(request).faults
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
    done = sandbox_of(request).process_pending()
    return JSONResponse({"processed": [_issue_summary(i) for i in done]})


async def apply_endpoint(request: Request) -> Response:
    """Apply an action directly as any agent (``{"action", "payload", "actor"}``): lets tests
    and demos make "someone else" change the network between two refreshes."""
    state = sandbox_of(request)
    try:
        data = json.loads(await request.body())
        action, payload, actor = data["action"], data.get("payload", {}), data["actor"]
        if not isinstance(actor, str) or not isinstance(payload, dict):
            raise TypeError("actor must be a string and payload an object")
    except (ValueError, KeyError, TypeError) as exc:
        return JSONResponse({"message": f"bad request: {exc}"}, 400)
    try:
        changed = state.network.apply(action, payload, actor, state.clock(), state.known_actions)
    except ActionRejected as exc:
        return JSONResponse({"result": "rejected", "reason": exc.reason}, 409)
    return JSONResponse({"result": "applied", "changed_files": sorted(changed)})


async def archive_endpoint(request: Request) -> Response:
    return JSONResponse({"archived": sandbox_of(request).archive_receipts()})


async def audit_endpoint(request: Request) -> Response:
    """The heartbeat audit as of the sandbox's clock: who it marked dormant."""
    state = sandbox_of(request)
    marked = state.network.audit(state.clock())
    return JSONResponse({"marked_dormant": marked})


async def issues_endpoint(request: Request) -> Response:
    return JSONResponse([_issue_summary(i) for i in sandbox_of(request).issues])


async def inbox_endpoint(request: Request) -> Response:
    """The deltas the processor accepted, with the acting agent and the files they changed."""
    return JSONResponse([entry.as_json() for entry in sandbox_of(request).inbox])


def routes() -> list[Route]:
    """The control endpoints' routes."""
    return [
        Route(f"{CONTROL_PREFIX}/faults", faults_endpoint, methods=["GET", "POST", "DELETE"]),
        Route(f"{CONTROL_PREFIX}/process", process_endpoint, methods=["POST"]),
        Route(f"{CONTROL_PREFIX}/apply", apply_endpoint, methods=["POST"]),
        Route(f"{CONTROL_PREFIX}/issues", issues_endpoint, methods=["GET"]),
        Route(f"{CONTROL_PREFIX}/inbox", inbox_endpoint, methods=["GET"]),
        Route(f"{CONTROL_PREFIX}/archive", archive_endpoint, methods=["POST"]),
        Route(f"{CONTROL_PREFIX}/audit", audit_endpoint, methods=["POST"]),
    ]
