"""Drawing again only what changed (ARCHITECTURE.md, serving over SSH: each line sent to the
terminal is bytes on a client's wire, an idle session's too)."""

from __future__ import annotations

from collections.abc import Callable

from textual.geometry import Region
from textual.widget import Widget

__all__ = ["redraw_changed"]


def redraw_changed(widget: Widget, forget: Callable[[], None]) -> None:
    """Refresh the lines of ``widget`` (a Line API widget whose first line is a header) whose
    strip differs once ``forget`` has dropped the cached ones; nothing when none does. Each
    line on view is rendered before and after (the new strips stay cached)."""
    if not widget.is_mounted or widget.size.height <= 1:
        forget()
        widget.refresh()
        return
    lines = range(1, widget.size.height)
    before = [widget.render_line(y) for y in lines]
    forget()
    width = widget.size.width
    changed = [
        Region(0, y, width, 1)
        for y, old in zip(lines, before, strict=True)
        if widget.render_line(y) != old
    ]
    if changed:
        widget.refresh(*changed)
