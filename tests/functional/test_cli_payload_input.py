"""What `roost action submit` takes as a payload: every bad input is a usage error (exit 2)
with a clear message and nothing sent — standard input closed, a file nested 100,000 deep, a
field or key given twice.

The demo network runs in-process; ``--dry-run`` keeps every case from sending.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui.cli import main

ROOT = Path(__file__).resolve().parents[2]
SUBMIT = ("action", "submit", "heartbeat", "--dry-run")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_standard_input_closed_is_a_usage_error():
    """`--payload-file -` with fd 0 closed (the interpreter then has no ``sys.stdin``)."""
    result = subprocess.run(
        [sys.executable, "-m", "tui.cli", *SUBMIT, "--payload-file", "-"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        preexec_fn=lambda: os.close(0),
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        "roost: --payload-file -: standard input is closed; pipe the JSON in, or name a file\n"
    )
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"a":' * 100_000 + "1" + "}" * 100_000, "the payload file is nested more than 64"),
        ("[" * 100_000 + "]" * 100_000, "the payload file is nested more than 64"),
        (b'{"status_message": "\xff"}', "the payload file is not UTF-8 text"),
        ("", "the payload file is empty"),
        ('{"status_message": "x"', "the payload file is not JSON (line 1"),
        (b"{" + b" " * (1 << 20) + b"}", "the payload file is larger than 1 MiB"),
    ],
    ids=["objects", "arrays", "not-utf8", "empty", "truncated", "huge"],
)
def test_a_payload_file_that_is_not_a_payload_is_a_usage_error(capsys, tmp_path, content, said):
    path = tmp_path / "payload.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, out, err = run(capsys, *SUBMIT, "--payload-file", str(path))
    assert code == 2 and out == "" and err.startswith(f"roost: {said}")
    assert len(err.splitlines()) == 1


def test_a_payload_file_on_standard_input_is_read(capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"status_message": "hi"}')))
    code, out, _ = run(capsys, *SUBMIT, "--payload-file", "-")
    assert code == 0 and '"status_message": "hi"' in json.loads(out)["json"]["body"]


def test_a_field_given_twice_is_refused_naming_it(capsys):
    argv = ("action", "submit", "poke", "-f", "target_agent=a", "-f", "target_agent=b")
    code, out, err = run(capsys, *argv, "--dry-run")
    assert code == 2 and out == ""
    assert err == 'roost: --field target_agent is given twice ("a", then "b"): give it once\n'


@pytest.mark.parametrize(
    "content",
    ['{"target_agent": "a", "target_agent": "b"}', '{"x": {"target_agent": 1, "target_agent": 2}}'],
    ids=["top", "nested"],
)
def test_a_payload_file_naming_a_key_twice_is_refused_naming_it(capsys, tmp_path, content):
    path = tmp_path / "payload.json"
    path.write_text(content)
    code, out, err = run(capsys, "action", "submit", "poke", "--payload-file", str(path))
    assert code == 2 and out == ""
    assert err == "roost: the payload file names 'target_agent' twice: give it once\n"


def test_a_field_overrides_the_payload_files_value(capsys, tmp_path):
    path = tmp_path / "payload.json"
    path.write_text('{"target_agent": "from-file"}')
    argv = ("action", "submit", "poke", "--payload-file", str(path), "-f", "target_agent=b")
    code, out, _ = run(capsys, *argv, "--dry-run")
    assert code == 0 and '"target_agent": "b"' in json.loads(out)["json"]["body"]
