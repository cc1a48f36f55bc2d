"""The exact request of one action, the way its catalog entry says it is sent.

An ``issue`` action is an action issue (``issue_body.compose_issue``, with the label the
deployment's contract names); a ``discussion`` (a post) is a ``createDiscussion`` request whose
repository and category come from the deployment's ``state/manifest.json``; a
``discussion_comment`` is an ``addDiscussionComment`` request (a comment, or a reply to the
comment ``reply_to`` names); a ``discussion_reaction`` is an ``addReaction`` request. A post's
node id comes from the deployment's ``discussions_index.json`` when the store holds it, so none
is asked when the comment or reaction is sent. The form's preview, the outbox and the CLI's dry
run all call :func:`compose_request`, so what is shown is what is sent.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tui.actions.catalog import ActionSpec
from tui.actions.deployment_docs import RepoManifest
from tui.actions.discussions import compose_comment, compose_discussion
from tui.actions.graphql_send import discussion_node_id, post_number
from tui.actions.issue_body import compose_issue
from tui.actions.reactions import compose_reaction

__all__ = ["compose_request"]


def compose_request(
    spec: ActionSpec,
    payload: dict[str, Any],
    nonce: str,
    manifest: RepoManifest | None = None,
    *,
    manifest_problem: str = "it has not been read",
    discussions_index: Mapping[str, Any] | None = None,
) -> tuple[str, dict[str, Any]]:
    """(kind, request) of ``spec`` with ``payload``; ``ValueError`` says why there is none (an
    action roost cannot send, a post without the deployment's manifest, a body too long).
    ``discussions_index``: the store's ``snapshot.discussions_index``, where a comment or
    reaction finds its post's node id."""
    if spec.unsupported:
        raise ValueError(f"{spec.name} cannot be sent by roost: {spec.unsupported}")
    if spec.method == "issue":
        return "issue", compose_issue(spec.name, payload, nonce, label=spec.label).as_json()
    if spec.method in ("discussion_comment", "discussion_reaction"):
        known = discussion_node_id(discussions_index, post_number(payload))
        if spec.method == "discussion_reaction":
            return spec.method, compose_reaction(payload, discussion_id=known)
        return spec.method, compose_comment(payload, nonce, discussion_id=known)
    if manifest is None:
        raise ValueError(
            "a post is a Discussion on this deployment and needs its state/manifest.json "
            f"(the repository and category ids): {manifest_problem}"
        )
    request = compose_discussion(
        payload, nonce, repo_id=manifest.repo_id, categories=manifest.categories
    )
    return spec.method, request
