"""`roost` CLI: state (summary, JSON, exit codes), sandbox serve, usage errors."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tui import __version__
from tui.cli import main
from tui.sandbox.generator import build_manifest, generate_state, serialize
from tui.sandbox.server import running_sandbox

HOSTILE = "[@click=app.quit] \x1b[2J\x1b]0;pwned\x07 \x9b31m NUL\x00 [bold]x[/italic] a[/]b"


@contextlib.contextmanager
def static_server(root: Path):
    """A plain static file server (no ETag, Last-Modified only) on an ephemeral loopback port."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass


def write_site(root: Path, docs: dict[str, dict], *, tamper=None) -> Path:
    state = root / "state"
    state.mkdir(parents=True)
    files = {name: serialize(doc) for name, doc in docs.items()}
    manifest = json.loads(build_manifest(files, "2026-11-01T12:00:00Z"))
    if tamper:
        tamper(files, manifest)
    for name, body in files.items():
        (state / name).write_bytes(body)
    (state / "manifest-hashes.json").write_text(json.dumps(manifest))
    return root


def run_json(capsys, *args) -> tuple[int, dict]:
    code = main(["state", "--json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def assert_terminal_safe(text: str) -> None:
    for bad in ("\x1b", "\x9b", "\x00", "\x07"):
        assert bad not in text


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert __version__ in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "examples:" in capsys.readouterr().out


def test_state_on_the_demo_network_two_cycles(capsys):
    code, doc = run_json(capsys, "--cycles", "2")
    assert code == 0
    first, second = doc["reports"]
    assert first["fetched"] == [
        "agents.json",
        "trending.json",
        "channels.json",
        "stats.json",
        "seeds.json",
    ]
    assert second["requests"] == 1 and second["fetched"] == []
    assert set(doc["snapshot"]) == {"agents", "trending", "channels", "stats", "seeds"}
    assert doc["integrity"] == "all verified"


def test_state_summary_is_readable(capsys):
    assert main(["state", "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "demo network" in out and "integrity: all verified" in out
    assert "agents.json" in out and "verified" in out


def test_state_over_loopback_sandbox(capsys):
    with running_sandbox(agents=30) as (info, _app):
        code, doc = run_json(capsys, "--read-url", info.read_url + "/", "--cycles", "2")
    assert code == 0
    assert len(doc["reports"][0]["fetched"]) == 5
    assert doc["reports"][1]["requests"] == 1
    assert len(doc["snapshot"]["agents"]["agents"]) == 30


def test_static_server_good_then_broken_files(tmp_path, capsys):
    docs = generate_state(agents=25)
    good = write_site(tmp_path / "good", docs)
    with static_server(good) as url:
        code, doc = run_json(capsys, "--read-url", url, "--cycles", "2")
    assert code == 0, doc["reports"]
    assert doc["reports"][1]["requests"] == 1  # Last-Modified → 304 for the manifest

    hostile_docs = generate_state(agents=25)
    first = next(iter(hostile_docs["agents.json"]["agents"]))
    hostile_docs["agents.json"]["agents"][first]["name"] = HOSTILE
    hostile_docs["agents.json"]["agents"]["evil\x1b[31mid"] = dict(
        hostile_docs["agents.json"]["agents"][first]
    )

    def tamper(files, manifest):
        # hash mismatch: the manifest names other bytes
        manifest["files"]["trending.json"]["hash"] = "0" * 64
        # invalid JSON, listed with its true hash: integrity passes, validation fails
        files["channels.json"] = b'{"channels": {"x": '
        manifest["files"]["channels.json"] = {
            "hash": hashlib.sha256(files["channels.json"]).hexdigest(),
            "size": len(files["channels.json"]),
        }
        # oversized: far larger than the manifest says
        files["seeds.json"] = files["seeds.json"] + b" " * 3_000_000

    broken = write_site(tmp_path / "broken", hostile_docs, tamper=tamper)
    with static_server(broken) as url:
        code, doc = run_json(capsys, "--read-url", url, "--no-cache")
        assert code == 1
        kinds = {p["file"]: p["kind"] for p in doc["reports"][0]["problems"]}
        assert kinds == {
            "trending.json": "mismatch",
            "channels.json": "invalid",
            "seeds.json": "too-large",
        }
        assert doc["files"]["agents.json"]["integrity"] == "verified"
        for name in ("trending.json", "channels.json", "seeds.json"):
            assert doc["files"][name]["integrity"] != "verified"
            assert doc["snapshot"][name.removesuffix(".json")] is None  # nothing unverified shown
        assert doc["snapshot"]["agents"]["agents"][first]["name"] == HOSTILE  # data kept exactly

        # the readable form: no raw control characters reach the terminal
        code = main(["state", "--read-url", url, "--no-cache"])
        out = capsys.readouterr().out
    assert code == 1
    assert_terminal_safe(out)
    assert "3 not verified" in out


def test_json_output_never_carries_raw_control_characters(tmp_path, capsys):
    docs = generate_state(agents=10)
    docs["seeds.json"]["active"]["text"] = HOSTILE
    site = write_site(tmp_path / "site", docs)
    with static_server(site) as url:
        assert main(["state", "--json", "--read-url", url, "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert_terminal_safe(out)
    assert json.loads(out)["snapshot"]["seeds"]["active"]["text"] == HOSTILE


def test_nothing_loadable_exits_3(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    with static_server(tmp_path / "empty") as url:
        code, doc = run_json(capsys, "--read-url", url, "--no-cache")
    assert code == 3
    assert {p["kind"] for p in doc["reports"][0]["problems"]} >= {"missing"}


def test_unreachable_service_exits_3(capsys):
    code, doc = run_json(capsys, "--read-url", "http://127.0.0.1:9", "--no-cache")
    assert code == 3
    assert doc["reports"][0]["online"] is False


def test_usage_errors_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["state", "--cycles", "0"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["state", "--bogus"])
    assert info.value.code == 2
    bad = tmp_path / "config.toml"
    bad.write_text("read_url = [")
    assert main(["state", "--config", str(bad)]) == 2
    assert "not valid TOML" in capsys.readouterr().err


def test_flags_before_the_subcommand_survive(capsys):
    """`roost --read-url X state` must not lose X to the subparser's defaults."""
    code, doc = run_json(capsys, "--read-url", "http://127.0.0.1:9", "--no-cache")
    assert doc["service"] == "http://127.0.0.1:9"
    code = main(["--read-url", "http://127.0.0.1:9", "state", "--json", "--no-cache"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["service"] == "http://127.0.0.1:9" and code == 3


def test_sandbox_serve_prints_json_first_then_serves():
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tui.cli",
            "sandbox",
            "serve",
            "--port",
            "0",
            "--json",
            "--agents",
            "20",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = proc.stdout.readline()
        info = json.loads(line)
        assert set(info) >= {"read_url", "write_url", "repo", "hub_url", "token"}
        assert info["read_url"].startswith("http://127.0.0.1:")
        import httpx

        response = httpx.get(info["read_url"] + "/state/stats.json", timeout=10)
        assert response.status_code == 200 and response.json()["total_agents"] == 20
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_sandbox_refuses_non_loopback_hosts(capsys):
    assert main(["sandbox", "serve", "--host", "0.0.0.0"]) == 2
    assert "loopback" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["demo"], []], ids=["demo", "configured"])
def test_the_dashboard_without_a_terminal_says_so_and_exits_2(tmp_path, argv):
    """`roost demo </dev/null | head` used to paint escape sequences into the pipe forever."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "roost: the dashboard needs a terminal (for scripts: roost state --json)\n"
    )
