"""`roost inbox` and `roost activity`, end to end through the CLI and a real store: against a
static read interface on loopback (the real files when ../shared/real holds them, hostile ones,
one that publishes nothing), and on the demo network."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile import PAYLOADS
from pulse_rig import REAL_PULSE_DIR, hostile_pulse

from tui.cli import main

AGENT = "zion-wildcard-04"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_terminal_safe(*texts: str) -> None:
    for text in texts:
        for bad in ("\x1b", "\x9b", "\x00", "\x07", "\r"):
            assert bad not in text


class _Site(http.server.SimpleHTTPRequestHandler):
    seen: list[str]
    failing: set[str]

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.seen.append(self.path)
        if self.path in self.failing:
            self.send_error(500)
            return
        super().do_GET()

    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def site(files: dict[str, bytes], tmp_path: Path) -> Iterator[tuple[str, list[str], set[str]]]:
    """``files`` under ``/state/`` on loopback (no manifest: each is asked for conditionally);
    the paths asked for, and the paths that answer 500."""
    root = tmp_path / "site"
    (root / "state").mkdir(parents=True)
    for name, body in files.items():
        (root / "state" / name).write_bytes(body)
    seen: list[str] = []
    failing: set[str] = set()
    handler = type("Handler", (_Site,), {"seen": seen, "failing": failing})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(root))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen, failing
    finally:
        server.shutdown()
        server.server_close()


def pulse_files(agent: str = AGENT) -> dict[str, bytes]:
    if REAL_PULSE_DIR.is_dir():
        names = ("notifications.json", "pokes.json", "changes.json")
        return {name: (REAL_PULSE_DIR / name).read_bytes() for name in names}
    stamp = "2026-03-1{}T12:00:00Z"
    return {
        "notifications.json": json.dumps(
            {
                "notifications": [
                    {"agent_id": agent, "type": "poke", "from_agent": f"sender-{n}",
                     "timestamp": stamp.format(n), "read": False, "detail": f"poke {n}"}
                    for n in range(5)
                ]
            }
        ).encode(),
        "pokes.json": json.dumps(
            {"pokes": [{"from_agent": f"sender-{n}", "target_agent": agent,
                        "timestamp": stamp.format(n), "message": f"poke {n}"} for n in range(5)]}
        ).encode(),
        "changes.json": json.dumps(
            {"changes": [{"ts": stamp.format(n % 10), "type": "heartbeat", "id": f"a{n}"}
                         for n in range(30)]
             + [{"ts": stamp.format(9), "type": "agent_dormant", "id": "openclaw"},
                {"ts": stamp.format(8), "type": "heartbeat_audit", "total_active": 96}]}
        ).encode(),
    }  # fmt: skip


# --------------------------------------------------------------------------- roost inbox


def test_inbox_without_an_agent_says_how_to_set_one(capsys):
    code, out, err = run(capsys, "inbox")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--agent ID" in err and "ROOST_AGENT" in err


def test_inbox_lists_unread_then_marks_read_reading_only_its_two_files(tmp_path, capsys):
    with site(pulse_files(), tmp_path) as (url, seen, _failing):
        code, out, err = run(capsys, "inbox", "--read-url", url, "--agent", AGENT, "--json")
        asked = set(seen)
        doc = json.loads(out)
        assert code == 0 and err == "" and out.isascii() and doc["exit_code"] == 0
        assert doc["agent"] == AGENT and doc["files"] == {
            "notifications.json": "read", "pokes.json": "read",
        }  # fmt: skip
        assert doc["unread"] == doc["shown"] == doc["total"] > 0
        first = doc["items"][0]
        assert set(first) == {
            "key", "kind", "type", "from", "text", "timestamp", "discussion", "url", "place",
            "resolved", "unread", "copies",
        }  # fmt: skip
        stamps = [item["timestamp"] for item in doc["items"]]
        assert stamps == sorted(stamps, reverse=True)
        # tab-separated into a pipe, then marked read
        code, out, err = run(capsys, "inbox", "--read-url", url, "--agent", AGENT, "--mark-read")
        rows = [line.split("\t") for line in out.splitlines()]
        assert code == 0 and len(rows) == doc["shown"] and all(len(r) == 9 for r in rows)
        assert all(r[0] == "unread" for r in rows) and f"{len(rows):,} marked read" in err
        code, out, err = run(capsys, "inbox", "--read-url", url, "--agent", AGENT)
        assert code == 0 and out == ""
        code, out, _err = run(capsys, "inbox", "--read-url", url, "--agent", AGENT, "--all")
        assert {line.split("\t")[0] for line in out.splitlines()} == {"read"}
    # no manifest here: the store also looks for one at the read URL itself
    files = {path for path in asked if not path.endswith("/manifest-hashes.json")}
    assert files == {"/state/notifications.json", "/state/pokes.json"}


def test_inbox_table_in_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("tui.commands.inbox.is_terminal", lambda out: True)
    monkeypatch.setenv("COLUMNS", "80")
    with site(pulse_files(), tmp_path) as (url, _seen, _failing):
        code, out, _err = run(capsys, "inbox", "--read-url", url, "--agent", AGENT)
        assert code == 0
        head, _blank, columns, *rows = out.splitlines()
        assert head.startswith(f"{AGENT}: ") and "unread" in head
        assert columns.split() == ["TYPE", "FROM", "MESSAGE", "POST", "AGE"]
        assert rows and all(r.startswith("●") and len(r) <= 80 for r in rows)
        code, out, _err = run(capsys, "inbox", "--read-url", url, "--agent", "nobody-here")
        assert code == 0 and "Nothing unread" in out


def test_inbox_says_what_the_deployment_does_not_publish(tmp_path, capsys):
    files = pulse_files()
    with site({"pokes.json": files["pokes.json"]}, tmp_path) as (url, _seen, _failing):
        code, out, err = run(capsys, "inbox", "--read-url", url, "--agent", AGENT, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["files"]["notifications.json"] == "absent" and doc["items"]
    assert "does not publish notifications.json" in err
    with site({}, tmp_path / "empty") as (url, _seen, _failing):
        code, out, err = run(capsys, "inbox", "--read-url", url, "--agent", AGENT)
    assert code == 0 and out == "" and "publishes neither" in err


def test_inbox_exit_codes_when_files_cannot_be_read(tmp_path, capsys):
    cache = str(tmp_path / "cache")
    with site(pulse_files(), tmp_path) as (url, _seen, failing):
        failing.update({"/state/notifications.json", "/state/pokes.json"})
        code, out, err = run(
            capsys, "inbox", "--read-url", url, "--agent", AGENT, "--cache-dir", cache
        )
        assert code == 3 and out == "" and "could not be read" in err
        failing.clear()
        assert (
            run(capsys, "inbox", "--read-url", url, "--agent", AGENT, "--cache-dir", cache)[0] == 0
        )
        failing.add("/state/pokes.json")
        code, out, err = run(capsys, "inbox", "--read-url", url, "--agent", AGENT,
                             "--cache-dir", cache, "--no-cache", "--json")  # fmt: skip
        assert code == 1 and json.loads(out)["files"]["pokes.json"] == "failed"
        code, out, err = run(
            capsys, "inbox", "--read-url", url, "--agent", AGENT, "--cache-dir", cache, "--json"
        )
        assert code == 1 and json.loads(out)["files"]["pokes.json"] == "stale"
        assert "its last good copy is used" in err


def test_inbox_with_hostile_files_prints_nothing_a_terminal_would_run(
    tmp_path, capsys, monkeypatch
):
    docs = hostile_pulse("victim")
    files = {name: json.dumps(docs[name]).encode() for name in ("notifications.json", "pokes.json")}
    with site(files, tmp_path) as (url, _seen, _failing):
        code, out, err = run(capsys, "inbox", "--read-url", url, "--agent", "victim", "--all")
        assert code == 0 and out
        assert_terminal_safe(out, err)
        assert all(len(line.split("\t")) == 9 for line in out.splitlines())
        code, out, _err = run(capsys, "inbox", "--read-url", url, "--agent", "victim", "--json")
        assert out.isascii() and {i["text"] for i in json.loads(out)["items"]} & set(PAYLOADS)
        monkeypatch.setattr("tui.commands.inbox.is_terminal", lambda out: True)
        code, out, err = run(capsys, "inbox", "--read-url", url, "--agent", "victim", "--all")
        assert code == 0 and "[@click=app.quit]" in out
        assert_terminal_safe(out, err)


def test_inbox_on_the_demo_network(capsys):
    code, out, err = run(capsys, "inbox", "--agent", "zion-coder-01", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["service"] == "demo network" and doc["exit_code"] == 0
    if not doc["items"]:
        assert doc["total"] == 0 or doc["unread"] == 0


# --------------------------------------------------------------------------- roost activity


def test_activity_prints_every_change_newest_first(tmp_path, capsys):
    files = pulse_files()
    total = len(json.loads(files["changes.json"])["changes"])
    with site({"changes.json": files["changes.json"]}, tmp_path) as (url, seen, _failing):
        code, out, err = run(capsys, "activity", "--read-url", url, "--json")
        doc = json.loads(out)
        assert code == 0 and err == "" and out.isascii()
        assert doc["total"] == doc["shown"] == len(doc["changes"]) == total
        first = doc["changes"][0]
        assert set(first) == {
            "key",
            "ts",
            "type",
            "text",
            "agent",
            "post",
            "channel",
            "agents",
            "entry",
        }
        assert None not in first["entry"].values() and first["entry"]["type"] == first["type"]
        stamps = [c["ts"] for c in doc["changes"]]
        assert stamps == sorted(stamps, reverse=True)
        assert "openclaw went dormant" in {c["text"] for c in doc["changes"]}
        # filtered, into a pipe
        code, out, _err = run(
            capsys, "activity", "--read-url", url, "--type", "agent_dormant,HEARTBEAT_AUDIT"
        )
        rows = [line.split("\t") for line in out.splitlines()]
        assert code == 0 and rows and {r[1] for r in rows} == {"agent_dormant", "heartbeat_audit"}
        assert all(len(r) == 6 for r in rows)
        code, out, _err = run(capsys, "activity", "--read-url", url, "--agent", "openclaw")
        assert code == 0 and all(line.split("\t")[2] == "openclaw" for line in out.splitlines())
        assert "openclaw went dormant" in out
    assert {path for path in seen if not path.endswith("/manifest-hashes.json")} == {
        "/state/changes.json"
    }


def test_activity_table_in_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("tui.commands.activity.is_terminal", lambda out: True)
    monkeypatch.setenv("COLUMNS", "80")
    with site({"changes.json": pulse_files()["changes.json"]}, tmp_path) as (url, _seen, _f):
        code, out, _err = run(capsys, "activity", "--read-url", url, "--type", "agent_dormant")
    head, _blank, columns, *rows = out.splitlines()
    assert code == 0 and head.startswith("Showing ") and columns.split()[:2] == ["AGE", "TYPE"]
    assert any(r.endswith("openclaw went dormant") for r in rows)


def test_activity_exit_codes(tmp_path, capsys):
    with site({}, tmp_path) as (url, _seen, _failing):
        code, out, err = run(capsys, "activity", "--read-url", url, "--json")
    assert code == 0 and json.loads(out)["changes"] == [] and "does not publish changes.json" in err
    cache = str(tmp_path / "cache")
    with site({"changes.json": pulse_files()["changes.json"]}, tmp_path / "b") as (
        url,
        _s,
        failing,
    ):
        failing.add("/state/changes.json")
        code, out, err = run(capsys, "activity", "--read-url", url, "--cache-dir", cache)
        assert code == 3 and out == "" and "changes.json could not be read" in err
        failing.clear()
        assert run(capsys, "activity", "--read-url", url, "--cache-dir", cache)[0] == 0
        failing.add("/state/changes.json")
        code, out, err = run(capsys, "activity", "--read-url", url, "--cache-dir", cache)
        assert code == 1 and out and "its last good copy is used" in err


def test_activity_with_hostile_files(tmp_path, capsys, monkeypatch):
    files = {"changes.json": json.dumps(hostile_pulse("victim")["changes.json"]).encode()}
    with site(files, tmp_path) as (url, _seen, _failing):
        code, out, err = run(capsys, "activity", "--read-url", url)
        assert code == 0 and out
        assert_terminal_safe(out, err)
        assert all(len(line.split("\t")) == 6 for line in out.splitlines())
        monkeypatch.setattr("tui.commands.activity.is_terminal", lambda out: True)
        code, out, err = run(capsys, "activity", "--read-url", url, "--agent", "victim")
        assert code == 0 and "[@click=app.quit]" in out
        assert_terminal_safe(out, err)


def test_help_has_examples_and_exit_codes(capsys):
    for command in ("inbox", "activity"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "examples:" in out and "exit: 0" in out and "--json" in out
