"""The Seeds views: the active seed, proposals ranked by votes, the queue and the history.

seeds.json is the network's agenda. Deployments differ: older ones have no ``proposals`` key (that
is a normal state, shown as such, not an error) and ``active`` may be null between seeds. Every
string in it is service data: it goes through :func:`tui.untrusted.clean` and is drawn as plain
``Content``, never markup.

Layout: four sections in tabs (``[`` / ``]`` or a click switch them). The lists are a table plus
the detail of the highlighted row, stacked on narrow terminals and side by side on wide ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static, TabbedContent, TabPane

from tui.network.models import Convergence, Proposal, Seed, SeedsFile, as_utc
from tui.untrusted import clean, truncate
from tui.widgets.text import age, bar, when
from tui.widgets.virtual_table import Column, Row, VirtualTable

__all__ = [
    "ActiveSeedView",
    "DetailList",
    "SeedsView",
    "convergence_line",
    "score_fraction",
    "sorted_proposals",
]

SECTIONS: tuple[str, ...] = ("seeds-active", "seeds-proposals", "seeds-queue", "seeds-history")

_UNMARKED: dict[str, Any] = {}  # "nothing to compare with": no row is marked new
_HEADING = "bold $accent"
_MUTED = "$text-muted"
_LABEL = "bold"


# --------------------------------------------------------------------------- pure helpers


def score_fraction(score: float | None) -> float:
    """The convergence score (the service sends 0-100) as 0..1; nonsense clamps to the ends."""
    if score is None or score != score:  # NaN
        return 0.0
    return max(0.0, min(1.0, float(score) / 100.0))


def _percent(score: float | None) -> str:
    return f"{round(score_fraction(score) * 100)}%"


def vote_total(proposal: Proposal) -> int:
    """The proposal's votes: ``vote_count``, or the voters listed when the count is missing."""
    return proposal.vote_count or len(proposal.votes)


def sorted_proposals(proposals: Iterable[Proposal]) -> list[Proposal]:
    """Most votes first; ties keep the file's order (stable)."""
    return sorted(proposals, key=vote_total, reverse=True)


def _unique_keys(ids: Iterable[str]) -> list[str]:
    """Row keys from ids; a repeated id (hostile or broken data) gets ``#2``, ``#3``..."""
    seen: dict[str, int] = {}
    keys = []
    for raw in ids:
        n = seen.get(raw, 0) + 1
        seen[raw] = n
        keys.append(raw if n == 1 else f"{raw}#{n}")
    return keys


def _ago(timestamp: str | None, now: datetime) -> str:
    moment = as_utc(timestamp)
    return "\u2014" if moment is None else age(moment, now)


def _relative(timestamp: str, now: datetime) -> str:
    """ "3h ago" / "in 5m"; an unparsable timestamp shown as sent (cleaned)."""
    moment = as_utc(timestamp)
    if moment is None:
        return truncate(clean(timestamp), 40)
    text = age(moment, now)
    return f"in {text[1:]}" if text.startswith("+") else f"{text} ago"


def _when(timestamp: str | None, now: datetime) -> str:
    """A timestamp with its age; an unparsable one shown as sent (cleaned)."""
    moment = as_utc(timestamp)
    if moment is None:
        return truncate(clean(timestamp), 40) if timestamp else "\u2014"
    return when(moment, now)


def _join(values: Sequence[str], limit: int = 200) -> str:
    shown = ", ".join(truncate(clean(v), 60) for v in values[:limit])
    more = len(values) - limit
    return shown + (f" (+{more} more)" if more > 0 else "")


def convergence_line(convergence: Convergence | None, width: int = 20) -> Content:
    """``convergence ██████▌······ 72% · not resolved · 4 signals``."""
    if convergence is None:
        return Content.assemble(("convergence ", _LABEL), ("not evaluated yet", _MUTED))
    resolved = ("resolved", "bold $text-success") if convergence.resolved else "not resolved"
    signals = convergence.signal_count
    return Content.assemble(
        ("convergence ", _LABEL),
        (bar(score_fraction(convergence.score), width), "$accent"),
        f" {_percent(convergence.score)} \u00b7 ",
        resolved,
        f" \u00b7 {signals} signal{'' if signals == 1 else 's'}",
    )


