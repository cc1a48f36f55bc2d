"""Files read back from disk are hostile: a damaged outbox, drafts folder or demo world.

The outbox folder is damaged by hand (``tests/damaged_outbox.py``): brackets nested 1,500 deep,
a FIFO, a link to ``/dev/zero``, a truncated file, bytes that are not UTF-8, an empty file, a
folder, a file too big, members of the wrong type, another entry's id. Every one is listed as
``damaged`` with its reason, can be found, shown and dropped, and none stops the others from
being listed, followed or sent. Reads that could hang (a FIFO) run in a thread with a limit.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.damaged_outbox import GOOD_ID, plant_damage
from tui.actions.drafts import Draft, FileDrafts
from tui.actions.outbox import DamagedEntry, Outbox
from tui.actions.outbox_report import retry_refusal, status_summary
from tui.actions.tracking import follow_queued, settle_applied
from tui.sandbox.app import create_app
from tui.sandbox.world import DemoWorld
from tui.strict_json import Unreadable, loads, nesting_depth


def within(seconds: float, call: Callable[[], Any]) -> Any:
    """``call()``, or a failure when it has not returned after ``seconds`` (it hung)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the read hung"
    if "error" in box:
        raise box["error"]
    return box["value"]


@pytest.fixture
def damaged(tmp_path: Path) -> tuple[Outbox, dict[str, str]]:
    folder = tmp_path / "outbox"
    return Outbox(folder), plant_damage(folder)


def test_every_damaged_file_is_listed_with_its_reason_beside_the_good_one(damaged):
    outbox, said = damaged
    listed = within(30, outbox.entries)
    by_id = {e.id: e for e in listed}
    assert set(by_id) == {GOOD_ID, *said}
    assert by_id[GOOD_ID].state == "draft" and by_id[GOOD_ID].action == "heartbeat"
    for entry_id, reason in said.items():
        entry = by_id[entry_id]
        assert entry.state == "damaged", entry_id
        assert reason in entry.reason, (entry_id, entry.reason)
        assert entry.created_at.startswith("2026-11-23T22:00:")
        assert not entry.can_send
        assert "drop it" in retry_refusal(entry)
    assert outbox.counts() == {"draft": 1, "damaged": len(said)}
    assert status_summary(outbox.counts()) == f"outbox: {len(said)} damaged"


def test_a_damaged_entry_is_found_and_loading_it_says_why(damaged):
    outbox, said = damaged
    for entry_id, reason in said.items():
        assert within(30, lambda i=entry_id: outbox.find(i[:-2])).state == "damaged"
        with pytest.raises(DamagedEntry, match=reason.split(" (")[0]):
            within(30, lambda i=entry_id: outbox.load(i))


def test_every_damaged_entry_can_be_dropped_and_nothing_else_goes(damaged, tmp_path):
    outbox, said = damaged
    target = tmp_path / "kept.json"
    target.write_text("{}")
    link = outbox.folder / "20261123T230000Z-000000ff.json"
    link.symlink_to(target)
    for entry_id in [*said, link.name[:-5]]:
        within(30, lambda i=entry_id: outbox.drop(i))
    assert [e.id for e in within(30, outbox.entries)] == [GOOD_ID]
    assert target.read_text() == "{}"  # a link goes, never what it points to


def test_a_folder_holding_files_is_never_deleted(tmp_path):
    outbox = Outbox(tmp_path / "outbox")
    folder = outbox.folder / "20261123T220000Z-0000dd00.json"
    folder.mkdir(parents=True)
    (folder / "mine.txt").write_text("kept")
    with pytest.raises(DamagedEntry, match="a folder with files in it"):
        outbox.drop("20261123T220000Z-0000dd00")
    assert (folder / "mine.txt").read_text() == "kept"


def test_a_damaged_entry_is_never_written_back(damaged):
    outbox, said = damaged
    entry = outbox.read(next(iter(said)))
    with pytest.raises(ValueError, match="never written back"):
        outbox.save(entry)


