"""Tab 6, Boots: the organization boot records of a source, each egg's verified state, and
every field of the selected record; ``enter`` fetches the egg, verifies it and opens the
inspector.

The records come from :attr:`BootsScreen.boots_source` (a
:class:`~tui.eggs.boot_rows.BootsSource`, taken from the service the app hands every tab:
``service.boots()``). Record
fields are hostile: drawn as ``Text`` after :mod:`tui.untrusted`, never markup, and the
installer line is text that ``y`` copies — roost never runs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import var
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from tui.eggs.boot_rows import BootRow, BootsSource, EggState, boot_row
from tui.eggs.pipeline import EggOutcome
from tui.ui.screens.base import StateScreen
from tui.ui.screens.boots.inspector import (
    VIM_JUMPS,
    EggInspectorScreen,
    jump_cursor,
    move_cursor,
)
from tui.ui.stylesheets import sheets
from tui.ui.table.rows import Column, fit_widths
from tui.ui.widgets.text import fit_parts
from tui.untrusted import clean, clean_line

if TYPE_CHECKING:
    from tui.eggs.download import Progress
    from tui.service import Service

__all__ = ["BootsScreen"]

_STATE_STYLE = {
    "absent": "dim",
    "busy": "yellow",
    "verified": "green",
    "legacy": "yellow",
    "failed": "bold red",
    "error": "red",
    "none": "dim",
}
#: The columns; their widths at 80 columns fit with the table's cell padding.
COLUMNS = (
    Column("name", "Name", 20, flex=True),
    Column("slug", "Slug · by", 22, flex=True, optional=True),
    Column("size", "Egg size", 8, align="right"),
)
#: The Verified column, what the tab is for: kept whole ("failed at check 12" is the longest).
STATE = Column("state", "Verified", 18)


def column_widths(screen_width: int, content: Sequence[int] = (0, 0, 0)) -> dict[str, int]:
    """Each column's width at ``screen_width``, from the widest ``content`` of the name, slug
    and size columns: the Verified column keeps its width and the size is never cut; the
    name and slug get what their content asks for when it fits and share any room left over
    (:func:`~tui.ui.table.rows.fit_widths`); below 80 columns they give way first,
    and on a narrow terminal the slug (also in the detail) makes room for the name."""
    # each column has one cell of padding on either side; the scrollbar and a margin take 4
    room = screen_width - 4 - (STATE.width + 2)
    widths = fit_widths(COLUMNS, content, room, arrows=False, edge=1, gap=2)
    return {**{c.key: w for c, w in zip(COLUMNS, widths, strict=True)}, "state": STATE.width}


class BootsTable(DataTable[Text]):
    """The records table: its ``enter`` is the screen's "inspect egg" (shown on the key bar;
    the table's own enter, "select", is hidden there and would hide the screen's too)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.inspect", "Inspect egg", id="boots.table-inspect"),
    ]


