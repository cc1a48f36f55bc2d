"""Rules of the house a reader relies on: no module too long to hold in one's head, and a verifier
a reviewer can trust at a glance: the egg package starts no thread, pool or lock of its own (its
blocking steps leave the event loop only through ``asyncio.to_thread``, one call at a time)."""

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
