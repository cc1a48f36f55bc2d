"""A GitHub GraphQL endpoint for Discussions, in memory, for ``httpx.MockTransport``.

It answers the requests roost sends to answer a post — ``addDiscussionComment`` (with and
without ``replyToId``), ``addReaction``, ``repository.discussion(number) { id }``, the post's
newest ``comments(last:)``, ``node(id:)`` on a comment (``discussion``, ``replyTo``,
``replies``) and on any reactable (``reactionGroups { content viewerHasReacted }``) — with
GitHub's shapes: ``{"data": …}``, and a ``NOT_FOUND`` error beside a ``null`` field for an id
or number that resolves to nothing. Like GitHub it nests replies one level deep: a
``replyToId`` naming a reply is refused (so a test proves roost never sends one).

Every request is recorded (``asked``: the operation's first field and its variables), and
``faults`` bend the next mutations: ``"cut-after"`` records the mutation and then cuts the
connection, ``"cut-before"`` cuts it before anything is recorded; ``broken_reads`` makes the
next reads answer a 502.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx

LOGIN = "octo"
STAMP = "2027-01-15T08:00:00Z"
CONTENTS = ("THUMBS_UP", "THUMBS_DOWN", "LAUGH", "HOORAY", "CONFUSED", "HEART", "ROCKET", "EYES")


@dataclass
class FakeComment:
    id: str
    body: str
    login: str
    discussion: int
    reply_to: str | None = None
    reactions: set[tuple[str, str]] = field(default_factory=set)

    def shape(self, base: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "url": f"{base}/discussions/{self.discussion}#discussioncomment-{self.id[-4:]}",
            "body": self.body,
            "createdAt": STAMP,
            "author": {"login": self.login},
        }


@dataclass
class FakeDiscussion:
    number: int
    id: str
    reactions: set[tuple[str, str]] = field(default_factory=set)


def _not_found(path: str, what: str) -> dict[str, Any]:
    return {
        "type": "NOT_FOUND",
        "path": [path],
        "locations": [{"line": 2, "column": 3}],
        "message": what,
    }


class FakeGitHub:
    """Discussion #7 of ``owner/repo`` with a comment ``DC_c1`` (by ``agent``) and its reply
    ``DC_r1``; the viewer is ``octo``."""

    base = "https://github.test/owner/repo"

    def __init__(self) -> None:
        self.discussions = {
            7: FakeDiscussion(7, "D_kwDOpost7"),
            8: FakeDiscussion(8, "D_kwDOpost8"),
        }
        self.comments: dict[str, FakeComment] = {}
        self.add(FakeComment("DC_c1", "First!", "agent", 7))
        self.add(FakeComment("DC_r1", "A reply", "agent", 7, reply_to="DC_c1"))
        self.add(FakeComment("DC_o1", "On the other post", "agent", 8))
        self.asked: list[tuple[str, dict[str, Any]]] = []
        self.faults: list[str] = []
        self.during_mutation: list[Any] = []  # callables run as each mutation arrives
        self.broken_reads = 0  # the next reads answer 502
        self.made = 0

    def add(self, comment: FakeComment) -> FakeComment:
        self.comments[comment.id] = comment
        return comment

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    # -- the endpoint -------------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/graphql", request.url
        assert request.headers["authorization"].startswith("Bearer ")
        payload = json.loads(request.content)
        query, variables = payload["query"], payload.get("variables") or {}
        mutation = query.lstrip().startswith("mutation")
        if not mutation and self.broken_reads:
            self.broken_reads -= 1
            return httpx.Response(502, text="<html>502 Bad Gateway</html>")
        if mutation:
            for hook in self.during_mutation:
                hook()
            fault = self.faults.pop(0) if self.faults else None
            if fault == "cut-before":
                raise httpx.ReadTimeout("cut off", request=request)
        answer = self.answer(query, variables)
        if mutation and fault == "cut-after":
            raise httpx.ReadTimeout("cut off", request=request)
        return httpx.Response(200, json=answer)

    def answer(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        if "addDiscussionComment" in query:
            self.asked.append(("addDiscussionComment", dict(variables)))
            return self.add_comment(variables)
        if "addReaction" in query:
            self.asked.append(("addReaction", dict(variables)))
            return self.add_reaction(variables)
        if "node(id:" in query:
            self.asked.append(("node", dict(variables)))
            return self.node(query, variables["id"])
        if "discussion(number:" in query:
            self.asked.append(("discussion", dict(variables)))
            return self.discussion(query, variables["number"])
        raise AssertionError(f"the fake does not know {query!r}")

    # -- mutations ----------------------------------------------------------------------------

    def _discussion_by_id(self, node_id: Any) -> FakeDiscussion | None:
        return next((d for d in self.discussions.values() if d.id == node_id), None)

    def add_comment(self, variables: dict[str, Any]) -> dict[str, Any]:
        discussion = self._discussion_by_id(variables.get("discussionId"))
        if discussion is None:
            said = f"Could not resolve to a node with the global id of '{variables.get('discussionId')}'"
            return {
                "data": {"addDiscussionComment": None},
                "errors": [_not_found("addDiscussionComment", said)],
            }
        reply_to = variables.get("replyToId")
        if reply_to is not None:
            parent = self.comments.get(reply_to)
            if parent is None or parent.discussion != discussion.number or parent.reply_to:
                error = {
                    "type": "UNPROCESSABLE",
                    "path": ["addDiscussionComment"],
                    "message": "replyToId must name a top-level comment of this discussion",
                }
                return {"data": {"addDiscussionComment": None}, "errors": [error]}
        self.made += 1
        comment = self.add(
            FakeComment(
                f"DC_new{self.made:04d}", variables["body"], LOGIN, discussion.number, reply_to
            )
        )
        return {"data": {"addDiscussionComment": {"comment": comment.shape(self.base)}}}

    def _reactable(self, node_id: Any) -> FakeDiscussion | FakeComment | None:
        return self._discussion_by_id(node_id) or self.comments.get(node_id)

    def add_reaction(self, variables: dict[str, Any]) -> dict[str, Any]:
        subject = self._reactable(variables.get("subjectId"))
        if subject is None:
            said = (
                f"Could not resolve to a node with the global id of '{variables.get('subjectId')}'"
            )
            return {"data": {"addReaction": None}, "errors": [_not_found("addReaction", said)]}
        content = variables["content"]
        assert content in CONTENTS
        subject.reactions.add((LOGIN, content))
        return {
            "data": {
                "addReaction": {"reaction": {"content": content}, "subject": {"id": subject.id}}
            }
        }

    # -- reads ---------------------------------------------------------------------------------

    def replies(self, comment_id: str) -> list[dict[str, Any]]:
        listed = [c for c in self.comments.values() if c.reply_to == comment_id]
        return [c.shape(self.base) for c in listed[-50:]]

    def node(self, query: str, node_id: str) -> dict[str, Any]:
        viewer = {"viewer": {"login": LOGIN}} if "viewer" in query else {}
        found = self._reactable(node_id)
        if found is None:
            said = f"Could not resolve to a node with the global id of '{node_id}'"
            return {"data": {**viewer, "node": None}, "errors": [_not_found("node", said)]}
        shape: dict[str, Any] = {}
        if "reactionGroups" in query:
            shape["reactionGroups"] = [
                {"content": c, "viewerHasReacted": (LOGIN, c) in found.reactions} for c in CONTENTS
            ]
        if "... on DiscussionComment" in query and isinstance(found, FakeComment):
            parent = self.comments.get(found.reply_to) if found.reply_to else None
            discussion = self.discussions[found.discussion]
            shape.update(
                {
                    "id": found.id,
                    "discussion": {"id": discussion.id, "number": discussion.number},
                    "replyTo": None
                    if parent is None
                    else {"id": parent.id, "replies": {"nodes": self.replies(parent.id)}},
                    "replies": {"nodes": self.replies(found.id)},
                }
            )
        return {"data": {**viewer, "node": shape}}

    def discussion(self, query: str, number: int) -> dict[str, Any]:
        viewer = {"viewer": {"login": LOGIN}} if "viewer" in query else {}
        found = self.discussions.get(number)
        if found is None:
            said = f"Could not resolve to a Discussion with the number of {number}."
            return {
                "data": {**viewer, "repository": {"discussion": None}},
                "errors": [_not_found("repository", said) | {"path": ["repository", "discussion"]}],
            }
        shape: dict[str, Any] = {"id": found.id}
        if "comments(last:" in query:
            top = [c for c in self.comments.values() if c.discussion == number and not c.reply_to]
            shape["comments"] = {"nodes": [c.shape(self.base) for c in top[-50:]]}
        return {"data": {**viewer, "repository": {"discussion": shape}}}

    # -- what tests look at ---------------------------------------------------------------------

    def mutations(self, name: str) -> list[dict[str, Any]]:
        return [v for n, v in self.asked if n == name]

    def made_by_viewer(self) -> list[FakeComment]:
        return [c for c in self.comments.values() if c.login == LOGIN]
