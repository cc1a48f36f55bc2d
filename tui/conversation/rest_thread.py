"""One thread read from GitHub's REST discussion endpoints (ARCHITECTURE.md, the conversation).

A read is a few GETs on the write URL (no token needed; the token, when there is one, goes only
to the write URL's origin):

1. ``{api}/repos/{owner}/{repo}/discussions/{n}`` — the post;
2. ``…/discussions/{n}/comments?per_page=100``, page after page by the ``Link`` header's
   ``rel="next"`` (only to the same origin, never back to a page already read);
3. ``…/comments/{id}/replies?per_page=100`` for a comment whose ``child_comment_count`` is more
   than the replies the list gave (GitHub lists top-level comments with a count of replies; a
   server that lists the replies too costs nothing more).

At most :data:`MAX_PAGES` pages of comments and replies are read (5,000 comments) and at most
:data:`THREAD_CAP` bytes in all; past either the thread is kept as read so far and says it is
not complete. Every answer is kept with its ETag (an :class:`Entry`, which the reader writes to
disk) and asked for again conditionally (``If-None-Match``): a 304 reuses the page kept.

REST rather than GraphQL, token or not: GraphQL needs a token, is a POST that no ETag can
revalidate (every reload costs points), and nests replies only a page deep per comment; REST
answers every reader the same way, a 304 costs a token nothing, and one code path serves both.

Every request goes through :func:`tui.network.fetch.exchange` (one deadline, a rate floor, a
capped and decoded body, no redirect followed). The rate limit is read from every answer:
``x-ratelimit-remaining`` 0, or a 403/429 that says the limit is spent (``Retry-After`` for
GitHub's secondary limit), stops every request until the reset (:attr:`RestThreads.limit`): one
refused request ends the read, and no read asks again before that time. Messages are one line,
credentials redacted, never the token.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urljoin, urlsplit

from tui import __version__
from tui.actions.token import TokenError, check_write_url, same_origin
from tui.config import Secret
from tui.conversation.thread import Thread, from_rest
from tui.network.fetch import FetchError, Reply, exchange, header_token
from tui.network.urls import redact_url
from tui.strict_json import Unreadable, loads
from tui.untrusted import clean_line

if TYPE_CHECKING:
    import httpx

__all__ = [
    "KINDS",
    "MAX_PAGES",
    "THREAD_CAP",
    "Entry",
    "Fetched",
    "Limit",
    "Page",
    "RestThreads",
    "limit_note",
    "next_link",
    "repo_path",
]

#: Pages of comments and replies one read may ask for (100 comments a page).
MAX_PAGES = 50
PER_PAGE = 100
#: The most one answer may be, decoded: a post (64 KiB of Markdown, escaped) or 100 comments.
DISCUSSION_CAP = 2 << 20
PAGE_CAP = 8 << 20
#: The most one thread's answers may add up to.
THREAD_CAP = 32 << 20
#: One request's deadline (connecting included) and its connect timeout.
DEADLINE_S = 30.0
CONNECT_TIMEOUT_S = 10.0
#: How long reads pause when GitHub says the limit is spent without saying until when.
DEFAULT_PAUSE_S = 60.0
#: The longest pause a server can impose (GitHub's primary limit resets within the hour).
MAX_PAUSE_S = 3600.0

API_VERSION = "2022-11-28"
ACCEPT = "application/vnd.github+json"

_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
# one link-value of a Link header: <uri> then its parameters
_LINK = re.compile(
    r"<([^<>\s]{1,2000})>((?:\s*;\s*[A-Za-z0-9*_-]{1,40}\s*=\s*(?:\"[^\"]{0,200}\"|[^;,\s]{0,200}))*)"
)
_REL = re.compile(r";\s*rel\s*=\s*(?:\"([^\"]{0,200})\"|([^;,\s]{0,200}))", re.I)


def repo_path(repo: str | None) -> str | None:
    """``owner/name`` when it is one (two plain names), else None."""
    if not isinstance(repo, str) or repo.count("/") != 1:
        return None
    owner, name = repo.split("/")
    for part in (owner, name):
        if not _NAME.fullmatch(part) or part in (".", ".."):
            return None
    return repo


def next_link(value: str | None, base: str) -> str | None:
    """The ``rel="next"`` target of a ``Link`` header (resolved against ``base``), or None."""
    if not value:
        return None
    for found in _LINK.finditer(value):
        rel = _REL.search(found.group(2))
        if rel and "next" in (rel.group(1) or rel.group(2) or "").lower().split():
            return urljoin(base, found.group(1))
    return None


# --------------------------------------------------------------------------- the rate limit


@dataclass(frozen=True, slots=True)
class Limit:
    """GitHub's limit is spent until ``until`` (epoch seconds): ``kind`` "primary" (the hourly
    budget) or "secondary" (too many at once); ``token``: spent by reads with a token."""

    until: float
    kind: str
    token: bool


def limit_note(limit: Limit | None, now: float) -> str | None:
    """The line a person reads while ``limit`` holds (the reset in local time), else None."""
    if limit is None or now >= limit.until:
        return None
    at = datetime.fromtimestamp(limit.until).astimezone().strftime("%H:%M")
    if limit.kind == "secondary":
        return f"GitHub asked for a pause in reads until {at} (too many at once)"
    if limit.token:
        return f"GitHub's limit for reads with this token is spent until {at}"
    return f"GitHub's limit for reads without a token is spent until {at}; a token raises it"


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() and len(value) <= 12 else None


# --------------------------------------------------------------------------- what is kept


@dataclass(frozen=True, slots=True)
class Page:
    """One answer kept: where from, its ETag, the next page's URL and its JSON."""

    url: str
    kind: str  # "discussion" | "comments" | "replies"
    data: Any
    etag: str | None = None
    next: str | None = None
    parent: str | None = None  # replies: the comment they answer
    size: int = 0  # bytes of the answer


