"""`roost export`, end to end: the tab's rows as the dashboard shows them, filtered, sorted and
narrowed; formulas neutralised; exit codes; did you mean (tui/commands/export.py)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from test_cli_conversation import read_site, run, write_site

from tui.cli import main
from tui.sandbox.generator import build_manifest, generate_state, serialize


def site_files(agents: int = 30, hostile: bool = False) -> dict[str, bytes]:
    state = generate_state(agents=agents)
    if hostile:
        document = state["agents.json"]
        first = next(iter(document["agents"]))
        document["agents"][first]["name"] = '=HYPERLINK("http://evil","x")\x1b[2J'
        document["agents"][first].pop("display_name", None)
    return {name: serialize(doc) for name, doc in state.items()}


def test_export_writes_the_rows_the_agents_tab_shows(tmp_path, capsys):
    with read_site(write_site(tmp_path / "site", site_files(hostile=True))) as (url, _seen):
        code, out, err = run(capsys, "export", "agents", "--read-url", url)
        assert code == 0, err
        rows = list(csv.reader(io.StringIO(out)))
        assert rows[0] == [
            "id",
            "name",
            "framework",
            "status",
            "karma",
            "posts",
            "comments",
            "heartbeat",
        ]
        assert len(rows) == 31
        hostile = [r for r in rows if "HYPERLINK" in r[1]][0]
        assert (
            hostile[1].startswith("'=HYPERLINK") and "\x1b" not in out and "\u241b[2J" in hostile[1]
        )

        code, out, err = run(
            capsys,
            "export",
            "agents",
            "--read-url",
            url,
            "--jsonl",
            "--sort",
            "karma",
            "--columns",
            "id,karma,cmts",
        )
        assert code == 0, err
        lines = [json.loads(line) for line in out.splitlines()]
        assert list(lines[0]) == ["id", "karma", "comments"]
        karma = [line["karma"] for line in lines]
        assert all(isinstance(k, int) for k in karma) and karma == sorted(karma, reverse=True)

        target = tmp_path / "agents.csv"
        code, _out, err = run(
            capsys, "export", "agents", "--read-url", url, "--filter", "coder", "-o", str(target)
        )
        assert code == 0 and f"written to {target}" in err
        written = list(csv.reader(target.open(encoding="utf-8", newline="")))[1:]
        assert written and all("coder" in " ".join(r).lower() for r in written)
        code, _out, err = run(capsys, "export", "agents", "--read-url", url, "-o", str(target))
        assert code == 2 and "already there" in err  # never replaced unasked
        code, _out, err = run(
            capsys, "export", "agents", "--read-url", url, "-o", str(target), "--force"
        )
        assert code == 0 and len(target.read_text(encoding="utf-8").splitlines()) == 31


def test_export_says_did_you_mean_and_exits_2_on_usage(capsys):
    code, out, err = run(capsys, "export", "agnets")
    assert code == 2 and out == "" and "did you mean agents?" in err
    code, out, err = run(capsys, "export", "agents", "--sort", "karam")
    assert code == 2 and "did you mean karma?" in err
    code, out, err = run(capsys, "export", "posts", "--columns", "title,vots")
    assert code == 2 and "did you mean votes?" in err
    with pytest.raises(SystemExit) as usage:
        main(["export", "agents", "--csv", "--jsonl"])
    assert usage.value.code == 2


def test_export_exit_codes_for_a_stale_file_and_for_nothing(tmp_path, capsys):
    code, out, err = run(
        capsys, "export", "channels", "--read-url", "http://127.0.0.1:9", "--no-cache"
    )
    assert code == 3 and out == "" and "nothing to export" in err
    files = site_files()
    with read_site(write_site(tmp_path / "site", files)) as (url, _seen):
        assert run(capsys, "export", "agents", "--read-url", url)[0] == 0  # cached now
        bad = {**files, "agents.json": b"{oops"}
        (tmp_path / "site" / "state" / "agents.json").write_bytes(bad["agents.json"])
        manifest = build_manifest(bad, "2026-11-01T12:00:00Z")
        (tmp_path / "site" / "state" / "manifest-hashes.json").write_bytes(manifest)
        code, out, err = run(capsys, "export", "agents", "--read-url", url)
    assert code == 1 and "agents.json" in err and "last good copy" in err
    assert len(out.splitlines()) == 31  # the last good copy, written


def test_export_help_has_examples_and_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = capsys.readouterr().out
    assert "examples:" in text and "roost export agents" in text and "exit: 0 written" in text
