"""Verify an egg against RAPP/1 and, when given, the boot record that promised it.

``verify_egg`` reads the egg once through the strict reader (a buffer or a file, streamed),
hashes every entry as it passes, and answers an :class:`EggReport` whose checks follow
SPEC-egg.md §7 and the record cross-checks of §1.3. Nothing from the egg is executed, imported
or written anywhere. A container-level failure makes the checks that need the container
``skip`` (naming the failure); every other check still runs, so a report shows all that is
wrong with a well-formed egg.
"""

from __future__ import annotations

import hashlib
import json
import threading
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tui.eggs import rapp
from tui.eggs.boot_record import (
    BootRecord,
    egg_path_for,
    egg_url_problems,
    parse_boot_record,
    record_rule_problems,
)
from tui.eggs.canonical_json import (
    MAX_CANONICAL_BYTES,
    CanonicalJsonError,
    strict_loads,
    strict_parse_plain,
)
from tui.eggs.egg_report import CHECKS, CONTAINER_CHECKS, Check, EggReport, EntryResult
from tui.eggs.zip_reader import (
    RULES,
    EggSource,
    StrictZipReader,
    ZipEntry,
    ZipFormatError,
    crc32,
)
from tui.untrusted import clean_line, is_plain

__all__ = ["MAX_NESTING", "READ_WHOLE_MAX", "record_document_checks", "verify_egg"]

MAX_NESTING = 8
# eggs in files up to this size are read whole (the fixed part of the verifier's memory bound)
READ_WHOLE_MAX = 4 << 20
_DETAIL_LIMIT = 400
# Small files the variant rules read (rappid.json); anything larger fails those rules unread.
_MAX_CAPTURE = MAX_CANONICAL_BYTES


# Below this size a second thread costs more than the hash it would overlap.
_PARALLEL_FROM = 256 << 10
_OFFLOAD_BLOCK = 1 << 16
_PENDING_MAX = 4
_FILE_POOL: ThreadPoolExecutor | None = None
_PLAIN_POOL: ThreadPoolExecutor | None = None
_POOLS_LOCK = threading.Lock()


def _pools() -> tuple[ThreadPoolExecutor, ThreadPoolExecutor]:
    """One worker for the whole-file sha256, one for plain entry hashes (FIFO keeps order)."""
    global _FILE_POOL, _PLAIN_POOL
    with _POOLS_LOCK:
        if _FILE_POOL is None or _PLAIN_POOL is None:
            _FILE_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="egg-file-sha256")
            _PLAIN_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="egg-entry-sha256")
        return _FILE_POOL, _PLAIN_POOL


class _OffloadedHash:
    """A sha256 whose big updates run on a worker (``pool``: 1, the entry-hash one; 0,
    the archive's), overlapping the egg hash and CRC-32 of the same bytes on the calling
    thread; at most a few blocks are in flight."""

    def __init__(self, offload: bool, pool: int = 1) -> None:
        self._hasher = hashlib.sha256()
        self._offload = offload
        self._pool = pool
        self._pending: deque[Future[None]] = deque()

    def update(self, block: Any) -> None:
        if not self._offload or len(block) < _OFFLOAD_BLOCK:
            self._drain(0)
            self._hasher.update(block)
            return
        self._drain(_PENDING_MAX - 1)
        self._pending.append(_pools()[self._pool].submit(self._hasher.update, block))

    def _drain(self, keep: int) -> None:
        while len(self._pending) > keep:
            self._pending.popleft().result()

    def hexdigest(self) -> str:
        self._drain(0)
        return self._hasher.hexdigest()


class _Worker:
    """A thread that runs one job at a time, started through a lock (a ThreadPoolExecutor's
    submit, work item, queue and Future cost the calling thread 10-20 us of Python a job,
    about a twentieth of the 0.4 MB hash it overlaps). The job reports on its own (see
    :class:`_ArchiveJob`); the worker frees itself when the job returns."""

    def __init__(self, name: str) -> None:
        self._claim = threading.Lock()
        self._go = threading.Lock()
        self._go.acquire()
        self._job: Callable[[], None] | None = None
        self._name = name
        self._thread: threading.Thread | None = None

    def start(self, job: Callable[[], None]) -> bool:
        """Run ``job`` on this worker; False (nothing started) while it runs another."""
        if not self._claim.acquire(blocking=False):
            return False
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
            self._thread.start()
        self._job = job
        self._go.release()
        return True

    def _loop(self) -> None:
        while True:
            self._go.acquire()
            job, self._job = self._job, None
            try:
                job()  # type: ignore[misc]  # (a job keeps its own errors: _ArchiveJob)
            finally:
                self._claim.release()


# Two: a verifier's job frees its worker only when the worker next gets the interpreter,
# which can be after the next verification has begun (one egg after another).
_WORKERS = (_Worker("egg-sha256-a"), _Worker("egg-sha256-b"))
_EMPTY_SHA256 = hashlib.sha256().hexdigest()


