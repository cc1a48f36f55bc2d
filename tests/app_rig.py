"""Helpers for the app tests: the real RoostApp on the in-process demo network, frozen clock."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from textual.pilot import Pilot

from tui.app import RoostApp
from tui.config import Settings
from tui.network.store import Store
from tui.sandbox.app import create_app
from tui.sandbox.faults import Faults
from tui.sandbox.generator import DEFAULT_EPOCH
from tui.sandbox.published import DemoNetwork
from tui.sandbox.server import in_process_client

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
) -> Rig:
    sandbox = create_app(network, seed=7, agents=agents, epoch=DEFAULT_EPOCH)
    network = sandbox.state.sandbox.network
    clock = Clock()
    store = Store(BASE, client=in_process_client(sandbox, BASE), clock=clock)
    app = RoostApp(
        Settings(), store=store, clock=clock, initial_screen=screen, poll=False, demo=demo
    )
    return Rig(app, network, store, clock, sandbox.state.sandbox.faults)


def demo_app(screen: str = "agents") -> RoostApp:
    return make_rig(screen=screen).app


async def settle(pilot: Pilot) -> None:
    """Wait until background builds are done and the UI handled what they posted."""
    app = pilot.app
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


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
    writes it (a widget that missed a refresh still shows its old state here).

    Textual has no public API for this; this is the one place the tests reach into it."""
    return app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
