"""``ROOST_PLAIN``: the speed machinery (tui/ui/speed) off, whole or piece by piece, and the
dashboard still works as plain Textual."""

from __future__ import annotations

import gc

import pytest
from app_rig import loaded, make_rig, settle, svg_text
from textual.css.stylesheet import Stylesheet

from tui.ui import speed
from tui.ui.screens.seeds import SeedsScreen
from tui.ui.screens.stats import StatsScreen
from tui.ui.textual_compat import ParseOnceStylesheet


def screen_text(app) -> str:
    """What the terminal shows, as plain text lines."""
    return svg_text(app.export_screenshot())


@pytest.mark.parametrize(
    ("value", "off"),
    [
        ("", set()),
        ("0", set()),
        ("1", set(speed.PIECES)),
        ("all", set(speed.PIECES)),
        ("gc, preload", {"gc", "preload"}),
    ],
)
def test_the_switch_names_the_pieces_turned_off(monkeypatch, value, off):
    monkeypatch.setenv(speed.ENV, value)
    assert speed.plain() == off
    assert {piece for piece in speed.PIECES if not speed.on(piece)} == off


def test_an_unknown_piece_is_an_error(monkeypatch):
    with pytest.raises(ValueError, match="no speed piece 'warp'"):
        speed.on("warp")


async def test_roost_plain_runs_the_dashboard_as_plain_textual(monkeypatch):
    """With every piece off the app parses its CSS as Textual does, leaves the collector alone
    and preloads nothing; the tabs open, show their data and take their keys."""
    monkeypatch.setenv(speed.ENV, "1")
    threshold = gc.get_threshold()
    rig = make_rig()
    app = rig.app
    assert type(app.stylesheet) is Stylesheet and not isinstance(
        app.stylesheet, ParseOnceStylesheet
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert gc.get_threshold() == threshold  # full collections left to the collector
        assert app.screen.table.total_count > 0
        await pilot.press("4")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen) and app.screen.body_filled
        await pilot.press("5", "right_square_bracket")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SeedsScreen) and screen.section == "seeds-proposals"
        assert "Proposals" in screen_text(app)
        assert all(worker.name != "preload" for worker in app.workers)
        await pilot.press("1")
        await settle(pilot)
        assert app.screen.table.total_count > 0


async def test_the_machinery_is_on_by_default(monkeypatch):
    monkeypatch.delenv(speed.ENV, raising=False)
    app = make_rig().app
    assert isinstance(app.stylesheet, ParseOnceStylesheet)
