"""What a report says beyond its checks, in plain lines for every view: what a legacy (or
manifest-less) egg lacks and what was checked instead, and where a container is not
byte-reproducible. The CLI prints these lines; the inspector shows them under a check's detail.
"""

from __future__ import annotations

from tui.eggs.boot_record import BootRecord
from tui.eggs.boot_rows import EggPromise
from tui.eggs.egg_report import NO_MANIFEST, NOT_REPRODUCIBLE, EggReport, packaging_summary
from tui.eggs.legacy import LEGACY_LACKS, checked_instead
from tui.eggs.store import StoreApp

__all__ = ["promise_hatch_lines", "record_hatch_lines", "report_notes", "store_hatch_lines"]


def report_notes(report: EggReport, *, packaging: bool = True) -> list[str]:
    """Plain lines, each a paragraph: why a legacy (or manifest-less) egg cannot be verified
    and what was checked instead; then, when the container is not byte-reproducible (and
    ``packaging``: a view that shows them elsewhere passes False), a header line ending in ':'
    and one line per packaging rule broken."""
    lines: list[str] = []
    if report.legacy_schema is not None or report.format == NO_MANIFEST:
        lines.append(f"Cannot be verified: it has {', '.join(LEGACY_LACKS)}.")
        passed = checked_instead(report)
        lines.append(f"Checked instead: {'; '.join(passed) if passed else 'nothing passed'}.")
    if packaging and report.reproducibility:
        lines.append(
            f"{NOT_REPRODUCIBLE.capitalize()} (packaging only; what a reader sees of each file"
            " is proven):"
        )
        lines.extend(packaging_summary(report.reproducibility))
    return lines


def promise_hatch_lines(promise: EggPromise | None) -> list[tuple[str, str]]:
    """``(label, value)`` pairs of what hatching would do, as what promised the egg says: a
    hub's boot record, or a store's rapplication (none for a local egg nobody promised)."""
    if promise is None:
        return []
    if isinstance(promise, StoreApp):
        return store_hatch_lines(promise)
    return record_hatch_lines(promise)


def record_hatch_lines(record: BootRecord) -> list[tuple[str, str]]:
    """``(label, value)`` pairs of what a boot record says hatching its egg does (raw values;
    roost runs none of it)."""
    lines = [(f"effect {n}", effect) for n, effect in enumerate(record.hatch.effects, start=1)]
    lines.append(("grantsAuthority", str(record.hatch.grantsAuthority).lower()))
    lines.append(("installer", record.brainstem.installer))
    lines.append(("hatcher path", record.brainstem.hatcher.path))
    lines.append(("hatcher sha256", record.brainstem.hatcher.sha256))
    lines.append(("minVersion", record.brainstem.minVersion))
    return lines


def store_hatch_lines(app: StoreApp) -> list[tuple[str, str]]:
    """``(label, value)`` pairs of what a store says installing its rapplication does (raw
    values; roost runs none of it)."""
    fields = dict(app.fields)
    lines = [("store", app.store), ("rapplication", f"{app.name} ({app.id})")]
    for label, key in (("install", "install_one_liner"), ("default port", "default_port"),
                       ("agent file", "singleton_url"), ("ui", "ui_url")):  # fmt: skip
        value = fields.get(f"record.{key}") or fields.get(f"index.{key}")
        if value:
            lines.append((label, value))
    if app.singleton_sha256:
        lines.append(("agent file sha256", app.singleton_sha256))
    if app.rappid:
        lines.append(("rappid", app.rappid))
    return lines
