"""`roost serve-ssh` end to end: the real command on a loopback port, asyncssh clients, the
dashboards it starts (one process per session) and what each client's terminal shows."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import stat
from pathlib import Path

import asyncssh
import pytest

from tests.ssh_rig import (
    Server,
    alive,
    connect,
    environ_of,
    open_terminal,
    server_env,
    until,
)
from tui.config import load_settings
from tui.ssh.auth import AuthorizedKeys
from tui.ssh.child import service_environment
from tui.ssh.hostkey import load_or_create
from tui.ssh.server import ServerLimits, SSHServe
from tui.ssh.session import READ_CHUNK, SessionLimits

pytestmark = pytest.mark.slow

DASHBOARD = "301 agents"  # the demo world's Agents tab is up (its 300, and the demo account)
DEMO_TOKEN = "roost-demo-token"


@pytest.fixture
def server(tmp_path: Path):
    with Server(tmp_path) as server:
        yield server


def keyed_user(home: Path, *options: str) -> tuple[asyncssh.SSHKey, Path]:
    """A keyed user's key, and an authorized keys file listing it after ``options``."""
    key = asyncssh.generate_private_key("ssh-ed25519", comment="alice@laptop")
    prefix = ",".join(options) + " " if options else ""
    path = home / "authorized_keys"
    path.write_text(
        "# who may post\n\n" + prefix + key.export_public_key().decode(), encoding="utf-8"
    )
    return key, path


async def one_child(server: Server) -> int:
    [pid] = await until(server.children, what="the session's dashboard process")
    return pid


# ------------------------------------------------------------------ a guest's session


async def test_a_guest_reaches_a_verified_egg_in_the_inspector_by_keys(server):
    async with await connect(server.port) as conn:
        term = await open_terminal(conn)
        await term.wait_for(DASHBOARD, "all verified")
        term.type("6")
        await term.wait_for("11 boot records", "not downloaded")
        term.type("\r")
        screen = await term.wait_for("Egg inspector", "VERIFIED")
        assert "checks pass" in screen and "FAILED" not in screen
        term.type("q")
        await term.wait_closed()
        assert term.exit_status == 0
    line = server.wait_for_line(r"session guest@127\.0\.0\.1:\d+ \[guest\]")
    assert "term=xterm-256color size=80x24" in line and "quit (exit 0)" in line


async def test_a_resize_reaches_the_dashboard_on_its_own_controlling_terminal(server):
    async with await connect(server.port) as conn:
        term = await open_terminal(conn)
        await term.wait_for(DASHBOARD)
        child = await one_child(server)
        # its own session, whose controlling terminal is the PTY; limits and a lower priority
        fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        assert int(fields[3]) == child  # session id: it leads its own session
        assert int(fields[4]) != 0  # tty_nr: it has a controlling terminal
        assert int(fields[16]) == 10  # nice
        limits = Path(f"/proc/{child}/limits").read_text()
        assert "Max address space         2147483648" in limits
        assert "Max open files            256" in limits
        term.resize(110, 30)
        # the dashboard draws for the new size: its key bar is on the 30th row now
        await until(lambda: "Quit" in term.screen.display[29], what="the key bar on row 30")
        assert "DEMO NETWORK" in term.screen.display[0][80:]
        term.resize(0, 0)  # no 0×0 terminal: the size falls back to 80×24
        await until(lambda: "Quit" in term.screen.display[23], what="the key bar on row 24")
    server.wait_for_line(r"session guest@.* size=80x24 .*client-gone")


async def test_exec_subsystem_and_sessions_without_a_pty_are_refused_with_a_reason(server):
    async with await connect(server.port) as conn:
        result = await conn.run("echo x", encoding=None)
        assert result.exit_status == 1 and result.stdout == b""
        assert (
            result.stderr
            == b"roost: commands are not run here: this server only shows the roost dashboard\r\n"
        )
        result = await conn.run(term_type="xterm", command="echo x", encoding=None)
        assert result.exit_status == 1 and b"commands are not run here" in result.stderr
        result = await conn.run(subsystem="sftp", encoding=None)
        assert result.exit_status == 1
        assert result.stderr.startswith(b"roost: no sftp subsystem here")
        result = await conn.run(encoding=None)  # a shell, no PTY (ssh -T)
        assert result.exit_status == 1
        assert (
            result.stderr == b"roost: needs a terminal: connect with a PTY (ssh -t, not ssh -T)\r\n"
        )
    assert server.children() == []
    server.wait_for_line(r"refused: needs a terminal")


