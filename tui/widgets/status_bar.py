"""The status bar on every screen: service, freshness, connection and integrity (DESIGN.md §3).

It reads the app's current snapshot and the store's status and redraws every second from the
app's clock, so "updated 12s ago" keeps counting between refreshes.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from textual.content import Content
from textual.widget import Widget

from tui.untrusted import clean
from tui.widgets.text import age

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
) -> list[tuple[str, str]]:
    """The bar's pieces as (text, kind); kinds: service, muted, good, warn, bad."""
    parts: list[tuple[str, str]] = [(clean(service), "service")]
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
    else:
        label = "offline" if status.state == "offline" else "backing off"
        if status.last_attempt is not None and status.next_delay_s is not None:
            retry = status.last_attempt + timedelta(seconds=status.next_delay_s)
            wait = max(0, int((retry - now).total_seconds()))
            label += f", retry in {_seconds(wait)}"
        parts.append((label, "bad"))
    if not snapshot.any_loaded:
        pass
    elif snapshot.all_verified:
        parts.append(("all verified", "good"))
    else:
        parts.append((clean(snapshot.integrity_summary()), "warn"))
    return parts


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

    def __init__(self) -> None:
        super().__init__(classes="status-bar")

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh, name="status-bar tick")

    def _source(self) -> dict[str, Any] | None:
        info = getattr(self.app, "status_info", None)
        return info() if callable(info) else None

    def render(self) -> Content:
        source = self._source()
        if source is None:
            return Content("")
        pieces: list[Content] = []
        for text, kind in status_parts(**source):
            pieces.append(
                Content(text).stylize(self.get_visual_style(f"status-bar--{kind}", partial=True))
            )
        return Content(_SEP).join(pieces).pad_left(1)