async def test_following_and_settling_step_over_damage(damaged):
    """The background work reads every entry: a damaged one is skipped, never a crash. The
    good entry is queued first so the tracker has one to look at."""
    outbox, said = damaged
    good = outbox.load(GOOD_ID)
    good.state, good.number = "queued", 1
    good.tracking = {"next_at": 4e9}  # not due: no request is made
    outbox.save(good)
    for entry_id in said:  # a damaged file that says it is queued is still damaged
        path = outbox.folder / f"{entry_id}.json"
        if path.is_file() and not path.is_symlink() and path.stat().st_size < 4096:
            text = path.read_bytes().replace(b'"draft"', b'"queued"')
            path.write_bytes(text)
    assert await follow_queued(outbox, client=None) == []  # type: ignore[arg-type]
    assert settle_applied(outbox, snapshot=None) == []
    assert await outbox.resume_interrupted(client=None) == []  # type: ignore[arg-type]


def test_a_planted_lock_file_is_a_clear_refusal(tmp_path):
    outbox = Outbox(tmp_path / "outbox")
    entry = outbox.draft("heartbeat", {})
    (outbox.folder / f"{entry.id}.lock").mkdir()
    with pytest.raises(DamagedEntry, match="lock file cannot be opened"):
        outbox.drop(entry.id)


# -- the strict reader -------------------------------------------------------------------------


def test_depth_is_counted_without_recursion_and_strings_do_not_count():
    assert nesting_depth('{"a": "[[[[{{", "b": [[1], {}]}') == 3
    assert nesting_depth('"\\"[["') == 0
    assert nesting_depth("[" * 100_000 + "]" * 100_000, stop=64) == 65
    with pytest.raises(Unreadable, match="nested more than 64 levels deep"):
        loads("[" * 100_000 + "]" * 100_000)
    assert loads("[" * 64 + "]" * 64) is not None
    with pytest.raises(ValueError, match="duplicate member 'a'"):
        loads('{"a": 1, "a": 2}')


# -- drafts and the demo world -----------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda p: p.write_text("[" * 1500 + "]" * 1500),
        os.mkfifo,
        lambda p: p.symlink_to("/dev/zero"),
        lambda p: p.write_text("[1, 2]"),
        lambda p: p.write_text('{"action": "heartbeat", "values": "x"}'),
        lambda p: p.mkdir(),
    ],
    ids=["brackets", "fifo", "zero", "list", "values", "folder"],
)
def test_a_damaged_draft_reads_as_none_and_is_left_in_place(tmp_path, make):
    drafts = FileDrafts(tmp_path / "drafts")
    drafts.folder.mkdir()
    make(drafts.folder / "heartbeat.json")
    assert within(30, lambda: drafts.kept("heartbeat")) is None
    assert os.path.lexists(drafts.folder / "heartbeat.json")
    drafts.forget("heartbeat")  # never a crash; a folder is left alone
    draft = Draft("heartbeat", {"status_message": "hi"})
    if (drafts.folder / "heartbeat.json").is_dir():
        with pytest.raises(OSError):  # the form says it could not keep the draft
            drafts.keep(draft)
        return
    drafts.keep(draft)
    assert drafts.kept("heartbeat").values == {"status_message": "hi"}


@pytest.mark.parametrize(
    "make",
    [
        lambda p: p.write_text("[" * 1500 + "]" * 1500),
        os.mkfifo,
        lambda p: p.symlink_to("/dev/zero"),
        lambda p: p.write_text('["not", "a", "world"]'),
    ],
    ids=["brackets", "fifo", "zero", "list"],
)
def test_a_damaged_demo_world_is_set_aside_for_a_new_one(tmp_path, make):
    world = DemoWorld(tmp_path / "demo")
    world.folder.mkdir()
    make(world.path)
    app = within(120, lambda: world.open_app(agents=20))
    assert world.id is not None and world.path.is_file() and not world.path.is_symlink()
    assert json.loads(world.path.read_bytes())["id"] == world.id
    assert [p.name for p in world.folder.glob("world-*.unreadable.json")]
    assert app.state.sandbox.network is not None
    assert create_app  # the same app factory the world uses
