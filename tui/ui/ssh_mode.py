"""The dashboard's side of `roost serve-ssh` (ARCHITECTURE.md, serving over SSH).

Mixed into the app; it does nothing unless the settings say the dashboard is served over SSH
(``settings.ssh_role``, tui/ssh/mode.py). Then:

* nothing can hand the terminal to another program: suspending (``ctrl+z`` and ``App.suspend``,
  which ``$EDITOR`` needs) is refused, and a link is shown to copy instead of opening a browser;
* the server's signals are heard: ``SIGTERM`` quits cleanly (the client's terminal restored),
  ``SIGUSR1`` warns that the session is about to end for lack of keys, ``SIGUSR2`` that it is
  about to reach its time limit.

Textual calls ``on_mount`` / ``on_unmount`` of every class in the app's MRO, so the app's own
handlers need no change.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator

from textual.app import SuspendNotSupported

from tui.ssh.mode import NO_BROWSER, NO_SUSPEND, warning_lead_s

__all__ = ["SSHModeMixin"]

_SIGNALS = (signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2)


class SSHModeMixin:
    """Mixed into :class:`tui.ui.app.RoostApp` before ``App`` (which provides ``settings``,
    ``notify``, ``exit`` and ``_show_link``)."""

    _ssh_signals_installed = False

    @property
    def served_over_ssh(self) -> bool:
        return bool(getattr(self.settings, "ssh_role", None))  # type: ignore[attr-defined]

    def on_mount(self) -> None:
        if not self.served_over_ssh:
            return
        loop = asyncio.get_running_loop()
        lead = warning_lead_s()
        loop.add_signal_handler(signal.SIGTERM, self.exit)  # type: ignore[attr-defined]
        loop.add_signal_handler(
            signal.SIGUSR1,
            self._warn,
            "Idle",
            f"No key for a while: this session ends in {lead} s unless you press a key.",
            lead,
        )
        loop.add_signal_handler(
            signal.SIGUSR2,
            self._warn,
            "Time limit",
            f"This session reaches its time limit and ends in {lead} s.",
            lead,
        )
        self._ssh_signals_installed = True

    def on_unmount(self) -> None:
        if self._ssh_signals_installed:
            loop = asyncio.get_running_loop()
            for signum in _SIGNALS:
                loop.remove_signal_handler(signum)
            self._ssh_signals_installed = False

    def _warn(self, title: str, text: str, lead: int) -> None:
        self.notify(text, title=title, severity="warning", timeout=lead, markup=False)  # type: ignore[attr-defined]

    def action_suspend_process(self) -> None:
        if self.served_over_ssh:
            self.notify(NO_SUSPEND, severity="warning", markup=False)  # type: ignore[attr-defined]
            return
        super().action_suspend_process()  # type: ignore[misc]

    @contextlib.contextmanager
    def suspend(self) -> Iterator[None]:
        if self.served_over_ssh:
            raise SuspendNotSupported(NO_SUSPEND)
        with super().suspend():  # type: ignore[misc]
            yield

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        if self.served_over_ssh:
            self._show_link(url, NO_BROWSER)  # type: ignore[attr-defined]
            return
        super().open_url(url, new_tab=new_tab)  # type: ignore[misc]
