"""The layers are import-linter contracts (``[tool.importlinter]`` in pyproject.toml): the core
imports no UI module, nothing outside ``tui/ui`` imports Textual or Rich, the UI never imports
the demo network, widgets and screens never import the app, and the table engine stands alone
without a circle. The default suite runs ``lint-imports`` so a broken contract fails here; and
an import inside a function says why it is there."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_import_contract_is_kept():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint_imports), "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def _reasonless_imports_in_functions(path: Path) -> list[int]:
    """Lines of the imports inside functions of ``path`` that give no reason: a comment on the
    statement, or on the line just above the run of imports it belongs to."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    spans: dict[int, int] = {}
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(function):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    spans[node.lineno] = node.end_lineno or node.lineno
    ends = {end: start for start, end in spans.items()}
    missing = []
    for start, end in sorted(spans.items()):
        if any("#" in lines[i - 1] for i in range(start, end + 1)):
            continue
        first = start
        while first - 1 in ends:  # the run of imports this one closes
            first = ends[first - 1]
        if not lines[first - 2].strip().startswith("#"):
            missing.append(start)
    return missing


def test_every_import_inside_a_function_says_why():
    """An import belongs at the top of its module; one inside a function is there for a reason
    (kept off the start path, or a module that imports this one) and says it."""
    package = ROOT / "tui"
    missing = {
        str(path.relative_to(ROOT)): lines
        for path in sorted(package.rglob("*.py"))
        if (lines := _reasonless_imports_in_functions(path))
    }
    assert missing == {}


def test_the_reason_check_sees_an_import_without_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f():\n"
        "    # deferred: off the start path\n"
        "    import json\n"
        "    import csv\n"
        "\n"
        "    import re\n"
        "    return json, csv, re\n",
        encoding="utf-8",
    )
    assert _reasonless_imports_in_functions(sample) == [6]
