"""`roost egg ls/cat --unverified`: a failed egg looked at, and said so on stderr."""

from __future__ import annotations

import json

from test_inspector_payloads import failed_egg, unreadable_egg

from tui.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_ls_unverified_lists_each_files_hash_status(capsys, tmp_path):
    egg = tmp_path / "failed.egg"
    egg.write_bytes(failed_egg())
    code, out, err = run(capsys, "egg", "ls", str(egg))
    assert code == 1 and out == "" and "--unverified shows what can be read" in err
    code, out, err = run(capsys, "egg", "ls", "--unverified", str(egg))
    assert code == 1
    assert "roost: UNVERIFIED: FAILED at check 13 — nothing in it is vouched for" in err
    rows = {line.split()[-1]: line.split()[-2] for line in out.splitlines()}
    assert rows == {"manifest.json": "manifest", "agent.py": "differs", "docs/readme.md":
                    "matches", "rappid.json": "matches", "zz-extra.txt": "extra",
                    "gone.txt": "missing"}  # fmt: skip
    code, out, _ = run(capsys, "egg", "ls", "--unverified", "--json", str(egg))
    document = json.loads(out)
    assert document["unverified"] and not document["verified"] and document["failed_at"] == 13
    assert {e["name"]: e["status"] for e in document["entries"]}["gone.txt"] == "missing"


def test_cat_unverified_writes_the_bytes_and_says_so(capsysbinary, tmp_path):
    egg = tmp_path / "failed.egg"
    egg.write_bytes(failed_egg())
    assert main(["egg", "cat", "--unverified", str(egg), "agent.py"]) == 1
    captured = capsysbinary.readouterr()
    assert captured.out == b"import os  # changed\n"
    assert b"UNVERIFIED: agent.py: hash differs" in captured.err
    assert main(["egg", "cat", "--unverified", str(egg), "gone.txt"]) == 2
    assert b"listed in the manifest but not in the archive" in capsysbinary.readouterr().err


def test_an_egg_that_cannot_be_read_safely_shows_nothing(capsys, tmp_path):
    egg = tmp_path / "escape.egg"
    egg.write_bytes(unreadable_egg())
    code, out, err = run(capsys, "egg", "ls", "--unverified", str(egg))
    assert code == 1 and out == ""
    assert "cannot be read safely (legacy.names" in err
    assert "nothing is shown from an egg that cannot be read safely" in err
