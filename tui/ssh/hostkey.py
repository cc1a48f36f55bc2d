"""The server's host key: made once, kept, never silently replaced (ARCHITECTURE.md, serving over
SSH).

A client remembers the host key's fingerprint the first time it connects and warns loudly if it
ever changes, so the key must survive restarts: an ed25519 key is created on the first start
under roost's state folder (``$XDG_STATE_HOME/roost/ssh/``) with mode 0600 and read back on every
start after. A key file that others may read, or that cannot be read, stops the server with the
fix in the message: replacing it would change the fingerprint every client trusts. The folder is
checked first (``tui.ssh.folders``: the server user's own, no one else may write to it) and the
key is opened without following a link: a link planted there is refused, never read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from tui.errors import RoostError
from tui.locations import ssh_state_dir
from tui.ssh.folders import is_link, open_private_folder

if TYPE_CHECKING:
    import asyncssh

__all__ = ["HostKey", "HostKeyError", "load_or_create", "ssh_state_dir"]

KEY_NAME = "host_ed25519_key"
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_WRITE_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_KEY_BYTES = 64 * 1024  # an ed25519 key file is under 500 bytes


class HostKeyError(RoostError):
    """The host key cannot be used; the message says why, the hint what to do."""


class HostKey:
    """The loaded private key, its file and whether this start created it."""

    def __init__(self, key: asyncssh.SSHKey, path: Path, created: bool) -> None:
        self.key = key
        self.path = path
        self.created = created

    @property
    def fingerprint(self) -> str:
        """``SHA256:…``, as ``ssh`` shows it."""
        return self.key.get_fingerprint("sha256")

    @property
    def algorithm(self) -> str:
        return self.key.get_algorithm()


def load_or_create(folder: Path) -> HostKey:
    """The host key in ``folder``, created there (0600) if there is none yet. The folder is
    created 0700, or refused if it is not the server user's own or others may write to it; the
    key is never read through a link."""
    fd = open_private_folder(folder, "others could replace the host key")
    try:
        return _load_or_create(fd, folder / KEY_NAME)
    finally:
        os.close(fd)


def _load_or_create(folder: int, path: Path) -> HostKey:
    import asyncssh  # deferred: off the start path

    try:
        # non-blocking: a FIFO planted there is refused, not waited on
        fd = os.open(KEY_NAME, _READ, dir_fd=folder)
    except FileNotFoundError:
        if is_link(folder, KEY_NAME):  # a link to nowhere: never written through either
            raise _symlink(path) from None
        return HostKey(_create(folder, path), path, created=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _symlink(path) from None
        raise HostKeyError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        data = _read_checked(fd, path)
    finally:
        os.close(fd)
    try:
        if len(data) > _MAX_KEY_BYTES:
            raise ValueError("far too long for a key")
        key = asyncssh.import_private_key(data)
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise HostKeyError(
            f"{path}: not a usable private key ({exc})",
            hint="restore it, or remove it to make a new one (clients will then see a new "
            "fingerprint)",
        ) from None
    return HostKey(key, path, created=False)


def _read_checked(fd: int, path: Path) -> bytes:
    """The open key file's bytes, once it is known to be a private regular file of ours."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise HostKeyError(
            f"{path}: not a regular file", hint="move it away to make a new host key"
        )
    if info.st_mode & 0o077:
        raise HostKeyError(
            f"{path}: permissions {stat.S_IMODE(info.st_mode):04o} let others read the host key",
            hint=f"run `chmod 600 {path}` (and consider it leaked: remove it to make a new one, "
            "which changes the fingerprint)",
        )
    if info.st_uid != os.geteuid():
        raise HostKeyError(
            f"{path}: owned by another user (uid {info.st_uid})", hint="it must be yours"
        )
    chunks = []
    size = 0
    try:
        while size <= _MAX_KEY_BYTES and (chunk := os.read(fd, 65536)):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise HostKeyError(f"{path}: cannot be read ({exc.strerror})") from None
    return b"".join(chunks)


def _symlink(path: Path) -> HostKeyError:
    return HostKeyError(
        f"{path}: is a symbolic link; refused, never read",
        hint="remove the link: roost makes its own host key there, or put the key file itself",
    )


def _create(folder: int, path: Path) -> asyncssh.SSHKey:
    import asyncssh  # deferred: off the start path

    key = asyncssh.generate_private_key("ssh-ed25519", comment="roost serve-ssh")
    data = key.export_private_key()
    temporary = f".{KEY_NAME}.{os.getpid()}.tmp"
    try:
        fd = os.open(temporary, _WRITE_NEW, 0o600, dir_fd=folder)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # a key made by another start in the meantime wins: never replace one
        os.link(temporary, KEY_NAME, src_dir_fd=folder, dst_dir_fd=folder)
    except FileExistsError:
        _remove(folder, temporary)
        return _load_or_create(folder, path).key
    except OSError as exc:
        _remove(folder, temporary)
        raise HostKeyError(f"{path}: cannot write the new host key ({exc.strerror})") from None
    _remove(folder, temporary)
    return key


def _remove(folder: int, name: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=folder)
