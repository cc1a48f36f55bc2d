"""The objects the sandbox's GraphQL schema (``graphql_schema``) resolves to.

Each class stands for one GitHub type (``TYPENAME``); its attributes and methods are named like
the type's fields (a method gets the field's arguments). They read the demo network through a
``Context`` — the network, its ``Conversation`` and the caller — so a Discussion made a moment
ago reads like a generated one. ``lookup`` finds a node by its id (``node(id:)``).
"""

from __future__ import annotations

import base64
from typing import Any

from tui.network.state_files import CHANNELS
from tui.sandbox.github_shapes import category_node_id, repo_node_id, stable_int
from tui.sandbox.graphql_schema import FieldError
from tui.sandbox.threads import (
    REACTIONS,
    Comment,
    discussion_node_id,
    discussion_rest_id,
    number_of_node,
)

__all__ = [
    "CategoryNode",
    "CommentNode",
    "Context",
    "DiscussionNode",
    "RepositoryNode",
    "UserNode",
    "lookup",
    "page",
]

MAX_PAGE = 100


class Context:
    """What one request's resolvers share: the sandbox state, the caller, the base URL."""

    def __init__(self, state: Any, login: str, base: str, api: Any = None):
        self.state = state
        #: The request's ``github_api.ApiContext`` (its rate account).
        self.api = api
        self.network = state.network
        self.talk = state.network.conversation
        self.login = login
        self.base = base
        #: Some content was created (the write latency knob applies).
        self.created = False

    @property
    def log(self) -> dict[str, Any]:
        return self.network.log

    @property
    def repo_id(self) -> str:
        return repo_node_id(self.state.owner, self.state.repo)

    def channels(self) -> dict[str, dict[str, Any]]:
        return self.network.docs[CHANNELS].get("channels", {})

    def discussion(self, number: Any) -> DiscussionNode | None:
        if isinstance(number, int) and self.talk.exists(self.log, number):
            return DiscussionNode(number, self)
        return None

    def comment(self, comment_id: int) -> CommentNode | None:
        found = self.talk.comment(self.log, comment_id)
        return CommentNode(found, self) if found else None


# ---------------------------------------------------------------------------------------------
# Connections


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _index(cursor: Any, name: str) -> int:
    try:
        text = base64.b64decode(str(cursor), validate=True).decode()
        return int(text.removeprefix("cursor:v2:"))
    except (ValueError, UnicodeDecodeError):
        raise FieldError(
            "INVALID_CURSOR_ARGUMENTS", f"`{name}` does not appear to be a valid cursor."
        ) from None


def page(
    items: list[Any],
    *,
    first: int | None = None,
    after: str | None = None,
    last: int | None = None,
    before: str | None = None,
    bounded: bool = True,
) -> dict[str, Any]:
    """A GitHub connection over ``items`` (``bounded``: ``first`` or ``last`` is required)."""
    for value, name in ((first, "first"), (last, "last")):
        if value is not None and not 0 <= value <= MAX_PAGE:
            raise FieldError(
                "INVALID_CURSOR_ARGUMENTS",
                f"`{name}` on a connection cannot be less than zero or exceed {MAX_PAGE}.",
            )
    if first is None and last is None:
        if bounded:
            raise FieldError(
                "MISSING_PAGINATION_BOUNDARIES",
                "You must provide a `first` or `last` value to properly paginate the connection.",
            )
        first = MAX_PAGE
    start = _index(after, "after") + 1 if after is not None else 0
    end = min(_index(before, "before"), len(items)) if before is not None else len(items)
    start = max(0, min(start, end))
    if first is not None:
        end = min(end, start + first)
    if last is not None:
        start = max(start, end - last)
    chosen = list(range(start, end))
    nodes = [items[i] for i in chosen]
    return {
        "totalCount": len(items),
        "nodes": nodes,
        "edges": [{"cursor": _cursor(i), "node": items[i]} for i in chosen],
        "pageInfo": {
            "hasNextPage": end < len(items),
            "hasPreviousPage": start > 0,
            "startCursor": _cursor(chosen[0]) if chosen else None,
            "endCursor": _cursor(chosen[-1]) if chosen else None,
        },
    }


# ---------------------------------------------------------------------------------------------
# Types


class UserNode:
    TYPENAME = "User"

    def __init__(self, login: str, ctx: Context):
        self.login = login
        self._ctx = ctx
        self.databaseId = stable_int(login)
        self.id = f"U_kgROOST{self.databaseId}"
        self.name = None
        self.url = f"{ctx.base}/{login}"
        self.resourcePath = f"/{login}"

    def avatarUrl(self, info: Any, size: int | None = None) -> str:
        return f"{self._ctx.base}/avatars/{self.login}.png"