class _ArchiveJob:
    """Without a record, the worker's part of an egg in memory: the CRC-32 of its big entries,
    then the sha256 of the whole archive.

    Neither result needs the worker to take the interpreter again before this thread reads it,
    so this thread never waits for the worker's Python (a wait that costs two thread wake-ups
    when the worker's hash ends while this thread runs the checks' Python):

    * the CRC-32s are ready long before they are asked for: they are computed while this
      thread hashes the biggest entry, and stored then (the interpreter is free meanwhile);
    * the archive's sha256 is read from the hash object itself: hashlib holds the object's
      own lock for the whole of a big update (taken after the interpreter is let go) and a
      digest takes that lock, so a digest read while the worker hashes waits for it, and one
      read before the worker has taken the lock is the empty input's, known, and then this
      thread waits for the job's end (``done``) and reads it again.
    """

    def __init__(self, view: memoryview, spans: dict[int, tuple[int, int]]) -> None:
        self._view = view
        self._spans = spans  # entry index -> (data offset, size)
        self._hasher = hashlib.sha256()
        self.crcs: dict[int, int] = {}
        self._crcs_done = threading.Lock()
        self._crcs_done.acquire()
        self._done = threading.Lock()
        self._done.acquire()
        self._error: BaseException | None = None

    def __call__(self) -> None:  # on the worker
        try:
            view = self._view
            for index, (start, size) in self._spans.items():
                self.crcs[index] = crc32(view[start : start + size])
        except BaseException as exc:  # noqa: BLE001 - raised on this thread's behalf by crc()
            self._error = exc
        finally:
            self._crcs_done.release()
        try:
            if self._error is None:
                self._hasher.update(self._view)
        except BaseException as exc:  # noqa: BLE001 - raised by sha256()
            self._error = exc
        finally:
            self._view = None  # type: ignore[assignment]
            self._done.release()

    def crc(self, index: int) -> int | None:
        """The CRC-32 of entry ``index`` when the job computes it (waiting for it), else None."""
        if index not in self._spans:
            return None
        if index not in self.crcs:
            with self._crcs_done:
                pass
        if self._error is not None:
            raise self._error
        return self.crcs[index]

    def sha256(self) -> str:
        digest = self._hasher.hexdigest()  # waits for an update under way (see above)
        if digest == _EMPTY_SHA256:  # the update had not begun: wait for the job's end
            with self._done:
                pass
            if self._error is not None:
                raise self._error
            digest = self._hasher.hexdigest()
        return digest


def _begun_then(begun: threading.Lock, job: Callable[[], str]) -> str:
    begun.release()
    return job()


_EGG_HASH = rapp.hb_hasher("rapp/1:egg")  # copied for each entry


class _Sink:
    """Everything one pass over an entry's bytes yields: its egg hash, maybe its plain sha256,
    maybe the bytes themselves (only for the manifest and rappid.json, both size-capped)."""

    __slots__ = ("data", "egg_hash", "plain")

    def __init__(self, plain: bool, capture: bool, offload: bool) -> None:
        self.egg_hash = _EGG_HASH.copy()
        self.plain = _OffloadedHash(offload) if plain else None
        self.data = bytearray() if capture else None

    def update(self, block: Any) -> None:
        if self.plain is not None:
            self.plain.update(block)
        self.egg_hash.update(block)
        if self.data is not None:
            self.data += block


_ITEM_MEMBERS = frozenset(("path", "hash"))
_MEMBERS_DETAIL = "schema, variant, rappid, created_utc, contents, payload, sig"
_DIRECTORY_RULES_PASS = {rule: ("pass", "") for rule in list(RULES)[:-1]}


class _Report:
    """Check results as they are found: ``(status, raw detail)`` per check id; the details are
    made safe to print (they quote values from the egg and the record) once, in :meth:`ordered`."""

    def __init__(self) -> None:
        self.results: dict[str, tuple[str, str]] = {}
        self.container_failure: str | None = None

    def set(self, check_id: str, status: str, detail: str) -> None:
        self.results[check_id] = (status, detail)
        if status == "fail" and self.container_failure is None and check_id in CONTAINER_CHECKS:
            self.container_failure = check_id

    def status(self, check_id: str) -> str | None:
        result = self.results.get(check_id)
        return result[0] if result is not None else None

    def ok(self, check_id: str, detail: str = "") -> None:
        self.results[check_id] = ("pass", detail)  # a pass or a skip is no container failure

    def fail(self, check_id: str, detail: str) -> None:
        self.set(check_id, "fail", detail)

    def skip(self, check_id: str, detail: str) -> None:
        self.results[check_id] = ("skip", detail)

    def expect(
        self, check_id: str, good: bool, detail_ok: str, detail_bad: str | Callable[[], str]
    ) -> bool:
        """Pass with ``detail_ok`` or fail with ``detail_bad`` (a callable is only called then)."""
        if good:
            self.results[check_id] = ("pass", detail_ok)
        else:
            self.set(check_id, "fail", detail_bad() if callable(detail_bad) else detail_bad)
        return good

    def ordered(self) -> list[Check]:
        results = self.results
        not_run = (
            f"not run: container check {self.container_failure} failed"
            if self.container_failure
            else "not run"
        )
        get, absent = results.get, ("skip", not_run)
        # one scan of every detail for anything unsafe (the usual answer: nothing)
        details = [detail for _, detail in results.values()]
        details.append(not_run)
        if is_plain(" ".join(details)) and max(map(len, details)) <= _DETAIL_LIMIT:
            make = tuple.__new__  # rows are 4-tuples: Check._make's length check is moot
            return [make(Check, head + get(head[0], absent)) for head in CHECKS]
        rows = [head + get(head[0], absent) for head in CHECKS]
        return [Check(i, n, s, clean_line(d, _DETAIL_LIMIT)) for i, n, s, d in rows]  # type: ignore[arg-type]


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _as_record(record: BootRecord | dict[str, Any] | None) -> BootRecord | None:
    if record is None or isinstance(record, BootRecord):
        return record
    return parse_boot_record(record)


def verify_egg(
    egg: bytes | bytearray | memoryview | str | Path | EggSource,
    record: BootRecord | dict[str, Any] | None = None,
    *,
    hub_url: str | None = None,
    depth: int = 0,
    record_refused: str | None = None,
) -> EggReport:
    """Verify ``egg`` (bytes, or a file path read in chunks) and return the full report.

    ``record`` (a validated :class:`BootRecord` or its JSON value) adds the record cross-checks;
    ``hub_url`` pins where the record's ``egg.url`` must point. ``record_refused``: a record was
    given but is not a boot record (why, in one line): ``record.document`` fails with it and the
    other record checks do not run. Raises only for a ``record`` value that is not a boot record
    (``pydantic.ValidationError``) or an unreadable file (``OSError``).
    """
    boot = _as_record(record)
    source = egg if isinstance(egg, EggSource) else _source(egg)
    try:
        refused = record_refused if boot is None else None
        return _Verifier(source, boot, hub_url, depth, refused).run()
    finally:
        if not isinstance(egg, EggSource):
            source.close()


