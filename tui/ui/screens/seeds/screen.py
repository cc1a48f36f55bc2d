"""Tab 5, Seeds: the active seed with its convergence and agents, proposals ranked by votes,
the queue and the history (ARCHITECTURE.md, the service; where a new thing goes).

seeds.json is the network's agenda. Deployments differ: older ones have no ``proposals`` key (a
normal state, shown as such, not an error) and ``active`` may be null between seeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Static, TabPane

from tui.network.models import Proposal, Seed, SeedsFile
from tui.network.state_files import SEEDS
from tui.network.store import Snapshot
from tui.ui.screens.base import StateScreen
from tui.ui.screens.seeds.details import (
    Detail,
    proposal_detail,
    proposal_links,
    seed_detail,
    unique_keys,
    vote_total,
)
from tui.ui.screens.seeds.rows import (
    HISTORY_COLUMNS,
    PROPOSAL_COLUMNS,
    QUEUE_COLUMNS,
    PastRow,
    ProposalRow,
    QueueContext,
    QueuedRow,
)
from tui.ui.screens.seeds.views import (
    ActiveSeedView,
    DetailList,
    SeedPane,
    SeedSections,
    SeedTable,
)
from tui.ui.stylesheets import sheets
from tui.ui.table.filter_line import FilterLine, run_binding
from tui.ui.table.virtual_table import LazyRows
from tui.ui.textual_compat import ContentTabs

if TYPE_CHECKING:
    from tui.actions.action_context import ActionContext
    from tui.ui.screens.sort_picker import SortChoice

__all__ = ["SECTIONS", "SeedsScreen"]

SECTIONS: tuple[str, ...] = ("seeds-active", "seeds-proposals", "seeds-queue", "seeds-history")

# the keys of a list's table (moving, opening): typed before that list is built, they wait for it
_LIST_KEYS = frozenset(
    key
    for binding in SeedTable.BINDINGS
    if isinstance(binding, Binding)
    for key in binding.key.split(",")
)


def _type_again(app: App[Any], keys: list[tuple[str, str | None]]) -> None:
    """Post ``keys`` to ``app`` as the terminal driver would, in order."""
    for key, character in keys:
        app.post_message(events.Key(key, character))


_UNMARKED: dict[str, Any] = {}  # "nothing to compare with": no row is marked new


class SeedsScreen(StateScreen, tab="seeds"):
    """``[`` / ``]`` (or ``h`` / ``l``) switch sections; ``enter`` on an agent of the active seed
    opens it on the Agents tab; ``enter`` on a list row moves into its detail (its "Go to" links
    follow it), ``escape`` comes back. ``/``, ``s`` / ``S`` and ``J`` filter, sort and show the
    raw JSON as on the other tables (``/`` in a text finds in it, ``n`` / ``N`` go on); ``a`` goes to a proposal's author. Lists and texts move
    with vim keys too (:class:`~tui.ui.screens.seeds.views.SeedTable`, ``SeedPane``)."""

    CSS_PATH = sheets("seeds")

    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [
        (0, "-narrow"),
        (110, "-wide"),
    ]
    AUTO_FOCUS = "#active-scroll"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", key_display="/", show=False, id="seeds.filter"),
        Binding("s", "sort", "Sort", show=False, id="seeds.sort"),
        Binding("S", "reverse", "Reverse sort", show=False, id="seeds.reverse"),
        Binding("J", "raw", "Raw JSON", show=False, id="seeds.raw"),
        Binding("a", "author", "Go to author (proposals)", show=False, id="seeds.author"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._seeds: SeedsFile | None = None
        self._proposals: dict[str, Proposal] = {}
        self._queue: dict[str, Seed] = {}
        self._history: dict[str, Seed] = {}
        self._pending_key: str | None = None
        #: list keys typed while the list on view is being built, typed again once it is
        self._held: list[tuple[str, str | None]] = []
        #: the lists whose Built this screen has handled (each is lazy: built once)
        self._lists_built: set[str] = set()
        self._not_loaded = f"{SEEDS} not loaded yet"  # why, when the app knows (plain text)
        self._find_target: SeedPane | None = None  # the text the line finds in (else: filter)
        self._line_open = False  # a "/" went by: keys typed after it belong to the line
        self._line_section = SECTIONS[0]  # the section the line was last set for

    def compose_body(self) -> ComposeResult:
        with SeedSections(initial="seeds-active", id="seeds-tabs"):
            with TabPane("Active", id="seeds-active"):
                yield ActiveSeedView(id="active-seed")
            with TabPane("Proposals", id="seeds-proposals"):
                yield DetailList(
                    PROPOSAL_COLUMNS, self._describe_proposal, id="proposals", lazy=True
                )
            with TabPane("Queue", id="seeds-queue"):
                yield DetailList(QUEUE_COLUMNS, self._describe_queued, id="queue", lazy=True)
            with TabPane("History", id="seeds-history"):
                yield DetailList(HISTORY_COLUMNS, self._describe_past, id="history", lazy=True)
        # one filter line for the lists; it filters the list of the section on view
        line = Horizontal(id="seeds-filter-line")
        line.display = False
        with line:
            yield Static(Content("filter"), id="seeds-filter-label")
            yield FilterLine(
                placeholder="type to filter this list\u2026",
                id="seeds-filter",
                on_enter=self._submit_line,
                on_escape=self._close_line,
            )

    def on_mount(self) -> None:
        self.set_interval(60, self._refresh_ages)

    def on_screen_body_mounted(self) -> None:
        # the first frame composes the Active section only; the lists follow right after it
        self.call_after_refresh(self._build_lists)
        if self.app.is_headless:
            self.filter_field.cursor_blink = False  # stable snapshots

    # ------------------------------------------------------------------ parts

    @property
    def tabs(self) -> SeedSections:
        return self.query_one("#seeds-tabs", SeedSections)

    @property
    def section(self) -> str:
        return self.tabs.active or SECTIONS[0]

    @property
    def active_seed(self) -> ActiveSeedView:
        return self.query_one(ActiveSeedView)

    @property
    def filter_field(self) -> FilterLine:
        return self.query_one("#seeds-filter", FilterLine)

    @property
    def filter_shown(self) -> bool:
        return self.query_one("#seeds-filter-line").display

    def _set_filter_shown(self, shown: bool) -> None:
        self.query_one("#seeds-filter-line").display = shown

    def _strip(self) -> ContentTabs:
        """The sections' tab strip."""
        return self.tabs.query_one(ContentTabs)

    async def _build_lists(self) -> None:
        for name in ("proposals", "queue", "history"):
            await self.list(name).build()

    def on_detail_list_built(self, event: DetailList.Built) -> None:
        """A section's list is there: if it is on view, it takes the focus and the filter line
        follows it; a row asked for before (``select_key``) is selected now."""
        event.stop()
        listing = event.detail_list
        self._lists_built.add(listing.id or "")
        if self.section == f"seeds-{listing.id}":
            self._show_filter_of(self.current_table())
            focused = self.focused
            elsewhere = focused is None or listing not in focused.ancestors_with_self
            if elsewhere and focused is not self.filter_field:
                self.set_focus(listing.primary)
        if self._pending_key is not None and self._seeds is not None:
            self.select_key(self._pending_key)
        self._keys_may_come()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._keys_may_come()  # the list just built may take the focus only now

    def _keys_may_come(self) -> None:
        """The list on view is built and focused: the keys held for it are typed again."""
        if self._held and not self._awaiting_list():
            held, self._held = self._held, []
            # from the app: a key made here would end its way up here, before the app's bindings
            self.app.call_later(_type_again, self.app, held)

    def _awaiting_list(self) -> bool:
        """Whether the focus is parked on the section strip until the list on view is built
        and takes it (asked for every key: the usual answer, focus elsewhere, costs no query).
        Until this screen has handled the list's Built, not only until the list is built: in
        between, the list is there but the focus is still on the strip."""
        if not isinstance(self.focused, ContentTabs) or self.focused is not self._strip():
            return False
        section = self.section
        return section != "seeds-active" and section.removeprefix("seeds-") not in self._lists_built

    def current_table(self) -> SeedTable | None:
        """The table of the section on view, if it shows one (no active seed: no agents list)."""
        section = self.section
        if section == "seeds-active":
            view = self.active_seed
            return None if view.has_class("-none") else view.agents_table
        listing = self.list(section.removeprefix("seeds-"))
        return None if listing.has_class("-message") or not listing.built else listing.table

    def list(self, name: str) -> DetailList:
        """``proposals``, ``queue`` or ``history``."""
        return self.query_one(f"#{name}", DetailList)

    # ------------------------------------------------------------------ StateScreen hooks

    def show_snapshot(self, snapshot: Snapshot, changed: frozenset[str]) -> None:
        """Show new data in place: section, cursors and scroll positions survive; rows that are
        new or changed since the last data are marked (the first data marks nothing)."""
        seeds = snapshot.seeds
        old = (self._proposals, self._queue, self._history)
        if SEEDS not in changed or self._seeds is None:
            old = (_UNMARKED, _UNMARKED, _UNMARKED)
        self._seeds = seeds
        self._draw(*old)
        if self._pending_key is not None:
            self.select_key(self._pending_key)

    def show_empty_state(self) -> None:
        """Every section says why seeds.json is not loaded while there is no copy."""
        text = self.not_loaded_text(SEEDS)
        if text != self._not_loaded:
            self._not_loaded = text
            if self._seeds is None:
                self._draw(None, None, None)

    def select_key(self, key: str) -> None:
        """Open the section holding ``key`` (proposal or seed id) with the cursor on it; when
        seeds.json has not arrived yet, remember it and try again on the next snapshot."""
        for section, items in (
            ("proposals", self._proposals),
            ("queue", self._queue),
            ("history", self._history),
        ):
            if key in items:
                self.show_section(f"seeds-{section}")
                if not self.list(section).built:
                    self._pending_key = key  # selected when it is (on_detail_list_built)
                    return
                table = self.list(section).table
                if not table.move_cursor_to(key):  # filtered out: show every row again
                    table.set_filter("")
                    self._show_filter_of(table)
                    table.move_cursor_to(key)
                self._pending_key = None
                return
        seeds = self._seeds
        if seeds is not None and seeds.active is not None and seeds.active.id == key:
            self.show_section("seeds-active")
            self._pending_key = None
            return
        self._pending_key = key

    def copy_text(self) -> str | None:
        """The id of what the cursor is on in the current section."""
        section = self.section
        if section == "seeds-active":
            agent = self.active_seed.selected_agent()
            if agent is not None:
                return agent
            seeds = self._seeds
            return seeds.active.id if seeds is not None and seeds.active is not None else None
        key = self.list(section.removeprefix("seeds-")).selected
        item = self._items(section).get(key) if key is not None else None
        return item.id if item is not None else None

    def clear_marks(self) -> None:
        for name in ("proposals", "queue", "history"):
            self.list(name).clear_marks()

    def action_back(self) -> None:
        """Close what is open, innermost first: the filter line or a find, a detail, the filter,
        the list of the active seed's agents."""
        field = self.filter_field
        table = self.current_table()
        section = self.section
        if self.focused is field or (
            self._find_target is not None and self.focused is self._find_target
        ):
            self._close_line()
        elif section != "seeds-active" and self.list(section.removeprefix("seeds-")).back():
            pass
        elif table is not None and table.filter_query:
            self._close_line()
        elif section == "seeds-active" and self.active_seed.agents_table.has_focus:
            self.active_seed.scroll.focus()

    # ------------------------------------------------------------------ Seeds' own

    def posting_context(self) -> ActionContext:
        """``n`` on the Proposals section votes on the selected proposal."""
        from tui.actions.action_context import ActionContext  # deferred: off the start path

        proposal = self.selected_proposal()
        return ActionContext("proposal", proposal.id) if proposal is not None else ActionContext()

    def selected_proposal(self) -> Proposal | None:
        """The proposal under the cursor on the Proposals section (for a vote action)."""
        if self.section != "seeds-proposals":
            return None
        key = self.list("proposals").selected
        return self._proposals.get(key) if key is not None else None

    def show_section(self, section: str, *, focus: bool = True) -> None:
        """Switch to ``section`` and, with ``focus``, move the focus into it at once.

        At once, not after a refresh: the keys of a fast burst that are still queued find their
        bindings from the focused widget, so every ``]`` of the burst moves a section.
        """
        if section not in SECTIONS:
            return
        self.tabs.active = section  # the switcher shows the new pane now (display is set)
        self._show_filter_of(self.current_table())
        if focus:
            # a list not built yet takes no focus: the section strip holds it meanwhile (not a
            # hidden pane; "]" and "[" still switch), the list takes it once built
            target = self._primary(section)
            self.set_focus(target if target.focusable else self._strip())

    def _primary(self, section: str) -> Widget:
        """Where the focus goes in ``section``: the text of the active seed, or the list."""
        if section == "seeds-active":
            return self.active_seed.scroll
        return self.list(section.removeprefix("seeds-")).primary

    def action_next_section(self) -> None:
        index = SECTIONS.index(self.section)
        self.show_section(SECTIONS[(index + 1) % len(SECTIONS)])

    def action_previous_section(self) -> None:
        index = SECTIONS.index(self.section)
        self.show_section(SECTIONS[(index - 1) % len(SECTIONS)])

    def on_active_seed_view_agent_chosen(self, event: ActiveSeedView.AgentChosen) -> None:
        event.stop()
        self.jump_to("agents", event.agent_id)

    def on_detail_list_link_chosen(self, event: DetailList.LinkChosen) -> None:
        event.stop()
        self.jump_to(event.link.tab, event.link.key)

    def on_tabbed_content_tab_activated(self, event: SeedSections.TabActivated) -> None:
        """A click on a section's tab: the filter line follows the list on view. (A switch by
        key did that already; its notice may come after keys typed into the line since.)"""
        if self.section != self._line_section:
            self._show_filter_of(self.current_table())

    # ------------------------------------------------------------------ filter, sort, raw

    def _not_here(self, what: str) -> None:
        self.notify(
            f"{what} works on a list: the agents of the active seed, proposals, queue, history",
            severity="warning",
            markup=False,
        )

    def action_filter(self) -> None:
        """``/``: in a text (a detail, the active seed), find in it; elsewhere, filter the list."""
        pane = self.focused if isinstance(self.focused, SeedPane) else None
        if pane is not None:
            query = pane.find_query
        else:
            table = self.current_table()
            if table is None:
                self._line_open = False
                self._not_here("The filter")
                return
            query = table.filter_query
        self._find_target = pane
        field = self.filter_field
        with field.prevent(Input.Changed):
            field.value = query
        self._label_line()
        self._set_filter_shown(True)
        field.cursor_position = len(field.value)
        self.set_focus(field)

    def _label_line(self) -> None:
        """``filter``, or ``find 2/5`` (which match of how many) while finding in a text."""
        pane, field = self._find_target, self.filter_field
        if pane is None:
            label, field.placeholder = "filter", "type to filter this list\u2026"
        else:
            count = pane.match_count
            label = f"find {pane.current + 1}/{count}" if count else "find"
            if pane.find_query.strip() and not count:
                label = "find: no match"
            field.placeholder = "type to find in this text\u2026"
        self.query_one("#seeds-filter-label", Static).update(Content(label))

    def _end_find(self) -> None:
        pane, self._find_target = self._find_target, None
        if pane is not None:
            pane.find("")
        self._label_line()

    def _show_filter_of(self, table: SeedTable | None) -> None:
        """The line shows the filter of ``table`` (hidden when it has none); a find ends (it is
        of one text)."""
        self._line_section = self.section
        if self._find_target is not None:
            self._end_find()
        field = self.filter_field
        query = table.filter_query if table is not None else ""
        if self.focused is field and table is None:
            self.set_focus(None)
        with field.prevent(Input.Changed):
            field.value = query
        self._set_filter_shown(bool(query) or self.focused is field)

    def _close_line(self) -> None:
        """End the find, or clear the filter, and hide the line."""
        self._line_open = False
        pane = self._find_target
        if pane is not None:
            self._end_find()
            self._set_filter_shown(False)
            self.set_focus(pane)
            return
        table = self.current_table()
        if table is not None:
            table.set_filter("")
        self._show_filter_of(table)
        self._set_filter_shown(False)
        self.set_focus(self._primary(self.section))

    @on(Input.Changed, "#seeds-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.value == self.filter_field.value and self.filter_shown:  # else: stale
            self._apply_line(event.value)

    def _apply_line(self, value: str) -> None:
        pane = self._find_target
        if pane is not None:
            if value != pane.find_query:
                pane.find(value)
                self._label_line()
            return
        table = self.current_table()
        if table is not None:
            table.type_filter(value)

    def _submit_line(self) -> None:
        """``enter`` in the line: back to the list or text, the filter or find kept."""
        self._line_open = False
        self._apply_line(self.filter_field.value)  # now: keys after enter act on its result
        pane = self._find_target
        if not self.filter_field.value.strip():
            if pane is not None:
                self._end_find()
            self._set_filter_shown(False)
        if pane is not None:
            self.set_focus(pane)
            return
        table = self.current_table()
        self.set_focus(table if table is not None else self._primary(self.section))

    def on_seed_pane_found(self, event: SeedPane.Found) -> None:
        event.stop()
        if event.pane is self._find_target:
            self._label_line()

    def on_key(self, event: events.Key) -> None:
        """Make a fast burst like ``]/abc⏎j`` or ``5]]jj`` act as typed.

        A list's key (``j``, ``enter`` …) typed while that list is being built (the focus
        waits on the section strip) waits for it; other keys act at once.

        Keys of a burst reach this screen from the widget focused when they arrived, one step
        before the app runs their bindings (the ``]`` before ``/`` runs there). So "/" and the
        keys typed after it that belong to the line (printable, enter, escape; they were sent to
        the widget focused before "/") are handed to the app's queue and act there, in order.
        """
        if event.key in _LIST_KEYS and self._awaiting_list():
            self._held.append((event.key, event.character))
        elif event.key == "slash" and not self._line_open:
            self._line_open = True
            self.app.call_later(self.action_filter)
        elif self._line_open and (
            (event.is_printable and event.character) or event.key in ("enter", "escape")
        ):
            if event.key in ("enter", "escape"):
                self._line_open = False
            self.app.call_later(self._line_key, event.key, event.character)
        else:
            return
        event.stop()
        event.prevent_default()

    async def _line_key(self, key: str, character: str | None) -> None:
        """A key typed for the line, now in its turn; if the line did not open (or closed), the
        key goes to the focused widget as usual."""
        field = self.filter_field
        focused = self.focused
        if focused is not field:
            self._line_open = False
            if focused is not None:
                await run_binding(self, key)
        elif key == "enter":
            self._submit_line()
        elif key == "escape":
            self._close_line()
        elif character:
            field.insert_text_at_cursor(character)

    def action_sort(self) -> None:
        """``s``: the sort picker of the list on view, as on every table."""
        from tui.ui.screens.sort_picker import SortPicker  # deferred: off the start path

        table = self.current_table()
        if table is None:
            self._not_here("Sorting")
            return

        def chosen(choice: SortChoice | None) -> None:
            if choice is not None and table.is_attached:
                table.sort_by(choice.column, choice.reverse)

        self.app.push_screen(SortPicker(table), chosen)

    def action_reverse(self) -> None:
        table = self.current_table()
        if table is None:
            self._not_here("Sorting")
        else:
            table.reverse_sort()

    def action_raw(self) -> None:
        """The raw JSON of the record on view (the active seed, or the list's row); again: back."""
        section = self.section
        if section != "seeds-active":
            self.list(section.removeprefix("seeds-")).toggle_raw()
            return
        seeds, view = self._seeds, self.active_seed
        if seeds is None or seeds.active is None:
            self.notify("No active seed to show", severity="warning", markup=False)
            return
        view.raw = not view.raw
        view.show(seeds, self.clock(), not_loaded=self._not_loaded)
        view.scroll.scroll_home(animate=False, immediate=True)

    def action_author(self) -> None:
        proposal = self.selected_proposal()
        if proposal is None:
            self.notify(
                "Go to author works on a proposal (Proposals section)",
                severity="warning",
                markup=False,
            )
        elif proposal.author:
            self.jump_to("agents", proposal.author)
        else:
            self.notify("This proposal names no author", severity="warning", markup=False)

    # ------------------------------------------------------------------ drawing

    def _items(self, section: str) -> Mapping[str, Proposal | Seed]:
        sections: dict[str, Mapping[str, Proposal | Seed]] = {
            "seeds-proposals": self._proposals,
            "seeds-queue": self._queue,
            "seeds-history": self._history,
        }
        return sections.get(section, {})

    def _refresh_ages(self) -> None:
        """Redraw with the clock's new "now" (ages), keeping marks, cursors and scroll."""
        if self._seeds is not None:
            self._draw(None, None, None)

    def _draw(
        self,
        old_proposals: Mapping[str, Proposal] | None,
        old_queue: Mapping[str, Seed] | None,
        old_history: Mapping[str, Seed] | None,
    ) -> None:
        """``old_*``: the previous items to mark changes against; None keeps the marks."""
        seeds, now = self._seeds, self.clock()
        self.active_seed.show(seeds, now, not_loaded=self._not_loaded)
        self._show_proposals(seeds, now, old_proposals)
        self._show_queue(seeds, now, old_queue)
        self._show_history(seeds, now, old_history)
        self._label_tabs(seeds)

    @staticmethod
    def _marked(new: Mapping[str, Any], old: Mapping[str, Any] | None) -> set[str] | None:
        """Keys new or changed since ``old`` (``_UNMARKED``: nothing to compare with, no marks;
        ``None``: keep the current marks)."""
        if old is None:
            return None
        if old is _UNMARKED:
            return set()
        return {key for key, item in new.items() if old.get(key) != item}

    def _show_proposals(
        self, seeds: SeedsFile | None, now: datetime, old: Mapping[str, Proposal] | None
    ) -> None:
        view = self.list("proposals")
        if seeds is None or seeds.proposals is None:
            self._proposals = {}
            message = (
                self._not_loaded
                if seeds is None
                else "This deployment has no proposals: its seeds.json has no "
                "\u201cproposals\u201d list (older deployments do not)."
            )
            view.set_rows(LazyRows(ProposalRow, {}), message=message)
            return
        # keys from the file's order, so a duplicated id keeps its key when votes reorder rows
        keyed = list(zip(unique_keys(p.id for p in seeds.proposals), seeds.proposals, strict=True))
        self._proposals = dict(sorted(keyed, key=lambda pair: vote_total(pair[1]), reverse=True))
        view.set_rows(
            LazyRows(ProposalRow, self._proposals, now),
            marked=self._marked(self._proposals, old),
            message="No proposals yet: agents propose seeds with propose_seed.",
        )

    def _show_queue(
        self, seeds: SeedsFile | None, now: datetime, old: Mapping[str, Seed] | None
    ) -> None:
        queue = seeds.queue if seeds is not None else ()
        self._queue = dict(zip(unique_keys(s.id for s in queue), queue, strict=True))
        self.list("queue").set_rows(
            LazyRows(QueuedRow, self._queue, QueueContext(now, self._queue)),
            marked=self._marked(self._queue, old),
            message=self._not_loaded if seeds is None else "The queue is empty.",
        )

    def _show_history(
        self, seeds: SeedsFile | None, now: datetime, old: Mapping[str, Seed] | None
    ) -> None:
        # newest first: the service appends to its history
        history = tuple(reversed(seeds.history)) if seeds is not None else ()
        self._history = dict(zip(unique_keys(s.id for s in history), history, strict=True))
        self.list("history").set_rows(
            LazyRows(PastRow, self._history, now),
            marked=self._marked(self._history, old),
            message=self._not_loaded if seeds is None else "No seeds in the history yet.",
        )

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

    def _describe_proposal(self, key: str) -> Detail | None:
        proposal = self._proposals.get(key)
        if proposal is None:
            return None
        body = proposal_detail(proposal, self.clock())
        return Detail("proposal", proposal.id, proposal, body, proposal_links(proposal))

    def _describe_queued(self, key: str) -> Detail | None:
        return self._describe_seed(self._queue.get(key))

    def _describe_past(self, key: str) -> Detail | None:
        return self._describe_seed(self._history.get(key))

    def _describe_seed(self, seed: Seed | None) -> Detail | None:
        return (
            None if seed is None else Detail("seed", seed.id, seed, seed_detail(seed, self.clock()))
        )
