"""Posting from the dashboard end to end: `n` → picker → form → outbox → the demo network's issue
API → its processor → the outbox follows the issue to accepted (the app's real write side)."""

from __future__ import annotations

import asyncio

from app_rig import loaded, settle, svg_text
from textual.notifications import Notify

from tui.actions.tracking import follow_queued
from tui.config import Settings
from tui.service import connect
from tui.ui.app import RoostApp
from tui.ui.screens.forms.form import ActionForm
from tui.ui.screens.outbox import OutboxScreen


async def _wait_for(predicate, timeout: float = 20) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


async def test_an_action_from_the_form_reaches_the_outbox_and_the_platform():
    """The demo world's account is a registered agent: a profile update goes through the newer
    processor and its receipt says applied."""
    app = RoostApp(connect(Settings(), use_cache=False), poll=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"update_profile", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ActionForm)
        await pilot.press(*"Night Owl", "tab", *"I read the feed at night.")
        await pilot.press("ctrl+s")
        write = app.service.poster.side  # made by n, once
        assert write is not None
        await _wait_for(lambda: any(e.state == "queued" for e in write.outbox.entries()))
        (entry,) = write.outbox.entries()
        assert entry.action == "update_profile" and entry.number is not None
        assert entry.payload == {"name": "Night Owl", "bio": "I read the feed at night."}
        # the request the platform got is the one the outbox holds (nonce and all)
        sandbox = app.service.demo_app.state.sandbox
        issue = next(i for i in sandbox.issues if i.number == entry.number)
        assert issue.body == entry.request["body"]
        await write.docs.refresh()
        changed = await follow_queued(write.outbox, write.client, now=10**9, docs=write.docs)
        assert [e.state for e in changed] == ["applied"]
        # o: the outbox shows it, with its number, state and receipt
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, OutboxScreen)
        text = svg_text(app.export_screenshot())
        assert "update_profile" in text and "applied" in text and f"#{entry.number}" in text
        await pilot.press("enter")
        await settle(pilot)
        text = svg_text(app.export_screenshot())
        assert "Receipt" in text and f"inbox/processed/issue-{entry.number}.json" in text
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert not isinstance(app.screen, OutboxScreen)


async def test_a_post_from_the_form_is_a_discussion_and_n_on_it_offers_a_comment():
    """Where the deployment's contract says posts are Discussions, the form's preview says so,
    the post is created through GraphQL, and on the trending post `n` offers a comment."""
    from tui.ui.screens.forms.picker import ActionPicker

    app = RoostApp(connect(Settings(), use_cache=False), poll=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        write = await app.service.poster.ready()
        assert not write.docs.asked  # n reads the deployment's contract first
        await pilot.press("n")
        await settle(pilot)
        await pilot.press(*"create_post", "enter")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, ActionForm) and form.spec.method == "discussion"
        await pilot.press(*"general", "tab", *"Night notes", "tab", *"Who else reads at night?")
        await settle(pilot)
        text = svg_text(app.export_screenshot())  # the preview is beside the form at 120 columns
        assert "a GitHub Discussion in general" in text and "labels" not in text, text
        await pilot.press("ctrl+s")
        await _wait_for(lambda: any(e.state == "applied" for e in write.outbox.entries()))
        (entry,) = write.outbox.entries()
        assert entry.kind == "discussion" and "is live" in entry.comment
        sandbox = app.service.demo_app.state.sandbox
        (discussion,) = sandbox.discussions
        assert (discussion.title, discussion.number) == ("Night notes", entry.number)
        assert sandbox.issues == []  # never sent as an issue
        # the post trends; on it, n offers a comment and a flag, its number filled in
        app.store.request_refresh()
        await app.store.refresh()
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, ActionPicker)
        first = [(e.spec.name, dict(e.suggestion.prefill)) for e in picker.entries[:3]]
        assert first == [
            ("comment", {"discussion_number": str(entry.number)}),
            ("react", {"discussion_number": str(entry.number)}),
            ("moderate", {"discussion_number": str(entry.number)}),
        ]
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press(*"Me too.", "ctrl+s")
        await _wait_for(lambda: len(write.outbox.entries()) == 2)
        # made (queued), then applied once the tracker sees it in the thread
        made = {"queued", "applied"}
        await _wait_for(lambda: all(e.state in made for e in write.outbox.entries()))
        assert [c["body"].split("\n")[0] for c in sandbox.discussions[0].comments] == ["Me too."]


