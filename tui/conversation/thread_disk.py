"""Threads read from GitHub, kept on disk (ARCHITECTURE.md, the conversation).

One file per thread, ``discussion-<n>.json`` in the service's disk-cache folder (``threads/``):
every answer of its last read with its ETag (:class:`~tui.conversation.rest_thread.Entry`), so
the next read asks conditionally and an offline one still shows the copy with its age. Beside
them, ``rate-limit.json`` keeps a spent limit until its reset, so the next `roost thread` does
not ask GitHub either.

What is read back is as untrusted as the service's answers: a file is read only when it is a
regular file (never through a link, never a FIFO), of bounded size, parsed with bounded depth;
an entry that fails any check is removed and the thread is read again as if it had none.
Writes are atomic (a temporary file renamed over the old one). Nothing here is ever fatal: a
read-only or full disk only means the next read asks again.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from tui.conversation.rest_thread import KINDS, MAX_PAUSE_S, THREAD_CAP, Entry, Limit, Page
from tui.network.disk_cache import atomic_write
from tui.network.fetch import header_token
from tui.strict_json import NotOurs, Unreadable, read_json_file, read_kept

__all__ = ["ENTRY_LIMIT", "FORMAT", "QUICK_LIMIT", "ThreadDisk"]

FORMAT = "roost-thread/1"
#: The largest entry read back (answers are kept as ASCII JSON: escapes make them grow).
ENTRY_LIMIT = 4 * THREAD_CAP
#: The largest entry read on the event loop (:meth:`ThreadDisk.load` with ``quick``).
QUICK_LIMIT = 2 << 20
_LIMIT_FILE = "rate-limit.json"
_MAX_PAGES_KEPT = 10_000


class ThreadDisk:
    """The thread entries of one service (``folder`` None: nothing is kept)."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.damaged: list[str] = []  # entries dropped (name: why), for whoever reports them

    def _path(self, number: int) -> Path | None:
        return None if self.folder is None else self.folder / f"discussion-{int(number)}.json"

    def load(self, number: int, api: str, *, quick: bool = False) -> Entry | None:
        """The kept entry of thread ``number`` read from ``api`` (None: none, another
        repository's, or damaged, which is removed). ``quick``: only a small one (a read on the
        event loop)."""
        path = self._path(number)
        if path is None:
            return None
        if quick:
            with contextlib.suppress(OSError):
                if path.lstat().st_size > QUICK_LIMIT:
                    return None
        return read_kept(
            path,
            limit=ENTRY_LIMIT,
            parse=lambda document: _entry(document, api, number),
            damaged=self.damaged,
        )

    def store(self, entry: Entry) -> None:
        """Keep ``entry`` (replacing the last); a disk that refuses only costs the next read."""
        path = self._path(entry.number)
        if path is None:
            return
        document = {
            "format": FORMAT,
            "api": entry.api,
            "number": entry.number,
            "fetched_at": entry.fetched_at.isoformat(),
            "complete": entry.complete,
            "pages": [
                {
                    "url": page.url,
                    "kind": page.kind,
                    "etag": page.etag,
                    "next": page.next,
                    "parent": page.parent,
                    "size": page.size,
                    "data": page.data,
                }
                for page in entry.pages
            ],
        }
        try:
            data = json.dumps(document, ensure_ascii=True, separators=(",", ":")).encode("ascii")
        except (TypeError, ValueError, RecursionError):
            return
        if len(data) > ENTRY_LIMIT:
            return
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data)

    # ------------------------------------------------------------------ the rate limit

    def load_limit(self, origin: str, now: float) -> Limit | None:
        """A limit kept for ``origin`` that still holds, else None."""
        if self.folder is None:
            return None
        try:
            document = read_json_file(self.folder / _LIMIT_FILE, limit=4096)
        except FileNotFoundError:
            return None
        except (Unreadable, OSError):
            return None
        if not isinstance(document, Mapping) or document.get("origin") != origin:
            return None
        until, kind, token = document.get("until"), document.get("kind"), document.get("token")
        if (
            not isinstance(until, int | float)
            or isinstance(until, bool)
            or not math.isfinite(until)
            or kind not in ("primary", "secondary")
            or not isinstance(token, bool)
            or until <= now
        ):
            return None
        return Limit(min(float(until), now + MAX_PAUSE_S), kind, token)

    def store_limit(self, origin: str, limit: Limit) -> None:
        if self.folder is None:
            return
        document = {
            "origin": origin,
            "until": limit.until,
            "kind": limit.kind,
            "token": limit.token,
        }
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write(self.folder / _LIMIT_FILE, json.dumps(document).encode("ascii"))


class _Other(NotOurs):
    """An intact entry of another repository (the settings changed): not damage."""


def _entry(document: Any, api: str, number: int) -> Entry:
    """The entry ``document`` holds; ValueError says what is wrong with it."""
    if not isinstance(document, Mapping) or document.get("format") != FORMAT:
        raise ValueError("not a kept thread")
    if document.get("api") != api:
        raise _Other
    if document.get("number") != number:
        raise ValueError("the entry is of another thread")
    fetched_at = datetime.fromisoformat(str(document.get("fetched_at")))
    if fetched_at.tzinfo is None:
        raise ValueError("fetched_at has no time zone")
    complete = document.get("complete")
    pages = document.get("pages")
    if not isinstance(complete, bool) or not isinstance(pages, list) or not pages:
        raise ValueError("no pages")
    if len(pages) > _MAX_PAGES_KEPT:
        raise ValueError("too many pages")
    kept = tuple(_page(page) for page in pages)
    if kept[0].kind != "discussion":
        raise ValueError("the first page is not the discussion")
    return Entry(api, number, fetched_at, kept, complete)


def _page(raw: Any) -> Page:
    if not isinstance(raw, Mapping):
        raise ValueError("a page is not an object")
    url, kind, data = raw.get("url"), raw.get("kind"), raw.get("data")
    if not isinstance(url, str) or kind not in KINDS:
        raise ValueError("a page has no URL or kind")
    if (kind == "discussion") != isinstance(data, Mapping) or (
        kind != "discussion" and not isinstance(data, list)
    ):
        raise ValueError("a page's data does not fit its kind")
    following, parent, size = raw.get("next"), raw.get("parent"), raw.get("size")
    if following is not None and not isinstance(following, str):
        raise ValueError("a page's next link is not a URL")
    if parent is not None and not isinstance(parent, str):
        raise ValueError("a page's parent is not an id")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError("a page's size is not a count of bytes")
    etag = raw.get("etag")
    return Page(
        url,
        kind,
        data,
        etag=header_token(etag) if etag is not None else None,
        next=following,
        parent=parent,
        size=size,
    )
