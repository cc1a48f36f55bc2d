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
from collections.abc import Mapping
from dataclasses import replace

from tui.config import Settings

__all__ = [
    "GUEST",
    "GUEST_CANNOT_POST",
    "KEYED",
    "NO_BROWSER",
    "NO_EDITOR",
    "NO_SUSPEND",
    "ROLE_VAR",
    "TYPE_A_TOKEN",
    "WARN_VAR",
    "for_session",
    "session_role",
    "warning_lead_s",
]

ROLE_VAR = "ROOST_SSH_ROLE"
#: Seconds before an idle or time-limited session ends at which the server warns the dashboard.
WARN_VAR = "ROOST_SSH_WARN_S"
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


def for_session(settings: Settings, environ: Mapping[str, str] | None = None) -> Settings:
    """``settings`` for a dashboard served over SSH: the role set and no token at all (a keyed
    user types one into the session; a guest never has one). Unchanged otherwise."""
    role = session_role(environ)
    if role is None:
        return settings
    return replace(settings, ssh_role=role, token=None, token_source=None)
