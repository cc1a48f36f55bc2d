"""Boot-record sources: where roost finds the records it shows (ARCHITECTURE.md, the service; eggs).

A source is a URL or a path naming one record, a JSON array of records, a hub index
(a hub index, whose entries embed records or reference them by ``{path|url, ref|sha256}``)
or a folder of record files. :func:`load_boots` reads it and answers a :class:`BootSet`: one
:class:`BootEntry` per record with its problems beside it — a bad record, an unreachable
reference or a referenced document whose sha256 is not its ``ref`` is reported on its entry,
never raised. A referenced document is used only once its bytes hash to the reference.

Good records are cached (:mod:`tui.eggs.record_cache`); when the source or one of its
references cannot be read, or a record turns bad, the last good copy of that place is shown,
marked as cached. Sibling records whose ``brainstem``, ``hatch`` or ``organ`` block differs from
the others' carry a warning: a hub publishes one such block for all its records.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from pydantic import ValidationError

from tui.eggs.boot_record import (
    BootRecord,
    boundary_problems,
    implied_hub,
    parse_boot_record,
    record_bytes,
)
from tui.eggs.hub_paths import INDEX_PATH, OFFLINE, hub_for_record, hub_root, index_url, is_url
from tui.eggs.record_cache import LastGood, RecordCache
from tui.eggs.store import StoreApp, is_store_index, read_store
from tui.errors import RoostError
from tui.network.urls import redact_url
from tui.strict_json import unique_members

if TYPE_CHECKING:
    import httpx

__all__ = [
    "INDEX_PATH",
    "BootEntry",
    "BootSet",
    "SourceOptions",
    "SourceKind",
    "index_url",
    "load_boots",
]

SIBLING_BLOCKS = ("brainstem", "hatch", "organ")
SourceKind = Literal["record", "array", "index", "folder", "store"]
_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class SourceOptions:
    record_cap: int = 1 << 20  # one record document (the hub bounds its sources at 1 MiB)
    document_cap: int = 32 << 20  # an index or an array of records
    record_limit: int = 10_000  # records read from one source (files, array items, entries)
    retry_delay_s: float = 0.75  # before the one retry of a failed request
    concurrency: int = 4  # referenced documents read at once


@dataclass(frozen=True)
class BootEntry:
    """One record of a source: the record (or None) and what is wrong with it.

    ``problems`` explain a missing record or why a cached copy is shown; ``warnings`` are
    facts about a record that is shown (boundary checks, differing sibling blocks).
    """

    origin: str
    record: BootRecord | None = None
    sha256: str | None = None  # of the record document's bytes
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    cached: bool = False
    raw: bytes | None = field(default=None, repr=False, compare=False)  # the document's bytes
    #: the hub its ``egg.url`` was held to (None: its own hub)
    hub_url: str | None = None
    #: the copy of that hub its egg is downloaded from (None: the hub itself)
    mirror: str | None = None

    @property
    def ok(self) -> bool:
        return self.record is not None and not self.problems

    @property
    def slug(self) -> str | None:
        return self.record.slug if self.record is not None else None

    def as_json(self) -> dict[str, Any]:
        return {
            "origin": self.origin,
            "ok": self.ok,
            "slug": self.slug,
            "sha256": self.sha256,
            "cached": self.cached,
            "problems": list(self.problems),
            "warnings": list(self.warnings),
            "record": self.record.as_value() if self.record is not None else None,
        }


@dataclass(frozen=True)
class BootSet:
    """Everything one source gave, in source order: boot records, or a store's rapplications."""

    source: str
    kind: SourceKind | None = None
    entries: tuple[BootEntry, ...] = ()
    problems: tuple[str, ...] = ()  # about the source itself (unreachable, not JSON, ...)
    reachable: bool = True
    requests: int = 0
    apps: tuple[StoreApp, ...] = ()  # a store index's rapplications
    #: the hub the records' ``egg.url`` were held to (None: each record's own)
    hub_url: str | None = None

    @property
    def records(self) -> list[BootRecord]:
        return [e.record for e in self.entries if e.record is not None]

    @property
    def ok(self) -> bool:
        return (
            not self.problems
            and all(e.ok and not e.warnings for e in self.entries)
            and all(not a.problems for a in self.apps)
        )

    def find(self, slug: str) -> BootEntry | None:
        return next((e for e in self.entries if e.record is not None and e.slug == slug), None)

    def find_app(self, app_id: str) -> StoreApp | None:
        return next((a for a in self.apps if a.id == app_id), None)

    def as_json(self) -> dict[str, Any]:
        document = {
            "source": _shown(self.source),
            "kind": self.kind,
            "reachable": self.reachable,
            "problems": list(self.problems),
            "entries": [e.as_json() for e in self.entries],
        }
        if self.kind == "store":
            document["apps"] = [a.as_json() for a in self.apps]
        return document


