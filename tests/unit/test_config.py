"""Settings layers: defaults < config file < profile < environment < flags; the token never prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.config import ConfigError, Secret, load, load_settings

CONFIG = """
read_url = "https://top.example/base"
interval = 30

[profiles.staging]
read_url = "https://staging.example/base"
repo = "acme/net"

[profiles.prod]
read_url = "https://prod.example/base"
token = "from-config-file"
"""


@pytest.fixture
def config_file(tmp_path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    return path


def test_defaults_mean_demo(tmp_path):
    settings, session = load({}, env={}, path=tmp_path / "missing.toml")
    assert settings.demo
    assert settings.interval == 60
    assert session.token is None


def test_config_file_then_profile_then_env_then_flags(config_file):
    assert load_settings({}, env={}, path=config_file).read_url == "https://top.example/base"
    staged = load_settings({"profile": "staging"}, env={}, path=config_file)
    assert staged.read_url == "https://staging.example/base"
    assert staged.repo == "acme/net"
    assert staged.interval == 30  # from the top level, not overridden by the profile
    assert staged.write_url == "https://api.github.com"
    env = {"ROOST_PROFILE": "staging", "ROOST_READ_URL": "https://env.example"}
    assert load_settings({}, env=env, path=config_file).read_url == "https://env.example"
    flagged = load_settings({"read_url": "https://flag.example"}, env=env, path=config_file)
    assert flagged.read_url == "https://flag.example"
    assert flagged.repo == "acme/net"


def test_token_sources_and_secrecy(config_file):
    _, prod = load({"profile": "prod"}, env={}, path=config_file)
    assert prod.token == Secret("from-config-file")
    assert prod.token_source == "config"
    env = {"GH_TOKEN": "gh-token-value", "GITHUB_TOKEN": "other"}
    _, from_env = load({"profile": "prod"}, env=env, path=config_file)
    assert from_env.token.reveal() == "gh-token-value"
    assert from_env.token_source == "GH_TOKEN"
    _, roost_first = load({}, env={**env, "ROOST_TOKEN": "mine"}, path=config_file)
    assert roost_first.token.reveal() == "mine"
    for text in (repr(from_env), str(from_env), repr(from_env.token), f"{from_env.token}"):
        assert "gh-token-value" not in text


def test_unknown_profile_and_bad_values_are_clear(config_file, tmp_path):
    with pytest.raises(ConfigError, match="profile 'nope'.*staging"):
        load_settings({"profile": "nope"}, env={}, path=config_file)
    bad = tmp_path / "bad.toml"
    bad.write_text("read_url = [1")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings({}, env={}, path=bad)
    bad.write_text('repo = "no-slash"')
    with pytest.raises(ConfigError, match="OWNER/NAME"):
        load_settings({}, env={}, path=bad)
    bad.write_text("colour = 'blue'")
    with pytest.raises(ConfigError, match="unknown setting"):
        load_settings({}, env={}, path=bad)
    with pytest.raises(ConfigError, match="interval"):
        load_settings({}, env={"ROOST_INTERVAL": "soon"}, path=config_file)


def test_xdg_config_home_is_honoured(tmp_path):
    folder = tmp_path / "xdg" / "roost"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text('read_url = "https://xdg.example"')
    settings = load_settings({}, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert settings.read_url == "https://xdg.example"
    assert settings.config_file == folder / "config.toml"


def test_display_url_and_label_hide_credentials(tmp_path):
    settings = load_settings(
        {"read_url": "http://alice:s3cretpw@host.example/base/"}, env={}, path=tmp_path / "x"
    )
    assert settings.display_url == "http://***@host.example/base/"
    assert settings.service_label() == "host.example/base"
    assert "s3cretpw" not in repr(settings.display_url + settings.service_label())


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('profile = "p"\n[profiles]\np = "x"\n', "must be a table"),
        ('profile = ["a"]\n', "profile must be the name"),
        ('profile = "p"\n[profiles.p]\nreed_url = "x"\n', "unknown setting(s) reed_url"),
        ("cache_dir = 5\n", "cache_dir must be a string"),
        ("interval = nan\n", "finite"),
        ("interval = inf\n", "finite"),
        ("interval = -3\n", "at least 1"),
        ("interval = true\n", "number of seconds"),
        ('read_url = "http://h:99999"\n', "Port out of range"),
        ('read_url = "ftp://h/"\n', "http:// or https://"),
        ('hub_url = "http://[::1"\n', "not a valid URL"),
    ],
)
def test_bad_settings_are_config_errors_naming_the_file(tmp_path, text, says):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_settings({}, env={}, path=path)
    assert says in str(caught.value) and str(path) in str(caught.value)


def test_non_utf8_config_is_a_config_error(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b"read_url = '\xff'\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_settings({}, env={}, path=path)


def test_named_config_must_exist(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_settings({}, env={"ROOST_CONFIG": str(tmp_path / "nope.toml")})
    with pytest.raises(ConfigError, match="not found"):
        load_settings({}, env={}, path=tmp_path / "nope.toml", required=True)
