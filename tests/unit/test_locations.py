"""tui/locations.py: every folder roost uses is decided there, and only there asks platformdirs."""

from __future__ import annotations

import ast
from pathlib import Path

import tui
from tui import locations
from tui.actions.outbox import Outbox
from tui.config import config_path
from tui.network.disk_cache import DiskCache


def test_each_folder_honours_its_xdg_variable(tmp_path, monkeypatch):
    assert locations.config_path({"XDG_CONFIG_HOME": str(tmp_path / "c")}) == (
        tmp_path / "c" / "roost" / "config.toml"
    )
    assert locations.outbox_root({"XDG_DATA_HOME": str(tmp_path / "d")}) == (
        tmp_path / "d" / "roost" / "outbox"
    )
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "k"))
    assert locations.cache_root() == tmp_path / "k" / "roost"


def test_the_layers_use_these_folders(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "k"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    assert config_path({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "roost" / "config.toml"
    assert (
        DiskCache.for_service("https://s.example.org/r").folder.parent == tmp_path / "k" / "roost"
    )
    outbox = Outbox.for_service("https://api.example.org", "o/r")
    assert outbox.folder.parent == tmp_path / "d" / "roost" / "outbox"


def test_only_locations_asks_platformdirs():
    root = Path(tui.__file__).resolve().parent
    asking = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            if "platformdirs" in names:
                asking.append(path.relative_to(root).as_posix())
    assert asking == ["locations.py"]
