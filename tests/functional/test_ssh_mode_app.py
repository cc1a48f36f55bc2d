"""The dashboard in SSH mode (a session of `roost serve-ssh`), driven in-process: a guest cannot
post, a keyed user is asked for a token, and nothing can hand the terminal to another program."""

from __future__ import annotations

import os
import signal

import pytest
from app_rig import loaded, settle, svg_text
from forms_rig import FormsHost, demo_snapshot, open_form
from textual.app import SuspendNotSupported
from textual.notifications import Notify

from tui.config import Settings
from tui.service import connect
from tui.session import Session
from tui.ssh.mode import GUEST, GUEST_CANNOT_POST, KEYED, NO_EDITOR, NO_SUSPEND, ROLE_VAR
from tui.ui.app import RoostApp
from tui.ui.screens.forms.form import ActionForm
from tui.ui.screens.forms.token_prompt import TokenPrompt
from tui.ui.screens.link import LinkScreen


def notices(messages: list) -> list[str]:
    return [str(m.notification.message) for m in messages if isinstance(m, Notify)]


def served(role: str) -> RoostApp:
    return RoostApp(connect(Settings(), Session(ssh_role=role), use_cache=False), poll=False)


async def test_a_guest_gets_no_form_no_token_prompt_and_no_outbox():
    app = served(GUEST)
    seen: list = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        await loaded(pilot)
        for key in ("n", "T", "o"):
            await pilot.press(key)
            await settle(pilot)
            assert not isinstance(app.screen, (ActionForm, TokenPrompt)), key
        said = notices(seen)
        assert said[0] == GUEST_CANNOT_POST
        assert f"Cannot post here: {GUEST_CANNOT_POST}" in said
        assert f"No outbox: {GUEST_CANNOT_POST}" in said
        assert app.service.session.token is None


async def test_a_keyed_user_is_asked_for_a_token_roost_looked_for_none():
    app = served(KEYED)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, TokenPrompt)
        screen = svg_text(app.export_screenshot())
        assert "roost looks for no token here" in screen
        await pilot.press("escape")  # no token: the picker opens anyway (drafts wait for one)
        await settle(pilot)
        assert "New action" in svg_text(app.export_screenshot())


async def test_nothing_can_suspend_the_app_or_open_a_browser_over_ssh():
    app = served(GUEST)
    seen: list = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        await loaded(pilot)
        with pytest.raises(SuspendNotSupported, match=NO_SUSPEND), app.suspend():
            pass
        app.action_suspend_process()
        app.open_url("https://example.org/issue/1")
        await settle(pilot)
        assert isinstance(app.screen, LinkScreen)
        assert NO_SUSPEND in notices(seen)


async def test_the_servers_signals_warn_and_quit_and_are_given_back(monkeypatch):
    monkeypatch.setenv("ROOST_SSH_WARN_S", "42")
    app = served(GUEST)
    seen: list = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        await loaded(pilot)
        for signum in (signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2):  # or this test dies
            assert signal.getsignal(signum) not in (signal.SIG_DFL, signal.SIG_IGN), signum
        os.kill(os.getpid(), signal.SIGUSR1)
        os.kill(os.getpid(), signal.SIGUSR2)
        await settle(pilot)
        said = notices(seen)
        assert any("ends in 42 s unless you press a key" in text for text in said), said
        assert any("time limit and ends in 42 s" in text for text in said), said
        os.kill(os.getpid(), signal.SIGTERM)  # the server ends the session: a clean quit
        await pilot.pause()
    assert app.return_code == 0
    assert signal.getsignal(signal.SIGUSR1) is signal.SIG_DFL  # nothing left installed


async def test_ctrl_e_runs_no_editor_over_ssh(tmp_path, monkeypatch):
    ran = tmp_path / "editor-ran"
    editor = tmp_path / "editor"
    editor.write_text(f"#!/bin/sh\ntouch {ran}\n")
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.setenv(ROLE_VAR, "user")
    app = FormsHost(demo_snapshot())
    seen: list = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        form = await open_form(pilot, "propose")
        await pilot.press(*"x", "ctrl+e")
        await pilot.pause()
        assert form.row("text").value == "x"
        assert NO_EDITOR in notices(seen)
    assert not ran.exists()


async def test_a_served_table_computes_search_texts_when_a_filter_needs_them(monkeypatch):
    """Served over SSH, a big table warms nothing ahead (every session would, for every row,
    copying the zygote's pages it reads); a filter then waits for its texts and applies."""
    from textual.widgets import Static

    from tui.ui.screens.agents import AgentsScreen
    from tui.ui.table import warmup

    monkeypatch.setattr(warmup, "WARM_FROM", 100)  # the demo's 301 rows count as big
    monkeypatch.setattr(warmup, "SEARCH_IN_THREAD_FROM", 100)
    monkeypatch.setenv(ROLE_VAR, GUEST)
    app = served(GUEST)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen = app.screen
        assert isinstance(screen, AgentsScreen)
        rows = list(screen.rows)
        assert len(rows) == 301
        assert not any("haystack" in row.computed() for row in rows)
        assert not any("sort_values" in row.computed() for row in rows)
        await pilot.press("slash", "z", "i", "o", "n")
        await settle(pilot)
        summary = str(screen.query_one(".table-summary", Static).render())
        assert screen.table.filter_query == "zion" and "filtering" not in summary
        assert 0 < screen.table.row_count < 301
