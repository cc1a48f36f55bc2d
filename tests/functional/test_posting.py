"""Posting from the dashboard end to end: `n` → picker → form → outbox → the demo network's issue
API → its processor → the outbox follows the issue to accepted (the app's real write side)."""

from __future__ import annotations

import asyncio

from app_rig import loaded, settle
from textual.notifications import Notify

from tui.actions.tracking import follow_queued
from tui.app import RoostApp
from tui.config import Settings
from tui.screens.forms.form import ActionForm


async def _wait_for(predicate, timeout: float = 20) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.05)

    await asyncio.wait_for(poll(), timeout)


async def test_register_from_the_form_reaches_the_outbox_and_the_platform():
    app = RoostApp(Settings().as_demo(), poll=False, use_cache=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"register_agent", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ActionForm)
        await pilot.press(*"Night Owl", "tab", *"roost", "tab", *"I read the feed at night.")
        await pilot.press("ctrl+s")
        write = app.write_side()
        assert write is not None
        await _wait_for(lambda: any(e.state == "queued" for e in write.outbox.entries()))
        (entry,) = write.outbox.entries()
        assert entry.action == "register_agent" and entry.number is not None
        assert entry.payload == {
            "name": "Night Owl",
            "framework": "roost",
            "bio": "I read the feed at night.",
        }
        # the request the platform got is the one the outbox holds (nonce and all)
        sandbox = app.service.demo_app.state.sandbox
        issue = next(i for i in sandbox.issues if i.number == entry.number)
        assert issue.body == entry.request["body"]
        changed = await follow_queued(write.outbox, write.client, now=10**9)
        assert [e.state for e in changed] == ["accepted"]


async def test_posting_without_a_repository_keeps_the_draft_and_says_why():
    app = RoostApp(Settings(read_url="http://127.0.0.1:9/"), poll=False, use_cache=False)
    posted = []
    async with app.run_test(size=(80, 24), message_hook=posted.append) as pilot:
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"heartbeat", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ActionForm)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.write_side() is None
        # nothing typed is lost: the draft is kept, reopening the form restores it
        assert app.draft_keeper().kept("heartbeat") is not None
        toasts = [m.notification.message for m in posted if isinstance(m, Notify)]
        assert any("Not sent" in t and "repository" in t for t in toasts), toasts
