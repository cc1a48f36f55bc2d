"""The exact request of one action, the way its catalog entry says it is sent.

An ``issue`` action is an action issue (``issue_body.compose_issue``, with the label the
deployment's contract names); a ``discussion`` (a post) is a ``createDiscussion`` request whose
repository and category come from the deployment's ``state/manifest.json``; a
``discussion_comment`` is an ``addDiscussionComment`` request. The form's preview, the outbox
and the CLI's dry run all call :func:`compose_request`, so what is shown is what is sent.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

from typing import Any

from tui.actions.catalog import ActionSpec
from tui.actions.deployment_docs import RepoManifest
from tui.actions.discussions import compose_comment, compose_discussion
from tui.actions.issue_body import compose_issue

__all__ = ["compose_request"]


def compose_request(
    spec: ActionSpec,
    payload: dict[str, Any],
    nonce: str,
    manifest: RepoManifest | None = None,
    *,
    manifest_problem: str = "it has not been read",
) -> tuple[str, dict[str, Any]]:
    """(kind, request) of ``spec`` with ``payload``; ``ValueError`` says why there is none (an
    action roost cannot send, a post without the deployment's manifest, a body too long)."""
    if spec.unsupported:
        raise ValueError(f"{spec.name} cannot be sent by roost: {spec.unsupported}")
    if spec.method == "issue":
        return "issue", compose_issue(spec.name, payload, nonce, label=spec.label).as_json()
    if spec.method == "discussion_comment":
        return spec.method, compose_comment(payload, nonce)
    if manifest is None:
        raise ValueError(
            "a post is a Discussion on this deployment and needs its state/manifest.json "
            f"(the repository and category ids): {manifest_problem}"
        )
    request = compose_discussion(
        payload, nonce, repo_id=manifest.repo_id, categories=manifest.categories
    )
    return spec.method, request
