"""Hard edges of `roost action` and `roost outbox`, against the demo network on loopback.

A slow ``pattern`` in the deployment's contract does not hang a dry run; an action whose sender
was killed is settled by `roost outbox` as the dashboard settles it; a rejected action can be
sent again, changed, as a new entry.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.functional.test_cli_actions import ROOT, platform, run  # noqa: F401 (a fixture)
from tui.sandbox.deployment import skill_document

#: The issue's naive pattern: endless under ``re`` on a long word and a ``!``.
NAIVE = r"^(\w+\s?)*$"
#: Slow under any backtracking engine.
SLOW = r"^(\w|\w\w)+$"


def _with_bio_pattern(info, sandbox, pattern: str) -> None:
    document = skill_document(info.read_url, info.owner, info.repo_name)
    payload = document["actions"]["register_agent"]["payload"]["properties"]["payload"]
    payload["properties"]["bio"]["pattern"] = pattern
    sandbox.skill_override = document


def _dry_run(bio: str) -> subprocess.CompletedProcess:
    argv = ["action", "submit", "register_agent", "-f", "name=N", "-f", "framework=py"]
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv, "-f", f"bio={bio}", "--dry-run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,  # under re: endless
    )


def test_the_naive_pattern_no_longer_hangs_the_dry_run_and_still_refuses(platform):  # noqa: F811
    """``^(\\w+\\s?)*$`` on a bio of letters and a ``!`` hung the dry run for good."""
    info, sandbox = platform
    _with_bio_pattern(info, sandbox, NAIVE)
    done = _dry_run("a" * 499 + "!")
    assert done.returncode == 2
    assert "bio: has an invalid format" in done.stderr and "too slow" not in done.stderr


def test_a_slow_pattern_is_reported_once_and_the_dry_run_ends(platform):  # noqa: F811
    """A pattern no engine settles quickly gives up within its budget, is said to be too slow
    once, and the request is printed (the deployment still checks it)."""
    info, sandbox = platform
    _with_bio_pattern(info, sandbox, SLOW)
    done = _dry_run("a" * 200 + "!")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["json"]["title"] == "register_agent"
    said = "register_agent: bio: pattern too slow to check: not enforced here"
    assert done.stderr.count(said) == 1
    assert sandbox.paths("POST") == []


def test_a_pattern_that_can_be_checked_still_refuses(capsys, platform):  # noqa: F811
    info, sandbox = platform
    _with_bio_pattern(info, sandbox, SLOW)
    code, _, err = run(
        capsys, "action", "submit", "register_agent", "-f", "name=N", "-f", "framework=py",
        "-f", "bio=short!", "--dry-run",
    )  # fmt: skip
    assert code == 2 and "bio: has an invalid format" in err and "too slow" not in err