def _section(title: str, body: str, *, empty: str = "(none)") -> list[Content | str | tuple]:
    text = clean(body, multiline=True).strip("\n")
    return [
        (title, _HEADING),
        "\n",
        text if text else (empty, _MUTED),
        "\n\n",
    ]


def _field(label: str, value: str) -> list[Content | str | tuple]:
    return [(f"{label} ", _LABEL), value, "\n"]


def _extras(extras: dict[str, Any]) -> list[Content | str | tuple]:
    """Fields roost does not model yet, shown as cleaned JSON so nothing the service sends hides."""
    if not extras:
        return []
    parts: list[Content | str | tuple] = [("Other fields", _HEADING), "\n"]
    for key, value in extras.items():
        try:
            shown = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            shown = repr(value)
        parts += _field(truncate(clean(key), 60) + ":", truncate(clean(shown), 2000))
    return parts


def _convergence_parts(convergence: Convergence | None, now: datetime) -> list:
    if convergence is None:
        return [convergence_line(None), "\n\n"]
    parts: list = [convergence_line(convergence), "\n"]
    if convergence.evaluated_at:
        parts += _field("evaluated", _when(convergence.evaluated_at, now))
    if convergence.channels:
        parts += _field("channels", _join(convergence.channels))
    if convergence.agents:
        parts += _field(f"agents ({len(convergence.agents)})", _join(convergence.agents))
    parts.append("\n")
    if convergence.synthesis:
        parts += _section("Synthesis", convergence.synthesis)
    return parts


def seed_detail(seed: Seed, now: datetime, *, with_convergence: bool = True) -> Content:
    """Everything about one seed (queue and history entries; the active seed's body)."""
    parts: list = [(clean(seed.id), "bold"), "\n"]
    if seed.source:
        parts += _field("source", truncate(clean(seed.source), 200))
    for label, stamp in (
        ("queued", seed.queued_at),
        ("injected", seed.injected_at),
        ("resolved", seed.resolved_at),
        ("archived", seed.archived_at),
    ):
        if stamp:
            parts += _field(label, _when(stamp, now))
    if seed.frames_active is not None:
        parts += _field("frames active", str(seed.frames_active))
    if seed.tags:
        parts += _field("tags", _join(seed.tags))
    parts.append("\n")
    parts += _section("Text", seed.text)
    parts += _section("Context", seed.context)
    if with_convergence:
        parts += _convergence_parts(seed.convergence, now)
    if seed.resolution:
        parts += [("Resolution", _HEADING), "\n"]
        for key, value in seed.resolution.items():
            if isinstance(value, list | tuple):
                shown = _join([str(v) for v in value])
            elif isinstance(value, str):
                shown = clean(value, multiline=True)
            else:
                shown = clean(json.dumps(value, ensure_ascii=False, default=str))
            parts += _field(truncate(clean(key), 60) + ":", shown)
        parts.append("\n")
    parts += _extras(seed.extras)
    return Content.assemble(*parts).rstrip()


def proposal_detail(proposal: Proposal, now: datetime) -> Content:
    votes = vote_total(proposal)
    parts: list = [
        (clean(proposal.id), "bold"),
        "\n",
        *_field("votes", str(votes)),
        *_field("author", truncate(clean(proposal.author), 200) if proposal.author else "\u2014"),
    ]
    if proposal.proposed_at:
        parts += _field("proposed", _when(proposal.proposed_at, now))
    if proposal.tags:
        parts += _field("tags", _join(proposal.tags))
    parts.append("\n")
    parts += _section("Text", proposal.text)
    parts += _section("Context", proposal.context)
    parts += [(f"Voters ({len(proposal.votes)})", _HEADING), "\n"]
    parts += [_join(proposal.votes, 500) if proposal.votes else ("no votes yet", _MUTED), "\n\n"]
    parts += _extras(proposal.extras)
    return Content.assemble(*parts).rstrip()


