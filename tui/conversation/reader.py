"""Where a thread comes from: the one :class:`~tui.conversation.reading.ThreadReader` of a
service (ARCHITECTURE.md, the conversation). :meth:`tui.service.Service.threads` builds it once;
the thread screen and `roost thread` both read through it.

Sources, in order:

1. ``discussions_cache.json`` from the store's current snapshot, when it holds the post. In its
   light form the comments are who and when only: the log's comment entries for that post name
   their agents (the log's comments are indexed by number once per log), and the thread says
   its comment texts are not there; ``read(fresh=True)`` then asks GitHub for the whole thread.
2. GitHub's REST discussion endpoints on the write URL (:mod:`tui.conversation.rest_thread`),
   every answer kept on disk with its ETag (:mod:`tui.conversation.thread_disk`) and asked for
   again conditionally; a copy read less than :data:`MAX_AGE_S` ago is used as it is.
3. When GitHub cannot be asked (offline, its limit spent, an error), the best copy there is —
   the last one read from GitHub, the cache's, what the log alone knows — with its age and the
   reason (``ThreadRead.problem``).

Among copies the one with comment texts wins, then the complete one, then the newest: a
thread once read whole from GitHub is not shown lighter because the cache holds it too.

:meth:`Threads.first` answers at once from what is in memory, the snapshot or a small entry
on disk, and never asks a server. The first :meth:`Threads.read` asks the store for the cache
and the index (:meth:`Threads.prepare`: their disk copies now, the service's on the store's next
cycle); the log, which may be tens of megabytes, only once a light copy needs its names, and no
read waits for it (:meth:`Threads.log_ready` does). A read never waits for a download.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import asyncio
import math
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tui.actions.token import find_token
from tui.clock import Clock, utc_now
from tui.config import DEFAULT_WRITE_URL, Secret
from tui.conversation.reading import ThreadRead
from tui.conversation.rest_thread import (
    DEADLINE_S,
    MAX_PAGES,
    Entry,
    Limit,
    RestThreads,
    limit_note,
    repo_path,
)
from tui.conversation.thread import Thread, from_cache, from_log
from tui.conversation.thread_disk import ThreadDisk
from tui.network.conversation import (
    CachedDiscussion,
    DiscussionsCache,
    LoggedComment,
    LoggedPost,
    PostedLog,
)
from tui.network.lazy_client import LazyClient
from tui.network.state_files import (
    DISCUSSIONS_CACHE,
    DISCUSSIONS_INDEX,
    POSTED_LOG,
)
from tui.untrusted import clean_line

if TYPE_CHECKING:
    import httpx

    from tui.network.store import Store

__all__ = ["MAX_AGE_S", "NO_REPO", "Threads"]

#: A copy read from GitHub this recently is used without asking again (GitHub's own
#: ``Cache-Control: max-age=60``).
MAX_AGE_S = 60.0
#: Threads read from GitHub kept in memory (each with every answer and its ETag).
MEMORY = 8
#: A log indexed on the event loop when no index of it is at hand (entries; a few ms).
SMALL_LOG = 20_000
NO_REPO = "no repository to read threads from: set --repo OWNER/NAME or ROOST_REPO"


@dataclass(frozen=True, slots=True)
class _Held:
    """A thread read from GitHub: its answers, the thread they make, when they were asked."""

    entry: Entry
    thread: Thread
    asked_at: float  # epoch seconds

    def read(self) -> ThreadRead:
        return ThreadRead(self.entry.number, self.thread, self.entry.fetched_at)


class Threads:
    """The thread reader of one service (see the module docstring).

    ``store`` holds the snapshot; ``api_url`` and ``repo`` say where GitHub's REST API is (the
    repository may also come from the cache's ``_meta``; the settings win); ``client`` is the
    HTTP client to use (None: one of its own, which follows no redirect); ``folder`` where the
    threads read from GitHub are kept (None: in memory only); ``find_token`` is called in a
    worker thread, once, when GitHub is first asked (it may run ``gh auth token``);
    ``clock`` is the time (tests move it); ``deadline_s`` bounds each request.
    """

    def __init__(
        self,
        store: Store,
        *,
        api_url: str = DEFAULT_WRITE_URL,
        repo: str | None = None,
        client: httpx.AsyncClient | None = None,
        in_process: bool = False,
        folder: Path | None = None,
        find_token: Callable[[], Secret | None] | None = None,
        clock: Clock = utc_now,
        max_pages: int = MAX_PAGES,
        max_age_s: float = MAX_AGE_S,
        deadline_s: float = DEADLINE_S,
    ):
        self.store = store
        self.api_url = api_url.rstrip("/")
        self.repo = repo
        self.in_process = in_process
        self.clock = clock
        self.max_pages = max_pages
        self.max_age_s = max_age_s
        self.deadline_s = deadline_s
        self._http = LazyClient(client)
        self._find_token = find_token
        self._token_found: asyncio.Future[None] | None = None
        self._token: Secret | None = None
        self._token_by_hand = False
        self._disk = ThreadDisk(folder)
        parts = urlsplit(self.api_url)
        self._origin = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}".lower()
        self._limit: Limit | None = self._disk.load_limit(self._origin, self._epoch())
        self._rest: RestThreads | None = None
        self._memory: OrderedDict[int, _Held] = OrderedDict()
        self._prepared: asyncio.Future[None] | None = None
        self._log_wanted: asyncio.Future[None] | None = None
        self._running: dict[tuple[int, bool], asyncio.Future[ThreadRead]] = {}
        self._cache_index: tuple[object, dict[int, CachedDiscussion]] | None = None
        self._log_index: (
            tuple[object, dict[int, list[LoggedComment]], dict[int, LoggedPost]] | None
        ) = None

    @classmethod
    def for_service(cls, service: Any) -> Threads:
        """The reader of a :class:`tui.service.Service`: its write URL and repository (the
        sandbox's on the demo network, answered in-process), its token, and a ``threads/``
        folder beside its state files (none when the service keeps no disk cache)."""

        settings, session = service.settings, service.session
        cache = service.store.cache
        return cls(
            service.store,
            api_url=settings.write_url or DEFAULT_WRITE_URL,
            repo=settings.repo,
            client=service.client if service.demo else None,
            in_process=service.demo,
            folder=cache.folder / "threads" if cache is not None else None,
            # read-only: threads are read without a token, and none is looked for
            find_token=None if session.readonly else lambda: find_token(session)[0],
        )

    # ------------------------------------------------------------------ the protocol

    @property
    def limit_note(self) -> str | None:
        """The status bar's line while GitHub's read limit is spent, else None."""
        return limit_note(self._limit, self._epoch())

    def first(self, number: int) -> ThreadRead | None:
        """The best copy at hand (memory, the snapshot, a small entry on disk, the log), without
        asking any server; None when there is none."""
        if number < 1:
            return None
        held = self._held_now(number)
        return _best(
            [self._from_snapshot(number), held.read() if held else None, self._from_log(number)]
        )

    async def read(self, number: int, *, fresh: bool = False) -> ThreadRead:
        """Thread ``number`` from the best source (see the module docstring); ``fresh``: ask
        GitHub even when the cache or a recent copy would do (`r`). Never raises for the
        service's trouble: it is in ``problem``. Two reads of one thread at once share one."""
        key = (number, fresh)
        running = self._running.get(key)
        if running is None:
            running = asyncio.ensure_future(self._read(number, fresh))
            self._running[key] = running
            running.add_done_callback(lambda done: self._forget(key, done))
        return await asyncio.shield(running)

    def _forget(self, key: tuple[int, bool], done: asyncio.Future[ThreadRead]) -> None:
        if self._running.get(key) is done:
            del self._running[key]

    async def prepare(self) -> None:
        """Ask the store for the cache and the index, once: their disk copies are read now (in
        a thread), the service's on the store's next cycle, which is asked for at once when a
        file was new to it. The app may call this as soon as a thread can be opened."""
        if self._prepared is None:
            self._prepared = asyncio.ensure_future(self._want(DISCUSSIONS_CACHE, DISCUSSIONS_INDEX))
        await asyncio.shield(self._prepared)

    async def log_ready(self) -> None:
        """Wait until the log, once asked for (a light copy needs its names), has its disk copy
        read: `roost thread` waits; a screen reads again when the snapshot changes."""
        if self._log_wanted is not None:
            await asyncio.shield(self._log_wanted)

    def set_token(self, token: Secret | None) -> None:
        """Read with ``token`` from now on (one typed into the session): no other is looked
        for."""
        self._token_by_hand = True
        self._use_token(token)

    async def aclose(self) -> None:
        await self._http.aclose()

    # ------------------------------------------------------------------ reading

    async def _read(self, number: int, fresh: bool) -> ThreadRead:
        if number < 1:
            return ThreadRead(number, None, problem=f"#{number} is not a post number")
        await self.prepare()
        await self._index_log()
        cached = self._from_snapshot(number)
        held = self._memory.get(number)
        if held is None and (rest := self._github()[0]) is not None:
            held = await asyncio.to_thread(self._held_on_disk, number, rest.base)
            if held is not None:
                self._remember(held)
        held_read = held.read() if held is not None else None
        if not fresh:
            best = _best([cached, held_read])
            if best is not None and best is cached:
                return cached
            if (
                held is not None
                and held_read is not None
                and best is held_read
                and self._young(held)
            ):
                return replace(held_read, fresh=True)
        rest, problem = self._github()
        if rest is None:
            return self._fallback(number, [held_read, cached], problem)
        if (note := self.limit_note) is not None:
            return self._fallback(number, [held_read, cached], note)
        await self._token_once()
        fetched = await rest.fetch(number, held.entry if held is not None else None)
        if fetched.entry is not None and fetched.answered:
            thread = self._with_node_id(fetched.entry.thread())
            self._remember(_Held(fetched.entry, thread, self._epoch()))
            await asyncio.to_thread(self._disk.store, fetched.entry)
            return ThreadRead(number, thread, fetched.entry.fetched_at, True, fetched.problem)
        partial = None
        if fetched.entry is not None:  # cut short by an error: what was read
            thread = self._with_node_id(fetched.entry.thread())
            partial = ThreadRead(number, thread, fetched.entry.fetched_at)
        return self._fallback(number, [held_read, partial, cached], fetched.problem)

    def _fallback(
        self, number: int, reads: list[ThreadRead | None], problem: str | None
    ) -> ThreadRead:
        """The best copy there is when GitHub gave none, with why."""
        self._want_log()  # what the log knows, for the next read if not for this one
        best = _best([*reads, self._from_log(number)])
        if best is None:
            return ThreadRead(number, None, problem=problem)
        return replace(best, fresh=False, problem=problem)

    def _young(self, held: _Held) -> bool:
        return 0 <= self._epoch() - held.asked_at < self.max_age_s

    def _remember(self, held: _Held) -> None:
        self._memory[held.entry.number] = held
        self._memory.move_to_end(held.entry.number)
        while len(self._memory) > MEMORY:
            self._memory.popitem(last=False)

    def _held_now(self, number: int) -> _Held | None:
        """A copy from GitHub at hand: in memory, or a small entry on disk (read here)."""
        held = self._memory.get(number)
        if held is None and (rest := self._github()[0]) is not None:
            held = self._held_on_disk(number, rest.base, quick=True)
            if held is not None:
                self._remember(held)
        return held

    def _held_on_disk(self, number: int, base: str, *, quick: bool = False) -> _Held | None:
        """The entry kept on disk and the thread it makes (a worker thread may run this)."""
        entry = self._disk.load(number, base, quick=quick)
        if entry is None:
            return None
        return _Held(entry, self._with_node_id(entry.thread()), entry.fetched_at.timestamp())

    # ------------------------------------------------------------------ the snapshot

    def _from_snapshot(self, number: int) -> ThreadRead | None:
        """The post from ``discussions_cache.json`` (light form: the log names commenters)."""
        snapshot = self.store.snapshot
        cache = snapshot.discussions_cache
        if cache is None:
            return None
        entry = self._cache_entries(cache).get(number)
        if entry is None:
            return None
        logged: Sequence[LoggedComment] = ()
        if entry.comments is None:  # light: the log names who commented
            logged = self._log_indexes()[0].get(number, ())
            self._want_log()
        thread = self._with_node_id(from_cache(entry, logged))
        state = snapshot.file(DISCUSSIONS_CACHE)
        confirmed = state.integrity in ("verified", "unverified")
        problem = None
        if not confirmed and state.problem is not None:
            problem = f"the deployment's cache could not be checked: {state.problem.detail}"
        when = _scraped_at(cache) or state.fetched_at
        return ThreadRead(
            number, thread, when, confirmed, clean_line(problem, 300) if problem else None
        )

    def _from_log(self, number: int) -> ThreadRead | None:
        """What ``posted_log.json`` alone knows of the post (no body, who commented when)."""
        comments, posts = self._log_indexes()
        post = posts.get(number)
        if post is None:
            return None
        thread = self._with_node_id(from_log(post, comments.get(number, ())))
        return ThreadRead(number, thread, self.store.snapshot.file(POSTED_LOG).fetched_at)

    def _cache_entries(self, cache: DiscussionsCache) -> dict[int, CachedDiscussion]:
        if self._cache_index is None or self._cache_index[0] is not cache:
            self._cache_index = (cache, {entry.number: entry for entry in cache.discussions})
        return self._cache_index[1]

    def _log_indexes(self) -> tuple[Mapping[int, list[LoggedComment]], Mapping[int, LoggedPost]]:
        """The log's comment entries and posts by number, indexed once per log. Indexing a big
        log takes a while (250,000 entries: tens of milliseconds): :meth:`read` does it in a
        worker thread first (:meth:`_index_log`); here, on the event loop, only a small log is
        indexed, else the last index serves (comments are only ever added) until a read."""
        log = self.store.snapshot.posted_log
        if log is None:
            return {}, {}
        held = self._log_index
        if held is None or held[0] is not log:
            if held is None and len(log.comments) + len(log.posts) <= SMALL_LOG:
                self._log_index = held = (log, *_indexed(log))
            elif held is None:
                return {}, {}
        return held[1], held[2]

    async def _index_log(self) -> None:
        """Index the current log in a worker thread if it is not yet."""
        log = self.store.snapshot.posted_log
        if log is not None and (self._log_index is None or self._log_index[0] is not log):
            comments, posts = await asyncio.to_thread(_indexed, log)
            self._log_index = (log, comments, posts)

    def _with_node_id(self, thread: Thread) -> Thread:
        """``thread`` with its GraphQL node id from ``discussions_index.json`` when it has none
        (what a comment or a reaction is addressed to)."""
        if thread.node_id is not None:
            return thread
        index = self.store.snapshot.discussions_index
        found = index.get(str(thread.number)) if index is not None else None
        if found is None or not found.id:
            return thread
        return replace(thread, node_id=found.id)

    def _want_log(self) -> None:
        """Ask the store for the log, once, without waiting for it (see the module docstring)."""
        if self._log_wanted is not None or POSTED_LOG in self.store.file_names:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop here: the next read on one asks
            return
        self._log_wanted = loop.create_task(self._want(POSTED_LOG))

    async def _want(self, *names: str) -> None:
        new = [name for name in names if name not in self.store.file_names]
        try:
            await self.store.want(*names)
        except Exception:  # noqa: BLE001 - a disk copy that cannot be read is no reason to stop
            return
        if new:
            self.store.request_refresh()

    # ------------------------------------------------------------------ GitHub

    def _github(self) -> tuple[RestThreads | None, str | None]:
        """The REST client of the repository (the settings', else the cache's), or why none."""
        if self._rest is not None:
            return self._rest, None
        if self.repo:
            repo = repo_path(self.repo)
            if repo is None:
                return None, f"the repository {clean_line(self.repo, 80)!r} is not OWNER/NAME"
        else:
            repo = self._repo_from_cache()
            if repo is None:
                return None, NO_REPO
        self._rest = RestThreads(
            self.api_url,
            repo,
            client=self._http,
            clock=self._epoch,
            in_process=self.in_process,
            max_pages=self.max_pages,
            deadline_s=self.deadline_s,
            on_limit=self._limited,
        )
        self._rest.limit = self._limit
        self._rest.token = self._token
        return self._rest, None

    def _repo_from_cache(self) -> str | None:
        cache = self.store.snapshot.discussions_cache
        meta = cache.meta if cache is not None else None
        if not isinstance(meta, Mapping):
            return None
        owner, name = meta.get("owner"), meta.get("repo")
        if not isinstance(owner, str) or not isinstance(name, str):
            return None
        return repo_path(f"{owner}/{name}")

    async def _token_once(self) -> None:
        """Look for the token once, in a worker thread (``gh auth token`` may run)."""
        if self._token_by_hand:
            return
        if self._token_found is None:
            self._token_found = asyncio.ensure_future(self._look_for_token())
        await asyncio.shield(self._token_found)

    async def _look_for_token(self) -> None:
        if self._find_token is None:
            return
        try:
            token = await asyncio.to_thread(self._find_token)
        except Exception:  # noqa: BLE001 - no token is a way to read too
            token = None
        if not self._token_by_hand:
            self._use_token(token)

    def _use_token(self, token: Secret | None) -> None:
        self._token = token or None
        if self._rest is not None:
            self._rest.token = self._token
        limit = self._limit
        if limit is not None and limit.kind == "primary" and limit.token != bool(self._token):
            self._limit = None  # another budget: the one spent is not this one's
            if self._rest is not None:
                self._rest.limit = None

    def _limited(self, limit: Limit) -> None:
        """A new limit: every read waits for its reset, and so does the next process."""
        self._limit = limit
        self._disk.store_limit(self._origin, limit)  # a few bytes, once per limit

    def _epoch(self) -> float:
        return self.clock().timestamp()


def _indexed(log: PostedLog) -> tuple[dict[int, list[LoggedComment]], dict[int, LoggedPost]]:
    """The log's comment entries and posts by Discussion number (a post's last entry wins)."""
    comments: dict[int, list[LoggedComment]] = {}
    for comment in log.comments:
        if comment.discussion_number is not None:
            comments.setdefault(comment.discussion_number, []).append(comment)
    posts = {post.number: post for post in log.posts if post.number is not None}
    return comments, posts


def _best(reads: Sequence[ThreadRead | None]) -> ThreadRead | None:
    """The copy that says most: comment texts, then complete, then a body, then the newest."""

    def rank(read: ThreadRead) -> tuple[bool, bool, bool, float]:
        thread = read.thread
        assert thread is not None
        when = read.fetched_at.timestamp() if read.fetched_at is not None else -math.inf
        return (thread.comment_texts, thread.complete, thread.body is not None, when)

    found = [read for read in reads if read is not None and read.thread is not None]
    return max(found, key=rank) if found else None


def _scraped_at(cache: DiscussionsCache) -> datetime | None:
    """When the deployment made its cache (``_meta.scraped_at``), if it says so."""
    meta = cache.meta
    stamp = meta.get("scraped_at") if isinstance(meta, Mapping) else None
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None
