"""Whether a web browser can really open here, so the screen never claims to have opened a URL
on a headless or SSH box (where Python's ``webbrowser`` may start a text browser in our own
terminal, or nothing at all)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from tui.ssh.mode import session_role

__all__ = ["browser_available"]


def browser_available(env: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """True on a desktop session: macOS or Windows, or a Linux/BSD with a display, and not over
    SSH (the display there is the remote box's)."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if session_role(env):  # served by `roost serve-ssh`: a browser would open on the server
        return False
    if env.get("SSH_CONNECTION") or env.get("SSH_TTY"):
        return False
    if platform == "darwin" or platform.startswith("win"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