def _source(egg: bytes | bytearray | memoryview | str | Path) -> EggSource:
    """A file of at most :data:`READ_WHOLE_MAX` bytes is read in one call and verified as a
    buffer (one read, one view per entry: a 0.4 MB egg's file is checked about as fast as its
    bytes); a bigger one is streamed in chunks, so memory stays bounded either way."""
    if isinstance(egg, (str, Path)):
        path = Path(egg)
        if path.stat().st_size <= READ_WHOLE_MAX:
            return EggSource(data=path.read_bytes())
    return EggSource.of(egg)


def record_document_checks(record: BootRecord, hub_url: str | None) -> list[tuple[str, bool, str]]:
    """``(check id, good, detail)`` of the checks on the record alone (``record.document``,
    ``record.ref``, ``record.path``, ``record.url``): they need no byte of the egg, so a refused
    download reports them too."""
    egg = record.egg
    problems = record_rule_problems(record)
    if problems:
        document = (False, "; ".join(problems))
    else:
        unknown = record.unknown_fields()
        extra = f"; members no published record has: {', '.join(unknown)}" if unknown else ""
        document = (True, f"{record.slug}: constants and §1.3 rules hold{extra}")
    ref = f"sha256:{egg.sha256}"
    path = egg_path_for(egg.sha256)
    url_problems = egg_url_problems(egg.url, egg.path, hub_url)
    return [
        ("record.document", *document),
        ("record.ref", egg.ref == ref, egg.ref if egg.ref == ref else f"egg.ref {egg.ref!r} != {ref!r}"),
        ("record.path", egg.path == path, egg.path if egg.path == path else f"egg.path {egg.path!r} != {path!r}"),
        ("record.url", not url_problems, "; ".join(url_problems) or egg.url),
    ]  # fmt: skip


# record_document_checks per (record, hub URL): a record is frozen, and one is checked against
# each of its eggs, or the same egg again (the Boots tab re-verifies on every visit)
_RECORD_CHECKS: dict[tuple[int, str | None], tuple[Any, tuple[tuple[str, bool, str], ...]]] = {}
_RECORD_CHECKS_MAX = 64


def _record_checks(record: BootRecord, hub_url: str | None) -> tuple[tuple[str, bool, str], ...]:
    key = (id(record), hub_url)
    hit = _RECORD_CHECKS.get(key)
    if hit is not None and hit[0]() is record:  # the same object, not one that reused its id
        return hit[1]
    checks = tuple(record_document_checks(record, hub_url))
    if len(_RECORD_CHECKS) >= _RECORD_CHECKS_MAX:
        _RECORD_CHECKS.clear()
    _RECORD_CHECKS[key] = (weakref.ref(record), checks)
    return checks