async def test_port_forwarding_of_every_kind_is_refused(server):
    async with await connect(server.port) as conn:
        with pytest.raises(asyncssh.ChannelOpenError) as refused:
            await conn.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", server.port)
        assert refused.value.reason == "port forwarding is off on this server"
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_unix_connection(asyncssh.SSHUNIXSession, "/run/x.sock")
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)
        # the connection itself is still good: the dashboard opens on it
        term = await open_terminal(conn)
        await term.wait_for(DASHBOARD)


async def test_what_the_client_sends_for_the_environment_is_ignored(tmp_path):
    env = server_env(tmp_path)
    env.update({"GH_TOKEN": "server-gh-token", "EDITOR": "vi", "LC_TIME": "C.UTF-8"})
    with Server(tmp_path, env=env) as server:
        async with await connect(server.port) as conn:
            sent = {
                "ROOST_READ_URL": "http://127.0.0.1:9/",
                "ROOST_SSH_ROLE": "user",
                "ROOST_TOKEN": "client-token",
                "EDITOR": "/bin/sh",
                "LD_PRELOAD": "/tmp/evil.so",
                "PYTHONSTARTUP": "/tmp/evil.py",
                "TEXTUAL_ALLOW_SIGNALS": "1",
                "LC_ALL": "xx_XX.UTF-8",
            }
            term = await open_terminal(conn, term="xterm-kitty", env=sent)
            await term.wait_for(DASHBOARD, "DEMO")  # not the client's read URL
            child_env = environ_of(await one_child(server))
            assert not {key for key, value in sent.items() if child_env.get(key) == value}
            assert child_env["ROOST_SSH_ROLE"] == "guest"
            assert child_env["TERM"] == "xterm-kitty" and child_env["COLORTERM"] == "truecolor"
            assert child_env["LC_TIME"] == "C.UTF-8"  # the server's locale
            # the server's cache (state files and eggs), shared by every session
            assert child_env["ROOST_CACHE_DIR"] == str(tmp_path / "cache" / "roost")
            # no token and no editor of the server's either
            assert not {"GH_TOKEN", "ROOST_TOKEN", "GITHUB_TOKEN", "EDITOR"} & set(child_env)
            term.type("n")
            await term.wait_for("posting is off for guests")


async def test_a_guest_cannot_open_a_form_or_an_outbox(server):
    async with await connect(server.port, username="alice") as conn:  # no key: a guest
        term = await open_terminal(conn)
        await term.wait_for(DASHBOARD)
        term.type("n")
        screen = await term.wait_for("posting is off for guests")
        assert "New action" not in screen and "Token for" not in screen
        term.type("T")
        await term.wait_for("Cannot post here")
        term.type("o")
        await term.wait_for("No outbox")
        assert "Token for" not in term.text() and "New action" not in term.text()
    guests = server.home / "state" / "roost" / "ssh"
    assert not list(guests.rglob("outbox"))


# ------------------------------------------------------------------ keyed users


