"""Whether a web browser can open on this machine, and opening one (issue 12 item 5).

Over SSH or on a headless box, :func:`webbrowser.open` may find nothing, or start a text-mode
browser inside roost's own terminal. So roost asks only where a graphical session exists
(``DISPLAY`` / ``WAYLAND_DISPLAY`` on Linux and the BSDs, always on macOS and Windows) and
reports what really happened. No Textual import: the rule is tested on its own.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from tui.ssh.mode import NO_BROWSER, session_role

__all__ = ["browser_unavailable", "open_in_browser"]


def browser_unavailable(
    environ: Mapping[str, str] | None = None, platform: str | None = None
) -> str | None:
    """Why no browser can open here (one line), or None when one can."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if session_role(environ):  # a browser here would open on the server, for the wrong person
        return NO_BROWSER
    if platform == "darwin" or platform.startswith(("win", "cygwin")):
        return None
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return None
    if environ.get("SSH_CONNECTION") or environ.get("SSH_TTY"):
        return "no browser can open over SSH without a display"
    return "no graphical display (DISPLAY / WAYLAND_DISPLAY are not set)"


def open_in_browser(url: str) -> bool:
    """Ask the system's browser to open ``url``; False when no browser took it."""
    import webbrowser

    try:
        return bool(webbrowser.open(url, new=2))
    except webbrowser.Error:
        return False
