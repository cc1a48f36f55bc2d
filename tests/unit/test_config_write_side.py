"""Settings of the write side: never a silent fall to the demo, the token's sources, the
processor's account."""

from __future__ import annotations

import pytest

from tui.actions.token import find_token
from tui.config import TOKEN_ENV_VARS, ConfigError, Settings, load
from tui.session import Session


def settings(flags=None, env=None, tmp_path=None, text: str | None = None, **kw) -> Settings:
    return loaded(flags, env, tmp_path, text, **kw)[0]


def loaded(flags=None, env=None, tmp_path=None, text=None, **kw) -> tuple[Settings, Session]:
    path = None
    if tmp_path is not None:
        path = tmp_path / "config.toml"
        path.write_text(text or "")
    return load(flags or {}, env or {}, path or tmp_path / "none.toml", **kw)


@pytest.mark.parametrize(
    ("flags", "env", "named"),
    [
        ({}, {"ROOST_WRITE_URL": "https://api.x.test"}, "environment ROOST_WRITE_URL"),
        ({"repo": "o/r"}, {}, "--repo"),
        ({}, {"ROOST_TOKEN": "t"}, "ROOST_TOKEN"),
        ({}, {"RAPPTERBOOK_TOKEN": "t", "ROOST_REPO": "o/r"}, "RAPPTERBOOK_TOKEN"),
        ({"write_url": "https://api.x.test"}, {"DISCUSSIONS_TOKEN": "t"}, "--write-url"),
    ],
)
def test_write_settings_without_a_read_url_are_refused(tmp_path, flags, env, named):
    with pytest.raises(ConfigError) as refused:
        settings(flags, env, tmp_path)
    message = str(refused.value)
    assert named in message and "--read-url" in message and "demo" in message


def test_a_config_files_write_settings_without_a_read_url_are_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"the token in .*config.toml.*--read-url"):
        settings({}, {}, tmp_path, 'token = "t"\nrepo = "o/r"\n')


def test_only_a_wholly_unconfigured_roost_is_the_demo(tmp_path):
    assert settings({}, {}, tmp_path).demo
    # GH_TOKEN / GITHUB_TOKEN are set for every GitHub tool: they point roost nowhere
    assert settings({}, {"GH_TOKEN": "t", "GITHUB_TOKEN": "t"}, tmp_path).demo
    chosen, held = loaded({}, {"ROOST_REPO": "o/r", "ROOST_TOKEN": "t"}, tmp_path, demo=True)
    assert chosen.as_demo().demo and not held.as_demo().write_without_read
    read, session = loaded({"read_url": "https://raw.x.test"}, {"ROOST_TOKEN": "t"}, tmp_path)
    assert not read.demo and session.write_without_read == ()


def test_the_token_sources_in_order(tmp_path):
    assert TOKEN_ENV_VARS == (
        "ROOST_TOKEN",
        "RAPPTERBOOK_TOKEN",
        "DISCUSSIONS_TOKEN",
        "GH_TOKEN",
        "GITHUB_TOKEN",
    )
    base = Session()  # settings with a read URL and no token of their own
    env = {"GH_TOKEN": "gh", "DISCUSSIONS_TOKEN": "disc", "RAPPTERBOOK_TOKEN": "rb"}
    token, source = find_token(base, env, gh=lambda: None)
    assert (token.reveal(), source) == ("rb", "RAPPTERBOOK_TOKEN")
    del env["RAPPTERBOOK_TOKEN"]
    assert find_token(base, env, gh=lambda: None)[1] == "DISCUSSIONS_TOKEN"
    env["ROOST_TOKEN"] = "roost"
    assert find_token(base, env, gh=lambda: None)[1] == "ROOST_TOKEN"


def test_the_processors_account_is_a_setting(tmp_path):
    read = {"read_url": "https://raw.x.test"}
    assert settings(read, {}, tmp_path).processor_login is None
    chosen = settings(read, {"ROOST_PROCESSOR_LOGIN": "deploy-bot[bot]"}, tmp_path)
    assert chosen.processor_login == "deploy-bot[bot]"
    with pytest.raises(ConfigError, match="processor_login"):
        settings(read, {"ROOST_PROCESSOR_LOGIN": "not a login!"}, tmp_path)
