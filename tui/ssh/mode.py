"""Whether this dashboard is one session of `roost serve-ssh`, and as whom (ARCHITECTURE.md,
serving over SSH).

The server starts each session's dashboard with ``ROOST_SSH_ROLE`` in an environment it builds
itself (never from what the client sends). A dashboard that sees it runs in *SSH mode*: nothing
that could start a program is offered (``$EDITOR``, ``$PAGER``, a browser, suspending to a
shell), no token is looked for (only one the person types into the session), and a guest does
not post at all. An unknown value counts as a guest: the mode only ever takes rights away.

This module is part of the headless core and imports nothing heavy: the dashboard's start path,
the forms and the browser rule all read it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import msgspec

from tui.errors import RoostError
from tui.session import Session

__all__ = [
    "GUEST",
    "GUEST_CANNOT_EXPORT",
    "GUEST_CANNOT_POST",
    "KEYED",
    "NO_BROWSER",
    "NO_EDITOR",
    "NO_SUSPEND",
    "ROLE_VAR",
    "TYPE_A_TOKEN",
    "WARN_VAR",
    "FEED_VAR",
    "ExportPlace",
    "export_place",
    "feed_fd",
    "for_session",
    "session_role",
    "warning_lead_s",
]

ROLE_VAR = "ROOST_SSH_ROLE"
#: Seconds before an idle or time-limited session ends at which the server warns the dashboard.
WARN_VAR = "ROOST_SSH_WARN_S"
#: The descriptor of the session's feed from the server's refresher (tui/ssh/refresher.py).
FEED_VAR = "ROOST_SSH_FEED_FD"
GUEST = "guest"
KEYED = "user"

NO_BROWSER = "no browser in SSH mode: the link is shown to copy instead"
NO_EDITOR = "no $EDITOR in SSH mode: edit the field here"
NO_SUSPEND = "suspending is off in SSH mode"
TYPE_A_TOKEN = "Served over SSH: roost looks for no token here; type one for this session."
GUEST_CANNOT_POST = (
    "posting is off for guests: this session is read-only. Log in with a key listed in the "
    "server's --authorized-keys to post"
)

GUEST_CANNOT_EXPORT = "export is not available to guests"
#: Where a keyed user's exports go, in their own folder on the server (their HOME there).
EXPORTS = "exports"


def session_role(environ: Mapping[str, str] | None = None) -> str | None:
    """``"guest"`` or ``"user"`` when served over SSH, None otherwise."""
    environ = os.environ if environ is None else environ
    value = environ.get(ROLE_VAR, "").strip()
    if not value:
        return None
    return KEYED if value == KEYED else GUEST


def warning_lead_s(environ: Mapping[str, str] | None = None) -> int:
    """How many seconds ahead the server warns before it ends the session (60 if unsaid)."""
    environ = os.environ if environ is None else environ
    try:
        return max(1, int(environ.get(WARN_VAR, "60")))
    except ValueError:
        return 60


def feed_fd(environ: Mapping[str, str] | None = None) -> int | None:
    """The descriptor the server's refresher talks on, when this dashboard is a session of a
    server that has one (its store then follows it: no request for state files); else None."""
    environ = os.environ if environ is None else environ
    if session_role(environ) is None:
        return None
    try:
        fd = int(environ.get(FEED_VAR, ""))
        is_socket = fd > 2 and stat.S_ISSOCK(os.fstat(fd).st_mode)
    except (ValueError, OSError):
        return None
    return fd if is_socket else None


def for_session(session: Session, environ: Mapping[str, str] | None = None) -> Session:
    """``session`` for a dashboard served over SSH: the role set and no token at all (a keyed
    user types one into the session; a guest never has one). Unchanged otherwise."""
    role = session_role(environ)
    if role is None:
        return session
    return msgspec.structs.replace(session, ssh_role=role, token=None, token_source=None)


class GuestCannotExport(RoostError):
    """A guest asked to export a table over SSH."""


@dataclass(frozen=True)
class ExportPlace:
    """Where an export goes: ``folder``; ``on_server``: a keyed user's own folder on the SSH
    server (only a file name is taken there, never a path)."""

    folder: Path
    on_server: bool = False


def export_place(role: str | None, environ: Mapping[str, str] | None = None) -> ExportPlace:
    """Where this dashboard writes an export: the current folder when not served over SSH; a
    keyed user's own ``exports`` folder on the server (below the home the server made for
    them, 0700, never reached through a link); a guest, nowhere (:class:`GuestCannotExport`)."""
    if role is None:
        return ExportPlace(Path.cwd())
    if role != KEYED:
        raise GuestCannotExport(
            GUEST_CANNOT_EXPORT, hint="log in with a key listed in the server's --authorized-keys"
        )
    from tui.ssh.folders import private_subfolder  # deferred: off the start path

    environ = os.environ if environ is None else environ
    home = environ.get("HOME", "")
    if not home:
        raise GuestCannotExport("export: this session has no folder of its own on the server")
    return ExportPlace(private_subfolder(Path(home), EXPORTS), on_server=True)
