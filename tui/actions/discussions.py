"""Posts and comments as the deployment makes them: GitHub Discussions, through GraphQL.

Where the deployment's contract says ``post.method: graphql_discussion``, a post is
``createDiscussion(input: {repositoryId, categoryId, title, body})`` at ``{write_url}/graphql``:
the repository's node id and the channel's category id come from its ``state/manifest.json``
(``deployment_docs``). A comment on a post is ``addDiscussionComment(input: {discussionId,
body})`` after ``repository(owner, name) { discussion(number) { id } }``.

The send is the issue client's (``IssueClient.send_content``): one at a time and paced, the same
rate-limit rules (a 403 with ``Retry-After``; GraphQL's ``RATE_LIMITED`` answer, which comes
with a 200), the same token boundary. The client nonce is an HTML comment in the body, as for
issues, so after an unclear answer the viewer's newest Discussions (or the post's newest
comments) are searched for it before anything is sent again: one post never makes two
Discussions.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tui.actions.issue_body import MAX_BODY_CHARS, NONCE_PATTERN
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
    "ADD_COMMENT",
    "CREATE_DISCUSSION",
    "DiscussionError",
    "compose_comment",
    "compose_discussion",
    "graphql_url",
    "nonce_of",
    "send_discussion",
]

CREATE_DISCUSSION = """mutation($repositoryId: ID!, $categoryId: ID!, $title: String!, $body: String!) {
  createDiscussion(input: {repositoryId: $repositoryId, categoryId: $categoryId, title: $title, body: $body}) {
    discussion { id number url createdAt author { login } }
  }
}"""

ADD_COMMENT = """mutation($discussionId: ID!, $body: String!) {
  addDiscussionComment(input: {discussionId: $discussionId, body: $body}) {
    comment { id url createdAt author { login } }
  }
}"""

DISCUSSION_ID = """query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) { discussion(number: $number) { id } }
}"""

NEWEST_DISCUSSIONS = """query($owner: String!, $name: String!) {
  viewer { login }
  repository(owner: $owner, name: $name) {
    discussions(first: 50, orderBy: {field: CREATED_AT, direction: DESC}) {
      nodes { id number url body createdAt author { login } }
    }
  }
}"""

NEWEST_COMMENTS = """query($owner: String!, $name: String!, $number: Int!) {
  viewer { login }
  repository(owner: $owner, name: $name) {
    discussion(number: $number) {
      comments(last: 50) { nodes { id url body createdAt author { login } } }
    }
  }
}"""

_NONCE_COMMENT = re.compile(r"<!--\s*roost-nonce:\s*([A-Za-z0-9._:-]{1,128})\s*-->")
#: GitHub's limit on a Discussion title.
MAX_TITLE_CHARS = 256
#: Categories a post goes to when its channel has none of its own, as the deployment's client.
FALLBACK_CATEGORIES = ("community", "general")


class DiscussionError(ValueError):
    """A post cannot be composed (the message says why and what to do)."""


def graphql_url(write_url: str) -> str:
    return write_url.rstrip("/") + "/graphql"


def nonce_of(body: Any) -> str | None:
    found = _NONCE_COMMENT.search(body) if isinstance(body, str) else None
    return found.group(1) if found else None


def _with_nonce(text: str, nonce: str) -> str:
    if not re.fullmatch(NONCE_PATTERN, nonce):
        raise DiscussionError("the nonce is not well formed")
    body = f"{text.rstrip()}\n\n<!-- roost-nonce: {nonce} -->\n"
    if len(body) > MAX_BODY_CHARS:
        raise DiscussionError(
            f"the body is {len(body)} characters; the limit is {MAX_BODY_CHARS}: shorten it"
        )
    return body


def compose_discussion(
    payload: Mapping[str, Any],
    nonce: str,
    *,
    repo_id: str,
    categories: Mapping[str, str],
    tag: str | None = None,
) -> dict[str, Any]:
    """The request of a post: ``{title, body, channel, repositoryId, categoryId}``.

    The category is the channel's (``categories``: the manifest's ``category_ids``); a channel
    without one posts to the community (or general) category with its tag in front of the
    title, as the deployment's own client does. Raises ``DiscussionError`` when there is no
    category at all.
    """
    channel = str(payload.get("channel", ""))
    title = str(payload.get("title", "")).strip()
    category = categories.get(channel)
    if category is None:
        fallback = next((c for c in FALLBACK_CATEGORIES if c in categories), None)
        if fallback is None:
            known = ", ".join(sorted(categories)[:12]) or "none"
            raise DiscussionError(
                f"channel {clean_line(channel, 40)!r} has no Discussion category in the "
                f"deployment's state/manifest.json (categories: {known})"
            )
        category = categories[fallback]
        prefix = tag or f"[{channel.upper()}]"
        if not title.casefold().startswith(prefix.casefold()):
            title = f"{prefix} {title}"
    if len(title) > MAX_TITLE_CHARS:
        raise DiscussionError(f"the title is longer than {MAX_TITLE_CHARS} characters")
    return {
        "title": title,
        "body": _with_nonce(str(payload.get("body", "")), nonce),
        "channel": channel,
        "repositoryId": repo_id,
        "categoryId": category,
    }


def compose_comment(payload: Mapping[str, Any], nonce: str) -> dict[str, Any]:
    """The request of a comment on a post: ``{discussion_number, body}``."""
    number = payload.get("discussion_number")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise DiscussionError("discussion_number must be a Discussion's number")
    return {"discussion_number": number, "body": _with_nonce(str(payload.get("body", "")), nonce)}


# ---------------------------------------------------------------------------------------------
# GraphQL answers


def _errors(data: Any) -> list[dict[str, Any]]:
    errors = data.get("errors") if isinstance(data, dict) else None
    return [e for e in errors if isinstance(e, dict)] if isinstance(errors, list) else []


def _error_text(errors: list[dict[str, Any]]) -> str:
    return "; ".join(clean_line(str(e.get("message", "error")), 200) for e in errors[:3])


class _Graphql:
    """One Discussion send over one issue client."""

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
            raise LookupFailed(f"GraphQL query failed: {_error_text(_errors(data)) or 'no data'}")
        return data["data"]

    # -- the send ------------------------------------------------------------------------------

    async def post(self) -> Reply:
        if self.kind == "discussion":
            variables = {
                key: self.request[key] for key in ("repositoryId", "categoryId", "title", "body")
            }
            return await self.call(CREATE_DISCUSSION, variables)
        discussion_id = await self._discussion_id()
        return await self.call(
            ADD_COMMENT, {"discussionId": discussion_id, "body": self.request["body"]}
        )

    async def _discussion_id(self) -> str:
        number = self.request["discussion_number"]
        data = await self.query(
            DISCUSSION_ID, {"owner": self.owner, "name": self.name, "number": number}
        )
        repository = data.get("repository")
        found = repository.get("discussion") if isinstance(repository, dict) else None
        if not isinstance(found, dict) or not isinstance(found.get("id"), str):
            raise _NoDiscussion(number)
        return found["id"]

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
        message = _error_text(errors) or (
            clean_line(str(data.get("message")), 200) if isinstance(data, dict) else ""
        )
        if status != 200:
            result.attempts.append(Attempt(self.client.clock(), "create", status, message))
            limited = await self.client.rate_limited(response, result)
            if limited is not None:
                return limited
            return self._refused(result, status, message)
        types = {str(e.get("type")) for e in errors}
        if types & {"RATE_LIMITED", "RATE_LIMIT"}:
            result.attempts.append(Attempt(self.client.clock(), "create", 200, message))
            limited = await self.client.rate_limited(response, result, exhausted=True)
            return limited or "again"
        created = self._created(data)
        made_nowhere = self.kind == "discussion" and not is_issue_number(
            (created or {}).get("number")
        )
        if created is not None and made_nowhere:  # made, but where is not known
            note = "createDiscussion answered no Discussion number"
            result.attempts.append(Attempt(self.client.clock(), "create", 200, note))
            return "unclear"
        if created is None:
            if not errors:
                return "unclear"
            result.attempts.append(Attempt(self.client.clock(), "create", 200, message))
            return self._refused(result, 200, message, types)
        self._done(result, created)
        result.attempts.append(Attempt(self.client.clock(), "create", 200, result.message))
        return "done"

    def _created(self, data: Any) -> dict[str, Any] | None:
        root = data.get("data") if isinstance(data, dict) else None
        if not isinstance(root, dict):
            return None
        if self.kind == "discussion":
            made = root.get("createDiscussion")
            node = made.get("discussion") if isinstance(made, dict) else None
        else:
            made = root.get("addDiscussionComment")
            node = made.get("comment") if isinstance(made, dict) else None
        return node if isinstance(node, dict) and isinstance(node.get("id"), str) else None

    def _done(self, result: SendResult, node: Mapping[str, Any], found: bool = False) -> None:
        result.state = "applied"
        number = node.get("number") if self.kind == "discussion" else None
        result.number = number if is_issue_number(number) else None
        if self.kind == "discussion_comment":
            result.number = self.request.get("discussion_number")
        url = node.get("url")
        result.html_url = url if isinstance(url, str) else None
        author = node.get("author")
        login = author.get("login") if isinstance(author, dict) else None
        result.author = login if isinstance(login, str) else self.client.known_login
        stamp = node.get("createdAt")
        result.created_at = stamp if isinstance(stamp, str) else None
        what = (
            f"Discussion #{result.number}"
            if self.kind == "discussion"
            else f"comment on #{result.number}"
        )
        result.message = f"{what} is live" + (" (found after an unclear answer)" if found else "")

    def _refused(
        self, result: SendResult, status: int, message: str, types: set[str] | None = None
    ) -> Outcome:
        result.state, result.retry_safe = "failed", False
        types = types or set()
        what = "the post" if self.kind == "discussion" else "the comment"
        if status == 401:
            result.message = "the token was rejected (401): it is wrong, expired or revoked"
        elif "INSUFFICIENT_SCOPES" in types:
            result.message = f"the token may not create Discussions: {message}"
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

    # -- looking it up ---------------------------------------------------------------------------

    async def look_up(self, not_before: float, result: SendResult) -> bool:
        """The send loop's lookup: the newest page is searched, whatever ``not_before`` says
        (GraphQL lists them newest first, and one page is what a person posts in a while)."""
        try:
            node = await self._find()
        except (LookupFailed, _NoDiscussion) as exc:
            result.state, result.retry_safe = "unknown", False
            result.message = (
                f"the answer was unclear and the platform could not be searched ({exc}); "
                "it may have been created — roost looks again before any resend"
            )
            result.attempts.append(Attempt(self.client.clock(), "lookup", None, str(exc)))
            return False
        note = f"found #{node.get('number', '?')}" if node else "none"
        result.attempts.append(Attempt(self.client.clock(), "lookup", None, note))
        if node is None:
            return False
        self._done(result, node, found=True)
        return True

    async def _find(self) -> dict[str, Any] | None:
        variables: dict[str, Any] = {"owner": self.owner, "name": self.name}
        if self.kind == "discussion":
            data = await self.query(NEWEST_DISCUSSIONS, variables)
            repository = data.get("repository")
            listing = repository.get("discussions") if isinstance(repository, dict) else None
        else:
            variables["number"] = self.request["discussion_number"]
            data = await self.query(NEWEST_COMMENTS, variables)
            repository = data.get("repository")
            discussion = repository.get("discussion") if isinstance(repository, dict) else None
            listing = discussion.get("comments") if isinstance(discussion, dict) else None
        viewer = data.get("viewer")
        login = viewer.get("login") if isinstance(viewer, dict) else None
        nodes = listing.get("nodes") if isinstance(listing, dict) else None
        if not isinstance(login, str) or not isinstance(nodes, list):
            raise LookupFailed("the platform's answer did not list them")
        for node in nodes:
            if not isinstance(node, dict):
                continue
            author = node.get("author")
            if not isinstance(author, dict) or author.get("login") != login:
                continue
            if nonce_of(node.get("body")) == self.nonce:
                if self.kind == "discussion" and not is_issue_number(node.get("number")):
                    raise LookupFailed("the platform listed the post without a Discussion number")
                return node
        return None


class _NoDiscussion(Exception):
    def __init__(self, number: Any):
        super().__init__(f"there is no Discussion #{number}")


async def send_discussion(
    client: IssueClient,
    kind: str,
    request: Mapping[str, Any],
    nonce: str,
    *,
    maybe_sent: bool = False,
) -> SendResult:
    """Create the post (``kind`` ``discussion``) or comment (``discussion_comment``) ``request``
    describes, or find the one an earlier unclear send created."""
    graphql = _Graphql(client, kind, request, nonce)

    async def post() -> Reply:
        return await graphql.post()

    try:
        return await client.send_content(
            post, graphql.answer, graphql.look_up, maybe_sent=maybe_sent
        )
    except _NoDiscussion as exc:
        return SendResult("failed", f"the platform refused the comment: {exc}")
    except LookupFailed as exc:  # the discussion's id could not be read: nothing was sent
        return SendResult(
            "failed",
            f"the post to comment on could not be read ({exc}); nothing was sent",
            retry_safe=True,
        )
