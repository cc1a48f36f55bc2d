"""A store of rapplications as a source: its index, its records, its eggs.

A store publishes a static API: ``api/v1/index.json`` (``rapp-pokedex-api/1.0``) listing its
rapplications, one record per rapplication (``rapp-pokedex-rapp/1.0``: ``rappid``, ``egg_url``,
``egg_bytes``, ``singleton_sha256``, …), and their eggs; or the older top-level ``index.json``
(``rapp-store/1.0``) whose entries carry those promises themselves. :func:`read_store` turns
such an index into :class:`StoreApp` rows, each with its problems beside it; nothing raises for
what the index contains.

Eggs and records come only from the index's origin (scheme, host and port): the index's own
URL's, or for an index read from a file, its ``self_url``'s (else the one origin all its URLs
share). A file index whose ``self_url`` places an egg or record beside it (a mirror of the
store) is read from there, never from the network.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

from tui.eggs.legacy_zip import safe_name_problem

__all__ = [
    "RECORD_SCHEMA",
    "STORE_SCHEMAS",
    "StoreApp",
    "app_from_record",
    "is_store_index",
    "read_store",
]

STORE_SCHEMAS = ("rapp-pokedex-api/1.0", "rapp-store/1.0")
RECORD_SCHEMA = "rapp-pokedex-rapp/1.0"
RECORD_CAP = 1 << 20
#: A store egg no record gives the size of is not downloaded past this (the legacy caps).
EGG_CAP = 64 << 20

Read = Callable[[str, int], Awaitable[bytes]]


@dataclass(frozen=True)
class StoreApp:
    """One rapplication of a store and what its store promises about its egg."""

    origin: str  # its place in the index, "rapplications[3]"
    id: str
    name: str
    store: str  # the index it came from (as it may be shown)
    publisher: str | None = None
    version: str | None = None
    category: str | None = None
    egg_url: str | None = None
    egg_note: str | None = None
    egg_bytes: int | None = None
    rappid: str | None = None
    singleton_sha256: str | None = None
    singleton_bytes: int | None = None
    #: where eggs may be downloaded from: ``scheme://host[:port]`` (None: nowhere)
    egg_origin: str | None = None
    #: the egg's file beside a file index (a mirror of ``egg_url``)
    local_egg: str | None = None
    #: every field of the index entry and the record, for the detail (raw values)
    fields: tuple[tuple[str, str], ...] = ()
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    record: ClassVar[None] = None  # a store row is not a boot record

    @property
    def key(self) -> str:
        return f"store:{self.store}#{self.origin}"

    @property
    def slug(self) -> str:
        return self.id

    def url_problem(self) -> str | None:
        """Why the egg may not be downloaded from ``egg_url`` (None: it may)."""
        if self.egg_url is None:
            return "the store ships no egg for it" + (
                f" ({self.egg_note})" if self.egg_note else ""
            )
        if self.egg_origin is None:
            return f"the store's index names no origin: {self.egg_url!r} is not downloaded"
        if _origin(self.egg_url) != self.egg_origin:
            return (
                f"egg URL {self.egg_url!r} is not on the store's origin {self.egg_origin}: "
                "not downloaded"
            )
        return None

    def as_json(self) -> dict[str, Any]:
        return {
            "origin": self.origin,
            "id": self.id,
            "name": self.name,
            "store": self.store,
            "publisher": self.publisher,
            "version": self.version,
            "category": self.category,
            "egg_url": self.egg_url,
            "egg_bytes": self.egg_bytes,
            "rappid": self.rappid,
            "problems": list(self.problems),
            "warnings": list(self.warnings),
        }


def is_store_index(value: Any) -> bool:
    return isinstance(value, dict) and value.get("schema") in STORE_SCHEMAS


def _origin(url: Any) -> str | None:
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.username or parts.password:
        return None
    default = 443 if parts.scheme == "https" else 80
    return f"{parts.scheme}://{parts.hostname}" + (
        f":{port}" if port not in (None, default) else ""
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _count(value: Any) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class _Place:
    """Where an index is and where its URLs may lead: its origin and, for a file index with a
    ``self_url``, the folder that mirrors the URLs under the index's own."""

    def __init__(self, location: str, value: dict[str, Any], urls: list[str]) -> None:
        self.location = location
        self.base: str | None = None
        self.folder: Path | None = None
        if location.startswith(("http://", "https://")):
            self.origin = _origin(location)
            return
        self_url = value.get("self_url")
        origins = Counter(o for o in map(_origin, urls) if o is not None)
        if isinstance(self_url, str) and _origin(self_url) is not None:
            self.origin = _origin(self_url)
            self.base = self_url.rsplit("/", 1)[0] + "/"
            self.folder = Path(location).parent
        else:
            self.origin = next(iter(origins)) if len(origins) == 1 else None

    def mirror(self, url: str | None) -> str | None:
        """The file beside a file index that mirrors ``url``, when there is one."""
        if url is None or self.base is None or self.folder is None or not url.startswith(self.base):
            return None
        relative = url[len(self.base) :]
        if safe_name_problem(relative) is not None or any(c in relative for c in "%?#"):
            return None
        path = self.folder / relative
        return str(path) if path.is_file() else None


