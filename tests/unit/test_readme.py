"""The README opens with the two commands a user copies, stays short, and its links resolve."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

INSTALL_AND_DEMO = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/roost demo"
INSTALL_AND_TEST = (
    "python3 -m venv .venv && .venv/bin/pip install '.[dev]' && .venv/bin/python -m pytest -n auto"
)


def test_it_opens_with_exactly_the_two_commands():
    text = README.read_text(encoding="utf-8")
    title, rest = text.split("\n", 1)
    assert title.startswith("# ")
    first_block = rest.lstrip("\n").split("```", 2)
    assert rest.lstrip("\n").startswith("```sh\n")
    assert first_block[1] == f"sh\n{INSTALL_AND_DEMO}\n{INSTALL_AND_TEST}\n"


def test_ci_runs_the_second_command_of_it():
    """.ci/run takes its test command from the README: the same awk, the same line."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    program = re.search(r"cmd=\$\(awk '([^']+)' README.md\)", ci)
    assert program, "the awk that reads the README's test command moved"
    found = subprocess.run(
        ["awk", program.group(1), str(README)], capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == INSTALL_AND_TEST


def test_it_is_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 350


def test_every_local_link_and_image_exists():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if not re.match(r"[a-z]+://", t)]
    assert "docs/performance.md" in local and any(t.startswith("screenshots/") for t in local)
    for target in local:
        assert (ROOT / target).exists(), target
