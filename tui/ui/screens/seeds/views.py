"""The Seeds screen's views: the section tabs, the active seed, and a list with its detail.

Layout: four sections in tabs (``[`` / ``]`` or a click switch them). The lists are a table plus
the detail of the highlighted row, stacked on narrow terminals and side by side on wide ones.
What the views say comes from :mod:`tui.ui.screens.seeds.details`; their rows from
:mod:`tui.ui.screens.seeds.rows`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList, Static, TabPane
from textual.widgets.option_list import Option

from tui.network.models import SeedsFile
from tui.network.state_files import SEEDS
from tui.ui.screens.seeds.details import (
    Detail,
    active_body,
    active_summary,
    no_active_seed,
    raw_view,
    unique_keys,
)
from tui.ui.screens.seeds.rows import AGENT_COLUMNS, AgentRow
from tui.ui.table.virtual_table import Column, LazyRows, VirtualTable
from tui.ui.widgets.detail_pane import Link
from tui.ui.widgets.find_text import FindScroll
from tui.ui.widgets.panes import LatestTabbedContent
from tui.untrusted import clean

__all__ = [
    "ActiveSeedView",
    "DetailList",
    "SeedPane",
    "SeedSections",
    "SeedTable",
]


class SeedTable(VirtualTable):
    """A Seeds list: the table's keys (vim motion included) under the Seeds help title."""

    HELP_TITLE: ClassVar[str] = "Seeds lists"


class SeedPane(FindScroll):
    """A scrolling text of the Seeds screen: vim motion as in the lists, and a find."""

    HELP_TITLE: ClassVar[str] = "Seeds text"
    TEXT_SELECTOR: ClassVar[str] = ".seed-text"

    class Found(FindScroll.Found):
        """The find moved to another match (the screen shows "3/7")."""

    def show(self, body: Content) -> None:
        self.show_text(body)


class SeedSections(LatestTabbedContent):
    """The four sections in tabs. Its keys switch sections on the screen (which also moves the
    focus into the new section); they are declared here so they show while focus is inside."""

    HELP_TITLE: ClassVar[str] = "Seeds sections"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "right_square_bracket",
            "screen.next_section",
            "Section",
            key_display="]",
            id="seeds.next_section",
        ),
        Binding(
            "left_square_bracket",
            "screen.previous_section",
            "Previous section",
            key_display="[",
            show=False,
            id="seeds.previous_section",
        ),
        Binding("l", "screen.next_section", "Next section", show=False, id="seeds.next_l"),
        Binding("h", "screen.previous_section", "Previous section", show=False, id="seeds.prev_h"),
    ]

    def on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        """Follow focus into a pane only while it is still there: in a burst of section keys,
        the notices of the earlier switches arrive after the later ones and would switch back."""
        focused = self.screen.focused
        if focused is None or event.tab_pane not in focused.ancestors:
            event.stop()
            event.prevent_default()  # TabbedContent's own handler would switch to that pane


class _Message(Static, can_focus=True):
    """A focusable note ("this deployment has no proposals"), so focus stays in the section."""


