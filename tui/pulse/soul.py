"""An agent's soul page, ``{read_url}/state/memory/<id>.md``, read on demand (ARCHITECTURE.md,
the pulse). :meth:`tui.service.Service.soul_pages` builds the one reader of a service.

* A page is asked for with a conditional GET (the ETag and Last-Modified of the copy held) and
  kept on disk beside the service's state files (``memory/<id>.json`` in its disk-cache folder,
  as the thread reader keeps its copies), so an offline read still shows the last copy, with
  the time it was read; a copy confirmed less than :data:`MAX_AGE_S` ago is used as it is.
* The page is read from the read URL's own origin only (a redirect elsewhere is refused), at
  most :data:`PAGE_CAP` bytes, decoded as UTF-8 (a bad byte becomes U+FFFD).
* An id that is not a safe path segment (:func:`tui.pulse.agent_id.is_agent_id`: no ``/``, no
  ``..``, no ``%``…) is refused without a request.
* A 404 means the deployment has no page for the agent (:attr:`SoulPage.missing`); that is kept
  too, and asked again like a page.

What is read back from disk is as untrusted as the service: a regular file only (no link
followed), of bounded size, exactly the shape written, for the agent asked; anything else is
removed and the page read again. Writes are atomic; a disk that refuses them only costs the
next read a download.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.clock import Clock, utc_now
from tui.network.disk_cache import atomic_write
from tui.network.fetch import FetchError, TooLarge, fetch, header_token
from tui.network.lazy_client import LazyClient
from tui.network.state_files import MEMORY_DIR
from tui.pulse.agent_id import AGENT_ID_RULE, is_agent_id
from tui.strict_json import NotOurs, read_kept
from tui.untrusted import clean_line

if TYPE_CHECKING:
    import httpx

    from tui.network.store import Store
    from tui.service import Service

__all__ = ["FORMAT", "MAX_AGE_S", "PAGE_CAP", "SoulPage", "SoulPages"]

FORMAT = "roost-soul/1"
#: The largest page read (the real deployment's largest is 57 KB).
PAGE_CAP = 256 * 1024
#: A copy confirmed this recently is shown without asking again.
MAX_AGE_S = 60.0
#: Pages held in memory.
MEMORY = 32
#: The largest copy read back from disk: kept as ASCII JSON, a page's escapes make it grow.
ENTRY_LIMIT = 6 * PAGE_CAP + 4096
DEADLINE_S = 30.0
_ACCEPT = "text/markdown, text/plain;q=0.9, */*;q=0.5"


@dataclass(frozen=True, slots=True)
class SoulPage:
    agent: str
    text: str | None  # the Markdown (raw: clean to show), None when missing
    missing: bool  # the deployment has no page for this agent (404)
    fetched_at: datetime | None  # when this copy was read or last confirmed
    problem: str | None  # why a fresh copy is not shown (offline…), one line


@dataclass(frozen=True, slots=True)
class _Held:
    page: SoulPage
    etag: str | None
    last_modified: str | None


class SoulPages:
    """The soul-page reader of one service (see the module docstring).

    ``store``: whose read URL the pages are read from (its files' folder, as found); ``client``:
    the HTTP client (None: one of its own, following no redirect itself); ``folder``: where
    copies are kept (None: in memory only); ``clock``: the time (tests move it).
    """

    def __init__(
        self,
        store: Store,
        *,
        client: httpx.AsyncClient | None = None,
        folder: Path | None = None,
        clock: Clock = utc_now,
        cap: int = PAGE_CAP,
        max_age_s: float = MAX_AGE_S,
        deadline_s: float = DEADLINE_S,
    ):
        self.store = store
        self.folder = folder
        self.clock = clock
        self.cap = cap
        self.max_age_s = max_age_s
        self.deadline_s = deadline_s
        self.damaged: list[str] = []  # disk copies dropped (name: why), for whoever reports them
        self._http = LazyClient(client)
        self._memory: OrderedDict[str, _Held] = OrderedDict()
        self._running: dict[tuple[str, bool], asyncio.Future[SoulPage]] = {}

    @classmethod
    def for_service(cls, service: Service) -> SoulPages:
        """The reader of a :class:`tui.service.Service`: its store's read URL (the demo
        network's answered in-process), copies kept in a ``memory/`` folder beside its state
        files (none when the service keeps no disk cache)."""
        cache = service.store.cache
        return cls(
            service.store,
            client=service.client if service.demo else None,
            folder=cache.folder / MEMORY_DIR if cache is not None else None,
        )

    def url(self, agent: str) -> str | None:
        """Where ``agent``'s page is read from (None: not an id roost asks for)."""
        if not is_agent_id(agent):
            return None
        return f"{self.store.base_url}{MEMORY_DIR}/{agent}.md"

    def cached(self, agent: str) -> SoulPage | None:
        """The copy held (in memory, else on disk), without any request; None when none."""
        held = self._held(agent)
        return held.page if held is not None else None

    async def read(self, agent: str, *, fresh: bool = False) -> SoulPage:
        """``agent``'s page: the copy held when it was confirmed less than ``max_age_s`` ago
        (unless ``fresh``), else asked for conditionally. Never raises for the service's
        trouble: a page that could not be read again is the copy held with ``problem`` set.
        Two reads of one page at once share one request."""
        key = (agent, fresh)
        running = self._running.get(key)
        if running is None:
            running = asyncio.ensure_future(self._read(agent, fresh))
            self._running[key] = running
            running.add_done_callback(lambda _done: self._running.pop(key, None))
        return await asyncio.shield(running)

    async def aclose(self) -> None:
        await self._http.aclose()

    # ------------------------------------------------------------------ reading

    async def _read(self, agent: str, fresh: bool) -> SoulPage:
        url = self.url(agent)
        if url is None:
            return SoulPage(
                agent,
                None,
                missing=False,
                fetched_at=None,
                problem=f"not an agent id roost reads a page for ({AGENT_ID_RULE})",
            )
        held = self._held(agent)
        now = self.clock()
        if (
            held is not None
            and not fresh
            and held.page.fetched_at is not None
            and 0 <= (now - held.page.fetched_at).total_seconds() < self.max_age_s
        ):
            return held.page
        ask = held is not None and held.page.text is not None
        try:
            result = await fetch(
                self._http(),
                url,
                cap=self.cap,
                etag=held.etag if ask and held is not None else None,
                last_modified=held.last_modified if ask and held is not None else None,
                accept=_ACCEPT,
                deadline_s=self.deadline_s,
                same_origin=True,
            )
        except TooLarge:
            return self._problem(agent, held, f"the page is larger than {self.cap >> 10} KB")
        except FetchError as exc:
            return self._problem(agent, held, clean_line(exc.reason, 300))
        if result.status == 304 and ask and held is not None:
            kept = _Held(
                replace(held.page, fetched_at=now, problem=None), held.etag, held.last_modified
            )
        elif result.status == 200:
            text = result.body.decode("utf-8", "replace")
            kept = _Held(
                SoulPage(agent, text, missing=False, fetched_at=now, problem=None),
                result.etag,
                result.last_modified,
            )
        elif result.status in (404, 410):
            kept = _Held(
                SoulPage(agent, None, missing=True, fetched_at=now, problem=None), None, None
            )
        else:
            return self._problem(agent, held, f"HTTP {result.status}")
        self._keep(kept)
        return kept.page

    def _problem(self, agent: str, held: _Held | None, why: str) -> SoulPage:
        if held is None:
            return SoulPage(agent, None, missing=False, fetched_at=None, problem=why)
        return replace(held.page, problem=f"not read again: {why}")

    # ------------------------------------------------------------------ the copies

    def _held(self, agent: str) -> _Held | None:
        held = self._memory.get(agent)
        if held is not None:
            self._memory.move_to_end(agent)
            return held
        if not is_agent_id(agent):
            return None
        held = self._load(agent)
        if held is not None:
            self._remember(held)
        return held

    def _remember(self, held: _Held) -> None:
        self._memory[held.page.agent] = held
        self._memory.move_to_end(held.page.agent)
        while len(self._memory) > MEMORY:
            self._memory.popitem(last=False)

    def _keep(self, held: _Held) -> None:
        self._remember(held)
        path = self._path(held.page.agent)
        if path is None:
            return
        page = held.page
        document = {
            "format": FORMAT,
            "agent": page.agent,
            "fetched_at": page.fetched_at.isoformat() if page.fetched_at else None,
            "missing": page.missing,
            "etag": held.etag,
            "last_modified": held.last_modified,
            "text": page.text,
        }
        try:
            data = json.dumps(document, ensure_ascii=True, separators=(",", ":")).encode("ascii")
        except (TypeError, ValueError):
            return
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data)

    def _path(self, agent: str) -> Path | None:
        return None if self.folder is None else self.folder / f"{agent}.json"

    def _load(self, agent: str) -> _Held | None:
        path = self._path(agent)
        if path is None:
            return None
        return read_kept(
            path,
            limit=ENTRY_LIMIT,
            parse=lambda document: _entry(document, agent, self.cap),
            damaged=self.damaged,
        )