KINDS = ("discussion", "comments", "replies")


@dataclass(frozen=True, slots=True)
class Entry:
    """Every answer of one thread's read, as kept on disk (``api`` names the repository)."""

    api: str
    number: int
    fetched_at: datetime
    pages: tuple[Page, ...]
    complete: bool = True

    def thread(self) -> Thread:
        """The thread these answers make (replies listed apart are put under their comment)."""
        discussion: Mapping[str, Any] = {}
        comments: list[Any] = []
        seen: set[str] = set()
        for page in self.pages:
            if page.kind == "discussion":
                discussion = page.data if isinstance(page.data, Mapping) else {}
                continue
            for item in page.data if isinstance(page.data, list) else ():
                if not isinstance(item, Mapping):
                    continue
                key = str(item.get("id"))
                if item.get("id") is not None and key in seen:
                    continue
                seen.add(key)
                if page.kind == "replies" and item.get("parent_id") is None:
                    item = {**item, "parent_id": page.parent}
                comments.append(item)
        thread = from_rest(discussion, comments, complete=self.complete)
        return thread if thread.number == self.number else replace(thread, number=self.number)


@dataclass(slots=True)
class Fetched:
    """What one read from GitHub gave: the entry (None: not even the post), whether every
    request asked was answered (``answered``: False when the read was stopped by an error or
    the limit), and the one line saying why it is not all there."""

    entry: Entry | None
    answered: bool
    problem: str | None = None


