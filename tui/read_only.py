"""Read-only mode (``--readonly``, ``ROOST_READONLY=1``, ``readonly = true`` in the config or a
profile): roost reads the network and posts nothing (ARCHITECTURE.md, the write side).

In it no token is looked for (not the environment's, not the config's, not ``gh auth token``)
and the write side (issue client, outbox, drafts, the tracker) is never built, so no request
that changes anything can be made. The keys that post say why, in these words; the CLI's
commands that send refuse with them (exit 2).

:func:`posting_refused` is the one question every front end asks before building anything that
posts: read-only, or a guest's session of `roost serve-ssh`. This module is part of the headless
core and imports nothing heavy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.errors import RoostError
from tui.ssh.mode import GUEST, GUEST_CANNOT_POST

if TYPE_CHECKING:
    from tui.session import Session

__all__ = ["READ_ONLY", "ReadOnly", "posting_refused", "read_only_error"]

#: The word the status bar shows and every refusal starts with.
READ_ONLY = "read-only"


class ReadOnly(RoostError, ValueError):
    """Something would post, and roost is read-only; the hint says how to turn it off."""


def read_only_error(session: Session) -> ReadOnly:
    """The refusal for a read-only ``session``, naming where read-only was asked for."""
    source = session.readonly_source or "--readonly"
    if source == "--readonly":
        said, off = source, "run roost without --readonly to post"
    elif source.startswith("environment "):
        said = source.removeprefix("environment ")
        off = f"unset {said} to post"
    else:
        said, off = f"readonly = true in {source}", "set readonly = false there to post"
    return ReadOnly(f"{READ_ONLY} ({said}): roost posts nothing here", hint=off)


def posting_refused(session: Session) -> str | None:
    """Why nothing may be posted in ``session`` (read-only; a guest over SSH), in one line
    with its hint, or None when posting may be tried."""
    if session.readonly:
        return read_only_error(session).describe()
    if session.ssh_role == GUEST:
        return GUEST_CANNOT_POST
    return None
