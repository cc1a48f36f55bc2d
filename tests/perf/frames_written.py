"""Frames the terminal is sent, as the benches count them.

Textual calls ``App.post_display_hook`` at the end of every ``App._display``, also one that
writes nothing: while repaints are held (``App.batch_update``; ``switch_mode`` holds them for
50 ms) or with nothing to show. Counted as frames, those made a tab switch look 50 ms faster
than what a person sees. :func:`written_only` leaves them out.
"""

from __future__ import annotations

from typing import Any

__all__ = ["written_only"]


def written_only(app: Any) -> None:
    """From now on ``app.post_display_hook`` runs only after a display that writes a frame (a
    display that would not is skipped: Textual's own returns at once then, its hook aside)."""
    display = app._display

    def _display(screen: Any, renderable: Any) -> None:
        if renderable is None or app._batch_count:
            return
        display(screen, renderable)

    app._display = _display
