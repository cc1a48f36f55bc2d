"""The network's pulse from the dashboard: the app's side of the inbox and of soul pages
(ARCHITECTURE.md, the pulse).

The app holds one :class:`PulseController`. It knows whose inbox roost shows (the ``agent``
setting) and keeps the service's read state (:class:`tui.pulse.inbox.ReadState`, on disk):

* the status bar's "demo-agent · 3 unread (i)": made again whenever the inbox's files change
  or something is read (:meth:`status`, handed to the app's state);
* a toast (and the terminal bell with ``bell = true``) when a refresh brings something the
  person was never told of, once per item ever (``ReadState.new_since_told``);
* ``i``: the :class:`~tui.ui.screens.inbox.InboxScreen` over the tabs, given the agent and the
  read state; it asks for its files when first shown (``StateScreen.FilesWanted``, through the
  conversation controller's ``want``). With an agent set, the app also asks for them once its
  first refresh has been shown (never on the start path): a count the person must open the
  inbox to learn would tell them nothing, and a toast needs the files read each cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tui.network.state_files import NOTIFICATIONS, POKES
from tui.pulse.inbox import InboxItem, ReadState, inbox_for
from tui.ui.widgets.text import short

if TYPE_CHECKING:
    from tui.network.store import Snapshot
    from tui.service import Service
    from tui.ui.conversation import ConversationController
    from tui.ui.screens.base import Place
    from tui.ui.screens.inbox import InboxScreen

__all__ = ["INBOX_FILES", "PulseController", "configured_agent"]

INBOX_FILES = (NOTIFICATIONS, POKES)


def configured_agent(service: Service) -> tuple[str | None, bool]:
    """The agent whose inbox roost shows, and whether a new item rings the terminal bell."""
    settings = service.settings
    return settings.agent or None, settings.bell


class PulseController:
    """See the module docstring. ``publish(**changes)`` updates the app's state."""

    def __init__(
        self,
        app: Any,  # the RoostApp (its snapshot, state, screens)
        service: Service,
        conversation: ConversationController,
        *,
        publish: Callable[..., None],
    ) -> None:
        self.app = app
        self.service = service
        self.conversation = conversation
        self._publish = publish
        self.agent, self.bell = configured_agent(service)
        self._read: ReadState | None = None
        self._items: tuple[Any, Any, list[InboxItem]] | None = None

    # ------------------------------------------------------------------ the inbox's items

    @property
    def read_state(self) -> ReadState:
        """What this person has read on this service (made on first use)."""
        if self._read is None:
            self._read = ReadState.for_service(self.service)
        return self._read

    def items(self, snapshot: Snapshot) -> list[InboxItem] | None:
        """The agent's inbox in ``snapshot`` (None: no agent, or neither file read)."""
        if not self.agent:
            return None
        notifications, pokes = snapshot.notifications, snapshot.pokes
        if notifications is None and pokes is None:
            return None
        held = self._items
        if held is None or held[0] is not notifications or held[1] is not pokes:
            held = self._items = (
                notifications,
                pokes,
                inbox_for(self.agent, snapshot, self.read_state),
            )
        return held[2]

    def status(self, snapshot: Snapshot) -> tuple[str, bool]:
        """The status bar's piece ("demo-agent · 3 unread") and whether anything is unread."""
        if not self.agent:
            return "", False
        items = self.items(snapshot)
        if items is None:
            return self.agent, False
        unread = self.read_state.unread_count(items)
        if unread:
            return f"{self.agent} \u00b7 {unread:,} unread", True
        return f"{self.agent} \u00b7 nothing unread", False

    def publish_status(self) -> None:
        text, unread = self.status(self.app.snapshot)
        self._publish(inbox=text, inbox_unread=unread)
        # what the read state has to say once (its file was damaged, the disk refused it)
        note = getattr(self._read, "note", None)
        if note:
            self._read.note = None  # type: ignore[union-attr]
            self.app.notify(short(note, 300), title="Inbox", severity="warning", markup=False)

    def start(self) -> None:
        """The first refresh has been shown: read the inbox's files from now on (agent set)."""
        if self.agent:
            self.conversation.want(INBOX_FILES)
        self.publish_status()

    def snapshot_changed(self, snapshot: Snapshot, changed: frozenset[str]) -> None:
        """The inbox's files changed: say what arrived that was never said, once."""
        if not self.agent or not changed & set(INBOX_FILES):
            return
        items = self.items(snapshot)
        if items is not None:
            new = self.read_state.new_since_told(items)
            if new:
                self._tell(new)
        self.publish_status()

    def _tell(self, new: Sequence[InboxItem]) -> None:
        latest = new[0]
        said = f"{latest.type} from {latest.sender or 'someone'}: {latest.text}"
        if len(new) == 1:
            message = short(said, 240)
        else:
            message = f"{len(new):,} new for {self.agent}. The latest, {short(said, 200)}"
        self.app.notify(short(message, 300), title="Inbox (i)", markup=False, timeout=10)
        if self.bell:
            self.app.bell()

    def read_changed(self) -> None:
        """The inbox marked items read: the count follows."""
        self.publish_status()

    # ------------------------------------------------------------------ the inbox screen

    def _inbox_screen(self) -> InboxScreen | None:
        from tui.ui.screens.inbox import InboxScreen  # deferred: off the start path

        return next((s for s in self.app.screen_stack if isinstance(s, InboxScreen)), None)

    def toggle_inbox(self) -> None:
        """``i``: the inbox over the tabs; ``i`` on it closes it."""
        from tui.ui.screens.inbox import InboxScreen  # deferred: off the start path

        if isinstance(self.app.screen, InboxScreen):
            self.app.pop_screen()
        else:
            self.open_inbox()

    def open_inbox(self, place: Place | None = None) -> None:
        """Show the inbox (the one open already, screens over it closed); ``place``: the row,
        filter and detail it had before a jump took the person away."""
        screen = self._inbox_screen()
        if screen is not None:
            while self.app.screen is not screen:
                self.app.pop_screen()
        else:
            screen = self._new_inbox()
            self.app.push_screen(screen)
        if place is not None:
            screen.return_to(place)

    def _new_inbox(self) -> InboxScreen:
        from tui.ui.screens.inbox import InboxScreen  # deferred: off the start path

        # one agent's items: a small build, run as it is (no memory policy)
        screen = InboxScreen(self.agent, self.read_state)
        screen.app_state = self.app.app_state
        screen.key_pace = self.app.speed.key_pace
        screen.take_service(self.service)
        if (preferences := getattr(self.app, "preferences", None)) is not None:
            preferences.tables_of(screen, screen.TAB_ID)  # its remembered sort and columns
        return screen
