"""The tests' idle wait (tests/textual_idle.py): what it reads of Textual exists, and a key press
returns only once the app handled everything the key set off and the screen shows it."""

from __future__ import annotations

import asyncio
import importlib
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import textual.app
import textual.pilot
from app_rig import painted
from textual import _queue
from textual.app import App, ComposeResult
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.widgets import Static
from textual_idle import PRIVATE_NAMES, _threads_at_work, wait_until_idle

OWNERS = {
    "MessagePump": MessagePump,
    "Queue": _queue.Queue(),
    "Event": asyncio.Event(),
    "App": App(),
    "Screen": Screen,
    "BaseEventLoop": asyncio.new_event_loop(),
    "ThreadPoolExecutor": ThreadPoolExecutor(max_workers=1),
    "Semaphore": threading.Semaphore(),
}


def test_every_private_name_it_reads_is_still_there():
    for owner, name in PRIVATE_NAMES:
        where = OWNERS.get(owner) or importlib.import_module(owner)
        if isinstance(where, type):  # set in __init__: look at an instance
            where = where() if where is not MessagePump else Screen()
        assert hasattr(where, name), f"Textual no longer has {owner}.{name}"


def test_it_is_the_wait_the_pilot_uses():
    assert textual.app.wait_for_idle is wait_until_idle
    assert textual.pilot.wait_for_idle is wait_until_idle


class Chain(App[None]):
    """A key sets off a chain of messages, each posted by the handler of the one before, and a
    callback after the next refresh; the last link changes what the screen shows."""

    @dataclass
    class Link(Message):
        left: int

    def __init__(self) -> None:
        super().__init__()
        self.links = 0
        self.after_refresh = False

    def compose(self) -> ComposeResult:
        yield Static("waiting", id="shown")

    def on_key(self) -> None:
        self.post_message(self.Link(20))

    def on_chain_link(self, message: Link) -> None:
        self.links += 1
        if message.left:
            self.post_message(self.Link(message.left - 1))
        else:
            self.query_one("#shown", Static).update("chain done")
            self.call_after_refresh(self._refreshed)

    def _refreshed(self) -> None:
        self.after_refresh = True


async def test_a_press_returns_once_the_chain_it_set_off_is_handled_and_painted():
    app = Chain()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.press("x")
        assert app.links == 21 and app.after_refresh
        rows = "".join(strip.text for row in painted(app).strips for strip in row)
        assert "chain done" in rows


async def test_a_job_in_the_loops_executor_counts_as_work():
    assert not _threads_at_work()
    release = threading.Event()
    job = asyncio.create_task(asyncio.to_thread(release.wait))
    await asyncio.sleep(0)  # the task submits the job
    assert _threads_at_work()  # running (a thread that may call back into the app)
    release.set()
    await job
    for _ in range(1000):  # the thread counts itself idle just after it handed the result back
        if not _threads_at_work():
            break
        await asyncio.sleep(0.001)
    assert not _threads_at_work()  # done: its thread waits idle for the next job