class _Other(NotOurs):
    """An intact copy of another agent's page (ids that differ only in case, on a disk that
    does not tell them apart): not damage."""


def _entry(document: Any, agent: str, cap: int) -> _Held:
    """The copy ``document`` holds; ValueError says what is wrong with it."""
    if not isinstance(document, Mapping) or document.get("format") != FORMAT:
        raise ValueError("not a kept soul page")
    if set(document) - {
        "format",
        "agent",
        "fetched_at",
        "missing",
        "etag",
        "last_modified",
        "text",
    }:
        raise ValueError("unknown members")
    if document.get("agent") != agent:
        if isinstance(document.get("agent"), str):
            raise _Other
        raise ValueError("no agent")
    fetched_at = datetime.fromisoformat(str(document.get("fetched_at")))
    if fetched_at.tzinfo is None:
        raise ValueError("fetched_at has no time zone")
    missing, text = document.get("missing"), document.get("text")
    if not isinstance(missing, bool) or (text is None) != missing:
        raise ValueError("neither a page nor a missing one")
    if text is not None and (not isinstance(text, str) or len(text) > cap):
        raise ValueError("the page is not text of at most the cap")
    if text is not None:
        text.encode("utf-8")  # a lone surrogate (only a hand-made file has one) is refused
    etag, last_modified = document.get("etag"), document.get("last_modified")
    for value in (etag, last_modified):
        if value is not None and header_token(value) is None:
            raise ValueError("a validator that could not be sent back")
    page = SoulPage(agent, text, missing=missing, fetched_at=fetched_at, problem=None)
    return _Held(page, etag, last_modified)
