"""``C`` on a table: the column chooser hides and shows columns, at least one stays shown, the
choice is remembered per table for the next start, and ``e`` exports the columns shown
(tui/ui/screens/column_chooser.py)."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from app_rig import loaded, make_rig, settle
from test_export_dialog import toasts, wait_for

from tui.ui.screens.column_chooser import LAST_SHOWN, ColumnChooser


def preferences_file() -> Path:
    return Path(os.environ["XDG_STATE_HOME"]) / "roost" / "preferences.json"


def keys(table) -> list[str]:
    return [column.key for column in table.shown_columns]


async def test_a_hidden_column_stays_hidden_and_export_writes_the_shown_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ROOST_SSH_ROLE", raising=False)
    rig = make_rig(screen="agents")
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        table = rig.app.screen.table
        await pilot.press("C")
        await settle(pilot)
        assert isinstance(rig.app.screen, ColumnChooser)
        await pilot.press("j", "space", "escape")  # name hidden, then cancelled
        await settle(pilot)
        assert "name" in keys(table)
        await pilot.press("C", "j", "space", "j", "j", "j", "space", "enter")  # name, karma
        await settle(pilot)
        assert keys(table) == ["id", "framework", "status", "posts", "comments", "heartbeat"]
        header = table.render_line(0).text
        assert "karma" not in header and "posts" in header, header
        expected = [
            [cells[i] for i in (0, 2, 3, 5, 6, 7)]
            for cells in (table.get_row(k).cells for k in table.visible_keys())
        ]
        await pilot.press("e")
        await pilot.pause()
        rig.app.screen.query_one("#export-path").value = "out.csv"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("written to" in t for t in toasts(rig.app)))
        with (tmp_path / "out.csv").open(encoding="utf-8", newline="") as f:
            back = list(csv.reader(f))
        assert back[0] == keys(table)
        assert back[1:] == [list(cells) for cells in expected]
    kept = json.loads(preferences_file().read_text())["profiles"][""]
    assert kept["hidden"] == {"agents": ["name", "karma"]}

    again = make_rig(screen="agents")  # a new app, the same preferences
    async with again.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        table = again.app.screen.table
        assert keys(table) == ["id", "framework", "status", "posts", "comments", "heartbeat"]
        await pilot.press("C", "j", "space", "enter")  # name shown again
        await settle(pilot)
        assert "name" in keys(table) and "karma" not in keys(table)
    kept = json.loads(preferences_file().read_text())["profiles"][""]
    assert kept["hidden"] == {"agents": ["karma"]}


async def test_the_last_shown_column_cannot_be_hidden():
    rig = make_rig(screen="channels")
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        table = rig.app.screen.table
        count = len(table.columns)
        await pilot.press("C")
        for _ in range(count):
            await pilot.press("space", "j")
        await settle(pilot)
        assert LAST_SHOWN in toasts(rig.app)
        await pilot.press("enter")
        await settle(pilot)
        assert keys(table) == [table.columns[-1].key]  # all the others hidden, that one kept
        cell = str(table.get_row(table.visible_keys()[0]).cells[-1])
        assert table.render_line(1).text.strip() == cell  # drawn whole, alone


async def test_numbers_are_never_cut_with_columns_hidden():
    rig = make_rig(screen="agents")
    async with rig.app.run_test(size=(40, 24)) as pilot:
        await loaded(pilot)
        table = rig.app.screen.table
        table.hide_columns(["name", "framework"])
        await settle(pilot)
        line = table.render_line(1).text
        row = table.get_row(table.visible_keys()[0])
        for n in (4, 5, 6):  # karma, posts, cmts
            assert str(row.cells[n]) in line, (row.cells, line)


async def test_a_damaged_hidden_entry_is_a_note_not_an_error():
    path = preferences_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"format": "roost-preferences/1", "profiles": {"": {"hidden": {"agents": 3}}}}
    path.write_text(json.dumps(document))
    rig = make_rig(screen="agents")
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert len(rig.app.screen.table.shown_columns) == len(rig.app.screen.table.columns)
        assert any("set aside" in note for note in toasts(rig.app))
