"""No word cut at 60, 80 and 120 columns where roost writes its own lines: the Stats summary and
detail, the egg inspector's summary (verified, failed, legacy), the status bar, and the toasts
that used to be drawn over it."""

from __future__ import annotations

import re

import pytest
from app_rig import loaded, make_rig, painted, settle
from egg_fixtures import InspectorApp, demo_egg, flip_byte
from textual.app import App
from textual.widgets import Static

from tui.ui.app_state import AppState
from tui.ui.screens.boots.inspector import EggInspectorScreen, summary_text
from tui.ui.stylesheets import sheets
from tui.ui.widgets.stats_panel import HISTORY_NOTE
from tui.ui.widgets.status_bar import StatusBar

WIDTHS = pytest.mark.parametrize(
    "size", [(60, 20), (80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}"
)


def screen_rows(app) -> list[str]:
    return ["".join(s.text for chop in row for s in chop) for row in painted(app).strips]


def region_rows(app, widget) -> list[str]:
    """What is painted in ``widget``'s region, row by row."""
    region = widget.region
    rows = screen_rows(app)[region.y : region.y + region.height]
    return [row[region.x : region.x + region.width] for row in rows]


def words(text: str) -> list[str]:
    return re.findall(r"\S+", text.replace("\u00b7", " "))


def assert_whole(shown: list[str], meant: str) -> None:
    """Every word of ``meant`` is shown whole, in order, nothing cut with an ellipsis."""
    seen = words(" ".join(shown))
    assert seen == words(meant), f"shown {shown!r}, meant {meant!r}"


# ------------------------------------------------------------------------- Stats


@WIDTHS
async def test_stats_summary_and_detail_cut_no_words(size):
    rig = make_rig(screen="stats")
    async with rig.app.run_test(size=size) as pilot:
        await loaded(pilot)
        summary = rig.app.screen.query_one("#stats-summary", Static)
        text = str(summary.render()).strip()
        shown = [row.strip() for row in region_rows(rig.app, summary)]
        assert shown == [text]  # all of it on its line: nothing hidden past the edge
        assert "\u2026" not in text and "counters" in text and "data time" in text
        parts = text.split(" \u00b7 ")
        assert parts[-1] in ("1 point", f"1 point: {HISTORY_NOTE}")  # whole, or said below
        detail = rig.app.screen.query_one("#stats-detail")
        lines = [row.strip() for row in region_rows(rig.app, detail)]
        assert not any(line.endswith("\u2026") for line in lines), lines
        assert HISTORY_NOTE in " ".join(line for line in lines if line)


# ------------------------------------------------------------------------- the inspector


async def _inspector_summary(egg, record, size) -> tuple[list[str], str]:
    async with InspectorApp(egg, record).run_test(size=size) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, EggInspectorScreen)
        summary = screen.query_one("#inspector-summary", Static)
        shown = [row.rstrip() for row in region_rows(pilot.app, summary)]
        return shown, summary_text(screen.report).plain


@WIDTHS
async def test_the_inspectors_summary_cuts_no_words(size):
    egg, record = demo_egg()
    shown, meant = await _inspector_summary(egg, record, size)
    assert meant.startswith("VERIFIED")
    assert_whole(shown, meant)


@WIDTHS
async def test_the_failure_header_cuts_no_words(size):
    egg, record = demo_egg()
    shown, meant = await _inspector_summary(flip_byte(egg, "soul.md", 3), record, size)
    assert meant.startswith("FAILED at check")
    assert_whole(shown, meant)


@WIDTHS
async def test_a_legacy_eggs_summary_cuts_no_words(size):
    from tests.legacy_eggs import legacy_egg

    shown, meant = await _inspector_summary(legacy_egg(), None, size)
    assert meant.startswith("legacy egg (")
    assert_whole(shown, meant)


# ------------------------------------------------------------------------- the status bar


@WIDTHS
async def test_a_toast_leaves_the_status_bar_whole(size):
    rig = make_rig()
    async with rig.app.run_test(size=size, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("y")  # "Copied …": a toast, at the bottom right
        rig.app.notify("A second toast, long enough to wrap onto a few lines of its own box.")
        await settle(pilot)
        assert len(rig.app.screen.query("Toast")) == 2
        bar = rig.app.screen.query_one(StatusBar)
        shown = region_rows(rig.app, bar)[0].strip()
        assert shown == str(bar.render()).strip(), "a toast is drawn over the status bar"


@WIDTHS
async def test_a_toast_leaves_a_threads_status_line_whole(size):
    rig = make_rig()
    async with rig.app.run_test(size=size, notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("7")
        await settle(pilot)
        await pilot.press("enter")  # the newest post's thread
        await settle(pilot)
        assert rig.app.screen.id == "thread-screen"
        rig.app.notify("A toast, long enough to wrap onto a few lines of its own box.")
        await settle(pilot)
        line = rig.app.screen.query_one("#thread-status", Static)
        shown = region_rows(rig.app, line)[0].strip()
        assert shown and shown == str(line.render()).strip()


class BarHost(App[None]):
    """A status bar alone, showing ``state``, styled as in the app."""

    CSS_PATH = sheets("widgets")

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.bar_state = state

    def compose(self):
        yield StatusBar(self.bar_state)


@WIDTHS
async def test_the_status_bar_cuts_no_words(size):
    state = AppState(
        service="raw.githubusercontent.com/kody-w/rappterbook/main",
        paused=True,
        outbox="2 queued, 1 rejected",
    )
    app = BarHost(state)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        bar = app.query_one(StatusBar)
        shown = region_rows(app, bar)[0].rstrip()
        assert "\u2026" not in shown.replace("connecting\u2026", ""), shown
        assert "paused" in shown and "rejected" in shown  # what needs attention stays
        said = str(bar.render())
        parts = [part.strip() for part in shown.split("\u2502")]
        assert all(part and part in said for part in parts), (shown, said)
        assert len(shown) <= size[0]
