"""What this person has read (tui/pulse/read_state.py): kept per service, atomic, bounded, a
toast once ever; a damaged or hostile file is ignored and replaced with a note, never an error."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from tui.config import Settings
from tui.pulse.read_state import FORMAT, ReadState, service_file_name
from tui.service import Service


@dataclass(frozen=True)
class Item:
    key: str
    unread: bool = True


def keys(n: int, prefix: str = "k") -> list[str]:
    return [f"{prefix}{i:05d}" for i in range(n)]


def test_marks_survive_a_restart_and_the_file_is_what_it_says(tmp_path):
    path = tmp_path / "read" / "svc.json"
    read = ReadState(path)
    assert read.note is None and not path.exists()  # nothing written until something is read
    read.mark_read(["a1", "b2"])
    assert json.loads(path.read_text()) == {"format": FORMAT, "read": ["a1", "b2"], "told": []}
    again = ReadState(path)
    assert again.is_read("a1") and again.is_read("b2") and not again.is_read("c3")
    assert [p.name for p in path.parent.iterdir()] == ["svc.json"]  # no temporary left


def test_a_toast_once_ever_even_across_restarts(tmp_path):
    path = tmp_path / "svc.json"
    items = [Item("new1"), Item("new2"), Item("old", unread=False)]
    first = ReadState(path)
    assert first.new_since_told(items) == items[:2]
    assert first.new_since_told(items) == []
    assert ReadState(path).new_since_told(items) == []  # a restart does not announce again
    later = [Item("new3"), *items]
    assert ReadState(path).new_since_told(later) == [Item("new3")]
    marked = ReadState(path)
    marked.mark_read(["new4"])
    assert marked.new_since_told([Item("new4")]) == []  # read before it was announced


def test_each_list_keeps_the_most_recent_keys(tmp_path):
    path = tmp_path / "svc.json"
    read = ReadState(path, limit=100)
    read.mark_read(keys(150))
    read.mark_read(["k00000"])  # marked again: now the most recent
    kept = ReadState(path, limit=100)
    assert kept.is_read("k00000") and kept.is_read("k00149")
    assert not kept.is_read("k00001") and not kept.is_read("k00050")
    assert len(json.loads(path.read_text())["read"]) == 100


def test_two_processes_writing_lose_nothing(tmp_path):
    path = tmp_path / "svc.json"
    dashboard, command = ReadState(path), ReadState(path)
    dashboard.mark_read(["from-dashboard"])
    command.mark_read(["from-command"])
    dashboard.new_since_told([Item("toast")])
    final = ReadState(path)
    assert final.is_read("from-dashboard") and final.is_read("from-command")
    assert final.new_since_told([Item("toast")]) == []


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{not json",
        b"\xff\xfe",
        b"[]",
        b'{"format": "roost-read/9", "read": [], "told": []}',
        b'{"format": "roost-read/1", "read": "a1", "told": []}',
        b'{"format": "roost-read/1", "read": ["a1", 5], "told": []}',
        b'{"format": "roost-read/1", "read": ["../../etc"], "told": []}',
        b'{"format": "roost-read/1", "read": ["\\u001b[2J"], "told": []}',
        b'{"format": "roost-read/1", "read": [], "told": [], "extra": 1}',
        b'{"format": "roost-read/1", "format": "roost-read/1", "read": []}',
        b"[" * 100_000,
        b'{"format": "roost-read/1", "read": ["' + b"a" * 3_000_000 + b'"]}',
    ],
)
def test_a_damaged_or_hostile_file_is_replaced_with_a_note(tmp_path, content):
    path = tmp_path / "svc.json"
    path.write_bytes(content)
    read = ReadState(path)
    assert read.note and str(path) in read.note and "started afresh" in read.note
    assert "\x1b" not in read.note and "\n" not in read.note
    assert json.loads(path.read_text()) == {"format": FORMAT, "read": [], "told": []}
    read.mark_read(["a1"])
    assert ReadState(path).is_read("a1") and ReadState(path).note is None


def test_a_link_is_not_followed_and_is_replaced_by_a_file(tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({"format": FORMAT, "read": ["secret"], "told": []}))
    path = tmp_path / "svc.json"
    path.symlink_to(target)
    read = ReadState(path)
    assert read.note and "link" in read.note and not read.is_read("secret")
    assert not path.is_symlink() and path.is_file()
    assert json.loads(target.read_text())["read"] == ["secret"]  # the target is untouched


def test_a_fifo_is_never_waited_on(tmp_path):
    path = tmp_path / "svc.json"
    os.mkfifo(path)
    read = ReadState(path)  # returns at once: a FIFO is refused, not opened for reading
    assert read.note and "FIFO" in read.note
    assert path.is_file()


def test_a_disk_that_refuses_keeps_the_marks_in_memory(tmp_path):
    path = tmp_path / "svc.json"
    path.mkdir()  # a folder where the file should be: it can be neither read nor replaced
    read = ReadState(path)
    assert read.note and "until roost ends" in read.note
    read.note = None
    read.mark_read(["a1"])
    assert read.is_read("a1") and read.note and "until roost ends" in read.note


def test_keys_that_are_not_keys_are_ignored(tmp_path):
    read = ReadState(tmp_path / "svc.json")
    read.mark_read(["ok-key_1", "", "../x", "a" * 65, "sp ace", 5])  # type: ignore[list-item]
    assert json.loads((tmp_path / "svc.json").read_text())["read"] == ["ok-key_1"]


def test_one_file_per_service_and_per_demo_world(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    name = service_file_name("https://raw.example.org/o/r/main")
    assert name.startswith("raw.example.org-") and name.endswith(".json")
    assert service_file_name("https://raw.example.org/o/other/main") != name
    secret = service_file_name("https://alice:pw@raw.example.org/o/r/main")
    assert "alice" not in secret and "pw" not in secret
    assert service_file_name("http://demo.roost.invalid", "../../w\x00").endswith("-.._.._w_.json")
    real = Service(Settings(read_url="https://raw.example.org/o/r/main"), store=None)  # type: ignore[arg-type]
    read = ReadState.for_service(real)
    assert read.path == tmp_path / "data" / "roost" / "read" / name
    demo = Service(Settings(), store=None, run_id="world-1")  # type: ignore[arg-type]
    other_world = Service(Settings(), store=None, run_id="world-2")  # type: ignore[arg-type]
    assert ReadState.for_service(demo).path != ReadState.for_service(other_world).path
    assert Path(ReadState.for_service(demo, root=tmp_path).path).parent == tmp_path