async def test_a_keyed_user_posts_with_a_typed_token_into_their_own_outbox(tmp_path):
    key, authorized = keyed_user(tmp_path, 'from="127.0.0.0/8"', "no-agent-forwarding")
    config = tmp_path / "config" / "roost"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('token = "config-token"\n', encoding="utf-8")
    with Server(tmp_path, "--authorized-keys", str(authorized)) as server:
        assert server.wait_for_line("keyed users: 1 key")
        # a user name other than guest needs a listed key
        other = asyncssh.generate_private_key("ssh-ed25519")
        with pytest.raises(asyncssh.PermissionDenied):
            await connect(server.port, username="alice", keys=[other])
        with pytest.raises(asyncssh.PermissionDenied):
            await connect(server.port, username="alice")
        async with await connect(server.port, username="alice", keys=[key]) as conn:
            term = await open_terminal(conn)
            await term.wait_for(DASHBOARD, "all verified")
            term.type("n")  # no token is looked for (not even the config file's): one is asked
            await term.wait_for("Token for", "roost looks for no token here")
            term.type(DEMO_TOKEN, "\r")
            await term.wait_for("New action")
            assert DEMO_TOKEN not in term.text()  # the field is masked
            term.type("heartbeat")
            await term.wait_for("Check in to maintain active status")
            term.type("\r")
            await term.wait_for("Send heartbeat")
            term.type("\x05")  # ctrl+e: no $EDITOR over SSH
            await term.wait_for("no $EDITOR in SSH mode")
            term.type("\x13")  # ctrl+s
            await term.wait_for("heartbeat #")
        users = server.home / "state" / "roost" / "ssh" / "users"
        [home] = list(users.iterdir())
        assert home.name == "key-" + key.get_fingerprint().split(":")[1].replace("/", "_").replace(
            "+", "-"
        )
        [entry] = list((home / "roost" / "outbox").rglob("*.json"))
        assert '"heartbeat"' in entry.read_text()
        for path in server.home.rglob("*"):
            if path.is_file():
                assert DEMO_TOKEN.encode() not in path.read_bytes(), path
        line = server.wait_for_line(r"session alice@")
        assert f"[user {key.get_fingerprint()}]" in line


async def test_the_guest_name_needs_no_key_beside_keyed_users(tmp_path):
    key, authorized = keyed_user(tmp_path)
    with Server(tmp_path, "--authorized-keys", str(authorized)) as server:
        # a client that offered a listed key for another name, then logs in as guest, is a guest
        async with await connect(server.port, username="guest", keys=[key]) as conn:
            term = await open_terminal(conn)
            await term.wait_for(DASHBOARD)
            assert environ_of(await one_child(server))["ROOST_SSH_ROLE"] == "guest"
            term.type("n")
            await term.wait_for("posting is off for guests")


# ------------------------------------------------------------------ limits


async def test_a_killed_client_leaves_no_process_behind(server):
    conn = await connect(server.port)
    term = await open_terminal(conn)
    await term.wait_for(DASHBOARD)
    child = await one_child(server)
    conn.abort()  # the TCP connection drops, as when the client is killed
    await until(lambda: not alive(child), 30, "the dashboard to end and be reaped")
    assert server.children() == []
    server.wait_for_line(r"session guest@.*client-gone")


async def test_the_session_and_per_address_caps_refuse_politely(tmp_path):
    with Server(tmp_path, "--max-sessions", "2", "--max-per-address", "1") as server:
        first = await connect(server.port)
        term = await open_terminal(first)
        await term.wait_for(DASHBOARD)
        async with await connect(server.port) as conn:
            refused = await open_terminal(conn)
            await refused.wait_closed()
            assert refused.exit_status == 1
            assert refused.stderr == (
                b"roost: too many sessions from your address (1 at once); "
                b"close one and try again\r\n"
            )
        second = await connect(server.port, local_addr=("127.0.0.2", 0))
        other = await open_terminal(second)
        await other.wait_for(DASHBOARD)
        async with await connect(server.port, local_addr=("127.0.0.3", 0)) as conn:
            refused = await open_terminal(conn)
            await refused.wait_closed()
            assert refused.stderr.startswith(b"roost: the server is full (2 sessions at once)")
        assert len(server.children()) == 2
        first.close()
        await until(lambda: len(server.children()) == 1, 30, "the first session to end")
        async with await connect(server.port) as conn:  # room again
            term = await open_terminal(conn)
            await term.wait_for(DASHBOARD)
        second.close()


async def test_an_idle_session_is_warned_then_ended(tmp_path):
    with Server(tmp_path, "--idle-timeout", "8") as server:
        async with await connect(server.port) as conn:
            term = await open_terminal(conn)
            await term.wait_for(DASHBOARD)
            child = await one_child(server)
            term.type("2")  # a key: the idle clock starts over with the dashboard up
            await term.wait_for("No key for a while", timeout=30)
            await term.wait_closed(30)
            assert b"roost: ended after 8 s without a key" in term.output
            assert term.exit_status == 0
        await until(lambda: not alive(child), 30, "the dashboard to be reaped")
        server.wait_for_line(r"session guest@.* idle \(exit 0\)")