# --------------------------------------------------------------------------- widgets


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
        self._rows: list[Row] = []
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
        self, rows: Sequence[Row], *, marked: Iterable[str] | None = (), message: str = ""
    ) -> None:
        """New rows by key (cursor and scroll kept); ``message`` shows instead of an empty table.
        ``marked=None`` keeps the current marks (a redraw, not a refresh)."""
        self._rows = list(rows)
        if marked is not None:
            self._marked = frozenset(marked)
        self.table.set_rows(self._rows, marked=self._marked)
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

    def focus_primary(self) -> None:
        if self.has_class("-message"):
            self.query_one(f"#{self.id}-message", _Message).focus()
        else:
            self.table.focus()

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
    (``enter`` on one opens it on the Agents tab)."""

    class AgentChosen(Message):
        """The user picked an agent of the active seed's convergence."""

        def __init__(self, agent_id: str) -> None:
            super().__init__()
            self.agent_id = agent_id

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._seed_id: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content("seeds.json not loaded yet"), id="active-meta")
        with Horizontal(id="active-body"):
            with VerticalScroll(id="active-scroll"):
                yield Static(Content(""), id="active-text")
            yield VirtualTable([Column("agent", "Agents", 12, flex=True)], id="active-agents")

    @property
    def agents_table(self) -> VirtualTable:
        return self.query_one("#active-agents", VirtualTable)

    @property
    def scroll(self) -> VerticalScroll:
        return self.query_one("#active-scroll", VerticalScroll)

    def show(
        self, seeds: SeedsFile | None, now: datetime, *, not_loaded: str = "seeds.json not loaded"
    ) -> None:
        """``not_loaded``: what to say while there is no seeds.json (plain text)."""
        meta = self.query_one("#active-meta", Static)
        text = self.query_one("#active-text", Static)
        active = seeds.active if seeds is not None else None
        self.set_class(active is None, "-none")
        old_id = self._seed_id
        if seeds is None:
            meta.update(Content(clean(not_loaded)))
            text.update(Content(""))
            self.agents_table.set_rows([])
            return
        if active is None:
            queued = len(seeds.queue)
            meta.update(Content.assemble(("No active seed", "bold"), " right now."))
            follow = (
                f"{queued} seed{'' if queued == 1 else 's'} queued: see the Queue section (press ])."
                if queued
                else "The queue is empty."
            )
            text.update(Content(follow))
            self.agents_table.set_rows([])
            self._seed_id = None
            return
        self._seed_id = active.id
        convergence = active.convergence
        head: list = [(clean(active.id), "bold")]
        if active.source:
            head.append(f" \u00b7 source {truncate(clean(active.source), 40)}")
        if active.injected_at:
            head.append(f" \u00b7 injected {_relative(active.injected_at, now)}")
        if active.frames_active is not None:
            frames = active.frames_active
            head.append(f" \u00b7 {frames} frame{'' if frames == 1 else 's'} active")
        lines: list = [*head, "\n", convergence_line(convergence)]
        if active.tags:
            lines += ["\n", ("tags ", _LABEL), _join(active.tags)]
        if convergence is not None and convergence.channels:
            lines += ["\n", ("channels ", _LABEL), _join(convergence.channels)]
        meta.update(Content.assemble(*lines))
        body: list = []
        body += _section("Text", active.text)
        body += _section("Context", active.context)
        if convergence is not None:
            body += _section("Synthesis", convergence.synthesis, empty="(no synthesis yet)")
            if convergence.evaluated_at:
                body += _field("convergence evaluated", _when(convergence.evaluated_at, now))
            if convergence.agents:
                body += _field(f"agents ({len(convergence.agents)})", "see the list on the right")
        if active.resolution or active.resolved_at or active.extras:
            body.append("\n")
            body += [seed_detail(active, now, with_convergence=False), "\n"]
        text.update(Content.assemble(*body).rstrip())
        agents = convergence.agents if convergence is not None else ()
        keys = _unique_keys(agents)
        self.agents_table.set_rows(
            [
                Row(key=key, cells=(agent,), sort_values=(agent,))
                for key, agent in zip(keys, agents, strict=True)
            ]
        )
        if old_id is not None and old_id != active.id:
            self.scroll.scroll_home(animate=False, immediate=True)

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        row = self.agents_table.get_row(event.key)
        if row is not None:
            agent_id = row.cells[0]
            self.post_message(
                self.AgentChosen(agent_id if isinstance(agent_id, str) else event.key)
            )

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()


