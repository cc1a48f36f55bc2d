"""What the CLI says and which options it takes: counts in the right number, a typed value
quoted back, a subcommand's own usage on its errors, `state --pause-between` (not a second
`--interval`), options and positionals in any order, and `roost whoami`'s exit codes.

Each runs the real `roost` parser (``tui.cli.main``) against the demo network in-process or a
sandbox on loopback.
"""

from __future__ import annotations

import pytest

from tui.cli import build_parser, main
from tui.sandbox.server import running_sandbox

TOKEN = "ghp_wordingSECRETtoken123"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own exits
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_count_of_one_takes_the_singular(capsys):
    code, out, _ = run(capsys, "state", "--cycles", "2", "--no-cache")
    second = out.splitlines()[1]
    assert code == 0 and "· 1 request ·" in second and "0 bytes" in second
    code, out, _ = run(capsys, "egg", "verify", "--slug", "night-shift-newsroom")
    assert code == 0 and out.splitlines()[-1].endswith(" checks pass, 1 does not apply")


def test_a_value_of_the_wrong_type_is_quoted_back(capsys):
    base = ("action", "submit", "transfer_karma", "-f", "target_agent=zion-coder-02")
    code, out, err = run(capsys, *base, "-f", "amount=abc", "--dry-run")
    assert code == 2 and out == ""
    assert err == 'roost: transfer_karma: amount: "abc" is not a whole number\n'
    code, _, err = run(capsys, *base, "-f", "amount=1.5", "--dry-run")
    assert code == 2 and '"1.5" is not a whole number' in err
    code, _, err = run(capsys, *base, "-f", "amount=" + "9" * 5000, "--dry-run")
    assert code == 2 and err.endswith('9…" is too large a number\n') and len(err) < 200
    code, out, _ = run(capsys, *base, "-f", "amount= 7 ", "--dry-run")
    assert code == 0 and '\\"amount\\": 7' in out


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["action", "submit", "heartbeat", "--bogus"], "usage: roost action submit "),
        (["action", "--bogus", "list"], "usage: roost action "),
        (["outbox", "show", "x", "--bogus"], "usage: roost outbox "),
        (["state", "--bogus"], "usage: roost state "),
        (["egg", "verify", "x", "--bogus"], "usage: roost egg verify "),
        (["--bogus"], "usage: roost [-h]"),
    ],
)
def test_an_error_in_a_subcommand_shows_that_subcommands_usage(capsys, argv, usage):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(usage) and "unrecognized arguments: --bogus" in err


def test_state_pauses_between_cycles_under_its_own_name(capsys):
    state = build_parser()._subparsers._group_actions[0].choices["state"]
    shown = state.format_help()
    assert "--pause-between S" in shown and "--interval" not in shown
    code, out, err = run(capsys, "state", "--cycles", "2", "--pause-between", "0", "--no-cache")
    assert code == 0 and err == "" and out.count("cycle ") == 2
    code, out, err = run(capsys, "state", "--cycles", "2", "--interval", "0", "--no-cache")
    assert code == 0 and out.count("cycle ") == 2  # the old spelling still works
    assert "`roost state --interval` is now --pause-between" in err
    code, _, err = run(capsys, "state", "--pause-between", "nan")
    assert code == 2 and "--pause-between must be a finite number" in err


def test_options_may_come_before_or_after_the_positionals(capsys):
    run(capsys, "action", "submit", "heartbeat")
    code, shown_after, _ = run(capsys, "outbox", "show", "2", "--json", "--no-follow")
    assert code == 0 and shown_after.startswith("{")
    code, shown_before, _ = run(capsys, "outbox", "show", "--json", "2", "--no-follow")
    assert code == 0 and shown_before == shown_after
    code, out, _ = run(capsys, "outbox", "--no-follow", "show", "2")
    assert code == 0 and out.startswith("queued #")
    code, out, _ = run(capsys, "action", "submit", "--dry-run", "heartbeat")
    assert code == 0 and '"method": "POST"' in out


def test_whoami_exit_codes(capsys, monkeypatch):
    code, out, _ = run(capsys, "whoami")
    assert code == 0 and out.startswith("acting as ")
    code, out, err = run(capsys, "whoami", "--repo", "o/r", "--read-url", "http://127.0.0.1:9",
                         "--write-url", "http://127.0.0.1:9")  # fmt: skip
    assert code == 2 and "no token" in err  # nothing else found one (gh is not asked in tests)
    monkeypatch.setenv("ROOST_TOKEN", TOKEN)
    code, _, err = run(capsys, "whoami", "--repo", "o/r", "--read-url", "http://127.0.0.1:9",
                       "--write-url", "http://127.0.0.1:9")  # fmt: skip
    assert code == 3 and "cannot reach" in err and TOKEN not in err
    with running_sandbox(agents=10, tokens={"other": "someone"}) as (info, _app):
        code, _, err = run(capsys, "whoami", "--repo", info.repo, "--read-url", info.read_url,
                           "--write-url", info.write_url)  # fmt: skip
    assert code == 1 and "401" in err
