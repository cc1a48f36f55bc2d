"""TabbedContent whose panes follow the latest switch, however fast the keys come.

Textual's TabbedContent learns of a switch from messages, and applies each one when it is
handled, even when a newer switch has been made since it was sent:

* a switch made on the tab strip (``Tabs.TabActivated``: a click, a key, the strip's own
  activation as it mounts);
* a widget focused in a pane (``TabPane.Focused``: the pane is shown; on opening, the first
  pane's focus arrives after the keys typed meanwhile).

A message still queued when the next key switched panes set the older pane again and undid the
newer one: ``tab tab`` typed just as the egg inspector opened stopped at the first pane, or went
back to it. Here such stale messages are dropped: a strip activation that is no longer the
strip's active tab, and a pane focus for another pane than the strip's active one (every
switch here goes through the strip first: a key, a click, ``TabbedContent.active``).
"""

from __future__ import annotations

from textual.widgets import TabbedContent, TabPane, Tabs

from tui.ui.textual_compat import ContentTab, ContentTabs

__all__ = ["LatestTabbedContent"]


class LatestTabbedContent(TabbedContent):
    """:class:`~textual.widgets.TabbedContent` that ignores stale switches (see the module)."""

    # Textual calls the handler of every class in the MRO, this one's first: prevent_default()
    # keeps TabbedContent's own handler from a stale message.

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        strip = event.tabs
        ours = isinstance(strip, ContentTabs) and strip.tabbed_content is self
        if ours and event.tab.id != strip.active:
            event.stop()
            event.prevent_default()

    def on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        strip = self.get_child_by_type(ContentTabs)
        if event.tab_pane.id is None or strip.active != ContentTab.add_prefix(event.tab_pane.id):
            event.stop()
            event.prevent_default()
