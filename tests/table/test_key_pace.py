"""tui/ui/table/key_pace.py: background work stands aside while keys are handled, and is never starved;
each app has a pace of its own."""

from __future__ import annotations

import threading
import time

from tui.ui.table.key_pace import KeyPace


def test_work_waits_while_keys_are_held_and_goes_on_after():
    key_pace = KeyPace()
    key_pace.hold(0.15)
    started = time.monotonic()
    key_pace.yield_to_keys()
    waited = time.monotonic() - started
    assert waited >= 0.1  # it stood aside
    started = time.monotonic()
    key_pace.yield_to_keys()  # nothing held any more: no wait
    assert time.monotonic() - started < 1


def test_a_burst_of_keys_extends_the_hold_from_another_thread():
    key_pace = KeyPace()
    done = threading.Event()

    def worker() -> None:
        key_pace.yield_to_keys()
        done.set()

    key_pace.hold(1.0)
    thread = threading.Thread(target=worker)
    thread.start()
    for _ in range(3):  # keys keep coming: the worker keeps waiting
        time.sleep(0.05)
        key_pace.hold(1.0)
        assert not done.is_set()
    thread.join(10)
    assert done.is_set()


def test_a_hold_never_starves_the_work():
    key_pace = KeyPace()
    key_pace.hold(60)
    started = time.monotonic()
    key_pace.yield_to_keys(limit_s=0.1)
    assert time.monotonic() - started < 1


def test_idle_for_counts_from_the_end_of_the_last_hold():
    key_pace = KeyPace()
    key_pace.release()
    assert key_pace.idle_for(0.0)
    key_pace.hold(0.05)
    assert not key_pace.idle_for(0.0)
    time.sleep(0.08)
    assert key_pace.idle_for(0.0) and not key_pace.idle_for(1.0)
    key_pace.release()


def test_quiet_for_counts_from_the_last_key():
    key_pace = KeyPace()
    key_pace.release()
    assert key_pace.quiet_for(10.0)  # no key yet
    key_pace.hold()
    assert not key_pace.quiet_for(0.05)
    time.sleep(0.07)
    assert key_pace.quiet_for(0.05) and not key_pace.quiet_for(1.0)
    assert key_pace.held()  # the longer hold is still on: quiet_for is for steps of a few ms
    key_pace.release()


def test_two_paces_do_not_share_their_keys():
    typing, idle = KeyPace(), KeyPace()
    typing.hold(60)
    assert typing.held() and not idle.held()
    started = time.monotonic()
    idle.yield_to_keys()
    assert time.monotonic() - started < 1