class _Stop(Exception):
    """A request that ends the read; ``reason`` is one clean line."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _Full(Exception):
    """The read reached a cap; what was read so far is kept."""


# --------------------------------------------------------------------------- the client


class RestThreads:
    """Reads threads of one repository over GitHub's REST API (see the module docstring).

    ``client`` is called for the HTTP client to use (the reader's own, or the demo network's
    in-process one); ``clock`` gives epoch seconds (tests move it); ``on_limit`` hears every
    new limit (the reader keeps it on disk, so the next `roost thread` does not ask either).
    """

    def __init__(
        self,
        api_url: str,
        repo: str,
        *,
        client: Callable[[], httpx.AsyncClient],
        clock: Callable[[], float],
        in_process: bool = False,
        max_pages: int = MAX_PAGES,
        deadline_s: float = DEADLINE_S,
        on_limit: Callable[[Limit], None] | None = None,
    ):
        self.api_url = api_url.rstrip("/")
        self.repo = repo
        self.base = f"{self.api_url}/repos/{quote(repo, safe='/')}"
        self._client = client
        self.clock = clock
        self.max_pages = max_pages
        self.deadline_s = deadline_s
        self.on_limit = on_limit
        self.token: Secret | None = None
        self.token_refused = False  # the token was refused (401): reads go on without it
        self.limit: Limit | None = None
        try:
            check_write_url(self.api_url, in_process=in_process)
            self._token_may_go = True
        except TokenError:  # plain http to another host: reads go without the token
            self._token_may_go = False

    # ------------------------------------------------------------------ the limit

    def limit_note(self) -> str | None:
        return limit_note(self.limit, self.clock())

    def _block(self, until: float | None, kind: str, token: bool) -> None:
        now = self.clock()
        if until is None or until <= now:
            until = now + DEFAULT_PAUSE_S
        self.limit = Limit(min(until, now + MAX_PAUSE_S), kind, token)
        if self.on_limit is not None:
            self.on_limit(self.limit)

    def _read_limits(self, reply: Reply, token: bool) -> None:
        headers = reply.headers
        remaining = _int(headers.get("x-ratelimit-remaining"))
        reset = _int(headers.get("x-ratelimit-reset"))
        retry_after = _int(headers.get("retry-after"))
        if reply.status in (403, 429):
            if retry_after is not None:
                self._block(self.clock() + retry_after, "secondary", token)
            elif remaining == 0:
                self._block(reset, "primary", token)
            elif reply.status == 429 or b"rate limit" in reply.body[:4096].lower():
                self._block(None, "secondary", token)
        elif remaining == 0:  # this answer is good; the next would be refused
            self._block(reset, "primary", token)

    # ------------------------------------------------------------------ one request

    async def _get(self, url: str, etag: str | None, cap: int) -> Reply:
        import httpx  # deferred: off the start path

        note = self.limit_note()
        if note is not None:
            raise _Stop(note)
        headers = {
            "Accept": ACCEPT,
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"roost/{__version__}",
        }
        token = self.token if self._token_may_go and same_origin(url, self.api_url) else None
        if token:
            headers["Authorization"] = f"Bearer {token.reveal()}"
        if etag := header_token(etag):
            headers["If-None-Match"] = etag
        try:
            reply = await exchange(
                self._client(),
                "GET",
                url,
                headers=headers,
                cap=cap,
                deadline_s=self.deadline_s,
                timeout=httpx.Timeout(
                    self.deadline_s, connect=min(CONNECT_TIMEOUT_S, self.deadline_s)
                ),
            )
        except FetchError as exc:
            raise _Stop(clean_line(str(exc), 300)) from None
        self._read_limits(reply, bool(token))
        if reply.status == 401 and token:
            # a wrong or revoked token: public threads are still readable without it
            self.token, self.token_refused = None, True
            return await self._get(url, etag, cap)
        if reply.status in (200, 304):
            return reply
        raise _Stop(self.limit_note() or _refusal(reply, url))

    # ------------------------------------------------------------------ one read

    async def fetch(self, number: int, old: Entry | None = None) -> Fetched:
        """Read thread ``number``, asking conditionally for every page ``old`` kept."""
        run = _Run(self, old.pages if old is not None and old.api == self.base else ())
        try:
            post = await run.page(f"{self.base}/discussions/{number}", "discussion")
        except _Stop as stop:
            return Fetched(None, False, stop.reason)
        if not isinstance(post.data, Mapping) or post.data.get("number") != number:
            return Fetched(None, False, f"GitHub's answer for #{number} is not that discussion")
        try:
            await run.comments(number)
        except _Stop as stop:
            return Fetched(run.entry(number, complete=False), False, stop.reason)
        except _Full as full:
            return Fetched(run.entry(number, complete=False), True, str(full))
        return Fetched(run.entry(number), True)


class _Run:
    """One read's pages, the budget they spend and the pages kept from the last read."""

    def __init__(self, rest: RestThreads, kept: tuple[Page, ...]):
        self.rest = rest
        self.kept = {page.url: page for page in kept}
        self.pages: list[Page] = []
        self.asked: set[str] = set()
        self.bytes = 0

    def entry(self, number: int, *, complete: bool = True) -> Entry:
        when = datetime.fromtimestamp(self.rest.clock()).astimezone()
        return Entry(self.rest.base, number, when, tuple(self.pages), complete)

    async def page(self, url: str, kind: str, parent: str | None = None) -> Page:
        if kind != "discussion" and len(self.pages) > self.rest.max_pages:  # the post + pages
            raise _Full(
                f"stopped after {self.rest.max_pages} pages of comments "
                f"({self.rest.max_pages * PER_PAGE:,} comments): the rest is not read"
            )
        self.asked.add(url)
        kept = self.kept.get(url)
        cap = DISCUSSION_CAP if kind == "discussion" else PAGE_CAP
        reply = await self.rest._get(url, kept.etag if kept is not None else None, cap)
        if reply.status == 304:
            if kept is None:
                raise _Stop(f"{redact_url(url)}: HTTP 304 for a page never read")
            page = kept
        else:
            page = _page(reply, url, kind, parent)
        self.pages.append(page)
        self.bytes += page.size
        if self.bytes > THREAD_CAP:
            raise _Full(f"stopped after {THREAD_CAP >> 20} MiB of comments: the rest is not read")
        return page

    async def comments(self, number: int) -> None:
        listed = await self._pages(f"{self.rest.base}/discussions/{number}/comments", "comments")
        below: dict[str, int] = {}
        for comment in listed:
            parent = comment.get("parent_id")
            if parent is not None:
                below[str(parent)] = below.get(str(parent), 0) + 1
        for comment in listed:
            count = comment.get("child_comment_count")
            cid = comment.get("id")
            if comment.get("parent_id") is not None or not isinstance(cid, int | str):
                continue
            if isinstance(count, int) and count > below.get(str(cid), 0):
                url = f"{self.rest.base}/discussions/{number}/comments/{quote(str(cid))}/replies"
                await self._pages(url, "replies", str(cid))

    async def _pages(self, first: str, kind: str, parent: str | None = None) -> list[Mapping]:
        items: list[Mapping] = []
        url: str | None = f"{first}?per_page={PER_PAGE}"
        while url is not None:
            page = await self.page(url, kind, parent)
            items.extend(item for item in page.data if isinstance(item, Mapping))
            url = page.next
            if url is not None and (url in self.asked or not same_origin(url, self.rest.api_url)):
                raise _Stop(f"{redact_url(first)}: the next page's link leads elsewhere")
        return items


