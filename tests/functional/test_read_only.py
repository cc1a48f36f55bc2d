"""Read-only (``--readonly``, ``ROOST_READONLY=1``, ``readonly = true``): no token is looked for
(not even ``gh auth token``), the write side is never built, every key and command that would
post says "read-only", and the sandbox's request log shows that nothing but reads was asked,
none of them with a token: in the dashboard and from the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_rig import loaded, settle
from textual.message import Message
from textual.notifications import Notify

from tui.cli import main
from tui.config import load, load_settings
from tui.read_only import READ_ONLY
from tui.sandbox.server import running_sandbox
from tui.service import connect
from tui.ui.app import RoostApp
from tui.ui.screens.forms.form import ActionForm
from tui.ui.screens.forms.token_prompt import TokenPrompt
from tui.ui.screens.outbox import OutboxScreen
from tui.ui.screens.thread import ThreadScreen
from tui.ui.screens.thread.reactions import ReactionPicker
from tui.ui.widgets.key_bar import KeyBar
from tui.ui.widgets.status_bar import StatusBar

TOKEN = "ghp_readOnlySECRETtoken123"
REGISTER = ["-f", "name=Demo", "-f", "framework=python", "-f", "bio=Hello there."]


@pytest.fixture
def gh_ran(tmp_path, monkeypatch) -> Path:
    """A `gh` first on PATH that leaves a mark when it runs (and would print a token)."""
    mark = tmp_path / "gh-ran"
    folder = tmp_path / "bin"
    folder.mkdir()
    gh = folder / "gh"
    gh.write_text(f"#!/bin/sh\ntouch {mark}\necho ghp_fromTheGitHubCli000\n")
    gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{Path('/usr/bin')}:{Path('/bin')}")
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    return mark


def _writes(requests) -> list:
    """What in a request log could have changed something, or carried a token."""
    return [
        r
        for r in requests
        if r.method not in ("GET", "HEAD") or r.header("authorization") is not None
    ]


# --------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    ("config", "env", "flags", "source"),
    [
        ("readonly = true\n", {}, {}, "{path}"),
        ('profile = "p"\n[profiles.p]\nreadonly = true\n', {}, {}, "{path} [profiles.p]"),
        ("", {"ROOST_READONLY": "1"}, {}, "environment ROOST_READONLY"),
        ("readonly = false\n", {}, {"readonly": True}, "--readonly"),
    ],
)
def test_every_layer_makes_roost_read_only_and_no_token_is_kept(
    tmp_path, config, env, flags, source
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(config + 'token = "from-the-config"\n' * (not config.startswith("profile")))
    settings, session = load(flags, env={**env, "ROOST_TOKEN": TOKEN}, path=path)
    assert settings.readonly and session.readonly_source == source.format(path=path)
    assert session.token is None and session.token_source is None
    # a token with no read URL is not a reason to refuse: read-only never looks at it
    assert session.write_without_read == ()


def test_read_only_is_a_setting_like_the_others(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("readonly = true\n")
    assert not load_settings({}, env={"ROOST_READONLY": "0"}, path=path).readonly  # env wins
    with pytest.raises(ValueError, match="environment ROOST_READONLY: readonly must be true or"):
        load_settings({}, env={"ROOST_READONLY": "maybe"}, path=path)
    path.write_text('readonly = "yes"\n')
    with pytest.raises(ValueError, match="readonly must be true or false"):
        load_settings({}, env={}, path=path)


# --------------------------------------------------------------------------- the dashboard


def _toasts(posted: list[Message]) -> list[str]:
    return [str(m.notification.message) for m in posted if isinstance(m, Notify)]


async def test_the_dashboard_posts_nothing_and_asks_for_no_token(gh_ran) -> None:
    settings = load_settings({"readonly": True}, env={"GH_TOKEN": TOKEN})
    service = connect(settings, use_cache=False)
    assert service.session.token is None  # not even the demo network's own
    app = RoostApp(service, initial_screen="trending", poll=False)
    posted: list[Message] = []
    async with app.run_test(size=(80, 24), message_hook=posted.append) as pilot:
        await loaded(pilot)
        bar = app.screen.query_one(StatusBar).render().plain
        assert bar.split(" \u2502 ")[1] == READ_ONLY  # right after the service
        shown, _palette = app.screen.query_one(KeyBar).keys()
        assert "n" not in [key.key for key in shown]  # n is not offered (pressed, it says why)
        for key in ("n", "T", "o"):
            await pilot.press(key)
            await settle(pilot)
            assert not isinstance(app.screen, (ActionForm, TokenPrompt, OutboxScreen)), key
        await pilot.press("enter", "t")  # the selected post's thread, read without a token
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ThreadScreen) and screen.read is not None
        for key in ("c", "j", "R", "plus"):
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is screen, key  # no form, no reaction picker
            assert not isinstance(app.screen, ReactionPicker)
        await app.workers.wait_for_complete()
    said = [text for text in _toasts(posted) if READ_ONLY in text]
    assert len(said) == 6, _toasts(posted)  # n, T, o, c, R, +
    assert all("(--readonly)" in text for text in said)
    assert service.poster.side is None  # the write side was never built
    requests = service.demo_app.state.sandbox.requests  # type: ignore[union-attr]
    assert any("/discussions/" in r.path for r in requests)  # the thread was read
    assert _writes(requests) == []
    assert not gh_ran.exists()


# --------------------------------------------------------------------------- the CLI


@pytest.fixture
def platform(monkeypatch, gh_ran):
    with running_sandbox(agents=30, tokens={TOKEN: "demo-agent"}) as (info, app):
        monkeypatch.setenv("ROOST_READ_URL", info.read_url)
        monkeypatch.setenv("ROOST_WRITE_URL", info.write_url)
        monkeypatch.setenv("ROOST_REPO", info.repo)
        monkeypatch.setenv("ROOST_TOKEN", TOKEN)
        yield app.state.sandbox


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert TOKEN not in out + err
    return code, out, err


def test_the_cli_refuses_to_send_in_one_line_and_asks_nothing(
    capsys, platform, gh_ran, monkeypatch
) -> None:
    code, out, _ = _run(capsys, "action", "submit", "register_agent", *REGISTER, "--json")
    assert code == 0  # one entry sent the ordinary way, for retry and resend to refuse
    entry = out.split('"id": "', 1)[1].split('"', 1)[0]
    sent = len(platform.requests)
    monkeypatch.setenv("ROOST_READONLY", "1")
    for argv in (
        ["action", "submit", "register_agent", *REGISTER],
        ["action", "submit", "register_agent", *REGISTER, "--dry-run"],
        ["outbox", "retry", entry],
        ["outbox", "resend", entry, "-f", "bio=Again."],
        ["outbox", "follow"],
        ["outbox", "drop", entry],
        ["whoami"],
    ):
        code, out, err = _run(capsys, *argv)
        assert (code, out) == (2, ""), argv
        assert err == (
            "roost: read-only (ROOST_READONLY): roost posts nothing here "
            "(unset ROOST_READONLY to post)\n"
        ), argv
    code, out, _ = _run(capsys, "outbox")  # the entries as kept, the platform not asked
    assert code == 0 and entry in out
    code, out, _ = _run(capsys, "outbox", "show", entry, "--json")
    assert code == 0 and entry in out
    monkeypatch.delenv("ROOST_READONLY")
    code, _, _ = _run(capsys, "--readonly", "action", "submit", "register_agent", *REGISTER)
    assert code == 2
    code, _, _ = _run(capsys, "state", "--readonly")  # reading goes on as ever
    assert code == 0
    later = platform.requests[sent:]
    assert later and _writes(later) == []
    assert not gh_ran.exists()