class SourceError(RoostError):
    """A document could not be read; ``reachable`` is False for network failures."""

    def __init__(self, detail: str, *, reachable: bool = True) -> None:
        super().__init__(detail)
        self.detail = detail
        self.reachable = reachable


def _no_constants(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def _loads(raw: bytes) -> Any:
    """JSON without duplicate members or NaN/Infinity (raises ValueError)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 at byte {exc.start}") from None
    try:
        return json.loads(text, object_pairs_hook=unique_members(), parse_constant=_no_constants)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _validation_detail(exc: ValidationError) -> str:
    errors = exc.errors()
    shown = "; ".join(
        f"{'.'.join(str(p) for p in error['loc']) or '(record)'}: {error['msg']}"
        for error in errors[:3]
    )
    more = f" (+{len(errors) - 3} more)" if len(errors) > 3 else ""
    return f"not a boot record: {shown}{more}"


class _Reader:
    """Reads documents from paths and URLs with the size caps, one retry and a request count."""

    def __init__(self, client: httpx.AsyncClient | None, options: SourceOptions) -> None:
        self.client = client
        self.options = options
        self.requests = 0

    async def read(self, location: str, cap: int) -> bytes:
        if is_url(location):
            return await self._get(location, cap)
        return await asyncio.to_thread(self._read_file, Path(location), cap)

    def _read_file(self, path: Path, cap: int) -> bytes:
        try:
            with path.open("rb") as handle:
                raw = handle.read(cap + 1)
        except FileNotFoundError:
            raise SourceError(f"{path}: no such file") from None
        except OSError as exc:
            raise SourceError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        if len(raw) > cap:
            raise SourceError(f"{path}: larger than the {cap:,}-byte cap")
        return raw

    async def _get(self, url: str, cap: int) -> bytes:
        from tui.network.fetch import FetchError, TooLarge, fetch  # deferred: off the start path

        if self.client is None:
            raise SourceError(f"{redact_url(url)}: no HTTP client", reachable=False)
        for attempt in range(2):
            self.requests += 1
            try:
                result = await fetch(self.client, url, cap=cap)
            except TooLarge as exc:
                raise SourceError(str(exc)) from None
            except FetchError as exc:
                problem = SourceError(_unreachable(exc), reachable=False)
            else:
                if result.status == 200:
                    return result.body
                problem = SourceError(
                    f"{redact_url(url)}: HTTP {result.status}", reachable=result.status < 500
                )
                if result.status < 500 and result.status != 429:
                    raise problem
            if attempt == 0:
                await asyncio.sleep(self.options.retry_delay_s)
        raise problem


def _unreachable(exc: Any) -> str:
    """A source that could not be read, in words: offline when no connection could be made."""
    from tui.network.fetch import Unreachable  # deferred: off the start path

    if isinstance(exc, Unreachable):
        return f"{OFFLINE} ({exc.url})"
    return f"{exc.url}: unreachable ({exc.reason})"


def _resolve(base: str, reference: str) -> str:
    """``reference`` (a hub-relative path) against ``base`` (a hub root URL or folder)."""
    if is_url(base):
        return base.rstrip("/") + "/" + reference.lstrip("/")
    return str(Path(base) / reference)


def _reference_problem(path: Any, url: Any) -> str | None:
    """A hub-relative path must not climb out of the hub root or name another host."""
    if path is not None:
        if not isinstance(path, str) or not path or path.startswith(("/", "\\")):
            return f"reference path {_short(repr(path))} is not a hub-relative path"
        if any(part in ("..", "") for part in path.replace("\\", "/").split("/")):
            return f"reference path {_short(repr(path))} climbs out of the hub"
    if url is not None and (not isinstance(url, str) or not is_url(url)):
        return f"reference url {_short(repr(url))} is not an http(s) URL"
    return None


@dataclass
class _Found:
    """A record candidate before validation: inline, or a reference to a document."""

    origin: str
    value: Any = None
    raw: bytes | None = None
    reference: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)


async def load_boots(
    source: str,
    *,
    client: httpx.AsyncClient | None = None,
    hub_url: str | None = None,
    cache: RecordCache | None = None,
    options: SourceOptions | None = None,
) -> BootSet:
    """Read every record of ``source``; never raises for anything the source contains."""
    options = options or SourceOptions()
    reader = _Reader(client, options)
    try:
        kind, found = await _discover(source, reader, options)
        if kind == "store":
            apps = await read_store(source, found[0].value, reader.read, options.record_limit)
            return BootSet(source, "store", requests=reader.requests, apps=tuple(apps))
    except SourceError as exc:
        entries = _from_cache(cache, exc.detail)
        return _finish(
            BootSet(source, None, tuple(entries), (exc.detail,), exc.reachable, reader.requests),
            hub_url,
        )
    roots = [r for r in (hub_root(source), hub_url) if r]
    gate = asyncio.Semaphore(options.concurrency)

    async def resolve(item: _Found) -> BootEntry:
        async with gate:
            return await _resolve_entry(item, roots, reader, options)

    entries = list(await asyncio.gather(*(resolve(item) for item in found)))
    entries = _with_last_good(entries, cache)
    result = BootSet(source, kind, tuple(entries), (), True, reader.requests)
    return _finish(result, hub_url)


async def _discover(
    source: str, reader: _Reader, options: SourceOptions
) -> tuple[SourceKind, list[_Found]]:
    if not is_url(source) and Path(source).is_dir():
        return "folder", await asyncio.to_thread(_folder, Path(source), options)
    raw = await reader.read(source, options.document_cap)
    try:
        value = _loads(raw)
    except ValueError as exc:
        raise SourceError(f"{_shown(source)}: not JSON ({_short(str(exc))})") from None
    if isinstance(value, list):
        items = [_Found(f"[{i}]", item) for i, item in enumerate(value[: options.record_limit])]
        return "array", _limited(items, len(value), options)
    if not isinstance(value, dict):
        raise SourceError(f"{_shown(source)}: neither a record, an array of records nor an index")
    if is_store_index(value):
        return "store", [_Found(_origin_of(source), value, raw=raw)]
    seeds = value.get("seeds", value.get("records"))
    if value.get("kind") == "organization-seed-index" or (
        isinstance(seeds, list) and value.get("kind") != "organization-seed-boot"
    ):
        if not isinstance(seeds, list):
            raise SourceError(f"{_shown(source)}: an index without a list of seeds")
        found = [_index_item(i, item) for i, item in enumerate(seeds[: options.record_limit])]
        return "index", _limited(found, len(seeds), options)
    return "record", [_Found(_origin_of(source), value, raw=raw)]


def _shown(location: str) -> str:
    """A location as it may be printed: a URL's credentials are never shown."""
    return redact_url(location) if is_url(location) else location


def _origin_of(location: str) -> str:
    if is_url(location):
        return urlsplit(location).path.rsplit("/", 1)[-1] or location
    return Path(location).name


def _folder(folder: Path, options: SourceOptions) -> list[_Found]:
    try:
        paths = sorted(p for p in folder.rglob("*.json") if p.is_file())
    except OSError as exc:
        raise SourceError(f"{folder}: cannot be listed ({exc.strerror or exc})") from None
    found = []
    for path in paths[: options.record_limit]:
        origin = str(path.relative_to(folder))
        try:
            with path.open("rb") as handle:
                raw = handle.read(options.record_cap + 1)
        except OSError as exc:
            found.append(_Found(origin, problems=[f"cannot be read ({exc.strerror or exc})"]))
            continue
        if len(raw) > options.record_cap:
            found.append(_Found(origin, problems=[f"larger than {options.record_cap:,} bytes"]))
            continue
        item = _Found(origin, raw=raw)
        try:
            item.value = _loads(raw)
        except ValueError as exc:
            item.problems.append(f"not JSON ({_short(str(exc))})")
        found.append(item)
    return _limited(found, len(paths), options)


def _limited(found: list[_Found], total: int, options: SourceOptions) -> list[_Found]:
    """At most ``record_limit`` records, and one entry saying how many were left out."""
    if total <= options.record_limit:
        return found
    left = total - options.record_limit
    problem = f"only the first {options.record_limit:,} records of a source are read"
    return [*found[: options.record_limit], _Found(f"{left:,} more", problems=[problem])]


def _index_item(position: int, item: Any) -> _Found:
    """An index entry: a record itself, ``boot.record`` inline, or a reference to a document."""
    slug = item.get("slug") if isinstance(item, dict) else None
    origin = f"seeds[{position}]" + (f" {slug}" if isinstance(slug, str) else "")
    if not isinstance(item, dict):
        return _Found(origin, problems=["the index entry is not an object"])
    if item.get("kind") == "organization-seed-boot":
        return _Found(origin, item)
    boot = item.get("boot", item)
    if not isinstance(boot, dict):
        return _Found(origin, problems=["the index entry's boot is not an object"])
    if isinstance(boot.get("record"), dict):
        return _Found(origin, boot["record"])
    document = boot.get("document", boot)
    if isinstance(document, dict) and ("path" in document or "url" in document):
        return _Found(origin, reference=document)
    return _Found(origin, problems=["the index entry neither embeds nor references a record"])


def _expected_sha256(reference: dict[str, Any]) -> str | None:
    ref, sha256 = reference.get("ref"), reference.get("sha256")
    from_ref = ref[7:] if isinstance(ref, str) and ref.startswith("sha256:") else None
    candidates = {c for c in (from_ref, sha256) if c is not None}
    if len(candidates) != 1:
        return None
    (value,) = candidates
    return value if isinstance(value, str) and _HEX64.fullmatch(value) else None


async def _resolve_entry(
    item: _Found, roots: list[str], reader: _Reader, options: SourceOptions
) -> BootEntry:
    if item.problems:
        return BootEntry(item.origin, problems=tuple(item.problems))
    if item.reference is not None:
        try:
            item.raw = await _read_reference(item.reference, roots, reader, options)
            item.value = _loads(item.raw)
        except SourceError as exc:
            return BootEntry(item.origin, problems=(exc.detail,))
        except ValueError as exc:
            return BootEntry(item.origin, problems=(f"not JSON ({_short(str(exc))})",))
    return _validate(item)


async def _read_reference(
    reference: dict[str, Any], roots: list[str], reader: _Reader, options: SourceOptions
) -> bytes:
    """The referenced document's bytes, read from the index's own hub first, then its url;
    refused unless they hash to the reference."""
    path, url = reference.get("path"), reference.get("url")
    problem = _reference_problem(path, url)
    if problem is not None:
        raise SourceError(problem)
    expected = _expected_sha256(reference)
    if expected is None:
        raise SourceError(
            "the reference carries no usable sha256 (ref 'sha256:<hex>' or sha256): not read"
        )
    locations = [_resolve(root, path) for root in roots] if path else []
    if url:
        locations.append(url)
    if not locations:
        raise SourceError(f"reference path {path!r} has no hub to resolve it against")
    failures = []
    for location in dict.fromkeys(locations):
        try:
            raw = await reader.read(location, options.record_cap)
        except SourceError as exc:
            failures.append(exc)
            continue
        actual = hashlib.sha256(raw).hexdigest()
        if actual != expected:
            raise SourceError(
                f"{_shown(location)}: document sha256 {actual} is not the reference's {expected}; not used"
            )
        return raw
    raise SourceError(
        "; ".join(f.detail for f in failures), reachable=any(f.reachable for f in failures)
    )


def _validate(item: _Found) -> BootEntry:
    if not isinstance(item.value, dict):
        return BootEntry(item.origin, problems=("not a boot record (not a JSON object)",))
    try:
        record = parse_boot_record(item.value)
    except ValidationError as exc:
        return BootEntry(item.origin, problems=(_validation_detail(exc),))
    except ValueError as exc:
        return BootEntry(item.origin, problems=(f"not a boot record ({_short(str(exc))})",))
    raw = item.raw if item.raw is not None else record_bytes(item.value)
    sha256 = hashlib.sha256(raw).hexdigest()
    warnings = []
    stem = Path(item.origin).stem
    if _HEX64.fullmatch(stem) and stem != sha256:
        warnings.append(f"the file is named {stem} but its sha256 is {sha256}")
    return BootEntry(item.origin, record, sha256, warnings=tuple(warnings), raw=raw)


def _entry_from_bytes(origin: str, raw: bytes, problem: str) -> BootEntry | None:
    try:
        record = parse_boot_record(_loads(raw))
    except (ValueError, ValidationError):
        return None
    sha256 = hashlib.sha256(raw).hexdigest()
    return BootEntry(origin, record, sha256, problems=(problem,), cached=True, raw=raw)


def _from_cache(cache: RecordCache | None, problem: str) -> list[BootEntry]:
    """The last good set, for a source that could not be read at all."""
    if cache is None:
        return []
    entries = []
    for last in cache.last_good():
        raw = cache.get(last.sha256)
        entry = raw and _entry_from_bytes(last.origin, raw, "shown from the cache")
        if entry:
            entries.append(entry)
    return entries


def _with_last_good(entries: list[BootEntry], cache: RecordCache | None) -> list[BootEntry]:
    """Cache the good records; a bad one falls back to the last good copy of its place."""
    if cache is None:
        return entries
    previous = {last.origin: last.sha256 for last in cache.last_good()}
    result, good = [], []
    for entry in entries:
        if entry.record is not None and not entry.problems and entry.raw is not None:
            with contextlib.suppress(OSError):  # a read-only cache only costs the fallback
                cache.put(entry.raw)
            good.append(LastGood(entry.origin, entry.sha256 or ""))
            result.append(entry)
            continue
        sha256 = previous.get(entry.origin)
        raw = cache.get(sha256) if sha256 else None
        fallback = raw and _entry_from_bytes(
            entry.origin, raw, "; ".join(entry.problems) + " — showing the last good copy"
        )
        if fallback:
            good.append(LastGood(entry.origin, fallback.sha256 or ""))
            result.append(fallback)
        else:
            result.append(entry)
    with contextlib.suppress(OSError):
        cache.remember(good)
    return result


def _finish(boots: BootSet, hub_url: str | None) -> BootSet:
    """Add the per-record warnings that need the whole set: boundary checks, repeated slugs,
    sibling blocks that differ from the others'."""
    usual: dict[str, tuple[bytes, int]] = {}
    with_records = [e for e in boots.entries if e.record is not None]
    for block in SIBLING_BLOCKS:
        counts = Counter(_block(e.record, block) for e in with_records)  # type: ignore[arg-type]
        if len(counts) > 1:
            value, count = counts.most_common(1)[0]
            usual[block] = (value, count)
    seen: set[str] = set()
    entries = []
    for entry in boots.entries:
        record = entry.record
        if record is None:
            entries.append(entry)
            continue
        warnings = list(entry.warnings)
        held, mirror = hub_for_record(implied_hub(record.egg.url, record.egg.path), hub_url)
        warnings.extend(boundary_problems(record, held))
        if record.slug in seen:
            warnings.append(f"slug {record.slug!r} is used by an earlier record too")
        seen.add(record.slug)
        for block, (value, count) in usual.items():
            if _block(record, block) != value:
                warnings.append(
                    f"its {block} block differs from {count} of its {len(with_records) - 1} "
                    f"sibling records (a hub publishes one {block} block for all)"
                )
        entries.append(replace(entry, warnings=tuple(warnings), hub_url=held, mirror=mirror))
    return replace(boots, entries=tuple(entries), hub_url=hub_url)


def _block(record: BootRecord, block: str) -> bytes:
    value = getattr(record, block).model_dump(mode="json", by_alias=True)
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
