"""The sandbox's GitHub GraphQL endpoint (``POST {write_url}/graphql``), for Discussions.

It answers what the deployment's own clients ask, in GitHub's shapes (``graphql_schema`` holds
the schema, in SDL, run by graphql-core; ``graphql_objects`` the types): ``viewer``,
``repository(owner, name) { id discussionCategories discussion(number) discussions }`` with
comments, replies and reactions, ``node(id:)``, and the mutations ``createDiscussion``,
``addDiscussionComment`` (``replyToId``: GitHub keeps one level of replies, so a reply to a
reply hangs under the top-level comment), ``addReaction`` and ``removeReaction``. Errors are
GitHub's: 401 without or with a bad token, a 200 whose ``errors`` name ``NOT_FOUND`` (with the
field ``null`` beside it), a request error for an unknown field or bad syntax, and the write
fault knobs as GitHub's GraphQL reports them (``RATE_LIMITED`` in a 200, a secondary limit's 403
with ``Retry-After``, ``INSUFFICIENT_SCOPES``, 5xx).

What a mutation writes is live at once (every read shows it, as on GitHub) and enters the state
files after the processor's delay (the ``process_delay`` knob): the deployment's state is
rebuilt by its workflows. Every post of the network, generated or made since, is a Discussion.
"""

from __future__ import annotations

import functools
import json
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tui.sandbox.github_api import ApiContext
from tui.sandbox.github_shapes import category_node_id, stable_int
from tui.sandbox.state import base_url_of, pause, sandbox_of

__all__ = ["routes"]

DOC = "https://docs.github.com/graphql"
#: The mutations that create content (the write fault knobs and the pacing apply to them).
CONTENT_MUTATIONS = frozenset({"createDiscussion", "addDiscussionComment"})


@functools.cache
def _loaded() -> tuple[Any, Any, Any]:
    """(graphql_schema, graphql_objects, the root object): loaded on the first request, so
    starting the demo network does not pay for graphql-core."""
    from tui.sandbox import graphql_objects, graphql_schema  # deferred: off the start path

    return graphql_schema, graphql_objects, _root(graphql_schema, graphql_objects)


