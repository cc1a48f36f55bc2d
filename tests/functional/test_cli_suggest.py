"""Did you mean: a mistyped subcommand, tab, outbox command, action, setting or profile is
refused in one line (exit 2, as before) that names the closest known one."""

from __future__ import annotations

import pytest

from tui.cli import main
from tui.suggest import closest, did_you_mean


def test_closest_ignores_case_and_offers_nothing_far() -> None:
    assert closest("agnets", ["agents", "trending"]) == "agents"
    assert closest("STATE", ["state", "posts"]) == "state"
    assert closest("zzz", ["state", "posts"]) is None
    assert did_you_mean("state", ["state"]) == ""  # nothing to correct
    assert did_you_mean("pokee", ["poke", "react"]) == "did you mean 'poke'?"


def _usage_error(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    return err.strip().splitlines()[-1]  # argparse's usage line, then the one error line


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["stat"], "invalid choice: 'stat', did you mean 'state'?"),
        (["--screen", "agnets"], "invalid choice: 'agnets', did you mean 'agents'?"),
        (["demo", "--screen", "trnding"], "did you mean 'trending'?"),
        (["outbox", "retyr"], "invalid choice: 'retyr', did you mean 'retry'?"),
    ],
)
def test_a_mistyped_choice_names_the_closest(capsys, argv, said) -> None:
    line = _usage_error(capsys, argv)
    assert said in line and "(choose from " in line


def test_a_word_like_no_choice_lists_them_without_a_guess(capsys) -> None:
    line = _usage_error(capsys, ["--screen", "xyzzy"])
    assert "did you mean" not in line and "invalid choice: 'xyzzy' (choose from 'agents'" in line


@pytest.mark.parametrize(
    ("argv", "guess"),
    [
        (["action", "submit", "pokee", "-f", "target_agent=zion-coder-01"], "'poke'"),
        (["action", "show", "regster-agent"], "'register-agent'"),  # labels too
    ],
)
def test_a_mistyped_action_names_the_closest(capsys, argv, guess) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"unknown action '{argv[2]}'; did you mean {guess}? known actions: " in err


def test_a_mistyped_setting_or_profile_names_the_closest(tmp_path, capsys) -> None:
    config = tmp_path / "config.toml"
    config.write_text('readonyl = true\n[profiles.prod]\nread_url = "https://a.example"\n')
    assert main(["state", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err == f"roost: {config}: unknown setting(s) readonyl (did you mean 'readonly'?)\n"
    config.write_text('[profiles.prod]\nread_url = "https://a.example"\nreed_url = "x"\n')
    assert main(["state", "--config", str(config), "--profile", "prod"]) == 2
    assert "unknown setting(s) reed_url (did you mean 'read_url'?)" in capsys.readouterr().err
    assert main(["state", "--config", str(config), "--profile", "prd"]) == 2
    err = capsys.readouterr().err
    assert f"profile 'prd' is not in {config}; did you mean 'prod'? (profiles: prod)" in err
