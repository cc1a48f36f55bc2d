"""The shape of the UI drawn from its imports: widgets and screens never reach for the app."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tui

ROOT = Path(tui.__file__).resolve().parent
UI_MODULES = sorted([*(ROOT / "widgets").glob("*.py"), *(ROOT / "screens").rglob("*.py")])
REACHING = re.compile(r"getattr\(\s*self\.app\b|self\.app\._")


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at any level (TYPE_CHECKING blocks and functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", UI_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_widget_or_screen_imports_the_app(path):
    assert not {name for name in imported(path) if name == "tui.app" or name.startswith("tui.app.")}


@pytest.mark.parametrize("path", UI_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_widget_or_screen_reads_the_app_by_name(path):
    assert not REACHING.search(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("module", ["collector.py", "app_state.py", "tabs.py", "untrusted.py"])
def test_shared_modules_stay_free_of_textual(module):
    names = imported(ROOT / module)
    assert not {n for n in names if n.split(".")[0] in ("textual", "rich")}
