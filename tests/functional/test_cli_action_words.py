"""What `roost action submit` and `roost outbox` say at their edges, against the demo network on
loopback: an id the network's state does not hold (a warning on stderr, from the form's own
check), ``ctrl+c`` during ``--wait``, and the ids `roost outbox` shows."""

from __future__ import annotations

import json
import signal

import httpx

from tests.functional.test_cli_actions import (  # noqa: F401 (platform: a fixture)
    REGISTER,
    _cli,
    _until,
    entries,
    platform,
    run,
)

STATE_WARNING = "not an agent in this network's state"


def _an_agent(info) -> str:
    agents = httpx.get(f"{info.read_url.rstrip('/')}/state/agents.json").json()["agents"]
    return sorted(agents)[0]


def test_an_unknown_agent_is_warned_of_and_the_dry_run_goes_on(capsys, platform):  # noqa: F811
    info, _sandbox = platform
    code, out, err = run(
        capsys, "action", "submit", "poke", "-f", "target_agent=nobody-at-all", "--dry-run"
    )
    assert code == 0
    assert json.loads(out)["json"]["title"] == "poke"  # stdout is still the request alone
    assert f"warning: poke: target_agent: {STATE_WARNING}" in err
    assert "the state can lag" in err
    code, _out, err = run(
        capsys, "action", "submit", "poke", "-f", f"target_agent={_an_agent(info)}", "--dry-run"
    )
    assert code == 0 and "warning" not in err


def test_a_channel_list_and_a_real_send_are_checked_too(capsys, platform):  # noqa: F811
    _info, sandbox = platform
    code, _out, err = run(
        capsys,
        "action",
        "submit",
        "heartbeat",
        "-f",
        "subscribed_channels=general,not-a-channel,nor-this",
        "--dry-run",
    )
    assert code == 0
    assert (
        "warning: heartbeat: subscribed_channels: "
        "not channels in this network's state: not-a-channel, nor-this"
    ) in err
    code, out, err = run(capsys, "action", "submit", "poke", "-f", "target_agent=nobody-at-all")
    assert code == 0 and out.startswith("queued #")  # a warning, never a refusal
    assert STATE_WARNING in err and "not a refusal" in err
    assert len(sandbox.issues) == 1


# ------------------------------------------------------------------------- ctrl+c while waiting


def test_ctrl_c_while_waiting_says_the_action_was_sent_and_how_to_follow_it(platform):  # noqa: F811
    info, sandbox = platform
    sandbox.faults.update({"process_delay": 600})  # the verdict never comes while we wait
    proc = _cli("action", "submit", "register_agent", *REGISTER, "--wait")
    try:
        _until(lambda: [e["state"] for e in entries(info)] == ["queued"])
        _until(lambda: any(r.method == "GET" and "/issues/1" in r.path for r in sandbox.requests))
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    (entry,) = entries(info)
    assert proc.returncode == 130
    assert f"register_agent was sent: #1 (queued) [{entry['id']}]" in err
    assert f"`roost outbox follow {entry['id']}` waits for its verdict" in err
    assert "Traceback" not in err


def test_ctrl_c_while_sending_says_it_may_be_there_and_how_to_settle_it(platform):  # noqa: F811
    info, sandbox = platform
    sandbox.faults.update({"write_latency": 5})  # made at once, answered seconds later
    proc = _cli("action", "submit", "register_agent", *REGISTER, "--wait")
    try:
        _until(lambda: len(sandbox.issues) == 1)
    finally:
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
    sandbox.faults.update({"write_latency": 0})
    (entry,) = entries(info)
    assert proc.returncode == 130 and "Traceback" not in err
    assert f"interrupted while sending register_agent [{entry['id']}]" in err
    assert f"`roost outbox retry {entry['id']}` looks it up first" in err


# ------------------------------------------------------------------------- outbox ids


def test_an_ambiguous_id_lists_the_matches_and_the_short_id_works(capsys, platform):  # noqa: F811
    info, _sandbox = platform
    for _ in range(2):
        code, _out, _err = run(capsys, "action", "submit", "heartbeat")
        assert code == 0
    first, second = sorted(entries(info), key=lambda e: e["id"])
    shared = first["id"][:4]  # the year: both start with it
    code, out, err = run(capsys, "outbox", "show", shared, "--no-follow")
    assert code == 2 and out == ""
    assert f"{shared!r} matches 2 outbox entries" in err
    for entry in (first, second):
        assert f"{entry['id']}  queued #{entry['number']}: heartbeat" in err
    short = second["id"].rsplit("-", 1)[1]  # the part after the time: what tells them apart
    code, out, _err = run(capsys, "outbox", "show", short, "--no-follow")
    assert code == 0 and f"[{second['id']}]" in out
    code, out, _err = run(capsys, "outbox", "show", f"[{first['id']}]", "--no-follow")
    assert code == 0 and f"[{first['id']}]" in out  # pasted with its brackets
    code, out, err = run(capsys, "outbox", "show", "nothing-like-it")
    assert code == 2 and "no outbox entry matches 'nothing-like-it'" in err
