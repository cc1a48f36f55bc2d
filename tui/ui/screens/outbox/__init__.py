"""The Outbox screen: the actions kept for the current service, their detail,
retry, discard and the issue's URL. The host pushes :class:`OutboxScreen` with the service's
poster; the screen draws the states the poster publishes."""

from __future__ import annotations

from tui.ui.screens.outbox.screen import OutboxScreen

__all__ = ["OutboxScreen"]
