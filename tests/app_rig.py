"""Helpers for the app tests: the real RoostApp on the in-process demo network, frozen clock."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from textual.pilot import Pilot
from textual_idle import settle

from tui.config import Settings
from tui.eggs.boot_record import BootRecord, parse_boot_record
from tui.eggs.boot_rows import BootsSource, with_sibling_warnings
from tui.eggs.pipeline import EggOutcome, check_egg
from tui.eggs.sources import BootEntry
from tui.network.store import Store
from tui.sandbox.app import create_app
from tui.sandbox.eggs import SeedBootSpec, build_seed_boot
from tui.sandbox.faults import Faults
from tui.sandbox.generator import DEFAULT_EPOCH
from tui.sandbox.published import DemoNetwork
from tui.sandbox.server import in_process_client
from tui.service import Service
from tui.ui import speed
from tui.ui.app import RoostApp
from tui.ui.textual_compat import composited_update

if TYPE_CHECKING:
    from textual._compositor import LayoutUpdate

BASE = "http://sandbox.invalid"


class Clock:
    """A clock frozen at the demo epoch that a test can move by hand."""

    def __init__(self, start: datetime = DEFAULT_EPOCH) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> datetime:
        self.now += timedelta(**kwargs)
        return self.now


@dataclass
class Rig:
    app: RoostApp
    network: DemoNetwork
    store: Store
    clock: Clock
    faults: Faults  # the demo network's fault knobs (latency, errors, ...)

    async def publish(self, pilot: Pilot, *, minutes: float = 1) -> None:
        """Run one store cycle after the test changed the network; let the UI react."""
        self.clock.advance(minutes=minutes)
        await self.store.refresh()
        await settle(pilot)


def make_rig(
    *,
    screen: str = "agents",
    agents: int = 300,
    network: DemoNetwork | None = None,
    demo: bool = True,
    settings: Settings | None = None,
) -> Rig:
    """The app on a demo network of its own (at ``BASE``, in-process), on a frozen clock.

    ``demo``: the app is told it is the demo network (the tab bar's badge, and the Boots tab
    reads the seed boots the demo packer makes in memory); otherwise it reads ``BASE`` as a
    configured service with no boot-record source."""
    sandbox = create_app(network, seed=7, agents=agents, epoch=DEFAULT_EPOCH)
    network = sandbox.state.sandbox.network
    clock = Clock()
    client = in_process_client(sandbox, BASE)
    # the memory policy connect() gives a real store (tui/ui/speed/gc_policy.py)
    store = Store(BASE, client=client, clock=clock, building=speed.building())
    service = service_for(store, demo=demo, demo_app=sandbox, settings=settings)
    app = RoostApp(service, clock=clock, initial_screen=screen, poll=False)
    return Rig(app, network, store, clock, sandbox.state.sandbox.faults)


def service_for(
    store: Store,
    *,
    demo: bool = True,
    demo_app: object | None = None,
    boots: BootsSource | None = None,
    settings: Settings | None = None,
) -> Service:
    """A service around ``store``: the demo network (seed boots packed in memory, no hub
    request, unless ``boots`` is given) or the service at the store's address."""
    if demo:
        return Service(
            settings or Settings(), store, demo_app=demo_app, boots_source=boots or DemoBoots()
        )
    return Service(Settings(read_url=store.read_url), store, boots_source=boots)


def demo_app(screen: str = "agents") -> RoostApp:
    return make_rig(screen=screen).app


async def loaded(pilot: Pilot, timeout: float = 20) -> None:
    """Wait for the first refresh cycle to be shown."""
    await asyncio.wait_for(pilot.app.loaded.wait(), timeout)
    await settle(pilot)


def no_blink(app: RoostApp) -> None:
    """Stop every text cursor blinking (stable snapshots)."""
    from textual.widgets import Input

    for screen in app.screen_stack:
        for field in screen.query(Input):
            field.cursor_blink = False


def svg_text(svg: str) -> str:
    """The text of an exported SVG screenshot, one line per terminal row."""
    import html
    import re

    rows: dict[float, list[str]] = {}
    for y, text in re.findall(r'<text[^>]*?\by="([\d.]+)"[^>]*>([^<]*)</text>', svg):
        rows.setdefault(float(y), []).append(text)
    lines = ("".join(parts) for _y, parts in sorted(rows.items()))
    return html.unescape("\n".join(lines)).replace("\xa0", " ")


def painted(app: RoostApp) -> LayoutUpdate:
    """What the terminal shows now: the screen's composited update, every row as the driver
    writes it (a widget that missed a refresh still shows its old state here). Textual has no
    public API for this: it is reached through tui/ui/textual_compat.py."""
    return composited_update(app)


@dataclass
class DemoBoots:
    """Seed-boot records and eggs packed in memory by the demo packer (no hub, no request).

    Stands in for the hub until the record sources and the download are connected; every
    egg passes every check unless a test hands in other bytes.
    """

    hub_url: str | None = "http://demo-hub.invalid/hub"
    label: str = "demo packer (no hub connected)"
    origins: Sequence[str] = ()
    eggs: dict[str, bytes] | None = None
    records: list[BootRecord] | None = None
    downloaded: set[str] | None = None

    def _build(self) -> None:
        if self.records is not None:
            return
        self.records, self.eggs, self.downloaded = [], {}, set()
        for spec in DEMO_SPECS:
            egg, value = build_seed_boot(SeedBootSpec(**spec), self.hub_url or "")
            record = parse_boot_record(value)
            self.records.append(record)
            self.eggs[record.egg.sha256] = egg

    async def rows(self) -> Sequence[BootEntry]:
        self._build()
        assert self.records is not None
        return with_sibling_warnings([BootEntry(f"demo:{r.slug}", r) for r in self.records])

    async def check(
        self, row: Any, *, download: bool = True, progress: Callable[[int, int], None] | None = None
    ) -> EggOutcome:
        self._build()
        assert self.downloaded is not None and self.eggs is not None
        sha = row.record.egg.sha256
        data = self.eggs.get(sha)
        if sha not in self.downloaded:
            if not download:
                return EggOutcome(None)
            if data is None:
                return EggOutcome(None, error=f"no egg {sha} on the demo hub")
            self.downloaded.add(hashlib.sha256(data).hexdigest())
        assert data is not None
        return await check_egg(data, row.record, hub_url=self.hub_url)


DEMO_SPECS: tuple[dict[str, str], ...] = (
    {
        "slug": "micro-manufacturing-company",
        "name": "The Micro-Manufacturing Company",
        "tagline": "Small batches, made right.",
        "mission": "Run a tiny factory that ships on time.",
    },
    {
        "slug": "independent-game-studio",
        "name": "The Independent Game Studio",
        "tagline": "Games with a point of view.",
        "mission": "Ship one small, finished game a season.",
    },
    {
        "slug": "applied-invention-lab",
        "name": "The Applied Invention Lab",
        "tagline": "Ideas, tested on the bench.",
        "mission": "Turn one odd idea a month into a working prototype.",
    },
    {
        "slug": "turnaround-firm",
        "name": "The Turnaround Firm",
        "tagline": "Fix what is failing, fast.",
        "mission": "Bring a failing team back to shipping in ninety days.",
    },
)
