"""The sandbox's GitHub GraphQL endpoint (``POST {write_url}/graphql``), for Discussions.

It answers what the deployment's own clients ask, in GitHub's shapes: ``viewer { login }``,
``repository(owner, name) { id discussionCategories discussion(number) discussions }``, the
mutations ``createDiscussion``, ``addDiscussionComment`` and ``addReaction``. Errors are
GitHub's: 401 without or with a bad token, a 200 whose ``errors`` name ``NOT_FOUND`` (with the
field ``null`` beside it), a request error for an unknown field or bad syntax, and the write
fault knobs as GitHub's GraphQL reports them (``RATE_LIMITED`` in a 200, a secondary limit's 403
with ``Retry-After``, ``INSUFFICIENT_SCOPES``, 5xx). A Discussion created here is a post of the
demo network: it shows in trending at once (the deployment's state follows its Discussions).

The trending posts of the generated network are Discussions too: they can be read and commented
on by number.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tui.network.state_files import CHANNELS, TRENDING
from tui.sandbox.generator import iso
from tui.sandbox.github_api import ApiContext
from tui.sandbox.github_shapes import category_node_id, repo_node_id, stable_int
from tui.sandbox.graphql import (
    Field,
    FieldError,
    GraphQLRequestError,
    ObjectType,
    Schema,
    execute,
    parse,
)
from tui.sandbox.state import SandboxDiscussion, SandboxState, base_url_of, pause, sandbox_of

__all__ = ["routes"]

DOC = "https://docs.github.com/graphql"
#: The mutations that create content (the write fault knobs and the pacing apply to them).
CONTENT_MUTATIONS = frozenset({"createDiscussion", "addDiscussionComment"})
REACTIONS = frozenset(
    {"THUMBS_UP", "THUMBS_DOWN", "LAUGH", "HOORAY", "CONFUSED", "HEART", "ROCKET", "EYES"}
)


class _Context:
    """What one request's resolvers share."""

    def __init__(self, state: SandboxState, login: str, base: str):
        self.state = state
        self.login = login
        self.base = base
        self.created = False  # some content was created (the write latency knob applies)

    @property
    def repo_id(self) -> str:
        return repo_node_id(self.state.owner, self.state.repo)

    def html(self, number: int) -> str:
        return f"{self.base}/{self.state.owner}/{self.state.repo}/discussions/{number}"

    # -- the Discussions there are ------------------------------------------------------------

    def channels(self) -> dict[str, dict[str, Any]]:
        return self.state.network.docs[CHANNELS].get("channels", {})

    def _trending(self) -> list[dict[str, Any]]:
        return [
            p
            for p in self.state.network.docs[TRENDING].get("trending", [])
            if isinstance(p.get("number"), int)
        ]

    def discussion(self, number: int) -> SandboxDiscussion | dict[str, Any] | None:
        own = next((d for d in self.state.discussions if d.number == number), None)
        if own is not None:
            return own
        return next((p for p in self._trending() if p["number"] == number), None)

    def all_discussions(self) -> list[SandboxDiscussion | dict[str, Any]]:
        own = {d.number for d in self.state.discussions}
        listed: list[SandboxDiscussion | dict[str, Any]] = list(self.state.discussions)
        listed += [p for p in self._trending() if p["number"] not in own]
        return listed

    def materialise(self, number: int) -> SandboxDiscussion | None:
        """A Discussion that can take comments (a trending post becomes one when needed)."""
        found = self.discussion(number)
        if isinstance(found, SandboxDiscussion) or found is None:
            return found
        made = SandboxDiscussion(
            number=number,
            title=str(found.get("title", "")),
            body="",
            channel=str(found.get("channel", "")),
            category_id=category_node_id(str(found.get("channel", ""))),
            login=str(found.get("author", "")),
            created_at=self.state.network.generated_at,
            url=str(found.get("url") or self.html(number)),
        )
        self.state.discussions.append(made)
        return made

    def by_node_id(self, node_id: Any) -> SandboxDiscussion | None:
        if not isinstance(node_id, str) or not node_id.startswith("D_kwROOST"):
            return None
        try:
            number = int(node_id.removeprefix("D_kwROOST"))
        except ValueError:
            return None
        return self.materialise(number)


