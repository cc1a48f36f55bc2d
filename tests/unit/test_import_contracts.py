"""The layers are import-linter contracts (``[tool.importlinter]`` in pyproject.toml): the core
imports no UI module, nothing outside ``tui/ui`` imports Textual or Rich, the UI never imports
the demo network, widgets and screens never import the app, and the table engine stands alone
without a circle. The default suite runs ``lint-imports`` so a broken contract fails here."""

from __future__ import annotations

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
