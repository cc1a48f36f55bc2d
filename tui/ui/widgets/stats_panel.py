"""The Stats view: every counter of stats.json with its delta and a sparkline of its history.

Counters are never a hard-coded list: whatever numeric field stats.json carries is shown, under a
label derived from its name (``total_pokes`` -> "Pokes"), so counters the service adds later
appear on their own. Names are service data: they pass through :func:`tui.untrusted.clean` and are
drawn as plain text, never markup.

The history is the store's ``stats_history`` (one point per new stats.json), so deltas are "since
the previous stats.json roost saw", and trends build up while roost runs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from tui.clock import utc_now
from tui.network.models import StatsFile, as_utc
from tui.network.store import StatsPoint
from tui.ui.table.virtual_table import Column, Row, VirtualTable
from tui.ui.widgets.text import age, count, fit_whole
from tui.untrusted import clean, truncate

__all__ = [
    "CounterDetail",
    "CounterSeries",
    "StatsPanel",
    "counter_label",
    "format_delta",
    "format_value",
    "spark_rows",
]

BARS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"
TREND_WIDTH = 16
HISTORY_NOTE = "history builds up as roost refreshes"

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_\-][A-Za-z0-9]+)*")


def counter_label(name: str) -> str:
    """A readable label for a counter name: ``total_pokes`` -> "Pokes", ``active_agents`` ->
    "Active agents", ``commentCount`` -> "Comment count". A name that is not a plain identifier
    is shown as it is (cleaned), so odd or hostile names stay recognisable."""
    if not _IDENTIFIER.fullmatch(name):
        return clean(name) or "(unnamed)"
    words = re.split(r"[_\-]", _CAMEL.sub("_", name))
    if len(words) > 1 and words[0].lower() == "total":
        words = words[1:]
    label = " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)
    return label[:1].upper() + label[1:]


def format_value(value: float | None) -> str:
    """``19048`` -> "19,048"; floats keep two decimals unless they are whole; nan/inf as such."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return count(value)


def format_delta(delta: float | None) -> str:
    """ "+4", "-3", "0"; an em dash when there is nothing to compare with."""
    if delta is None:
        return "\u2014"
    if isinstance(delta, float) and not math.isfinite(delta):
        return str(delta)
    if delta == 0:
        return "0"
    return ("+" if delta > 0 else "-") + format_value(abs(delta))


