"""The Seeds screen's views: the section tabs, the active seed, and a list with its detail.

Layout: four sections in tabs (``[`` / ``]`` or a click switch them). The lists are a table plus
the detail of the highlighted row, stacked on narrow terminals and side by side on wide ones.
What the views say comes from :mod:`tui.screens.seeds.details`; their rows from
:mod:`tui.screens.seeds.rows`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from tui.network.models import SeedsFile
from tui.network.state_files import SEEDS
from tui.screens.seeds.details import active_body, active_summary, no_active_seed, unique_keys
from tui.screens.seeds.rows import AGENT_COLUMNS, AgentRow
from tui.untrusted import clean
from tui.widgets.virtual_table import Column, LazyRows, VirtualTable

__all__ = ["ActiveSeedView", "DetailList", "SeedSections"]


class SeedSections(TabbedContent):
    """The four sections in tabs. Its keys switch sections on the screen (which also moves the
    focus into the new section); they are declared here so they show while focus is inside."""

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
    ]

    def _on_tab_pane_focused(self, event: TabPane.Focused) -> None:
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
    scroll a long text); ``escape`` goes back to the table. A ``message`` replaces both when the
    list does not exist or is empty ("this deployment has no proposals")."""

    def __init__(
        self,
        columns: Sequence[Column],
        describe: Callable[[str], Content | None],
        *,
        id: str,  # noqa: A002
    ) -> None:
        super().__init__(id=id, classes="detail-list")
        self._columns = columns
        self._describe = describe
        self._shown_key: str | None = None
        self._rows: Sequence = ()
        self._marked: frozenset[str] = frozenset()

    def compose(self) -> ComposeResult:
        yield _Message(Content(""), id=f"{self.id}-message", classes="detail-list--message")
        yield VirtualTable(self._columns, id=f"{self.id}-table")
        with VerticalScroll(id=f"{self.id}-detail", classes="detail-list--detail"):
            yield Static(Content(""), id=f"{self.id}-text", classes="detail-list--text")

    @property
    def table(self) -> VirtualTable:
        return self.query_one(f"#{self.id}-table", VirtualTable)

    @property
    def detail(self) -> VerticalScroll:
        return self.query_one(f"#{self.id}-detail", VerticalScroll)

    @property
    def detail_text(self) -> Static:
        return self.query_one(f"#{self.id}-text", Static)

    @property
    def selected(self) -> str | None:
        return None if self.has_class("-message") else self.table.cursor_key

    def set_rows(
        self, rows: LazyRows, *, marked: Iterable[str] | None = (), message: str = ""
    ) -> None:
        """New rows by key (cursor and scroll kept); ``message`` shows instead of an empty table.
        ``marked=None`` keeps the current marks (a redraw, not a refresh)."""
        self._rows = rows
        if marked is not None:
            self._marked = frozenset(marked)
        self.table.set_rows(rows, marked=self._marked)
        self.query_one(f"#{self.id}-message", _Message).update(Content(message))
        self.set_class(bool(message) and not rows, "-message")
        self.refresh_detail()

    def clear_marks(self) -> None:
        self._marked = frozenset()
        self.table.set_rows(self._rows)

    def refresh_detail(self, *, home: bool = False) -> None:
        key = self.table.cursor_key
        body = self._describe(key) if key is not None else None
        self.detail_text.update(body if body is not None else Content(""))
        if home or key != self._shown_key:
            self.detail.scroll_home(animate=False, immediate=True)
        self._shown_key = key

    @property
    def primary(self) -> Widget:
        """What takes the focus when the list is opened: the table, or the note replacing it."""
        if self.has_class("-message"):
            return self.query_one(f"#{self.id}-message", _Message)
        return self.table

    def back(self) -> bool:
        """Leave the detail for the table; ``False`` when there was nothing to go back from."""
        if self.detail.has_focus and not self.has_class("-message"):
            self.table.focus()
            return True
        return False

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
        self.refresh_detail(home=True)

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        self.detail.focus()


class ActiveSeedView(Container):
    """The active seed: a summary, its text/context/synthesis (scrollable) and its agents
    (``enter`` on one posts :class:`AgentChosen`)."""

    class AgentChosen(Message):
        """The user picked an agent of the active seed's convergence."""

        def __init__(self, agent_id: str) -> None:
            super().__init__()
            self.agent_id = agent_id

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._seed_id: str | None = None
        self.agents: Mapping[str, str] = {}  # row key -> agent id (ids may repeat)

    def compose(self) -> ComposeResult:
        yield Static(Content(f"{SEEDS} not loaded yet"), id="active-meta")
        with Horizontal(id="active-body"):
            with VerticalScroll(id="active-scroll"):
                yield Static(Content(""), id="active-text")
            yield VirtualTable(AGENT_COLUMNS, id="active-agents")

    @property
    def agents_table(self) -> VirtualTable:
        return self.query_one("#active-agents", VirtualTable)

    @property
    def scroll(self) -> VerticalScroll:
        return self.query_one("#active-scroll", VerticalScroll)

    def selected_agent(self) -> str | None:
        """The agent under the cursor of the agents list, when that list has focus."""
        table = self.agents_table
        key = table.cursor_key if table.has_focus else None
        return self.agents.get(key) if key is not None else None

    def show(self, seeds: SeedsFile | None, now: datetime, *, not_loaded: str) -> None:
        """``not_loaded``: what to say while there is no seeds.json (plain text)."""
        meta = self.query_one("#active-meta", Static)
        text = self.query_one("#active-text", Static)
        active = seeds.active if seeds is not None else None
        self.set_class(active is None, "-none")
        old_id, self._seed_id = self._seed_id, active.id if active is not None else None
        if active is None:
            if seeds is None:
                summary, body = Content(clean(not_loaded)), Content("")
            else:
                summary, body = no_active_seed(len(seeds.queue))
            meta.update(summary)
            text.update(body)
            self._set_agents(())
            return
        meta.update(active_summary(active, now))
        text.update(active_body(active, now))
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
