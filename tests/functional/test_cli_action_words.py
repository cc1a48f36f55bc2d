"""What `roost action submit` and `roost outbox` say at their edges, against the demo network on
loopback: an id the network's state does not hold (a warning on stderr, from the form's own
check), ``ctrl+c`` during ``--wait``, and the ids `roost outbox` shows."""

from __future__ import annotations

import json

import httpx

from tests.functional.test_cli_actions import (  # noqa: F401 (platform: a fixture)
    REGISTER,
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
