"""The collector switch: counted holds across nesting and threads, coordinated freezing; the
policy's decisions (what is big, what is frozen) and that only its owners apply them."""

from __future__ import annotations

import ast
import gc
import threading
from pathlib import Path

import pytest

import tui
from tui.ui.speed import gc_policy, startup


@pytest.fixture(autouse=True)
def collector_restored():
    """Each test starts with the collector on and no hold; whatever it did is undone."""
    startup.resume_gc()
    assert gc_policy.holders() == 0
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        startup.resume_gc()
        assert gc_policy.holders() == 0, "a test left a hold behind"
        if was_enabled:
            gc.enable()
        else:
            gc.disable()


def test_nested_holds_turn_it_back_on_only_when_the_last_leaves():
    with gc_policy.paused():
        assert not gc.isenabled()
        with gc_policy.paused():
            assert gc_policy.holders() == 2
        assert not gc.isenabled()  # the outer hold is still there
    assert gc.isenabled()


def test_a_hold_is_released_when_the_block_raises():
    with pytest.raises(ValueError), gc_policy.paused():
        raise ValueError("boom")
    assert gc.isenabled()
    assert gc_policy.holders() == 0


def test_a_collector_turned_off_by_someone_else_stays_off():
    gc.disable()
    with gc_policy.paused():
        pass
    assert not gc.isenabled()


def test_a_handle_released_twice_counts_once():
    outer = gc_policy.pause()
    inner = gc_policy.pause()
    inner.release()
    inner.release()
    assert not gc.isenabled()  # the second release did not take the outer hold
    outer.release()
    assert gc.isenabled()


def test_two_threads_holding_at_once():
    first_in = threading.Event()
    second_in = threading.Event()
    first_may_leave = threading.Event()
    seen: dict[str, bool] = {}

    def first() -> None:
        with gc_policy.paused():
            first_in.set()
            first_may_leave.wait(10)
        seen["after first left"] = gc.isenabled()
        second_in.wait(10)

    def second() -> None:
        first_in.wait(10)
        with gc_policy.paused():
            second_in.set()
            first_may_leave.set()
            one.join(10)  # the first thread has left its block by now
            seen["second still inside"] = gc.isenabled()

    one = threading.Thread(target=first)
    two = threading.Thread(target=second)
    one.start()
    two.start()
    two.join(10)
    one.join(10)
    assert seen == {"after first left": False, "second still inside": False}
    assert gc.isenabled()


def test_the_app_does_not_turn_it_on_under_a_builds_hold():
    startup.pause_gc()  # roost's start-up
    entered = threading.Event()
    leave = threading.Event()
    during: list[bool] = []

    def validate_big_document() -> None:
        with gc_policy.building(2 << 20):
            entered.set()
            leave.wait(10)
            during.append(gc.isenabled())

    worker = threading.Thread(target=validate_big_document)
    worker.start()
    entered.wait(10)
    startup.resume_gc()  # what the app does after its first paint
    assert not gc.isenabled()
    leave.set()
    worker.join(10)
    assert during == [False]
    assert gc.isenabled()
    gc.unfreeze()


def test_a_small_document_takes_no_hold():
    with gc_policy.building(100):
        assert gc.isenabled()
        assert gc_policy.holders() == 0


def test_a_big_build_is_paused_for_and_frozen_after_unless_it_fails(monkeypatch):
    frozen: list[int] = []
    monkeypatch.setattr(gc_policy, "freeze", lambda: frozen.append(1))
    for size in (gc_policy.BIG_BUILD_BYTES + 1, None):  # None: the disk cache's whole load
        with gc_policy.building(size):
            assert not gc.isenabled()
    assert frozen == [1, 1] and gc.isenabled()
    with pytest.raises(ValueError), gc_policy.building(None):
        raise ValueError("invalid document")
    assert frozen == [1, 1]  # nothing half built is frozen


def test_only_a_big_warmed_table_is_frozen(monkeypatch):
    frozen: list[int] = []
    monkeypatch.setattr(gc_policy, "freeze", lambda: frozen.append(1))
    gc_policy.after_warm_up(gc_policy.BIG_TABLE_ROWS - 1)
    assert frozen == []
    gc_policy.after_warm_up(gc_policy.BIG_TABLE_ROWS)
    assert frozen == [1] and gc.isenabled()


def test_only_the_speed_package_switches_the_collector():
    """The data layer, the app and the screens never touch the collector: the speed package
    does (the policy, the start-up, the machinery; the dashboard's store is handed the policy
    through connect())."""
    root = Path(tui.__file__).resolve().parent
    touching = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name.startswith(("sandbox/", "ui/speed/")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                imported = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            if any(i == "gc" or i.endswith("gc_policy") for i in imported):
                touching.append(name)
    assert touching == []
