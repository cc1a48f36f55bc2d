"""`roost serve-ssh` at its hard edges: stopping with its output gone, a flood of refusals, the
caps on connections and guests, the folders it trusts. Fast: the server runs in this process
with a small program in place of the dashboard, or as the real command with no session.
Long runs with real dashboards are marked slow."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest

from tests.signals_rig import then_sigint_as_from_a_terminal
from tests.ssh_rig import (
    ROOT,
    START_S,
    alive,
    connect,
    dashboards_of,
    open_terminal,
    server_env,
    until,
)
from tui.config import load_settings
from tui.ssh.auth import AuthorizedKeys
from tui.ssh.child import service_environment
from tui.ssh.hostkey import load_or_create
from tui.ssh.server import ServerLimits, SSHServe
from tui.ssh.session import SessionLimits

#: In place of the dashboard: says it is up, echoes keys, quits on q. "stubborn" ignores SIGTERM.
PROGRAM = r"""
import os, signal, sys, tty
if sys.argv[-1] == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
tty.setraw(0)
os.write(1, b"program up\r\n")
while True:
    data = os.read(0, 1024)
    if not data or b"q" in data:
        break
    os.write(1, data)
"""


def in_process(
    tmp_path: Path,
    limits: ServerLimits,
    lines: list[str],
    authorized: AuthorizedKeys | None = None,
    mood: str = "plain",
) -> SSHServe:
    state = tmp_path / "ssh"
    return SSHServe(
        host_key=load_or_create(state),
        authorized=authorized or AuthorizedKeys.none(),
        service_env=service_environment(load_settings(env={}, path=tmp_path / "none.toml")),
        state_dir=state,
        port=0,
        limits=limits,
        log=lines.append,
        command=[sys.executable, "-c", PROGRAM, mood],
    )


async def session_up(conn: asyncssh.SSHClientConnection):
    term = await open_terminal(conn)
    await term.wait_for("program up")
    return term


# ------------------------------------------------------------------ a stop with the output gone


def start_command(tmp_path: Path, *args: str, **popen) -> subprocess.Popen[str]:
    """The real command, its output on pipes; returns once it has said all its start lines
    (the port it listens on is in ``process.said``)."""
    popen["preexec_fn"] = then_sigint_as_from_a_terminal(popen.get("preexec_fn"))
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "serve-ssh", "--port", "0", *args],
        env=server_env(tmp_path),
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )
    assert process.stdout is not None
    said = []
    for line in process.stdout:
        said.append(line)
        if line.startswith("roost serve-ssh: guests:"):
            process.said = said  # type: ignore[attr-defined]
            return process
    raise AssertionError(f"the server did not start: {process.communicate()}")


def port_of(process: subprocess.Popen[str]) -> int:
    found = re.search(r"listening on \S+:(\d+)", process.said[0])  # type: ignore[attr-defined]
    assert found is not None
    return int(found.group(1))


def finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        code = process.wait(START_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
        raise AssertionError("the server kept running after the signal") from None
    assert process.stderr is not None
    return code, process.stderr.read()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_server_after_its_reader_went_away(tmp_path, signum):
    """`roost serve-ssh | head -1`, then a signal: the log moves to stderr, the server stops."""
    process = start_command(tmp_path)
    assert process.stdout is not None
    process.stdout.close()  # the reader is gone: the next line to stdout fails
    process.send_signal(signum)
    code, errors = finish(process)
    assert code == 0, errors
    assert "Traceback" not in errors and "Exception" not in errors
    assert f"{signal.Signals(signum).name}: stopping" in errors
    assert "stopped (0 sessions ended)" in errors


def test_a_signal_stops_the_server_with_both_its_streams_gone(tmp_path):
    process = start_command(tmp_path)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    process.stderr.close()
    process.send_signal(signal.SIGTERM)
    assert process.wait(START_S) == 0


def test_a_hangup_stops_the_server_unless_it_was_started_to_ignore_it(tmp_path):
    process = start_command(tmp_path)
    process.send_signal(signal.SIGHUP)
    code, errors = finish(process)
    assert code == 0 and errors == ""
    # under nohup (SIGHUP ignored) a hangup stays ignored: the SIGTERM after it is what stops it
    process = start_command(
        tmp_path, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN)
    )
    process.send_signal(signal.SIGHUP)
    process.send_signal(signal.SIGTERM)
    code, _ = finish(process)
    assert process.stdout is not None
    said = process.stdout.read()
    assert code == 0 and "SIGTERM: stopping" in said and "SIGHUP" not in said


async def test_a_second_signal_ends_the_sessions_at_once(tmp_path):
    """A dashboard that ignores SIGTERM would hold the stop for the grace period: the second
    ctrl+c (or SIGTERM) kills it now."""
    lines: list[str] = []
    limits = ServerLimits(session=SessionLimits(stop_grace_s=600.0))
    serve = in_process(tmp_path, limits, lines, mood="stubborn")
    await serve.start()
    async with await connect(serve.port) as conn:
        term = await session_up(conn)
        [pid] = serve.child_pids()
        stopping = asyncio.ensure_future(serve.stop())
        await until(lambda: any(s.ending == "server-stopping" for s in serve.sessions))
        assert alive(pid)  # SIGTERM was ignored
        serve.hurry()
        assert await asyncio.wait_for(stopping, START_S) == 1
        assert not alive(pid)
        await term.wait_closed()


@pytest.mark.slow
async def test_a_signal_ends_real_sessions_after_the_reader_went_away(tmp_path):
    process = start_command(tmp_path)
    try:
        async with await connect(port_of(process)) as conn:
            term = await open_terminal(conn)
            await term.wait_for("301 agents")
            [child] = dashboards_of(process.pid)
            assert process.stdout is not None
            process.stdout.close()
            process.send_signal(signal.SIGTERM)
            await term.wait_closed()
            assert b"roost: ended: the server is stopping" in term.output
            await until(lambda: process.poll() is not None, what="the server to exit")
    finally:
        if process.poll() is None:
            process.kill()
    code, errors = finish(process)
    assert code == 0 and "stopped (1 session ended)" in errors, errors
    assert "standard output is closed" in errors and "Traceback" not in errors
    assert not alive(child)


# ------------------------------------------------------------------ a flood of refusals


async def test_refusals_are_logged_once_per_address_and_reason_with_a_count(tmp_path):
    lines: list[str] = []
    serve = in_process(tmp_path, ServerLimits(), lines)
    await serve.start()
    try:
        async with await connect(serve.port) as conn:
            for _ in range(30):
                result = await conn.run("echo x", encoding=None)
                assert result.exit_status == 1 and b"commands are not run here" in result.stderr
        async with await connect(serve.port) as conn:  # another connection, the same address
            for _ in range(5):
                await conn.run("echo x", encoding=None)
            for _ in range(3):
                await conn.run(encoding=None)  # no PTY: another reason
            with pytest.raises(asyncssh.ChannelOpenError):
                await conn.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", 22)
            with pytest.raises(asyncssh.ChannelOpenError):
                await conn.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", 23)
        async with await connect(serve.port, local_addr=("127.0.0.2", 0)) as conn:
            await conn.run("echo x", encoding=None)  # another address: its own line
        execs = [line for line in lines if "commands are not run here" in line]
        assert len(execs) == 2
        assert "@127.0.0.1:" in execs[0] and "@127.0.0.2:" in execs[1]
        assert len([line for line in lines if "needs a terminal" in line]) == 1
        [forwarding] = [line for line in lines if "forwarding" in line]
        assert forwarding.startswith("connection guest@127.0.0.1:")
        assert forwarding.endswith("refused: port forwarding is off on this server")
    finally:
        await serve.stop()
    # stopping says what the minute counted
    [counted] = [line for line in lines if line.endswith("more in the last minute)")][:1]
    assert "commands are not run here" in counted and "@127.0.0.1:" in counted
    assert counted.endswith("(and 33 more in the last minute)")
    assert any(
        "needs a terminal" in line and line.endswith("(and 1 more in the last minute)")
        for line in lines
    )


async def test_connections_dropped_at_once_are_logged_once_a_minute(tmp_path):
    lines: list[str] = []
    serve = in_process(tmp_path, ServerLimits(max_per_address=1), lines)  # 4 per address
    await serve.start()
    opened = []
    try:
        for _ in range(4):
            opened.append(await asyncio.open_connection("127.0.0.1", serve.port))
        for _ in range(6):
            reader, writer = await asyncio.open_connection("127.0.0.1", serve.port)
            await asyncio.wait_for(reader.read(), START_S)
            writer.close()
    finally:
        for _, writer in opened:
            writer.close()
        await serve.stop()
    dropped = [line for line in lines if "too many connections from your address" in line]
    assert len(dropped) == 2
    assert dropped[0].startswith("connection 127.0.0.1:")
    assert dropped[1].endswith("(and 4 more in the last minute)")


# ------------------------------------------------------------------ connections


async def test_connections_beyond_the_global_cap_are_dropped_at_once(tmp_path):
    lines: list[str] = []
    limits = ServerLimits(max_sessions=1, max_connections=2, max_per_address=8)
    serve = in_process(tmp_path, limits, lines)
    await serve.start()
    opened = []
    try:
        for address in ("127.0.0.2", "127.0.0.3"):
            opened.append(
                await asyncio.open_connection("127.0.0.1", serve.port, local_addr=(address, 0))
            )
            assert (await opened[-1][0].readline()).startswith(b"SSH-2.0-")
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", serve.port, local_addr=("127.0.0.4", 0)
        )
        await asyncio.wait_for(reader.read(), START_S)  # hung up on
        writer.close()
        assert len(serve.connections) == 2
        # the client is told why
        with pytest.raises(asyncssh.DisconnectError, match="the server is full"):
            await connect(serve.port, local_addr=("127.0.0.5", 0))
    finally:
        for _, writer in opened:
            writer.close()
        await serve.stop()
    assert any(
        line.startswith("connection 127.0.0.4:")
        and line.endswith("refused: the server is full (2 connections at once)")
        for line in lines
    )


async def test_a_connection_that_opens_no_session_is_closed_at_the_login_timeout(tmp_path):
    lines: list[str] = []
    serve = in_process(tmp_path, ServerLimits(login_timeout_s=3.0), lines)
    await serve.start()
    try:
        conn = await connect(serve.port)  # logged in; no session
        await asyncio.wait_for(conn.wait_closed(), START_S)
        await until(lambda: not serve.connections, what="the server to let it go")
    finally:
        await serve.stop()
    assert any(
        line.startswith("connection guest@127.0.0.1:")
        and line.endswith("closed: no session opened within 3 s")
        for line in lines
    ), lines


async def test_the_idle_timeout_applies_to_a_connection_with_no_session(tmp_path):
    """A connection whose sessions were all refused (or ended) is idle: closed after the idle
    timeout, here shorter than the login timeout."""
    lines: list[str] = []
    limits = ServerLimits(login_timeout_s=600.0, session=SessionLimits(idle_s=1.0))
    serve = in_process(tmp_path, limits, lines)
    await serve.start()
    try:
        conn = await connect(serve.port)
        result = await conn.run("echo x", encoding=None)
        assert result.exit_status == 1
        await asyncio.wait_for(conn.wait_closed(), START_S)
    finally:
        await serve.stop()
    assert any(line.endswith("closed: no session for 1 s (idle)") for line in lines), lines


async def test_a_connection_with_a_session_is_kept_and_closed_once_it_ends(tmp_path):
    lines: list[str] = []
    serve = in_process(tmp_path, ServerLimits(login_timeout_s=2.0), lines)
    await serve.start()
    try:
        conn = await connect(serve.port)
        term = await session_up(conn)
        await asyncio.sleep(2.5)  # past the login timeout: a session is running, it stays
        assert not term.closed and len(serve.connections) == 1
        term.type("q")
        await term.wait_closed()
        assert term.exit_status == 0
        await asyncio.wait_for(conn.wait_closed(), START_S)  # then it has none: closed
    finally:
        await serve.stop()


async def test_session_channels_on_one_connection_are_capped(tmp_path):
    """Channels opened and left without a request would each hold memory for good."""
    lines: list[str] = []
    serve = in_process(tmp_path, ServerLimits(max_per_address=2), lines)
    await serve.start()
    try:
        async with await connect(serve.port) as conn:
            held = [await bare_channel(conn) for _ in range(2)]
            with pytest.raises(asyncssh.ChannelOpenError, match="too many sessions on this"):
                await bare_channel(conn)
            held[0].close()
            await held[0].wait_closed()
            await reopened(conn)  # room again once one is closed
    finally:
        await serve.stop()
    assert any("refused a session: too many sessions on this connection" in s for s in lines)


async def bare_channel(conn: asyncssh.SSHClientConnection) -> asyncssh.SSHClientChannel:
    """A session channel opened and left with no request at all (asyncssh's public calls
    always send one, so its channel's own open is used)."""
    chan = asyncssh.SSHClientChannel(
        conn, asyncio.get_running_loop(), False, None, "strict", 2 * 1024 * 1024, 32768
    )
    await chan._open(b"session")
    return chan


async def reopened(conn: asyncssh.SSHClientConnection) -> None:
    """A session channel opens, once the server has seen the last one close."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_S
    while True:
        try:
            chan = await bare_channel(conn)
        except asyncssh.ChannelOpenError:
            assert loop.time() < deadline, "no session channel could be opened again"
            await asyncio.sleep(0.05)
            continue
        chan.close()
        return


# ------------------------------------------------------------------ guests and keyed users


def keyed(tmp_path: Path) -> tuple[asyncssh.SSHKey, AuthorizedKeys]:
    key = asyncssh.generate_private_key("ssh-ed25519")
    return key, AuthorizedKeys.parse(key.export_public_key().decode())


async def test_guests_leave_places_for_keyed_users(tmp_path):
    key, authorized = keyed(tmp_path)
    lines: list[str] = []
    limits = ServerLimits(max_sessions=3, max_per_address=3)  # one place for guests
    serve = in_process(tmp_path, limits, lines, authorized)
    await serve.start()
    try:
        async with await connect(serve.port) as guest:
            await session_up(guest)
            async with await connect(serve.port, local_addr=("127.0.0.2", 0)) as other:
                refused = await open_terminal(other)
                await refused.wait_closed()
                assert refused.exit_status == 1
                assert refused.stderr == (
                    b"roost: all guest places are taken; keyed users can still connect\r\n"
                )
            async with await connect(serve.port, username="alice", keys=[key]) as alice:
                await session_up(alice)
                assert len(serve.child_pids()) == 2
    finally:
        await serve.stop()
    assert any("refused: all guest places are taken" in line for line in lines)


async def test_without_authorized_keys_every_place_is_a_guests(tmp_path):
    serve = in_process(tmp_path, ServerLimits(max_sessions=2), [])
    await serve.start()
    try:
        async with await connect(serve.port) as one, await connect(serve.port) as two:
            await session_up(one)
            await session_up(two)
            assert len(serve.child_pids()) == 2
    finally:
        await serve.stop()


def test_guest_sessions_without_authorized_keys_is_a_usage_error(tmp_path):
    ran = subprocess.run(
        [sys.executable, "-m", "tui", "serve-ssh", "--port", "0", "--guest-sessions", "3"],
        env=server_env(tmp_path),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=START_S,
    )
    assert ran.returncode == 2
    assert "--guest-sessions needs --authorized-keys" in ran.stderr


# ------------------------------------------------------------------ the folders it trusts


def test_a_host_key_folder_others_may_write_to_stops_the_server(tmp_path):
    folder = tmp_path / "state" / "roost" / "ssh"
    folder.mkdir(parents=True)
    folder.chmod(0o777)
    ran = subprocess.run(
        [sys.executable, "-m", "tui", "serve-ssh", "--port", "0"],
        env=server_env(tmp_path),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=START_S,
    )
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr == (
        f"roost: {folder}: writable by others (mode 0777): others could replace the host key "
        f"(run `chmod 700 {folder}`, and check what is in it)\n"
    )
    assert list(folder.iterdir()) == []


def test_a_server_started_with_its_output_closed_logs_to_stderr_and_stops(tmp_path):
    """`roost serve-ssh >&-`: Python starts with no sys.stdout at all."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "serve-ssh", "--port", "0"],
        env=server_env(tmp_path),
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),
    )
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("roost serve-ssh: guests:"):
            break
    process.send_signal(signal.SIGTERM)
    assert process.wait(START_S) == 0
    said = process.stderr.read()
    assert "stopped (0 sessions ended)" in said and "internal error" not in said
