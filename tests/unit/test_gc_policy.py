"""The collector switch: counted holds across nesting and threads, coordinated freezing."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from tui import gc_policy, startup
from tui.network import models


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


def test_the_app_does_not_turn_it_on_under_a_data_layer_hold():
    startup.pause_gc()  # roost's start-up
    entered = threading.Event()
    leave = threading.Event()
    during: list[bool] = []

    def validate_big_document() -> None:
        with models.big_document(2 << 20):
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
    with models.big_document(100):
        assert gc.isenabled()
        assert gc_policy.holders() == 0


def test_frozen_objects_are_given_back_when_the_last_keeper_leaves():
    gc.unfreeze()
    first = gc_policy.keep_frozen()
    second = gc_policy.keep_frozen()
    kept = [[] for _ in range(100)]
    gc_policy.freeze()
    assert gc.get_freeze_count() >= len(kept)
    first.release()
    assert gc.get_freeze_count() >= len(kept)  # the second keeper still relies on them
    second.release()
    assert gc.get_freeze_count() == 0


def test_full_collections_wait_for_their_holder_and_come_back_after():
    before = gc.get_threshold()
    first = gc_policy.defer_full()
    second = gc_policy.defer_full()  # two apps in one process
    young, middle, oldest = gc.get_threshold()
    assert (young, middle) == before[:2] and oldest > 10**6
    gc.collect()
    assert not gc_policy.full_due()
    for _ in range(gc_policy.FULL_AFTER):
        gc.collect(1)  # young collections go on as usual; none starts a full one
    assert gc_policy.full_due() and gc.get_count()[2] >= gc_policy.FULL_AFTER
    with gc_policy.paused():
        assert gc_policy.collect_full() is False  # never under someone's pause
    assert gc_policy.full_due()
    assert gc_policy.collect_full() is True
    assert not gc_policy.full_due()
    first.release()
    assert gc.get_threshold()[2] == oldest  # the other holder still defers
    second.release()
    second.release()  # a second release counts once
    assert gc.get_threshold() == before


def test_a_cycle_is_still_collected_by_the_deferred_full_collection():
    class Node:
        pass

    hold = gc_policy.defer_full()
    try:
        node = Node()
        node.me = node  # a cycle: only the cyclic collector frees it
        ref = weakref.ref(node)
        del node
        gc.collect(1)
        gc.collect(1)
        assert gc_policy.collect_full()
        assert ref() is None
    finally:
        hold.release()


def test_a_frozen_cycle_is_freed_by_the_collection_that_includes_the_frozen():
    class Node:
        pass

    keeper = gc_policy.keep_frozen()
    try:
        node = Node()
        node.me = node
        ref = weakref.ref(node)
        alive = [Node() for _ in range(3)]
        del node
        gc_policy.freeze()  # the cycle was garbage already: frozen with the rest
        assert gc_policy.collect_full()
        assert ref() is not None  # a full pass does not see what is frozen
        with gc_policy.paused():
            assert gc_policy.collect_everything() is False  # never under a pause
        assert ref() is not None
        assert gc_policy.collect_everything()
        assert ref() is None
        assert gc.get_freeze_count() > 0  # what is still alive is frozen again
        assert all(isinstance(a, Node) for a in alive)
    finally:
        keeper.release()
