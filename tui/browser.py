"""Whether a web browser can open on this machine, and opening one: roost's one answer.

On a headless box :func:`webbrowser.open` may find nothing, or start a text-mode browser inside
roost's own terminal; over SSH a browser would open on the remote machine's screen, where the
person is not. So roost asks only where the person's graphical session is: over SSH only with a
forwarded display (``DISPLAY`` / ``WAYLAND_DISPLAY``), else on macOS and Windows always and on
Linux and the BSDs with a display; and it reports what really happened. Everywhere else the
link is copied and shown instead; and never for a session `roost serve-ssh` serves (the
browser would open on the server). No Textual import: the rule is tested on its own.
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
    display = environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")
    if environ.get("SSH_CONNECTION") or environ.get("SSH_TTY"):
        return None if display else "no browser can open over SSH without a forwarded display"
    if display or platform == "darwin" or platform.startswith(("win", "cygwin")):
        return None
    return "no graphical display (DISPLAY / WAYLAND_DISPLAY are not set)"


def open_in_browser(url: str) -> bool:
    """Ask the system's browser to open ``url``; False when no browser took it."""
    import webbrowser  # deferred: off the start path

    try:
        return bool(webbrowser.open(url, new=2))
    except webbrowser.Error:
        return False