class _Verifier:
    def __init__(
        self,
        source: EggSource,
        record: BootRecord | None,
        hub_url: str | None,
        depth: int,
        record_refused: str | None = None,
    ) -> None:
        self.source = source
        self.record = record
        self.hub_url = hub_url
        self.depth = depth
        self.r = _Report()
        self.manifest: Any = None
        self.entries: list[ZipEntry] = []
        self.sinks: dict[str, _Sink] = {}
        self.plain_wanted: set[str] = set()
        self._hashes: dict[str, str] | None = None  # _egg_hashes
        self._file_names: set[str] | None = None  # _files
        self._offload = source.size >= _PARALLEL_FROM  # plain hashes on a worker
        self.is_zip = False
        self.address: str | None = None
        self.plain_manifest = False  # told by the strict parse (canonical_json)
        self.manifest_text: bytes | None = None  # the manifest's canonical text, once parsed
        # the manifest's strict parse when the plain-path note needed it first (with a record)
        self._manifest_parsed: tuple[Any, bytes, bool] | CanonicalJsonError | None = None
        self.record_refused = record_refused  # why the record given is not a boot record
        # an egg in memory's sha256, on a worker: how to wait for it
        self.archive_sha256: Callable[[], str] | None = None
        self.archive_job: _ArchiveJob | None = None  # without a record (_start_archive_hash)

    # ------------------------------------------------------------------ driver

    def run(self) -> EggReport:
        archive = None
        if self.source.size >= _PARALLEL_FROM and self.source.in_memory:
            # The whole-file sha256 runs beside everything else, one call on a worker: hashlib
            # releases the GIL on big buffers, so the passes the checks need overlap instead of
            # adding up. Its result is asked for last (_checks). Without a record it starts
            # with the entries' pass (_start_archive_hash). With one, the seed record's plain
            # sha256 follows it on a worker core: wait until it has begun (a worker needs the
            # GIL to begin, and this thread's Python would hold it until the entries' hashes
            # let go of it), so that the two end sooner.
            if self.record is not None:
                begun = threading.Lock()
                begun.acquire()
                job = _pools()[0].submit(_begun_then, begun, self.source.sha256)
                self.archive_sha256 = job.result
                begun.acquire()
        elif self.source.size >= _PARALLEL_FROM:
            # From a file, the same, fed by the entry pass's own reads: the file is read once
            # and the hash is of the bytes the checks saw.
            archive = _OffloadedHash(True, pool=0)
            self.source.tee(archive.update)
        return self._checks(archive)

    def _checks(self, archive: _OffloadedHash | None) -> EggReport:
        self._record_document()
        self._nesting()
        if self.depth <= MAX_NESTING:
            self.is_zip = self.source.size >= 2 and self.source.read(0, 2) == b"PK"
            if self.is_zip:
                self._zip_container()
            else:
                self._json_container()
        if archive is not None:
            self.source.end_tee()  # the reads the checks did not do, while the hash is fed
        if self.r.container_failure is None and self.manifest is not None:
            self._manifest_rules()
            if isinstance(self.manifest, dict):
                try:
                    self.address = rapp.egg_address(
                        self.manifest, plain=self.plain_manifest, canonical_text=self.manifest_text
                    )
                except CanonicalJsonError:
                    self.address = None
                self._integrity()
                self._viability()
                self._signature()
                self._record_cross_checks()
            else:
                for check_id, _ in CHECKS[[i for i, _ in CHECKS].index("integrity") :]:
                    if check_id in ("file.size", "file.sha256"):
                        continue  # below
                    if self.r.status(check_id) is None:  # the record's own checks have run
                        self.r.skip(check_id, "not run: the manifest is not an object")
        # The archive's sha256 last: it ran on a worker beside all of the above (whose Python
        # would otherwise wait for it and then for the interpreter to hand the GIL back).
        if self.archive_sha256 is not None:
            wait, self.archive_sha256 = self.archive_sha256, None
            sha256 = wait()
        elif archive is not None:
            sha256 = archive.hexdigest()
        else:
            sha256 = self.source.sha256()
        self._record_file(sha256)
        report = EggReport(checks=self.r.ordered(), size=self.source.size, sha256=sha256)
        report.manifest = self.manifest
        report.address = self.address
        report.entries = self._entry_results()
        return report

    # ------------------------------------------------------------------ record (document, file)

    def _no_record(self) -> str:
        if self.record_refused is not None:
            return "not checked: the record given is not a boot record"
        return "no boot record given"

    def _record_document(self) -> None:
        rec = self.record
        if rec is None:
            if self.record_refused is not None:
                self.r.fail("record.document", self.record_refused)
            else:
                self.r.skip("record.document", "no boot record given")
            skipped = ("skip", self._no_record())
            self.r.results.update(
                dict.fromkeys(("record.ref", "record.path", "record.url"), skipped)
            )
            return
        for check_id, good, detail in _record_checks(rec, self.hub_url):
            self.r.set(check_id, "pass" if good else "fail", detail)

    def _record_file(self, sha256: str) -> None:
        rec = self.record
        if rec is None:
            why = self._no_record()
            self.r.skip("file.size", f"{why} (file is {self.source.size} bytes)")
            self.r.skip("file.sha256", f"{why} (sha256 {sha256})")
            return
        size = self.source.size
        self.r.expect(
            "file.size",
            size == rec.egg.bytes,
            f"{size} bytes",
            f"file is {size} bytes, record says {rec.egg.bytes}",
        )
        self.r.expect(
            "file.sha256",
            sha256 == rec.egg.sha256,
            sha256,
            f"file sha256 {sha256}, record says {rec.egg.sha256}",
        )

    def _nesting(self) -> None:
        self.r.expect(
            "nesting",
            self.depth <= MAX_NESTING,
            f"depth {self.depth}",
            f"nested {self.depth} levels deep, more than {MAX_NESTING}",
        )

    # ------------------------------------------------------------------ container

    def _zip_container(self) -> None:
        self.r.skip("json.canonical", "a ZIP egg")
        reader = StrictZipReader(self.source)
        rules = list(RULES)
        try:
            self.entries = reader.read_directory()
            self.r.results.update(_DIRECTORY_RULES_PASS)  # every rule but zip.crc held
            self.r.ok("zip.directory", f"{len(self.entries)} entries")
            if not self._zip_first():
                return
            self._start_archive_hash()
            job = self.archive_job
            reader.stream(self._sink_for, job.crc if job is not None else None)
            self.r.ok("zip.crc", f"{len(self.entries)} entries, {self.source.size} bytes")
        except ZipFormatError as exc:
            for rule in rules[: rules.index(exc.rule)]:
                if rule not in self.r.results:
                    self.r.ok(rule)
            self.r.fail(exc.rule, exc.detail)
            return
        self._zip_manifest()

    def _start_archive_hash(self) -> None:
        """Without a record, an egg in memory's big entries' CRC-32 and its sha256 start on a
        worker as the entries' pass starts (:class:`_ArchiveJob`): the worker takes the
        interpreter when the first big entry's hash lets go of it (asked for earlier, it would
        wait for this thread's Python all the same)."""
        source = self.source
        view = source.buffer()
        if self.record is not None or view is None or source.size < _PARALLEL_FROM:
            return
        spans = {e.index: (e.data_offset, e.size) for e in self.entries if e.size >= _OFFLOAD_BLOCK}
        job = _ArchiveJob(view, spans)
        if not any(worker.start(job) for worker in _WORKERS):
            _pools()[0].submit(job)  # both busy (other verifications): the pool's thread
        self.archive_job = job
        self.archive_sha256 = job.sha256

    def _zip_first(self) -> bool:
        first = self.entries[0].name
        return self.r.expect(
            "zip.first",
            first == rapp.MANIFEST_NAME,
            rapp.MANIFEST_NAME,
            f"first entry is {first!r}, not {rapp.MANIFEST_NAME!r}",
        )

    def _sink_for(self, entry: ZipEntry) -> _Sink:
        if entry.index == 2:
            self._note_plain_paths()
        capture = entry.size <= _MAX_CAPTURE and (entry.index == 1 or entry.name == "rappid.json")
        sink = _Sink(entry.name in self.plain_wanted, capture, self._offload)
        self.sinks[entry.name] = sink
        return sink

    def _note_plain_paths(self) -> None:
        """Which entries need a plain sha256 (organ, seed record): from the record and from the
        manifest, read leniently here; the strict reading is the manifest checks' job."""
        if self.record is None:
            return
        self.plain_wanted.add(self.record.organ.path)
        sink = self.sinks.get(rapp.MANIFEST_NAME)
        payload: Any = {}
        if sink is not None and sink.data is not None:
            data = bytes(sink.data)
            parsed = self._manifest_parsed = self._strict_parse(data)
            try:
                if isinstance(parsed, tuple):
                    payload = parsed[0]["payload"]
                else:  # not strict JSON (manifest.parse will say so): read it as JSON can be
                    payload = json.loads(data)["payload"]
            except (ValueError, TypeError, KeyError, IndexError, RecursionError):
                payload = {}
        for organ in _organs(payload):
            if isinstance(organ.get("path"), str):
                self.plain_wanted.add(organ["path"])
        self.plain_wanted.add(_seed_record_path(payload))

    def _zip_manifest(self) -> None:
        sink = self.sinks[rapp.MANIFEST_NAME]
        if sink.data is None:
            size = self.entries[0].size
            self.r.fail(
                "manifest.parse", f"manifest.json is {size} bytes, more than {MAX_CANONICAL_BYTES}"
            )
            return
        data = bytes(sink.data)
        if not self._parse_canonical("manifest.parse", data, self._manifest_parsed):
            return
        manifest = self.manifest
        contents = manifest.get("contents") if isinstance(manifest, dict) else None
        shape_ok = isinstance(contents, list) and all(
            isinstance(item, dict)
            and item.keys() == _ITEM_MEMBERS
            and isinstance(item["path"], str)
            and isinstance(item["hash"], str)
            for item in contents
        )
        if not self.r.expect(
            "manifest.shape",
            shape_ok,
            f"{len(contents) if isinstance(contents, list) else 0} items",
            lambda: f"contents is not an array of {{path, hash}} strings: {_short(contents)}",
        ):
            return
        names = [e.name for e in self.entries]
        expected = [rapp.MANIFEST_NAME] + [item["path"] for item in contents]
        if names != expected:
            at = next(
                (i for i, (a, b) in enumerate(zip(names, expected, strict=False)) if a != b), None
            )
            if at is None:
                detail = f"archive has {len(names)} entries, manifest lists {len(expected)} (with manifest.json)"
            else:
                detail = f"entry {at + 1} is {names[at]!r}, manifest order expects {expected[at]!r}"
            self.r.fail("zip.order", detail)
            return
        self.r.ok("zip.order", f"{len(names)} entries")

    def _json_container(self) -> None:
        for rule in [*RULES, "zip.first", "manifest.parse", "manifest.shape", "zip.order"]:
            self.r.skip(rule, "not a ZIP egg (does not start with PK)")
        size = self.source.size
        if size > MAX_CANONICAL_BYTES:
            self.r.fail(
                "json.canonical", f"a JSON egg of {size} bytes exceeds {MAX_CANONICAL_BYTES}"
            )
            return
        self._parse_canonical("json.canonical", self.source.read(0, size))

    @staticmethod
    def _strict_parse(data: bytes) -> tuple[Any, bytes, bool] | CanonicalJsonError:
        try:
            return strict_parse_plain(data)
        except CanonicalJsonError as exc:
            return exc

    def _parse_canonical(
        self,
        check_id: str,
        data: bytes,
        parsed: tuple[Any, bytes, bool] | CanonicalJsonError | None = None,
    ) -> bool:
        """``parsed``: :meth:`_strict_parse` of ``data`` when it has been done already."""
        if parsed is None:
            parsed = self._strict_parse(data)
        if isinstance(parsed, CanonicalJsonError):
            self.r.fail(check_id, f"not strict RAPP/1 JSON: {parsed}")
            return False
        value, text, self.plain_manifest = parsed
        self.manifest = value
        self.manifest_text = text
        if text != data:
            at = next(
                (i for i, (a, b) in enumerate(zip(text, data, strict=False)) if a != b),
                min(len(text), len(data)),
            )
            shown = data[max(0, at - 20) : at + 20].decode("utf-8", "backslashreplace")
            self.r.fail(
                check_id, f"not canonical JSON: first difference at byte {at}, near {shown!r}"
            )
            return False
        self.r.ok(check_id, f"{len(data)} bytes")
        return True

    # ------------------------------------------------------------------ manifest rules (§7 C)

    def _manifest_rules(self) -> None:
        m = self.manifest
        r = self.r
        if not isinstance(m, dict):
            r.fail("manifest.members", f"manifest is {type(m).__name__}, not an object")
            for check_id in ("manifest.schema", "manifest.variant", "manifest.rappid", "manifest.utc",
                             "manifest.payload", "manifest.sig", "manifest.contents", "manifest.paths",
                             "manifest.sorted", "manifest.unique", "manifest.container"):  # fmt: skip
                r.skip(check_id, "manifest is not an object")
            return
        variant = m.get("variant")
        if self._usual_manifest(m):
            self._contents_rules(m.get("contents"), variant)
            return
        members = set(m)
        extra = sorted(members - rapp.MANIFEST_MEMBERS)
        missing = sorted(rapp.MANIFEST_MEMBERS - members)
        r.expect(
            "manifest.members",
            not extra and not missing,
            _MEMBERS_DETAIL,
            f"extra members {extra}, missing members {missing}",
        )
        schema = m.get("schema")
        r.expect(
            "manifest.schema",
            schema == rapp.SCHEMA,
            rapp.SCHEMA,
            lambda: f"schema is {_short(schema)}",
        )
        r.expect(
            "manifest.variant",
            variant in rapp.VARIANTS,
            str(variant),
            lambda: f"variant {_short(variant)} is not one of {', '.join(rapp.VARIANTS)}",
        )
        rappid = m.get("rappid")
        r.expect(
            "manifest.rappid",
            rapp.is_rappid(rappid),
            str(rappid),
            lambda: f"rappid {_short(rappid)} is not a valid rappid",
        )
        utc = m.get("created_utc")
        r.expect(
            "manifest.utc",
            rapp.is_utc(utc),
            str(utc),
            lambda: f"created_utc {_short(utc)} is not YYYY-MM-DDTHH:MM:SS.mmmZ",
        )
        payload = m.get("payload")
        r.expect(
            "manifest.payload",
            isinstance(payload, dict),
            "object",
            lambda: f"payload is {_short(payload)}",
        )
        sig = m.get("sig", None)
        problem = rapp.sig_problem(sig) if "sig" in m else "sig is missing"
        r.expect(
            "manifest.sig",
            problem is None,
            "null (unsigned)" if sig is None else "detached JWS",
            f"{problem}",
        )
        self._contents_rules(m.get("contents"), variant)

    def _usual_manifest(self, m: dict[str, Any]) -> bool:
        """The seven members, each as the rules below want it, unsigned: their passes at once
        (with the details the rules below give them); else False, and the rules run."""
        schema, variant, rappid = m.get("schema"), m.get("variant"), m.get("rappid")
        utc = m.get("created_utc")
        if not (
            m.keys() == rapp.MANIFEST_MEMBERS
            and m["sig"] is None
            and schema == rapp.SCHEMA
            and variant in rapp.VARIANTS
            and isinstance(m["payload"], dict)
            and rapp.is_rappid(rappid)
            and rapp.is_utc(utc)
        ):
            return False
        self.r.results.update(
            {
                "manifest.members": ("pass", _MEMBERS_DETAIL),
                "manifest.schema": ("pass", rapp.SCHEMA),
                "manifest.variant": ("pass", variant),
                "manifest.rappid": ("pass", rappid),
                "manifest.utc": ("pass", utc),
                "manifest.payload": ("pass", "object"),
                "manifest.sig": ("pass", "null (unsigned)"),
            }
        )
        return True

    def _contents_rules(self, contents: Any, variant: Any) -> None:
        r = self.r
        if not isinstance(contents, list):
            r.fail("manifest.contents", f"contents is {_short(contents)}, not an array")
            for check_id in (
                "manifest.paths",
                "manifest.sorted",
                "manifest.unique",
                "manifest.container",
            ):
                r.skip(check_id, "contents is not an array")
            return
        # manifest.shape held: every item is {path, hash} strings, so only the hashes are left
        if r.status("manifest.shape") == "pass" and rapp.all_hex64([i["hash"] for i in contents]):
            bad = None
        else:
            bad = next(
                (
                    item
                    for item in contents
                    if not (
                        isinstance(item, dict)
                        and set(item) == {"path", "hash"}
                        and isinstance(item["path"], str)
                        and rapp.is_hex64(item["hash"])
                    )  # fmt: skip
                ),
                None,
            )
        if not r.expect(
            "manifest.contents",
            bad is None,
            f"{len(contents)} items",
            lambda: f"bad item {_short(bad)}",
        ):
            for check_id in (
                "manifest.paths",
                "manifest.sorted",
                "manifest.unique",
                "manifest.container",
            ):
                r.skip(check_id, "contents items are malformed")
            return
        paths = [item["path"] for item in contents]
        # in a ZIP egg whose order check passed, the paths are the entry names zip.names
        # already held to the same grammar
        broken = (
            None
            if self.r.status("zip.order") == "pass"
            else next(((p, rapp.path_problem(p)) for p in paths if rapp.path_problem(p)), None)
        )
        r.expect(
            "manifest.paths",
            broken is None,
            f"{len(paths)} paths",
            f"path {broken and broken[0]!r}: {broken and broken[1]}",
        )
        if sorted(paths) == paths and "".join(paths).isascii():
            disorder = None  # ASCII: code points sort as UTF-8 bytes do
        else:
            keys = [rapp.path_sort_key(p) for p in paths]
            disorder = next((i for i in range(1, len(keys)) if keys[i - 1] > keys[i]), None)
        r.expect(
            "manifest.sorted",
            disorder is None,
            "sorted",
            f"{paths[disorder] if disorder else ''!r} comes after {paths[disorder - 1] if disorder else ''!r}",
        )
        duplicates = (
            sorted({p for p in paths if paths.count(p) > 1})
            if len(set(paths)) != len(paths)
            else []
        )
        listed = rapp.MANIFEST_NAME in paths
        r.expect(
            "manifest.unique",
            not duplicates and not listed,
            "unique",
            f"duplicate paths {duplicates}"
            if duplicates
            else "manifest.json is listed in contents",
        )
        if variant in rapp.JSON_VARIANTS:
            r.expect(
                "manifest.container",
                not self.is_zip and not contents,
                "JSON egg, no contents",
                "a JSON variant in a ZIP archive"
                if self.is_zip
                else f"a JSON egg lists {len(contents)} files",
            )
        else:
            # zip.order held: the entries are manifest.json + these paths, in order
            same = r.status("zip.order") == "pass" or self._files() == set(paths)
            r.expect(
                "manifest.container",
                self.is_zip and same,
                "ZIP egg, files = contents",
                f"variant {_short(variant)} needs a ZIP egg"
                if not self.is_zip
                else "archive files differ from contents",
            )

    # ------------------------------------------------------------------ integrity (§7 D)

    def _integrity(self) -> None:
        contents = self.manifest.get("contents")
        if not self.is_zip:
            self.r.skip("integrity", "a JSON egg has no files")
            return
        if self.r.status("manifest.contents") != "pass":
            self.r.skip("integrity", "contents items are malformed")
            return
        actual = self._egg_hashes()
        bad = [
            (item["path"], actual.get(item["path"]), item["hash"])
            for item in contents
            if actual.get(item["path"]) != item["hash"]
        ]
        if bad:
            path, actual, want = bad[0]
            more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
            self.r.fail("integrity", f"{path!r} hashes to {actual}, contents says {want}{more}")
        else:
            self.r.ok("integrity", f"{len(contents)} files")

    def _egg_hashes(self) -> dict[str, str]:
        """Each streamed entry's egg hash, by name (finished once: a digest copies the state)."""
        if self._hashes is None:
            self._hashes = {name: sink.egg_hash.hexdigest() for name, sink in self.sinks.items()}
        return self._hashes

    def _entry_results(self) -> list[EntryResult]:
        expected: dict[str, str] = {}
        if self.r.status("manifest.shape") == "pass":  # {path, hash} strings, every item
            expected = {item["path"]: item["hash"] for item in self.manifest["contents"]}
        elif isinstance(self.manifest, dict) and isinstance(self.manifest.get("contents"), list):
            for item in self.manifest["contents"]:
                if isinstance(item, dict) and isinstance(item.get("path"), str):
                    expected[item["path"]] = item.get("hash")
        results = []
        hashes = self._egg_hashes()
        make = tuple.__new__  # EntryResult's own __new__ is a Python call
        for e in self.entries:
            actual = hashes.get(e.name) if e.index > 1 else None
            want = expected.get(e.name) if e.index > 1 else None
            ok = None if actual is None or want is None else actual == want
            results.append(make(EntryResult, (e.name, e.size, e.data_offset, actual, want, ok)))
        return results

    # ------------------------------------------------------------------ viability (§7 E)

    def _viability(self) -> None:
        variant = self.manifest.get("variant")
        payload = self.manifest.get("payload")
        if variant not in rapp.VARIANTS or not isinstance(payload, dict):
            self.r.skip("viability", "variant or payload is invalid")
            return
        rule: Callable[[dict[str, Any]], str | None] = getattr(self, f"_viable_{variant}")
        problem = rule(payload)
        self.r.expect(
            "viability", problem is None, f"{variant} rules hold", f"{variant}: {problem}"
        )

    def _files(self) -> set[str]:
        if self._file_names is None:
            self._file_names = {e.name for e in self.entries[1:]}
        return self._file_names

    def _identity_problem(self) -> str | None:
        if "rappid.json" not in self._files():
            return "rappid.json is missing"
        sink = self.sinks.get("rappid.json")
        if sink is None or sink.data is None:
            return "rappid.json is larger than 1 MiB"
        try:
            identity = strict_loads(bytes(sink.data))
        except CanonicalJsonError as exc:
            return f"rappid.json is not strict JSON: {exc}"
        if not isinstance(identity, dict):
            return "rappid.json is not a JSON object"
        if "schema" in identity and identity["schema"] != "rapp/1":
            return f"rappid.json schema is {_short(identity['schema'])}, not 'rapp/1'"
        if identity.get("rappid") != self.manifest.get("rappid"):
            return f"rappid.json rappid {_short(identity.get('rappid'))} != manifest rappid {_short(self.manifest.get('rappid'))}"
        return None

    def _viable_organism(self, payload: dict[str, Any]) -> str | None:
        problem = self._identity_problem()
        if problem is None and "soul.md" not in self._files():
            problem = "soul.md is missing"
        return problem

    def _viable_rapplication(self, payload: dict[str, Any]) -> str | None:
        problem = self._identity_problem()
        if problem is not None:
            return problem
        root_py = sorted(p for p in self._files() if "/" not in p and p.endswith(".py"))
        if root_py != ["agent.py"]:
            return f"root-level .py files are {root_py}, expected exactly ['agent.py']"
        return None

    def _viable_session(self, payload: dict[str, Any]) -> str | None:
        if set(payload) != {"runtime", "transcript"}:
            return f"payload members are {sorted(payload)}, expected ['runtime', 'transcript']"
        if not isinstance(payload["runtime"], str):
            return "runtime is not a string"
        transcript = payload["transcript"]
        if not isinstance(transcript, list) or not all(isinstance(t, dict) for t in transcript):
            return "transcript is not an array of objects"
        return None

    def _viable_invite(self, payload: dict[str, Any]) -> str | None:
        if set(payload) != {"target_rappid", "target_url", "target_kind"}:
            return f"payload members are {sorted(payload)}, expected target_rappid, target_url, target_kind"
        if self.manifest.get("sig") is None:
            return "an invite must be signed"
        if not rapp.is_rappid(payload["target_rappid"]):
            return f"target_rappid {_short(payload['target_rappid'])} is invalid"
        if payload["target_kind"] not in ("neighborhood", "estate"):
            return f"target_kind {_short(payload['target_kind'])} is not neighborhood or estate"
        if not _plain_url(payload["target_url"], ("http", "https")):
            return f"target_url {_short(payload['target_url'])} is not an absolute http(s) URL without credentials"
        return None

    def _viable_neighborhood(self, payload: dict[str, Any]) -> str | None:
        return self._members(payload, "members", "organism")

    def _viable_estate(self, payload: dict[str, Any]) -> str | None:
        return self._members(payload, "neighborhoods", "neighborhood")

    def _members(self, payload: dict[str, Any], key: str, child_variant: str) -> str | None:
        if set(payload) != {key}:
            return f"payload members are {sorted(payload)}, expected [{key!r}]"
        members = payload[key]
        if not isinstance(members, list) or not all(rapp.is_rappid(m) for m in members):
            return f"{key} is not an array of valid rappids"
        if len(set(members)) != len(members):
            return f"{key} has duplicates"
        names = {}
        for member in members:
            owner, slug, _ = rapp.rappid_parts(member)  # type: ignore[misc]
            names[f"{owner}--{slug}.egg"] = member
        if len(names) != len(members):
            return "two members derive the same file name"
        if set(names) != self._files():
            return f"files {sorted(self._files())} are not the member eggs {sorted(names)}"
        by_name = {e.name: e for e in self.entries}
        for name, member in names.items():
            entry = by_name[name]
            child = verify_egg(
                self.source.window(entry.data_offset, entry.size), depth=self.depth + 1
            )
            failure = child.first_failure
            if failure is not None:
                return f"member {name!r} fails {failure[1].id}: {failure[1].detail}"
            manifest = child.manifest
            if manifest.get("variant") != child_variant or manifest.get("rappid") != member:
                return f"member {name!r} is not the {child_variant} {member!r}"
        return None

    def _viable_sealed(self, payload: dict[str, Any]) -> str | None:
        expected = {"schema", "cipher", "nonce", "plaintext_commitment", "plaintext_bytes", "media_type",
                    "key_id", "key_service_rappid", "key_service_url", "access", "aad_hash"}  # fmt: skip
        if set(payload) != expected:
            return f"payload members are {sorted(payload)}, expected {sorted(expected)}"
        if self._files() != {"ciphertext.bin"}:
            return f"files are {sorted(self._files())}, expected ['ciphertext.bin']"
        if self.manifest.get("sig") is None:
            return "a sealed egg must be signed"
        p = payload
        nonce = p["nonce"]
        size = p["plaintext_bytes"]
        media = p["media_type"]
        checks = [
            (p["schema"] == "rapp-sealed-artifact/1", "schema is not rapp-sealed-artifact/1"),
            (p["cipher"] == "A256GCM", "cipher is not A256GCM"),
            (p["access"] == "scoped-key-release", "access is not scoped-key-release"),
            (isinstance(nonce, str) and len(nonce) == 16 and rapp.b64url_length(nonce) == 12, "nonce is not 12 base64url bytes"),
            (all(rapp.is_hex64(p[k]) for k in ("plaintext_commitment", "key_id", "aad_hash")), "a hash member is not 64 hex"),
            (type(size) is int and 0 <= size <= 2**30, "plaintext_bytes is outside 0..2^30"),
            (isinstance(media, str) and 1 <= len(media) <= 127 and media == media.strip(), "media_type is malformed"),
            (rapp.is_rappid(p["key_service_rappid"]), "key_service_rappid is invalid"),
            (_plain_url(p["key_service_url"], ("https",), endpoint=True), "key_service_url is not an https .../chat URL"),
        ]  # fmt: skip
        for good, why in checks:
            if not good:
                return why
        aad = {
            "schema": p["schema"], "artifact_rappid": self.manifest.get("rappid"),
            "created_utc": self.manifest.get("created_utc"), "key_id": p["key_id"],
            "plaintext_commitment": p["plaintext_commitment"], "plaintext_bytes": size, "media_type": media,
        }  # fmt: skip
        if rapp.H("rapp/1:sealed-aad", aad) != p["aad_hash"]:
            return "aad_hash does not match the sealed AAD"
        cipher = next(e for e in self.entries if e.name == "ciphertext.bin")
        if cipher.size != size + 16:
            return f"ciphertext.bin is {cipher.size} bytes, expected plaintext_bytes + 16 = {size + 16}"
        return None

    # ------------------------------------------------------------------ signature (§7 F)

    def _signature(self) -> None:
        sig = self.manifest.get("sig")
        if self.r.status("manifest.sig") != "pass":
            self.r.skip("signature", "sig is malformed (see manifest.sig)")
        elif sig is None:
            self.r.ok("signature", "unsigned (sig is null): nothing to verify")
        else:
            self.r.fail("signature", "not verified: no key (roost holds no signer keys)")

    # ------------------------------------------------------------------ record cross-checks (§1.3)

    def _record_cross_checks(self) -> None:
        rec = self.record
        ids = ("record.address", "record.rappid", "record.utc", "record.variant", "record.payload-kind",
               "record.organ", "record.seed-record", "record.seed-archive")  # fmt: skip
        if rec is None:
            skipped = ("skip", self._no_record())
            self.r.results.update(dict.fromkeys(ids, skipped))
            return
        m = self.manifest
        egg = rec.egg
        self._same("record.address", self.address, egg.address)
        self._same("record.rappid", m.get("rappid"), egg.rappid)
        self._same("record.utc", m.get("created_utc"), egg.utc)
        self._same("record.variant", m.get("variant"), egg.variant)
        payload = m.get("payload") if isinstance(m.get("payload"), dict) else {}
        self._same("record.payload-kind", payload.get("kind"), egg.payloadKind)
        self._organ(payload)
        self._seed(payload)

    def _same(self, check_id: str, actual: Any, promised: Any) -> None:
        self.r.expect(
            check_id,
            actual == promised,
            str(actual),
            lambda: f"egg has {_short(actual)}, record says {_short(promised)}",
        )

    def _plain_sha(self, path: str) -> str | None:
        sink = self.sinks.get(path)
        return sink.plain.hexdigest() if sink is not None and sink.plain is not None else None

    def _organ(self, payload: dict[str, Any]) -> None:
        organ = self.record.organ  # type: ignore[union-attr]
        actual = self._plain_sha(organ.path)
        if actual is None:
            self.r.fail("record.organ", f"the egg has no file {organ.path!r}")
        elif actual != organ.sha256:
            self.r.fail(
                "record.organ", f"{organ.path!r} sha256 is {actual}, record says {organ.sha256}"
            )
        elif {"path": organ.path, "sha256": organ.sha256} not in _organs(payload):
            self.r.fail(
                "record.organ",
                f"payload organs {_short(_organs(payload))} do not list {organ.path!r} with that sha256",
            )
        else:
            self.r.ok("record.organ", f"{organ.path} {actual}")

    def _seed(self, payload: dict[str, Any]) -> None:
        seed = self.record.seed  # type: ignore[union-attr]
        path = _seed_record_path(payload)
        actual = self._plain_sha(path)
        if actual is None:
            self.r.fail("record.seed-record", f"the egg has no file {path!r}")
        else:
            self._same("record.seed-record", actual, seed.recordSha256)
        pseed = payload.get("seed")
        archive = pseed.get("archive_sha256") if isinstance(pseed, dict) else None
        self._same("record.seed-archive", archive, seed.archiveSha256)


def _organs(payload: Any) -> list[dict[str, Any]]:
    brainstem = payload.get("brainstem") if isinstance(payload, dict) else None
    organs = brainstem.get("organs") if isinstance(brainstem, dict) else None
    return [o for o in organs if isinstance(o, dict)] if isinstance(organs, list) else []


def _seed_record_path(payload: Any) -> str:
    seed = payload.get("seed") if isinstance(payload, dict) else None
    path = seed.get("record") if isinstance(seed, dict) else None
    return path if isinstance(path, str) else "seed/record.json"


def _plain_url(url: Any, schemes: tuple[str, ...], endpoint: bool = False) -> bool:
    if not isinstance(url, str):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if parts.scheme not in schemes or not parts.hostname or parts.username or parts.password:
        return False
    if endpoint:
        return not parts.query and not parts.fragment and parts.path.endswith("/chat")
    return True
