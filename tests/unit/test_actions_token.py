"""Where the token comes from (in the documented order) and where it may go."""

from __future__ import annotations

import sys

import pytest

from tui.actions.token import (
    TokenError,
    check_write_url,
    find_token,
    gh_auth_token,
    is_loopback_host,
    same_origin,
)
from tui.config import Secret, Settings
from tui.session import Session


def no_gh() -> None:
    return None


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"ROOST_TOKEN": "a", "GH_TOKEN": "b", "GITHUB_TOKEN": "c"}, ("a", "ROOST_TOKEN")),
        ({"GH_TOKEN": "b", "GITHUB_TOKEN": "c"}, ("b", "GH_TOKEN")),
        ({"GITHUB_TOKEN": "c"}, ("c", "GITHUB_TOKEN")),
        ({}, ("cfg", "config")),
    ],
)
def test_sources_in_order(env, expected):
    settings = Session(token=Secret("cfg"), token_source="config")
    token, source = find_token(settings, env, gh=lambda: Secret("from-gh"))
    assert (token.reveal(), source) == expected


def test_gh_is_the_last_resort_and_may_be_absent():
    token, source = find_token(Session(), {}, gh=lambda: Secret("from-gh"))
    assert (token.reveal(), source) == ("from-gh", "gh auth token")
    assert find_token(Session(), {}, gh=no_gh) == (None, None)


def test_gh_auth_token_runs_gh_with_a_timeout(tmp_path):
    script = tmp_path / "gh"
    script.write_text(f"#!{sys.executable}\nprint('gho_fromgh')\n")
    script.chmod(0o755)
    assert gh_auth_token(which=lambda name: str(script)).reveal() == "gho_fromgh"
    assert gh_auth_token(which=lambda name: None) is None
    slow = tmp_path / "slow"
    slow.write_text(f"#!{sys.executable}\nimport time; time.sleep(30)\n")
    slow.chmod(0o755)
    assert gh_auth_token(which=lambda name: str(slow), timeout=0.2) is None
    failing = tmp_path / "failing"
    failing.write_text(f"#!{sys.executable}\nimport sys; sys.exit(1)\n")
    failing.chmod(0o755)
    assert gh_auth_token(which=lambda name: str(failing)) is None


def test_a_secret_does_not_print_itself():
    secret = Secret("ghp_abc")
    assert "ghp_abc" not in repr(secret) and "ghp_abc" not in str(secret)
    assert "ghp_abc" not in repr(Session(token=secret)) + repr(Settings())


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "127.8.9.10", "::1", "[::1]"])
def test_loopback_hosts(host):
    assert is_loopback_host(host)


@pytest.mark.parametrize("host", ["", None, "example.com", "10.0.0.1", "127.0.0.1.nip.io"])
def test_not_loopback(host):
    assert not is_loopback_host(host)


def test_write_url_rules():
    assert check_write_url("https://api.github.com/") == "https://api.github.com"
    assert check_write_url("http://127.0.0.1:8765/api") == "http://127.0.0.1:8765/api"
    with pytest.raises(TokenError, match="plain http"):
        check_write_url("http://api.github.com")
    assert check_write_url("http://demo.roost.invalid/api", in_process=True)
    with pytest.raises(TokenError):
        check_write_url(None)


def test_same_origin():
    assert same_origin("https://api.github.com/repos/x", "https://api.github.com:443/user")
    assert not same_origin("https://api.github.com", "https://raw.githubusercontent.com")
    assert not same_origin("https://api.github.com", "http://api.github.com")
    assert not same_origin("http://127.0.0.1:1/api", "http://127.0.0.1:2/api")
