"""ctrl+e's editor, in git's order: $VISUAL, $EDITOR, editor, vi — the first found."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tui.ui.screens.forms.external_editor import editor_command


def program(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


def test_visual_comes_before_editor(bin_dir):
    for name in ("nano", "code", "editor", "vi"):
        program(bin_dir, name)
    env = {"PATH": str(bin_dir), "VISUAL": "code --wait", "EDITOR": "nano"}
    assert editor_command(env) == ["code", "--wait"]
    assert editor_command({**env, "VISUAL": ""}) == ["nano"]


def test_without_the_variables_editor_then_vi(bin_dir):
    program(bin_dir, "vi")
    assert editor_command({"PATH": str(bin_dir)}) == ["vi"]
    program(bin_dir, "editor")
    assert editor_command({"PATH": str(bin_dir)}) == ["editor"]


def test_a_variable_naming_a_missing_program_is_passed_over(bin_dir, tmp_path):
    program(bin_dir, "vi")
    env = {"PATH": str(bin_dir), "VISUAL": "no-such-editor", "EDITOR": "'unbalanced"}
    assert editor_command(env) == ["vi"]
    script = program(tmp_path, "my editor")  # a path, with a space, quoted as a shell would
    assert editor_command({**env, "EDITOR": f"'{script}' -n"}) == [str(script), "-n"]


def test_none_found(bin_dir):
    assert editor_command({"PATH": str(bin_dir), "EDITOR": "nano"}) is None
