"""`roost serve-ssh` against OpenSSH's own `ssh` client, in a tmux pane at 80×24 (skipped where
either is missing): what a person who types `ssh -p PORT guest@HOST` gets."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import asyncssh
import pytest

from tests.functional.test_tmux_smoke import Pane
from tests.ssh_rig import Server, alive, children_of, wait_until

SSH = shutil.which("ssh")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(SSH is None or shutil.which("tmux") is None, reason="needs ssh and tmux"),
]


def ssh_command(server: Server, known_hosts: Path, *extra: str) -> list[str]:
    """``ssh`` with nothing from this machine's own set-up, checking the server's host key."""
    assert SSH is not None
    return [
        SSH,
        "-F",
        "/dev/null",
        "-p",
        str(server.port),
        "-o",
        f"UserKnownHostsFile={known_hosts}",
        "-o",
        "StrictHostKeyChecking=yes",
        "-o",
        "IdentityAgent=none",
        "-o",
        "PubkeyAuthentication=no",
        "-o",
        "BatchMode=yes",
        *extra,
        "guest@127.0.0.1",
    ]


def known_hosts_for(server: Server, path: Path) -> Path:
    key = asyncssh.read_private_key(server.home / "state" / "roost" / "ssh" / "host_ed25519_key")
    assert key.get_fingerprint() == server.fingerprint  # the one the server printed
    public = key.export_public_key().decode().split()[:2]
    path.write_text(f"[127.0.0.1]:{server.port} {' '.join(public)}\n", encoding="utf-8")
    return path


def ssh_under(pid: int) -> int:
    """The ``ssh`` process in the pane (the pane's own process or one below it)."""
    queue = [pid]
    while queue:
        current = queue.pop()
        if Path(f"/proc/{current}/comm").read_text().strip() == "ssh":
            return current
        queue += children_of(current)
    raise AssertionError("no ssh process in the pane")


def test_a_guest_with_openssh_at_80x24(tmp_path):
    with Server(tmp_path) as server:
        known = known_hosts_for(server, tmp_path / "known_hosts")
        # exec and a session without a PTY are refused with the reason on stderr
        ran = subprocess.run(
            [*ssh_command(server, known), "echo", "x"], capture_output=True, text=True, timeout=60
        )
        assert ran.returncode == 1 and ran.stdout == ""
        assert "roost: commands are not run here" in ran.stderr
        ran = subprocess.run(
            [*ssh_command(server, known, "-T")],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert ran.returncode == 1 and "roost: needs a terminal" in ran.stderr

        pane = Pane(tmp_path)
        try:
            # the client's SetEnv changes nothing: the dashboard still shows the demo network
            pane.start(ssh_command(server, known, "-o", "SetEnv=ROOST_READ_URL=http://127.0.0.1:9"))
            screen = pane.wait_for("301 agents")
            assert "DEMO" in screen
            pane.wait_for("all verified")
            pane.keys("n")
            pane.wait_for("posting is off for guests")
            pane.keys("6")
            pane.wait_for("11 boot records")
            pane.wait_for("not downloaded")
            pane.keys("Enter")
            screen = pane.wait_for("VERIFIED")
            assert "Egg inspector" in screen and "checks pass" in screen
            [child] = server.children()
            pane_pid = int(
                pane.tmux("display-message", "-p", "-t", pane.session, "#{pane_pid}").stdout
            )
            os.kill(ssh_under(pane_pid), signal.SIGKILL)  # the client dies, no goodbye
            wait_until(lambda: not alive(child), 30, "the dashboard to end and be reaped")
            assert server.children() == []
        finally:
            pane.stop()
        assert server.stop(signal.SIGINT) == 0  # Ctrl-C on the server's console
        assert any("SIGINT: stopping" in line for line in server.lines)
