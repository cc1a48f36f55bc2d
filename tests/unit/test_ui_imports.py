"""The layers, drawn from the imports: the headless core never loads Textual, the UI never
loads the demo network, and widgets and screens never reach for the app."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tui

ROOT = Path(tui.__file__).resolve().parent
UI = ROOT / "ui"
UI_MODULES = sorted(UI.rglob("*.py"))
SCREENS_AND_WIDGETS = sorted([*(UI / "widgets").rglob("*.py"), *(UI / "screens").rglob("*.py")])
CORE_MODULES = sorted(p for p in ROOT.rglob("*.py") if UI not in p.parents)
#: The UI entry points a command imports when it runs (never at import time).
DOORS = {
    "commands/dashboard.py": {
        "tui.ui.app",
        "tui.ui.app.run_tui",
        "tui.ui.keymap",
        "tui.ui.keymap.checked_keymap",
        "tui.ui.themes",
        "tui.ui.themes.checked_themes",
    },
    "commands/keys.py": {
        "tui.ui.keymap",
        "tui.ui.keymap.key_label",
        "tui.ui.keymap.binding_catalog",
        "tui.ui.keymap.checked_keymap",
    },
    "commands/eggs.py": {
        "tui.ui.screens.boots.inspector_app",
        "tui.ui.screens.boots.inspector_app.InspectorApp",
    },
}
REACHING = re.compile(r"getattr\(\s*self\.app\b|self\.app\._")
#: Every package and module of the headless core (everything but ``tui.ui``).
CORE_PACKAGES = sorted(
    {
        "tui." + ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in CORE_MODULES
        if p.name != "__main__.py"
    }
)


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


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", SCREENS_AND_WIDGETS, ids=_rel)
def test_no_widget_or_screen_imports_the_app(path):
    assert not {n for n in imported(path) if n == "tui.ui.app" or n.startswith("tui.ui.app.")}


@pytest.mark.parametrize("path", SCREENS_AND_WIDGETS, ids=_rel)
def test_no_widget_or_screen_reads_the_app_by_name(path):
    assert not REACHING.search(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", UI_MODULES, ids=_rel)
def test_nothing_in_the_ui_imports_the_demo_network(path):
    assert not {n for n in imported(path) if n == "tui.sandbox" or n.startswith("tui.sandbox.")}


@pytest.mark.parametrize("path", CORE_MODULES, ids=_rel)
def test_the_core_names_no_textual_rich_or_ui_module(path):
    """Outside ``tui/ui`` no module imports Textual, Rich or the UI, even lazily — but for
    the doors: the commands that start a Textual app import it when they run."""
    names = imported(path) - DOORS.get(_rel(path), set())
    assert not {n for n in names if n.split(".")[0] in ("textual", "rich")}
    assert not {n for n in names if n == "tui.ui" or n.startswith("tui.ui.")}


def test_importing_every_core_package_loads_no_textual():
    """The same rule as the process sees it: import the whole core, then look at sys.modules.
    (Rich may be there: httpx loads it for its own command line when click is installed.)"""
    script = (
        "import importlib, json, sys\n"
        f"for name in {CORE_PACKAGES!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules\n"
        "    if m.split('.')[0] == 'textual' or m.startswith('tui.ui'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(done.stdout) == []
