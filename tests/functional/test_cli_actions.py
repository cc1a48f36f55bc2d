"""`roost action`, `roost outbox`, `roost whoami` against the demo network on loopback.

Exit codes, the exact request of a dry run, a kill -9 while sending, two processes sharing one
outbox, and the token's reach: never in output, outbox files, or requests to the read URL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.damaged_outbox import GOOD_ID, plant_damage
from tests.hostile_server import HostileServer, json_ok, status
from tests.signals_rig import sigint_as_from_a_terminal
from tui.actions.outbox import Outbox, outbox_root
from tui.cli import main
from tui.sandbox.server import running_sandbox

TOKEN = "ghp_functionalSECRETtoken987"
REGISTER = ["-f", "name=Demo", "-f", "framework=python", "-f", "bio=Hello there."]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def platform(monkeypatch):
    with running_sandbox(agents=30, tokens={TOKEN: "demo-agent"}) as (info, app):
        monkeypatch.setenv("ROOST_READ_URL", info.read_url)
        monkeypatch.setenv("ROOST_WRITE_URL", info.write_url)
        monkeypatch.setenv("ROOST_REPO", info.repo)
        monkeypatch.setenv("ROOST_TOKEN", TOKEN)
        yield info, app.state.sandbox


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert TOKEN not in out and TOKEN not in err
    return code, out, err


def entries(info) -> list[dict]:
    folder = Outbox.for_service(info.write_url, info.repo, root=outbox_root()).folder
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def test_action_list_and_show(capsys):
    """The demo deployment publishes its contract: every action comes from it, posts and
    comments as Discussions, and `show` gives each field's rules and where they came from."""
    code, out, _ = run(capsys, "action", "list", "--json")
    listed = {a["name"]: a for a in json.loads(out)}
    answers = {"comment", "reply", "react"}
    assert code == 0 and {"register_agent", "submit_media", "run_python"} | answers <= set(listed)
    assert len(listed) == 25
    assert {a["source"] for a in listed.values()} == {"skill.json"}
    assert [listed[n]["method"] for n in ("create_post", "comment", "reply", "react")] == [
        "discussion",
        "discussion_comment",
        "discussion_comment",
        "discussion_reaction",
    ]
    code, out, _ = run(capsys, "action", "list")
    assert "create_post" in out and "[skill.json, a Discussion]" in out
    code, out, _ = run(capsys, "action", "show", "submit-media")
    assert code == 0 and "source_url" in out and "required" in out and "[skill.json]" in out
    code, out, _ = run(capsys, "action", "show", "run_python")
    assert "1..120, default 30" in out and "≤65536 chars" in out
    code, _, err = run(capsys, "action", "show", "no_such_action")
    assert code == 2 and "unknown action" in err


def test_without_a_contract_the_built_in_catalog_and_the_seeds_post_issue(capsys, platform):
    info, sandbox = platform
    sandbox.faults.update({"no_skill": True})
    code, out, _ = run(capsys, "action", "list", "--json")
    listed = {a["name"]: a for a in json.loads(out)}
    assert {a["source"] for a in listed.values()} == {"built-in"}
    assert listed["create_post"]["method"] == "issue" and "comment" not in listed


def test_an_action_only_the_deployments_contract_knows_is_sent(capsys, platform):
    """A skill.json that adds an action roost has never seen: `show` describes it and
    `submit` validates it by the contract's rules and sends it, with no change to roost."""
    info, sandbox = platform
    sandbox.skill_override = {
        "actions": {
            "send_gift": {
                "method": "github_issue",
                "label": "send-gift",
                "description": "Send a gift to another agent.",
                "payload": {
                    "type": "object",
                    "required": ["action", "payload"],
                    "properties": {
                        "action": {"const": "send_gift"},
                        "payload": {
                            "type": "object",
                            "required": ["target_agent", "gift"],
                            "properties": {
                                "target_agent": {"type": "string"},
                                "gift": {"type": "string", "enum": ["tea", "cake"]},
                                "note": {"type": "string", "maxLength": 20},
                                "wrapped": {"type": "boolean", "multipleOf": 2},
                            },
                        },
                    },
                },
            }
        }
    }
    code, out, err = run(capsys, "action", "show", "send_gift")
    assert code == 0 and "one of tea|cake" in out and "[skill.json]" in out
    assert "multipleOf" in err  # reported, not enforced
    code, _, err = run(
        capsys,
        "action",
        "submit",
        "send_gift",
        "-f",
        "target_agent=zion-coder-01",
        "-f",
        "gift=pie",
    )
    assert code == 2 and "gift: must be one of: tea, cake" in err and sandbox.issues == []
    code, out, _ = run(
        capsys,
        "action",
        "submit",
        "send_gift",
        "-f",
        "target_agent=zion-coder-01",
        "-f",
        "gift=tea",
        "-f",
        "wrapped=yes",
    )
    assert code == 0 and out.startswith("queued #1: send_gift")
    (issue,) = sandbox.issues
    assert issue.title == "send_gift" and issue.requested_labels == ["send-gift"]
    fence = json.loads(issue.body.split("```json\n", 1)[1].split("\n```", 1)[0])
    assert fence == {
        "action": "send_gift",
        "payload": {"gift": "tea", "target_agent": "zion-coder-01", "wrapped": True},
    }


