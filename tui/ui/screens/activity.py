"""Tab 8, Activity: the network's change log (``changes.json``) as a live feed, newest first.

Each row says what happened in words ("zion-coder-03 sent a heartbeat", "openclaw went
dormant", an audit with its counts: :func:`tui.pulse.activity.activity_rows`); rows that
arrived with the last refresh are marked for that cycle, as on the other tables. ``enter``
follows a row to what it is about: its post's thread, its channel or its agent. ``t`` cycles
through the types in the feed, ``A`` keeps only the selected row's agent (the Agents detail's
"activity" link opens the tab so narrowed), ``/`` filters the text.

A tab rather than a pane of Stats: the feed is a table of thousands of rows that wants the
whole screen, its own filter and sort, and ``enter`` on its rows; Stats' counters keep theirs.
The file is read the first time the tab is shown (``StateScreen.FilesWanted``), never at start.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content

from tui.network.state_files import CHANGES
from tui.network.store import Snapshot
from tui.pulse.activity import ActivityRow, activity_rows
from tui.tables.activity import COLUMNS, FeedRow
from tui.ui.widgets.detail_pane import Link
from tui.ui.widgets.text import labelled, stamp
from tui.untrusted import clean, truncate

from .base import Place
from .post_table import post_links
from .profile import AGENT_SCOPE
from .table_screen import TableScreen

__all__ = ["ActivityScreen", "FeedRow"]


class ActivityScreen(TableScreen, tab="activity"):
    """Tab 8."""

    COLUMNS = COLUMNS
    NOUN = "changes"
    SOURCE = CHANGES
    ROW = FeedRow
    POSTING_KIND = "agent"
    DETAIL_ON_JUMP = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "follow", "Go to what it is about", show=False, id="activity.follow"),
        Binding("t", "next_type", "Next type", id="activity.type"),
        Binding("A", "only_agent", "Only this agent", show=False, id="activity.agent"),
        Binding("a", "agent", "Go to the agent", show=False, id="activity.go_agent"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.type_filter: str | None = None
        self.agent_filter: str | None = None
        self._ordered: tuple[Any, dict[str, ActivityRow]] | None = None
        self._types: tuple[Mapping[str, ActivityRow], dict[str, frozenset[str]]] | None = None

    def on_mount(self) -> None:
        # the first time the tab is shown, never at roost's start
        self.post_message(self.FilesWanted((CHANGES,)))

    # ------------------------------------------------------------------ rows

    def models(self, snapshot: Snapshot) -> Mapping[str, ActivityRow] | None:
        changes = snapshot.changes
        if changes is None:
            return None
        if self._ordered is None or self._ordered[0] is not changes:
            self._ordered = (changes, {row.key: row for row in activity_rows(changes)})
        return self._ordered[1]

    def models_cost(self, snapshot: Snapshot) -> int:
        """Wording 150,000 changes is done in the build thread."""
        changes = snapshot.changes
        ordered = self._ordered
        if changes is None or (ordered is not None and ordered[0] is changes):
            return 0
        return len(changes.changes)

    def prepare(self, snapshot: Snapshot) -> float:
        return self.clock().timestamp()

    def retimed_context(self, context: Any) -> float:
        return self.clock().timestamp()

    def raw_model(self, model: ActivityRow) -> Any:
        return model.model

    def show_empty_state(self) -> None:
        state = self.snapshot.file(CHANGES)
        if self.building:
            message = "loading\u2026"
        elif state.integrity == "absent":
            message = f"This deployment does not publish {CHANGES}: there is no feed to show."
        elif state.integrity == "missing" and not state.loaded:
            message = f"loading {CHANGES}\u2026"
        else:
            message = self.empty_text(CHANGES, "changes")
        self.table.set_empty_message(message)

    def summary_extra(self) -> Content:
        parts = [
            Content.assemble(
                "type: ",
                (truncate(clean(self.type_filter or "all"), 24), "bold"),
                ("  t", "$text-muted"),
            )
        ]
        if self.agent_filter is not None:
            parts.append(
                Content.assemble(
                    "agent: ",
                    (truncate(clean(self.agent_filter), 40), "bold"),
                    ("  escape clears", "$text-muted"),
                )
            )
        return Content(" \u00b7 ").join(parts)

    # ------------------------------------------------------------------ filters

    def _apply_filters(self) -> None:
        kind, agent = self.type_filter, self.agent_filter
        if kind is None and agent is None:
            self.table.set_predicate(None)
        elif agent is None:
            self.table.set_predicate(self._keys_by_type().get(kind or "", frozenset()).__contains__)
        else:
            # the keys of the rows wanted, found once: the table asks for each of its rows
            wanted = frozenset(
                key
                for key, row in self._models.items()
                if (kind is None or row.type == kind) and (agent is None or agent in row.agents)
            )
            self.table.set_predicate(wanted.__contains__)
        self.update_summary()

    def after_rows(self, built: Any) -> None:
        """New rows (a refresh): narrowed by the type and agent filters as the rows before."""
        if self.type_filter is not None or self.agent_filter is not None:
            self._apply_filters()

    def types(self) -> list[str]:
        """The types in the feed, in order of first appearance (newest first)."""
        return list(self._keys_by_type())

    def _keys_by_type(self) -> dict[str, frozenset[str]]:
        """Each type's row keys, in order of first appearance: found in one pass per build of
        the rows, so that ``t`` on 150,000 changes narrows by a set already made."""
        models = self._models
        if self._types is None or self._types[0] is not models:
            grouped: dict[str, list[str]] = {}
            for key, row in models.items():
                grouped.setdefault(row.type, []).append(key)
            self._types = (models, {kind: frozenset(keys) for kind, keys in grouped.items()})
        return self._types[1]

    def action_next_type(self) -> None:
        """``t``: all types, then each type in the feed in turn, then all again."""
        cycle: list[str | None] = [None, *self.types()]
        at = cycle.index(self.type_filter) if self.type_filter in cycle else 0
        self.type_filter = cycle[(at + 1) % len(cycle)]
        self._apply_filters()

    def action_only_agent(self) -> None:
        """``A``: only the selected row's agent; again: every agent."""
        if self.agent_filter is not None:
            self.agent_filter = None
        else:
            row = self.current_row()
            if row is None or not row.agent:
                self.notify("This row names no agent", severity="warning", markup=False)
                return
            self.agent_filter = row.agent
        self._apply_filters()

    def select_key(self, key: str) -> None:
        if key.startswith(AGENT_SCOPE):
            self.agent_filter = key.removeprefix(AGENT_SCOPE) or None
            self.type_filter = None
            self._apply_filters()
            return
        super().select_key(key)

    def clear_filters(self) -> None:
        super().clear_filters()
        if self.type_filter is not None or self.agent_filter is not None:
            self.type_filter = self.agent_filter = None
            self._apply_filters()

    def back_more(self) -> None:
        if self.type_filter is not None or self.agent_filter is not None:
            self.type_filter = self.agent_filter = None
            self._apply_filters()
        else:
            super().back_more()

    def place(self) -> Place:
        where = super().place()
        scope = f"{AGENT_SCOPE}{self.agent_filter}" if self.agent_filter is not None else None
        return Place(where.tab_id, where.key, where.filter, where.detail_open, scope)

    def return_to(self, place: Place) -> None:
        agent = place.scope.removeprefix(AGENT_SCOPE) if place.scope else None
        if self.ready and agent != self.agent_filter:
            self.agent_filter = agent
            self._apply_filters()
        super().return_to(place)

    # ------------------------------------------------------------------ the selected row

    def current_row(self) -> ActivityRow | None:
        key = self.detail.key if self.detail_open else self.table.cursor_key
        return self._models.get(key) if key is not None else None

    def row_chosen(self, key: str) -> None:
        self._follow(self._models.get(key))

    def action_follow(self) -> None:
        self._follow(self.current_row())

    def _follow(self, row: ActivityRow | None) -> None:
        """What the row is about: its post's thread, its channel, its agent; else its detail."""
        if row is None:
            return
        if row.post is not None:
            self.open_thread(row.post)
        elif row.channel:
            self.jump_to("channels", row.channel)
        elif row.agent:
            self.jump_to("agents", row.agent)
        else:
            self.open_detail(row.key)

    def action_agent(self) -> None:
        row = self.current_row()
        if row is not None and row.agent:
            self.jump_to("agents", row.agent)

    def copy_text(self) -> str | None:
        row = self.current_row()
        return row.text if row is not None else None

    def posting_context(self) -> Any:
        """``n`` on a row about an agent: the actions on that agent."""
        from tui.actions.action_context import ActionContext  # deferred: off the start path

        row = self.current_row()
        return (
            ActionContext("agent", row.agent) if row is not None and row.agent else ActionContext()
        )

    def detail_view(self, key: str, model: ActivityRow) -> tuple[Content, list[Link]]:
        extras = {truncate(clean(k), 24): v for k, v in model.model.extras.items()}
        width = max([8, *(len(name) + 1 for name in extras)])  # an audit's counts named whole
        lines = [
            Content(truncate(clean(model.text), 400)).stylize("bold"),
            Content(""),
            labelled("type", model.type, width),
            labelled("when", stamp(model.ts, self.clock()), width),
        ]
        for name, value in extras.items():
            lines.append(labelled(name, truncate(clean(value), 500), width))
        lines.append(Content(""))
        lines.append(
            Content("enter goes to it · A only this agent · J raw JSON").stylize("$text-muted")
        )
        links = post_links(model.agent or "", model.channel or "")
        if model.post is not None:
            links.append(Link(Content(f"post #{model.post}"), "posts", f"#{model.post}"))
        return Content("\n").join(lines), links
