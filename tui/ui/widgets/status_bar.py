"""The status bar on every screen: service, freshness, connection and integrity.

It shows its :attr:`StatusBar.app_state` (bound by the screen to the app's
:class:`~tui.ui.app_state.AppState`: the snapshot, the store's :class:`StoreStatus`, "refreshing…")
and redraws every second from the state's clock, so "updated 12s ago" keeps counting between
refreshes. Everything the store reports reaches :func:`status_parts` through that one binding.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, ClassVar

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from tui.ui.app_state import AppState
from tui.ui.widgets.text import age
from tui.untrusted import clean

if TYPE_CHECKING:
    from tui.network.store import Snapshot, StoreStatus

__all__ = ["StatusBar", "status_parts"]

_SEP = " \u2502 "


def status_parts(
    *,
    service: str,
    snapshot: Snapshot,
    status: StoreStatus,
    now: datetime,
    files: Iterable[str] = (),
    paused: bool = False,
    outbox: str = "",
) -> list[tuple[str, str]]:
    """The bar's pieces as (text, kind); kinds: service, muted, good, warn, bad.

    ``files``: the tab's own state files; one whose shown copy is not the service's current one
    is named first among the problems ("stale: …, the last good copy from 9m ago").
    """
    parts: list[tuple[str, str]] = [(clean(service), "service")]
    if paused:
        parts.append(("paused (p resumes)", "warn"))
    if status.last_success is not None:
        parts.append((f"updated {age(status.last_success, now)} ago", "muted"))
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


# a loaded copy in these states is not the service's current one (see store.Integrity)
_STALE = frozenset({"mismatch", "invalid", "error"})


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

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $foreground;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        & > .status-bar--service { text-style: bold; }
        & > .status-bar--muted { color: $foreground-muted; }
        & > .status-bar--good { color: $text-success; }
        & > .status-bar--warn { color: $text-warning; text-style: bold; }
        & > .status-bar--bad { color: $text-error; text-style: bold; }
        &:nocolor > .status-bar--bad { text-style: reverse bold; }
    }
    """

    app_state: reactive[AppState] = reactive(AppState)
    """What is shown (the screen binds it to the app's state)."""

    def __init__(self, app_state: AppState | None = None, *, files: Iterable[str] = ()) -> None:
        super().__init__(classes="status-bar")
        self.files = tuple(sorted(files))  # the tab's own files: their staleness is said first
        if app_state is not None:
            self.set_reactive(StatusBar.app_state, app_state)

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh, name="status-bar tick")  # the ages count on

    def render(self) -> Content:
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
        )
        pieces: list[Content] = []
        for text, kind in parts:
            pieces.append(
                Content(text).stylize(self.get_visual_style(f"status-bar--{kind}", partial=True))
            )
        return Content(_SEP).join(pieces).pad_left(1)
