"""Eggs for the inspector and Boots tab tests: demo seed boots, tampered and hostile ones."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app_rig import DemoBoots
from textual.app import App

from tui.config import DEMO_BASE_URL
from tui.eggs.boot_record import BootRecord, parse_boot_record
from tui.eggs.boot_rows import with_sibling_warnings
from tui.eggs.download import EggCache
from tui.eggs.egg_report import EggReport
from tui.eggs.hub_paths import DEMO_STORE_PATH
from tui.eggs.pipeline import Downloads, EggOutcome, check_egg, check_local
from tui.eggs.sources import BootEntry, load_boots
from tui.eggs.store import StoreApp
from tui.eggs.verify import verify_egg
from tui.eggs.zip_reader import EggSource, StrictZipReader
from tui.sandbox.app import create_app
from tui.sandbox.eggs import SeedBootSpec, build_seed_boot, pack_egg
from tui.sandbox.hub import hub_state
from tui.sandbox.server import in_process_client
from tui.ui.screens.boots.inspector import EggInspectorScreen

HUB = "http://hub.invalid/hub"
SPEC = SeedBootSpec(
    slug="micro-manufacturing-company",
    name="The Micro-Manufacturing Company",
    tagline="Small batches, made right.",
    mission="Run a tiny factory that ships on time.",
)
HOSTILE_NAME = "[bold red]Evil[/] \x1b[31mCo\u202e"
MARKUP_PATH = "docs/[@click=app.quit]x[bold red].md"
ESCAPE_TEXT = "before \x1b[2J [@click=app.quit]quit[/] after\n"


def demo_egg(spec: SeedBootSpec = SPEC) -> tuple[bytes, BootRecord]:
    egg, record = build_seed_boot(spec, HUB)
    return egg, parse_boot_record(record)


def entry_span(egg: bytes, name: str) -> tuple[int, int]:
    """``(data_offset, size)`` of entry ``name``, found by the strict reader."""
    entries = StrictZipReader(EggSource.of(egg)).read_directory()
    entry = next(e for e in entries if e.name == name)
    return entry.data_offset, entry.size


def flip_byte(egg: bytes, name: str, at: int = 0) -> bytes:
    """The egg with one byte of entry ``name`` changed (CRC and hash no longer match)."""
    offset, _ = entry_span(egg, name)
    data = bytearray(egg)
    data[offset + at] ^= 0x01
    return bytes(data)


def extra_files_egg(files: dict[str, bytes]) -> tuple[bytes, BootRecord]:
    """A seed-boot-shaped organism egg with ``files`` added (the record then no longer matches
    its size and sha256; the tests that use it look at the files, not the record checks)."""
    base, record = demo_egg()
    manifest_files = {}
    for entry in StrictZipReader(EggSource.of(base)).read_directory()[1:]:
        manifest_files[entry.name] = base[entry.data_offset : entry.data_offset + entry.size]
    manifest_files.update(files)
    egg, _ = pack_egg(
        variant="organism",
        rappid=record.egg.rappid,
        created_utc=record.egg.utc,
        payload=_payload(base),
        files=manifest_files,
    )
    return egg, record


def _payload(egg: bytes) -> dict[str, Any]:
    return verify_egg(egg).manifest["payload"]


class InspectorApp(App[None]):
    """A bare app that pushes the inspector at once: the inspector alone, no dashboard. The
    egg is judged first (as the Boots tab and `roost egg inspect` do) unless a report is given."""

    def __init__(
        self,
        egg: bytes | Path,
        record: BootRecord | None = None,
        *,
        report: EggReport | None = None,
        **kwargs: Any,
    ):
        super().__init__()
        if report is None:
            report = check_local(egg, record, hub_url=HUB).report
        assert report is not None
        self.inspector = EggInspectorScreen(egg, record, report=report, **kwargs)

    def on_mount(self) -> None:
        self.push_screen(self.inspector)


@dataclass
class FixedBoots:
    """A boots source over given records and eggs; counts the downloads it was asked for."""

    records: Sequence[dict[str, Any] | BootRecord]
    eggs: dict[str, bytes]
    hub_url: str | None = HUB
    label: str = "test source"
    origins: Sequence[str] = ()
    broken: Sequence[BootEntry] = ()
    downloads: list[str] = field(default_factory=list)
    cache: dict[str, bytes] = field(default_factory=dict)

    async def rows(self) -> Sequence[BootEntry]:
        parsed = [r if isinstance(r, BootRecord) else parse_boot_record(r) for r in self.records]
        rows = [BootEntry(f"test:{r.slug}", r) for r in parsed]
        return [*with_sibling_warnings(rows), *self.broken]

    async def check(self, row: Any, *, download: bool = True, progress: Any = None) -> EggOutcome:
        record = row.record
        data = self.cache.get(record.egg.sha256)
        if data is None:
            if not download:
                return EggOutcome(None)
            self.downloads.append(record.slug)
            data = self.eggs.get(record.slug)
            if data is None:
                return EggOutcome(None, error=f"hub refused {record.slug}")
            self.cache[record.egg.sha256] = data
        return await check_egg(data, record, hub_url=self.hub_url)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class StoreBoots(DemoBoots):
    """The demo packer's boot records and, beside them, the demo store's rapplications, read
    and downloaded from a sandbox hub in-process (``foreign``: store ids whose egg URL names
    another host)."""

    def __init__(self, foreign: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.label = "demo packer and the demo store"
        self.sandbox = create_app(agents=20)
        hub_state(self.sandbox).faults.foreign_url.update(foreign)
        self.client = in_process_client(self.sandbox, base_url=DEMO_BASE_URL)

    async def rows(self) -> Sequence[Any]:
        boots = await load_boots(f"{DEMO_BASE_URL}/hub/{DEMO_STORE_PATH}", client=self.client)
        return [*(await super().rows()), *boots.apps]

    async def check(self, row: Any, *, download: bool = True, progress: Any = None) -> EggOutcome:
        if not isinstance(row, StoreApp):
            return await super().check(row, download=download, progress=progress)
        downloads = Downloads(self.client, EggCache.for_hub(row.egg_origin or "store"))
        return await check_egg(None, row, downloads=downloads, download=download, progress=progress)
