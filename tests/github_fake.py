"""A fake of GitHub's REST discussion endpoints, shaped as GitHub answers (for the thread reader).

``GitHub(clock)`` is an ``httpx.MockTransport`` handler (``GitHub.transport()``) and, through
:func:`serving`, a loopback HTTP server for the CLI. It answers

* ``GET /repos/{owner}/{repo}/discussions/{n}`` — ``{number, title, body, user{login},
  created_at, html_url, comments, category{slug}, reactions{…}, node_id}``;
* ``GET …/discussions/{n}/comments?per_page=&page=`` — a page of comments, the next page named
  by the ``Link`` header under ``/repositories/{id}/…`` (as GitHub does: a client follows it, it
  does not build it); with ``replies_in_list=False`` only top-level comments, each with its
  ``child_comment_count``, and ``…/comments/{id}/replies`` lists the replies;

with a weak ETag per answer (``If-None-Match`` → 304), ``x-ratelimit-*`` headers on every
answer, and GitHub's 403 once ``remaining`` is spent (a 304 to a request with a token costs
nothing, as on GitHub). ``fault`` may answer a request instead (a redirect, a hostile body…).
Every request is kept in ``requests``.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import json
import re
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import httpx

__all__ = ["API", "REPO", "GitHub", "serving"]

API = "https://api.github.com"
REPO = "rappter/network"
REPO_ID = 4242

_DISCUSSION = re.compile(r"/repos/([^/]+)/([^/]+)/discussions/([0-9]+)")
_COMMENTS = re.compile(r"/(?:repos/[^/]+/[^/]+|repositories/[0-9]+)/discussions/([0-9]+)/comments")
_REPLIES = re.compile(r"/repos/[^/]+/[^/]+/discussions/([0-9]+)/comments/([0-9]+)/replies")


def reactions(up: int = 0, down: int = 0, heart: int = 0) -> dict[str, Any]:
    return {
        "url": f"{API}/reactions",
        "total_count": up + down + heart,
        "+1": up,
        "-1": down,
        "laugh": 0,
        "hooray": 0,
        "confused": 0,
        "heart": heart,
        "rocket": 0,
        "eyes": 0,
    }


def user(login: str) -> dict[str, Any]:
    return {"login": login, "id": 1, "node_id": "U_kgDOAAAA", "type": "User"}


class GitHub:
    def __init__(
        self,
        clock: Callable[[], datetime],
        *,
        base: str = API,
        repo: str = REPO,
        budget: int = 60,
        replies_in_list: bool = True,
    ):
        self.clock = clock
        self.base = base.rstrip("/")
        self.repo = repo
        self.remaining = budget
        self.limit = budget
        self.reset = int(clock().timestamp()) + 3600
        self.replies_in_list = replies_in_list
        self.discussions: dict[int, dict[str, Any]] = {}
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.requests: list[httpx.Request] = []
        self.fault: Callable[[httpx.Request], httpx.Response | None] | None = None
        self._next_id = 1000

    # ------------------------------------------------------------------ the world

    def add(
        self, number: int, *, comments: int = 0, replies: int = 0, title: str = "A post"
    ) -> dict[str, Any]:
        """Discussion ``number`` with ``comments`` top-level comments, each with ``replies``."""
        owner = self.repo.split("/")[0]
        self.discussions[number] = {
            "number": number,
            "title": title,
            "body": f"*Posted by **zion-coder-{number % 10:02d}***\n\n---\n\nThe body of #{number}.",
            "user": user(owner),
            "created_at": "2026-11-01T10:00:00Z",
            "updated_at": "2026-11-01T11:00:00Z",
            "html_url": f"https://github.com/{self.repo}/discussions/{number}",
            "comments": comments * (1 + replies),
            "category": {"slug": "general", "name": "General"},
            "reactions": reactions(up=3, down=1),
            "node_id": f"D_kwDOnet{number}",
            "state": "open",
        }
        listed: list[dict[str, Any]] = []
        for index in range(comments):
            top = self._comment(number, f"agent-{index:03d}", f"comment {index}", None)
            listed.append(top)
            for reply in range(replies):
                listed.append(
                    self._comment(
                        number, f"replier-{reply}", f"reply {reply} to {index}", top["id"]
                    )
                )
            top["child_comment_count"] = replies
        self.comments[number] = listed
        return self.discussions[number]

    def _comment(self, number: int, agent: str, text: str, parent: int | None) -> dict[str, Any]:
        self._next_id += 1
        cid = self._next_id
        return {
            "id": cid,
            "node_id": f"DC_kwDO{cid}",
            "html_url": f"https://github.com/{self.repo}/discussions/{number}#discussioncomment-{cid}",
            "parent_id": parent,
            "child_comment_count": 0,
            "repository_url": self.repo,
            "discussion_id": number,
            "author_association": "OWNER",
            "user": user(self.repo.split("/")[0]),
            "created_at": f"2026-11-01T10:{cid % 60:02d}:00Z",
            "updated_at": f"2026-11-01T10:{cid % 60:02d}:00Z",
            "body": f"*— **{agent}***\n\n{text}",
            "reactions": reactions(heart=1),
        }

    # ------------------------------------------------------------------ the answers

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)

    def asked(self, path_part: str = "") -> list[httpx.Request]:
        return [r for r in self.requests if path_part in str(r.url)]

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.fault is not None and (answer := self.fault(request)) is not None:
            return answer
        headers = self._limits()
        if self.remaining <= 0:
            return httpx.Response(
                403,
                headers={**headers, "x-ratelimit-remaining": "0"},
                json={
                    "message": "API rate limit exceeded for 127.0.0.1.",
                    "documentation_url": "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api",
                },
            )
        data, link = self._data(request)
        if data is None:
            self._spend()
            return httpx.Response(
                404, headers=self._limits(), json={"message": "Not Found", "status": "404"}
            )
        body = json.dumps(data).encode()
        etag = f'W/"{hashlib.sha256(body).hexdigest()[:32]}"'
        if request.headers.get("if-none-match") == etag:
            if "authorization" not in request.headers:
                self._spend()  # only a request with a token gets its 304 free
            return httpx.Response(304, headers={**self._limits(), "etag": etag})
        self._spend()
        headers = {**self._limits(), "etag": etag, "content-type": "application/json"}
        if link:
            headers["link"] = link
        return httpx.Response(200, headers=headers, content=body)

    def _spend(self) -> None:
        self.remaining = max(0, self.remaining - 1)

    def _limits(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(self.remaining),
            "x-ratelimit-reset": str(self.reset),
            "x-ratelimit-used": str(self.limit - self.remaining),
            "x-ratelimit-resource": "core",
        }

    def _data(self, request: httpx.Request) -> tuple[Any, str | None]:
        path = request.url.path
        if (found := _REPLIES.fullmatch(path)) is not None:
            number, parent = int(found.group(1)), int(found.group(2))
            items = [c for c in self.comments.get(number, ()) if c["parent_id"] == parent]
            return self._page(request, items, path)
        if (found := _COMMENTS.fullmatch(path)) is not None:
            number = int(found.group(1))
            if number not in self.discussions:
                return None, None
            items = self.comments.get(number, [])
            if not self.replies_in_list:
                items = [c for c in items if c["parent_id"] is None]
            listed = f"/repositories/{REPO_ID}/discussions/{number}/comments"
            return self._page(request, items, listed)
        if (found := _DISCUSSION.fullmatch(path)) is not None:
            if f"{found.group(1)}/{found.group(2)}" != self.repo:
                return None, None
            return self.discussions.get(int(found.group(3))), None
        return None, None

    def _page(self, request: httpx.Request, items: list[Any], path: str) -> tuple[Any, str | None]:
        per_page = min(100, int(request.url.params.get("per_page", "30")))
        page = int(request.url.params.get("page", "1"))
        chunk = items[(page - 1) * per_page : page * per_page]
        last = max(1, -(-len(items) // per_page))
        links = []
        if page < last:
            links.append(f'<{self.base}{path}?per_page={per_page}&page={page + 1}>; rel="next"')
            links.append(f'<{self.base}{path}?per_page={per_page}&page={last}>; rel="last"')
        return chunk, ", ".join(links) or None


@contextlib.contextmanager
def serving(github: GitHub) -> Iterator[str]:
    """``github`` on a loopback port (``http://127.0.0.1:PORT``, which becomes its base), for
    the CLI's own client."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            url = f"{github.base}{self.path}"
            request = httpx.Request("GET", url, headers=dict(self.headers.items()))
            answer = github(request)
            body = answer.content
            self.send_response(answer.status_code)
            for key, value in answer.headers.items():
                if key.lower() not in ("content-length", "transfer-encoding", "content-encoding"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    github.base = url  # the Link headers name the server's own address
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
