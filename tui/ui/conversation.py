"""Reading the conversation from the dashboard: the app's side (ARCHITECTURE.md, the
conversation).

The app holds one :class:`ConversationController` and passes it what its screens ask for:

* optional state files (``StateScreen.FilesWanted``, the Posts tab's first visit): a worker
  awaits ``store.want(...)``, the app is told the files changed (their cached copies are shown
  at once) and a refresh is asked for, which fetches them;
* a thread (``StateScreen.ThreadRequested``): the thread reader's first copy (no request) goes
  on screen at once with the :class:`~tui.ui.screens.thread.ThreadScreen`, and a worker awaits
  the reader's answer and hands it to the screen; ``r`` reads again, fresh;
* answers (``c``, ``R``, ``+``): the write controller's form for the action, pinned to the post
  or comment; comments sent from here are shown in the thread, pending, until they are seen.

Workers only read and post messages to the thread screen; its handlers change it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

from tui.conversation.reading import ThreadRead, ThreadReader
from tui.conversation.thread import from_log
from tui.network.state_files import CONVERSATION_FILES, DISCUSSIONS_CACHE, DISCUSSIONS_INDEX
from tui.read_only import posting_refused

if TYPE_CHECKING:
    from textual.app import App

    from tui.actions.outbox import Entry
    from tui.network.conversation import LoggedPost
    from tui.network.store import Snapshot
    from tui.service import Service
    from tui.ui.screens.thread import ThreadScreen
    from tui.ui.write_controller import WriteController

__all__ = ["ConversationController"]

THREAD_FILES = (DISCUSSIONS_CACHE, DISCUSSIONS_INDEX)


class ConversationController:
    """The app's reading side of the conversation. ``refreshed(files)`` tells the app's
    screens that ``files`` changed in the store's snapshot; ``refresh()`` asks the store for a
    cycle now."""

    @dataclass(eq=False)
    class ThreadArrived(Message):
        """A copy of the thread from the reader (``first``: what it had at once, from the
        published files; else its answer), for the thread screen."""

        read: ThreadRead
        first: bool = False
        limit_note: str | None = None

    @dataclass(eq=False)
    class PendingFound(Message):
        """The outbox as it is now (the thread shows what was sent from here on its post and
        is not seen in it yet), and whom the token acts as."""

        entries: list[Entry]
        login: str | None = None

    def __init__(
        self,
        app: App[Any],
        service: Service,
        writer: WriteController,
        *,
        snapshot: Callable[[], Snapshot],
        refreshed: Callable[[frozenset[str]], object],
        refresh: Callable[[], None],
    ) -> None:
        self.app = app
        self.service = service
        self.writer = writer
        self._snapshot = snapshot
        self._refreshed = refreshed
        self._refresh = refresh
        self._reader: ThreadReader | None = None
        self._asked: set[str] = set()

    # ------------------------------------------------------------------ files

    def want(self, names: Iterable[str]) -> None:
        """Have the store read ``names`` too (once each per run)."""
        new = tuple(name for name in names if name not in self._asked)
        if not new:
            return
        self._asked.update(new)
        self.app.run_worker(
            self._want(new),
            group="want",
            exit_on_error=False,
            name="read files",
            description="read optional state files",
        )

    async def _want(self, names: tuple[str, ...]) -> None:
        await self.service.store.want(*names)
        self._refreshed(frozenset(names))  # the cached copies (if any), shown at once
        self._refresh()  # and the service asked for them

    # ------------------------------------------------------------------ threads

    @property
    def reader(self) -> ThreadReader:
        """The service's thread reader (made on first use)."""
        if self._reader is None:
            self._reader = self.service.threads()
        return self._reader

    def open_thread(self, number: int, post: LoggedPost | None, clock: Callable[[], Any]) -> None:
        """Push post ``number``'s thread: the reader's first copy at once, its answer later."""
        from tui.ui.screens.thread import ThreadScreen  # deferred: off the start path

        self.want(THREAD_FILES)
        first = self.reader.first(number)
        stand_in = from_log(post, self._log_comments()) if post is not None else None
        screen = ThreadScreen(
            number,
            first,
            stand_in=stand_in,
            clock=clock,
            no_answers=posting_refused(self.service.session),  # read-only, a guest
        )
        self.app.push_screen(screen)
        self.pending_changed()
        self.read(screen, number)

    def read(self, screen: ThreadScreen, number: int, *, fresh: bool = False) -> None:
        """Ask the reader for the thread (``fresh``: from its source, not a cached copy)."""
        self.app.run_worker(
            self._read(screen, number, fresh),
            group=f"thread-{number}",
            exclusive=True,
            exit_on_error=False,
            name="read thread",
            description=f"read thread {number}",
        )

    async def _read(self, screen: ThreadScreen, number: int, fresh: bool) -> None:
        reader = self.reader
        try:
            read = await reader.read(number, fresh=fresh)
        except Exception as exc:  # told on the screen, never a crash
            read = ThreadRead(number, None, problem=f"could not read it: {exc}"[:300])
        screen.post_message(self.ThreadArrived(read, limit_note=reader.limit_note))
        if read.thread is not None and read.fresh:
            await self.writer.settle_seen(read.thread)  # what it shows is applied

    def snapshot_changed(self, changed: frozenset[str]) -> None:
        """The published files changed: an open thread takes the reader's first copy again
        (it replaces only a copy no better than itself)."""
        if not changed & set(CONVERSATION_FILES):
            return
        for screen in self._thread_screens():
            first = self.reader.first(screen.number)
            if first is not None and first.thread is not None:
                screen.post_message(self.ThreadArrived(first, first=True))

    def _thread_screens(self) -> list[ThreadScreen]:
        from tui.ui.screens.thread import ThreadScreen  # deferred: off the start path

        return [s for s in self.app.screen_stack if isinstance(s, ThreadScreen)]

    def _log_comments(self) -> Sequence[Any]:
        log = self._snapshot().posted_log
        return log.comments if log is not None else ()

    # ------------------------------------------------------------------ answers

    def answer(self, action: str, prefill: dict[str, Any]) -> None:
        self.writer.answer(action, prefill)

    def pending_changed(self) -> None:
        """The outbox changed: each open thread shows what was sent from here on its post."""
        screens = self._thread_screens()
        if not screens:
            return
        entries = self.writer.outbox_entries()
        for screen in screens:
            screen.post_message(self.PendingFound(entries, self.writer.login))
