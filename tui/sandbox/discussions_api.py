"""The sandbox's REST API for Discussions and notifications, in GitHub's shapes.

Under the app's ``/api`` (the write URL), no token needed to read (a bad one is refused, 401):

* ``GET /repos/{owner}/{repo}/discussions``            the Discussions, newest first, paginated
* ``GET /repos/{owner}/{repo}/discussions/{n}``        one Discussion
* ``GET /repos/{owner}/{repo}/discussions/{n}/comments`` its comments, oldest first, replies
  included (``parent_id``: the top-level comment they hang under), ``per_page`` ≤ 100, ``page``,
  GitHub's ``Link`` header
* ``GET /repos/{owner}/{repo}/notifications``, ``GET /notifications`` (a token needed): the
  caller's notification threads — Discussions it started or commented on where another account
  commented since, and comments that mention it (``subject.url`` is null for a Discussion, as
  on GitHub: a client matches the title)

Every answer carries the ``x-ratelimit-*`` headers and an ETag (a matching ``If-None-Match``
gets a 304, which costs nothing); each other answer spends the caller's budget (per address
without a token, per token with one; the ``rest_read_budget`` knob sets it) and a spent budget
answers 403 with GitHub's body.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tui.network.state_files import CHANNELS
from tui.sandbox.discussions import Conversation, PostInfo
from tui.sandbox.github_api import DOCS, ApiContext, int_param, paginate
from tui.sandbox.github_shapes import category_node_id, repo_node_id, stable_int, user_json
from tui.sandbox.state import SandboxState, base_url_of, sandbox_of
from tui.sandbox.threads import REACTIONS, Comment, discussion_node_id, discussion_rest_id

__all__ = ["routes"]

DOC_DISCUSSIONS = f"{DOCS}/discussions"
DOC_NOTIFICATIONS = f"{DOCS}/activity/notifications"
#: GitHub's REST names of the reactions, in ``threads.REACTIONS``' order.
REST_REACTIONS = ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")


def _reactions(reactors: dict[str, list[str]], url: str) -> dict[str, Any]:
    counts = {
        rest: len(reactors.get(kind, []))
        for kind, rest in zip(REACTIONS, REST_REACTIONS, strict=True)
    }
    return {"url": url, "total_count": sum(counts.values()), **counts}


def _association(login: str, state: SandboxState) -> str:
    return "OWNER" if login == state.owner else "NONE"


class _View:
    """One request's view of the conversation, in REST's shapes."""

    def __init__(self, request: Request, state: SandboxState):
        self.state = state
        self.talk: Conversation = state.network.conversation
        self.log = state.network.log
        self.base = base_url_of(request)
        self.api = f"{self.base}/api/repos/{state.owner}/{state.repo}"

    def category(self, slug: str) -> dict[str, Any]:
        channel = self.state.network.docs[CHANNELS].get("channels", {}).get(slug, {})
        stamp = str(channel.get("created_at") or "")
        return {
            "id": stable_int(f"category:{slug}"),
            "node_id": category_node_id(slug),
            "repository_id": stable_int(f"repo:{self.state.owner}/{self.state.repo}"),
            "emoji": ":speech_balloon:",
            "name": str(channel.get("name") or slug),
            "description": str(channel.get("description") or ""),
            "created_at": stamp,
            "updated_at": stamp,
            "slug": slug,
            "is_answerable": False,
        }

    def discussion(self, info: PostInfo) -> dict[str, Any]:
        number = info.number
        comments = self.talk.comments_of(self.log, number)
        updated = max([info.created_at, *(c.created_at for c in comments)])
        reactors = self.talk.discussion_reactors(self.log, number)
        return {
            "repository_url": self.api,
            "category": self.category(info.channel),
            "answer_html_url": None,
            "answer_chosen_at": None,
            "answer_chosen_by": None,
            "html_url": info.url,
            "id": discussion_rest_id(number),
            "node_id": discussion_node_id(number),
            "number": number,
            "title": info.title,
            "user": user_json(info.login, self.base),
            "labels": [],
            "state": "open",
            "state_reason": None,
            "locked": False,
            "comments": len(comments),
            "created_at": info.created_at,
            "updated_at": updated,
            "author_association": _association(info.login, self.state),
            "active_lock_reason": None,
            "body": self.talk.body(self.log, number),
            "reactions": _reactions(reactors, f"{self.api}/discussions/{number}/reactions"),
            "timeline_url": f"{self.api}/discussions/{number}/timeline",
        }

    def comment(self, info: PostInfo, comment: Comment, children: int) -> dict[str, Any]:
        reactors = self.talk.reactions_on(comment.node_id, comment.reactions)
        return {
            "id": comment.id,
            "node_id": comment.node_id,
            "html_url": f"{info.url}#discussioncomment-{comment.id}",
            "parent_id": comment.parent_id,
            "child_comment_count": children,
            "repository_url": f"{self.state.owner}/{self.state.repo}",
            "discussion_id": discussion_rest_id(info.number),
            "author_association": _association(comment.login, self.state),
            "user": user_json(comment.login, self.base),
            "created_at": comment.created_at,
            "updated_at": comment.created_at,
            "body": comment.body,
            "reactions": _reactions(
                reactors, f"{self.api}/discussions/comments/{comment.id}/reactions"
            ),
        }


class _Refused(Exception):
    """An answer that ends a request early (a refusal, a 404)."""

    def __init__(self, response: Response):
        super().__init__(response.status_code)
        self.response = response


def _endpoint(handler: Callable[[Request], Awaitable[Response]]):
    """A route's handler: what it raises as ``_Refused`` is its answer."""

    @functools.wraps(handler)
    async def answer(request: Request) -> Response:
        try:
            return await handler(request)
        except _Refused as refused:
            return refused.response

    return answer


