"""SSH mode in the headless core: a dashboard served by `roost serve-ssh` holds only a token its
user types, a guest posts nothing, and no browser opens on the server."""

from __future__ import annotations

import pytest

from tui.actions.connection import write_side
from tui.actions.token import TokenError, find_token
from tui.browser import browser_unavailable
from tui.config import ConfigError, Secret, Settings, load_settings
from tui.service import connect
from tui.session import Session
from tui.ssh.mode import (
    GUEST,
    GUEST_CANNOT_POST,
    KEYED,
    NO_BROWSER,
    ROLE_VAR,
    for_session,
    session_role,
    warning_lead_s,
)


@pytest.mark.parametrize(
    ("value", "role"),
    [
        (None, None),
        ("", None),
        ("guest", GUEST),
        ("user", KEYED),
        ("admin", GUEST),
        (" user ", KEYED),
    ],
)
def test_the_role_comes_from_the_server_built_environment(value, role):
    environ = {} if value is None else {ROLE_VAR: value}
    assert session_role(environ) == role


def test_the_warning_lead_defaults_to_a_minute():
    assert warning_lead_s({}) == 60
    assert warning_lead_s({"ROOST_SSH_WARN_S": "7"}) == 7
    assert warning_lead_s({"ROOST_SSH_WARN_S": "soon"}) == 60


def test_a_session_drops_every_token_the_settings_found():
    session = Session(token=Secret("from-config"), token_source="config")
    assert for_session(session, {}) is session
    served = for_session(session, {ROLE_VAR: "user"})
    assert served.ssh_role == KEYED and served.token is None and served.token_source is None


def test_the_role_is_never_read_from_a_config_file(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('ssh_role = "user"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown setting"):
        load_settings(env={}, path=config)


def test_no_token_is_looked_for_in_ssh_mode(monkeypatch):
    monkeypatch.setenv("ROOST_TOKEN", "from-env")
    monkeypatch.setenv("GH_TOKEN", "from-gh-env")
    asked = []

    def gh() -> Secret:
        asked.append(True)
        return Secret("from-gh")

    session = Session(token=Secret("from-config"), token_source="config", ssh_role=KEYED)
    assert find_token(session, gh=gh) == (None, None)
    assert not asked  # `gh auth token` is not even run
    assert find_token(Session(), gh=gh)[1] == "ROOST_TOKEN"  # outside SSH mode, as before


def test_the_demo_network_gives_a_served_session_no_token():
    for role in (GUEST, KEYED):
        service = connect(Settings(), Session(ssh_role=role), use_cache=False)
        assert service.session.token is None and service.session.ssh_role == role
    assert connect(Settings(), use_cache=False).session.token_source == "demo"


def test_a_guest_has_no_write_side_and_a_keyed_user_starts_without_a_token(tmp_path):
    guest = connect(Settings(), Session(ssh_role=GUEST), use_cache=False)
    with pytest.raises(TokenError) as refused:
        write_side(guest, outbox_root=tmp_path)
    assert str(refused.value) == GUEST_CANNOT_POST
    assert not list(tmp_path.iterdir())  # not even an outbox folder
    keyed = write_side(
        connect(Settings(), Session(ssh_role=KEYED), use_cache=False), outbox_root=tmp_path
    )
    assert not keyed.client.has_token and keyed.token_source is None


def test_no_browser_opens_in_ssh_mode_even_with_a_display():
    served = {ROLE_VAR: "user", "DISPLAY": ":0"}
    assert browser_unavailable(served, platform="linux") == NO_BROWSER
    assert browser_unavailable(served, platform="darwin") == NO_BROWSER
    assert browser_unavailable({"DISPLAY": ":0"}, platform="linux") is None
