"""Snapshots of the egg inspector (alone) and the Boots tab, at 80×24 and 120×40.

Regenerate after a deliberate change with ``--snapshot-update`` and look at the SVGs first.
"""

from __future__ import annotations

import pytest
from app_rig import loaded, make_rig, no_blink, settle
from egg_fixtures import InspectorApp, StoreBoots, demo_egg, extra_files_egg, flip_byte

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


def steps(*keys: str, app_loaded: bool = False):
    """A run_before: let the screen settle, press ``keys``, settle, stop cursors blinking."""

    async def run_before(pilot) -> None:
        if app_loaded:
            await loaded(pilot)
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        no_blink(pilot.app)
        await pilot.pause()

    return run_before


@SIZES
def test_inspector_report_verified(snap_compare, size):
    egg, record = demo_egg()
    assert snap_compare(InspectorApp(egg, record), terminal_size=size, run_before=steps())


@SIZES
def test_inspector_report_tampered(snap_compare, size):
    egg, record = demo_egg()
    app = InspectorApp(flip_byte(egg, "soul.md", 3), record)
    assert snap_compare(app, terminal_size=size, run_before=steps())


@SIZES
def test_inspector_files(snap_compare, size):
    egg, record = demo_egg()
    assert snap_compare(
        InspectorApp(egg, record), terminal_size=size, run_before=steps("tab", "tab")
    )


@SIZES
def test_inspector_viewer_text(snap_compare, size):
    egg, record = demo_egg()
    keys = ("tab", "tab", "j", "j", "enter")  # agents/rapp_seed_runner_agent.py
    assert snap_compare(InspectorApp(egg, record), terminal_size=size, run_before=steps(*keys))


def test_inspector_viewer_hex(snap_compare):
    egg, _ = extra_files_egg({"blob.bin": bytes(range(256)) * 2})
    keys = ("tab", "tab", "j", "j", "j", "enter")  # blob.bin, after agents/ and its file
    assert snap_compare(InspectorApp(egg), terminal_size=(80, 24), run_before=steps(*keys))


@SIZES
def test_inspector_hatch(snap_compare, size):
    egg, record = demo_egg()
    app = InspectorApp(egg, record)
    assert snap_compare(app, terminal_size=size, run_before=steps("shift+tab"))


@SIZES
def test_boots_tab(snap_compare, size):
    app = make_rig(screen="boots").app
    assert snap_compare(app, terminal_size=size, run_before=steps(app_loaded=True))


@SIZES
def test_boots_tab_after_inspecting(snap_compare, size):
    app = make_rig(screen="boots").app
    keys = ("j", "enter", "escape")
    assert snap_compare(app, terminal_size=size, run_before=steps(*keys, app_loaded=True))


def test_boots_tab_with_a_stores_rapplications(snap_compare):
    app = make_rig(screen="boots").app
    app.service.boots_source = StoreBoots()
    keys = ("G", "k", "k", "k")  # Field Notes, the store's first rapplication
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps(*keys, app_loaded=True))


def test_inspector_on_a_legacy_egg(snap_compare):
    from tests.legacy_eggs import legacy_egg

    assert snap_compare(InspectorApp(legacy_egg()), terminal_size=(80, 24), run_before=steps())


def test_inspector_legacy_files(snap_compare):
    from tests.legacy_eggs import legacy_egg

    app = InspectorApp(legacy_egg())
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps("tab", "tab"))


@SIZES
def test_inspector_reference_packed_egg(snap_compare, size):
    """Beside test_inspector_report_verified (a hub-packed egg): an egg packed as the RAPP/1
    reference's pack_egg packs it (ASCII names without the UTF-8 flag) verifies, and says it
    is not byte-reproducible."""
    from reference_eggs import organism

    app = InspectorApp(organism(), None)
    assert snap_compare(app, terminal_size=size, run_before=steps())