async def test_a_session_ends_at_its_time_limit(tmp_path):
    with Server(tmp_path, "--max-session", "6") as server:
        async with await connect(server.port) as conn:
            term = await open_terminal(conn)
            await term.wait_for(DASHBOARD)
            await term.wait_closed(30)
            assert b"roost: ended: the session reached its time limit (6 s)" in term.output
        assert server.children() == []


async def test_sigterm_ends_every_session_and_stops(tmp_path):
    with Server(tmp_path) as server:
        conns = [await connect(server.port), await connect(server.port)]
        terms = [await open_terminal(conn) for conn in conns]
        for term in terms:
            await term.wait_for(DASHBOARD)
        children = server.children()
        assert len(children) == 2
        assert server.stop(signal.SIGTERM) == 0
        for term in terms:
            await term.wait_closed(30)
            assert b"roost: ended: the server is stopping" in term.output
        assert not any(alive(pid) for pid in children)
        assert any("stopped (2 sessions ended)" in line for line in server.lines)


# ------------------------------------------------------------------ the host key


async def test_the_host_key_is_kept_across_restarts_and_refused_when_others_may_read_it(
    tmp_path,
):
    with Server(tmp_path) as server:
        first = server.fingerprint
        assert server.wait_for_line("host key ssh-ed25519 SHA256:.*created")
        async with await connect(server.port) as conn:
            assert conn.get_server_host_key().get_fingerprint() == first
    key_file = tmp_path / "state" / "roost" / "ssh" / "host_ed25519_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    with Server(tmp_path) as server:
        assert server.fingerprint == first
        assert server.wait_for_line("host key .*kept")
        async with await connect(server.port) as conn:
            assert conn.get_server_host_key().get_fingerprint() == first
    before = key_file.read_bytes()
    key_file.chmod(0o644)
    loose = Server(tmp_path)
    with pytest.raises(AssertionError, match="let others read the host key"):
        loose.start()
    assert loose.process is not None and loose.process.wait(30) == 2
    assert key_file.read_bytes() == before  # never replaced
    key_file.chmod(0o600)
    key_file.write_bytes(b"not a key\n")
    broken = Server(tmp_path)
    with pytest.raises(AssertionError, match="not a usable private key"):
        broken.start()
    assert key_file.read_bytes() == b"not a key\n"


# ------------------------------------------------------------------ the server in this process


def in_process(tmp_path: Path, limits: ServerLimits, lines: list[str]) -> SSHServe:
    """The server object itself, with limits the command has no option for."""
    state = tmp_path / "ssh"
    return SSHServe(
        host_key=load_or_create(state),
        authorized=AuthorizedKeys.none(),
        service_env=service_environment(load_settings(env={}, path=tmp_path / "none.toml")),
        state_dir=state,
        port=0,
        limits=limits,
        log=lines.append,
    )


async def test_a_connection_that_never_logs_in_is_closed_at_the_login_timeout(tmp_path):
    serve = in_process(tmp_path, ServerLimits(login_timeout_s=2.0), [])
    await serve.start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", serve.port)
        assert (await reader.readline()).startswith(b"SSH-2.0-")
        writer.write(b"SSH-2.0-silent\r\n")  # then nothing: no key exchange, no login
        await asyncio.wait_for(reader.read(), 30)  # the server hangs up
        assert reader.at_eof()
        writer.close()
    finally:
        await serve.stop()


async def test_connections_from_one_address_beyond_its_share_are_dropped_at_once(tmp_path):
    """Logins under way count too: one address cannot hold the server's handshakes."""
    limits = ServerLimits(max_per_address=1, login_timeout_s=60.0)
    assert limits.max_connections_per_address == 4
    serve = in_process(tmp_path, limits, [])
    await serve.start()
    opened = []
    try:
        for _ in range(4):
            opened.append(await asyncio.open_connection("127.0.0.1", serve.port))
            assert (await opened[-1][0].readline()).startswith(b"SSH-2.0-")
        reader, writer = await asyncio.open_connection("127.0.0.1", serve.port)
        await asyncio.wait_for(reader.read(), 30)  # the fifth is hung up on, not kept
        assert reader.at_eof()
        writer.close()
        assert len(serve.connections) == 4
        assert not any(r.at_eof() for r, _ in opened)
    finally:
        for _, w in opened:
            w.close()
        await serve.stop()


