"""`roost keys`, settings errors of [keymap] and themes at the command line (exit 2, one line),
and `roost --reset-preferences`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tui.cli import main


def write_config(text: str) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "roost" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_keys_lists_every_id_with_its_default_and_chosen_keys(capsys):
    write_config('[keymap]\n"app.refresh" = "f5"\n')
    assert main(["keys", "--json"]) == 0
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)["keys"]}
    assert rows["app.refresh"] == {
        "id": "app.refresh",
        "keys": ["f5"],
        "default": ["r"],
        "yours": True,
        "where": ["everywhere"],
        "action": "refresh",
        "description": "Refresh",
    }
    assert rows["table.sort"]["keys"] == ["s"] and not rows["table.sort"]["yours"]
    assert main(["keys"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("app.refresh "))
    assert line.split()[:4] == ["app.refresh", "f5", "(was", "r)"]
    assert next(line for line in out.splitlines() if line.startswith("app.help ")).split()[1] == "?"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[keymap]\n"app.refersh" = "f5"\n', ["[keymap] app.refersh", "'app.refresh'"]),
        ('[keymap]\n"screen.copy" = "t"\n', ["[keymap] screen.copy", "activity.type"]),
    ],
)
def test_a_wrong_keymap_exits_2_with_one_line(capsys, text, words):
    path = write_config(text)
    assert main(["keys"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err
    for word in words:
        assert word in err


def test_an_unknown_theme_stops_the_dashboard_before_it_starts(capsys, monkeypatch):
    path = write_config('theme = "nrod"\n')
    monkeypatch.setattr("tui.commands.dashboard.on_a_terminal", lambda: True)
    assert main(["demo"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "did you mean 'nord'?" in err


def test_reset_preferences_forgets_them(capsys):
    path = Path(os.environ["XDG_STATE_HOME"]) / "roost" / "preferences.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"format": "roost-preferences/1", "profiles": {}}')
    assert main(["--reset-preferences"]) == 0
    assert not path.exists() and str(path) in capsys.readouterr().out
    assert main(["--reset-preferences"]) == 0
    assert "no preferences" in capsys.readouterr().out
