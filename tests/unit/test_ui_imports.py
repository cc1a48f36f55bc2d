"""The layers as the process and the source show them, beyond what the import-linter contracts
(pyproject.toml, tests/unit/test_import_contracts.py) can say: importing the whole core loads no
Textual, even through ``importlib``; and widgets and screens never reach for the app's attributes
by name."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tui

ROOT = Path(tui.__file__).resolve().parent
UI = ROOT / "ui"
SCREENS_AND_WIDGETS = sorted([*(UI / "widgets").rglob("*.py"), *(UI / "screens").rglob("*.py")])
CORE_MODULES = sorted(p for p in ROOT.rglob("*.py") if UI not in p.parents)
REACHING = re.compile(r"getattr\(\s*self\.app\b|self\.app\._")
#: Every package and module of the headless core (everything but ``tui.ui``).
CORE_PACKAGES = sorted(
    {
        "tui." + ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in CORE_MODULES
        if p.name != "__main__.py"
    }
)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", SCREENS_AND_WIDGETS, ids=_rel)
def test_no_widget_or_screen_reads_the_app_by_name(path):
    assert not REACHING.search(path.read_text(encoding="utf-8"))


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