class Relay:
    """A TCP relay between a client and the server whose "network" can be cut: bytes stop
    flowing both ways while both sockets stay open (no FIN, no RST), as when a laptop sleeps."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cut = asyncio.Event()
        self.closed = asyncio.Event()
        self.server: asyncio.Server | None = None
        self.writers: list[asyncio.StreamWriter] = []

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writers += [writer, up_writer]

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            while data := await source.read(65536):
                if self.cut.is_set():
                    await self.closed.wait()  # hold everything until the test ends
                    return
                sink.write(data)
                await sink.drain()

        with contextlib.suppress(Exception):
            await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

    def close(self) -> None:
        self.closed.set()
        for writer in self.writers:
            writer.close()
        if self.server is not None:
            self.server.close()


async def test_a_client_whose_network_is_gone_is_ended_by_keepalives(tmp_path):
    lines: list[str] = []
    serve = in_process(tmp_path, ServerLimits(keepalive_s=1.0, keepalive_count=2), lines)
    await serve.start()
    relay = Relay(serve.port)
    try:
        conn = await connect(await relay.start())
        term = await open_terminal(conn)
        await term.wait_for(DASHBOARD)
        [session] = list(serve.sessions)
        child = session.child
        assert child is not None
        relay.cut.set()  # the network is gone; the client never says goodbye
        await until(lambda: not alive(child.pid), 60, "the dashboard to end and be reaped")
        await until(lambda: any("client-gone" in line for line in lines), 30, "the log line")
        assert serve.child_pids() == []
        conn.abort()
    finally:
        relay.close()
        await serve.stop()


async def test_output_to_a_client_that_reads_nothing_stays_bounded_and_the_session_ends(
    tmp_path,
):
    """The server in this process, to watch its buffers: a client that stops reading holds
    back the dashboard (the PTY is no longer read), not the server's memory, and is ended."""
    limits = ServerLimits(session=SessionLimits(output_buffer=4096, stall_s=3.0))
    lines: list[str] = []
    serve = in_process(tmp_path, limits, lines)
    await serve.start()
    try:
        conn = await connect(serve.port)
        term = await open_terminal(conn, window=8192)
        term.chan.pause_reading()  # reads nothing from now on
        [session] = await until(lambda: list(serve.sessions), what="the session")
        child = await until(lambda: session.child, what="its dashboard")
        most = 0

        def ended() -> bool:
            nonlocal most
            if session.chan is not None:
                most = max(most, session.chan.get_write_buffer_size())
            return any("stalled" in line for line in lines)

        await until(ended, 60, "the stalled session to end")
        assert most <= limits.session.output_buffer + READ_CHUNK
        await until(lambda: not alive(child.pid), 30, "the dashboard to be reaped")
        term.chan.resume_reading()
        await term.wait_closed(30)
        assert b"roost: ended: the client stopped reading" in term.output
        conn.close()
    finally:
        await serve.stop()


async def test_sessions_follow_the_servers_one_refresher(server):
    """Every dashboard inherits a feed from the server's refresher (a socket), and one that
    dies takes no other with it."""
    async with await connect(server.port) as conn:
        terms = [await open_terminal(conn) for _ in range(3)]
        for term in terms:
            await term.wait_for(DASHBOARD)
        pids = await until(lambda: len(server.children()) == 3 and server.children())
        for pid in pids:
            fd = environ_of(pid)["ROOST_SSH_FEED_FD"]
            assert stat.S_ISSOCK(Path(f"/proc/{pid}/fd/{fd}").stat().st_mode)
        os.kill(pids[0], signal.SIGKILL)
        await until(lambda: not alive(pids[0]), what="the killed dashboard gone")
        for term in terms[1:]:
            term.type("r")  # a cycle for everyone, asked of the refresher
        for term in terms[1:]:
            await term.wait_for("online")
        assert all(alive(pid) for pid in pids[1:])
