"""What the Boots tab needs from a boot-record source, and the rows it draws.

The tab asks a :class:`BootsSource` for its entries (a source's
:class:`~tui.eggs.sources.BootEntry` — a boot record, or why there is none — or a store's
:class:`~tui.eggs.store.StoreApp`) and, when the user opens one, has the entry's egg judged.
:func:`boot_row` makes each entry one frozen :class:`BootRow`: everything the tab shows of it,
raw (the tab cleans text as it draws it), so the tab reads fields and never asks what kind of
entry it holds. No Textual import: the CLI and tests use these too.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias, TypeVar

from tui.eggs.boot_record import BootRecord
from tui.eggs.egg_report import EggReport
from tui.eggs.hub_paths import OFFLINE
from tui.eggs.store import StoreApp

if TYPE_CHECKING:
    from tui.eggs.download import Progress
    from tui.eggs.pipeline import EggOutcome
    from tui.eggs.sources import BootEntry

    #: What a source lists: a boot record's entry (or why it has none), or a store's app.
    SourceEntry: TypeAlias = BootEntry | StoreApp

__all__ = [
    "NO_VALUE",
    "BootRow",
    "BootsSource",
    "EggPromise",
    "EggState",
    "boot_row",
    "record_fields",
    "sibling_warnings",
    "size_text",
]

SIBLING_BLOCKS = ("brainstem", "hatch", "organ")
#: A cell with nothing to show.
NO_VALUE = "—"

#: What promised an egg, handed to the inspector: a hub's boot record or a store's
#: rapplication (None where it takes one: a local egg nobody promised).
EggPromise: TypeAlias = BootRecord | StoreApp
_Entry = TypeVar("_Entry", bound="BootEntry")


def size_text(size: int) -> str:
    """``1.2 MB`` style (powers of 1000, as the hub's ``bytes`` are quoted), exact below 1 kB."""
    if size < 1000:
        return f"{size} B"
    value = float(size)
    for unit in ("kB", "MB", "GB"):
        value /= 1000
        if value < 1000 or unit == "GB":
            return f"{value:.1f} {unit}"
    return f"{size} B"


@dataclass(frozen=True)
class BootRow:
    """One row of the Boots tab: a boot record, a store's rapplication, or a source's entry
    that has no record (``kind`` "problem", its ``problems`` say why). Text is raw, as the
    source gave it: whoever draws it cleans it (:mod:`tui.untrusted`)."""

    kind: Literal["record", "app", "problem"]
    #: where the entry came from ("demo:org-1", "rapplications[3] pokedex", a file)
    origin: str
    #: what its egg is known by (a record's egg sha256, an app's place); None: no egg
    key: str | None
    #: the Name cell (a problem row: its origin)
    name: str
    #: the "Slug · by" cell: the record's slug, or the app's publisher and version
    by: str
    #: the Egg size cell, as people read it
    size: str
    #: the name carries a warning mark
    marked: bool
    warnings: tuple[str, ...]
    problems: tuple[str, ...]
    #: the detail's ``(field, raw value)`` lines under the egg's state
    detail: tuple[tuple[str, str], ...]
    #: what ``y`` copies off the table: the egg's URL
    egg_url: str | None
    #: what :meth:`select` finds it by: the record's slug, the app's id
    slug: str | None
    #: why there is no egg to fetch (a store that ships none); None: there may be one
    no_egg: str | None
    #: what the inspector is handed beside the egg
    promise: EggPromise | None
    #: the source's entry, handed back to the source to have its egg judged
    entry: SourceEntry

    @classmethod
    def of_entry(cls, entry: BootEntry) -> BootRow:
        """A source's entry: its record, or (none) the problems that say why."""
        record = entry.record
        notes = _notes(entry.warnings, entry.problems)
        if record is None:
            detail = (("origin", entry.origin), *(("problem", p) for p in entry.problems))
            return cls(
                "problem",
                entry.origin,
                key=None,
                name=entry.origin,
                by=NO_VALUE,
                size=NO_VALUE,
                marked=False,
                warnings=entry.warnings,
                problems=entry.problems,
                detail=detail,
                egg_url=None,
                slug=None,
                no_egg=None,
                promise=None,
                entry=entry,
            )
        return cls(
            "record",
            entry.origin,
            key=record.egg.sha256,
            name=record.name,
            by=record.slug or NO_VALUE,
            size=size_text(record.egg.bytes),
            marked=bool(entry.warnings),
            warnings=entry.warnings,
            problems=entry.problems,
            detail=(*notes, *record_fields(record)),
            egg_url=record.egg.url,
            slug=record.slug,
            no_egg=None,
            promise=record,
            entry=entry,
        )

    @classmethod
    def of_app(cls, app: StoreApp) -> BootRow:
        """A store's rapplication: its promises, and every field of its index entry and
        record."""
        by = " ".join(p for p in (app.publisher, app.version) if p)
        return cls(
            "app",
            app.origin,
            key=app.key,
            name=app.name,
            by=by or NO_VALUE,
            size=size_text(app.egg_bytes) if app.egg_bytes is not None else NO_VALUE,
            marked=bool(app.warnings or app.problems),
            warnings=app.warnings,
            problems=app.problems,
            detail=(*_notes(app.warnings, app.problems), ("store", app.store), *app.fields),
            egg_url=app.egg_url,
            slug=app.slug,
            no_egg=(app.url_problem() or "") if app.egg_url is None else None,
            promise=app,
            entry=app,
        )


def boot_row(entry: SourceEntry) -> BootRow:
    """The row a source's entry is drawn as."""
    return BootRow.of_app(entry) if isinstance(entry, StoreApp) else BootRow.of_entry(entry)


def _notes(warnings: tuple[str, ...], problems: tuple[str, ...]) -> list[tuple[str, str]]:
    # the warnings in full too (the strip above the detail shows three lines of them)
    return [("warning", w) for w in warnings] + [("problem", p) for p in problems]


class BootsSource(Protocol):
    """Where the Boots tab gets its rows and has their eggs judged (the app's ``boots_source``)."""

    #: What the tab says the records come from (a location with no credentials in it).
    label: str
    #: Where the rows come from, each as shown (the tab fits them to its width); empty: the
    #: tab shows ``label``.
    origins: Sequence[str]

    async def rows(self) -> Sequence[SourceEntry]:
        """Every entry of the source, in source order."""
        ...

    async def check(
        self, row: SourceEntry, *, download: bool = True, progress: Progress | None = None
    ) -> EggOutcome:
        """The entry's egg judged (:func:`tui.eggs.pipeline.check_egg`): from the cache, or
        downloaded when ``download`` (``progress(received, promised)`` as bytes arrive). A
        refusal is an outcome whose report names the broken check, never an exception."""
        ...


@dataclass(frozen=True)
class EggState:
    """The table's "verified" column: not downloaded, verified, legacy, or failed at check N."""

    kind: Literal["absent", "busy", "verified", "legacy", "failed", "error", "none"]
    detail: str = ""

    @classmethod
    def of_outcome(cls, outcome: EggOutcome) -> EggState:
        """The state an outcome leaves: judged, not downloaded, or why it could not be had."""
        if outcome.report is not None:
            return cls.of(outcome.report)
        if outcome.error is not None:
            return cls("error", outcome.error)
        return cls("absent")

    @classmethod
    def of(cls, report: EggReport) -> EggState:
        failure = report.first_failure
        passed = sum(c.status == "pass" for c in report.checks)
        if failure is not None:
            position, check = failure
            return cls("failed", f"failed at check {position}: {check.name}")
        if report.legacy:
            return cls("legacy", f"{report.kind} · {passed} checks pass")
        return cls("verified", f"{passed} checks pass")

    @property
    def label(self) -> str:
        if self.kind == "absent":
            return "not downloaded"
        if self.kind == "busy":
            return self.detail
        if self.kind in ("verified", "legacy"):
            return self.kind
        if self.kind == "failed":
            return self.detail.split(":", 1)[0]
        if self.kind == "none":
            return "no egg"
        if self.detail.startswith(OFFLINE):
            return OFFLINE
        return "download failed"


def sibling_warnings(records: Sequence[BootRecord]) -> dict[str, list[str]]:
    """Per slug, the blocks (brainstem, hatch, organ) that differ from what most siblings say.

    A hub publishes one such block for all its records, so a record that differs is suspect.
    """
    warnings: dict[str, list[str]] = {}
    if len(records) < 2:
        return warnings
    for block in SIBLING_BLOCKS:
        values = [repr(getattr(r, block).model_dump(mode="json")) for r in records]
        common, _ = Counter(values).most_common(1)[0]
        for record, value in zip(records, values, strict=True):
            if value != common:
                warnings.setdefault(record.slug, []).append(
                    f"{block} differs from its sibling records' (identical on a real hub)"
                )
    return warnings


def with_sibling_warnings(rows: Sequence[_Entry]) -> list[_Entry]:
    """The entries, each with a warning for every block that differs from its siblings'."""
    found = sibling_warnings([r.record for r in rows if r.record is not None])
    return [
        replace(row, warnings=(*row.warnings, *found.get(row.record.slug, ())))
        if row.record is not None
        else row
        for row in rows
    ]


def _flatten(prefix: str, value: Any, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        for key, child in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), child, out)
    elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        for number, child in enumerate(value, start=1):
            out.append((f"{prefix}[{number}]", child))
    else:
        out.append((prefix, value if isinstance(value, str) else _json(value)))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def record_fields(record: BootRecord) -> list[tuple[str, str]]:
    """Every field of the record as ``(dotted name, raw value)``; unknown ones marked so."""
    unknown = record.unknown_fields()
    out: list[tuple[str, str]] = []
    known = record.as_value()
    for key in unknown:
        *parents, leaf = key.split(".")
        holder: Any = known
        for part in parents:
            holder = holder.get(part, {}) if isinstance(holder, dict) else {}
        if isinstance(holder, dict):
            holder.pop(leaf, None)
    _flatten("", known, out)
    for key, value in unknown.items():
        _flatten(f"{key} (unknown field)", value, out)
    return out
