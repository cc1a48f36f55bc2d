"""The table engine (tui/ui/table) stands alone: it reaches nothing of roost but the few modules
it shares, even through them. The import-linter contracts (pyproject.toml) forbid its screens,
app and services and a circle among its modules; an allow-list (what it may reach) is beyond
them, so it is checked here."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import tui

ROOT = Path(tui.__file__).resolve().parent
ENGINE = ROOT / "ui" / "table"
ENGINE_MODULES = sorted(ENGINE.glob("*.py"))
#: What of roost the engine may import (besides itself): the headless row model it shares with
#: `roost export` (tui/tables/rows.py), untrusted-text cleaning, vim's motion keys, the in-order
#: text field and the one home of Textual's private names it relies on.
SHARED = {
    "tui.tables.rows",
    "tui.untrusted",
    "tui.ui.widgets.vim",
    "tui.ui.widgets.editors",
    "tui.ui.textual_compat",
}
#: Packages whose ``__init__`` a Python import runs on the way (docstrings only).
PARENTS = {"tui", "tui.ui", "tui.ui.widgets", "tui.ui.table", "tui.tables"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts).removesuffix(".__init__")


def module_path(name: str) -> Path:
    base = ROOT.parent.joinpath(*name.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def roost_imports(path: Path) -> set[str]:
    """The roost modules ``path`` imports, at any level (TYPE_CHECKING blocks and functions
    too); ``from package import module`` counts as the module."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(
                f"{node.module}.{alias.name}"
                for alias in node.names
                if module_path(f"{node.module}.{alias.name}").exists()
            )
    return {name for name in names if name == "tui" or name.startswith("tui.")}


def reached_from_the_engine() -> dict[str, set[str]]:
    """Every roost module the engine reaches through imports -> the modules importing it."""
    reached: dict[str, set[str]] = {}
    todo = [module_name(path) for path in ENGINE_MODULES]
    seen = set(todo)
    while todo:
        name = todo.pop()
        for imported in roost_imports(module_path(name)):
            reached.setdefault(imported, set()).add(name)
            if imported not in seen:
                seen.add(imported)
                todo.append(imported)
    return reached


def test_the_engine_reaches_nothing_of_roost_but_what_it_shares():
    """No screen, no app, no network, store or action: what the engine imports, and what those
    import in turn, is the engine itself and :data:`SHARED`."""
    reached = reached_from_the_engine()
    outside = {
        name: sorted(by)
        for name, by in reached.items()
        if not name.startswith("tui.ui.table.") and name not in SHARED | PARENTS
    }
    assert outside == {}


def test_the_check_sees_a_screen_import(tmp_path, monkeypatch):
    """The check above can fail: a screen imported by an engine module is reported."""
    sample = ENGINE / "virtual_table.py"
    source = sample.read_text(encoding="utf-8") + "\nfrom tui.ui.screens.base import Place\n"
    copy = tmp_path / "virtual_table.py"
    copy.write_text(source, encoding="utf-8")
    assert "tui.ui.screens.base" in roost_imports(copy)


@pytest.mark.parametrize("path", ENGINE_MODULES, ids=lambda p: p.name)
def test_each_engine_module_imports_nothing_relative(path):
    """Absolute imports only: the AST checks above read them by name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert not [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]


def test_importing_the_engine_loads_no_screen_or_service():
    """The same rule as the process sees it: import every engine module, then look at
    sys.modules."""
    names = [module_name(path) for path in ENGINE_MODULES]
    script = (
        "import importlib, json, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('tui.'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = set(json.loads(done.stdout))
    assert {m for m in loaded if not m.startswith("tui.ui.table")} <= SHARED | PARENTS