def _pages(request: Request, api: ApiContext, most: int) -> tuple[int, int]:
    per_page = int_param(request, "per_page", min(30, most), 1, most)
    page = int_param(request, "page", 1, 1, 10_000_000)
    if per_page is None or page is None:
        raise _Refused(api.error(400, "Invalid pagination parameter", doc=DOC_DISCUSSIONS))
    return per_page, page


async def _opened(request: Request, *, token: bool = False) -> tuple[ApiContext, _View]:
    """The prelude of every endpoint here: latency, authentication (a bad token is refused,
    401; ``token``: one is needed), the repository."""
    state = sandbox_of(request)
    api = ApiContext(request, state)
    refused = await api.admit(required=token, rate_limited=False)
    if refused is not None:
        raise _Refused(refused)
    params = request.path_params
    if "owner" in params and not api.known_repo(params["owner"], params["repo"]):
        raise _Refused(api.over_limit() or api.error(404, "Not Found", doc=DOCS))
    return api, _View(request, state)


async def _discussion(request: Request) -> tuple[ApiContext, _View, PostInfo]:
    api, view = await _opened(request)
    info = view.talk.info(view.log, request.path_params["number"])
    if info is None:
        raise _Refused(api.over_limit() or api.error(404, "Not Found", doc=DOC_DISCUSSIONS))
    return api, view, info


@_endpoint
async def get_discussion(request: Request) -> Response:
    api, view, info = await _discussion(request)
    return api.json(view.discussion(info), limited=True)


@_endpoint
async def discussion_comments(request: Request) -> Response:
    api, view, info = await _discussion(request)
    pages = _pages(request, api, 100)
    comments = view.talk.comments_of(view.log, info.number)
    children: dict[int, int] = {}
    for comment in comments:
        if comment.parent_id is not None:
            children[comment.parent_id] = children.get(comment.parent_id, 0) + 1
    chunk, headers = paginate(request, comments, *pages)
    rows = [view.comment(info, c, children.get(c.id, 0)) for c in chunk]
    return api.json(rows, headers=headers, limited=True)


@_endpoint
async def list_discussions(request: Request) -> Response:
    api, view = await _opened(request)
    pages = _pages(request, api, 100)
    rows = sorted(view.talk.listing(view.log), key=lambda r: (r[0], r[2]), reverse=True)
    chunk, headers = paginate(request, [r[2] for r in rows], *pages)
    found = [view.talk.info(view.log, number) for number in chunk]
    return api.json(
        [view.discussion(info) for info in found if info is not None],
        headers=headers,
        limited=True,
    )


def _threads(view: _View, login: str) -> list[dict[str, Any]]:
    """The notification threads of ``login``, newest first."""
    talk, log, state = view.talk, view.log, view.state
    mine: dict[int, tuple[int, str]] = {}  # number → (since: a comment id, reason)
    for post in talk.posts:
        if post.login == login:
            mine[post.number] = (0, "author")
    for comment in talk.comments:  # made in order: their ids rise
        if comment.login == login and comment.number not in mine:
            mine[comment.number] = (comment.id, "comment")
    latest: dict[int, tuple[str, str]] = {}
    for comment in talk.comments:
        if comment.login == login:
            continue
        since, reason = mine.get(comment.number, (None, ""))
        if f"@{login}" in comment.body:
            reason = "mention"
        elif since is None or comment.id < since:
            continue
        if comment.created_at >= latest.get(comment.number, ("", ""))[0]:
            latest[comment.number] = (comment.created_at, reason)
    root = f"{view.base}/api/notifications/threads"
    threads = []
    for number, (updated, reason) in latest.items():
        info = talk.info(log, number)
        if info is None:
            continue
        ident = str(stable_int(f"thread:{number}:{login}"))
        threads.append(
            {
                "id": ident,
                "unread": True,
                "reason": reason,
                "updated_at": updated,
                "last_read_at": None,
                "subject": {
                    "title": info.title,
                    "url": None,
                    "latest_comment_url": None,
                    "type": "Discussion",
                },
                "repository": _repository(view, state),
                "url": f"{root}/{ident}",
                "subscription_url": f"{root}/{ident}/subscription",
            }
        )
    threads.sort(key=lambda t: (t["updated_at"], t["id"]), reverse=True)
    return threads


def _repository(view: _View, state: SandboxState) -> dict[str, Any]:
    owner = user_json(state.owner, view.base)
    return {
        "id": stable_int(f"repo:{state.owner}/{state.repo}"),
        "node_id": repo_node_id(state.owner, state.repo),
        "name": state.repo,
        "full_name": f"{state.owner}/{state.repo}",
        "private": False,
        "owner": owner,
        "html_url": f"{view.base}/{state.owner}/{state.repo}",
        "description": "The roost demo network",
        "fork": False,
        "url": view.api,
    }


@_endpoint
async def notifications(request: Request) -> Response:
    api, view = await _opened(request, token=True)
    pages = _pages(request, api, 50)
    chunk, headers = paginate(request, _threads(view, api.login or ""), *pages)
    return api.json(chunk, headers=headers, limited=True)


def routes(prefix: str = "/api") -> list[Route]:
    """The routes under ``prefix`` (the write URL's path); before the issue API's catch-all."""
    repo = prefix + "/repos/{owner}/{repo}"
    return [
        Route(repo + "/discussions", list_discussions, methods=["GET"]),
        Route(repo + "/discussions/{number:int}", get_discussion, methods=["GET"]),
        Route(repo + "/discussions/{number:int}/comments", discussion_comments, methods=["GET"]),
        Route(repo + "/notifications", notifications, methods=["GET"]),
        Route(prefix + "/notifications", notifications, methods=["GET"]),
    ]
