"""The verifier's answer: an ordered list of named checks, each pass / fail / skip with its reason.

The order is RAPP/1's verification checklist, then the boot-record checks (the record's own
descriptor, the file against it, the manifest and payload against it), so "failed at check N"
means the same thing in the Boots tab, the inspector and ``roost egg verify``, and the first
failure of a tampered egg names what was tampered even when its record is given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from tui.eggs.zip_reader import PACKAGING_RULES, RULES, PackagingNote
from tui.untrusted import clean_line

__all__ = [
    "CHECKS",
    "CHECK_NAMES",
    "CONTAINER_CHECKS",
    "NOT_REPRODUCIBLE",
    "NO_MANIFEST",
    "UNVERIFIABLE",
    "Check",
    "EggReport",
    "EntryResult",
    "PackagingNote",
    "RAPP1",
    "Results",
    "Status",
    "packaging_summary",
]

_DETAIL_LIMIT = 400

Status = Literal["pass", "fail", "skip"]

# (id, name) in report order.
CHECKS: tuple[tuple[str, str], ...] = (
    ("nesting", "egg nested at most 8 levels deep"),
    *((rule, name) for rule, name in RULES.items()),
    ("zip.first", "first entry is manifest.json"),
    ("manifest.parse", "manifest is strict JSON and exactly its canonical form"),
    ("manifest.shape", "contents is an array of {path, hash} string pairs"),
    ("zip.order", "entry names are manifest.json + contents paths, in that order"),
    ("json.canonical", "a JSON egg is exactly its canonical manifest"),
    ("manifest.members", "manifest has exactly the 7 members"),
    ("manifest.schema", "schema is rapp/1-egg"),
    ("manifest.variant", "variant is a RAPP/1 variant"),
    ("manifest.rappid", "rappid is a valid rappid"),
    ("manifest.utc", "created_utc is a valid RAPP/1 timestamp"),
    ("manifest.payload", "payload is a JSON object"),
    ("manifest.sig", "sig is null or a well-formed detached JWS"),
    ("manifest.contents", "contents items are exactly {path, hash} with 64-hex hashes"),
    ("manifest.paths", "every contents path is a safe packed path"),
    ("manifest.sorted", "contents sorted by the UTF-8 bytes of path"),
    ("manifest.unique", "no duplicate path; manifest.json not listed"),
    ("manifest.container", "container matches the variant (ZIP files = contents)"),
    ("integrity", "every entry hashes to its contents hash"),
    ("viability", "variant rules hold"),
    ("signature", "signature verified (or the egg is unsigned)"),
    ("record.document", "record: a boot record whose own §1.3 rules hold"),
    ("record.ref", "record: egg.ref is 'sha256:' + egg.sha256"),
    ("record.path", "record: egg.path is the content-addressed download path"),
    ("record.url", "record: egg.url is the hub URL + egg.path"),
    ("file.size", "file length equals the record's egg.bytes"),
    ("file.sha256", "file sha256 equals the record's egg.sha256"),
    ("record.address", "egg address equals the record's egg.address"),
    ("record.rappid", "manifest rappid equals the record's egg.rappid"),
    ("record.utc", "manifest created_utc equals the record's egg.utc"),
    ("record.variant", "manifest variant equals the record's egg.variant"),
    ("record.payload-kind", "payload kind equals the record's egg.payloadKind"),
    ("record.organ", "the organ file hashes to organ.sha256 and is the payload's organ"),
    ("record.seed-record", "seed/record.json hashes to seed.recordSha256"),
    ("record.seed-archive", "payload seed archive_sha256 equals seed.archiveSha256"),
)
CHECK_NAMES = dict(CHECKS)
CONTAINER_CHECKS = frozenset(
    [*RULES, "zip.first", "manifest.parse", "manifest.shape", "zip.order", "json.canonical"]
)


class Check(NamedTuple):
    """One line of the report; ``detail`` names the offending value, already passed through
    :func:`tui.untrusted.clean_line` (it quotes hostile bytes) but still plain text, not markup."""

    id: str
    name: str
    status: Status
    detail: str

    def as_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "status": self.status, "detail": self.detail}


class EntryResult(NamedTuple):
    """One archive entry as the inspector lists it; ``hash_ok`` is None when not checked;
    ``lookalike``: why its name passes for another one (a legacy egg's names are flagged, a
    RAPP/1 egg with such a name fails ``zip.names``), plain text, not yet cleaned."""

    name: str
    size: int
    data_offset: int
    egg_hash: str | None
    expected_hash: str | None
    hash_ok: bool | None
    lookalike: str | None = None


class Results:
    """Check results as they are found: ``(status, raw detail)`` per check id. The details
    quote values from the egg and the record; :meth:`checks` makes them safe to print.

    ``container``: the checks whose failure means nothing past the container can be read;
    the first of them to fail is named by every check that did not run."""

    def __init__(
        self,
        order: tuple[tuple[str, str], ...] = (),
        container: frozenset[str] = frozenset(),
    ) -> None:
        self.order = order or CHECKS
        self.container = container if order else CONTAINER_CHECKS
        self.results: dict[str, tuple[Status, str]] = {}
        self.container_failure: str | None = None

    def set(self, check_id: str, status: Status, detail: str = "") -> None:
        self.results[check_id] = (status, detail)
        if status == "fail" and self.container_failure is None and check_id in self.container:
            self.container_failure = check_id

    def status(self, check_id: str) -> Status | None:
        result = self.results.get(check_id)
        return result[0] if result is not None else None

    def ok(self, check_id: str, detail: str = "") -> None:
        self.set(check_id, "pass", detail)

    def fail(self, check_id: str, detail: str) -> None:
        self.set(check_id, "fail", detail)

    def skip(self, check_id: str, detail: str) -> None:
        self.set(check_id, "skip", detail)

    def expect(
        self, check_id: str, good: bool, detail_ok: str, detail_bad: str | Callable[[], str]
    ) -> bool:
        """Pass with ``detail_ok`` or fail with ``detail_bad`` (a callable is only called then)."""
        if good:
            self.set(check_id, "pass", detail_ok)
        else:
            self.set(check_id, "fail", detail_bad() if callable(detail_bad) else detail_bad)
        return good

    def checks(self) -> list[Check]:
        """Every check of the order, those that did not run skipped with why."""
        if self.container_failure:
            not_run = f"not run: container check {self.container_failure} failed"
        else:
            not_run = "not run"
        checks = []
        for check_id, name in self.order:
            status, detail = self.results.get(check_id, ("skip", not_run))
            checks.append(Check(check_id, name, status, clean_line(detail, _DETAIL_LIMIT)))
        return checks


RAPP1 = "rapp/1"
NOT_REPRODUCIBLE = "not byte-reproducible"
#: The ``format`` of a ZIP with no ``manifest.json`` at all, read safely like a legacy egg.
NO_MANIFEST = "no manifest"
#: What roost says of an egg it can read but not verify, after what the egg is.
UNVERIFIABLE = "read safely, cannot be verified"
_NAMES_SHOWN = 3


def packaging_summary(notes: tuple[PackagingNote, ...] | list[PackagingNote]) -> list[str]:
    """One line per packaging rule broken: the rule, what it asks, how many entries and which
    (the first few), and what the first of them carries. Plain text, safe to print."""
    lines = []
    by_rule: dict[str, list[PackagingNote]] = {}
    for note in notes:
        by_rule.setdefault(note.rule, []).append(note)
    for rule, found in by_rule.items():
        names = ", ".join(n.entry for n in found[:_NAMES_SHOWN])
        more = f" and {len(found) - _NAMES_SHOWN} more" if len(found) > _NAMES_SHOWN else ""
        count = "1 entry" if len(found) == 1 else f"{len(found)} entries"
        lines.append(
            clean_line(
                f"{rule} ({PACKAGING_RULES.get(rule, rule)}): {count}, {names}{more} "
                f"({found[0].detail})",
                _DETAIL_LIMIT,
            )
        )
    return lines


@dataclass
class EggReport:
    """The checks of one egg. ``format``: ``"rapp/1"``, or what else it is (a legacy egg:
    ``"legacy (brainstem-egg/2.2-rapplication)"``), which no report ever calls verified."""

    checks: list[Check] = field(default_factory=list)
    size: int = 0
    sha256: str | None = None
    manifest: Any = None
    address: str | None = None
    entries: list[EntryResult] = field(default_factory=list)
    format: str = RAPP1
    #: where the container departs from the byte-reproducible packing: findings, not failures
    #: (a verified egg may carry them; it is then "verified, not byte-reproducible")
    reproducibility: tuple[PackagingNote, ...] = ()

    @property
    def reproducible(self) -> bool:
        """No packaging note: two packings of this manifest would be these bytes."""
        return not self.reproducibility

    @property
    def legacy(self) -> bool:
        """An egg from before RAPP/1 (or refused before its format was known): not verifiable."""
        return self.format != RAPP1

    @property
    def legacy_schema(self) -> str | None:
        """The schema a legacy egg's manifest names (None for RAPP/1 or an unread egg)."""
        if self.format.startswith("legacy (") and self.format.endswith(")"):
            return self.format[len("legacy (") : -1]
        return None

    @property
    def kind(self) -> str:
        """What the egg is, in the one phrase every view uses: ``rapp/1``, ``legacy egg
        (brainstem-egg/2.2-rapplication): read safely, cannot be verified``, ``no manifest: read
        safely, cannot be verified``, or why it was not read (``store egg (refused …)``)."""
        schema = self.legacy_schema
        if schema is not None:
            return f"legacy egg ({clean_line(schema, 80)}): {UNVERIFIABLE}"
        if self.format == NO_MANIFEST:
            return f"{NO_MANIFEST}: {UNVERIFIABLE}"
        return clean_line(self.format, 120)

    @property
    def verified(self) -> bool:
        """Verified under RAPP/1: no check failed, and it is a RAPP/1 egg."""
        return self.ok and not self.legacy

    @property
    def ok(self) -> bool:
        """True when no check failed (skips are checks that did not apply, e.g. no record)."""
        return bool(self.checks) and all(c.status != "fail" for c in self.checks)

    @property
    def first_failure(self) -> tuple[int, Check] | None:
        """``(1-based position, check)`` of the first failed check, for "failed at check N"."""
        for position, check in enumerate(self.checks, start=1):
            if check.status == "fail":
                return position, check
        return None

    def status_of(self, check_id: str) -> Status:
        return self.by_id(check_id).status

    def by_id(self, check_id: str) -> Check:
        for check in self.checks:
            if check.id == check_id:
                return check
        raise KeyError(check_id)

    def entry(self, name: str) -> EntryResult | None:
        """The archive entry called ``name``; read its bytes with
        ``EggSource.of(egg).chunks(e.data_offset, e.data_offset + e.size)``."""
        return next((e for e in self.entries if e.name == name), None)

    def failed(self) -> list[str]:
        return [c.id for c in self.checks if c.status == "fail"]

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "verified": self.verified,
            "format": self.format,
            "byte_reproducible": self.reproducible,
            "checks": [c.as_json() for c in self.checks],
            "reproducibility": [note.as_json() for note in self.reproducibility],
        }
