"""`roost state` against hostile servers and bad settings: documented exit codes, one
line on stderr, no traceback, no secret, valid JSON."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile_server import HostileServer, json_ok, not_modified
from tui.cli import main
from tui.commands.state import as_json

STATS = b'{"total_agents": 1}'
TRENDING = b'{"trending": [{"title": "t", "author": "a", "score": NaN}]}'


def serve_files(server: HostileServer, files: dict[str, bytes], replies=None) -> None:
    manifest = {
        "files": {
            name: {"hash": hashlib.sha256(body).hexdigest(), "size": len(body)}
            for name, body in files.items()
        }
    }
    server.route("/state/manifest-hashes.json", json_ok(json.dumps(manifest).encode()))
    for name, body in files.items():
        server.route(f"/state/{name}", (replies or {}).get(name) or json_ok(body))


def roost(*args: str, env: dict[str, str] | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main())", *args],
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        **kw,
    )


def test_304_without_etag_exits_1_without_a_traceback(capsys):
    with HostileServer() as server:
        serve_files(server, {"stats.json": STATS}, {"stats.json": not_modified()})
        code = main(["state", "--read-url", server.url, "--no-cache"])
    captured = capsys.readouterr()
    assert code == 3  # nothing loadable: the only served file never arrived
    assert "HTTP 304 for a file never loaded" in captured.out


def test_json_with_nan_is_valid_json(capsys):
    with HostileServer() as server:
        serve_files(server, {"trending.json": TRENDING})
        main(["state", "--json", "--read-url", server.url, "--no-cache"])
    out = capsys.readouterr().out
    assert "NaN" not in out
    doc = json.loads(out, parse_constant=lambda name: pytest.fail(f"bare {name} in --json"))
    assert doc["snapshot"]["trending"]["trending"][0]["score"] is None


def test_as_json_is_one_line_of_strict_json():
    text = as_json({"a": [1.5, float("inf"), {"b": float("-inf")}], "c": "\x1b"})
    assert text == '{"a":[1.5,null,{"b":null}],"c":"\\u001b"}'


def test_as_json_escapes_every_character_past_ascii_as_json_dumps_does():
    """Escapes as ``json.dumps(ensure_ascii=True)`` writes them: DEL, C1 controls, bidi
    overrides and astral characters (as surrogate pairs) included; a lone surrogate too."""
    texts = ["\x7f", "\x85", "caf\u00e9", "\u202e\u2066", "\U0001f600", "\U0010ffff", "\ud800"]
    for value in texts:
        document = {"k" + value: [value, "plain " + value + " text"]}
        text = as_json(document)
        assert text.isascii() and "\x7f" not in text
        assert text == json.dumps(document, ensure_ascii=True, separators=(",", ":"))


def test_json_is_written_at_once(monkeypatch):
    class Counting:
        writes = 0

        def write(self, text):
            Counting.writes += 1
            return len(text)

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", Counting())
    assert main(["state", "--json", "--no-cache"]) == 0
    assert Counting.writes == 1  # not one write per token


def test_credentials_never_shown(capsys, tmp_path):
    with HostileServer() as server:
        serve_files(server, {"stats.json": STATS})
        url = server.url.replace("http://", "http://alice:s3cretpw@")
        code, out = [], []
        for extra in ([], ["--json"]):
            code.append(main(["state", "--read-url", url, *extra]))
            out.append(capsys.readouterr())
    for captured in out:
        assert "s3cretpw" not in captured.out + captured.err
    assert json.loads(out[1].out)["service"].startswith("http://***@127.0.0.1:")
    cache_root = Path(os.environ["XDG_CACHE_HOME"])
    assert not any(
        "s3cretpw" in str(path) or "alice" in str(path) for path in cache_root.rglob("*")
    )


@pytest.mark.parametrize(
    ("config", "args", "env", "says"),
    [
        ('profile = "p"\n[profiles]\np = "x"\n', [], {}, "[profiles.p]: must be a table"),
        ('profile = ["a"]\n', [], {}, "profile must be the name of a profile"),
        (b"read_url = '\xff'\n", [], {}, "not UTF-8"),
        (None, ["--read-url", "http://[::1"], {}, "--read-url: read_url is not a valid URL"),
        (None, ["--read-url", "http://h:99999/"], {}, "Port out of range"),
        (None, ["--read-url", "http://h/\x1b[2J"], {}, "control character"),
        (None, [], {"ROOST_READ_URL": "http://h/\x1b"}, "ROOST_READ_URL: read_url contains"),
        ('profile = "p"\n[profiles.p]\nreed_url = "x"\n', [], {}, "unknown setting(s) reed_url"),
        (None, ["--config", "/nonexistent/roost.toml"], {}, "config file not found"),
        (None, [], {"ROOST_CONFIG": "/nonexistent/roost.toml"}, "config file not found"),
        ("cache_dir = 5\n", [], {}, "cache_dir must be a string"),
        ("interval = nan\n", [], {}, "interval must be a finite number"),
        (None, ["--interval", "inf"], {}, "--interval: interval must be a finite number"),
        (None, [], {"ROOST_INTERVAL": "nan"}, "ROOST_INTERVAL: interval must be a finite"),
        (None, [], {"ROOST_INTERVAL": "0"}, "at least 1"),
    ],
)
def test_settings_errors_exit_2_with_one_line(tmp_path, config, args, env, says):
    config_home = tmp_path / "config"
    if config is not None:
        (config_home / "roost").mkdir(parents=True)
        path = config_home / "roost" / "config.toml"
        path.write_bytes(config if isinstance(config, bytes) else config.encode())
    result = roost(*args, "state", env={"XDG_CONFIG_HOME": str(config_home), **env})
    err = result.stderr.decode()
    assert result.returncode == 2, err
    assert says in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "\x1b" not in err


def test_cycle_interval_must_be_finite(capsys):
    with pytest.raises(SystemExit) as info:
        main(["state", "--interval", "nan"])
    assert info.value.code == 2


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_closed_pipe_is_a_quiet_exit(tmp_path, extra):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "c"), "XDG_CONFIG_HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main())"]
        + ["state", "--cycles", "3", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    proc.stdout.read(1)
    proc.stdout.close()  # like `| head -c 1`
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    assert code in (0, 141), err
    assert "Traceback" not in err and "BrokenPipe" not in err
