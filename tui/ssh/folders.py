"""The folders `roost serve-ssh` keeps its files in, trusted only once checked (ARCHITECTURE.md,
serving over SSH).

The host key and each keyed user's outbox live in roost's state folder for SSH
(``$XDG_STATE_HOME/roost/ssh``). Whoever can write to that folder can replace the host key (and
become the server clients trust) or plant a link where a user's outbox goes. So the folder is
created 0700 and, when it already exists, must be a folder owned by the server's user that no
one else may write to; the folders and the key below it are opened with ``O_NOFOLLOW`` relative
to it, so a link planted there is refused, never followed. Checks are made on an open
descriptor, and what is used is what was checked.

The folder itself may be reached through a link (a state folder moved to another disk): the
checks apply to the folder it points to.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from tui.errors import RoostError

__all__ = ["UnsafeFolder", "check_folder", "is_link", "open_private_folder", "private_subfolder"]

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class UnsafeFolder(RoostError):
    """A folder the server will not trust; the message names it, the hint says what to do."""


def check_folder(fd: int, path: Path, what: str) -> None:
    """Refuse the open folder ``fd`` (shown as ``path``) unless it is the server user's own and
    no one else may write to it; ``what`` says what others could do with it."""
    info = os.fstat(fd)
    if info.st_uid != os.geteuid():
        raise UnsafeFolder(
            f"{path}: owned by another user (uid {info.st_uid}): {what}",
            hint="remove it, or set XDG_STATE_HOME to a folder of your own",
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o022:
        raise UnsafeFolder(
            f"{path}: writable by others (mode {mode:04o}): {what}",
            hint=f"run `chmod 700 {path}`, and check what is in it",
        )


def open_private_folder(path: Path, what: str) -> int:
    """A descriptor of ``path``, created 0700 (with its parents) if missing, checked."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
            os.chmod(path, 0o700)  # whatever the umask
        fd = os.open(path, _DIRECTORY)
    except NotADirectoryError:
        raise UnsafeFolder(
            f"{path}: not a folder", hint="move it away; roost makes the folder"
        ) from None
    except OSError as exc:
        raise UnsafeFolder(f"{path}: cannot create or open the folder ({exc.strerror})") from None
    try:
        check_folder(fd, path, what)
    except BaseException:
        os.close(fd)
        raise
    return fd


def is_link(folder: int, name: str) -> bool:
    """Whether ``name`` in the open ``folder`` is a symbolic link (dangling or not)."""
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _open_below(parent: int, name: str, path: Path) -> int:
    """Folder ``name`` in the open folder ``parent``, made 0700 if missing, never through a
    link."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o700, dir_fd=parent)
    try:
        return os.open(name, _DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and is_link(parent, name):
            raise UnsafeFolder(
                f"{path}: is a symbolic link; refused, never followed",
                hint="remove the link; roost makes the folder",
            ) from None
        if exc.errno == errno.ENOTDIR:
            raise UnsafeFolder(
                f"{path}: not a folder", hint="move it away; roost makes the folder"
            ) from None
        raise UnsafeFolder(f"{path}: cannot create or open the folder ({exc.strerror})") from None


@contextlib.contextmanager
def _closing(fds: list[int]) -> Iterator[list[int]]:
    try:
        yield fds
    finally:
        for fd in fds:
            os.close(fd)


def private_subfolder(root: Path, *names: str) -> Path:
    """``root/names…``, each folder below ``root`` made 0700 if missing, opened without
    following a link, and checked like ``root`` (someone else's folder or one others may write
    to is refused)."""
    what = "others could read or plant what a session keeps there"
    with _closing([open_private_folder(root, what)]) as fds:
        path = root
        for name in names:
            path = path / name
            fds.append(_open_below(fds[-1], name, path))
            check_folder(fds[-1], path, what)
    return path