def spark_rows(
    values: Sequence[float], width: int, height: int = 1, *, stretch: int = 1
) -> list[str]:
    """Block-character bars of the last values, newest on the right, ``height`` rows top first.

    Each value takes ``stretch`` columns. A flat series draws the lowest bar: a flat line, which
    "no data" (blank) and a block of equal halves do not look like.
    """
    width = max(0, width)
    height = max(1, height)
    stretch = max(1, stretch)
    points = [v for v in values if isinstance(v, int | float) and math.isfinite(v)]
    points = points[-max(1, width // stretch) :] if width else []
    if not points:
        return [" " * width for _ in range(height)]
    steps = 8 * height
    low, high = min(points), max(points)
    span = high - low
    flat = span == 0 or not math.isfinite(span)
    levels: list[int] = []
    for value in points:
        ratio = 0.0 if flat else (value - low) / span
        if flat or not math.isfinite(ratio):
            levels.append(1)
        else:
            levels.append(1 + round(ratio * (steps - 1)))
    rows = []
    for row in reversed(range(height)):
        cells = []
        for level in levels:
            fill = level - 8 * row
            cells.append((" " if fill <= 0 else BARS[min(fill, 8) - 1]) * stretch)
        rows.append("".join(cells)[-width:].rjust(width))
    return rows


def _ago(when: datetime | None, now: datetime) -> str:
    text = age(when, now)
    if text.startswith("+"):
        return f"in {text[1:]}"
    return text if when is None else f"{text} ago"


def _span(first: datetime | None, last: datetime | None) -> str:
    if first is None or last is None:
        return ""
    return age(first, last).lstrip("+")


@dataclass(frozen=True, slots=True)
class CounterSeries:
    """One counter: its current value, its history and the delta between the last two points."""

    name: str
    label: str
    value: float | None
    values: tuple[float, ...]
    times: tuple[datetime | None, ...]
    delta: float | None

    @classmethod
    def build(
        cls, name: str, label: str, value: float | None, history: Sequence[StatsPoint]
    ) -> CounterSeries:
        values: list[float] = []
        times: list[datetime | None] = []
        for point in history:
            found = point.counters.get(name)
            if isinstance(found, int | float) and not isinstance(found, bool):
                values.append(found)
                times.append(as_utc(point.at))
        delta: float | None = None
        if len(history) >= 2:
            previous = history[-2].counters.get(name)
            latest = history[-1].counters.get(name)
            if latest is not None and previous is not None:
                try:
                    delta = latest - previous
                except (TypeError, OverflowError):
                    delta = None
        if value is None and values:
            value = values[-1]
        return cls(name, label, value, tuple(values), tuple(times), delta)


def build_series(stats: StatsFile | None, history: Sequence[StatsPoint]) -> list[CounterSeries]:
    """Every counter, in the file's order; labels made unique by adding the raw name."""
    if stats is not None:
        current: dict[str, float | None] = dict(stats.counters())
    elif history:
        current = dict(history[-1].counters)
    else:
        current = {}
    labels = {name: counter_label(name) for name in current}
    seen: dict[str, int] = {}
    for label in labels.values():
        seen[label] = seen.get(label, 0) + 1
    series = []
    for name, value in current.items():
        label = labels[name]
        if seen[label] > 1:
            label = f"{label} ({clean(name)})"
        series.append(CounterSeries.build(name, label, value, history))
    return series


class CounterDetail(Widget):
    """The chosen counter, large: a taller sparkline, first/last/min/max and the time span."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "counter-detail--title",
        "counter-detail--spark",
        "counter-detail--muted",
        "counter-detail--up",
        "counter-detail--down",
    }

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._series: CounterSeries | None = None
        self._empty_message = "stats.json has not been loaded yet"

    @property
    def series(self) -> CounterSeries | None:
        return self._series

    def show(self, series: CounterSeries | None, empty_message: str | None = None) -> None:
        self._series = series
        if empty_message is not None:
            self._empty_message = empty_message
        self.refresh()

    def render(self) -> Text:
        width = max(1, self.content_region.width or self.size.width)
        height = max(1, self.content_region.height or self.size.height)
        style = self.get_component_rich_style
        series = self._series
        if series is None:
            return Text(self._empty_message, style=style("counter-detail--muted"))
        title = Text()
        title.append(series.label, style("counter-detail--title"))
        if series.label != clean(series.name):
            title.append(f"  {clean(series.name)}", style("counter-detail--muted"))
        now = Text(f"now {format_value(series.value)}   change ")
        now.append_text(
            _delta_text(series.delta, style("counter-detail--up"), style("counter-detail--down"))
        )
        now.append("  vs. previous stats.json", style("counter-detail--muted"))
        values = series.values
        below: list[Text] = []
        if len(values) >= 2:
            below.append(
                Text(
                    f"first {format_value(values[0])} \u00b7 last {format_value(values[-1])} "
                    f"\u00b7 min {format_value(min(values))} \u00b7 max {format_value(max(values))}"
                )
            )
            span = _span(series.times[0], series.times[-1])
            below.append(
                Text(
                    f"{len(values)} points" + (f" over {span}" if span else ""),
                    style("counter-detail--muted"),
                )
            )
        else:
            count = "no points" if not values else "1 point"
            below.append(
                Text(f"{count} of history yet: {HISTORY_NOTE}", style("counter-detail--muted"))
            )
        # the words wrap, none is cut: a narrow pane gives the sparkline fewer rows instead
        above = self._wrapped([title, now], width)
        below = self._wrapped(below, width)
        lines = above
        if len(values) >= 2:
            spark_height = max(1, min(12, height - len(above) - len(below)))
            stretch = max(1, min(4, width // len(values)))
            lines += [
                Text(line, style("counter-detail--spark"))
                for line in spark_rows(values, width, spark_height, stretch=stretch)
            ]
        return Text("\n").join(lines + below)

    def _wrapped(self, lines: list[Text], width: int) -> list[Text]:
        """``lines`` wrapped at their spaces to ``width`` cells (a word wider than that is
        folded, never cut short)."""
        console = self.app.console
        return [row for line in lines for row in line.wrap(console, width, overflow="fold")]


def _delta_text(delta: float | None, up: Style, down: Style) -> Text:
    label = format_delta(delta)
    if delta is None or delta == 0 or (isinstance(delta, float) and not math.isfinite(delta)):
        return Text(label)
    if delta > 0:
        return Text(f"\u25b2{label}", style=up)
    return Text(f"\u25bc{label}", style=down)


class StatsPanel(Container):
    """Summary line, a keyboard table of counters and the detail of the highlighted one.

    ``enter`` (or a click) on a counter zooms: the detail grows and the table shrinks to a strip
    that still follows the cursor; ``escape`` (or a click on the detail) restores the layout.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "unzoom", "Back", id="stats.unzoom"),
    ]

    COLUMNS: ClassVar[tuple[Column, ...]] = (
        Column("label", "Counter", 14, flex=True),
        Column("value", "Value", 11, align="right"),
        Column("delta", "Change", 9, align="right"),
        Column("trend", "Trend", TREND_WIDTH),
    )

    def __init__(
        self,
        clock: Callable[[], datetime] | None = None,
        *,
        id: str | None = None,  # noqa: A002
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._clock = clock or utc_now
        self._stats: StatsFile | None = None
        self._history: tuple[StatsPoint, ...] = ()
        self._series: dict[str, CounterSeries] = {}
        self._rows: list[Row] = []
        self._not_loaded = "stats.json not loaded yet"  # why, when the screen knows (plain text)

    def compose(self) -> ComposeResult:
        yield Static(Content("stats.json not loaded yet"), id="stats-summary")
        with Container(id="stats-body"):
            yield VirtualTable(self.COLUMNS, id="stats-counters")
            yield CounterDetail(id="stats-detail")

    def on_mount(self) -> None:
        self.set_interval(30, self._render_summary)

    def on_resize(self) -> None:
        self._render_summary()  # as many of its words as the new width holds

    # ------------------------------------------------------------------ public

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#stats-counters", VirtualTable)

    @property
    def detail(self) -> CounterDetail:
        return self.query_one("#stats-detail", CounterDetail)

    @property
    def selected(self) -> str | None:
        """The counter name under the cursor."""
        return self.table.cursor_key

    @property
    def zoomed(self) -> bool:
        return self.has_class("-zoomed")

    def series(self, name: str) -> CounterSeries | None:
        return self._series.get(name)

    def select(self, name: str) -> bool:
        return self.table.move_cursor_to(name)

    def show(
        self, stats: StatsFile | None, history: Sequence[StatsPoint], *, changed: bool = False
    ) -> None:
        """Show new data in place: cursor, zoom and scroll survive; changed counters are marked."""
        had_data = self._stats is not None or bool(self._history)
        self._stats = stats
        self._history = tuple(history)
        series = build_series(stats, self._history)
        self._series = {s.name: s for s in series}
        up = self.get_component_rich_style("stats-panel--up", partial=True)
        down = self.get_component_rich_style("stats-panel--down", partial=True)
        spark = self.get_component_rich_style("stats-panel--spark", partial=True)
        rows = [
            Row(
                key=s.name,
                cells=(
                    s.label,
                    format_value(s.value),
                    _delta_text(s.delta, up, down),
                    Text(spark_rows(s.values, TREND_WIDTH)[0], style=spark),
                ),
                sort_values=(s.label.lower(), s.value, s.delta, None),
                haystack=f"{s.label} {clean(s.name)}".lower(),
            )
            for s in series
        ]
        marked = {s.name for s in series if s.delta} if changed and had_data else set()
        self._rows = rows
        self.table.set_rows(rows, marked=marked)
        self._render_summary()
        self._show_detail(self.table.cursor_key)

    def clear_marks(self) -> None:
        """Drop the "changed" marks of the previous refresh (cursor and scroll stay)."""
        self.table.set_rows(self._rows)

    def set_not_loaded(self, text: str) -> None:
        """Why stats.json is not loaded (said while there is neither it nor a history)."""
        self._not_loaded = text
        empty = self._stats is None and not self._history
        self.table.set_empty_message(text if empty else "stats.json has no counters")
        if empty:
            self._render_summary()
            self._show_detail(self.table.cursor_key)

    def toggle_zoom(self) -> None:
        self.set_class(not self.zoomed, "-zoomed")
        self.refresh_bindings()  # the footer shows "esc Back" only while zoomed

    def action_unzoom(self) -> None:
        if self.zoomed:
            self.toggle_zoom()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "unzoom":
            return self.zoomed
        return True

    # ------------------------------------------------------------------ internals

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "stats-panel--up",
        "stats-panel--down",
        "stats-panel--spark",
    }

    def _show_detail(self, name: str | None) -> None:
        if self._stats is None and not self._history:
            message = self._not_loaded
        else:
            message = "stats.json has no counters"
        self.detail.show(self._series.get(name) if name else None, message)

    def _render_summary(self) -> None:
        summary = self.query_one("#stats-summary", Static)
        stats, history = self._stats, self._history
        if stats is None and not history:
            summary.update(Content(clean(self._not_loaded)))
            return
        now = self._clock()
        # each part's words, fullest first: at 80 columns the line takes the shorter ones
        # (the detail below says the rest) rather than cut a word
        parts: list[tuple[str, ...]] = []
        if stats is not None:
            raw = stats.last_updated
            when = as_utc(raw)
            # "data time": when the service wrote the file; the status bar's "updated" is when
            # roost last heard from the service
            if when is not None:
                parts.append((f"data time {_ago(when, now)}",))
            elif raw:
                parts.append((f"data time {truncate(clean(raw), 32)}",))
            else:
                parts.append(("no data time (last_updated)", "no data time"))
        parts.append((f"{len(self._series)} counters",))
        if len(history) >= 2:
            first = as_utc(history[0].at)
            points = f"history {len(history)} points"
            parts.append(
                (f"{points}, first fetched {_ago(first, now)}", points) if first else (points,)
            )
        else:
            points = f"{len(history)} point{'' if len(history) == 1 else 's'}"
            parts.append((f"{points}: {HISTORY_NOTE}", points))
        room = summary.content_region.width or 200  # before the first layout: all of it
        summary.update(Content(fit_whole(parts, room)))

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
        self._show_detail(event.key)

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        """``enter`` or a click opens the large view; ``escape`` (or a click on it) closes it."""
        event.stop()
        self._show_detail(event.key)
        if not self.zoomed:
            self.toggle_zoom()

    def on_click(self, event: events.Click) -> None:
        if self.zoomed and event.widget is self.detail:
            self.action_unzoom()
