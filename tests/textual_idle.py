"""The pilot's "wait until the app is idle", on the app's state instead of the clock.

Textual's pilot waits after every key and every ``pause()`` with ``textual._wait.wait_for_idle``:
it sleeps in steps of 20 ms until one step used almost no CPU. Most of a test's time went there:
each key cost at least 40 ms of sleeping, and a key whose work took 25 ms cost 60 ms.

:func:`wait_until_idle` waits for the condition itself: no job is running or waiting in the event
loop's executor (``asyncio.to_thread`` and Textual's thread workers run there, and call back into
the app when done), every message queue of the app, its screens and the current screen's widgets is
empty and its pump is parked on it, no batch update or terminal resize is on a timer, and the
screen has no layout, repaint or after-refresh callback pending (flushed here as the pilot's
``pause()`` does). A short window in which the process must use little CPU stays, as in Textual's
wait, for a thread of some other kind still computing, and judges alone once an executor job has
gone on for a while without using the CPU (it waits on a lock, a gate, the network).

:func:`install` puts it in the two places the pilot calls Textual's (``textual.app`` for key
presses, ``textual.pilot`` for ``pause()``). Every private name it reads is listed in
:data:`PRIVATE_NAMES`; ``tests/unit/test_textual_idle.py`` checks they still exist, so an upgrade
of Textual or Python that moves one fails there, by name.
"""

from __future__ import annotations

import asyncio
from time import monotonic, process_time
from typing import Any

WINDOW_S = 0.002
IDLE_CPU_S = WINDOW_S / 4
#: A job of the executor still there after this, using no CPU, waits on something else (a lock,
#: a gate a test holds, the network): from then on the CPU window alone judges, as Textual's does.
JOB_PATIENCE_S = 0.1

#: (module or class, attribute) pairs this module reads that Textual or asyncio does not document.
PRIVATE_NAMES = (
    ("textual.app", "wait_for_idle"),
    ("textual.pilot", "wait_for_idle"),
    ("textual._context", "active_app"),
    ("MessagePump", "_message_queue"),
    ("MessagePump", "_pending_message"),
    ("MessagePump", "_next_callbacks"),
    ("MessagePump", "_running"),
    ("Queue", "values"),
    ("Queue", "ready_event"),
    ("Event", "_waiters"),
    ("App", "_batch_count"),
    ("App", "_resize_event"),
    ("App", "_exit"),
    ("App", "_closing"),
    ("App", "_closed"),
    ("Screen", "_layout_required"),
    ("Screen", "_scroll_required"),
    ("Screen", "_repaint_required"),
    ("Screen", "_recompose_required"),
    ("Screen", "_dirty_widgets"),
    ("Screen", "_callbacks"),
    ("Screen", "_on_timer_update"),
    ("BaseEventLoop", "_default_executor"),
    ("ThreadPoolExecutor", "_threads"),
    ("ThreadPoolExecutor", "_idle_semaphore"),
    ("ThreadPoolExecutor", "_work_queue"),
    ("Semaphore", "_value"),
)


def _threads_at_work() -> bool:
    """Whether the event loop's executor (``asyncio.to_thread``, Textual's thread workers) has a
    job running or waiting: a thread that finishes one calls back into the app."""
    executor = asyncio.get_running_loop()._default_executor
    if executor is None:
        return False
    idle = executor._idle_semaphore._value
    return len(executor._threads) > idle or not executor._work_queue.empty()


def busy(app: Any) -> str | None:
    """What the app still has to do, or None when it has nothing left."""
    if app._exit or app._closing or app._closed:
        return None  # quitting: its timers are stopped, nothing more will happen
    try:
        screen = app.screen
        pumps = [app, *app.screen_stack, *screen.walk_children()]
    except Exception:  # no screen yet, or the app is closing: nothing to wait for here
        return None
    for pump in pumps:
        queue = pump._message_queue
        if queue.values or pump._pending_message is not None or pump._next_callbacks:
            return f"messages for {pump!r}"
        if pump._running and not queue.ready_event._waiters:
            return f"{pump!r} is handling a message"
    if app._batch_count:  # updates held: switching modes (tabs) holds them for a moment
        return "updates held for a batch"
    if app._resize_event is not None:  # a terminal resize, sent to the screens on a short timer
        return "a resize on its way"
    if (
        screen._layout_required
        or screen._scroll_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
        or screen._callbacks
    ):
        screen._on_timer_update()  # what the screen's update timer would do next
        return "a screen update, or callbacks waiting for it"
    return None


async def wait_until_idle(min_sleep: float = 0, max_sleep: float = 1) -> None:
    """Return once the app is idle (see the module's docstring), after ``min_sleep`` at least
    and ``max_sleep`` at most, as Textual's ``wait_for_idle``."""
    from textual._context import active_app

    app = active_app.get(None)
    started = monotonic()
    while True:
        await asyncio.sleep(0)
        cpu = process_time()
        await asyncio.sleep(WINDOW_S)
        quiet_cpu = process_time() - cpu < IDLE_CPU_S
        elapsed = monotonic() - started
        if elapsed >= max_sleep:
            return
        if elapsed < min_sleep or not quiet_cpu:
            continue
        if elapsed < JOB_PATIENCE_S and _threads_at_work():
            continue
        if app is None or busy(app) is None:
            return


def install() -> None:
    import textual.app
    import textual.pilot

    textual.app.wait_for_idle = wait_until_idle
    textual.pilot.wait_for_idle = wait_until_idle


async def settle(pilot: Any) -> None:
    """Wait until the app's workers are done and the app handled what they posted (and what
    that started, round after round), and it has nothing left to do (:func:`busy`): a pause
    gives up after a second, which a busy machine can spend laying out one long page, and a
    snapshot taken then shows a heading centred for the width before a scrollbar came."""
    app = pilot.app
    await pilot.pause()
    for _ in range(20):
        if len(app.workers):
            await app.workers.wait_for_complete()
        elif busy(app) is None:
            return
        await pilot.pause()