def _root(schema: Any, objects: Any) -> Any:
    FieldError = schema.FieldError

    def missing(node_id: Any) -> Any:
        return FieldError(
            "NOT_FOUND", f"Could not resolve to a node with the global id of '{node_id}'"
        )

    class Root:
        """The query and mutation roots' fields."""

        def viewer(self, info: Any) -> Any:
            return objects.UserNode(info.context.login, info.context)

        def repository(self, info: Any, owner: str, name: str, followRenames: bool = True):
            state = info.context.state
            if owner.lower() != state.owner.lower() or name.lower() != state.repo.lower():
                raise FieldError(
                    "NOT_FOUND",
                    f"Could not resolve to a Repository with the name '{owner}/{name}'.",
                )
            return objects.RepositoryNode(info.context)

        def node(self, info: Any, id: str) -> Any:
            found = objects.lookup(info.context, id)
            if found is None:
                raise missing(id)
            return found

        def nodes(self, info: Any, ids: list[str]) -> list[Any]:
            return [objects.lookup(info.context, node_id) for node_id in ids]

        def rateLimit(self, info: Any, dryRun: bool = False) -> dict[str, Any]:
            limit, used, reset = info.context.api.rate()
            stamp = datetime.fromtimestamp(reset, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            return {
                "cost": 1,
                "limit": limit,
                "nodeCount": 0,
                "remaining": max(0, limit - used),
                "resetAt": stamp,
                "used": used,
            }

        # -- mutations -------------------------------------------------------------------------

        def createDiscussion(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
            ctx = info.context
            repository, category = input.get("repositoryId"), input.get("categoryId")
            if repository != ctx.repo_id:
                raise missing(repository)
            slug = next((s for s in ctx.channels() if category_node_id(s) == category), None)
            if slug is None:
                raise missing(category)
            title, body = input.get("title", ""), input.get("body", "")
            if not title.strip():
                raise FieldError("UNPROCESSABLE", "Title can't be blank")
            state = ctx.state
            made = state.network.make_discussion(
                channel=slug,
                category_id=category,
                title=title,
                body=body,
                login=ctx.login,
                now=state.clock(),
                delay=state.faults.process_delay,
            )
            state.changed()
            ctx.created = True
            return {
                "discussion": objects.DiscussionNode(made.number, ctx),
                "clientMutationId": input.get("clientMutationId"),
            }

        def addDiscussionComment(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
            ctx = info.context
            discussion = objects.lookup(ctx, input.get("discussionId"))
            if not isinstance(discussion, objects.DiscussionNode):
                raise missing(input.get("discussionId"))
            body = input.get("body", "")
            if not body.strip():
                raise FieldError("UNPROCESSABLE", "Body can't be blank")
            parent_id = None
            reply_to = input.get("replyToId")
            if reply_to is not None:
                target = objects.lookup(ctx, reply_to)
                if not isinstance(target, objects.CommentNode):
                    raise missing(reply_to)
                if target.discussion.number != discussion.number:
                    raise FieldError(
                        "UNPROCESSABLE", "The comment replied to belongs to another discussion"
                    )
                # one level of replies: a reply to a reply hangs under its top-level comment
                parent = target.replyTo
                parent_id = (parent or target).databaseId
            state = ctx.state
            made = state.network.make_comment(
                discussion.number,
                body,
                ctx.login,
                state.clock(),
                parent_id=parent_id,
                delay=state.faults.process_delay,
            )
            state.changed()
            ctx.created = True
            return {
                "comment": objects.CommentNode(made, ctx),
                "clientMutationId": input.get("clientMutationId"),
            }

        def _react(self, info: Any, input: dict[str, Any], on: bool) -> dict[str, Any]:
            ctx = info.context
            subject = objects.lookup(ctx, input.get("subjectId"))
            if isinstance(subject, objects.DiscussionNode):
                number = subject.number
            elif isinstance(subject, objects.CommentNode):
                number = subject.discussion.number
            else:
                raise missing(input.get("subjectId"))
            state = ctx.state
            content = input["content"]
            if state.network.react(
                subject.id,
                number,
                ctx.login,
                content,
                state.clock(),
                on=on,
                delay=state.faults.process_delay,
            ):
                state.changed()
            subject = objects.lookup(ctx, subject.id)  # read again: the reaction shows
            return {
                "reaction": objects.ReactionNode(content, ctx.login, subject, ctx, None),
                "subject": subject,
                "reactionGroups": subject.reactionGroups,
                "clientMutationId": input.get("clientMutationId"),
            }

        def addReaction(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
            return self._react(info, input, True)

        def removeReaction(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
            return self._react(info, input, False)

    return Root()


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
        errors: list[dict[str, Any]] = [
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
    api = ApiContext(request, state, resource="graphql")
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
    schema, objects, root = _loaded()
    document, refusal = schema.parse_request(payload.get("query"))
    if refusal is not None:
        return _body(api, refusal)
    name = payload.get("operationName")
    name = name if isinstance(name, str) and name else None
    creating = [f for f in schema.mutation_fields(document, name) if f in CONTENT_MUTATIONS]
    if creating:
        failure = state.faults.take_write_failure()
        if failure is not None:
            return _write_fault(api, failure, creating[0])
    context = objects.Context(state, api.login or "", base_url_of(request), api)
    answer = schema.run(document, payload.get("variables"), name, root, context)
    if context.created:
        await pause(state.faults.write_latency)
    return _body(api, answer)


def routes(prefix: str = "/api") -> list[Route]:
    """The GraphQL route under ``prefix`` (the write URL's path)."""
    return [Route(prefix + "/graphql", graphql, methods=["POST"])]
