"""Rules of the house a reader relies on: no module too long to hold in one's head, and a verifier
a reviewer can trust at a glance: the egg package starts no thread, pool or lock of its own (its
blocking steps leave the event loop only through ``asyncio.to_thread``, one call at a time); and
one home for styles."""

from __future__ import annotations

import ast
from pathlib import Path

import tui

ROOT = Path(tui.__file__).resolve().parent
LONGEST = 800
CONCURRENCY = {"threading", "concurrent", "concurrent.futures", "multiprocessing", "_thread"}
LOCKS = {"ThreadPoolExecutor", "Thread"}  # a lock of threads needs `threading`, refused above


def test_no_module_is_over_800_lines():
    long = {
        str(path.relative_to(ROOT)): n
        for path in ROOT.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST
    }
    assert not long, f"split these modules (at most {LONGEST} lines each): {long}"


def test_the_egg_package_uses_no_thread_pool_or_lock():
    found = []
    for path in sorted((ROOT / "eggs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Attribute) and node.attr in LOCKS:
                names = [node.attr]
            found += [f"{path.name}: {name}" for name in names if name in CONCURRENCY | LOCKS]
    assert not found


def test_every_stylesheet_is_in_the_styles_folder():
    """One home for styles: the top-level ``styles/`` (inside the wheel: ``tui/styles``)."""
    strays = [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.tcss")
        if (ROOT / "styles") not in path.parents
    ]
    assert not strays, f"move these into styles/: {strays}"


def test_only_the_table_engine_carries_default_css():
    """A widget's look is in ``styles/*.tcss``; the table engine (tui/ui/table), meant to stand
    alone, keeps its own ``DEFAULT_CSS``."""
    engine = ROOT / "ui" / "table"
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if engine in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign):
                targets = [node.target]
            if any(isinstance(t, ast.Name) and t.id == "DEFAULT_CSS" for t in targets):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"move this CSS into styles/*.tcss: {found}"