async def read_store(
    location: str, value: dict[str, Any], read: Read, limit: int
) -> list[StoreApp]:
    """The rapplications of the store index ``value`` read from ``location``; ``read(url or
    path, cap)`` reads a record (raises ``ValueError`` or ``OSError``-like on failure)."""
    items = value.get("rapplications")
    if not isinstance(items, list):
        return [StoreApp("rapplications", "?", "?", location, problems=("the index has no list of rapplications",))]  # fmt: skip
    items = items[:limit]
    urls = [
        u
        for item in items
        if isinstance(item, dict)
        for u in (item.get("egg"), item.get("egg_url"), item.get("url"))
        if isinstance(u, str)
    ]
    place = _Place(location, value, urls)
    apps = []
    for position, item in enumerate(items):
        apps.append(await _app(f"rapplications[{position}]", item, place, read))
    return apps


async def _app(origin: str, item: Any, place: _Place, read: Read) -> StoreApp:
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        return StoreApp(origin, "?", "?", place.location, problems=("the index entry has no id",))
    fields = [(f"index.{key}", _shown(v)) for key, v in item.items()]
    problems: list[str] = []
    record: dict[str, Any] = {}
    record_url = _text(item.get("url"))
    if record_url is not None:  # a pokedex index: the rapplication's record
        if _origin(record_url) != place.origin:
            problems.append(f"record URL {record_url!r} is not on the store's origin: not read")
        else:
            record, problem = await _record(place.mirror(record_url) or record_url, read)
            if problem:
                problems.append(problem)
            fields.extend((f"record.{key}", _shown(v)) for key, v in record.items())
    merged = {**item, **record}
    egg_url = _text(merged.get("egg_url", item.get("egg")))
    index_egg = _text(item.get("egg"))
    if record and index_egg is not None and egg_url is not None and index_egg != egg_url:
        problems.append(f"the index's egg URL {index_egg!r} is not the record's {egg_url!r}")
    app = StoreApp(
        origin=f"{origin} {item['id']}",
        id=item["id"],
        store=place.location,
        egg_url=egg_url,
        egg_origin=place.origin,
        local_egg=place.mirror(egg_url),
        fields=tuple(fields),
        **_promises(merged, item["id"]),
    )
    url_problem = app.url_problem()
    if url_problem is not None and egg_url is not None:
        problems.append(url_problem)
    return replace(app, problems=tuple(problems))


async def _record(location: str, read: Read) -> tuple[dict[str, Any], str | None]:
    """A rapplication's record, or why it could not be read (the row is still listed)."""
    try:
        raw = await read(location, RECORD_CAP)
        value = json.loads(raw.decode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - any failure is the row's problem, not a crash
        return {}, f"its record could not be read ({getattr(exc, 'detail', exc)})"
    if not isinstance(value, dict) or value.get("schema") != RECORD_SCHEMA:
        return {}, f"its record is not a {RECORD_SCHEMA} document"
    return value, None


def app_from_record(value: dict[str, Any], location: str) -> StoreApp:
    """A store record read on its own (``roost egg verify EGG --record RECORD``): its promises,
    no origin to download from."""
    fields = tuple((f"record.{key}", _shown(v)) for key, v in value.items())
    app_id = _text(value.get("id")) or "?"
    return StoreApp(
        origin=location,
        id=app_id,
        store=location,
        egg_url=_text(value.get("egg_url")),
        fields=fields,
        **_promises(value, app_id),
    )


def _promises(value: dict[str, Any], app_id: str) -> dict[str, Any]:
    """The members of an index entry or record a row shows and an egg is checked against."""
    return {
        "name": _text(value.get("name")) or app_id,
        "publisher": _text(value.get("publisher")),
        "version": _text(value.get("version")),
        "category": _text(value.get("category")),
        "egg_note": _text(value.get("egg_note")),
        "egg_bytes": _count(value.get("egg_bytes")),
        "rappid": _text(value.get("rappid")),
        "singleton_sha256": _text(value.get("singleton_sha256")),
        "singleton_bytes": _count(value.get("singleton_bytes")),
    }
