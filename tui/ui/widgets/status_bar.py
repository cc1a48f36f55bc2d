"""The status bar on every screen: service, freshness, connection and integrity.

It shows its :attr:`StatusBar.app_state` (bound by the screen to the app's
:class:`~tui.ui.app_state.AppState`: the snapshot, the store's :class:`StoreStatus`, "refreshing…")
and looks at the state's clock every second, so "updated 20s ago" keeps counting between
refreshes; it is redrawn only when its text changes (ages under a minute count in steps of ten
seconds), so an idle session over SSH is sent almost nothing. Everything the store reports
reaches :func:`status_parts` through that one binding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, ClassVar

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from tui.read_only import READ_ONLY
from tui.ui.app_state import AppState
from tui.ui.widgets.text import age
from tui.untrusted import clean

if TYPE_CHECKING:
    from tui.network.store import Snapshot, StoreStatus

__all__ = ["StatusBar", "fit_status", "status_parts"]

_SEP = " \u2502 "

#: What a narrow bar gives up, in this order, until it fits: shorter words for a part (a
#: pattern and its short form), or every part of a kind (the age, then what is fine, then the
#: service's name); warnings and problems stay.
_NARROWER: tuple[tuple[re.Pattern[str], str] | str, ...] = (
    (re.compile(r"^updated (.+) ago$"), r"\1 ago"),
    (re.compile(r"^paused \(p resumes\)$"), "paused"),
    (re.compile(r" \(! lists them\)"), ""),
    (re.compile(r"^(.+) \(o\)$"), r"\1"),
    "muted",
    "good",
    (re.compile(r"^cached copy, (.+)$"), r"cached, \1"),
    (re.compile(r"^(stale: [^,]+), last good copy .+$"), r"\1"),
    "service",
)


def status_parts(
    *,
    service: str,
    snapshot: Snapshot,
    status: StoreStatus,
    now: datetime,
    files: Iterable[str] = (),
    paused: bool = False,
    outbox: str = "",
    inbox: str = "",
    inbox_unread: bool = False,
    readonly: bool = False,
) -> list[tuple[str, str]]:
    """The bar's pieces as (text, kind); kinds: service, muted, good, warn, bad.

    ``files``: the tab's own state files; one whose shown copy is not the service's current one
    is named first among the problems ("stale: …, the last good copy from 9m ago").
    ``inbox``: the agent whose inbox ``i`` shows and its unread count, next to the service.
    ``readonly``: "read-only" after the service, kept however narrow the bar.
    """
    parts: list[tuple[str, str]] = [(clean(service), "service")]
    if readonly:
        parts.append((READ_ONLY, "warn"))
    if inbox:
        parts.append((clean(inbox) + " (i)", "warn" if inbox_unread else "muted"))
    if paused:
        parts.append(("paused (p resumes)", "warn"))
    if status.last_success is not None:
        parts.append((f"updated {_since(status.last_success, now)} ago", "muted"))
    else:
        fetched = [s.fetched_at for s in snapshot.files.values() if s.fetched_at is not None]
        if fetched:
            parts.append((f"cached copy, {age(max(fetched), now)} old", "warn"))
        else:
            parts.append(("no data yet", "muted"))
    if status.state == "online":
        parts.append(("online", "good"))
    elif status.state == "starting":
        parts.append(("connecting\u2026", "muted"))
    elif status.state == "failed":
        parts.append((clean(status.describe()), "bad"))  # the loop restarts itself, with backoff
    else:
        label = "offline" if status.state == "offline" else "backing off"
        if status.last_attempt is not None and status.next_delay_s is not None:
            retry = status.last_attempt + timedelta(seconds=status.next_delay_s)
            wait = max(0, int((retry - now).total_seconds()))
            label += f", retry in {_seconds(wait)}"
        parts.append((label, "bad"))
    for name in files:
        state = snapshot.file(name)
        if state.loaded and state.integrity in _STALE:
            parts.append(
                (
                    f"stale: {clean(name)}, last good copy {age(state.fetched_at, now)} old",
                    "bad",
                )
            )
    if not snapshot.any_loaded:
        pass
    elif snapshot.all_verified:
        parts.append(("all verified", "good"))
    else:
        summary = clean(snapshot.integrity_summary())
        parts.append(
            (summary.replace(" not verified:", " not verified (! lists them):", 1), "warn")
        )
    if outbox:
        parts.append((clean(outbox) + " (o)", "warn"))
    return parts


def fit_status(parts: list[tuple[str, str]], width: int) -> list[tuple[str, str]]:
    """``parts`` (as :func:`status_parts` gives them) in ``width`` cells, no word cut: all of
    them when they fit; else giving up what :data:`_NARROWER` lists, in its order, until they
    do; then the last parts; a part that alone is still too wide ends after its last whole
    word that fits, with an ellipsis."""

    def cells(shown: list[tuple[str, str]]) -> int:
        return sum(len(text) for text, _kind in shown) + len(_SEP) * max(0, len(shown) - 1)

    shown = list(parts)
    for step in _NARROWER:
        if cells(shown) <= width:
            return shown
        if isinstance(step, str):
            shown = [part for part in shown if part[1] != step] or shown[:1]
        else:
            pattern, short = step
            shown = [(pattern.sub(short, text), kind) for text, kind in shown]
    while cells(shown) > width and len(shown) > 1:
        shown.pop()  # the last, least pressing
    if shown and cells(shown) > width:
        text, kind = shown[0]
        shown[0] = (_whole_words(text, width), kind)
    return shown


def _whole_words(text: str, width: int) -> str:
    """``text`` within ``width`` cells, ending after a whole word and an ellipsis."""
    if len(text) <= width:
        return text
    cut = text[: max(0, width - 1)].rsplit(" ", 1)[0].rstrip(" ,:;")
    return f"{cut}\u2026" if cut else "\u2026"[:width]


# a loaded copy in these states is not the service's current one (see store.Integrity)
_STALE = frozenset({"mismatch", "invalid", "error"})


def _since(moment: datetime, now: datetime) -> str:
    """The age of the last refresh: under a minute in steps of ten seconds (``0s``, ``10s``…),
    then as :func:`age` says it. Each change of it redraws the bar."""
    seconds = (now - moment).total_seconds()
    if 0 <= seconds < 60:
        return f"{int(seconds) // 10 * 10}s"
    return age(moment, now)


def _seconds(value: int) -> str:
    if value < 60:
        return f"{value}s"
    minutes, seconds = divmod(value, 60)
    return f"{minutes}m{seconds:02d}s"


class StatusBar(Widget):
    """One line docked above the footer."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "status-bar--service",
        "status-bar--muted",
        "status-bar--good",
        "status-bar--warn",
        "status-bar--bad",
    }

    app_state: reactive[AppState] = reactive(AppState)
    """What is shown (the screen binds it to the app's state)."""

    def __init__(self, app_state: AppState | None = None, *, files: Iterable[str] = ()) -> None:
        super().__init__(classes="status-bar")
        self.files = tuple(sorted(files))  # the tab's own files: their staleness is said first
        self._shown: list[tuple[str, str]] = []  # what the last render drew
        if app_state is not None:
            self.set_reactive(StatusBar.app_state, app_state)

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick, name="status-bar tick")  # the ages count on

    def _tick(self) -> None:
        """Redraw only when the text would change: a frame sent for nothing is bytes on every
        SSH session's wire."""
        if self._parts() != self._shown:
            self.refresh()

    def _parts(self) -> list[tuple[str, str]]:
        state = self.app_state
        service = state.service + (" \u00b7 refreshing\u2026" if state.refreshing else "")
        parts = status_parts(
            service=service,
            snapshot=state.snapshot,
            status=state.status,
            now=state.clock(),
            files=self.files,
            paused=state.paused,
            outbox=state.outbox,
            inbox=state.inbox,
            inbox_unread=state.inbox_unread,
            readonly=state.readonly,
        )
        return fit_status(parts, max(1, self.size.width - 1))

    def render(self) -> Content:
        self._shown = self._parts()
        pieces: list[Content] = []
        for text, kind in self._shown:
            pieces.append(
                Content(text).stylize(self.get_visual_style(f"status-bar--{kind}", partial=True))
            )
        return Content(_SEP).join(pieces).pad_left(1)