class ReactionNode:
    TYPENAME = "Reaction"

    def __init__(self, content: str, login: str, subject: Any, ctx: Context, stamp: str | None):
        self.content = content
        self.user = UserNode(login, ctx)
        self.reactable = subject
        self.createdAt = stamp
        self.databaseId = stable_int(f"{subject.id}:{login}:{content}")
        self.id = f"REA_kwROOST{self.databaseId}"


class ReactionGroupNode:
    TYPENAME = "ReactionGroup"

    def __init__(self, content: str, logins: list[str], subject: Any, ctx: Context):
        self.content = content
        self.subject = subject
        self.createdAt = None
        self.viewerHasReacted = ctx.login in logins
        self._users = [UserNode(login, ctx) for login in logins]

    def users(self, info: Any, **window: Any) -> dict[str, Any]:
        return page(self._users, bounded=False, **window)

    def reactors(self, info: Any, **window: Any) -> dict[str, Any]:
        return page(self._users, bounded=False, **window)


class _Reactable:
    """The reaction fields of a Discussion or a comment (``_reactors``: content → logins)."""

    id: str
    _ctx: Context

    def _reactors(self) -> dict[str, list[str]]:
        raise NotImplementedError

    @property
    def viewerCanReact(self) -> bool:
        return True

    @property
    def upvoteCount(self) -> int:
        return len(self._reactors().get("THUMBS_UP", []))

    @property
    def reactionGroups(self) -> list[ReactionGroupNode]:
        found = self._reactors()
        return [ReactionGroupNode(c, found.get(c, []), self, self._ctx) for c in REACTIONS]

    def reactions(self, info: Any, content: str | None = None, **window: Any) -> dict[str, Any]:
        found = self._reactors()
        items = [
            ReactionNode(kind, login, self, self._ctx, None)
            for kind in REACTIONS
            if content in (None, kind)
            for login in found.get(kind, [])
        ]
        connection = page(items, bounded=False, **window)
        connection["viewerHasReacted"] = any(r.user.login == self._ctx.login for r in items)
        return connection


class CategoryNode:
    TYPENAME = "DiscussionCategory"

    def __init__(self, slug: str, ctx: Context):
        channel = ctx.channels().get(slug, {})
        self.id = category_node_id(slug)
        self.slug = slug
        self.name = str(channel.get("name") or slug)
        self.description = str(channel.get("description") or "")
        self.emoji = ":speech_balloon:"
        self.emojiHTML = "<div>💬</div>"
        self.isAnswerable = False
        self.createdAt = self.updatedAt = str(channel.get("created_at") or "")
        self.repository = RepositoryNode(ctx)


class CommentNode(_Reactable):
    TYPENAME = "DiscussionComment"

    def __init__(self, comment: Comment, ctx: Context):
        self._comment = comment
        self._ctx = ctx
        self.id = comment.node_id
        self.databaseId = comment.id
        self.body = self.bodyText = comment.body
        self.createdAt = self.updatedAt = self.publishedAt = comment.created_at
        self.lastEditedAt = self.deletedAt = None
        self.author = UserNode(comment.login, ctx)
        self.authorAssociation = "OWNER" if comment.login == ctx.state.owner else "NONE"
        self.isAnswer = self.isMinimized = False
        self.viewerDidAuthor = comment.login == ctx.login

    @property
    def url(self) -> str:
        return f"{self.discussion.url}#discussioncomment-{self._comment.id}"

    @property
    def discussion(self) -> DiscussionNode:
        return DiscussionNode(self._comment.number, self._ctx)

    @property
    def replyTo(self) -> CommentNode | None:
        parent = self._comment.parent_id
        return self._ctx.comment(parent) if parent is not None else None

    def replies(self, info: Any, **window: Any) -> dict[str, Any]:
        ctx = self._ctx
        found = [
            CommentNode(c, ctx)
            for c in ctx.talk.comments_of(ctx.log, self._comment.number)
            if c.parent_id == self._comment.id
        ]
        return page(found, **window)

    def _reactors(self) -> dict[str, list[str]]:
        return self._ctx.talk.reactions_on(self.id, self._comment.reactions)


