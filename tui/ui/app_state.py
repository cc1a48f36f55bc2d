"""What the app tells its screens about itself: the one value handed down to every tab.

The app makes a new :class:`AppState` whenever one of its parts changes (a refresh cycle, the
store's status, "refreshing…") and sets it on each tab screen; the screens bind their tab bar
and status bar to it. Widgets and screens therefore never reach into the app for its state.
No Textual import: it is plain data.
"""

from __future__ import annotations

import msgspec

from tui.clock import Clock, utc_now
from tui.network.store import RefreshReport, Snapshot, StoreStatus

__all__ = ["AppState", "Clock", "utc_now"]


# eq=False: a new state is a change (comparing two snapshots field by field would walk every
# model of both), and reactives compare old and new values on every assignment
class AppState(msgspec.Struct, frozen=True, eq=False):
    """The app's state as its screens see it."""

    snapshot: Snapshot = msgspec.field(default_factory=Snapshot.empty)
    status: StoreStatus = msgspec.field(default_factory=StoreStatus)
    service: str = ""  # what the status bar calls the service (plain text)
    demo: bool = False  # on the built-in demo network (the tab bar's badge)
    readonly: bool = False  # read-only: nothing is posted (the status bar says so)
    refreshing: bool = False  # a refresh cycle is under way (asked for or polled)
    paused: bool = False  # automatic refreshes are paused (`p`)
    interval_s: float = 0.0  # seconds between automatic refreshes (0: not polling)
    reports: tuple[RefreshReport, ...] = ()  # the latest cycles' reports, oldest first
    refreshed: bool = False  # the first refresh cycle has been shown
    failure: str | None = None  # why the refresh worker died, if it did
    outbox: str = ""  # the outbox's summary when something needs attention ("" when not)
    inbox: str = ""  # whose inbox and how much of it is unread ("demo-agent · 3 unread")
    inbox_unread: bool = False  # something in it is unread (the status bar makes it stand out)
    clock: Clock = utc_now  # the app's injectable clock (frozen in tests)
