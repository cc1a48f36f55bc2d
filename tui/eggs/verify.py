"""Verify an egg against RAPP/1 and, when given, the boot record that promised it.

``verify_egg`` reads the egg once, in order, on the calling thread: the strict reader checks the
container (:mod:`tui.eggs.zip_reader`) and hands every byte to the hashes of
:mod:`tui.eggs.egg_hashing`; then the rules of :mod:`tui.eggs.egg_rules` judge what was found.
The answer is an :class:`~tui.eggs.egg_report.EggReport` whose checks follow RAPP/1's
verification checklist and the boot record's cross-checks. Nothing from the egg is executed,
imported or written anywhere. A container-level failure makes the checks that need the container
``skip`` (naming the failure); every other check still runs, so a report shows all that is wrong
with a well-formed egg.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui.eggs import rapp
from tui.eggs.boot_record import BootRecord, parse_boot_record
from tui.eggs.canonical_json import MAX_CANONICAL_BYTES, CanonicalJsonError, strict_parse
from tui.eggs.egg_hashing import EntryHashes, file_hasher
from tui.eggs.egg_report import CHECKS, EggReport, EntryResult, Results
from tui.eggs.egg_rules import (
    EggFacts,
    manifest_rules,
    organs,
    record_cross_checks,
    record_file_checks,
    record_own_checks,
    seed_record_path,
    short,
    signature,
    viability,
)
from tui.eggs.zip_reader import (
    RULES,
    EggSource,
    PackagingNote,
    StrictZipReader,
    ZipEntry,
    ZipFormatError,
)

__all__ = ["MAX_NESTING", "verify_egg"]

MAX_NESTING = 8
# Small files the rules read (the manifest, rappid.json); anything larger fails those rules unread.
_MAX_CAPTURE = MAX_CANONICAL_BYTES
_ITEM_MEMBERS = frozenset(("path", "hash"))
_AFTER_CONTAINER = [
    check_id
    for check_id, _ in CHECKS[[i for i, _ in CHECKS].index("integrity") :]
    if check_id not in ("file.size", "file.sha256")
]


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
    ``hub_url`` pins where the record's ``egg.url`` must point (None: the record's own hub, see
    :func:`~tui.eggs.boot_record.egg_url_problems`). ``record_refused``: a record was given but
    is not a boot record (why, in one line): ``record.document`` fails with it and the other
    record checks do not run. Raises only for a ``record`` value that is not a boot record
    (``pydantic.ValidationError``) or an unreadable file (``OSError``).
    """
    boot = record if record is None or isinstance(record, BootRecord) else parse_boot_record(record)
    source = egg if isinstance(egg, EggSource) else EggSource.of(egg)
    try:
        refused = record_refused if boot is None else None
        return _Verifier(source, boot, hub_url, depth, refused).run()
    finally:
        if not isinstance(egg, EggSource):
            source.close()


