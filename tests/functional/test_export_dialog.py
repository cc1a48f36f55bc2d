"""``e`` on a table: the dialog, the file it writes (rows as shown), the question before a file
is replaced, the toast; a guest over SSH is told no (tui/ui/screens/export_dialog.py)."""

from __future__ import annotations

import csv
import json

from app_rig import loaded, make_rig

from tui.ssh.mode import GUEST_CANNOT_EXPORT, ExportPlace
from tui.ui.screens.agents import AgentsScreen
from tui.ui.screens.export_dialog import ExportDialog, ReplaceConfirm, _target


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def wait_for(pilot, predicate, tries: int = 100) -> None:
    for _ in range(tries):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("never happened")


async def test_e_writes_the_rows_as_shown_and_asks_before_replacing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ROOST_SSH_ROLE", raising=False)
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        screen.table.set_filter("coder")
        screen.table.sort_by("karma", reverse=True)
        expected = [screen.table.get_row(k).cells for k in screen.table.visible_keys()]
        assert 0 < len(expected) < screen.table.total_count
        await pilot.press("e")
        await pilot.pause()
        dialog = rig.app.screen
        assert isinstance(dialog, ExportDialog)
        field = dialog.query_one("#export-path")
        assert field.value.startswith("agents-") and field.value.endswith(".csv")
        field.value = "out.csv"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("written to" in t for t in toasts(rig.app)))
        assert f"{len(expected):,} rows written to {tmp_path / 'out.csv'}" in toasts(rig.app)
        with (tmp_path / "out.csv").open(encoding="utf-8", newline="") as f:
            back = list(csv.reader(f))
        assert back[0] == [c.key for c in screen.table.columns]
        assert [tuple(row) for row in back[1:]] == [tuple(cells) for cells in expected]

        # again, as JSON Lines (ctrl+t follows the name's extension), onto a file that is there
        (tmp_path / "out.jsonl").write_text("mine", encoding="utf-8")
        await pilot.press("e")
        await pilot.pause()
        rig.app.screen.query_one("#export-path").value = "out.csv"
        await pilot.press("ctrl+t")
        assert rig.app.screen.query_one("#export-path").value == "out.jsonl"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(rig.app.screen, ReplaceConfirm)
        await pilot.press("n")  # kept
        await pilot.pause()
        assert (tmp_path / "out.jsonl").read_text(encoding="utf-8") == "mine"


async def test_jsonl_replaces_a_file_once_asked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ROOST_SSH_ROLE", raising=False)
    (tmp_path / "agents.jsonl").write_text("mine", encoding="utf-8")
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        count = rig.app.screen.table.row_count
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+t")
        rig.app.screen.query_one("#export-path").value = "agents.jsonl"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(rig.app.screen, ReplaceConfirm)
        await pilot.press("y")
        await wait_for(pilot, lambda: any("written to" in t for t in toasts(rig.app)))
    lines = (tmp_path / "agents.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == count
    assert isinstance(json.loads(lines[0])["karma"], int)


async def test_a_guest_over_ssh_is_told_export_is_not_available(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ROOST_SSH_ROLE", "guest")
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("e")
        await pilot.pause()
        assert not isinstance(rig.app.screen, ExportDialog)
        assert GUEST_CANNOT_EXPORT in toasts(rig.app)
    assert list(tmp_path.iterdir()) == []


def test_a_keyed_users_typed_path_keeps_only_its_file_name(tmp_path):
    place = ExportPlace(tmp_path, on_server=True)
    assert _target(place, "../../etc/passwd") == tmp_path / "passwd"
    assert _target(place, "/tmp/x.csv") == tmp_path / "x.csv"
    assert _target(ExportPlace(tmp_path), "sub/x.csv") == tmp_path / "sub" / "x.csv"
