"""The server's host key: made once, kept, never silently replaced (ARCHITECTURE.md, serving over
SSH).

A client remembers the host key's fingerprint the first time it connects and warns loudly if it
ever changes, so the key must survive restarts: an ed25519 key is created on the first start
under roost's state folder (``$XDG_STATE_HOME/roost/ssh/``) with mode 0600 and read back on every
start after. A key file that others may read, or that cannot be read, stops the server with the
fix in the message: replacing it would change the fingerprint every client trusts.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from tui.locations import ssh_state_dir

if TYPE_CHECKING:
    import asyncssh

__all__ = ["HostKey", "HostKeyError", "load_or_create", "ssh_state_dir"]

KEY_NAME = "host_ed25519_key"


class HostKeyError(Exception):
    """The host key cannot be used; the message says why and what to do."""


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
    """The host key in ``folder``, created there (0600) if there is none yet."""
    import asyncssh

    path = folder / KEY_NAME
    try:
        info = path.stat()
    except FileNotFoundError:
        return HostKey(_create(path), path, created=True)
    except OSError as exc:
        raise HostKeyError(f"{path}: cannot be read ({exc.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise HostKeyError(f"{path}: not a regular file; move it away to make a new host key")
    if info.st_mode & 0o077:
        raise HostKeyError(
            f"{path}: permissions {stat.S_IMODE(info.st_mode):04o} let others read the host key; "
            f"run `chmod 600 {path}` (and consider it leaked: remove it to make a new one, "
            "which changes the fingerprint)"
        )
    if info.st_uid != os.geteuid():
        raise HostKeyError(f"{path}: owned by another user (uid {info.st_uid}); it must be yours")
    try:
        key = asyncssh.read_private_key(path)
    except OSError as exc:
        raise HostKeyError(f"{path}: cannot be read ({exc.strerror})") from None
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise HostKeyError(
            f"{path}: not a usable private key ({exc}); restore it, or remove it to make a new "
            "one (clients will then see a new fingerprint)"
        ) from None
    return HostKey(key, path, created=False)


def _create(path: Path) -> asyncssh.SSHKey:
    import asyncssh

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise HostKeyError(f"{path.parent}: cannot create the folder ({exc.strerror})") from None
    key = asyncssh.generate_private_key("ssh-ed25519", comment="roost serve-ssh")
    data = key.export_private_key()
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # a key made by another start in the meantime wins: never replace one
        os.link(temporary, path)
    except FileExistsError:
        temporary.unlink(missing_ok=True)
        return load_or_create(path.parent).key
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise HostKeyError(f"{path}: cannot write the new host key ({exc.strerror})") from None
    temporary.unlink(missing_ok=True)
    return key
