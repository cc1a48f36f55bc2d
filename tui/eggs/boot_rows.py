"""What the Boots tab needs from a boot-record source.

The tab asks a :class:`BootsSource` for its rows and, when the user opens one, for the egg's
bytes (or the path of the cached file). :class:`BootRow` has the fields of the record
sources' ``BootEntry`` (``origin``, ``record``, ``problems``, ``warnings``), so those entries
can be handed over as they are. No Textual import: the CLI and tests use these too.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from tui.eggs.boot_record import BootRecord
from tui.eggs.egg_report import EggReport
from tui.eggs.hub_paths import OFFLINE
from tui.eggs.store import StoreApp

if TYPE_CHECKING:
    from tui.eggs.download import Progress
    from tui.eggs.pipeline import EggOutcome

__all__ = [
    "BootRow",
    "row_key",
    "BootsSource",
    "EggState",
    "record_fields",
    "sibling_warnings",
]

SIBLING_BLOCKS = ("brainstem", "hatch", "organ")


@dataclass(frozen=True)
class BootRow:
    """One record of a source, or why there is none (``record`` None, ``problems`` say why)."""

    origin: str
    record: BootRecord | None = None
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


class BootsSource(Protocol):
    """Where the Boots tab gets its rows and has their eggs judged (the app's ``boots_source``)."""

    #: The hub the records' ``egg.url`` must point at (the verifier's ``hub_url``); None: each
    #: record's own hub (an https URL ending in ``/`` + ``egg.path``).
    hub_url: str | None
    #: What the tab says the records come from (a location with no credentials in it).
    label: str

    async def rows(self) -> Sequence[Any]:
        """Every record of the source, in source order (``BootRow`` or anything shaped so)."""
        ...

    async def check(
        self, row: Any, *, download: bool = True, progress: Progress | None = None
    ) -> EggOutcome:
        """The row's egg judged (:func:`tui.eggs.pipeline.check_egg`): from the cache, or
        downloaded when ``download`` (``progress(received, promised)`` as bytes arrive). A
        refusal is an outcome whose report names the broken check, never an exception."""
        ...


def row_key(row: Any) -> str | None:
    """What a row's egg is known by: its sha256 for a boot record, its place for a store's
    rapplication; None for a row with neither (a source's problem)."""
    if isinstance(row, StoreApp):
        return row.key
    record = getattr(row, "record", None)
    return record.egg.sha256 if record is not None else None


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


def with_sibling_warnings(rows: Sequence[BootRow]) -> list[BootRow]:
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
