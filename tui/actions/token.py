"""Where the write token comes from and where it may go (ARCHITECTURE.md, the write side).

Sources, first found wins: ``ROOST_TOKEN``, ``RAPPTERBOOK_TOKEN``, ``DISCUSSIONS_TOKEN`` (the
deployment's own client's names), ``GH_TOKEN``, ``GITHUB_TOKEN``, the config file, then
``gh auth token`` when the GitHub CLI is installed (a short timeout: a slow ``gh`` must not hang
a command). The token lives in a :class:`~tui.session.Secret`, in memory only; nothing here logs,
prints or writes it.

Its reach is the write URL's origin: :func:`check_write_url` refuses plain http except to a
loopback host, and :func:`same_origin` is the test the issue client applies before attaching it to
any request.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from tui.config import TOKEN_ENV_VARS
from tui.errors import RoostError
from tui.network.urls import origin_of, same_origin
from tui.session import Secret, Session

__all__ = [
    "GH_TIMEOUT_S",
    "TokenError",
    "check_write_url",
    "find_token",
    "gh_auth_token",
    "is_loopback_host",
    "origin_of",
    "same_origin",
]

#: How long ``gh auth token`` may take before roost goes on without it.
GH_TIMEOUT_S = 5.0


class TokenError(RoostError, ValueError):
    """The token cannot be used here; the message says why and what to do."""


def is_loopback_host(host: str | None) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_write_url(url: str | None, *, in_process: bool = False) -> str:
    """The write URL without a trailing slash; ``TokenError`` when a token must not go there.

    ``in_process``: the demo network answers through an in-process transport, so nothing leaves
    the process and its plain-http address is allowed.
    """
    if not url:
        raise TokenError("no write URL: set --write-url or ROOST_WRITE_URL")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise TokenError(f"the write URL must be an http(s) address, not {url!r}")
    if parts.username or parts.password:
        raise TokenError("the write URL must not carry a user name or password")
    if scheme == "http" and not (in_process or is_loopback_host(parts.hostname)):
        raise TokenError(
            f"refusing to send the token over plain http to {parts.hostname}: "
            "use an https:// write URL (plain http is allowed only to loopback)"
        )
    return url.rstrip("/")


def gh_auth_token(
    which: Callable[[str], str | None] = shutil.which, timeout: float = GH_TIMEOUT_S
) -> Secret | None:
    """The token ``gh auth token`` prints, or None (no ``gh``, not logged in, too slow)."""
    gh = which("gh")
    if not gh:
        return None
    try:
        out = subprocess.run(
            [gh, "auth", "token"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    token = out.stdout.strip()
    if out.returncode != 0 or not token or any(c.isspace() for c in token):
        return None
    return Secret(token)


def find_token(
    session: Session,
    env: Mapping[str, str] | None = None,
    gh: Callable[[], Secret | None] = gh_auth_token,
) -> tuple[Secret | None, str | None]:
    """(token, where it came from) in the documented order; (None, None) when none is found.

    ``session`` carries the config file's token (and the demo network's); the environment is
    read again here so its order is the one documented whatever the settings merged.
    """
    env = os.environ if env is None else env
    if session.readonly:  # read-only: no token is looked for anywhere (tui/read_only.py)
        return None, None
    if session.ssh_role:  # served over SSH: only a token typed into the session (tui/ssh/mode.py)
        return None, None
    if session.token_source == "demo" and session.token:
        return session.token, "demo"
    for var in TOKEN_ENV_VARS:
        value = (env.get(var) or "").strip()
        if value:
            return Secret(value), var
    if session.token and session.token_source not in TOKEN_ENV_VARS:
        return session.token, session.token_source or "config"
    found = gh()
    if found:
        return found, "gh auth token"
    return None, None
