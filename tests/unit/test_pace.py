"""tui/pace.py: background work stands aside while keys are handled, and is never starved."""

from __future__ import annotations

import threading
import time

from tui import pace


def test_work_waits_while_keys_are_held_and_goes_on_after():
    pace.hold(0.15)
    started = time.monotonic()
    pace.yield_to_keys()
    waited = time.monotonic() - started
    assert waited >= 0.1  # it stood aside
    started = time.monotonic()
    pace.yield_to_keys()  # nothing held any more: no wait
    assert time.monotonic() - started < 1


def test_a_burst_of_keys_extends_the_hold_from_another_thread():
    done = threading.Event()

    def worker() -> None:
        pace.yield_to_keys()
        done.set()

    pace.hold(1.0)
    thread = threading.Thread(target=worker)
    thread.start()
    for _ in range(3):  # keys keep coming: the worker keeps waiting
        time.sleep(0.05)
        pace.hold(1.0)
        assert not done.is_set()
    thread.join(10)
    assert done.is_set()


def test_a_hold_never_starves_the_work():
    pace.hold(60)
    started = time.monotonic()
    pace.yield_to_keys(limit_s=0.1)
    assert time.monotonic() - started < 1
    pace.release()  # leave nothing held for the other tests


def test_idle_for_counts_from_the_end_of_the_last_hold():
    pace.release()
    assert pace.idle_for(0.0)
    pace.hold(0.05)
    assert not pace.idle_for(0.0)
    time.sleep(0.08)
    assert pace.idle_for(0.0) and not pace.idle_for(1.0)
    pace.release()


def test_quiet_for_counts_from_the_last_key():
    pace.release()
    assert pace.quiet_for(10.0)  # no key yet
    pace.hold()
    assert not pace.quiet_for(0.05)
    time.sleep(0.07)
    assert pace.quiet_for(0.05) and not pace.quiet_for(1.0)
    assert pace.held()  # the longer hold is still on: quiet_for is for steps of a few ms
    pace.release()
