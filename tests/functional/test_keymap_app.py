"""[keymap], themes and remembered preferences in the running dashboard: a rebound key acts and
is what help, the key bar and the palette show; a theme from the config; what the app
remembers comes back in the next one, and a setting in the config wins over it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from app_rig import loaded, make_rig, painted, settle
from test_no_color import colour_free

from tui.config import load_settings
from tui.ui.screens.help import HelpScreen
from tui.ui.widgets.key_bar import KeyBar


def config(tmp_path: Path, text: str):
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_settings({}, env={}, path=path)


def preferences_file() -> Path:
    return Path(os.environ["XDG_STATE_HOME"]) / "roost" / "preferences.json"


def bar_text(app) -> str:
    return str(app.screen.query_one(KeyBar).render())


async def test_a_rebound_key_acts_and_help_and_the_key_bar_show_it(tmp_path):
    settings = config(
        tmp_path,
        '[keymap]\n"app.help" = "f1"\n"virtual_table.cursor_down" = "ctrl+n,down"\n',
    )
    rig = make_rig(settings=settings)
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert " f1 Help " in bar_text(rig.app) and " ? Help " not in bar_text(rig.app)
        first = rig.app.screen.table.cursor_key
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert rig.app.screen.table.cursor_key != first  # ctrl+n moved the cursor down
        await pilot.press("question_mark")  # the old key no longer opens help
        await settle(pilot)
        assert not isinstance(rig.app.screen, HelpScreen)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(rig.app.screen, HelpScreen)
        text = str(rig.app.screen.query_one("#help-keys").render())
        lines = [line for line in text.splitlines() if line.strip().endswith("Help")]
        assert lines and lines[0].split()[0] == "f1", lines
        down = [line for line in text.splitlines() if "Down" in line and "^n" in line]
        assert down, text  # the table's Down, under its new key


async def test_the_config_theme_and_ones_own(tmp_path):
    settings = config(
        tmp_path, 'theme = "dusk"\n[themes.dusk]\nprimary = "#88c0d0"\nbackground = "#101418"\n'
    )
    rig = make_rig(settings=settings)
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert rig.app.theme == "dusk"
        assert rig.app.current_theme.background == "#101418"


async def test_no_color_still_wins_over_a_theme(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    rig = make_rig(settings=config(tmp_path, 'theme = "nord"\n'))
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert rig.app.theme == "nord"
        every = [s.style for row in painted(rig.app).strips for chop in row for s in chop]
        assert every and all(colour_free(style) for style in every)


async def test_theme_interval_sort_and_tab_are_remembered_for_the_next_start(tmp_path):
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        rig.app.theme = "gruvbox"  # as the palette's "Change theme" sets it
        await pilot.press("s", "n")  # sort by name
        await pilot.press("S")  # reversed
        await settle(pilot)
        rig.app.store.set_interval(60)
        rig.app.action_interval(1)  # `+`: two minutes
        await pilot.press("7")
        await settle(pilot)
    kept = json.loads(preferences_file().read_text())["profiles"][""]
    assert kept == {
        "theme": "gruvbox",
        "interval": 120.0,
        "tab": "posts",
        "sorts": {"agents": ["name", True]},
    }
    again = make_rig(screen=None)  # no tab named: the last one on view
    sorted_again = make_rig(screen="agents")
    async with again.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert again.app.current_mode == "posts"
        assert again.app.theme == "gruvbox"
    async with sorted_again.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        table = sorted_again.app.screen.table
        assert (table.sort_column, table.sort_reverse) == ("name", True)
        assert "sorted by name" in str(sorted_again.app.screen.query_one(".table-summary").render())


async def test_a_setting_in_the_config_wins_over_a_remembered_one(tmp_path):
    path = preferences_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"format": "roost-preferences/1", "profiles": {"": {"theme": "gruvbox"}}})
    )
    rig = make_rig(settings=config(tmp_path, 'theme = "nord"\n'))
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert rig.app.theme == "nord"


async def test_a_damaged_preferences_file_is_a_note_not_an_error():
    path = preferences_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{damaged")
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        notes = [n.message for n in rig.app._notifications]
        assert any("set aside" in note for note in notes), notes
    assert json.loads(path.read_text())["format"] == "roost-preferences/1"