class DiscussionNode(_Reactable):
    TYPENAME = "Discussion"

    def __init__(self, number: int, ctx: Context):
        self._ctx = ctx
        info = ctx.talk.info(ctx.log, number)
        assert info is not None, number  # a Context makes one only for a Discussion there is
        self.number = number
        self.id = discussion_node_id(number)
        self.databaseId = discussion_rest_id(number)
        self.title, self.url, self.channel = info.title, info.url, info.channel
        self.resourcePath = f"/{ctx.state.owner}/{ctx.state.repo}/discussions/{number}"
        self.createdAt = self.publishedAt = info.created_at
        self.lastEditedAt = self.closedAt = self.answer = self.isAnswered = None
        self._login = info.login
        self.author = UserNode(info.login, ctx)
        self.authorAssociation = "OWNER" if info.login == ctx.state.owner else "NONE"
        self.locked = self.closed = False
        self.viewerDidAuthor = info.login == ctx.login
        self.viewerCanUpvote = True
        self._all: list[Comment] | None = None

    def all_comments(self) -> list[Comment]:
        if self._all is None:
            self._all = self._ctx.talk.comments_of(self._ctx.log, self.number)
        return self._all

    @property
    def body(self) -> str:
        return self._ctx.talk.body(self._ctx.log, self.number)

    @property
    def bodyText(self) -> str:
        return self.body

    @property
    def updatedAt(self) -> str:
        return max([self.createdAt, *(c.created_at for c in self.all_comments())])

    @property
    def category(self) -> CategoryNode:
        return CategoryNode(self.channel, self._ctx)

    @property
    def repository(self) -> RepositoryNode:
        return RepositoryNode(self._ctx)

    @property
    def viewerHasUpvoted(self) -> bool:
        return self._ctx.login in self._reactors().get("THUMBS_UP", [])

    def comments(self, info: Any, **window: Any) -> dict[str, Any]:
        tops = [CommentNode(c, self._ctx) for c in self.all_comments() if c.parent_id is None]
        return page(tops, **window)

    def _reactors(self) -> dict[str, list[str]]:
        return self._ctx.talk.discussion_reactors(self._ctx.log, self.number)


class RepositoryNode:
    TYPENAME = "Repository"

    def __init__(self, ctx: Context):
        state = ctx.state
        self._ctx = ctx
        self.id = ctx.repo_id
        self.databaseId = stable_int(f"repo:{state.owner}/{state.repo}")
        self.name = state.repo
        self.nameWithOwner = f"{state.owner}/{state.repo}"
        self.url = f"{ctx.base}/{state.owner}/{state.repo}"
        self.hasDiscussionsEnabled = True

    @property
    def owner(self) -> UserNode:
        return UserNode(self._ctx.state.owner, self._ctx)

    def discussion(self, info: Any, number: int) -> DiscussionNode:
        found = self._ctx.discussion(number)
        if found is None:
            raise FieldError(
                "NOT_FOUND", f"Could not resolve to a Discussion with the number of {number}."
            )
        return found

    def discussions(
        self,
        info: Any,
        categoryId: str | None = None,
        answered: bool | None = None,
        orderBy: dict[str, str] | None = None,
        **window: Any,
    ) -> dict[str, Any]:
        ctx = self._ctx
        rows = ctx.talk.listing(ctx.log)
        if categoryId is not None:
            rows = [r for r in rows if category_node_id(r[3]) == categoryId]
        order = orderBy or {"field": "UPDATED_AT", "direction": "DESC"}
        column = 0 if order.get("field") == "CREATED_AT" else 1
        rows.sort(key=lambda r: (r[column], r[2]), reverse=order.get("direction") != "ASC")
        numbers = [r[2] for r in rows]
        connection = page(numbers, **window)
        made = {n: DiscussionNode(n, ctx) for n in connection["nodes"]}
        connection["nodes"] = [made[n] for n in connection["nodes"]]
        for edge in connection["edges"]:
            edge["node"] = made[edge["node"]]
        return connection

    def discussionCategories(
        self, info: Any, filterByAssignable: bool | None = None, **window: Any
    ) -> dict[str, Any]:
        ctx = self._ctx
        return page([CategoryNode(slug, ctx) for slug in sorted(ctx.channels())], **window)

    def discussionCategory(self, info: Any, slug: str) -> CategoryNode | None:
        return CategoryNode(slug, self._ctx) if slug in self._ctx.channels() else None


def lookup(ctx: Context, node_id: Any) -> Any:
    """The node with the id ``node_id`` (a Discussion, a comment, the repository, a category,
    the viewer), or None."""
    number = number_of_node(node_id, "D_kwROOST")
    if number is not None:
        return ctx.discussion(number)
    comment_id = number_of_node(node_id, "DC_kwROOST")
    if comment_id is not None:
        return ctx.comment(comment_id)
    if node_id == ctx.repo_id:
        return RepositoryNode(ctx)
    slug = next((s for s in ctx.channels() if category_node_id(s) == node_id), None)
    if slug is not None:
        return CategoryNode(slug, ctx)
    viewer = UserNode(ctx.login, ctx)
    return viewer if node_id == viewer.id else None
