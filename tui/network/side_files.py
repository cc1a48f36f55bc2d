"""Single documents a deployment publishes beside its state files (``skill.json``,
``state/manifest.json``): fetched with conditional requests, cached on disk, the last good copy
kept.

:class:`SideFile` holds one such document. :meth:`SideFile.refresh` asks the server with the
validators of the copy it has (a 304 costs nothing), parses a new body with the caller's
``parse`` (which raises ``ValueError`` for a document it cannot use) and keeps it only when it
parses; a bad one is reported in ``problem`` and the last good copy (this run's, or the disk
cache's from an earlier run) stays in ``value``. No token is ever sent: these are public reads,
and they follow redirects only within the document's origin (one elsewhere is reported in
``problem``, naming both URLs, and the last good copy stays).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from tui.network.disk_cache import CachedMeta, DiskCache
from tui.network.fetch import FetchError, fetch
from tui.network.urls import redact_url
from tui.strict_json import unique_members

if TYPE_CHECKING:
    import httpx

__all__ = ["SIDE_FILE_CAP", "SideFile", "parse_json"]

#: The most of one side document read (the deployment's skill.json is ~32 KB).
SIDE_FILE_CAP = 1 << 20
#: Whole-request deadline of one side document.
SIDE_FILE_DEADLINE_S = 20.0

T = TypeVar("T")


def _duplicate(key: str) -> ValueError:
    return ValueError(f"the JSON repeats the key {key!r}")


_unique = unique_members(_duplicate)


def parse_json(body: bytes) -> Any:
    """Strict JSON (no repeated keys, no NaN); ``ValueError`` otherwise."""

    def constant(name: str) -> Any:
        raise ValueError(f"the JSON contains {name}")

    try:
        return json.loads(body, object_pairs_hook=_unique, parse_constant=constant)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None


class SideFile(Generic[T]):
    """One public document and what is known of it.

    ``value`` is the last good parse (None before any); ``problem`` says why the last answer
    was not used (None when it was, or nothing was asked yet); ``changed`` counts the times a
    new good copy arrived.
    """

    def __init__(
        self,
        url: str,
        parse: Callable[[Any], T],
        *,
        cache: DiskCache | None = None,
        cache_name: str | None = None,
        cap: int = SIDE_FILE_CAP,
    ):
        self.url = url
        self.parse = parse
        self.cache = cache
        self.cache_name = cache_name
        self.cap = cap
        self.value: T | None = None
        self.problem: str | None = None
        self.missing = False  # the server said 404: the deployment publishes no such document
        self.changed = 0
        self._etag: str | None = None
        self._last_modified: str | None = None
        self._loaded = False

    def load_cached(self) -> None:
        """Take the disk cache's copy (if any, and if it still parses) as the last good one."""
        if self._loaded or self.cache is None or self.cache_name is None:
            return
        self._loaded = True
        entry = self.cache.load(self.cache_name)
        if entry is None:
            return
        try:
            value = self.parse(parse_json(entry.body))
        except (ValueError, TypeError):
            self.cache.drop(self.cache_name, "a cached copy that no longer parses")
            return
        self.value = value
        self._etag, self._last_modified = entry.meta.etag, entry.meta.last_modified

    async def refresh(self, client: httpx.AsyncClient) -> bool:
        """Ask for a newer copy; True when a new good one arrived."""
        self.load_cached()
        try:
            result = await fetch(
                client,
                self.url,
                cap=self.cap,
                etag=self._etag if self.value is not None else None,
                last_modified=self._last_modified if self.value is not None else None,
                deadline_s=SIDE_FILE_DEADLINE_S,
                same_origin=True,  # a redirect elsewhere is a problem naming both URLs
            )
        except FetchError as exc:
            self.problem = f"{redact_url(self.url)}: {exc.reason}"
            return False
        if result.status == 304:
            self.problem = None
            return False
        if result.status == 404:
            self.missing, self.problem = True, None
            return False
        if result.status != 200:
            self.problem = f"{redact_url(self.url)} answered {result.status}"
            return False
        self.missing = False
        try:
            value = self.parse(parse_json(result.body))
        except (ValueError, TypeError) as exc:
            self.problem = f"{redact_url(self.url)} was ignored: {exc}"
            return False
        self.value, self.problem = value, None
        self._etag, self._last_modified = result.etag, result.last_modified
        self.changed += 1
        if self.cache is not None and self.cache_name is not None:
            meta = CachedMeta(
                sha256=result.sha256,
                size=len(result.body),
                fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
                verified=False,
                etag=result.etag,
                last_modified=result.last_modified,
            )
            with contextlib.suppress(OSError):  # the copy in memory is good; the next run asks
                self.cache.store(self.cache_name, result.body, meta)
        return True
