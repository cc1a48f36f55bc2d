"""The export core: what a table writes as CSV and JSON Lines (tui/export.py)."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime

import pytest

from tui.export import FileExists, default_name, export_file, neutralise, write_csv, write_jsonl
from tui.tables.rows import Column
from tui.tables.spec import shown


class Styled:
    """Stands for a ``rich.text.Text`` cell: the core reads only ``plain``."""

    def __init__(self, text: str) -> None:
        self.plain = text


def test_a_50000_row_round_trip_keeps_every_cell(tmp_path):
    rows = [
        (f"agent-{i}", f"Name {i} ü 🦜", f"{i * 7:,}", "-" if i % 2 else "x") for i in range(50_000)
    ]
    path = tmp_path / "agents.csv"
    assert export_file(path, "csv", ("id", "name", "karma", "flag"), (0, 0, 1, 0), rows) == 50_000
    with path.open(encoding="utf-8", newline="") as f:
        back = list(csv.reader(f))
    assert back[0] == ["id", "name", "karma", "flag"]
    # "-" alone starts like a formula: neutralised; every other cell comes back as it went
    assert back[1:] == [[a, b, c, "'-" if d == "-" else d] for a, b, c, d in rows]
    jsonl = tmp_path / "agents.jsonl"
    assert (
        export_file(jsonl, "jsonl", ("id", "name", "karma", "flag"), (0, 0, 1, 0), rows) == 50_000
    )
    lines = jsonl.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 50_000
    assert json.loads(lines[3]) == {
        "id": "agent-3",
        "name": "Name 3 ü 🦜",
        "karma": 21,
        "flag": "-",
    }
    assert json.loads(lines[49_999])["karma"] == 349_993


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://evil","x")', '\'=HYPERLINK("http://evil","x")'),
        ("+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("-3", "-3"),
        ("1,234", "1,234"),
        ("plain", "plain"),
        ("", ""),
    ],
)
def test_formulas_are_neutralised_and_numbers_are_not(cell, written):
    assert neutralise(cell) == written
    out = io.StringIO(newline="")
    write_csv(out, ["c"], [(cell,)])
    assert list(csv.reader(io.StringIO(out.getvalue())))[1] == [written]


def test_hostile_text_is_cleaned_as_on_screen_and_starts_no_formula():
    hostile = ("\tcmd", "\r=1+1", "a\x1b[2Jb", "line\nbreak", "\u202eevil", Styled("=styled"))
    out = io.StringIO(newline="")
    write_csv(out, ["a", "b", "c", "d", "e", "f"], [hostile])
    row = list(csv.reader(io.StringIO(out.getvalue())))[1]
    assert "\x1b" not in out.getvalue() and "\u202e" not in out.getvalue()
    assert row[2] == "a\u241b[2Jb" and "\n" not in row[3]
    assert row[5] == "'=styled"
    assert not any(cell[:1] in ("=", "+", "-", "@", "\t", "\r") for cell in row)
    lines = io.StringIO()
    write_jsonl(lines, ["a", "b"], [False, True], [("\x07x", "=1"), ("y", "")])
    first, second = (json.loads(line) for line in lines.getvalue().splitlines())
    assert first == {"a": "\u2407x", "b": "=1"}  # JSON is no spreadsheet: nothing to neutralise
    assert second == {"a": "y", "b": None}


def test_an_existing_file_is_never_replaced_unasked(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("mine", encoding="utf-8")
    with pytest.raises(FileExists):
        export_file(path, "csv", ["a"], [False], [("1",)])
    assert path.read_text(encoding="utf-8") == "mine"
    assert export_file(path, "csv", ["a"], [False], [("1",)], overwrite=True) == 1
    assert path.read_bytes() == b"a\r\n1\r\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]  # no temporary file left


def test_default_name_says_the_tab_and_the_minute():
    assert (
        default_name("agents", datetime(2026, 12, 4, 22, 15), "csv") == "agents-20261204-2215.csv"
    )
    assert default_name("../x y", datetime(2026, 1, 2, 3, 4), "jsonl") == "x-y-20260102-0304.jsonl"


def test_shown_filters_and_sorts_as_the_table_does():
    from tui.tables.rows import Row

    columns = (Column("id", "id", 4), Column("n", "n", 3, align="right"))
    rows = [Row(k, (k, str(n)), (k, n)) for k, n in (("b", 2), ("a", 3), ("c", None))]
    assert [r.key for r in shown(rows, columns, sort="n", reverse=True)] == ["a", "b", "c"]
    assert [r.key for r in shown(rows, columns, sort="id")] == ["a", "b", "c"]
    assert [r.key for r in shown(rows, columns, query="B")] == ["b"]


def test_over_ssh_a_guest_cannot_export_and_a_keyed_user_writes_in_their_own_folder(tmp_path):
    from tui.ssh.mode import GUEST_CANNOT_EXPORT, GuestCannotExport, export_place

    for role in ("guest", "anything-else"):
        with pytest.raises(GuestCannotExport) as refused:
            export_place(role, {"HOME": str(tmp_path)})
        assert refused.value.message == GUEST_CANNOT_EXPORT
    home = tmp_path / "users" / "SHA256-abc"
    home.mkdir(parents=True, mode=0o700)
    place = export_place("user", {"HOME": str(home)})
    assert place.on_server and place.folder == home / "exports"
    assert (place.folder.stat().st_mode & 0o777) == 0o700
    (home / "elsewhere").mkdir()
    (home / "exports").rmdir()
    (home / "exports").symlink_to(home / "elsewhere")  # a planted link is refused
    with pytest.raises(Exception, match="symbolic link"):
        export_place("user", {"HOME": str(home)})
    local = export_place(None)
    assert not local.on_server and local.folder == type(tmp_path).cwd()