# ---------------------------------------------------------------------------------------------
# Resolvers


def _user(login: str) -> dict[str, Any]:
    return {"login": login}


def _as_discussion(ctx: _Context, found: SandboxDiscussion | dict[str, Any]) -> dict[str, Any]:
    if isinstance(found, SandboxDiscussion):
        return {
            "id": found.node_id,
            "number": found.number,
            "title": found.title,
            "body": found.body,
            "url": found.url,
            "createdAt": found.created_at,
            "updatedAt": found.comments[-1]["createdAt"] if found.comments else found.created_at,
            "author": _user(found.login),
            "category": found.channel,
            "_comments": found.comments,
            "upvoteCount": sum(1 for _, c in found.reactions if c == "THUMBS_UP"),
        }
    number = found["number"]
    return {
        "id": f"D_kwROOST{number:08d}",
        "number": number,
        "title": str(found.get("title", "")),
        "body": "",
        "url": str(found.get("url") or ctx.html(number)),
        "createdAt": ctx.state.network.generated_at,
        "updatedAt": ctx.state.network.generated_at,
        "author": _user(str(found.get("author", ""))),
        "category": str(found.get("channel", "")),
        "_comments": [],
        "upvoteCount": int(found.get("upvotes") or 0),
    }


def _category(ctx: _Context, slug: str) -> dict[str, Any]:
    channel = ctx.channels().get(slug, {})
    return {"id": category_node_id(slug), "name": str(channel.get("name") or slug), "slug": slug}


def _window(items: list[Any], args: dict[str, Any]) -> list[Any]:
    first, last = args.get("first"), args.get("last")
    for value, name in ((first, "first"), (last, "last")):
        if value is not None and (not isinstance(value, int) or not 0 <= value <= 100):
            raise FieldError(
                "INVALID_CURSOR_ARGUMENTS",
                f"`{name}` on a connection cannot be less than zero or exceed 100.",
            )
    if first is None and last is None:
        raise FieldError(
            "MISSING_PAGINATION_BOUNDARIES",
            "You must provide a `first` or `last` value to properly paginate the connection.",
        )
    if first is not None:
        items = items[:first]
    if last is not None:
        items = items[-last:] if last else []
    return items


def _connection(nodes: list[Any], total: int) -> dict[str, Any]:
    return {
        "nodes": nodes,
        "totalCount": total,
        "pageInfo": {
            "hasNextPage": total > len(nodes),
            "hasPreviousPage": False,
            "endCursor": None,
            "startCursor": None,
        },
    }