class _Verifier:
    def __init__(
        self,
        source: EggSource,
        record: BootRecord | None,
        hub_url: str | None,
        depth: int,
        refused: str | None,
    ) -> None:
        self.source = source
        self.record = record
        self.hub_url = hub_url
        self.depth = depth
        self.refused = refused  # why the record given is not a boot record
        self.r = Results()
        self.is_zip = False
        self.entries: list[ZipEntry] = []
        self.hashes: dict[str, EntryHashes] = {}
        self.manifest: Any = None
        self.packaging: list[PackagingNote] = []
        self._parsed: tuple[Any, bytes] | CanonicalJsonError | None = None  # the manifest's

    def run(self) -> EggReport:
        r = self.r
        record_own_checks(r, self.record, self.hub_url, self.refused)
        r.expect(
            "nesting",
            self.depth <= MAX_NESTING,
            f"depth {self.depth}",
            f"nested {self.depth} levels deep, more than {MAX_NESTING}",
        )
        sha256 = None
        if self.depth <= MAX_NESTING:
            self.is_zip = self.source.read(0, 2) == b"PK"
            sha256 = self._zip_container() if self.is_zip else self._json_container()
        if sha256 is None:  # the container was not read to its end: the file's hash alone
            sha256 = self.source.sha256()
        facts = EggFacts(self.manifest, self.is_zip, self.entries)
        if r.container_failure is None and self.manifest is not None:
            self._judge(facts)
        record_file_checks(r, self.record, self.source.size, sha256, self.refused)
        report = EggReport(checks=r.checks(), size=self.source.size, sha256=sha256)
        report.manifest = self.manifest
        report.address = facts.address
        report.entries = self._entry_results()
        report.reproducibility = (*self.packaging, *facts.member_notes)
        return report

    def _judge(self, facts: EggFacts) -> None:
        r = self.r
        manifest_rules(r, facts)
        if not isinstance(self.manifest, dict):
            for check_id in _AFTER_CONTAINER:
                if r.status(check_id) is None:  # the record's own checks have run
                    r.skip(check_id, "not run: the manifest is not an object")
            return
        try:
            facts.address = rapp.egg_address(self.manifest)
        except CanonicalJsonError:
            facts.address = None
        identity = self.hashes.get("rappid.json")
        facts.identity = identity.data if identity is not None else None
        facts.plain_sha256 = {
            name: hashes.plain_sha256
            for name, hashes in self.hashes.items()
            if hashes.plain_sha256 is not None
        }
        facts.verify_member = self._verify_member
        self._integrity()
        viability(r, facts)
        signature(r, facts)
        record_cross_checks(r, self.record, facts, self.refused)

    def _verify_member(self, entry: ZipEntry) -> EggReport:
        window = self.source.window(entry.data_offset, entry.size)
        return verify_egg(window, depth=self.depth + 1)

    # ------------------------------------------------------------------ container

    def _zip_container(self) -> str | None:
        """Read the ZIP once; the file's sha256 when the read reached its end."""
        r = self.r
        r.skip("json.canonical", "a ZIP egg")
        reader = StrictZipReader(self.source)
        rules = list(RULES)
        whole = None
        try:
            self.entries = reader.read_directory()
            self.packaging = reader.packaging
            for rule in rules[: rules.index("zip.local")]:
                r.ok(rule)
            r.ok("zip.directory", f"{len(self.entries)} entries")
            first = self.entries[0].name
            if not r.expect("zip.first", first == rapp.MANIFEST_NAME, rapp.MANIFEST_NAME,
                            f"first entry is {first!r}, not {rapp.MANIFEST_NAME!r}"):  # fmt: skip
                return None
            whole = file_hasher()
            reader.stream(self._hashes_for, whole)
            r.ok("zip.local")
            r.ok("zip.crc", f"{len(self.entries)} entries, {self.source.size} bytes")
        except ZipFormatError as exc:
            for rule in rules[: rules.index(exc.rule)]:
                if rule not in r.results:
                    r.ok(rule)
            r.fail(exc.rule, exc.detail)
            return whole.hexdigest() if whole is not None else None
        self._zip_manifest()
        return whole.hexdigest()

    def _hashes_for(self, entry: ZipEntry) -> EntryHashes:
        """The hashes entry ``entry`` feeds as it streams past: its egg hash always; its bytes
        for the manifest and rappid.json; its plain sha256 when the record's promises need it."""
        capture = entry.size <= _MAX_CAPTURE and (entry.number == 1 or entry.name == "rappid.json")
        hashes = EntryHashes(plain=entry.name in self._plain_wanted(), capture=capture)
        self.hashes[entry.name] = hashes
        return hashes

    def _plain_wanted(self) -> set[str]:
        """The entries whose plain sha256 a boot record promises (organ, seed record): named by
        the record and by the manifest's payload (the manifest has streamed past by then)."""
        if self.record is None:
            return set()
        wanted = {self.record.organ.path}
        parsed = self._manifest_parse()
        payload = parsed[0].get("payload") if isinstance(parsed, tuple) and isinstance(parsed[0], dict) else None  # fmt: skip
        wanted.update(o["path"] for o in organs(payload) if isinstance(o.get("path"), str))
        wanted.add(seed_record_path(payload))
        return wanted

    def _manifest_parse(self) -> tuple[Any, bytes] | CanonicalJsonError | None:
        """The strict parse of the manifest's bytes, once (None when they were not captured)."""
        hashes = self.hashes.get(rapp.MANIFEST_NAME)
        data = hashes.data if hashes is not None else None
        if self._parsed is None and data is not None:
            try:
                self._parsed = strict_parse(data)
            except CanonicalJsonError as exc:
                self._parsed = exc
        return self._parsed

    def _zip_manifest(self) -> None:
        r = self.r
        hashes = self.hashes[rapp.MANIFEST_NAME]
        if hashes.data is None:
            size = self.entries[0].size
            r.fail("manifest.parse", f"manifest.json is {size} bytes, more than {MAX_CANONICAL_BYTES}")  # fmt: skip
            return
        if not self._canonical("manifest.parse", hashes.data, self._manifest_parse()):
            return
        contents = self.manifest.get("contents") if isinstance(self.manifest, dict) else None
        shape_ok = isinstance(contents, list) and all(
            isinstance(item, dict)
            and item.keys() == _ITEM_MEMBERS
            and isinstance(item["path"], str)
            and isinstance(item["hash"], str)
            for item in contents
        )
        if not r.expect(
            "manifest.shape",
            shape_ok,
            f"{len(contents) if isinstance(contents, list) else 0} items",
            lambda: f"contents is not an array of {{path, hash}} strings: {short(contents)}",
        ):
            return
        names = [e.name for e in self.entries]
        expected = [rapp.MANIFEST_NAME] + [item["path"] for item in contents]  # type: ignore[union-attr]
        if names == expected:
            r.ok("zip.order", f"{len(names)} entries")
            return
        at = next(
            (i for i, (a, b) in enumerate(zip(names, expected, strict=False)) if a != b), None
        )
        if at is None:
            detail = f"archive has {len(names)} entries, manifest lists {len(expected)} (with manifest.json)"
        else:
            detail = f"entry {at + 1} is {names[at]!r}, manifest order expects {expected[at]!r}"
        r.fail("zip.order", detail)

    def _json_container(self) -> str | None:
        """A JSON egg: read whole (it is at most 1 MiB); its sha256 when it was read."""
        r = self.r
        for rule in [*RULES, "zip.first", "manifest.parse", "manifest.shape", "zip.order"]:
            r.skip(rule, "not a ZIP egg (does not start with PK)")
        size = self.source.size
        if size > MAX_CANONICAL_BYTES:
            r.fail("json.canonical", f"a JSON egg of {size} bytes exceeds {MAX_CANONICAL_BYTES}")
            return None
        data = self.source.read(0, size)
        whole = file_hasher()
        whole.update(data)
        try:
            parsed: tuple[Any, bytes] | CanonicalJsonError = strict_parse(data)
        except CanonicalJsonError as exc:
            parsed = exc
        self._canonical("json.canonical", data, parsed)
        return whole.hexdigest()

    def _canonical(
        self, check_id: str, data: bytes, parsed: tuple[Any, bytes] | CanonicalJsonError | None
    ) -> bool:
        """``check_id`` passes when ``data`` parsed strictly (``parsed``) and is exactly its
        canonical form; the parsed value is the manifest either way."""
        if not isinstance(parsed, tuple):
            self.r.fail(check_id, f"not strict RAPP/1 JSON: {parsed}")
            return False
        self.manifest, text = parsed
        if text != data:
            at = next(
                (i for i, (a, b) in enumerate(zip(text, data, strict=False)) if a != b),
                min(len(text), len(data)),
            )
            shown = data[max(0, at - 20) : at + 20].decode("utf-8", "backslashreplace")
            self.r.fail(check_id, f"not canonical JSON: first difference at byte {at}, near {shown!r}")  # fmt: skip
            return False
        self.r.ok(check_id, f"{len(data)} bytes")
        return True

    # ------------------------------------------------------------------ integrity (§7 D)

    def _integrity(self) -> None:
        r = self.r
        if not self.is_zip:
            r.skip("integrity", "a JSON egg has no files")
            return
        if r.status("manifest.contents") != "pass":
            r.skip("integrity", "contents items are malformed")
            return
        contents = self.manifest["contents"]
        actual = {name: hashes.egg_hash for name, hashes in self.hashes.items()}
        bad = [
            (item["path"], actual.get(item["path"]), item["hash"])
            for item in contents
            if actual.get(item["path"]) != item["hash"]
        ]
        if bad:
            path, got, want = bad[0]
            more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
            r.fail("integrity", f"{path!r} hashes to {got}, contents says {want}{more}")
        else:
            r.ok("integrity", f"{len(contents)} files")

    def _entry_results(self) -> list[EntryResult]:
        expected: dict[str, Any] = {}
        contents = self.manifest.get("contents") if isinstance(self.manifest, dict) else None
        if isinstance(contents, list):
            for item in contents:
                if isinstance(item, dict) and isinstance(item.get("path"), str):
                    expected[item["path"]] = item.get("hash")
        results = []
        for e in self.entries:
            hashes = self.hashes.get(e.name) if e.number > 1 else None
            actual = hashes.egg_hash if hashes is not None else None
            want = expected.get(e.name) if e.number > 1 else None
            ok = None if actual is None or want is None else actual == want
            results.append(EntryResult(e.name, e.size, e.data_offset, actual, want, ok))
        return results
