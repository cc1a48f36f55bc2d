"""Hard edges of `roost action` and `roost outbox`, against the demo network on loopback.

A slow ``pattern`` in the deployment's contract does not hang a dry run; an action whose sender
was killed is settled by `roost outbox` as the dashboard settles it; a rejected action can be
sent again, changed, as a new entry.
"""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest

from tests.functional.test_cli_actions import (  # noqa: F401 (platform: a fixture)
    REGISTER,
    ROOT,
    _until,
    entries,
    kill_while_sending,
    platform,
    run,
)
from tui.actions.outbox import Outbox, outbox_root
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


# --- an action whose sender was killed ---------------------------------------------------------


def _outbox(info) -> Outbox:
    return Outbox.for_service(info.write_url, info.repo, root=outbox_root())


@pytest.mark.slow
def test_roost_outbox_settles_an_action_killed_while_sending(capsys, platform):  # noqa: F811
    """`kill -9` of `action submit` after the platform made the issue: `roost outbox` finds it
    by its nonce (nothing is sent again) instead of showing "sending" for ever."""
    info, sandbox = platform
    entry = kill_while_sending(info, sandbox)
    code, out, err = run(capsys, "outbox")
    assert code == 0
    assert f"{entry['id']} (register_agent) was interrupted while sending; found on the " in err
    assert "as #1: nothing was sent again" in err
    assert "sending" not in out.split(":", 1)[0] and "#1: register_agent" in out
    assert len(sandbox.issues) == 1
    _until(lambda: sandbox.paths("POST"))  # the killed request's answer, for a quiet shutdown
    assert len(sandbox.issues) == 1


def _interrupted_before_it_left(info) -> str:
    """An entry saved as "sending" by a roost killed before its request left."""
    outbox = _outbox(info)
    entry = outbox.draft("register_agent", {"name": "D", "framework": "py", "bio": "b"})
    entry.state, entry.maybe_sent = "sending", True
    outbox.save(entry)
    return entry.id


def test_outbox_follow_settles_then_follows_an_interrupted_action(capsys, platform):  # noqa: F811
    """Killed before the request left: the platform shows nothing with its nonce, so it is sent
    now (once), then followed to its verdict like any other."""
    info, sandbox = platform
    entry_id = _interrupted_before_it_left(info)
    code, out, err = run(capsys, "outbox", "follow", entry_id[:12])
    assert code == 0, err
    assert "the platform had nothing with its nonce, so it was sent now (queued #1)" in err
    assert out.startswith("applied #1: register_agent")
    assert len(sandbox.issues) == 1


def test_an_action_another_roost_is_sending_is_left_to_it(capsys, platform):  # noqa: F811
    info, sandbox = platform
    entry_id = _interrupted_before_it_left(info)
    with _outbox(info).locked(entry_id):  # a live sender holds it
        code, out, err = run(capsys, "outbox", "follow", entry_id)
        assert code == 4
        assert f"{entry_id} is being sent by another roost right now" in err
        code, out, _ = run(capsys, "outbox")
    assert code == 0 and out.startswith("sending: register_agent")
    assert sandbox.issues == [] and sandbox.paths("POST") == []


def test_without_a_token_an_interrupted_action_says_what_it_needs(
    capsys,
    platform,  # noqa: F811
    monkeypatch,
    tmp_path,
):
    info, sandbox = platform
    entry_id = _interrupted_before_it_left(info)
    monkeypatch.delenv("ROOST_TOKEN")
    monkeypatch.setenv("PATH", str(tmp_path))  # no `gh` to ask
    code, out, err = run(capsys, "outbox", "follow", entry_id)
    assert code == 4
    assert "was interrupted while sending and may be on the platform" in err
    assert "looking it up needs a token (no token: set ROOST_TOKEN" in err
    assert _outbox(info).load(entry_id).state == "sending"  # never "failed: no token"
    assert sandbox.issues == []


# --- sending a rejected action again --------------------------------------------------------


def _an_agent(info) -> str:
    agents = httpx.get(f"{info.read_url}/state/agents.json").json()["agents"]
    return next(agent for agent in agents if agent != "demo-agent")


def test_a_rejected_action_is_sent_again_as_a_new_entry_once_its_cause_is_fixed(
    capsys,
    platform,  # noqa: F811
):
    info, sandbox = platform
    code, out, _ = run(capsys, "action", "submit", "register_agent", *REGISTER, "--wait")
    assert code == 0 and out.startswith("applied #1")
    (registered,) = entries(info)
    code, out, _ = run(capsys, "action", "submit", "poke", "-f", "target_agent=nobody", "--wait")
    assert code == 1 and out.startswith("rejected #2") and "'nobody' is not registered" in out
    (old,) = [e for e in entries(info) if e["id"] != registered["id"]]
    folder = _outbox(info).folder
    kept = (folder / f"{old['id']}.json").read_bytes()
    code, _, err = run(capsys, "outbox", "retry", old["id"])
    assert code == 1 and "a retry would be rejected the same way" in err
    assert f"`roost outbox resend {old['id']} -f K=V` sends a copy" in err

    agent = _an_agent(info)
    code, out, err = run(
        capsys, "outbox", "resend", old["id"], "-f", f"target_agent={agent}",
        "-f", "message=Found you", "--wait",
    )  # fmt: skip
    assert code == 0 and out.startswith("applied #3: poke"), out
    assert f"sending a copy of {old['id']} as a new action" in err
    (copy,) = [e for e in entries(info) if e["id"] not in (registered["id"], old["id"])]
    assert copy["nonce"] != old["nonce"] and copy["state"] == "applied"
    assert copy["payload"] == {"target_agent": agent, "message": "Found you"}
    assert (folder / f"{old['id']}.json").read_bytes() == kept  # left as it was
    assert len(sandbox.issues) == 3


def test_a_copy_is_checked_as_a_new_action_is(capsys, platform):  # noqa: F811
    info, sandbox = platform
    run(capsys, "action", "submit", "poke", "-f", "target_agent=nobody", "--wait")
    (old,) = entries(info)
    code, _, err = run(capsys, "outbox", "resend", old["id"], "-f", "message=" + "m" * 281)
    assert code == 2 and "poke: message: is too long (281 characters; at most 280)" in err
    assert f"nothing was sent; {old['id']} is left as it was" in err
    code, _, err = run(capsys, "outbox", "resend", old["id"], "--unset", "target_agent")
    assert code == 2 and "poke: target_agent: is required" in err
    code, _, err = run(capsys, "outbox", "resend", old["id"], "--unset", "colour")
    assert code == 2 and "--unset colour: " in err and "has no such field" in err
    code, out, _ = run(capsys, "outbox", "resend", old["id"], "--dry-run")
    request = json.loads(out)
    assert code == 0 and '"target_agent": "nobody"' in request["json"]["body"]
    assert old["nonce"] not in request["json"]["body"]  # a new nonce
    assert len(entries(info)) == 1 and len(sandbox.issues) == 1
    with pytest.raises(SystemExit) as usage:
        run(capsys, "outbox", "list", "-f", "message=x")
    assert usage.value.code == 2
    assert "-f/--field: only with `outbox resend ID`" in capsys.readouterr().err


def test_an_action_that_may_be_on_the_platform_is_not_copied(capsys, platform):  # noqa: F811
    info, sandbox = platform
    entry_id = _interrupted_before_it_left(info)
    code, _, err = run(capsys, "outbox", "resend", entry_id)
    assert code == 2 and "may already be on the platform" in err
    assert "a retry looks it up first" in err and f"(`roost outbox retry {entry_id}`)" in err
    assert len(entries(info)) == 1 and sandbox.issues == []