class DetailList(Container):
    """A table and the detail of its highlighted row. ``enter`` moves focus into the detail (to
    scroll a long text, or reach its "Go to" links); ``escape`` goes back to the table. A
    ``message`` replaces both when the list does not exist or is empty ("this deployment has no
    proposals"). The detail can show the row's raw JSON instead, until the cursor moves.

    ``lazy``: composed empty, its widgets mounted by :meth:`build` (the Seeds tab builds its
    hidden sections right after its first frame, so opening the tab composes one section, not
    four). Until then rows are kept and shown once built; :attr:`built` says which it is."""

    @dataclass(eq=False)
    class LinkChosen(Message):
        """A "Go to" entry of the detail was chosen."""

        link: Link

    @dataclass(eq=False)
    class Built(Message):
        """A lazy list's widgets are mounted and show its rows."""

        detail_list: DetailList

    def __init__(
        self,
        columns: Sequence[Column],
        describe: Callable[[str], Detail | None],
        *,
        id: str,  # noqa: A002
        lazy: bool = False,
    ) -> None:
        super().__init__(id=id, classes="detail-list")
        self._columns = columns
        self._describe = describe
        self._shown_key: str | None = None
        self._rows: Sequence = ()
        self._marked: frozenset[str] = frozenset()
        self._message = ""
        self._links: list[Link] = []
        self.raw = False
        self._built = not lazy
        self._building = False

    def compose(self) -> ComposeResult:
        if self._built:
            yield from self._parts()

    def _parts(self) -> list[Widget]:
        return [
            _Message(Content(""), id=f"{self.id}-message", classes="detail-list--message"),
            SeedTable(self._columns, id=f"{self.id}-table"),
            SeedPane(
                Static(Content(""), id=f"{self.id}-text", classes="detail-list--text seed-text"),
                Static(Content("Go to"), id=f"{self.id}-links-title", classes="links-title"),
                OptionList(id=f"{self.id}-links", classes="links", markup=False),
                id=f"{self.id}-detail",
                classes="detail-list--detail",
            ),
        ]

    @property
    def built(self) -> bool:
        """Whether the widgets are mounted (a lazy list is not until :meth:`build`)."""
        return self._built

    async def build(self) -> None:
        """Mount a lazy list's widgets, show the rows it was given, and post :class:`Built`."""
        if self._built or self._building or not self.is_attached:
            return
        self._building = True
        await self.mount_all(self._parts())
        self._built = True
        self._show_rows()
        self.post_message(self.Built(self))

    @property
    def table(self) -> SeedTable:
        return self.query_one(f"#{self.id}-table", SeedTable)

    @property
    def detail(self) -> SeedPane:
        return self.query_one(f"#{self.id}-detail", SeedPane)

    @property
    def detail_text(self) -> Static:
        return self.query_one(f"#{self.id}-text", Static)

    @property
    def links(self) -> OptionList:
        return self.query_one(f"#{self.id}-links", OptionList)

    @property
    def selected(self) -> str | None:
        return None if self.has_class("-message") or not self._built else self.table.cursor_key

    @property
    def primary(self) -> Widget:
        """What takes the focus when the list is opened: the table, or the note replacing it
        (the list itself, which takes no focus, while it is not built)."""
        if not self._built:
            return self
        if self.has_class("-message"):
            return self.query_one(f"#{self.id}-message", _Message)
        return self.table

    def set_rows(
        self, rows: LazyRows, *, marked: Iterable[str] | None = (), message: str = ""
    ) -> None:
        """New rows by key (cursor and scroll kept); ``message`` shows instead of an empty table.
        ``marked=None`` keeps the current marks (a redraw, not a refresh)."""
        self._rows = rows
        if marked is not None:
            self._marked = frozenset(marked)
        self._message = message
        if self._built:
            self._show_rows()

    def _show_rows(self) -> None:
        self.table.set_rows(self._rows, marked=self._marked)
        self.query_one(f"#{self.id}-message", _Message).update(Content(self._message))
        self.set_class(bool(self._message) and not self._rows, "-message")
        self.refresh_detail()

    def clear_marks(self) -> None:
        self._marked = frozenset()
        if self._built:
            self.table.set_rows(self._rows)

    def refresh_detail(self) -> None:
        """Show the detail of the row under the cursor; another row starts at its top."""
        if not self._built:
            return
        key = self.table.cursor_key
        moved = key != self._shown_key
        if moved:
            self.raw = False  # the raw view is of one record, not a mode
        detail = self._describe(key) if key is not None else None
        links: Sequence[Link]
        if detail is None:
            body, links = Content(""), []
        elif self.raw:
            body, links = detail.raw_view(), []
        else:
            body, links = detail.body, detail.links
        self.detail.show(body)
        self._show_links(links)
        if moved:
            self.detail.scroll_home(animate=False, immediate=True)
        self._shown_key = key

    def toggle_raw(self) -> None:
        """Show the highlighted row's raw JSON, or its detail again (from the top)."""
        if self.selected is not None:
            self.refresh_detail()  # first catch up with a cursor moved by keys of the same burst
            self.raw = not self.raw
            self.refresh_detail()
            self.detail.scroll_home(animate=False, immediate=True)

    def _show_links(self, links: Sequence[Link]) -> None:
        if not links and not self._links:
            return  # the usual case: no options to rebuild
        self._links = list(links)
        options = self.links
        options.set_options(Option(link.label) for link in self._links)
        if self._links:
            options.highlighted = 0
        self.set_class(bool(self._links), "-links")

    def back(self) -> bool:
        """Leave the detail for the table; ``False`` when there was nothing to go back from."""
        if self.has_class("-message") or not self._built:
            return False
        focused = self.screen.focused
        if focused is not None and self.detail in focused.ancestors_with_self:
            self.screen.set_focus(self.table)
            return True
        return False

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
        self.refresh_detail()

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        self.screen.set_focus(self.detail)  # at once: keys right after enter scroll the detail

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self._links):
            self.post_message(self.LinkChosen(self._links[event.option_index]))


