"""The tab bar at the top of every screen: ``1 Agents  2 Trending …`` plus the network badge.

A click on a tab posts :class:`TabBar.TabChosen` (the app switches tabs); the badge follows the
:attr:`TabBar.demo` reactive, which the screen binds to the app's state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import events
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from tui.tabs import TABS

__all__ = ["TabBar"]


class TabBar(Widget):
    """One line: the tabs (clickable), and a badge on the right when on the demo network."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "tab-bar--tab",
        "tab-bar--active",
        "tab-bar--key",
        "tab-bar--badge",
    }

    BADGE = "DEMO NETWORK"
    SHORT_BADGE = "DEMO"  # where the whole badge does not fit beside the tabs

    demo: reactive[bool] = reactive(False)
    """On the demo network: the badge is shown."""

    @dataclass(eq=False)
    class TabChosen(Message):
        """The user clicked tab ``tab_id``."""

        tab_id: str

    def __init__(self, active: str, *, demo: bool = False) -> None:
        super().__init__(classes="tab-bar")
        self.active = active
        self.set_reactive(TabBar.demo, demo)
        self._spans: list[tuple[int, int, str]] = []  # (start, end, tab id)

    def tab_at(self, x: int) -> str | None:
        """The id of the tab drawn at column ``x``, if any."""
        for start, end, tab_id in self._spans:
            if start <= x < end:
                return tab_id
        return None

    def _tabs(self, compact: bool) -> tuple[Content, list[tuple[int, int, str]]]:
        """The tabs drawn side by side, and where each is; ``compact``: one space between
        them instead of two (eight tabs and the badge fit in 80 columns)."""
        parts: list[Content] = []
        spans: list[tuple[int, int, str]] = []
        x = 0
        tab_style = self.get_visual_style("tab-bar--tab", partial=True)
        key_style = self.get_visual_style("tab-bar--key", partial=True)
        # not partial: a partial visual style drops the component's background
        active_style = self.get_visual_style("tab-bar--active")
        for tab in TABS:
            active = self.active == tab.id
            after = " " if active or not compact else ""
            piece = Content.assemble(" ", (tab.key, key_style), " ", tab.title, after).stylize(
                active_style if active else tab_style
            )
            parts.append(piece)
            spans.append((x, x + piece.cell_length, tab.id))
            x += piece.cell_length
        return Content("").join(parts), spans

    def render(self) -> Content:
        width = self.size.width
        tabs, self._spans = self._tabs(compact=False)
        if tabs.cell_length > width:
            tabs, self._spans = self._tabs(compact=True)
        if not self.demo:
            return tabs
        badge_style = self.get_visual_style("tab-bar--badge")
        badges = (f" {self.BADGE} ", f" {self.SHORT_BADGE} ", self.SHORT_BADGE)
        for compact in (False, True):
            if compact:
                tabs, self._spans = self._tabs(compact=True)
            for badge in badges:
                badge_content = Content(badge).stylize(badge_style)
                gap = width - tabs.cell_length - badge_content.cell_length
                if gap >= 1:
                    return Content.assemble(tabs, " " * gap, badge_content)
        return tabs

    def on_click(self, event: events.Click) -> None:
        tab_id = self.tab_at(event.x)
        if tab_id is not None:
            event.stop()
            self.post_message(self.TabChosen(tab_id))
