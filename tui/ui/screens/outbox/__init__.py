"""The Outbox screen: the actions kept for the current service, their detail,
retry, discard and the issue's URL. The host pushes :class:`OutboxScreen` and listens for
:class:`OutboxScreen.Changed`."""

from __future__ import annotations

from tui.ui.screens.outbox.screen import OutboxScreen

__all__ = ["OutboxScreen"]