class ActiveSeedView(Container):
    """The active seed: a summary, its text/context/synthesis (scrollable) and its agents
    (``enter`` on one posts :class:`AgentChosen`)."""

    @dataclass(eq=False)
    class AgentChosen(Message):
        """The user picked an agent of the active seed's convergence."""

        agent_id: str

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._seed_id: str | None = None
        self.agents: Mapping[str, str] = {}  # row key -> agent id (ids may repeat)
        self.raw = False  # the active seed's raw JSON instead of its text (until it changes)

    def compose(self) -> ComposeResult:
        yield Static(Content(f"{SEEDS} not loaded yet"), id="active-meta")
        with Horizontal(id="active-body"):
            with SeedPane(id="active-scroll"):
                yield Static(Content(""), id="active-text", classes="seed-text")
            yield SeedTable(AGENT_COLUMNS, id="active-agents")

    @property
    def agents_table(self) -> SeedTable:
        return self.query_one("#active-agents", SeedTable)

    @property
    def scroll(self) -> SeedPane:
        return self.query_one("#active-scroll", SeedPane)

    def selected_agent(self) -> str | None:
        """The agent under the cursor of the agents list, when that list has focus."""
        table = self.agents_table
        key = table.cursor_key if table.has_focus else None
        return self.agents.get(key) if key is not None else None

    def show(self, seeds: SeedsFile | None, now: datetime, *, not_loaded: str) -> None:
        """``not_loaded``: what to say while there is no seeds.json (plain text)."""
        meta = self.query_one("#active-meta", Static)
        active = seeds.active if seeds is not None else None
        self.set_class(active is None, "-none")
        old_id, self._seed_id = self._seed_id, active.id if active is not None else None
        if active is None:
            self.raw = False
            if seeds is None:
                summary, body = Content(clean(not_loaded)), Content("")
            else:
                summary, body = no_active_seed(len(seeds.queue))
            meta.update(summary)
            self.scroll.show(body)
            self._set_agents(())
            return
        if old_id != active.id:
            self.raw = False
        meta.update(active_summary(active, now))
        self.scroll.show(
            raw_view("seed", active.id, active) if self.raw else active_body(active, now)
        )
        self._set_agents(active.convergence.agents if active.convergence is not None else ())
        if old_id is not None and old_id != active.id:
            self.scroll.scroll_home(animate=False, immediate=True)

    def _set_agents(self, agents: Sequence[str]) -> None:
        self.agents = dict(zip(unique_keys(agents), agents, strict=True))
        self.agents_table.set_rows(LazyRows(AgentRow, self.agents))

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        agent_id = self.agents.get(event.key)
        if agent_id is not None:
            self.post_message(self.AgentChosen(agent_id))

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