def _repository(_: Any, args: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    owner, name = args.get("owner"), args.get("name")
    state = ctx.state
    if (
        not isinstance(owner, str)
        or not isinstance(name, str)
        or owner.lower() != state.owner.lower()
        or name.lower() != state.repo.lower()
    ):
        raise FieldError(
            "NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'."
        )
    return {"owner": state.owner, "name": state.repo}


def _discussion(_: Any, args: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    number = args.get("number")
    found = ctx.discussion(number) if isinstance(number, int) else None
    if found is None:
        raise FieldError(
            "NOT_FOUND", f"Could not resolve to a Discussion with the number of {number}."
        )
    return _as_discussion(ctx, found)


def _discussions(_: Any, args: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    listed = [_as_discussion(ctx, d) for d in ctx.all_discussions()]
    category = args.get("categoryId")
    if category is not None:
        listed = [d for d in listed if category_node_id(d["category"]) == category]
    order = args.get("orderBy") or {"field": "UPDATED_AT", "direction": "DESC"}
    key = "createdAt" if order.get("field") == "CREATED_AT" else "updatedAt"
    listed.sort(key=lambda d: (d[key], d["number"]), reverse=order.get("direction") != "ASC")
    return _connection(_window(listed, args), len(listed))


def _categories(_: Any, args: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    listed = [_category(ctx, slug) for slug in sorted(ctx.channels())]
    return _connection(_window(listed, args), len(listed))


def _comments(parent: dict[str, Any], args: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    listed = list(parent["_comments"])
    return _connection(_window(listed, args), len(listed))


def _input(args: dict[str, Any]) -> dict[str, Any]:
    value = args.get("input")
    if not isinstance(value, dict):
        raise FieldError("INVALID", "Argument 'input' on Field is required.")
    return value


def _create_discussion(_: Any, args: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    data = _input(args)
    state = ctx.state
    repository, category = data.get("repositoryId"), data.get("categoryId")
    if repository != ctx.repo_id:
        raise FieldError(
            "NOT_FOUND", f"Could not resolve to a node with the global id of '{repository}'"
        )
    slug = next((s for s in ctx.channels() if category_node_id(s) == category), None)
    if slug is None:
        raise FieldError(
            "NOT_FOUND", f"Could not resolve to a node with the global id of '{category}'"
        )
    title, body = data.get("title"), data.get("body")
    if not isinstance(title, str) or not title.strip():
        raise FieldError("UNPROCESSABLE", "Title can't be blank")
    if not isinstance(body, str):
        raise FieldError("UNPROCESSABLE", "Body can't be blank")
    now = state.clock()
    number = max([state.network.max_post_number(), *(d.number for d in state.discussions)]) + 1
    made = SandboxDiscussion(
        number=number,
        title=title,
        body=body,
        channel=slug,
        category_id=category,
        login=ctx.login,
        created_at=iso(now),
        url=ctx.html(number),
    )
    state.discussions.append(made)
    state.network.add_post(slug, title, ctx.login, now, number, made.url)
    state.changed()
    ctx.created = True
    return {
        "discussion": _as_discussion(ctx, made),
        "clientMutationId": data.get("clientMutationId"),
    }


def _add_comment(_: Any, args: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    data = _input(args)
    discussion = ctx.by_node_id(data.get("discussionId"))
    if discussion is None:
        raise FieldError(
            "NOT_FOUND",
            f"Could not resolve to a node with the global id of '{data.get('discussionId')}'",
        )
    body = data.get("body")
    if not isinstance(body, str) or not body.strip():
        raise FieldError("UNPROCESSABLE", "Body can't be blank")
    now = ctx.state.clock()
    index = len(discussion.comments) + 1
    comment_id = stable_int(f"discussion:{discussion.number}:{index}")
    comment = {
        "id": f"DC_kwROOST{comment_id}",
        "url": f"{discussion.url}#discussioncomment-{comment_id}",
        "body": body,
        "createdAt": iso(now),
        "author": _user(ctx.login),
    }
    discussion.comments.append(comment)
    ctx.state.network.add_comment(discussion.number, ctx.login, now)
    ctx.state.changed()
    ctx.created = True
    return {"comment": comment, "clientMutationId": data.get("clientMutationId")}


def _add_reaction(_: Any, args: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    data = _input(args)
    content = data.get("content")
    if content not in REACTIONS:
        raise FieldError("INVALID", f"Argument 'content' has an invalid value ({content}).")
    discussion = ctx.by_node_id(data.get("subjectId"))
    if discussion is None:
        raise FieldError(
            "NOT_FOUND",
            f"Could not resolve to a node with the global id of '{data.get('subjectId')}'",
        )
    if (ctx.login, content) not in discussion.reactions:
        discussion.reactions.append((ctx.login, content))
        ctx.state.changed()
    return {
        "reaction": {"content": content},
        "subject": {"id": discussion.node_id},
        "clientMutationId": data.get("clientMutationId"),
    }


def _get(key: str, returns: str) -> Field:
    return Field(lambda parent, args, ctx: parent.get(key), returns)


def _schema() -> Schema:
    user = ObjectType("User", {"login": _get("login", "String!")}, also=("Actor",))
    page = ObjectType(
        "PageInfo",
        {
            k: _get(k, "Boolean!" if k.startswith("has") else "String")
            for k in ("hasNextPage", "hasPreviousPage", "endCursor", "startCursor")
        },
    )

    def connection(name: str, node: str) -> ObjectType:
        return ObjectType(
            name,
            {
                "nodes": _get("nodes", f"[{node}]"),
                "totalCount": _get("totalCount", "Int!"),
                "pageInfo": _get("pageInfo", "PageInfo!"),
            },
        )

    comment = ObjectType(
        "DiscussionComment",
        {
            "id": _get("id", "ID!"),
            "url": _get("url", "URI!"),
            "body": _get("body", "String!"),
            "createdAt": _get("createdAt", "DateTime!"),
            "author": _get("author", "User"),
        },
    )
    category = ObjectType(
        "DiscussionCategory",
        {k: _get(k, "String!") for k in ("id", "name", "slug")},
    )
    discussion = ObjectType(
        "Discussion",
        {
            **{
                k: _get(k, t)
                for k, t in (
                    ("id", "ID!"),
                    ("number", "Int!"),
                    ("title", "String!"),
                    ("body", "String!"),
                    ("url", "URI!"),
                    ("createdAt", "DateTime!"),
                    ("updatedAt", "DateTime!"),
                    ("author", "User"),
                    ("upvoteCount", "Int!"),
                )
            },
            "category": Field(
                lambda p, a, ctx: _category(ctx, p["category"]), "DiscussionCategory!"
            ),
            "comments": Field(_comments, "DiscussionCommentConnection!"),
        },
    )
    repository = ObjectType(
        "Repository",
        {
            "id": Field(lambda p, a, ctx: ctx.repo_id, "ID!"),
            "name": _get("name", "String!"),
            "nameWithOwner": Field(lambda p, a, ctx: f"{p['owner']}/{p['name']}", "String!"),
            "owner": Field(lambda p, a, ctx: _user(p["owner"]), "User!"),
            "url": Field(lambda p, a, ctx: f"{ctx.base}/{p['owner']}/{p['name']}", "URI!"),
            "discussionCategories": Field(_categories, "DiscussionCategoryConnection!"),
            "discussion": Field(_discussion, "Discussion"),
            "discussions": Field(_discussions, "DiscussionConnection!"),
        },
    )
    reaction = ObjectType("Reaction", {"content": _get("content", "ReactionContent!")})
    subject = ObjectType("Reactable", {"id": _get("id", "ID!")})
    mutation_id = _get("clientMutationId", "String")
    types = [
        user,
        page,
        comment,
        category,
        discussion,
        repository,
        reaction,
        subject,
        connection("DiscussionConnection", "Discussion"),
        connection("DiscussionCategoryConnection", "DiscussionCategory"),
        connection("DiscussionCommentConnection", "DiscussionComment"),
        ObjectType(
            "Query",
            {
                "viewer": Field(lambda p, a, ctx: _user(ctx.login), "User!"),
                "repository": Field(_repository, "Repository"),
            },
        ),
        ObjectType(
            "CreateDiscussionPayload",
            {"discussion": _get("discussion", "Discussion"), "clientMutationId": mutation_id},
        ),
        ObjectType(
            "AddDiscussionCommentPayload",
            {"comment": _get("comment", "DiscussionComment"), "clientMutationId": mutation_id},
        ),
        ObjectType(
            "AddReactionPayload",
            {
                "reaction": _get("reaction", "Reaction"),
                "subject": _get("subject", "Reactable"),
                "clientMutationId": mutation_id,
            },
        ),
        ObjectType(
            "Mutation",
            {
                "createDiscussion": Field(_create_discussion, "CreateDiscussionPayload"),
                "addDiscussionComment": Field(_add_comment, "AddDiscussionCommentPayload"),
                "addReaction": Field(_add_reaction, "AddReactionPayload"),
            },
        ),
    ]
    return Schema({t.name: t for t in types})


SCHEMA = _schema()


# ---------------------------------------------------------------------------------------------
# The endpoint


def _body(
    api: ApiContext,
    data: dict[str, Any],
    status: int = 200,
    *,
    headers: dict[str, str] | None = None,
    exhausted: bool = False,
) -> Response:
    all_headers = api.headers(exhausted=exhausted)
    all_headers.update(headers or {})
    return Response(
        json.dumps(data, ensure_ascii=False).encode("utf-8"),
        status,
        headers=all_headers,
        media_type="application/json; charset=utf-8",
    )


def _write_fault(api: ApiContext, status: int, field: str) -> Response:
    """A write fault as GitHub's GraphQL answers it."""
    faults = api.state.faults
    user_id = stable_int(api.login or "anonymous")
    if status == 401:
        return _body(api, {"message": "Bad credentials", "documentation_url": DOC}, 401)
    if status == 403 and faults.write_variant == "primary":
        errors = [
            {
                "type": "RATE_LIMITED",
                "message": f"API rate limit already exceeded for user ID {user_id}.",
            }
        ]
        return _body(api, {"errors": errors}, exhausted=True)
    if status == 403 and faults.write_variant == "scope":
        api.scopes = "read:user"
        message = (
            "Your token has not been granted the required scopes to execute this query. The "
            f"'{field}' field requires one of the following scopes: ['public_repo'], but your "
            "token has only been granted the: ['read:user'] scopes. Please modify your token's "
            "scopes at: https://github.com/settings/tokens."
        )
        return _body(api, {"errors": [{"type": "INSUFFICIENT_SCOPES", "message": message}]})
    if status in (403, 429):
        return _body(
            api,
            {
                "documentation_url": f"{DOC}/overview/rate-limits-and-node-limits-for-the-graphql-api",
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes "
                "before you try again.",
            },
            status,
            headers={"Retry-After": str(faults.retry_after)},
        )
    if status == 404:
        errors = [
            {
                "type": "NOT_FOUND",
                "path": [field],
                "message": "Could not resolve to a node with the global id of 'R_kgDOnope'",
            }
        ]
        return _body(api, {"data": {field: None}, "errors": errors})
    if status == 410:
        errors = [
            {
                "type": "FORBIDDEN",
                "path": [field],
                "message": "Discussions are disabled for this repository.",
            }
        ]
        return _body(api, {"data": {field: None}, "errors": errors})
    if status == 422:
        errors = [
            {"type": "UNPROCESSABLE", "path": [field], "message": "Body is invalid (sandbox fault)"}
        ]
        return _body(api, {"data": {field: None}, "errors": errors})
    if status == 400:
        return _body(api, {"message": "Problems parsing JSON", "documentation_url": DOC}, 400)
    if status in (502, 503):
        html = f"<html><body><h1>{status} Service Unavailable</h1></body></html>"
        return Response(html, status, headers=api.headers(), media_type="text/html")
    return _body(api, {"message": "Server Error"}, status)


async def graphql(request: Request) -> Response:
    state = sandbox_of(request)
    api = ApiContext(request, state)
    if request.headers.get("authorization") is None:
        await pause(state.faults.latency)
        return _body(
            api,
            {
                "message": "This endpoint requires you to be authenticated.",
                "documentation_url": f"{DOC}/guides/forming-calls-with-graphql#authenticating-with-graphql",
            },
            401,
        )
    refused = await api.admit(required=True)
    if refused is not None:
        return refused
    try:
        payload = json.loads(await request.body())
        if not isinstance(payload, dict):
            raise ValueError
    except (ValueError, UnicodeDecodeError):
        return _body(api, {"message": "Problems parsing JSON", "documentation_url": DOC}, 400)
    query = payload.get("query")
    try:
        operation = parse(query)  # type: ignore[arg-type]
    except GraphQLRequestError as exc:
        return _body(api, {"errors": [exc.as_json()]})
    creating = [s.name for s in operation.selections if s.name in CONTENT_MUTATIONS]
    if operation.kind == "mutation" and creating:
        failure = state.faults.take_write_failure()
        if failure is not None:
            return _write_fault(api, failure, creating[0])
    context = _Context(state, api.login or "", base_url_of(request))
    try:
        data, errors = execute(SCHEMA, query, payload.get("variables"), context)  # type: ignore[arg-type]
    except GraphQLRequestError as exc:
        return _body(api, {"errors": [exc.as_json()]})
    answer: dict[str, Any] = {"data": data}
    if errors:
        answer["errors"] = errors
    if context.created:
        await pause(state.faults.write_latency)
    return _body(api, answer)


def routes(prefix: str = "/api") -> list[Route]:
    """The GraphQL route under ``prefix`` (the write URL's path)."""
    return [Route(prefix + "/graphql", graphql, methods=["POST"])]