async def test_posting_without_a_repository_keeps_the_draft_and_says_why():
    app = RoostApp(connect(Settings(read_url="http://127.0.0.1:9/"), use_cache=False), poll=False)
    posted = []
    async with app.run_test(size=(80, 24), message_hook=posted.append) as pilot:
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"heartbeat", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ActionForm)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.service.poster.side is None
        assert "repository" in app.service.poster.problem
        # nothing typed is lost: the draft is kept, reopening the form restores it
        assert app.writer.draft_keeper().kept("heartbeat") is not None
        toasts = [m.notification.message for m in posted if isinstance(m, Notify)]
        assert any("Not sent" in t and "repository" in t for t in toasts), toasts
        await pilot.press("o")
        await settle(pilot)
        toasts = [m.notification.message for m in posted if isinstance(m, Notify)]
        assert any("No outbox" in t and "repository" in t for t in toasts), toasts


async def test_with_no_token_n_asks_for_one_kept_in_memory_only(monkeypatch, tmp_path):
    """No token anywhere: `n` asks for one in a password field first; it is used for the send,
    shown nowhere, written nowhere, and the app says who it acts as."""
    from msgspec.structs import replace

    from tui.config import TOKEN_ENV_VARS
    from tui.ui.screens.forms.token_prompt import TokenPrompt

    for var in TOKEN_ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no `gh` to ask
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    app = RoostApp(connect(Settings(), use_cache=False), poll=False)
    posted = []
    async with app.run_test(size=(80, 24), message_hook=posted.append) as pilot:
        await loaded(pilot)
        token = app.service.session.token.reveal()
        app.service.session = replace(app.service.session, token=None, token_source=None)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, TokenPrompt)
        screen = svg_text(app.export_screenshot())
        assert "Token for roost-demo/network" in screen and "No token was found" in screen
        await pilot.press(*token)
        await pilot.pause()
        assert token not in svg_text(app.export_screenshot())  # masked as it is typed
        await pilot.press("enter")
        await settle(pilot)
        assert app.service.poster.side.client.has_token
        toasts = [str(m.notification.message) for m in posted if isinstance(m, Notify)]
        assert any("acting as demo-agent" in t for t in toasts), toasts
        # then the picker, as `n` always opens
        await pilot.press(*"register_agent", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ActionForm)
        await pilot.press(*"Owl", "tab", *"roost", "tab", *"Night reader.", "ctrl+s")
        write = app.service.poster.side
        await _wait_for(lambda: any(e.state == "queued" for e in write.outbox.entries()))
        written = [path for path in (tmp_path / "data").rglob("*") if path.is_file()]
        assert any(path.suffix == ".json" for path in written), written  # the outbox entry
        for path in written:
            assert token not in path.read_text(errors="replace"), path
        assert token not in svg_text(app.export_screenshot())


async def test_an_empty_or_spaced_token_is_refused_and_escape_composes_anyway(
    monkeypatch, tmp_path
):
    from msgspec.structs import replace

    from tui.config import TOKEN_ENV_VARS
    from tui.ui.screens.forms.picker import ActionPicker
    from tui.ui.screens.forms.token_prompt import TokenPrompt

    for var in TOKEN_ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    app = RoostApp(connect(Settings(), use_cache=False), poll=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        app.service.session = replace(app.service.session, token=None, token_source=None)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TokenPrompt)
        assert "Type or paste the token" in svg_text(app.export_screenshot())
        await pilot.press(*"two words", "enter")
        await pilot.pause()
        assert "no spaces" in svg_text(app.export_screenshot())
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ActionPicker)  # composing goes on; sending will say why
        assert not app.service.poster.side.client.has_token


