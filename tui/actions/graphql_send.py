"""One content-creating GraphQL request sent the safe way: what posts, comments, replies and
reactions share (ARCHITECTURE.md, the write side).

:class:`GraphqlSend` is one send over the issue client's loop (``IssueClient.send_content``):
one at a time and paced, rate limits waited out (a 403 with ``Retry-After``; GraphQL's
``RATE_LIMITED``, which comes with a 200), the token kept to the write URL's origin, and after
an unclear answer a lookup (:meth:`GraphqlSend.look_up`) before anything is sent again. What is
sent, what the answer made and how it is found again are each kind's own
(``tui/actions/discussions.py`` for posts, comments and replies, ``tui/actions/reactions.py``
for reactions).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tui.actions.action_spec import NODE_ID_PATTERN
from tui.actions.issue_client import (
    Attempt,
    IssueClient,
    LookupFailed,
    Outcome,
    SendResult,
    is_issue_number,
)
from tui.network.fetch import FetchError, Reply
from tui.untrusted import clean_line

__all__ = [
    "DISCUSSION_ID",
    "as_node_id",
    "DiscussionError",
    "GraphqlSend",
    "NotThere",
    "discussion_node_id",
    "graphql_url",
    "node_id",
    "post_number",
]

DISCUSSION_ID = """query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) { discussion(number: $number) { id } }
}"""


class DiscussionError(ValueError):
    """A post, comment or reaction cannot be composed (the message says why and what to do)."""


class NotThere(Exception):
    """What the request addresses is not on the platform (a post, a comment): nothing was sent,
    and sending again would not help."""


def graphql_url(write_url: str) -> str:
    return write_url.rstrip("/") + "/graphql"


def post_number(payload: Mapping[str, Any]) -> int:
    """The payload's ``discussion_number``; ``DiscussionError`` when it is not one."""
    number = payload.get("discussion_number")
    if not is_issue_number(number):
        raise DiscussionError("discussion_number must be a Discussion's number")
    return number


def node_id(value: Any, name: str) -> str:
    """``value`` as a GraphQL node id; ``DiscussionError`` (naming the field) when it is not."""
    if not isinstance(value, str) or not re.fullmatch(NODE_ID_PATTERN, value):
        raise DiscussionError(f"{name} must be a GitHub node id (such as DC_kwDO…)")
    return value


def as_node_id(value: Any) -> str | None:
    """``value`` when it is shaped like a node id (what a server says is checked before it is
    kept or compared), else None."""
    return value if isinstance(value, str) and re.fullmatch(NODE_ID_PATTERN, value) else None


def discussion_node_id(index: Mapping[str, Any] | None, number: int) -> str | None:
    """The node id ``discussions_index.json`` gives Discussion ``number`` (the store's
    ``snapshot.discussions_index``, keyed by the number as text), or None when it gives none
    that can be used (absent, another number's, not shaped like a node id)."""
    if not index:
        return None
    entry = index.get(str(number))
    if entry is None:
        return None
    found = entry.get("id") if isinstance(entry, Mapping) else getattr(entry, "id", None)
    said = entry.get("number") if isinstance(entry, Mapping) else getattr(entry, "number", None)
    if said is not None and said != number:
        return None
    return as_node_id(found)


def _errors(data: Any) -> list[dict[str, Any]]:
    errors = data.get("errors") if isinstance(data, dict) else None
    return [e for e in errors if isinstance(e, dict)] if isinstance(errors, list) else []


def error_text(data: Any) -> str:
    """GraphQL's ``errors`` (the first three) in one clean line."""
    errors = _errors(data)
    return "; ".join(clean_line(str(e.get("message", "error")), 200) for e in errors[:3])


