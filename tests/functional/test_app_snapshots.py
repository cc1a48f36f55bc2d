"""Snapshots of the table tabs, details, filter, help and palette on demo data, frozen clock.

Regenerate after a deliberate change with ``pytest tests/functional/test_app_snapshots.py --snapshot-update``
and look at the SVGs in tests/functional/__snapshots__/ before committing them.
"""

from __future__ import annotations

import pytest
from app_rig import demo_app, loaded, no_blink, settle

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


def steps(*keys: str):
    """A run_before: wait for the data, press ``keys``, settle, stop cursors blinking."""

    async def run_before(pilot) -> None:
        await loaded(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        no_blink(pilot.app)
        await pilot.pause()

    return run_before


@SIZES
def test_agents(snap_compare, size):
    assert snap_compare(demo_app("agents"), terminal_size=size, run_before=steps())


@SIZES
def test_trending(snap_compare, size):
    assert snap_compare(demo_app("trending"), terminal_size=size, run_before=steps())


@SIZES
def test_channels(snap_compare, size):
    assert snap_compare(demo_app("channels"), terminal_size=size, run_before=steps())


@SIZES
def test_agent_detail(snap_compare, size):
    # the fourth agent (zion-welcomer-01) has traits, channels and unknown fields
    run = steps("down", "down", "down", "enter")
    assert snap_compare(demo_app("agents"), terminal_size=size, run_before=run)


@SIZES
def test_trending_detail(snap_compare, size):
    assert snap_compare(demo_app("trending"), terminal_size=size, run_before=steps("enter"))


@SIZES
def test_channel_detail(snap_compare, size):
    run = steps("down", "enter")
    assert snap_compare(demo_app("channels"), terminal_size=size, run_before=run)


@SIZES
def test_filter_active(snap_compare, size):
    run = steps("slash", *"zion-c", "enter", "s", "a", "S")  # karma, then reversed
    assert snap_compare(demo_app("agents"), terminal_size=size, run_before=run)


@SIZES
def test_sort_picker(snap_compare, size):
    run = steps("s", "a", "s")  # sorted by karma; the picker open again, karma marked
    assert snap_compare(demo_app("agents"), terminal_size=size, run_before=run)


def test_column_chooser(snap_compare):
    run = steps("C", "j", "space", "j", "j", "j", "space")  # name and karma unticked
    assert snap_compare(demo_app("agents"), terminal_size=(80, 24), run_before=run)


@SIZES
def test_help(snap_compare, size):
    assert snap_compare(demo_app("agents"), terminal_size=size, run_before=steps("question_mark"))


@SIZES
def test_palette(snap_compare, size):
    run = steps("ctrl+p", *"poe")
    assert snap_compare(demo_app("agents"), terminal_size=size, run_before=run)
