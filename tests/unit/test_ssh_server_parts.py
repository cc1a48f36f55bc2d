"""The parts of `roost serve-ssh` on their own: the host key, the authorized keys and roles, the
child's environment and size, and a child on a real PTY (a small script, not the dashboard)."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import sys
from pathlib import Path
from types import SimpleNamespace

import asyncssh
import pytest

from tui.config import Settings
from tui.ssh.auth import AuthorizedKeys, AuthorizedKeysError, Identity
from tui.ssh.child import (
    Child,
    ChildLimits,
    child_environment,
    clamp_size,
    service_environment,
    terminal_environment,
)
from tui.ssh.folders import UnsafeFolder
from tui.ssh.hostkey import KEY_NAME, HostKeyError, load_or_create, ssh_state_dir
from tui.ssh.mode import GUEST, KEYED
from tui.ssh.server import ServerLimits, SSHServe, _Connection

# ------------------------------------------------------------------ the host key


def test_the_host_key_is_made_once_private_and_then_kept(tmp_path):
    folder = tmp_path / "state" / "ssh"
    made = load_or_create(folder)
    assert made.created and made.algorithm == "ssh-ed25519"
    assert made.fingerprint.startswith("SHA256:")
    path = folder / KEY_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    kept = load_or_create(folder)
    assert not kept.created and kept.fingerprint == made.fingerprint
    assert [p.name for p in folder.iterdir()] == [KEY_NAME]  # no temporary file left


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_host_key_others_may_read_is_refused_and_left_alone(tmp_path, mode):
    load_or_create(tmp_path)
    path = tmp_path / KEY_NAME
    before = path.read_bytes()
    path.chmod(mode)
    with pytest.raises(HostKeyError, match=f"permissions {mode:04o} let others read"):
        load_or_create(tmp_path)
    assert path.read_bytes() == before


def test_a_host_key_that_cannot_be_read_is_refused_never_replaced(tmp_path):
    path = tmp_path / KEY_NAME
    path.write_bytes(b"-----BEGIN OPENSSH PRIVATE KEY-----\ntruncated\n")
    path.chmod(0o600)
    with pytest.raises(HostKeyError, match="not a usable private key"):
        load_or_create(tmp_path)
    assert path.read_bytes().endswith(b"truncated\n")
    path.unlink()
    path.mkdir()
    with pytest.raises(HostKeyError, match="not a regular file"):
        load_or_create(tmp_path)


def test_the_host_key_folder_is_made_private_whatever_the_umask(tmp_path):
    folder = tmp_path / "state" / "roost" / "ssh"
    old = os.umask(0)
    try:
        load_or_create(folder)
    finally:
        os.umask(old)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / KEY_NAME).stat().st_mode) == 0o600


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o707, 0o1777, 0o720])
def test_a_host_key_folder_others_may_write_to_is_refused(tmp_path, mode):
    folder = tmp_path / "ssh"
    folder.mkdir()
    folder.chmod(mode)
    with pytest.raises(UnsafeFolder) as refused:
        load_or_create(folder)
    assert str(folder) in refused.value.message
    assert "others could replace the host key" in refused.value.message
    assert refused.value.hint == f"run `chmod 700 {folder}`, and check what is in it"
    assert list(folder.iterdir()) == []  # no key made in it


def test_a_readable_host_key_folder_of_ours_is_used(tmp_path):
    folder = tmp_path / "ssh"
    folder.mkdir()
    folder.chmod(0o755)
    assert load_or_create(folder).created


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a folder to another user")
def test_a_host_key_folder_of_another_user_is_refused(tmp_path):
    folder = tmp_path / "ssh"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    with pytest.raises(UnsafeFolder, match="owned by another user"):
        load_or_create(folder)
    assert list(folder.iterdir()) == []


def test_a_symlinked_host_key_is_refused_and_never_read(tmp_path):
    """Another user's key (or any file) linked in as the host key must not become it."""
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    other = load_or_create(theirs)
    folder = tmp_path / "ssh"
    folder.mkdir(mode=0o700)
    (folder / KEY_NAME).symlink_to(theirs / KEY_NAME)
    with pytest.raises(HostKeyError) as refused:
        load_or_create(folder)
    assert "is a symbolic link" in refused.value.message
    assert str(folder / KEY_NAME) in refused.value.message
    assert (folder / KEY_NAME).is_symlink()  # left alone
    assert load_or_create(theirs).fingerprint == other.fingerprint
    # a dangling link is refused too, never written through
    (folder / KEY_NAME).unlink()
    (folder / KEY_NAME).symlink_to(tmp_path / "planted")
    with pytest.raises(HostKeyError, match="is a symbolic link"):
        load_or_create(folder)
    assert not (tmp_path / "planted").exists()


