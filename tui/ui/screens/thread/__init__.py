"""The thread of one post as a feature folder: the screen (:mod:`.screen`), its text view
(:mod:`.view`), the text made safe and drawn (:mod:`.text`), the reaction picker
(:mod:`.reactions`); their stylesheet is ``styles/thread.tcss``.

The app pushes :class:`ThreadScreen` over the tab a post was opened from.
"""

from __future__ import annotations

from tui.ui.screens.thread.screen import ThreadScreen

__all__ = ["ThreadScreen"]
