"""Cursor and scroll motions shared by the Boots tab and the egg inspector: ``j``/``k``,
``g``/``G`` and ``ctrl+d``/``ctrl+u`` in the focused list, table, tree or pane."""

from __future__ import annotations

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import DataTable, OptionList, Tree

from tui.ui.widgets.find_text import scroll_body

__all__ = ["VIM_JUMPS", "jump_cursor", "move_cursor"]


def move_cursor(focused: Widget | None, delta: int) -> None:
    """``j``/``k``: move the cursor of the focused list, table or tree, or scroll a pane."""
    if isinstance(focused, OptionList | Tree | DataTable):
        (focused.action_cursor_down if delta > 0 else focused.action_cursor_up)()
    elif isinstance(focused, VerticalScroll):
        scroll_body(focused, "down" if delta > 0 else "up")


_SCROLL_FOR_JUMP = {"top": "home", "bottom": "end", "down": "half_down", "up": "half_up"}


def jump_cursor(focused: Widget | None, where: str) -> None:
    """``g``/``G`` (``where`` "top"/"bottom") and ``ctrl+d``/``ctrl+u`` ("down"/"up": half a
    page) in the focused list, table or tree, or the focused pane's text."""
    if isinstance(focused, VerticalScroll):
        scroll_body(focused, _SCROLL_FOR_JUMP[where])
        return
    if isinstance(focused, OptionList):
        count, current = focused.option_count, focused.highlighted
    elif isinstance(focused, DataTable):
        count, current = focused.row_count, focused.cursor_row
    elif isinstance(focused, Tree):
        count, current = focused.last_line + 1, focused.cursor_line
    else:
        return
    if count <= 0:
        return
    half = max(1, focused.scrollable_content_region.height // 2)
    target = {
        "top": 0,
        "bottom": count - 1,
        "down": (current or 0) + half,
        "up": (current or 0) - half,
    }[where]
    target = max(0, min(count - 1, target))
    if isinstance(focused, OptionList):
        focused.highlighted = target
    elif isinstance(focused, DataTable):
        focused.move_cursor(row=target)
    else:
        focused.cursor_line = target


#: ``g``/``G``/``ctrl+d``/``ctrl+u`` on the Boots tab and in the inspector (README: vim motion in
#: every table and text)
VIM_JUMPS: list[BindingType] = [
    Binding("g", "jump('top')", "Top", show=False, id="eggs.jump-top"),
    Binding("G", "jump('bottom')", "Bottom", show=False, id="eggs.jump-bottom"),
    Binding("ctrl+d", "jump('down')", "Half page down", show=False, id="eggs.jump-down"),
    Binding("ctrl+u", "jump('up')", "Half page up", show=False, id="eggs.jump-up"),
]
