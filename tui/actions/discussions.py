"""Posts, comments and replies as the deployment makes them: GitHub Discussions, through GraphQL.

Where the deployment's contract says ``post.method: graphql_discussion``, a post is
``createDiscussion(input: {repositoryId, categoryId, title, body})`` at ``{write_url}/graphql``:
the repository's node id and the channel's category id come from its ``state/manifest.json``
(``deployment_docs``). A comment on a post is ``addDiscussionComment(input: {discussionId,
body})``, the Discussion's node id taken from the deployment's ``discussions_index.json`` when
the request carries it, else asked (``repository(owner, name) { discussion(number) { id } }``).
A reply is the same mutation with ``replyToId``: GitHub nests replies one level deep, so the
comment answered is asked for first (``node(id:) { ... on DiscussionComment { replyTo } }``) and
a reply to a reply goes to its top-level comment; the request keeps the comment answered.
Reactions are :mod:`tui.actions.reactions`.

The send is the issue client's, through :class:`~tui.actions.graphql_send.GraphqlSend`. The
client nonce is an HTML comment in the body, as for issues, so after an unclear answer the
viewer's newest Discussions (or the post's newest comments, or the replies of the comment
answered) are searched for it before anything is sent again: one post never makes two
Discussions, one comment never two comments. A post is ``applied`` once made; a comment or reply
is ``queued`` once made and ``applied`` once the thread read back holds it
(:func:`look_for`, which the tracker calls).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tui.actions.graphql_send import (
    DiscussionError,
    GraphqlSend,
    NotThere,
    as_node_id,
    graphql_url,
    node_id,
    post_number,
)
from tui.actions.issue_body import MAX_BODY_CHARS, NONCE_PATTERN
from tui.actions.issue_client import (
    IssueClient,
    LookupFailed,
    SendResult,
    is_issue_number,
)
from tui.actions.reactions import ADD_REACTION, ReactionSend
from tui.conversation.text import NONCE_COMMENT
from tui.network.fetch import Reply
from tui.untrusted import clean_line

__all__ = [
    "ADD_COMMENT",
    "ADD_REPLY",
    "CREATE_DISCUSSION",
    "DiscussionError",
    "compose_comment",
    "compose_discussion",
    "graphql_body",
    "graphql_url",
    "look_for",
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

ADD_REPLY = """mutation($discussionId: ID!, $body: String!, $replyToId: ID!) {
  addDiscussionComment(input: {discussionId: $discussionId, body: $body, replyToId: $replyToId}) {
    comment { id url createdAt author { login } }
  }
}"""

#: The comment a reply answers: its post, and its own parent when it is a reply itself.
REPLY_TARGET = """query($id: ID!) {
  node(id: $id) {
    ... on DiscussionComment { id discussion { id number } replyTo { id } }
  }
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

#: The replies a reply joins: those of the comment answered, or of its top-level comment.
REPLY_THREAD = """query($id: ID!) {
  viewer { login }
  node(id: $id) {
    ... on DiscussionComment {
      id
      discussion { id number }
      replyTo { id replies(last: 50) { nodes { id url body createdAt author { login } } } }
      replies(last: 50) { nodes { id url body createdAt author { login } } }
    }
  }
}"""

#: GitHub's limit on a Discussion title.
MAX_TITLE_CHARS = 256
#: Categories a post goes to when its channel has none of its own, as the deployment's client.
FALLBACK_CATEGORIES = ("community", "general")


def nonce_of(body: Any) -> str | None:
    found = NONCE_COMMENT.search(body) if isinstance(body, str) else None
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


def compose_comment(
    payload: Mapping[str, Any], nonce: str, *, discussion_id: str | None = None
) -> dict[str, Any]:
    """The request of a comment on a post, ``{discussion_number, body}``, or of a reply,
    ``{discussion_number, body, reply_to}`` (``reply_to``: the node id of the comment
    answered); with ``discussionId`` when the post's node id is known (``discussion_id``, from
    the deployment's ``discussions_index.json``), so none is asked when it is sent."""
    request: dict[str, Any] = {
        "discussion_number": post_number(payload),
        "body": _with_nonce(str(payload.get("body", "")), nonce),
    }
    if payload.get("reply_to") is not None:
        request["reply_to"] = node_id(payload["reply_to"], "reply_to")
    if discussion_id:
        request["discussionId"] = node_id(discussion_id, "the post's node id")
    return request


# ---------------------------------------------------------------------------------------------
# Sending a post, a comment or a reply


def _nodes(connection: Any) -> list[Any]:
    nodes = connection.get("nodes") if isinstance(connection, dict) else None
    return nodes if isinstance(nodes, list) else []


class DiscussionSend(GraphqlSend):
    """One post (``kind`` ``discussion``), comment or reply (``discussion_comment``)."""

    def __init__(self, client: IssueClient, kind: str, request: Mapping[str, Any], nonce: str):
        super().__init__(client, kind, request, nonce)
        reply_to = request.get("reply_to") if kind == "discussion_comment" else None
        self.reply_to: str | None = reply_to if isinstance(reply_to, str) else None
        self.noun = "post" if kind == "discussion" else "reply" if self.reply_to else "comment"
        self.what = f"the {self.noun}"
        self._target: tuple[str, str | None] | None = None

    async def post(self) -> Reply:
        if self.kind == "discussion":
            variables = {
                key: self.request[key] for key in ("repositoryId", "categoryId", "title", "body")
            }
            return await self.call(CREATE_DISCUSSION, variables)
        discussion_id, reply_to_id = await self.target()
        variables = {"discussionId": discussion_id, "body": self.request["body"]}
        if reply_to_id is None:
            return await self.call(ADD_COMMENT, variables)
        return await self.call(ADD_REPLY, {**variables, "replyToId": reply_to_id})

    async def target(self) -> tuple[str, str | None]:
        """(the Discussion's node id, the comment a reply goes under: the one answered, or
        its top-level comment when that one is a reply itself; None for a comment). Asked once
        per send; ``NotThere`` when the comment answered is not one of this post's."""
        if self._target is None:
            if self.reply_to is None:
                self._target = (await self.discussion_id(), None)
            else:
                data = await self.query(REPLY_TARGET, {"id": self.reply_to})
                node = self._answered(data)
                parent = node.get("replyTo")
                top = parent.get("id") if isinstance(parent, dict) else None
                top = top if isinstance(top, str) and top else node["id"]
                self._target = (node["discussion"]["id"], top)
        return self._target

    def _answered(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """The comment answered, as ``node(id:)`` gave it, checked to be on this post."""
        shown = clean_line(str(self.reply_to), 60)
        node = data.get("node")
        if not isinstance(node, dict):
            raise NotThere(f"there is no comment {shown} (deleted, or not visible to the token)")
        discussion = node.get("discussion")
        if (
            not isinstance(node.get("id"), str)
            or not isinstance(discussion, dict)
            or not isinstance(discussion.get("id"), str)
        ):
            raise NotThere(f"{shown} is not a comment on a Discussion")
        number = self.request["discussion_number"]
        if discussion.get("number") != number:
            said = clean_line(str(discussion.get("number")), 12)
            raise NotThere(f"comment {shown} is on post #{said}, not on #{number}")
        return node

    def created(self, data: Any) -> dict[str, Any] | None:
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

    def unclear_made(self, node: Mapping[str, Any]) -> str | None:
        if self.kind == "discussion" and not is_issue_number(node.get("number")):
            return "createDiscussion answered no Discussion number"  # made, but where?
        return None

    def done(self, result: SendResult, node: Mapping[str, Any], found: bool = False) -> None:
        """Made (``found``: found by its nonce after an unclear answer). A post is applied at
        once; a comment or reply is queued, and applied once the thread shows it (a lookup
        reads the thread: what it finds is seen)."""
        post = self.kind == "discussion"
        result.state = "applied" if post or found else "queued"
        number = node.get("number") if post else self.request.get("discussion_number")
        result.number = number if is_issue_number(number) else None
        url = node.get("url")
        result.html_url = url if isinstance(url, str) else None
        author = node.get("author")
        login = author.get("login") if isinstance(author, dict) else None
        result.author = login if isinstance(login, str) else self.client.known_login
        stamp = node.get("createdAt")
        result.created_at = stamp if isinstance(stamp, str) else None
        result.node_id = None if post else as_node_id(node.get("id"))
        if post:
            result.message = f"Discussion #{result.number} is live"
        elif found:
            result.message = f"{self.noun} on #{result.number} is in the thread"
        else:
            result.message = (
                f"{self.noun} on #{result.number} is made; roost looks for it in the thread"
            )
        if found:
            result.message += " (found after an unclear answer)"

    async def find(self) -> dict[str, Any] | None:
        """The viewer's post or comment carrying this nonce among the newest the platform
        lists: the viewer's newest Discussions, the post's newest comments, or the replies a
        reply joins (GitHub lists replies under their top-level comment)."""
        variables: dict[str, Any] = {"owner": self.owner, "name": self.name}
        if self.kind == "discussion":
            data = await self.query(NEWEST_DISCUSSIONS, variables)
            repository = data.get("repository")
            listed = _nodes(repository.get("discussions") if isinstance(repository, dict) else None)
        elif self.reply_to is None:
            variables["number"] = self.request["discussion_number"]
            data = await self.query(NEWEST_COMMENTS, variables)
            repository = data.get("repository")
            discussion = repository.get("discussion") if isinstance(repository, dict) else None
            if not isinstance(discussion, dict):
                raise LookupFailed(f"Discussion #{variables['number']} was not listed")
            listed = _nodes(discussion.get("comments"))
        else:
            data = await self.query(REPLY_THREAD, {"id": self.reply_to})
            node = self._answered(data)
            parent = node.get("replyTo")
            holder = parent if isinstance(parent, dict) and parent.get("id") else node
            listed = _nodes(holder.get("replies"))
        viewer = data.get("viewer")
        login = viewer.get("login") if isinstance(viewer, dict) else None
        if not isinstance(login, str):
            raise LookupFailed("the platform's answer did not say who the token is")
        for node in listed:
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


def sender(client: IssueClient, kind: str, request: Mapping[str, Any], nonce: str) -> GraphqlSend:
    """The send of one post, comment, reply or reaction."""
    if kind == "discussion_reaction":
        return ReactionSend(client, kind, request, nonce)
    return DiscussionSend(client, kind, request, nonce)


async def send_discussion(
    client: IssueClient,
    kind: str,
    request: Mapping[str, Any],
    nonce: str,
    *,
    maybe_sent: bool = False,
) -> SendResult:
    """Make the post (``kind`` ``discussion``), comment or reply (``discussion_comment``) or
    reaction (``discussion_reaction``) ``request`` describes, or find the one an earlier
    unclear send made."""
    send = sender(client, kind, request, nonce)

    async def post() -> Reply:
        return await send.post()

    try:
        return await client.send_content(post, send.answer, send.look_up, maybe_sent=maybe_sent)
    except NotThere as exc:  # what it answers is not there: nothing was sent
        return SendResult("failed", f"the platform refused {send.what}: {exc}")
    except LookupFailed as exc:  # what it answers could not be read: nothing was sent
        return SendResult(
            "failed",
            f"what {send.what} answers could not be read ({exc}); nothing was sent",
            retry_safe=True,
        )


async def look_for(
    client: IssueClient, kind: str, request: Mapping[str, Any], nonce: str
) -> dict[str, Any] | None:
    """What the platform shows now of an entry's post, comment, reply or reaction (the thread
    read back holds the comment; the subject says the viewer reacted so), None when it shows
    nothing yet. ``LookupFailed`` (``NotThere``) when it cannot tell."""
    return await sender(client, kind, request, nonce).find()


def graphql_body(kind: str, request: Mapping[str, Any]) -> dict[str, Any]:
    """The GraphQL request ``{query, variables}`` an entry sends, for a dry run: ids that are
    asked only when it is sent are named in angle brackets."""
    number = request.get("discussion_number")
    post_id = request.get("discussionId") or f"<the id of Discussion #{number}>"
    if kind == "discussion":
        variables = {k: request[k] for k in ("repositoryId", "categoryId", "title", "body")}
        return {"query": CREATE_DISCUSSION, "variables": variables}
    if kind == "discussion_reaction":
        subject = request.get("subjectId") or request.get("subject") or post_id
        return {
            "query": ADD_REACTION,
            "variables": {"subjectId": subject, "content": request.get("content")},
        }
    variables = {"discussionId": post_id, "body": request.get("body")}
    if request.get("reply_to"):
        top = f"<the top-level comment of {request['reply_to']} (itself when it is one)>"
        return {"query": ADD_REPLY, "variables": {**variables, "replyToId": top}}
    return {"query": ADD_COMMENT, "variables": variables}