class BootsScreen(StateScreen, tab="boots"):
    """``enter`` opens the selected record's egg in the inspector; ``tab`` moves to the detail,
    where ``y`` copies the highlighted field (the installer line, the hatcher's sha256…)."""

    CSS_PATH = sheets("boots")
    AUTO_FOCUS = "#boots-table"
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [
        (0, "-narrow"),
        (110, "-wide"),
    ]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "inspect", "Inspect egg", show=True, id="boots.inspect"),
        Binding("j", "cursor(1)", "Down", show=False, id="boots.cursor-next"),
        Binding("k", "cursor(-1)", "Up", show=False, id="boots.cursor-prev"),
        *VIM_JUMPS,
    ]

    boots_source: var[BootsSource | None] = var(None, init=False)
    """Where records and eggs come from (a ``BootsSource``): the service's
    (:meth:`take_service`), or a test's."""

    def __init__(self) -> None:
        super().__init__()
        self._columns_added = False
        self._widths = column_widths(80)
        self._content = [0, 0, 0]  # the widest name, slug and size of the rows
        self._note: tuple[str, list[str]] | None = None  # counts, and where the rows come from
        self.rows: list[BootRow] = []
        self.states: dict[str, EggState] = {}
        self.outcomes: dict[str, EggOutcome] = {}  # the eggs judged, by their row's key
        self._loaded = False

    def compose_body(self) -> ComposeResult:
        yield Static(Text("Loading boot records…"), id="boots-source")
        table = BootsTable(id="boots-table", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="boots-warnings", markup=False)
        yield OptionList(id="boots-detail")

    def take_service(self, service: Service) -> None:
        self.boots_source = service.boots()

    @property
    def source(self) -> BootsSource | None:
        """The source handed down by the app (None: no boot-record source is configured)."""
        return self.boots_source

    def watch_boots_source(self) -> None:
        if self._columns_added:
            self.states.clear()
            self.outcomes.clear()
            self._load()

    def on_screen_body_mounted(self) -> None:
        self._add_columns(self.size.width or 80)
        self._columns_added = True
        self.call_after_refresh(self._load)  # once the app has said whether this is the demo

    def _add_columns(self, screen_width: int) -> None:
        self._widths = column_widths(screen_width, self._content)
        table = self.query_one(DataTable)
        for column in (*COLUMNS, STATE):
            table.add_column(column.label, key=column.key, width=self._widths[column.key])

    def on_resize(self) -> None:
        """The columns and the note follow the width (see :func:`column_widths`)."""
        self._fit_columns()
        self._show_note()

    def _show_note(self) -> None:
        """The note over the table: the key, the counts and where the records come from, on
        one line when it fits; else the sources get a line of their own, each whole when the
        width allows and cut in the middle when not (a URL keeps its host and file name)."""
        if self._note is None:
            return
        counts, origins = self._note
        width = max(20, (self.size.width or 80) - 2)  # the note's padding
        prefix = f"{len(origins)} sources: " if len(origins) > 1 else ""
        whole = prefix + ", ".join(origins)
        if not origins:
            text = counts
        elif cell_len(counts) + 3 + cell_len(whole) <= width:
            text = f"{counts} · {whole}"
        else:
            shown = fit_parts(origins, width - cell_len(prefix))
            text = f"{counts}\n{prefix}{', '.join(shown)}"
        self.query_one("#boots-source", Static).update(
            Text(text, no_wrap=True, overflow="ellipsis")
        )

    def _fit_columns(self) -> None:
        """Set the columns' widths for the terminal's width and the rows' content."""
        if self._columns_added and column_widths(self.size.width, self._content) != self._widths:
            table = self.query_one(DataTable)
            row = table.cursor_row
            table.clear(columns=True)
            self._add_columns(self.size.width)
            self._fill(row)

    @work(exclusive=True, group="boots-load")
    async def _load(self) -> None:
        source = self.source
        note = self.query_one("#boots-source", Static)
        if source is None:
            note.update(
                Text("No boot-record source: start roost with --boots PATH|URL (or ROOST_BOOTS).")
            )
            return
        try:
            rows = [boot_row(entry) for entry in await source.rows()]
        except Exception as exc:  # noqa: BLE001 - any source failure is shown, not raised
            note.update(Text(f"Boot records unreadable: {clean_line(str(exc), 200)}"))
            return
        self.rows = rows
        for row in rows:
            key = row.key
            if key is None or key in self.states:
                continue
            if row.no_egg is not None:
                self.states[key] = EggState("none", row.no_egg)
                continue
            self.states[key] = EggState("absent")
            self._look_in_cache(row, key)
        origins = [clean(o) for o in source.origins or [source.label] if o]
        apps = sum(1 for r in rows if r.kind == "app")
        records = sum(1 for r in rows if r.kind == "record")
        bad = len(rows) - apps - records
        parts = (
            [f"{records} boot record" + ("" if records == 1 else "s")]
            if records or not apps
            else []
        )
        if apps:
            parts.append(f"{apps} store app" + ("" if apps == 1 else "s"))
        if bad:
            parts.append(f"{bad} unreadable")
        self._note = (" · ".join(["enter: inspect egg", *parts]), origins)
        self._show_note()
        self._content = [
            max((cell_len(text) for text in texts), default=0)
            for texts in zip(*(self.texts(row)[:3] for row in rows), strict=False)
        ] or [0, 0, 0]
        self._fill()
        self._fit_columns()
        self._loaded = True

    def _fill(self, keep: int | None = None) -> None:
        table = self.query_one(DataTable)
        keep = table.cursor_row if keep is None else keep
        table.clear()
        for index, row in enumerate(self.rows):
            table.add_row(*self.cells(row), key=str(index))
        if self.rows:
            table.move_cursor(row=min(keep, len(self.rows) - 1))
            self._show_detail(table.cursor_row)

    @staticmethod
    def texts(row: BootRow) -> tuple[str, str, str, bool]:
        """The row's name, slug (or publisher and version) and egg size, cleaned, and whether
        the name is marked with a warning."""
        name = clean(row.name) + (" ⚠" if row.marked else "")
        return name, clean(row.by), row.size, row.marked

    def cells(self, row: BootRow) -> list[Text]:
        """The row's cells: untrusted text made literal and cut to its column."""
        name, by, size, marked = self.texts(row)
        key = row.key
        width = self._widths["name"]
        if key is None:
            problem = row.problems[0] if row.problems else "not a boot record"
            return [
                Text(clean_line(name, width), style="red"),
                Text(by),
                Text(size),
                Text(clean_line(problem, STATE.width), style="red"),
            ]
        state = self.states.get(key, EggState("absent"))
        cell = Text(clean_line(name[:-2] if marked else name, width - 2 if marked else width))
        if marked:
            cell.append(" ⚠", style="bold yellow")
        return [
            cell,
            Text(clean_line(by, self._widths["slug"])),
            Text(size, justify="right"),
            Text(state.label, style=_STATE_STYLE[state.kind]),
        ]

    def _update_row(self, key: str, *, detail: bool = True) -> None:
        table = self.query_one(DataTable)
        for index, row in enumerate(self.rows):
            if row.key == key:
                table.update_cell(str(index), "state", self.cells(row)[3])
        if self.rows and detail:
            self._show_detail(table.cursor_row)

    # ------------------------------------------------------------------ detail

    def _show_detail(self, index: int) -> None:
        if not 0 <= index < len(self.rows):
            return
        row = self.rows[index]
        warnings = [*row.warnings, *row.problems]
        self.query_one("#boots-warnings", Static).update(
            Text("\n".join("⚠ " + clean_line(w, 200) for w in warnings), style="bold yellow")
        )
        self.query_one("#boots-warnings", Static).display = bool(warnings)
        detail = self.query_one("#boots-detail", OptionList)
        detail.clear_options()
        for label, value in self.detail_lines(row):
            style = "bold yellow" if "(unknown field)" in label else "bold"
            prompt = Text.assemble((f"{clean_line(label)}: ", style), clean_line(value))
            detail.add_option(Option(prompt))

    def detail_lines(self, row: BootRow | None) -> list[tuple[str, str]]:
        """``(field, raw value)`` lines of the detail: the egg's state, then every field."""
        if row is None:
            return []
        if row.key is None:
            return list(row.detail)
        state = self.states.get(row.key, EggState("absent"))
        return [("egg state", state.detail or state.label), *row.detail]

    def selected_row(self) -> BootRow | None:
        index = self.query_one(DataTable).cursor_row
        return self.rows[index] if 0 <= index < len(self.rows) else None

    @on(DataTable.RowHighlighted, "#boots-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    # ------------------------------------------------------------------ actions

    def action_cursor(self, delta: int) -> None:
        move_cursor(self.focused, delta)

    def action_jump(self, where: str) -> None:
        jump_cursor(self.focused, where)

    @on(DataTable.RowSelected, "#boots-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_inspect()

    def action_inspect(self) -> None:
        row = self.selected_row()
        if row is None or row.key is None:
            self.notify("No boot record here to inspect", severity="warning", markup=False)
            return
        self._fetch(row, row.key)

    async def _checked(
        self, row: BootRow, *, download: bool, progress: Progress | None = None
    ) -> EggOutcome | None:
        """The one place the tab has an egg judged: the source's pipeline, off the event loop
        (None: no source)."""
        source = self.source
        if source is None:
            return None
        return await source.check(row.entry, download=download, progress=progress)

    @work(group="boots-verify")
    async def _look_in_cache(self, row: BootRow, key: str) -> None:
        """An egg at hand (cached, or a store's mirror) judged as the tab loads; nothing is
        downloaded. A store egg its store may not be asked for is refused here already."""
        outcome = await self._checked(row, download=False)
        if outcome is not None and outcome.report is not None:
            self._judged(key, outcome)

    @work(exclusive=True, group="boots-fetch")
    async def _fetch(self, row: BootRow, key: str) -> None:
        before = self.states.get(key, EggState("absent"))
        shown = [-1]

        def progress(received: int, total: int) -> None:
            percent = received * 100 // total if total > 0 else 100
            if percent != shown[0] and received < total:
                shown[0] = percent
                self.states[key] = EggState("busy", f"downloading {percent}%")
                self._update_row(key, detail=False)  # the detail's cursor stays put

        outcome = self.outcomes.get(key)
        if outcome is None or outcome.egg is None:  # not at hand yet: the pipeline gets it
            outcome = await self._checked(row, download=True, progress=progress)
        if outcome is None:
            return
        if outcome.report is None:  # it could not be had: the hub, the cache, the file
            self.states[key] = (
                EggState.of_outcome(outcome)
                if before.kind in ("absent", "busy", "error")
                else before  # a failed retry leaves what the last look found
            )
            self._update_row(key)
        else:
            self._judged(key, outcome)
            self._open(outcome, row)
        if outcome.error is not None:
            self.notify(
                clean_line(outcome.error, 300), title="Egg download", severity="error", markup=False
            )

    def _open(self, outcome: EggOutcome, row: BootRow) -> None:
        """The inspector on the egg — unless the Boots tab is no longer on view (another tab or
        screen was chosen while the egg came): then a toast says it is ready, and nothing
        takes the screen from under the keys typed there."""
        assert outcome.report is not None
        title = row.name
        if self.app.screen is self:
            self.app.push_screen(
                EggInspectorScreen(outcome.egg, row.promise, report=outcome.report, title=title)
            )
            return
        state = EggState.of(outcome.report)
        self.notify(
            f"{clean_line(title, 60)}: egg {state.label} · Boots (6), enter to inspect",
            title="Egg ready",
            severity="information" if state.kind == "verified" else "warning",
            markup=False,
        )

    def _judged(self, key: str, outcome: EggOutcome) -> None:
        self.outcomes[key] = outcome
        self.states[key] = EggState.of_outcome(outcome)
        self._update_row(key)

    def copy_text(self) -> str | None:
        if self.focused is self.query_one("#boots-detail", OptionList):
            index = self.query_one("#boots-detail", OptionList).highlighted
            lines = self.detail_lines(self.selected_row())
            if index is not None and index < len(lines):
                return lines[index][1]
        row = self.selected_row()
        return row.egg_url if row is not None else None

    def select_key(self, key: str) -> None:
        for index, row in enumerate(self.rows):
            if row.key is not None and row.slug == key:
                self.query_one(DataTable).move_cursor(row=index)