class GraphqlSend:
    """One send over one issue client. Subclasses say what is sent (:meth:`post`), what an
    answer made (:meth:`created`, :meth:`done`) and how it is found again (:meth:`find`)."""

    #: What is made, in words ("the comment").
    what = "the request"

    def __init__(self, client: IssueClient, kind: str, request: Mapping[str, Any], nonce: str):
        self.client = client
        self.kind = kind
        self.request = request
        self.nonce = nonce
        self.url = graphql_url(client.write_url)
        self.owner, _, self.name = client.repo.partition("/")

    async def call(self, query: str, variables: dict[str, Any]) -> Reply:
        return await self.client.request(
            "POST", self.url, json={"query": query, "variables": variables}
        )

    async def query(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """The ``data`` of a read; ``LookupFailed`` when there is none."""
        try:
            reply = await self.call(query, variables)
        except FetchError as exc:
            raise LookupFailed(f"GraphQL query failed: {exc.reason}") from None
        if reply.status != 200:
            raise LookupFailed(f"GraphQL query answered {reply.status}")
        try:
            data = reply.json()
        except ValueError:
            raise LookupFailed("GraphQL query did not answer JSON") from None
        if not isinstance(data, dict) or not isinstance(data.get("data"), dict):
            raise LookupFailed(f"GraphQL query failed: {error_text(data) or 'no data'}")
        return data["data"]

    async def discussion_id(self) -> str:
        """The node id of the request's Discussion: the one it carries (from the deployment's
        ``discussions_index.json``), else asked of the platform. ``NotThere`` when there is no
        such Discussion, ``LookupFailed`` when it cannot be asked."""
        given = self.request.get("discussionId")
        if isinstance(given, str) and given:
            return given
        number = self.request["discussion_number"]
        data = await self.query(
            DISCUSSION_ID, {"owner": self.owner, "name": self.name, "number": number}
        )
        repository = data.get("repository")
        found = repository.get("discussion") if isinstance(repository, dict) else None
        if not isinstance(found, dict) or not isinstance(found.get("id"), str):
            raise NotThere(f"there is no Discussion #{number}")
        return found["id"]

    # -- what each kind says -------------------------------------------------------------------

    async def post(self) -> Reply:  # pragma: no cover - every kind has its own
        raise NotImplementedError

    def created(self, data: Any) -> dict[str, Any] | None:  # pragma: no cover
        """What the answer ``data`` made (a node with an ``id``), None when it made nothing."""
        raise NotImplementedError

    def done(self, result: SendResult, node: Mapping[str, Any], found: bool = False) -> None:
        raise NotImplementedError  # pragma: no cover

    async def find(self) -> dict[str, Any] | None:  # pragma: no cover
        """What an earlier send made, as the platform shows it now; None when it shows nothing.
        ``LookupFailed`` when it cannot tell."""
        raise NotImplementedError

    def unclear_made(self, node: Mapping[str, Any]) -> str | None:
        """Why a made node does not say enough to settle the send (a lookup must), or None."""
        return None

    # -- the answer ----------------------------------------------------------------------------

    async def answer(self, response: Reply, result: SendResult) -> Outcome:
        status = response.status
        if status >= 500:
            return "unclear"
        try:
            data = response.json()
        except ValueError:
            data = None
        if status == 200 and not isinstance(data, dict):
            return "unclear"
        errors = _errors(data)
        message = error_text(data) or (
            clean_line(str(data.get("message")), 200) if isinstance(data, dict) else ""
        )
        if status != 200:
            result.attempts.append(Attempt(self.client.clock(), "create", status, message))
            limited = await self.client.rate_limited(response, result)
            if limited is not None:
                return limited
            return self.refused(result, status, message)
        types = {str(e.get("type")) for e in errors}
        if types & {"RATE_LIMITED", "RATE_LIMIT"}:
            result.attempts.append(Attempt(self.client.clock(), "create", 200, message))
            limited = await self.client.rate_limited(response, result, exhausted=True)
            return limited or "again"
        made = self.created(data)
        if made is not None and (note := self.unclear_made(made)) is not None:
            result.attempts.append(Attempt(self.client.clock(), "create", 200, note))
            return "unclear"
        if made is None:
            if not errors:
                return "unclear"
            result.attempts.append(Attempt(self.client.clock(), "create", 200, message))
            return self.refused(result, 200, message, types)
        self.done(result, made)
        result.attempts.append(Attempt(self.client.clock(), "create", 200, result.message))
        return "done"

    def refused(
        self, result: SendResult, status: int, message: str, types: set[str] | None = None
    ) -> Outcome:
        result.state, result.retry_safe = "failed", False
        types = types or set()
        what = self.what
        if status == 401:
            result.message = "the token was rejected (401): it is wrong, expired or revoked"
        elif "INSUFFICIENT_SCOPES" in types:
            result.message = f"the token may not make {what}: {message}"
        elif status == 403 or "FORBIDDEN" in types:
            result.message = f"permission denied ({status}): {message or 'no access'}"
        elif "NOT_FOUND" in types or status == 404:
            result.message = f"the platform refused {what} (not found): {message}"
        elif 300 <= status < 400:
            result.retry_safe = True
            result.message = (
                f"the write URL answered with a redirect ({status}); roost does not follow it "
                "with the token: set --write-url to the final address"
            )
        else:
            result.message = f"the platform refused {what} ({status}): {message or 'no reason'}"
        return "done"

    # -- looking it up -------------------------------------------------------------------------

    async def look_up(self, not_before: float, result: SendResult) -> bool:
        """The send loop's lookup (``not_before`` aside: what :meth:`find` reads is the newest
        there is, which is what a person makes in a while)."""
        try:
            node = await self.find()
        except (LookupFailed, NotThere) as exc:
            result.state, result.retry_safe = "unknown", False
            result.message = (
                f"the answer was unclear and the platform could not be searched ({exc}); "
                "it may have been made — roost looks again before any resend"
            )
            result.attempts.append(Attempt(self.client.clock(), "lookup", None, str(exc)))
            return False
        if node is None:
            note = "none"
        elif is_issue_number(node.get("number")):
            note = f"found #{node['number']}"
        else:
            note = "found"
        result.attempts.append(Attempt(self.client.clock(), "lookup", None, note))
        if node is None:
            return False
        self.done(result, node, found=True)
        return True