def test_a_fifo_as_the_host_key_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / KEY_NAME, 0o600)
    with pytest.raises(HostKeyError, match="not a regular file"):
        load_or_create(tmp_path)


def test_a_symlinked_host_key_folder_is_checked_where_it_points(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o777)
    real.chmod(0o777)
    link = tmp_path / "ssh"
    link.symlink_to(real)
    with pytest.raises(UnsafeFolder, match="others could replace the host key"):
        load_or_create(link)
    real.chmod(0o700)
    assert load_or_create(link).created and (real / KEY_NAME).is_file()


def test_the_state_folder_follows_xdg_state_home(tmp_path):
    assert ssh_state_dir({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "roost" / "ssh"


# ------------------------------------------------------------------ authorized keys and roles


@pytest.fixture(scope="module")
def keys() -> dict[str, asyncssh.SSHKey]:
    """Public keys, as the server receives them."""
    return {
        name: asyncssh.generate_private_key("ssh-ed25519").convert_to_public()
        for name in ("alice", "bob", "eve")
    }


def line(key: asyncssh.SSHKey, options: str = "", comment: str = "someone") -> str:
    public = key.export_public_key().decode().split()[:2]
    return (options + " " if options else "") + " ".join(public) + " " + comment


def test_option_prefixed_lines_comments_and_blanks_are_read(keys):
    text = "\n".join(
        [
            "# keyed users of roost",
            "",
            line(keys["alice"], 'from="127.0.0.0/8",no-pty,command="echo a, b"'),
            line(keys["bob"], "restrict", comment="bob with spaces in the comment"),
            "   ",
        ]
    )
    authorized = AuthorizedKeys.parse(text, "ak")
    assert authorized.count == 2 and authorized.enabled
    assert authorized.lists(keys["alice"], "127.0.0.1")
    assert not authorized.lists(keys["alice"], "10.0.0.1")  # its from= says loopback only
    assert authorized.lists(keys["bob"], "10.0.0.1")
    assert not authorized.lists(keys["eve"], "127.0.0.1")


def test_a_line_that_is_not_a_key_is_an_error_naming_it(keys, tmp_path):
    text = line(keys["alice"]) + "\nssh-ed25519 AAAAnot-base64 broken\n"
    with pytest.raises(AuthorizedKeysError, match=r"^ak:2: not a public key line"):
        AuthorizedKeys.parse(text, "ak")
    with pytest.raises(AuthorizedKeysError, match="no keys in it"):
        AuthorizedKeys.parse("# nobody yet\n", "ak")
    with pytest.raises(AuthorizedKeysError, match="not found"):
        AuthorizedKeys.read(tmp_path / "missing")


def test_who_needs_a_key(keys):
    nobody = AuthorizedKeys.none()
    assert not nobody.needs_key("alice") and not nobody.needs_key("guest")
    authorized = AuthorizedKeys.parse(line(keys["alice"]))
    assert authorized.needs_key("alice") and authorized.needs_key("root")
    assert not authorized.needs_key("guest")


class FakeConnection:
    """What ``_Connection`` reads from asyncssh's connection object."""

    def __init__(self) -> None:
        self.info = {"peername": ("127.0.0.1", 40000), "username": None}

    def get_extra_info(self, name: str) -> object:
        return self.info[name]


def login(authorized: AuthorizedKeys, steps: list[tuple[str, ...]], final: str) -> Identity:
    """Play a client's authentication requests on the server's side; the role decided."""
    serve = SSHServe(
        host_key=None,  # type: ignore[arg-type]  # not listening: no key needed
        authorized=authorized,
        service_env={},
        state_dir=Path("unused"),
    )
    link = _Connection(serve)
    conn = FakeConnection()
    link.connection_made(conn)  # type: ignore[arg-type]
    for step in steps:
        if step[0] == "begin":
            link.begin_auth(step[1])
        else:
            link.validate_public_key(step[1], step[2])  # type: ignore[arg-type]
    conn.info["username"] = final
    link.auth_completed()
    return link.identity


async def test_the_role_comes_from_the_final_user_and_the_key_that_completed_the_login(keys):
    authorized = AuthorizedKeys.parse(line(keys["alice"]))
    alice, eve = keys["alice"], keys["eve"]
    keyed = login(
        authorized, [("begin", "alice"), ("key", "alice", eve), ("key", "alice", alice)], "alice"
    )
    assert keyed == Identity(KEYED, "alice", alice.get_fingerprint())
    assert keyed.folder_name.startswith("key-") and "/" not in keyed.folder_name
    # a listed key offered for alice, then the user name changed to guest: a guest
    switched = login(
        authorized, [("begin", "alice"), ("key", "alice", alice), ("begin", "guest")], "guest"
    )
    assert switched == Identity(GUEST, "guest")
    # … or to another name: nothing offered for the new name counts
    renamed = login(
        authorized, [("begin", "alice"), ("key", "alice", alice), ("begin", "bob")], "bob"
    )
    assert renamed.role == GUEST
    # with no authorized keys at all, every login is a guest whatever it offered
    assert login(AuthorizedKeys.none(), [("begin", "alice")], "alice").role == GUEST


def test_the_per_user_folders_are_private_and_never_reached_through_a_link(tmp_path):
    state = tmp_path / "ssh"
    state.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    serve = SSHServe(
        host_key=None,  # type: ignore[arg-type]  # not listening: no key needed
        authorized=AuthorizedKeys.none(),
        service_env={},
        state_dir=state,
    )
    alice = SimpleNamespace(identity=Identity(KEYED, "alice", "SHA256:abc"), term_type="xterm")
    guest = SimpleNamespace(identity=Identity(GUEST, "guest"), term_type="xterm")
    env, home = serve.environment(alice)  # type: ignore[arg-type]
    assert home == state / "users" / "key-abc" and env["HOME"] == str(home)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((state / "users").stat().st_mode) == 0o700
    shutil.rmtree(state / "users")
    (state / "users").symlink_to(elsewhere)
    with pytest.raises(UnsafeFolder, match="is a symbolic link"):
        serve.environment(alice)  # type: ignore[arg-type]
    (state / "users").unlink()
    (state / "users").mkdir(mode=0o700)
    (state / "users" / "key-abc").symlink_to(elsewhere)
    with pytest.raises(UnsafeFolder, match=r"users/key-abc: is a symbolic link"):
        serve.environment(alice)  # type: ignore[arg-type]
    (state / "guest").symlink_to(elsewhere)
    with pytest.raises(UnsafeFolder, match="is a symbolic link"):
        serve.environment(guest)  # type: ignore[arg-type]
    (state / "guest").unlink()
    (state / "guest").mkdir(mode=0o777)
    (state / "guest").chmod(0o777)
    with pytest.raises(UnsafeFolder, match="others could"):
        serve.environment(guest)  # type: ignore[arg-type]
    assert list(elsewhere.iterdir()) == []


# ------------------------------------------------------------------ the child's terminal and environment


@pytest.mark.parametrize(
    ("asked", "given"),
    [
        ((80, 24), (80, 24)),
        ((0, 0), (80, 24)),
        ((0, 40), (80, 40)),
        ((3, 1), (20, 6)),
        ((2**32 - 1, 2**32 - 1), (1000, 500)),
        ((250, 70), (250, 70)),
    ],
)
def test_sizes_are_clamped(asked, given):
    assert clamp_size(*asked) == given


@pytest.mark.parametrize(
    ("term", "env"),
    [
        ("xterm-256color", {"TERM": "xterm-256color"}),
        ("xterm-kitty", {"TERM": "xterm-kitty", "COLORTERM": "truecolor"}),
        ("wezterm", {"TERM": "wezterm", "COLORTERM": "truecolor"}),
        ("xterm-direct", {"TERM": "xterm-direct", "COLORTERM": "truecolor"}),
        ("screen", {"TERM": "screen"}),
        ("", {"TERM": "xterm-256color"}),
        (None, {"TERM": "xterm-256color"}),
        ("dumb", {"TERM": "xterm-256color"}),
        ("xterm;rm -rf /", {"TERM": "xterm-256color"}),
        ("x" * 100, {"TERM": "xterm-256color"}),
    ],
)
def test_term_and_colorterm_are_decided_on_the_server(term, env):
    assert terminal_environment(term) == env


def test_the_child_environment_is_an_allow_list(tmp_path):
    server = {
        "LANG": "en_GB.UTF-8",
        "LC_TIME": "C.UTF-8",
        "EDITOR": "vi",
        "VISUAL": "vi",
        "PAGER": "less",
        "BROWSER": "firefox",
        "ROOST_TOKEN": "t1",
        "GH_TOKEN": "t2",
        "GITHUB_TOKEN": "t3",
        "SSH_AUTH_SOCK": "/tmp/agent",
        "DISPLAY": ":0",
        "LD_PRELOAD": "/x.so",
        "PYTHONSTARTUP": "/x.py",
        "TEXTUAL_ALLOW_SIGNALS": "1",
        "HOME": "/root",
        "PATH": "/home/me/bin:/usr/bin",
    }
    env = child_environment(
        term_type="xterm-kitty",
        role=GUEST,
        home=tmp_path,
        service={"ROOST_READ_URL": "https://example.org/x", "ROOST_CONFIG": os.devnull},
        warn_s=60,
        server_environ=server,
    )
    assert env == {
        "LANG": "en_GB.UTF-8",
        "LC_TIME": "C.UTF-8",
        "TERM": "xterm-kitty",
        "COLORTERM": "truecolor",
        "ROOST_READ_URL": "https://example.org/x",
        "ROOST_CONFIG": os.devnull,
        "ROOST_SSH_ROLE": "guest",
        "ROOST_SSH_WARN_S": "60",
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path),
        "PATH": os.defpath,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    bare = child_environment(
        term_type=None, role=KEYED, home=tmp_path, service={}, warn_s=5, server_environ={}
    )
    assert bare["LANG"] == "C.UTF-8" and bare["ROOST_SSH_ROLE"] == "user"
    plain = child_environment(
        term_type=None,
        role=KEYED,
        home=tmp_path,
        service={},
        warn_s=5,
        server_environ={"ROOST_PLAIN": "gc"},
    )
    assert plain["ROOST_PLAIN"] == "gc"  # the server's speed switch holds for its sessions


def test_service_settings_reach_the_child_but_never_a_token(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[profiles.work]\n", encoding="utf-8")
    settings = Settings(
        read_url="https://raw.example.org/o/r/main",
        write_url="https://api.example.org",
        repo="o/r",
        interval=30.0,
        cache_dir=tmp_path / "cache",
        profile="work",
        config_file=config,
    )
    env = service_environment(settings)
    assert env == {
        "ROOST_READ_URL": "https://raw.example.org/o/r/main",
        "ROOST_WRITE_URL": "https://api.example.org",
        "ROOST_REPO": "o/r",
        "ROOST_INTERVAL": "30.0",
        "ROOST_CACHE_DIR": str(tmp_path / "cache"),
        "ROOST_CONFIG": str(config),
        "ROOST_PROFILE": "work",
    }
    demo = service_environment(Settings(config_file=tmp_path / "absent.toml"))
    assert demo["ROOST_CONFIG"] == os.devnull and "ROOST_READ_URL" not in demo
    read_only = service_environment(Settings(readonly=True, config_file=tmp_path / "absent.toml"))
    assert read_only["ROOST_READONLY"] == "1"  # keyed users' sessions too
    assert "secret-token" not in repr(env) + repr(demo)


# ------------------------------------------------------------------ a child on its own PTY

PROBE = r"""
import fcntl, os, signal, struct, sys, termios, time
def size(*_):
    rows, cols = struct.unpack("HHHH", fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8))[:2]
    os.write(1, f"size {cols}x{rows}\r\n".encode())
signal.signal(signal.SIGWINCH, size)
if sys.argv[1] == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
ctty = os.open("/dev/tty", os.O_RDWR)  # fails without a controlling terminal
os.write(1, f"sid {os.getsid(0)} pid {os.getpid()} nofile {__import__('resource').getrlimit(7)[0]}\r\n".encode())
size()
while True:
    time.sleep(0.05)
"""


async def read_until(child: Child, text: bytes, timeout: float = 30) -> bytes:
    seen = b""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while text not in seen:
        assert loop.time() < deadline, seen
        try:
            seen += os.read(child.master, 4096)
        except BlockingIOError:
            await asyncio.sleep(0.02)
    return seen


async def test_a_child_runs_on_its_own_pty_sized_and_resized(tmp_path):
    limits = ChildLimits(open_files=64)
    child = await Child.start({}, (100, 30), limits, argv=[sys.executable, "-c", PROBE, "plain"])
    try:
        first = await read_until(child, b"size 100x30")
        assert f"sid {child.pid} pid {child.pid} nofile 64".encode() in first
        child.resize(*clamp_size(132, 43))
        await read_until(child, b"size 132x43")
    finally:
        code = await child.stop(grace_s=10)
        child.close()
    assert code < 0  # ended by the server's SIGTERM
    assert not Path(f"/proc/{child.pid}").exists()  # reaped


async def test_a_child_that_ignores_sigterm_is_killed_after_the_grace(tmp_path):
    child = await Child.start(
        {}, (80, 24), ChildLimits(), argv=[sys.executable, "-c", PROBE, "stubborn"]
    )
    try:
        await read_until(child, b"size 80x24")
        loop = asyncio.get_running_loop()
        began = loop.time()
        code = await child.stop(grace_s=0.5)
        assert code == -9 and loop.time() - began < 20
    finally:
        child.close()
    assert not Path(f"/proc/{child.pid}").exists()


# ------------------------------------------------------------------ the caps


def test_the_connection_cap_and_the_guest_places_follow_the_session_cap():
    limits = ServerLimits()
    assert (limits.max_sessions, limits.connection_cap, limits.guest_places) == (16, 64, 14)
    assert ServerLimits(max_sessions=2).guest_places == 0
    assert ServerLimits(max_sessions=1).guest_places == 0  # never below none
    given = ServerLimits(max_sessions=8, max_connections=9, guest_sessions=3)
    assert (given.connection_cap, given.guest_places) == (9, 3)
    assert ServerLimits(max_sessions=4, guest_sessions=10).guest_places == 4


def test_the_command_line_sets_the_caps():
    from tui.cli import build_parser
    from tui.commands.serve_ssh import server_limits

    parse = build_parser().parse_args
    limits = server_limits(parse(["serve-ssh", "--max-sessions", "5"]))
    assert (limits.max_sessions, limits.connection_cap, limits.guest_places) == (5, 20, 3)
    limits = server_limits(
        parse(
            ["serve-ssh", "--max-connections", "7", "--guest-sessions", "0", "--idle-timeout", "5"]
        )
    )
    assert (limits.connection_cap, limits.guest_places, limits.session.idle_s) == (7, 0, 5.0)