def test_config_file_adds_an_action(capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(
        '[actions.wave]\ntitle = "Wave"\ndescription = "Wave at someone."\n'
        '[actions.wave.fields.target_agent]\ntype = "str"\nrequired = true\nhelp = "Who"\n'
    )
    code, out, _ = run(capsys, "action", "show", "wave", "--config", str(config), "--json")
    assert code == 0 and json.loads(out)["fields"][0]["name"] == "target_agent"


def test_validation_error_exits_2_and_sends_nothing(capsys, platform):
    info, sandbox = platform
    code, _, err = run(capsys, "action", "submit", "transfer_karma", "-f", "amount=lots")
    assert code == 2
    assert "target_agent: is required" in err and 'amount: "lots" is not a whole number' in err
    assert sandbox.paths("POST") == [] and entries(info) == []


def test_dry_run_prints_the_exact_request_with_the_token_redacted(capsys, platform):
    info, sandbox = platform
    code, out, _ = run(capsys, "action", "submit", "register_agent", *REGISTER, "--dry-run")
    request = json.loads(out)
    assert code == 0
    assert request["method"] == "POST"
    assert request["url"] == f"{info.write_url}/repos/{info.repo}/issues"
    assert request["headers"]["Authorization"] == "Bearer ***"
    assert request["headers"]["X-GitHub-Api-Version"] == "2022-11-28"
    assert request["json"]["title"] == "register_agent"
    assert request["json"]["labels"] == ["register-agent"]
    assert '"framework": "python"' in request["json"]["body"]
    assert sandbox.paths("POST") == [] and entries(info) == []


def test_submit_wait_is_applied_and_kept_in_the_outbox(capsys, platform):
    info, sandbox = platform
    code, out, _ = run(capsys, "action", "submit", "register_agent", *REGISTER, "--wait")
    assert code == 0 and out.startswith("applied #1: register_agent")
    assert "receipt: applied" in out and "inbox/processed/issue-1.json" in out
    code, out, _ = run(capsys, "outbox", "list", "--json")
    (entry,) = json.loads(out)
    assert (entry["state"], entry["number"], entry["author"]) == ("applied", 1, "demo-agent")
    code, out, _ = run(capsys, "whoami")
    assert code == 0 and "acting as demo-agent" in out and "ROOST_TOKEN" in out


def test_answering_a_post_from_the_command_line(capsys, platform):
    """comment, reply and react are actions like the others: a dry run prints the mutation,
    a comment is followed until the thread shows it, a reaction is sent once."""
    info, sandbox = platform
    number = sandbox.network.doc("trending.json")["trending"][0]["number"]
    post = f"discussion_number={number}"
    code, out, _ = run(capsys, "action", "submit", "react", "-f", post, "-f", "content=HEART",
                       "--dry-run")  # fmt: skip
    request = json.loads(out)
    assert code == 0 and request["url"] == f"{info.write_url}/graphql"
    assert "addReaction" in request["json"]["query"]
    assert request["json"]["variables"] == {
        "subjectId": f"<the id of Discussion #{number}>",
        "content": "HEART",
    }
    code, out, _ = run(capsys, "action", "submit", "reply", "-f", post, "-f", "reply_to=DC_x1",
                       "-f", "body=Quite.", "--dry-run")  # fmt: skip
    assert code == 0 and "replyToId" in json.loads(out)["json"]["query"]
    code, _, err = run(capsys, "action", "submit", "react", "-f", post, "-f", "content=heart")
    assert code == 2 and "content: must be one of: THUMBS_UP" in err
    assert entries(info) == []
    code, out, _ = run(capsys, "action", "submit", "comment", "-f", post, "-f", "body=Hi.",
                       "--wait")  # fmt: skip
    assert code == 0 and out.startswith(f"applied #{number}: comment"), out
    code, out, _ = run(capsys, "action", "submit", "react", "-f", post, "-f", "content=HEART")
    assert code == 0 and out.startswith(f"queued #{number}: react"), out
    talk = sandbox.network.conversation
    assert [(r.login, r.content) for r in talk.reactions if r.number == number] == [
        ("demo-agent", "HEART")
    ]
    assert [c.body for c in talk.comments if c.number == number][0].startswith("Hi.")


def test_rejected_exits_1_with_the_receipts_error_and_hint(capsys, platform):
    code, out, _ = run(capsys, "action", "submit", "poke", "-f", "target_agent=zion-1", "--wait")
    assert code == 1 and out.startswith("rejected #1") and "register_agent first" in out
    assert "error: 'demo-agent' is not a registered agent" in out and "hint: " in out


def test_the_classic_processor_is_followed_to_accepted(capsys, monkeypatch):
    with running_sandbox(agents=30, tokens={TOKEN: "demo-agent"}, processor="classic") as (
        info,
        app,
    ):
        for var, value in (
            ("ROOST_READ_URL", info.read_url),
            ("ROOST_WRITE_URL", info.write_url),
            ("ROOST_REPO", info.repo),
            ("ROOST_TOKEN", TOKEN),
        ):
            monkeypatch.setenv(var, value)
        code, out, _ = run(capsys, "action", "submit", "register_agent", *REGISTER, "--wait")
        assert code == 0 and out.startswith("accepted #1: register_agent")
        assert "processor: ✅ Delta processed successfully" in out


@pytest.mark.slow
def test_a_forged_verdict_from_another_account_is_shown_never_taken(capsys, platform):
    info, sandbox = platform
    sandbox.faults.update({"forge_verdicts": True, "process_delay": 600})
    code, out, _ = run(capsys, "action", "submit", "register_agent", *REGISTER)
    assert code == 0 and out.startswith("queued #1")
    code, out, _ = run(capsys, "outbox", "show", entries(info)[0]["id"])
    assert out.startswith("queued #1")  # not accepted, not applied
    assert "comment by helpful-stranger (not a verdict): ✅ Delta processed" in out


def test_outbox_brings_entries_up_to_date_unless_told_not_to(capsys, platform):
    info, sandbox = platform
    code, out, _ = run(capsys, "action", "submit", "register_agent", *REGISTER)
    assert code == 0 and out.startswith("queued #1")
    code, out, _ = run(capsys, "outbox", "--no-follow")
    assert out.startswith("queued #1")
    code, out, _ = run(capsys, "outbox")
    assert out.startswith("applied #1") and "receipt: applied" in out
    sandbox.faults.update({"process_delay": 600})
    code, out, _ = run(capsys, "action", "submit", "heartbeat")
    (second,) = [e for e in entries(info) if e["action"] == "heartbeat"]
    code, out, _ = run(capsys, "outbox", "follow", second["id"], "--timeout", "1")
    assert code == 4 and out.startswith("queued #2")
    sandbox.process_pending()
    code, out, _ = run(capsys, "outbox", "follow", "--timeout", "30")
    assert code == 0 and out.startswith("applied #2: heartbeat")


@pytest.mark.parametrize(
    ("knobs", "fragment"),
    [
        ({"write_status": 401}, "token was rejected"),
        ({"write_status": 403, "write_variant": "scope"}, "missing scope"),
        ({"write_status": 404}, "not found"),
        ({"write_status": 410}, "issues are disabled"),
        ({"write_status": 422}, "body: body is invalid"),
    ],
)
def test_refusals_exit_1_with_the_reason(capsys, platform, knobs, fragment):
    info, sandbox = platform
    sandbox.faults.update(knobs)
    code, out, _ = run(capsys, "action", "submit", "heartbeat")
    assert code == 1 and out.startswith("failed: heartbeat") and fragment in out
    assert sandbox.issues == []


def test_label_dropped_is_a_notice(capsys, platform):
    info, sandbox = platform
    sandbox.faults.update({"drop_labels": True})
    code, out, _ = run(capsys, "action", "submit", "register_agent", *REGISTER)
    assert code == 0 and "notice: label register-agent was dropped" in out


def test_5xx_after_recording_is_found_without_a_second_issue(capsys, platform):
    info, sandbox = platform
    sandbox.faults.update({"write_status": 502})
    code, out, _ = run(capsys, "action", "submit", "register_agent", *REGISTER)
    # the sandbox refuses a 502 before recording: the retry creates exactly one issue
    assert code == 0 and out.startswith("queued #1") and len(sandbox.issues) == 1


def service_env(monkeypatch, read_url: str, write_url: str) -> None:
    for var, value in (
        ("ROOST_READ_URL", read_url),
        ("ROOST_WRITE_URL", write_url),
        ("ROOST_REPO", "o/r"),
        ("ROOST_TOKEN", TOKEN),
    ):
        monkeypatch.setenv(var, value)


def test_unreachable_exits_3(capsys, monkeypatch):
    service_env(monkeypatch, "http://127.0.0.1:9", "http://127.0.0.1:9")
    code, out, _ = run(capsys, "action", "submit", "heartbeat")
    assert code == 3 and "cannot reach" in out


def test_plain_http_to_a_remote_host_is_refused(capsys, monkeypatch):
    service_env(monkeypatch, "https://raw.example.test", "http://api.example.test")
    code, _, err = run(capsys, "action", "submit", "heartbeat")
    assert code == 2 and "plain http" in err


def test_demo_network_in_process_without_settings(capsys):
    """The README's example, as written: the demo world's account is a registered agent, and
    the next command sees the same world and the same outbox."""
    code, out, _ = run(
        capsys, "action", "submit", "poke", "-f", "target_agent=zion-coder-02", "--wait"
    )
    assert code == 0 and out.startswith("applied #1: poke")
    code, out, _ = run(capsys, "outbox")
    assert out.startswith("applied #1: poke")
    code, out, _ = run(capsys, "action", "submit", "heartbeat", "--wait")
    assert code == 0 and out.startswith("applied #2: heartbeat")


def test_write_settings_without_a_read_url_are_a_usage_error(capsys, monkeypatch):
    monkeypatch.setenv("ROOST_TOKEN", TOKEN)
    monkeypatch.setenv("ROOST_WRITE_URL", "https://api.example.test")
    monkeypatch.setenv("ROOST_REPO", "o/r")
    code, out, err = run(capsys, "action", "submit", "heartbeat")
    assert code == 2 and out == ""
    assert "ROOST_WRITE_URL" in err and "ROOST_REPO" in err and "ROOST_TOKEN" in err
    assert "--read-url" in err
    code, _, err = run(capsys, "outbox", "--repo", "o/r")
    monkeypatch.delenv("ROOST_REPO")
    monkeypatch.delenv("ROOST_WRITE_URL")
    monkeypatch.delenv("ROOST_TOKEN")
    assert code == 2 and "--repo" in err
    monkeypatch.setenv("GH_TOKEN", TOKEN)  # set for every GitHub tool: not a roost setting
    code, out, _ = run(capsys, "action", "submit", "heartbeat", "--dry-run")
    assert code == 0 and "demo.roost.invalid" in out


def _cli(*argv: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tui.cli", *argv],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
        preexec_fn=sigint_as_from_a_terminal,  # a test sends it ctrl+c
    )


def _until(predicate, limit: float = 60.0) -> None:
    end = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("the condition never came true")
        time.sleep(0.01)


def kill_while_sending(info, sandbox) -> dict:
    """`roost action submit` killed (-9) once the platform made its issue, before it answered:
    the entry it leaves."""
    sandbox.faults.update({"write_latency": 5})  # created at once, answered seconds later
    proc = _cli("action", "submit", "register_agent", *REGISTER)
    try:
        _until(
            lambda: len(sandbox.issues) == 1 and [e["state"] for e in entries(info)] == ["sending"]
        )
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
    sandbox.faults.update({"write_latency": 0})
    (entry,) = entries(info)
    return entry


@pytest.mark.slow
def test_kill_during_send_keeps_the_entry_and_resolves_it_without_a_duplicate(capsys, platform):
    info, sandbox = platform
    entry = kill_while_sending(info, sandbox)
    assert entry["state"] == "sending"
    code, out, _ = run(capsys, "outbox", "retry", entry["id"][:12])
    assert code == 0 and out.startswith("queued #1")
    assert len(sandbox.issues) == 1
    assert sandbox.paths("POST") == []  # the retry looked the issue up and sent nothing
    _until(lambda: sandbox.paths("POST"))  # the killed request's answer, for a quiet shutdown
    assert len(sandbox.issues) == 1


def test_two_processes_one_outbox_send_an_entry_once(capsys, platform):
    info, sandbox = platform
    outbox = Outbox.for_service(info.write_url, info.repo, root=outbox_root())
    entry = outbox.draft("register_agent", {"name": "D", "framework": "py", "bio": "b"})
    sandbox.faults.update({"write_latency": 3})
    first = _cli("outbox", "retry", entry.id)
    _until(lambda: outbox.load(entry.id).state == "sending")
    second = _cli("outbox", "retry", entry.id)
    second_out, second_err = second.communicate(timeout=120)
    first_out, _ = first.communicate(timeout=120)
    assert second.returncode == 4 and "being sent by another roost" in second_err
    assert first.returncode == 0 and first_out.startswith("queued #1")
    assert len(sandbox.issues) == 1
    for text in (first_out, second_out, second_err):
        assert TOKEN not in text


def test_the_token_reaches_only_the_write_interface(capsys, platform, caplog):
    info, sandbox = platform
    run(capsys, "state")
    run(capsys, "action", "submit", "register_agent", *REGISTER, "--wait")
    run(capsys, "action", "submit", "heartbeat", "--json")
    run(capsys, "whoami", "--json")
    run(capsys, "outbox", "list", "--json")
    run(capsys, "state")
    reads = [r for r in sandbox.requests if not r.path.startswith("/api")]
    writes = [r for r in sandbox.requests if r.path.startswith("/api")]
    assert reads and writes
    assert {"/skill.json", "/state/manifest.json"} <= {r.path for r in reads}
    assert any(r.path.startswith("/state/inbox/") for r in reads)  # the receipts
    assert all(r.header("authorization") is None for r in reads)
    assert all(r.header("authorization") == "<redacted>" for r in writes)
    assert all(TOKEN.encode() not in r.body for r in sandbox.requests)
    assert TOKEN not in caplog.text
    for root, _dirs, files in os.walk(os.environ["XDG_DATA_HOME"]):
        for name in files:
            assert TOKEN not in (Path(root) / name).read_text("utf-8", errors="replace")
    for root, _dirs, files in os.walk(os.environ["XDG_CACHE_HOME"]):
        for name in files:
            assert TOKEN.encode() not in (Path(root) / name).read_bytes()


def test_an_action_sent_by_a_method_roost_cannot_use_is_listed_never_sent(capsys, platform):
    info, sandbox = platform
    sandbox.skill_override = {
        "actions": {
            "beam": {
                "method": "webhook",
                "payload": {
                    "type": "object",
                    "properties": {
                        "action": {"const": "beam"},
                        "payload": {"type": "object", "properties": {"to": {"type": "string"}}},
                    },
                },
            }
        }
    }
    code, out, _ = run(capsys, "action", "list")
    assert code == 0 and "not supported: the contract sends it by 'webhook'" in out
    code, _, err = run(capsys, "action", "submit", "beam", "-f", "to=x")
    assert code == 2 and "beam cannot be sent by roost" in err and "nothing was sent" in err
    assert sandbox.issues == [] and entries(info) == []


# -- a damaged outbox ---------------------------------------------------------------------------


def test_a_damaged_outbox_is_listed_shown_and_dropped_entry_by_entry(capsys, platform):
    """Brackets 1,500 deep, a FIFO, a link to /dev/zero, a truncated, non-UTF-8, empty or
    oversized file, a folder, wrong types: each is listed as damaged with its reason (in a
    process of its own, so a hang fails the test instead of stopping it), then shown and
    dropped by id; the good entry is listed throughout."""
    info, _ = platform
    folder = Outbox.for_service(info.write_url, info.repo, root=outbox_root()).folder
    said = plant_damage(folder)
    listing = _cli("outbox", "list", "--no-follow")
    out, err = listing.communicate(timeout=120)
    assert listing.returncode == 0, err
    assert f"draft: heartbeat [{GOOD_ID}]" in out
    for entry_id, reason in said.items():
        assert f"damaged: [{entry_id}]" in out
        assert reason in out.split(f"[{entry_id}]")[1].split("\n")[1]
    code, out, _ = run(capsys, "outbox", "list", "--json", "--no-follow")
    listed = {e["id"]: e for e in json.loads(out)}
    assert code == 0 and {listed[i]["state"] for i in said} == {"damaged"}
    for entry_id, reason in said.items():
        code, out, _ = run(capsys, "outbox", "show", entry_id)
        assert code == 0 and out.startswith(f"damaged: [{entry_id}]") and reason in out
        code, _, err = run(capsys, "outbox", "retry", entry_id)
        assert code == 1 and "drop it" in err
        code, out, _ = run(capsys, "outbox", "drop", entry_id)
        assert code == 0 and out == f"dropped {entry_id}\n"
    code, out, _ = run(capsys, "outbox", "list", "--no-follow")
    assert code == 0 and out.startswith(f"draft: heartbeat [{GOOD_ID}]") and "damaged" not in out


def test_every_field_read_back_from_disk_is_printed_cleaned(capsys, platform):
    """An entry file edited to carry escapes in every text field: nothing of them reaches the
    terminal, in the list, `show` or a refused retry."""
    info, _ = platform
    outbox = Outbox.for_service(info.write_url, info.repo, root=outbox_root())
    entry = outbox.draft("heartbeat", {})
    evil = "\x1b]0;pwned\x07\x1b[2J\x9b31m"
    entry.state, entry.number, entry.action = "rejected", 7, f"heartbeat{evil}"
    entry.html_url, entry.reason, entry.notices = f"https://x/{evil}", evil, [evil]
    entry.receipt = {"status": evil, "url": evil, "error": evil, "hint": evil}
    entry.comments = [{"id": 1, "login": evil, "at": evil, "body": evil}]
    entry.tracking = {"receipt_error": evil}
    outbox.save(entry)
    for argv in (["list"], ["show", entry.id], ["retry", entry.id]):
        _, out, err = run(capsys, "outbox", *argv, "--no-follow")
        assert "heartbeat␛]0;pwned␇␛[2J" in out
        for text in (out, err):
            assert not any(ch in text for ch in "\x1b\x07\x9b"), argv


@pytest.mark.parametrize("number", [b"1e308", b"-7"])
def test_a_201_whose_number_is_not_an_issue_number_is_never_printed(capsys, monkeypatch, number):
    """`{"number": 1e308}` printed "queued #1000…" (309 digits), `{"number": -7}` "queued
    #-7": either is an unclear answer now, settled by a lookup (which here cannot list)."""
    with HostileServer() as server:
        server.route("GET /user", json_ok(b'{"login": "me"}'))
        server.route("POST /repos/o/r/issues", status(201, b'{"number": ' + number + b"}"))
        server.route("GET /repos/o/r/issues", status(500, b"{}"))
        service_env(monkeypatch, server.url, server.url)
        code, out, _ = run(capsys, "action", "submit", "heartbeat")
    assert code == 4 and out.startswith("unknown: heartbeat")
    assert "#" not in out.splitlines()[0] and "could not be looked up" in out


def test_a_wait_that_runs_out_says_so_with_the_last_checks_error(capsys, monkeypatch):
    """`submit --wait --timeout` with no verdict printed only "queued #1" and exited 4: it
    now says the wait ran out, what is known, and why the last check failed (here the issue's
    GET answers a redirect); `outbox show` says the same."""
    issue = json.dumps(
        {"number": 1, "html_url": "https://example.test/o/r/issues/1", "user": {"login": "me"}}
    ).encode()
    with HostileServer() as server:
        server.route("GET /user", json_ok(b'{"login": "me"}'))
        server.route("POST /repos/o/r/issues", status(201, issue))
        server.route("GET /repos/o/r/issues/1", status(302, b"", [("Location", "/elsewhere")]))
        service_env(monkeypatch, server.url, server.url)
        code, out, err = run(capsys, "action", "submit", "heartbeat", "--wait", "--timeout", "1")
        assert code == 4 and out.startswith("queued #1: heartbeat")
        assert "last check: GET of the issue answered 302 (a redirect" in out
        said = err.splitlines()[-1]
        assert said.startswith("roost: the wait ran out after 1 s: #1 is queued (it is on the")
        assert "the last check failed: GET of the issue answered 302" in said
        assert "`roost outbox follow " in said
        code, out, _ = run(capsys, "outbox", "show", "2", "--no-follow")
        assert code == 0 and "last check: GET of the issue answered 302" in out
        code, out, err = run(capsys, "outbox", "follow", "--timeout", "0")
        assert code == 4 and "the wait ran out after 0 s: #1 is queued" in err
