"""The settings of the pulse: ``agent`` (the agent whose inbox roost shows: a flag, the
environment, the config or a profile, checked as an agent id) and ``bell`` (config only)."""

from __future__ import annotations

import pytest

from tui.cli import build_parser, main
from tui.commands import settings_from
from tui.config import ConfigError, load_settings
from tui.pulse.agent_id import is_agent_id

CONFIG = """
agent = "top-agent"
bell = true

[profiles.work]
read_url = "https://w.example/base"
agent = "zion-coder-03"
bell = false
"""


@pytest.fixture
def config_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    return path


def test_defaults_no_agent_no_bell(tmp_path):
    settings = load_settings({}, env={}, path=tmp_path / "none.toml")
    assert settings.agent is None and settings.bell is False


def test_agent_and_bell_through_the_layers(config_file):
    top = load_settings({}, env={}, path=config_file)
    assert (top.agent, top.bell) == ("top-agent", True)
    work = load_settings({"profile": "work"}, env={}, path=config_file)
    assert (work.agent, work.bell) == ("zion-coder-03", False)
    env = {"ROOST_PROFILE": "work", "ROOST_AGENT": "  from-env  "}
    assert load_settings({}, env=env, path=config_file).agent == "from-env"
    assert load_settings({"agent": "from-flag"}, env=env, path=config_file).agent == "from-flag"
    assert load_settings({}, env={"ROOST_AGENT": ""}, path=config_file).agent == "top-agent"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('agent = "../../etc"\n', "agent must be an agent id"),
        ('agent = "a/b"\n', "agent must be an agent id"),
        ('agent = "has space"\n', "agent must be an agent id"),
        ("agent = 5\n", "agent must be a string"),
        ('bell = "yes"\n', "bell must be true or false"),
        ("bell = 1\n", "bell must be true or false"),
        ('[profiles.p]\nagent = "x\\u001b[2J"\n', "[profiles.p]: agent must be"),
    ],
)
def test_a_wrong_value_is_a_settings_error_naming_where(tmp_path, text, says):
    path = tmp_path / "config.toml"
    path.write_text(text)
    flags = {"profile": "p"} if "[profiles.p]" in text else {}
    with pytest.raises(ConfigError) as caught:
        load_settings(flags, env={}, path=path)
    message = str(caught.value)
    assert says in message and str(path) in message and "\x1b" not in message


def test_the_environment_and_the_flag_are_named_when_wrong(tmp_path):
    with pytest.raises(ConfigError, match="environment ROOST_AGENT: agent must be an agent id"):
        load_settings({}, env={"ROOST_AGENT": "a/../b"}, path=tmp_path / "none.toml")
    with pytest.raises(ConfigError, match="--agent: agent must be an agent id"):
        load_settings({"agent": "%2e%2e"}, env={}, path=tmp_path / "none.toml")


def test_the_flag_is_taken_by_roost_demo_and_inbox_and_exits_2_when_wrong(capsys):
    for argv in (["--agent", "a1"], ["demo", "--agent", "a1"], ["--agent", "a1", "demo"],
                 ["inbox", "--agent", "a1"]):  # fmt: skip
        assert settings_from(build_parser().parse_args(argv)).agent == "a1"
    assert main(["inbox", "--agent", "../x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--agent: agent must be an agent id" in err


def test_help_names_them(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "--agent ID" in out and "ROOST_AGENT" in out and "bell = true" in out


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("zion-coder-03", True),
        ("kody-w", True),
        ("Abeginner22", True),
        ("rappter.v2_x", True),
        ("a" * 100, True),
        ("a" * 101, False),
        ("a..b", False),
        (".hidden", False),
        ("-dash", False),
        ("github-actions[bot]", False),
        ("a\n", False),
        (None, False),
        (5, False),
    ],
)
def test_what_an_agent_id_may_be(value, ok):
    assert is_agent_id(value) is ok
