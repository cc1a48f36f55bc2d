"""`roost serve-ssh`'s server: the listener, who logs in, the caps, and a clean stop
(ARCHITECTURE.md, serving over SSH).

Built on asyncssh with the defaults a full-screen program needs changed: raw bytes
(``encoding=None``), no line editor, no agent or X11 forwarding, no passwords or
keyboard-interactive, a login timeout and keepalives. Port forwarding of every kind is refused
with a reason. This module never imports Textual: each session's dashboard is a child process
(``tui.ssh.child``).

Caps: sessions at once (some kept for keyed users when there are any), sessions from one
address, connections at once and from one address (dropped as they come), session channels on
one connection. A connection lives only to hold sessions: one with none running (none opened
yet, or its last one over) is closed after the login timeout, or the idle timeout if that is
shorter and it has logged in. Refusals go to the log at most once per address and reason a
minute (``tui.ssh.log``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import asyncssh

from tui.ssh.auth import AuthorizedKeys, Identity
from tui.ssh.child import Child, child_environment
from tui.ssh.folders import private_subfolder
from tui.ssh.hostkey import HostKey
from tui.ssh.log import RefusalLog
from tui.ssh.mode import GUEST
from tui.ssh.session import Refusal, SessionLimits, SSHSession, span
from tui.untrusted import clean_line

if TYPE_CHECKING:
    from tui.ssh.refresher import Refresher
    from tui.ssh.zygote import Zygote

__all__ = ["GUESTS_FULL", "ServerLimits", "SSHServe"]

FORWARDING_OFF = "port forwarding is off on this server"
GUESTS_FULL = "all guest places are taken; keyed users can still connect"


@dataclass(frozen=True)
class ServerLimits:
    max_sessions: int = 16
    max_per_address: int = 4
    #: Connections at once, logged in or not (None: four per session place).
    max_connections: int | None = None
    #: Sessions guests may hold at once when there are keyed users (None: all but two).
    guest_sessions: int | None = None
    login_timeout_s: float = 30.0
    keepalive_s: float = 15.0  # a vanished client is noticed after about three of these
    keepalive_count: int = 3
    session: SessionLimits = field(default_factory=SessionLimits)

    @property
    def connection_cap(self) -> int:
        if self.max_connections is not None:
            return self.max_connections
        return 4 * self.max_sessions

    @property
    def guest_places(self) -> int:
        """Sessions guests may hold at once beside keyed users (never more than there are)."""
        wanted = self.max_sessions - 2 if self.guest_sessions is None else self.guest_sessions
        return max(0, min(wanted, self.max_sessions))

    @property
    def max_connections_per_address(self) -> int:
        """Connections from one address, logged in or not, before new ones are dropped at once
        (room for the sessions plus a few logins under way)."""
        return self.max_per_address * 2 + 2


class _Connection(asyncssh.SSHServer):
    """One client connection: its address, its login, the sessions it opens, and how long it
    may stay with none."""

    def __init__(self, serve: SSHServe) -> None:
        self.serve = serve
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = "?"
        self.port = 0
        self.identity = Identity(GUEST, "")
        self.logged_in = False
        self.closed = False
        self.channels: set[SSHSession] = set()  # session channels open on it
        self._key: asyncssh.SSHKey | None = None
        self._key_username: str | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._deadline_why = ("", "")  # the reason the log counts it under, and the text

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername") or ("?", 0)
        self.address, self.port = str(peer[0]), int(peer[1])
        serve, limits = self.serve, self.serve.server_limits
        serve.connections.add(self)
        if len(serve.connections) > limits.connection_cap:
            self._drop(
                "connections-full",
                f"the server is full ({limits.connection_cap} connections at once)",
                "; try again later",
            )
        elif serve.connections_from(self.address) > limits.max_connections_per_address:
            self._drop(
                "connections-per-address",
                "too many connections from your address "
                f"({limits.max_connections_per_address} at once)",
            )
        else:
            login = limits.login_timeout_s
            self._close_in(login, ("no-session", f"no session opened within {span(login)}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._cancel_deadline()
        self.serve.connections.discard(self)

    @property
    def who(self) -> str:
        if not self.logged_in:
            return f"{self.address}:{self.port}"
        return f"{clean_line(self.identity.username, 32) or '-'}@{self.address}:{self.port}"

    def _drop(self, reason: str, text: str, advice: str = "") -> None:
        """Refuse the connection as it comes: said once to the client, logged (counted)."""
        self.serve.refused(self.address, reason, f"connection {self.who} refused: {text}")
        assert self.conn is not None
        asyncio.get_running_loop().call_soon(
            self.conn.disconnect, asyncssh.DISC_TOO_MANY_CONNECTIONS, f"roost: {text}{advice}"
        )

    # ------------------------------------------------------------------ a connection with no session

    def _close_in(self, seconds: float, why: tuple[str, str]) -> None:
        self._cancel_deadline()
        self._deadline_why = why
        self._deadline = asyncio.get_running_loop().call_later(seconds, self._no_session)

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _running(self) -> bool:
        return any(session in self.serve.sessions for session in self.channels)

    def session_changed(self) -> None:
        """A session started or ended, or a channel closed: a connection with a session running
        has no deadline; one whose last session ended gets one. A refused session changes
        nothing: it does not buy the connection more time."""
        self.channels = {s for s in self.channels if not s.channel_closed}
        if self._running():
            self._cancel_deadline()
        elif self._deadline is None and not self.closed:
            self._close_in(*self._lone_limit())

    def _lone_limit(self) -> tuple[float, tuple[str, str]]:
        """How long a logged-in connection may stay with no session, and why it is closed."""
        login = self.serve.server_limits.login_timeout_s
        idle = self.serve.limits.idle_s
        if 0 < idle < login:
            return idle, ("idle", f"no session for {span(idle)} (idle)")
        return login, ("no-session", f"no session opened within {span(login)}")

    def _no_session(self) -> None:
        self._deadline = None
        if self._running() or self.closed or self.conn is None:
            return
        reason, why = self._deadline_why
        self.serve.refused(self.address, reason, f"connection {self.who} closed: {why}")
        self.conn.disconnect(asyncssh.DISC_BY_APPLICATION, f"roost: closed: {why}")

    # ------------------------------------------------------------------ logging in

    def begin_auth(self, username: str) -> bool:
        # a new user name starts over: no key offered for another name may count for this one
        self._key = None
        self._key_username = None
        return self.serve.authorized.needs_key(username)

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # asked before the signature is checked: the role waits for auth_completed
        self._key, self._key_username = key, username
        return self.serve.authorized.lists(key, self.address)

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return False

    def host_based_auth_supported(self) -> bool:
        return False

    def auth_completed(self) -> None:
        assert self.conn is not None
        username = str(self.conn.get_extra_info("username") or "")
        self.identity = self.serve.authorized.identity(
            username, self._key, self._key_username, self.address
        )
        self.logged_in = True
        # logged in, no session yet: the idle timeout runs from now if it ends sooner
        seconds, why = self._lone_limit()
        if self._deadline is not None:
            left = self._deadline.when() - asyncio.get_running_loop().time()
            if seconds < left:
                self._close_in(seconds, why)

    # ------------------------------------------------------------------ channels

    def session_requested(self) -> SSHSession:
        cap = self.serve.server_limits.max_per_address
        self.channels = {s for s in self.channels if not s.channel_closed}
        if len(self.channels) >= cap:
            text = f"too many sessions on this connection ({cap} at once)"
            self.serve.refused(
                self.address, "channels", f"connection {self.who} refused a session: {text}"
            )
            raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, text)
        session = SSHSession(self.serve, self.identity, self.address, self.port, link=self)
        self.channels.add(session)
        return session

    def _forwarding_refused(self) -> None:
        self.serve.refused(
            self.address, "forwarding", f"connection {self.who} refused: {FORWARDING_OFF}"
        )

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int):
        self._forwarding_refused()
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, FORWARDING_OFF)

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        self._forwarding_refused()
        return False

    def unix_connection_requested(self, dest_path: str):
        self._forwarding_refused()
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, FORWARDING_OFF)

    def unix_server_requested(self, listen_path: str) -> bool:
        self._forwarding_refused()
        return False

    def tun_requested(self, unit: int | None):
        self._forwarding_refused()
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, FORWARDING_OFF)

    def tap_requested(self, unit: int | None):
        self._forwarding_refused()
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, FORWARDING_OFF)


class SSHServe:
    """The server: start it, let it run, stop it (every session ends with it)."""

    def __init__(
        self,
        *,
        host_key: HostKey,
        authorized: AuthorizedKeys,
        service_env: dict[str, str],
        state_dir: Path,
        host: str = "127.0.0.1",
        port: int = 2222,
        limits: ServerLimits | None = None,
        log: Callable[[str], None] = print,
        command: Sequence[str] | None = None,
        refresher: Refresher | None = None,
        zygote: bool = False,
    ) -> None:
        self.host_key = host_key
        self.authorized = authorized
        self.service_env = service_env
        self.state_dir = state_dir
        self.host = host
        self.port = port
        self.server_limits = limits or ServerLimits()
        self.limits = self.server_limits.session
        self.log = log
        #: What each session runs on its PTY: the dashboard unless told otherwise (tests give a
        #: small program).
        self.command = list(command) if command is not None else None
        #: The one store refreshing the state for every session (None: each refreshes alone).
        self.refresher = refresher
        #: Whether sessions' dashboards are forked from a zygote (tui/ssh/zygote.py); it needs
        #: the refresher (it follows it) and runs the dashboard, not a given command.
        self.wants_zygote = zygote
        self.zygote: Zygote | None = None
        self._strays: asyncio.TimerHandle | None = None
        self.connections: set[_Connection] = set()
        self.sessions: set[SSHSession] = set()
        self.refusals = RefusalLog(log)
        self._refusals_timer: asyncio.TimerHandle | None = None
        self._listener: asyncssh.SSHAcceptor | None = None
        self._stopping = False
        self._stopped = asyncio.Event()

    # ------------------------------------------------------------------ the listener

    async def start(self) -> None:
        limits = self.server_limits
        self._listener = await asyncssh.create_server(
            lambda: _Connection(self),
            self.host,
            self.port,
            server_host_keys=[self.host_key.key],
            encoding=None,
            line_editor=False,
            allow_pty=True,
            agent_forwarding=False,
            x11_forwarding=False,
            password_auth=False,
            kbdint_auth=False,
            host_based_auth=False,
            gss_host=None,
            login_timeout=limits.login_timeout_s,
            keepalive_interval=limits.keepalive_s,
            keepalive_count_max=limits.keepalive_count,
            config=None,
        )
        sockets = self._listener.sockets
        if sockets:
            self.port = sockets[0].getsockname()[1]
        if self.refresher is not None:
            await self.refresher.start()
            self._start_zygote()

    def _start_zygote(self) -> None:
        if not self.wants_zygote or self.command is not None or self.refresher is None:
            return
        # deferred: a server without a zygote never loads it
        from tui.ssh.zygote import Zygote, become_subreaper

        if not become_subreaper():
            self.log("zygote: off (this system cannot adopt orphans); sessions are spawned")
            return
        refresher = self.refresher
        env, home = self._child_environment(GUEST, "", None)
        self.zygote = Zygote(
            env=env,
            cwd=home,
            open_feed=refresher.open_feed,
            close_feed=refresher.close_feed,
            log=self.log,
        )
        self.zygote.start()
        self._sweep_strays()

    def _sweep_strays(self) -> None:
        """Every half minute, reap a dashboard orphaned by a zygote that died mid-fork."""
        # deferred: with the zygote
        from tui.ssh.zygote import reap_strays

        known = {s.child.pid for s in self.sessions if s.child is not None}
        zygote = self.zygote
        if zygote is not None and zygote.process is not None:
            known.add(zygote.process.pid)
        reap_strays(known)
        self._strays = asyncio.get_running_loop().call_later(30.0, self._sweep_strays)

    async def serve_until_stopped(self) -> None:
        await self._stopped.wait()

    async def stop(self) -> int:
        """Stop listening, end every session (their dashboards quit, are killed if they do
        not, and are reaped), close every connection. The number of sessions ended."""
        try:
            return await self._stop()
        finally:  # whatever failed on the way, no dashboard outlives the server
            self.hurry()
            if self._refusals_timer is not None:
                self._refusals_timer.cancel()
                self._refusals_timer = None
            self.refusals.flush()
            if self._strays is not None:
                self._strays.cancel()
            if self.zygote is not None:
                await self.zygote.stop()
            if self.refresher is not None:
                await self.refresher.stop()
            self._stopped.set()

    def hurry(self) -> None:
        """End every session now: their dashboards are killed, not asked to quit."""
        for session in list(self.sessions):
            session.kill()

    async def _stop(self) -> int:
        self._stopping = True  # no session starts from now on
        if self._listener is not None:
            self._listener.close()
        sessions = list(self.sessions)
        for session in sessions:
            session.end("server-stopping")
        tasks = [s.task for s in sessions if s.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=self.limits.stop_grace_s + 5.0)
        # each client's last line ("the server is stopping") goes out before its connection ends
        closing = [
            asyncio.ensure_future(s.chan.wait_closed()) for s in sessions if s.chan is not None
        ]
        if closing:
            await asyncio.wait(closing, timeout=2.0)
        for connection in list(self.connections):
            if connection.conn is not None:
                connection.conn.close()
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._listener.wait_closed(), 5.0)
        return len(sessions)

    # ------------------------------------------------------------------ the log

    def refused(self, address: str, reason: str, line: str) -> None:
        """Log a refusal, at most once per address and reason a minute (the rest counted)."""
        self.refusals.refused(address, reason, line)
        if self._refusals_timer is None:
            self._refusals_due()

    def _refusals_due(self) -> None:
        self._refusals_timer = None
        self.refusals.tick()
        wait = self.refusals.next_due()
        if wait is not None:
            loop = asyncio.get_running_loop()
            self._refusals_timer = loop.call_later(wait + 0.05, self._refusals_due)

    # ------------------------------------------------------------------ SessionOwner

    def connections_from(self, address: str) -> int:
        return sum(1 for c in self.connections if c.address == address)

    def admit(self, session: SSHSession) -> Refusal | None:
        limits = self.server_limits
        if self._stopping:
            return Refusal("stopping", "the server is stopping; try again later")
        if len(self.sessions) >= limits.max_sessions:
            return Refusal(
                "full",
                f"the server is full ({limits.max_sessions} sessions at once); try again later",
            )
        if session.identity.role == GUEST and self.authorized.enabled:
            guests = sum(1 for s in self.sessions if s.identity.role == GUEST)
            if guests >= limits.guest_places:
                return Refusal("guests-full", GUESTS_FULL)
        from_here = sum(1 for s in self.sessions if s.address == session.address)
        if from_here >= limits.max_per_address:
            return Refusal(
                "per-address",
                f"too many sessions from your address ({limits.max_per_address} at once); "
                "close one and try again",
            )
        self.sessions.add(session)
        return None

    def environment(self, session: SSHSession) -> tuple[dict[str, str], Path]:
        identity = session.identity
        folder = None if identity.fingerprint is None else identity.folder_name
        return self._child_environment(identity.role, session.term_type, folder)

    def _child_environment(
        self, role: str, term_type: str | None, folder: str | None
    ) -> tuple[dict[str, str], Path]:
        # a keyed user's home (their outbox) is kept under their key; guests share one that
        # nothing is written to. Made 0700, never reached through a link.
        if folder is None:
            home = private_subfolder(self.state_dir, GUEST)
        else:
            home = private_subfolder(self.state_dir, "users", folder)
        env = child_environment(
            term_type=term_type,
            role=role,
            home=home,
            service=self.service_env,
            warn_s=self.limits.warn_s,
        )
        return env, home

    def open_feed(self, session: SSHSession) -> int | None:
        return self.refresher.open_feed(session) if self.refresher is not None else None

    async def start_child(
        self, session: SSHSession, env: dict[str, str], cwd: Path, feed: int | None
    ) -> Child:
        limits = self.limits.child
        zygote = self.zygote
        if zygote is not None and feed is not None and self.command is None:
            child = await zygote.start_child(env, session.size, limits, cwd, feed)
            if child is not None:
                return child
        return await Child.start(
            env,
            session.size,
            limits,
            argv=self.command,
            cwd=cwd,
            pass_fds=(feed,) if feed is not None else (),
        )

    def finished(self, session: SSHSession) -> None:
        self.sessions.discard(session)
        if self.refresher is not None:
            self.refresher.close_feed(session)
        if session.refused is not None:
            self.refused(session.address, session.refused.reason, session.log_line())
        else:
            self.log(session.log_line())

    def child_pids(self) -> list[int]:
        return [s.child.pid for s in self.sessions if s.child is not None and s.child.running]