def _page(reply: Reply, url: str, kind: str, parent: str | None) -> Page:
    """A 200's page, its JSON checked for the shape its kind has."""
    try:
        data = loads(reply.body)
    except (Unreadable, ValueError) as exc:
        raise _Stop(f"{redact_url(url)}: the answer is {exc}") from None
    if kind == "discussion" and not isinstance(data, Mapping):
        raise _Stop(f"{redact_url(url)}: the answer is not a discussion")
    if kind != "discussion" and not isinstance(data, list):
        raise _Stop(f"{redact_url(url)}: the answer is not a list of comments")
    following = None
    if kind != "discussion":
        following = next_link(reply.headers.get("link"), url)
        if following is not None and urlsplit(following).scheme not in ("http", "https"):
            following = None
    return Page(
        url,
        kind,
        data,
        etag=header_token(reply.headers.get("etag")),
        next=following,
        parent=parent,
        size=len(reply.body),
    )


def _refusal(reply: Reply, url: str) -> str:
    """One line for an answer that is not a page (a redirect, a 404, a 5xx…)."""
    status, shown = reply.status, redact_url(url)
    if 300 <= status < 400:
        where = reply.headers.get("location")
        to = f" to {clean_line(redact_url(where), 200)}" if where else ""
        return f"{shown}: HTTP {status}, a redirect{to}: not followed"
    said = ""
    try:
        message = loads(reply.body).get("message") if reply.body else None
        if isinstance(message, str) and message:
            said = f" ({clean_line(message, 160)})"
    except (Unreadable, ValueError, AttributeError):
        pass
    if status == 404:
        return f"{shown}: HTTP 404{said}: no such discussion, or the repository is not public"
    return f"{shown}: HTTP {status}{said}"
