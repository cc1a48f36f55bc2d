"""The dashboard's side of `roost serve-ssh` (ARCHITECTURE.md, serving over SSH).

:class:`SSHGuard` is an object the app holds; it does nothing unless the settings say the
dashboard is served over SSH (``session.ssh_role``, tui/ssh/mode.py). Then:

* nothing can hand the terminal to another program: the app asks :attr:`SSHGuard.active`
  before suspending (``ctrl+z`` and ``App.suspend``, which ``$EDITOR`` needs) and before opening
  a browser, and shows a link to copy instead;
* the server's signals are heard: ``SIGTERM`` quits cleanly (the client's terminal restored),
  ``SIGUSR1`` warns that the session is about to end for lack of keys, ``SIGUSR2`` that it is
  about to reach its time limit.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

from textual.app import App

from tui.ssh.mode import NO_BROWSER, NO_SUSPEND, warning_lead_s

__all__ = ["NO_BROWSER", "NO_SUSPEND", "SSHGuard"]

_SIGNALS = (signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2)


class SSHGuard:
    """What serving over SSH changes in one app: its signals, and what it must not start."""

    def __init__(self, app: App[int], role: str | None) -> None:
        self._app = app
        self.role = role
        self._installed = False

    @property
    def active(self) -> bool:
        """Whether this dashboard is served over SSH (a guest's or a keyed user's session)."""
        return bool(self.role)

    def install(self) -> None:
        """Hear the server's signals (call once the app's loop runs)."""
        if not self.active or self._installed:
            return
        loop = asyncio.get_running_loop()
        lead = warning_lead_s()
        loop.add_signal_handler(signal.SIGTERM, self._app.exit)
        idle = f"No key for a while: this session ends in {lead} s unless you press a key."
        limit = f"This session reaches its time limit and ends in {lead} s."
        loop.add_signal_handler(signal.SIGUSR1, self._warner("Idle", idle, lead))
        loop.add_signal_handler(signal.SIGUSR2, self._warner("Time limit", limit, lead))
        self._installed = True

    def remove(self) -> None:
        if self._installed:
            loop = asyncio.get_running_loop()
            for signum in _SIGNALS:
                loop.remove_signal_handler(signum)
            self._installed = False

    def _warner(self, title: str, text: str, lead: int) -> Callable[[], None]:
        def warn() -> None:
            self._app.notify(text, title=title, severity="warning", timeout=lead, markup=False)

        return warn