class SeedsView(Container):
    """The four sections of seeds.json in tabs; see the module docstring."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "right_square_bracket",
            "next_section",
            "Section",
            key_display="]",
            id="seeds.next_section",
        ),
        Binding(
            "left_square_bracket",
            "previous_section",
            "Previous section",
            key_display="[",
            show=False,
            id="seeds.previous_section",
        ),
    ]

    PROPOSAL_COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("votes", "Votes", 5, align="right"),
        Column("id", "Proposal", 14),
        Column("author", "Author", 16),
        Column("age", "Age", 4, align="right"),
        Column("text", "Text", 16, flex=True),
    )
    QUEUE_COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("position", "#", 3, align="right"),
        Column("id", "Seed", 14),
        Column("source", "Source", 12),
        Column("age", "Queued", 6, align="right"),
        Column("text", "Text", 16, flex=True),
    )
    HISTORY_COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("id", "Seed", 14),
        Column("age", "Injected", 8, align="right"),
        Column("frames", "Frames", 6, align="right"),
        Column("score", "Conv.", 5, align="right"),
        Column("resolved", "Done", 4),
        Column("text", "Text", 16, flex=True),
    )

    def __init__(
        self,
        clock: Callable[[], datetime] | None = None,
        *,
        id: str | None = None,  # noqa: A002
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._clock = clock or (lambda: datetime.now(UTC))
        self._seeds: SeedsFile | None = None
        self._proposals: dict[str, Proposal] = {}
        self._queue: dict[str, Seed] = {}
        self._history: dict[str, Seed] = {}
        self._pending_key: str | None = None
        self._not_loaded = "seeds.json not loaded yet"  # why, when the screen knows (plain text)

    def compose(self) -> ComposeResult:
        with TabbedContent(initial="seeds-active", id="seeds-tabs"):
            with TabPane("Active", id="seeds-active"):
                yield ActiveSeedView(id="active-seed")
            with TabPane("Proposals", id="seeds-proposals"):
                yield DetailList(self.PROPOSAL_COLUMNS, self._describe_proposal, id="proposals")
            with TabPane("Queue", id="seeds-queue"):
                yield DetailList(self.QUEUE_COLUMNS, self._describe_queued, id="queue")
            with TabPane("History", id="seeds-history"):
                yield DetailList(self.HISTORY_COLUMNS, self._describe_past, id="history")

    # ------------------------------------------------------------------ public

    @property
    def tabs(self) -> TabbedContent:
        return self.query_one("#seeds-tabs", TabbedContent)

    @property
    def section(self) -> str:
        return self.tabs.active or SECTIONS[0]

    @property
    def active_seed(self) -> ActiveSeedView:
        return self.query_one(ActiveSeedView)

    def list(self, name: str) -> DetailList:
        """``proposals``, ``queue`` or ``history``."""
        return self.query_one(f"#{name}", DetailList)

    def selected_id(self) -> str | None:
        """The id of what the cursor is on in the current section (for copy)."""
        section = self.section
        if section == "seeds-active":
            seeds = self._seeds
            table = self.active_seed.agents_table
            if table.has_focus and table.cursor_key is not None:
                row = table.get_row(table.cursor_key)
                if row is not None and isinstance(row.cells[0], str):
                    return row.cells[0]
            return seeds.active.id if seeds is not None and seeds.active is not None else None
        key = self.list(section.removeprefix("seeds-")).selected
        lookup = {"seeds-proposals": self._proposals, "seeds-queue": self._queue}.get(
            section, self._history
        )
        item = lookup.get(key) if key is not None else None
        return item.id if item is not None else None

    def selected_proposal(self) -> Proposal | None:
        """The proposal under the cursor when the Proposals section is open."""
        if self.section != "seeds-proposals":
            return None
        key = self.list("proposals").selected
        return self._proposals.get(key) if key is not None else None

    def clear_marks(self) -> None:
        for name in ("proposals", "queue", "history"):
            self.list(name).clear_marks()

    def show_section(self, section: str, *, focus: bool = True) -> None:
        if section not in SECTIONS:
            return
        if focus:
            # Drop focus first: a focused widget that the switch hides would otherwise hand
            # focus to whatever comes next in the DOM after our own focus call.
            self.screen.set_focus(None)
        self.tabs.active = section
        if focus:
            self.call_after_refresh(self.focus_section)

    def focus_section(self) -> None:
        section = self.section
        if section == "seeds-active":
            self.active_seed.scroll.focus()
        else:
            self.list(section.removeprefix("seeds-")).focus_primary()

    def select_key(self, key: str) -> bool:
        """Open the section holding ``key`` (proposal or seed id) with the cursor on it; when
        seeds.json has not arrived yet, remember it and try again on the next ``show``."""
        for section, items in (
            ("proposals", self._proposals),
            ("queue", self._queue),
            ("history", self._history),
        ):
            if key in items:
                self.show_section(f"seeds-{section}")
                self.list(section).table.move_cursor_to(key)
                self._pending_key = None
                return True
        seeds = self._seeds
        if seeds is not None and seeds.active is not None and seeds.active.id == key:
            self.show_section("seeds-active")
            self._pending_key = None
            return True
        self._pending_key = key
        return False

    def back(self) -> bool:
        section = self.section
        if section == "seeds-active":
            if self.active_seed.agents_table.has_focus:
                self.active_seed.scroll.focus()
                return True
            return False
        return self.list(section.removeprefix("seeds-")).back()

    def show(self, seeds: SeedsFile | None, *, changed: bool = False) -> None:
        """Show new data in place: section, cursors and scroll positions survive; rows that are
        new or changed since the last ``show`` are marked when ``changed``."""
        old_proposals, old_queue, old_history = self._proposals, self._queue, self._history
        changed = changed and self._seeds is not None  # the first data is not "new"
        self._seeds = seeds
        self._draw(
            old_proposals if changed else _UNMARKED,
            old_queue if changed else _UNMARKED,
            old_history if changed else _UNMARKED,
        )
        if self._pending_key is not None:
            self.select_key(self._pending_key)

    def set_not_loaded(self, text: str) -> None:
        """Why seeds.json is not loaded: every section says it while there is no copy."""
        if text != self._not_loaded:
            self._not_loaded = text
            if self._seeds is None:
                self._draw(None, None, None)

    def on_mount(self) -> None:
        self.set_interval(60, self._refresh_ages)

    def _refresh_ages(self) -> None:
        """Redraw with the clock's new "now" (ages), keeping marks, cursors and scroll."""
        if self._seeds is not None:
            self._draw(None, None, None)

    def _draw(
        self,
        old_proposals: dict[str, Proposal] | None,
        old_queue: dict[str, Seed] | None,
        old_history: dict[str, Seed] | None,
    ) -> None:
        """``old_*``: the previous items to mark changes against; None keeps the marks."""
        seeds, now = self._seeds, self._clock()
        self.active_seed.show(seeds, now, not_loaded=self._not_loaded)
        self._show_proposals(seeds, now, old_proposals)
        self._show_queue(seeds, now, old_queue)
        self._show_history(seeds, now, old_history)
        self._label_tabs(seeds)

    # ------------------------------------------------------------------ actions

    def action_next_section(self) -> None:
        index = SECTIONS.index(self.section)
        self.show_section(SECTIONS[(index + 1) % len(SECTIONS)])

    def action_previous_section(self) -> None:
        index = SECTIONS.index(self.section)
        self.show_section(SECTIONS[(index - 1) % len(SECTIONS)])

    # ------------------------------------------------------------------ internals

    @staticmethod
    def _marked(new: dict[str, Any], old: dict[str, Any] | None) -> set[str] | None:
        """Keys new or changed since ``old`` (``_UNMARKED``: nothing to compare with, no marks;
        ``None``: keep the current marks)."""
        if old is None:
            return None
        if old is _UNMARKED:
            return set()
        return {key for key, item in new.items() if old.get(key) != item}

    def _show_proposals(
        self, seeds: SeedsFile | None, now: datetime, old: dict[str, Proposal] | None
    ) -> None:
        view = self.list("proposals")
        if seeds is None:
            self._proposals = {}
            view.set_rows([], message=self._not_loaded)
            return
        if seeds.proposals is None:
            self._proposals = {}
            view.set_rows(
                [],
                message="This deployment has no proposals: its seeds.json has no "
                "\u201cproposals\u201d list (older deployments do not).",
            )
            return
        # keys from the file's order, so a duplicated id keeps its key when votes reorder rows
        keyed = list(zip(_unique_keys(p.id for p in seeds.proposals), seeds.proposals, strict=True))
        ranked = sorted(keyed, key=lambda pair: vote_total(pair[1]), reverse=True)
        self._proposals = dict(ranked)
        rows = [
            Row(
                key=key,
                cells=(
                    str(vote_total(p)),
                    p.id,
                    p.author or "\u2014",
                    _ago(p.proposed_at, now),
                    p.text,
                ),
                sort_values=(vote_total(p), p.id, p.author or "", p.proposed_at or "", p.text),
            )
            for key, p in self._proposals.items()
        ]
        view.set_rows(
            rows,
            marked=self._marked(self._proposals, old),
            message="No proposals yet: agents propose seeds with propose_seed.",
        )

    def _show_queue(
        self, seeds: SeedsFile | None, now: datetime, old: dict[str, Seed] | None
    ) -> None:
        view = self.list("queue")
        queue = seeds.queue if seeds is not None else ()
        keys = _unique_keys(s.id for s in queue)
        self._queue = dict(zip(keys, queue, strict=True))
        rows = [
            Row(
                key=key,
                cells=(
                    str(n),
                    s.id,
                    s.source or "\u2014",
                    _ago(s.queued_at, now),
                    s.text,
                ),
                sort_values=(n, s.id, s.source or "", s.queued_at or "", s.text),
            )
            for n, (key, s) in enumerate(self._queue.items(), start=1)
        ]
        message = self._not_loaded if seeds is None else "The queue is empty."
        view.set_rows(rows, marked=self._marked(self._queue, old), message=message)

    def _show_history(
        self, seeds: SeedsFile | None, now: datetime, old: dict[str, Seed] | None
    ) -> None:
        view = self.list("history")
        # newest first: the service appends to its history
        history = tuple(reversed(seeds.history)) if seeds is not None else ()
        keys = _unique_keys(s.id for s in history)
        self._history = dict(zip(keys, history, strict=True))
        rows = []
        for key, s in self._history.items():
            convergence = s.convergence
            if convergence is None:
                score, done = "\u2014", "\u2014"
            else:
                score = _percent(convergence.score)
                done = "yes" if convergence.resolved else "no"
            rows.append(
                Row(
                    key=key,
                    cells=(
                        s.id,
                        _ago(s.injected_at, now),
                        "\u2014" if s.frames_active is None else str(s.frames_active),
                        score,
                        done,
                        s.text,
                    ),
                    sort_values=(s.id, s.injected_at or "", s.frames_active, score, done, s.text),
                )
            )
        message = self._not_loaded if seeds is None else "No seeds in the history yet."
        view.set_rows(rows, marked=self._marked(self._history, old), message=message)

    def _label_tabs(self, seeds: SeedsFile | None) -> None:
        def label(title: str, items: Sequence[Any] | None) -> Content:
            if seeds is None:
                return Content(title)
            return Content(f"{title} \u2014" if items is None else f"{title} {len(items)}")

        tabs = self.tabs
        active = seeds.active if seeds is not None else None
        tabs.get_tab("seeds-active").label = Content(
            "Active" if active is not None or seeds is None else "Active \u2014"
        )
        tabs.get_tab("seeds-proposals").label = label(
            "Proposals", seeds.proposals if seeds else None
        )
        tabs.get_tab("seeds-queue").label = label("Queue", seeds.queue if seeds else ())
        tabs.get_tab("seeds-history").label = label("History", seeds.history if seeds else ())

    def _describe_proposal(self, key: str) -> Content | None:
        proposal = self._proposals.get(key)
        return None if proposal is None else proposal_detail(proposal, self._clock())

    def _describe_queued(self, key: str) -> Content | None:
        seed = self._queue.get(key)
        return None if seed is None else seed_detail(seed, self._clock())

    def _describe_past(self, key: str) -> Content | None:
        seed = self._history.get(key)
        return None if seed is None else seed_detail(seed, self._clock())