async def test_demo_reset_asks_first_then_starts_a_fresh_world_and_outbox():
    from tui.ui.screens.demo_reset import ResetDemoConfirm

    service = connect(Settings(), use_cache=False)
    first_world = service.run_id
    app = RoostApp(service, poll=False, ask_demo_reset=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert isinstance(app.screen, ResetDemoConfirm)
        text = svg_text(app.export_screenshot())
        assert "start a fresh demo world?" in text and "0 outbox entries" in text
        await pilot.press("n")  # keep it
        await settle(pilot)
        assert service.run_id == first_world
        write = await service.poster.ready()
        entry = write.outbox.draft("heartbeat", {})
        await write.outbox.send(entry.id, write.client)
        assert app.service.demo_app.state.sandbox.issues
    app = RoostApp(service, poll=False, ask_demo_reset=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert isinstance(app.screen, ResetDemoConfirm)
        assert "1 outbox entry" in svg_text(app.export_screenshot())
        await pilot.press("y")
        await settle(pilot)
        await app.workers.wait_for_complete()
        assert service.run_id != first_world
        assert app.service.demo_app.state.sandbox.issues == []
        assert (await service.poster.ready()).outbox.entries() == []  # the fresh world's own
    # and the next run sees the fresh world, not the old one
    again = connect(Settings(), use_cache=False)
    assert again.run_id == service.run_id
    await again.aclose()


async def test_one_submit_is_one_entry_and_one_queued_toast_even_with_ctrl_s_twice():
    """ctrl+s twice in one burst sends once (the second found the form already leaving and
    popped the dashboard's own screen: a crash), and the entry is told queued once."""
    from textual import events

    app = RoostApp(connect(Settings(), use_cache=False), poll=False)
    posted = []
    async with app.run_test(size=(80, 24), message_hook=posted.append) as pilot:
        await loaded(pilot)
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"update_profile", "enter")
        await settle(pilot)
        await pilot.press(*"Ada")
        app.post_message(events.Key("ctrl+s", None))
        app.post_message(events.Key("ctrl+s", None))
        write = app.service.poster.side
        await _wait_for(lambda: any(e.state == "queued" for e in write.outbox.entries()))
        for _ in range(3):  # the tracker's next rounds tell only what changed
            await write.docs.refresh()
            await app.service.poster.follow(None)
            await settle(pilot)
        assert len(write.outbox.entries()) == 1
        assert not isinstance(app.screen, ActionForm)
        toasts = [str(m.notification.message) for m in posted if isinstance(m, Notify)]
        assert len([t for t in toasts if "queued" in t]) == 1, toasts
        assert len([t for t in toasts if "in the outbox" in t]) == 1, toasts


async def test_n_and_the_tracker_share_one_write_side_and_gh_runs_off_the_loop(
    monkeypatch, tmp_path
):
    """The tracker and `n` ask for the write side at the same moment: it is made once (one
    issue client: the key's send and the tracker's round use the same), and the token search,
    which here ends at `gh auth token`, runs in a worker thread, not on the event loop."""
    import subprocess
    import threading

    from msgspec.structs import replace

    from tui.actions import connection, tracking
    from tui.actions.outbox import Outbox
    from tui.config import TOKEN_ENV_VARS
    from tui.sandbox.app import DEMO_TOKEN
    from tui.ui.screens.forms.picker import ActionPicker

    for var in TOKEN_ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "gh").write_text(f"#!/bin/sh\necho {DEMO_TOKEN}\n")
    (folder / "gh").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:/usr/bin:/bin")
    gh_ran_on: list[int] = []
    run = subprocess.run

    def recording_run(*args, **kwargs):
        if "gh" in str(args[0][0]):
            gh_ran_on.append(threading.get_ident())
        return run(*args, **kwargs)

    monkeypatch.setattr(subprocess, "run", recording_run)
    made, sent_with, followed_with = [], [], []
    write_side, send, follow_queued = connection.write_side, Outbox.send, tracking.follow_queued

    def counting_write_side(service, **options):
        made.append(write_side(service, **options))
        return made[-1]

    async def recording_send(self, entry_id, client, **options):
        sent_with.append(client)
        return await send(self, entry_id, client, **options)

    async def recording_follow(outbox, client, **options):
        followed_with.append(client)
        return await follow_queued(outbox, client, **options)

    monkeypatch.setattr(connection, "write_side", counting_write_side)
    monkeypatch.setattr(Outbox, "send", recording_send)
    monkeypatch.setattr(tracking, "follow_queued", recording_follow)
    app = RoostApp(connect(Settings(), use_cache=False), poll=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        app.service.session = replace(app.service.session, token=None, token_source=None)
        loop_thread = threading.get_ident()
        app.writer.start_tracking()  # as the dashboard does once it is up…
        await pilot.press("n")  # …and a key at the same moment
        await _wait_for(lambda: isinstance(app.screen, ActionPicker))
        await pilot.press(*"heartbeat", "enter")
        await _wait_for(lambda: isinstance(app.screen, ActionForm))
        await pilot.press("ctrl+s")
        await _wait_for(lambda: sent_with and followed_with)
        app.workers.cancel_group(app, "track")
        assert len(made) == 1 and made[0].token_source == "gh auth token"
        assert sent_with[0] is followed_with[0] is made[0].client is app.service.poster.side.client
        assert len(gh_ran_on) == 1 and gh_ran_on[0] != loop_thread
        assert DEMO_TOKEN not in svg_text(app.export_screenshot())
