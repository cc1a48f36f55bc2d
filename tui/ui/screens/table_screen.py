"""A tab whose heart is one big table with a filter, a sort and a detail pane.

Agents, Trending and Channels share this shape. A subclass says how to turn the snapshot into
keyed models (:meth:`TableScreen.models`) and a model into a row and a detail view; this class
owns the flow that keeps the user's place:

* rows are rebuilt from the new snapshot and handed to ``VirtualTable.set_rows`` by key, so the
  cursor, scroll, filter and sort survive a refresh; rows whose model is new or changed since the
  previous snapshot are marked until the next refresh cycle;
* rows are lazy (:class:`~tui.ui.table.virtual_table.LazyRows`): a build lists the keys and
  models, the table makes a row object when it first reads it and computes its cells, sort
  values and search text when it first needs them, so 50 000 agents reach the screen without
  making or formatting 50 000 rows first;
* big tables (thousands of rows) are built in a thread worker, which posts the rows back; only
  the message handler touches the widgets. The table warms its rows (search texts, sort values)
  after their first frame and holds a filter typed before that (tui/ui/table/warmup.py);
  a refresh's build warms them before posting (its rows may replace filtered or sorted ones).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.worker import get_current_worker

from tui.network.store import Snapshot
from tui.ssh.mode import session_role
from tui.ui.table.virtual_table import Column, LazyRow, LazyRows, VirtualTable
from tui.ui.table.warmup import warm_rows
from tui.ui.widgets.detail_pane import DetailPane, Link, raw_json
from tui.ui.widgets.editors import OrderedInput, act_on_own_binding

from .base import Place, StateScreen

if TYPE_CHECKING:
    from tui.ui.screens.sort_picker import SortChoice

__all__ = ["Built", "TableScreen"]

THREAD_THRESHOLD = 2000  # rows: above this the rows are built in a thread
AGE_TICK_S = 30  # how often the ages in a table ("3m" since a heartbeat) count on


def warms_ahead() -> bool:
    """Whether a big table computes every row's search text and sort values ahead, in a thread
    (else when a filter or a sort first needs them). Not in a session served over SSH: there
    every session of the server would compute them all for every build, and read, so copy, the
    pages of the models its zygote shares (ARCHITECTURE.md, serving over SSH)."""
    return session_role() is None


class Built(msgspec.Struct, frozen=True):
    """The result of one build: rows in data order plus what changed since the last build."""

    generation: int
    rows: LazyRows
    models: Mapping[str, Any]
    marked: frozenset[str]
    context: Any
    fingerprints: Mapping[str, Any]
    from_cache: bool = False  # built from the disk cache's copy, not yet confirmed by the service
    compared: bool = False  # ``marked`` compares with rows the user saw (else nothing is marked)


class TableScreen(StateScreen):
    """See the module docstring. Subclasses set ``COLUMNS``/``NOUN``/``ROW`` and the hooks."""

    COLUMNS: ClassVar[tuple[Column, ...]] = ()
    # mounted on first use; listed for the help screen (DetailPane's go-to list)
    LATER_WIDGETS: ClassVar[tuple[type[Widget], ...]] = (DetailPane, OptionList)
    ROW: ClassVar[type[LazyRow]] = LazyRow  # built as ROW(key, model, prepare(snapshot))
    SOURCE: ClassVar[str] = ""  # the state file whose models are the rows
    NOUN: ClassVar[str] = "rows"
    #: A jump to a row (another tab's link, the palette) opens its detail pane.
    DETAIL_ON_JUMP: ClassVar[bool] = True
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] = [(0, "-narrow"), (120, "-wide")]

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", key_display="/", id="table.filter"),
        Binding("s", "sort", "Sort", id="table.sort"),
        Binding("S", "reverse", "Reverse sort", show=False, id="table.reverse"),
        Binding("J", "raw", "Raw JSON", show=False, id="table.raw"),
        Binding("l", "pane(1)", "To the detail pane", show=False, id="table.pane_right"),
        Binding("h", "pane(-1)", "To the table", show=False, id="table.pane_left"),
    ]

    @dataclass(eq=False)
    class RowsBuilt(Message):
        """A build thread's rows (``warmed``: it computed their search texts and sort values)."""

        built: Built
        warmed: bool = False

    def __init__(self) -> None:
        super().__init__()
        self.add_class("table-screen")
        self._models: Mapping[str, Any] = {}
        self._fingerprints: Mapping[str, Any] = {}
        self._row_context: Any = None
        self._rows: Sequence[LazyRow] = []
        self._has_marks = False
        self._detail_open = False
        # made on first use: their CSS, mounting and layout are otherwise paid on every start
        self._detail_pane: DetailPane | None = None
        self._filter_field: Input | None = None
        self._wanted_key: str | None = None
        self._built_generation = -1
        self._finding = False  # the line finds in the detail pane instead of filtering
        self._from_cache = False  # the rows on view are the disk cache's copy

    # ------------------------------------------------------------------ layout

    def compose_body(self) -> ComposeResult:
        with Horizontal(classes="table-bar"):
            yield Static(Content(""), classes="table-summary", markup=False)
            # the filter field is mounted here on the first "/" (filter_input)
        with Horizontal(classes="table-main"):
            table = VirtualTable(self.COLUMNS, classes="main-table", warm_up=warms_ahead())
            table.key_pace = self.key_pace  # its warm-up stands aside for the app's keys
            yield table
            # the detail pane is mounted here on the first open (detail)
        yield from self.compose_extra()

    def compose_extra(self) -> ComposeResult:
        """Widgets below the table (the Trending panels)."""
        yield from ()

    @property
    def table(self) -> VirtualTable:
        return self.query_one(".main-table", VirtualTable)

    @property
    def detail(self) -> DetailPane:
        """The detail pane (hidden until opened), mounted on first use."""
        pane = self._detail_pane
        if pane is None:
            pane = self._detail_pane = DetailPane(classes="detail")
            pane.display = False
            self.query_one(".table-main", Horizontal).mount(pane)
        return pane

    @property
    def detail_open(self) -> bool:
        """Whether the detail pane is open (asking does not mount it)."""
        return self._detail_open

    @property
    def filter_input(self) -> Input:
        """The filter field (hidden until "/"), mounted on first use."""
        field = self._filter_field
        if field is None:
            field = self._filter_field = OrderedInput(
                placeholder=f"filter {self.NOUN}…",
                classes="table-filter",
                compact=True,
                select_on_focus=False,
            )
            field.display = False
            if self.app.is_headless:
                field.cursor_blink = False  # stable snapshots
            self.query_one(".table-bar", Horizontal).mount(field)
        return field

    def _filter_shown(self) -> bool:
        return self._filter_field is not None and self._filter_field.display

    def on_mount(self) -> None:
        self.set_interval(AGE_TICK_S, self.tick_ages, name="table ages")

    def on_screen_body_mounted(self) -> None:
        self._keep_columns(self.size.width)
        self.set_focus(self.table)

    def on_resize(self, event: events.Resize) -> None:
        self._keep_columns(event.size.width)

    def _keep_columns(self, width: int) -> None:
        """Beside the detail pane (wide terminals) the table keeps every column at its width
        (edges, gaps, scrollbar); alone, it fits its columns to the terminal's width."""
        if not self.body_filled:
            return
        columns = self.table.shown_columns  # not the ones hidden with C
        wide = width >= self.HORIZONTAL_BREAKPOINTS[-1][0]
        keep = 2 + sum(c.width for c in columns) + len(columns) - 1 + 2
        self.table.styles.min_width = keep if wide else None

    def on_state_screen_columns_hidden(self, event: StateScreen.ColumnsHidden) -> None:
        self._keep_columns(self.size.width)  # the app remembers them: the message goes on

    # ------------------------------------------------------------------ hooks for subclasses

    def models(self, snapshot: Snapshot) -> Mapping[str, Any] | None:
        """The keyed models of this table, in data order; None when the file is not loaded."""
        raise NotImplementedError

    def prepare(self, snapshot: Snapshot) -> Any:
        """What the rows share besides their models: each row's ``context`` (build thread)."""
        return None

    def build_cost(self, snapshot: Snapshot, models: Mapping[str, Any]) -> int:
        """Roughly how many items a build touches; above THREAD_THRESHOLD it runs in a thread."""
        return len(models)

    def retimed_context(self, context: Any) -> Any | None:
        """The rows' ``context`` at the clock's new "now" when the cells show ages (None: the
        cells do not depend on the clock)."""
        return None

    def tick_ages(self) -> None:
        """Ages count on between refreshes, as on Stats: cells are redrawn at the new "now"."""
        rows = self._rows
        if not isinstance(rows, LazyRows) or not len(rows):
            return
        context = self.retimed_context(self._row_context)
        if context is not None:
            self._row_context = context
            rows.retime(context)
            self.table.redraw_rows()
            if self._detail_open:
                self._show_detail(self.detail.key)

    def fingerprints(self, models: Mapping[str, Any], context: Any) -> Mapping[str, Any]:
        """Per key, what must differ for a row to count as changed (default: its model)."""
        return models

    def detail_view(self, key: str, model: Any) -> tuple[Content, list[Link]]:
        raise NotImplementedError

    def raw_model(self, model: Any) -> Any:
        """What ``J`` shows of a row's model as JSON (default: the model itself)."""
        return model

    def summary_extra(self) -> Content:
        """Extra text for the summary line (e.g. the status quick-filter)."""
        return Content("")

    def extra_tables(self) -> list[VirtualTable]:
        """Tables other than the main one (the Trending panels) that a refresh updates."""
        return []

    # ------------------------------------------------------------------ snapshot → rows

    def models_cost(self, snapshot: Snapshot) -> int:
        """Roughly how many items :meth:`models` itself goes through (the Posts tab orders its
        whole log): above THREAD_THRESHOLD the models are made in the build thread too."""
        return 0

    def show_snapshot(self, snapshot: Snapshot, changed: frozenset[str]) -> None:
        # Marks say what changed since the user last saw live data: the disk cache's copy is only
        # on view while the first refresh runs, so what that refresh brings is not marked.
        previous = (
            self._fingerprints
            if self._built_generation >= 0 and self._models and not self._from_cache
            else None
        )
        warm = previous is not None and warms_ahead()
        if self.models_cost(snapshot) > THREAD_THRESHOLD:
            self.table.cancel_warm_up()
            self._build_in_thread(snapshot, None, previous, warm=warm)
            return
        models = self.models(snapshot)
        if models is None:
            models = {}
        if self.build_cost(snapshot, models) > THREAD_THRESHOLD:
            # A refresh's rows replace rows the table may be sorting or filtering: they get their
            # search texts and sort values here, in the thread, not in set_rows on the UI thread.
            # The first rows go on screen at once and the table warms them afterwards.
            self.table.cancel_warm_up()  # it would warm rows now replaced
            self._build_in_thread(snapshot, models, previous, warm=warm)
        else:
            self._apply(self._build(snapshot, models, previous))

    def _build(
        self,
        snapshot: Snapshot,
        models: Mapping[str, Any],
        previous: Mapping[str, Any] | None,
    ) -> Built:
        # The rows themselves are made later (LazyRows), but prepare() and fingerprints() may
        # make an object per model (Channels: subscriber counts over every agent, a tuple per
        # channel) that lives until the next build: a big build runs in the app's memory
        # policy (StateScreen.build_policy), whatever its size.
        big = self.build_cost(snapshot, models) > THREAD_THRESHOLD
        with self.build_policy(None) if big else nullcontext():
            context = self.prepare(snapshot)
            rows = LazyRows(self.ROW, models, context)
            prints = self.fingerprints(models, context)
        marked: set[str] = set()
        if previous is not None:
            get = previous.get
            for key, value in prints.items():
                old = get(key)
                if old is not value and old != value:
                    marked.add(key)
        from_cache = bool(self.SOURCE) and snapshot.file(self.SOURCE).integrity == "cached"
        return Built(
            snapshot.generation,
            rows,
            models,
            frozenset(marked),
            context,
            prints,
            from_cache,
            previous is not None,
        )

    # An explicit description: by default @work repr()s the arguments, and the repr of a big
    # snapshot is made on the UI thread.
    @work(
        thread=True,
        exclusive=True,
        group="table-build",
        exit_on_error=False,
        description="build table rows",
    )
    def _build_in_thread(
        self,
        snapshot: Snapshot,
        models: Mapping[str, Any] | None,
        previous: Mapping[str, Any] | None,
        *,
        warm: bool,
    ) -> None:
        if models is None:  # made here (models_cost)
            models = self.models(snapshot) or {}
        built = self._build(snapshot, models, previous)
        worker = get_current_worker()
        if warm and not warm_rows(built.rows, worker, self.key_pace):
            return
        if not worker.is_cancelled:
            self.post_message(self.RowsBuilt(built, warmed=warm))

    def on_table_screen_rows_built(self, message: TableScreen.RowsBuilt) -> None:
        if message.built.generation >= self._built_generation:
            self._apply(message.built, warmed=message.warmed)

    def _apply(self, built: Built, *, warmed: bool = False) -> None:
        self._built_generation = built.generation
        self._models = built.models
        self._fingerprints = built.fingerprints
        self._from_cache = built.from_cache
        self._row_context = built.context
        self._rows = built.rows
        self._has_marks = bool(built.marked)
        self.table.set_rows(built.rows, marked=built.marked, warmed=warmed)
        self.show_empty_state()
        self.after_rows(built)
        self._apply_wanted()
        if self._detail_open:
            self._show_detail(self.detail.key)
        self.update_summary()
        if not self.building:
            self.snapshot_shown()

    @property
    def building(self) -> bool:
        return self._built_generation < self._shown_generation

    def keep_rows(self, snapshot: Snapshot) -> None:
        """The rows on view stand for ``snapshot`` as they are: only files they do not read
        changed (the Agents detail's profile)."""
        self._built_generation = max(self._built_generation, snapshot.generation)

    def after_rows(self, built: Built) -> None:
        """After the main table got new rows (update side panels here)."""

    def show_empty_state(self) -> None:
        if self._built_generation < self._shown_generation:  # rows still being built
            message = "loading\u2026"
        else:
            message = self.empty_text(self.SOURCE, self.NOUN)
        self.table.set_empty_message(message)

    def clear_marks(self) -> None:
        if self._has_marks:
            self._has_marks = False
            self.table.set_rows(self._rows, marked=())

    # ------------------------------------------------------------------ selection

    def select_key(self, key: str) -> None:
        self._wanted_key = key
        if self._built_generation >= 0:  # else: applied when the rows arrive
            self._apply_wanted()

    def _apply_wanted(self) -> None:
        key = self._wanted_key
        if key is None or key not in self._models:
            if key is not None and self._built_generation >= 0 and not self.building:
                self._wanted_key = None
                self.notify(
                    f"No such {self.NOUN.rstrip('s')} in the current data",
                    severity="warning",
                    markup=False,
                )
            return
        self._wanted_key = None
        if self._detail_pane is not None:
            self._detail_pane.raw = False  # a jump shows the record's detail, not its JSON
        table = self.table
        if not table.move_cursor_to(key):
            self.clear_filters()
            table.move_cursor_to(key)
        if self.DETAIL_ON_JUMP:
            self.open_detail(key)

    @property
    def rows(self) -> Sequence[LazyRow]:
        """The rows on screen, in data order (made lazily: see the module docstring)."""
        return self._rows

    def model(self, key: str) -> Any | None:
        """The model behind row ``key`` in the rows on screen, if there is one."""
        return self._models.get(key)

    def clear_filters(self) -> None:
        """Remove every filter so any row can be shown (subclasses drop their own too)."""
        if self._filter_field is not None:
            self._filter_field.value = ""
            self._filter_field.display = False
        self.table.set_filter("")

    def copy_text(self) -> str | None:
        if self._detail_open and self.detail.key is not None:
            return self.detail.key
        return self.table.cursor_key

    # ------------------------------------------------------------------ detail

    def open_detail(self, key: str | None) -> None:
        if key is None or key not in self._models:
            return
        self._detail_open = True
        self.add_class("-detail-open")
        self.detail.display = True
        self._show_detail(key)
        if self.has_class("-narrow"):
            self.set_focus(self.detail)

    def close_detail(self) -> None:
        self._detail_open = False
        self.remove_class("-detail-open")
        if self._finding:
            self._end_find()
        if self._detail_pane is not None:
            self._detail_pane.display = False
            self._detail_pane.raw = False  # the next detail opens as a detail
        self.set_focus(self.table)

    def _show_detail(self, key: str | None) -> None:
        detail = self.detail
        model = self._models.get(key) if key is not None else None
        if key is None or model is None:
            detail.show(key, Content(f"This {self.NOUN.rstrip('s')} is gone from the latest data."))
            return
        body, links = self.detail_view(key, model)
        detail.show(
            key,
            body,
            links,
            raw=raw_json(self.raw_model(model)) if detail.raw else None,
            heading=f"{self.NOUN.rstrip('s')} {key}",
        )

    def row_chosen(self, key: str) -> None:
        """``enter`` on a row: its detail pane (the Posts tab opens the post's thread)."""
        self.open_detail(key)

    @on(VirtualTable.Selected, ".main-table")
    def _table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        self.row_chosen(event.key)

    @on(VirtualTable.Highlighted, ".main-table")
    def _table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
        if self._detail_open and not self.has_class("-narrow"):
            self._show_detail(event.key)

    def on_detail_pane_link_chosen(self, event: DetailPane.LinkChosen) -> None:
        event.stop()
        self.jump_to(event.link.tab, event.link.key)

    # ------------------------------------------------------------------ filter and summary

    @on(Input.Changed, ".table-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._finding:
            self.detail.find(event.value)
        else:
            self.table.type_filter(event.value)
        self.update_summary()

    @on(VirtualTable.Filtered, ".main-table")
    def _filter_applied(self, event: VirtualTable.Filtered) -> None:
        """A filter typed before the table's search texts were ready applies now."""
        event.stop()
        self.update_summary()

    @on(Input.Submitted, ".table-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._finding:
            if not event.value.strip():
                self._end_find()
            self.set_focus(self.detail)
            return
        if not event.value.strip():
            self.filter_input.display = False
        self.set_focus(self.table)

    def on_detail_pane_found(self, event: DetailPane.Found) -> None:
        event.stop()
        self.update_summary()

    def _end_find(self) -> None:
        """Stop finding in the detail: the marks go, the line goes back to the table's filter."""
        self._finding = False
        if self._detail_pane is not None:
            self._detail_pane.find("")
        field = self._filter_field
        if field is not None:
            with field.prevent(Input.Changed):
                field.value = self.table.filter_query
            field.placeholder = f"filter {self.NOUN}…"
            field.display = bool(field.value)

    def update_summary(self) -> None:
        table = self.table
        shown, total = table.row_count, table.total_count
        text = f"{shown:,} {self.NOUN}" if shown == total else f"{shown:,} of {total:,} {self.NOUN}"
        parts = [Content(text).stylize("bold")]
        if table.sort_column is not None:
            label = next(c.label for c in self.COLUMNS if c.key == table.sort_column)
            arrow = "\u25bc" if table.sort_reverse else "\u25b2"
            parts.append(Content(f"sorted by {label} {arrow}"))
        extra = self.summary_extra()
        if extra.plain:
            parts.append(extra)
        if self._finding:
            pane = self.detail
            if not pane.find_query.strip():
                parts.append(Content("find in the detail"))
            elif pane.match_count:
                parts.append(Content(f"find {pane.current + 1}/{pane.match_count} · n/N"))
            else:
                parts.append(Content("find: no match"))
        if table.filter_pending is not None:
            parts.append(Content("filtering\u2026"))
        elif table.filter_query and not (self._filter_shown() and not self._finding):
            parts.append(Content.assemble("filter: ", (table.filter_query, "bold")))
        if self._has_marks:
            parts.append(Content("highlighted: new or changed").stylize("$text-accent"))
        self.query_one(".table-summary", Static).update(Content(" \u00b7 ").join(parts))

    # ------------------------------------------------------------------ actions

    def action_filter(self) -> None:
        """``/``: in the detail pane (or its raw JSON), find in it; elsewhere, filter the table."""
        field = self.filter_input
        in_detail = self._detail_open and self.focused is self.detail
        if in_detail != self._finding:
            self._finding = in_detail
            with field.prevent(Input.Changed):
                field.value = self.detail.find_query if in_detail else self.table.filter_query
            field.placeholder = "find in this text…" if in_detail else f"filter {self.NOUN}…"
        field.display = True
        field.cursor_position = len(field.value)
        self.set_focus(field)
        self.update_summary()

    async def on_key(self, event: events.Key) -> None:
        """Make a fast burst like "/phil" land in the filter.

        Textual forwards each key to the widget focused when it arrives and runs (non-priority)
        bindings only once a key has bubbled up to the app, so in a burst the letters after "/"
        would all reach the table before the `/` binding moves the focus. Here "/" opens the
        filter as soon as it bubbles to the screen, and a key that bubbles up while the filter
        has focus (the filter consumes the keys sent to it) goes into the filter: a printable
        one is typed, an editing one (ctrl+u, backspace) acts there, in order with them.
        """
        field = self._filter_field
        if event.key == "slash" and (field is None or self.focused is not field):
            event.stop()
            event.prevent_default()
            self.action_filter()
        elif field is not None and self.focused is field:
            if event.is_printable and event.character:
                event.stop()
                event.prevent_default()
                field.insert_text_at_cursor(event.character)
            elif await act_on_own_binding(field, event):
                event.prevent_default()

    def action_sort(self) -> None:
        """``s``: the sort picker; then the column's key (``s`` again: the next column)."""
        from tui.ui.screens.sort_picker import SortPicker  # deferred: off the start path

        self.app.push_screen(SortPicker(self.table), self._sort_chosen)

    def _sort_chosen(self, choice: SortChoice | None) -> None:
        if choice is not None:
            self.table.sort_by(choice.column, choice.reverse)
            self.update_summary()

    def action_reverse(self) -> None:
        self.table.reverse_sort()
        self.update_summary()

    def action_pane(self, direction: int) -> None:
        """``l`` / ``h``: from the table to the open detail pane and back."""
        if direction > 0 and self._detail_open:
            self.detail.take_focus()
        elif direction < 0:
            self.set_focus(self.table)

    def action_raw(self) -> None:
        if not self._detail_open:
            self.open_detail(self.table.cursor_key)
        detail = self.detail
        detail.raw = not detail.raw
        self._show_detail(detail.key)

    def action_back(self) -> None:
        field = self._filter_field
        if field is not None and self.focused is field and self._finding:
            self._end_find()
            self.set_focus(self.detail)
        elif field is not None and self.focused is field:
            field.value = ""
            field.display = False
            self.set_focus(self.table)
        elif self._finding:
            self._end_find()
        elif self._detail_open:
            self.close_detail()
        elif self.table.filter_query or self.table.filter_pending is not None:
            self.clear_filters()
        else:
            self.back_more()
        self.update_summary()

    def back_more(self) -> None:
        """``escape`` with nothing else to close (subclasses clear their quick-filters first)."""
        super().back_more()

    def place(self) -> Place:
        return Place(
            self.TAB_ID,
            key=self.detail.key if self._detail_open else self.table.cursor_key,
            filter=self.table.filter_pending or self.table.filter_query,
            detail_open=self._detail_open,
        )

    def return_to(self, place: Place) -> None:
        if not self.ready:
            super().return_to(place)
            return
        table = self.table
        if table.filter_query != place.filter:
            if self._filter_field is not None:
                self._filter_field.value = place.filter
                self._filter_field.display = False
            table.set_filter(place.filter)
        if place.key is not None:
            table.move_cursor_to(place.key)
        self.set_focus(table)
        if place.detail_open and place.key is not None:
            self.open_detail(place.key)
        elif self._detail_open:
            self.close_detail()
        self.update_summary()
