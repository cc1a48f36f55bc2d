"""The write side of one service, headless: the :class:`Poster` (ARCHITECTURE.md, the write side).

``connect()`` builds one per service (``Service.poster``). It owns what posting needs, made
once, on first need, whoever asks first (a key, the tracker, a command): the token (looked for
in a worker thread: the search may run ``gh auth token``, which must never hold up an event
loop), the one issue client, the outbox and the deployment's documents. Everything that moves
an entry goes through it: drafting, sending, a retry, a discard, the tracker's rounds, a thread
read back, a token typed in. After each it publishes a :class:`PosterState` (the entries, their
counts, what just changed) to its subscribers: a front end turns that into its own event (the
dashboard: one Textual message) and shows it; the Outbox screen is a view of it.

Listeners are called on the thread that made the change: the event loop's, for every async
method (the work a thread does returns to the loop before anything is published).

This module is part of the headless core: it must never import Textual. It is imported by
``tui/service.py`` on the start path, so what posting needs is imported when it is first needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.config import session_of
from tui.errors import RoostError
from tui.read_only import posting_refused
from tui.ssh.mode import TYPE_A_TOKEN

if TYPE_CHECKING:
    from tui.actions.catalog import ActionSpec
    from tui.actions.connection import WriteSide
    from tui.actions.issue_client import Whoami
    from tui.actions.outbox import Entry
    from tui.config import Settings
    from tui.conversation.thread import Thread
    from tui.network.store import Snapshot
    from tui.service import Service
    from tui.session import Secret, Session

__all__ = [
    "DOCS_EVERY_S",
    "FOLLOW_EVERY_S",
    "NO_TOKEN",
    "NO_TOKEN_OVER_SSH",
    "CannotPost",
    "Poster",
    "PosterState",
]

#: The tracker's pace; each entry's own checks are paced by tracking.py.
FOLLOW_EVERY_S = 10.0
#: How often the deployment's skill.json and manifest are asked again (conditionally).
DOCS_EVERY_S = 300.0
NO_TOKEN = (
    "no token: set ROOST_TOKEN, RAPPTERBOOK_TOKEN, DISCUSSIONS_TOKEN, GH_TOKEN or GITHUB_TOKEN, "
    "or log in with gh"
)
NO_TOKEN_OVER_SSH = "no token: served over SSH, press T to type one for this session"
#: What the token prompt says when no token was found anywhere.
NO_TOKEN_FOUND = (
    "No token was found (ROOST_TOKEN, RAPPTERBOOK_TOKEN, DISCUSSIONS_TOKEN, GH_TOKEN, "
    "GITHUB_TOKEN, the config, gh)."
)

# The outbox's states, counted (tui/actions/outbox.py; FOLLOWED_STATES in tracking.py).
_TRACKED = frozenset({"queued", "received", "accepted"})
_ON_THE_PLATFORM = _TRACKED | {"applied", "rejected"}

Signature = tuple[tuple[str, int, int], ...]
Listener = Callable[["PosterState"], object]


class CannotPost(RoostError):
    """Nothing can be sent from here (read-only, a guest, no repository, a refused URL, no
    token): the message says why."""


def folder_signature(folder: Path) -> Signature:
    """Names, modification times and sizes of the entry files: changes when any entry does
    (a link is looked at, never followed)."""
    try:
        with os.scandir(folder) as found:
            return tuple(
                sorted(
                    (e.name, info.st_mtime_ns, info.st_size)
                    for e in found
                    if e.name.endswith(".json")
                    for info in (e.stat(follow_symlinks=False),)
                )
            )
    except OSError:
        return ()


@dataclass(frozen=True)
class PosterState:
    """The write side as it stands, published after every change.

    ``entries``: the outbox, oldest first. ``changed``: the entries this step moved, and
    ``notices``: what of the deployment's documents could not be used, first said now (each is
    told once, in the state that carries it). ``problem``: why nothing can be posted (None: it
    can, or the write side is not made yet: ``ready``).
    """

    entries: tuple[Entry, ...] = ()
    changed: tuple[Entry, ...] = ()
    notices: tuple[str, ...] = ()
    ready: bool = False
    problem: str | None = None
    has_token: bool = False
    login: str | None = None
    label: str | None = None
    folder: Path | None = None
    counts: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, entries: tuple[Entry, ...], **rest: Any) -> PosterState:
        counts: dict[str, int] = {}
        for entry in entries:
            counts[entry.state] = counts.get(entry.state, 0) + 1
        return cls(entries=entries, counts=counts, **rest)

    def count(self, *states: str) -> int:
        return sum(self.counts.get(state, 0) for state in states)

    @property
    def drafts(self) -> int:
        return self.count("draft")

    @property
    def sending(self) -> int:
        return self.count("sending")

    @property
    def queued(self) -> int:
        """On the platform, no processor's word yet."""
        return self.count("queued")

    @property
    def tracked(self) -> int:
        """Followed to a verdict: queued, received or accepted."""
        return self.count(*_TRACKED)

    @property
    def sent(self) -> int:
        """On the platform, whatever became of it."""
        return self.count(*_ON_THE_PLATFORM)

    @property
    def applied(self) -> int:
        return self.count("applied")

    @property
    def rejected(self) -> int:
        return self.count("rejected")

    @property
    def failed(self) -> int:
        return self.count("failed")

    @property
    def unknown(self) -> int:
        """May be on the platform: looked up by its nonce before anything is sent again."""
        return self.count("unknown")

    @property
    def damaged(self) -> int:
        return self.count("damaged")

    @cached_property
    def summary(self) -> str:
        """The status bar's line (``outbox: 1 sending · 2 failed``; "" when all is well)."""
        from tui.actions.outbox_report import status_summary  # deferred: off the start path

        return status_summary(self.counts)


class Poster:
    """The write side of one service (see the module's docstring).

    ``build`` makes the write side (it may look for a token: it runs in a worker thread, once);
    ``settings`` and ``session`` are the service's as they are now (no ``session``: the one the
    settings imply, :func:`tui.config.session_of`); ``on_token`` hears a token typed in (the
    thread reader reads with it too); ``reset`` starts a fresh demo world.
    """

    def __init__(
        self,
        build: Callable[[], WriteSide],
        *,
        settings: Callable[[], Settings],
        session: Callable[[], Session] | None = None,
        on_token: Callable[[Secret], None] | None = None,
        reset: Callable[[], None] | None = None,
    ) -> None:
        self._build_side = build
        self._settings = settings
        self._session = session or (lambda: session_of(settings()))
        self._on_token = on_token
        self._reset = reset
        self._side: WriteSide | None = None
        self._problem: str | None = None
        self._error: RoostError | None = None
        self._building: asyncio.Future[None] | None = None
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        self._signature: Signature | None = None
        self._state = PosterState(problem=self.refused)

    @classmethod
    def for_service(cls, service: Service, **options: Any) -> Poster:
        """The poster of ``service``; ``options`` go to ``write_side`` (tests: an outbox root,
        a token finder, a fake clock and sleep)."""

        def build() -> WriteSide:
            from tui.actions.connection import write_side  # deferred: off the start path

            return write_side(service, **options)

        return cls(
            build,
            settings=lambda: service.settings,
            session=lambda: service.session,
            on_token=lambda token: service.threads().set_token(token),
            reset=service.reset_demo,
        )

    @classmethod
    def over(cls, side: WriteSide, settings: Settings, session: Session | None = None) -> Poster:
        """A poster around a write side already made (a test's, a tool's)."""
        held = session if session is not None else session_of(settings)
        poster = cls(lambda: side, settings=lambda: settings, session=lambda: held)
        poster._side = side
        poster._state = poster._current()
        return poster

    # ------------------------------------------------------------------ state

    @property
    def settings(self) -> Settings:
        return self._settings()

    @property
    def refused(self) -> str | None:
        """Why nothing is posted from here at all (read-only, a guest over SSH), or None: then
        the write side is never made and no token is looked for."""
        return posting_refused(self._session())

    @property
    def problem(self) -> str | None:
        """Why posting is impossible here (refused, no repository, a refused URL), once
        known."""
        return self.refused or self._problem

    @property
    def side(self) -> WriteSide | None:
        """The write side, once made (None before :meth:`ready`, and when posting is
        impossible). Asks for nothing."""
        return self._side

    @property
    def state(self) -> PosterState:
        """The last state published."""
        return self._state

    @property
    def no_token_reason(self) -> str:
        """What a send without a token says."""
        return NO_TOKEN_OVER_SSH if self._session().ssh_role else NO_TOKEN

    @property
    def token_question(self) -> str:
        """Why the token prompt opens when no token was found."""
        return TYPE_A_TOKEN if self._session().ssh_role else NO_TOKEN_FOUND

    def cannot_send(self) -> str | None:
        """Why nothing can be sent right now (no write side, no token), or None."""
        if self._side is None:
            return self.problem or "the write side is not ready yet"
        if not self._side.client.has_token:
            return self.no_token_reason
        return None

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(state)`` after every change; returns an unsubscribe."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return unsubscribe

    def _current(
        self, changed: tuple[Entry, ...] = (), notices: tuple[str, ...] = ()
    ) -> PosterState:
        side = self._side
        if side is None:
            return PosterState(problem=self.problem, changed=changed, notices=notices)
        self._signature = folder_signature(side.outbox.folder)
        return PosterState.of(
            tuple(side.outbox.entries()),
            changed=changed,
            notices=notices,
            ready=True,
            problem=self.problem,
            has_token=side.client.has_token,
            login=side.client.known_login,
            label=side.outbox.label,
            folder=side.outbox.folder,
        )

    def publish(self, changed: tuple[Entry, ...] = (), notices: tuple[str, ...] = ()) -> None:
        """Read the outbox again and tell every listener."""
        self._state = self._current(changed, notices)
        for listener in list(self._listeners):
            listener(self._state)

    def reread(self, *, force: bool = False) -> bool:
        """Publish again when the outbox folder changed (another roost, a command), or
        ``force``; True when it did. A cheap look at the files' names, sizes and times."""
        side = self._side
        if side is None:
            return False
        if not force and folder_signature(side.outbox.folder) == self._signature:
            return False
        self.publish()
        return True

    # ------------------------------------------------------------------ the write side, once

    async def ready(self) -> WriteSide | None:
        """The write side, made on first call (None, with :attr:`problem` saying why, when
        posting is impossible). The token is looked for in a worker thread; callers at once (a
        key, the tracker) wait for the same making and get the same client."""
        if self._side is not None or self.problem is not None:
            return self._side
        if self._building is None:
            self._building = asyncio.ensure_future(asyncio.to_thread(self._make))
        try:
            await asyncio.shield(self._building)
        finally:
            if self._building is not None and self._building.done():
                self._building = None
        if self._side is not None and not self._state.ready:
            self.publish()
        return self._side

    async def require(self) -> WriteSide:
        """The write side (:meth:`ready`), or the error that says why there is none: the
        build's own (a ``TokenError``: no repository, a refused URL), or :class:`CannotPost`
        (read-only, a guest)."""
        side = await self.ready()
        if side is not None:
            return side
        if self._error is not None and self.refused is None:
            raise self._error
        raise CannotPost(self.problem or "the write side could not be made")

    def _make(self) -> None:
        """Make the write side (in a worker thread: the token search may run ``gh``)."""
        with self._lock:
            if self._side is not None or self.problem is not None:
                return
            try:
                self._side = self._build_side()
            except RoostError as exc:  # a refused URL, no repository, a bad [actions] table
                self._problem, self._error = exc.describe(), exc

    def _need(self) -> WriteSide:
        if self._side is None:
            raise CannotPost(f"cannot post: {self.problem or 'the write side is not ready'}")
        return self._side

    # ------------------------------------------------------------------ the contract

    def catalog(self) -> dict[str, ActionSpec]:
        """The actions that can be sent: the deployment's merged catalog (its last good
        skill.json, from this run or the disk cache), without those roost cannot send."""
        from tui.actions.connection import catalog_for  # deferred: off the start path

        docs = self._side.docs if self._side is not None else None
        if docs is not None:
            docs.load_cached()
        table = catalog_for(self._settings(), docs)
        return {name: spec for name, spec in table.items() if spec.sendable}

    def compose_request(
        self,
        spec: ActionSpec,
        payload: dict[str, Any],
        nonce: str,
        discussions_index: Any = None,
    ) -> tuple[str, dict[str, Any]]:
        """The exact request of an action, as a form previews it and the outbox keeps it."""
        # deferred: off the start path
        from tui.actions.compose import compose_request
        from tui.actions.deployment_docs import describe_manifest_problem

        docs = self._side.docs if self._side is not None else None
        return compose_request(
            spec,
            payload,
            nonce,
            docs.manifest.value if docs is not None else None,
            manifest_problem=describe_manifest_problem(docs) if docs is not None else "",
            discussions_index=discussions_index,
        )

    @property
    def docs_asked(self) -> bool:
        """The deployment's documents were asked for in this run (or there are none)."""
        side = self._side
        return side is None or side.docs is None or side.docs.asked

    async def refresh_docs(self, *, first: bool = False) -> None:
        """Ask for the deployment's skill.json and manifest again; what of them cannot be used
        is published once each (``notices``). ``first``: mark them asked whatever came."""
        side = self._side
        if side is None or side.docs is None:
            return
        try:
            await side.docs.refresh()
        finally:
            if first:
                side.docs.asked = True
        notices = tuple(side.docs.new_notices())
        if notices:
            self.publish(notices=notices)

    # ------------------------------------------------------------------ drafting and sending

    def draft(
        self,
        action: str,
        payload: Mapping[str, Any],
        *,
        nonce: str | None = None,
        snapshot: Snapshot | None = None,
        catalog: Mapping[str, ActionSpec] | None = None,
    ) -> Entry:
        """A new outbox entry for ``action``, saved before anything leaves, with what
        ``snapshot`` showed for it. Raises :class:`CannotPost` when posting is impossible,
        ``ValueError`` when the action cannot be composed."""
        # deferred: off the start path
        from tui.actions.catalog import get_action
        from tui.actions.issue_body import new_nonce
        from tui.actions.tracking import baseline

        side = self._need()
        spec = get_action(action, dict(catalog) if catalog is not None else self.catalog())
        values = dict(payload)
        nonce = nonce or new_nonce()
        index = snapshot.discussions_index if snapshot is not None else None
        kind, request = self.compose_request(spec, values, nonce, index)
        entry = side.outbox.draft(
            action,
            values,
            nonce=nonce,
            kind=kind,
            request=request,
            label=spec.label,
            baseline=baseline(action, values, side.client.known_login, snapshot),
        )
        self.publish()
        return entry

    async def send(self, entry_id: str) -> Entry | None:
        """Send a drafted entry (under its lock); the state published tells it as changed.
        None: another roost is sending it."""
        from tui.actions.outbox import EntryBusy  # deferred: off the start path

        side = self._need()
        try:
            entry = await side.outbox.send(entry_id, side.client)
        except EntryBusy:
            return None
        self.publish(changed=(entry,))
        return entry

    async def submit(
        self,
        action: str,
        payload: Mapping[str, Any],
        *,
        nonce: str | None = None,
        snapshot: Snapshot | None = None,
    ) -> Entry | None:
        """Draft and send one action (what a form's submit does, in one call)."""
        await self.ready()
        entry = self.draft(action, payload, nonce=nonce, snapshot=snapshot)
        return await self.send(entry.id)

    async def retry(self, entry_id: str) -> Entry:
        """Send an entry again where the outbox allows it; the caller tells the outcome.
        Raises :class:`CannotPost` (no write side, no token, a retry refused: the message
        says why), ``EntryBusy``, ``KeyError`` or ``DamagedEntry``."""
        from tui.actions.outbox_report import retry_refusal  # deferred: off the start path

        side = self._need()
        refusal = retry_refusal(side.outbox.read(entry_id))
        if refusal is not None:
            raise CannotPost(f"not retried: {refusal}")
        if not side.client.has_token:
            raise CannotPost(f"cannot send: {self.no_token_reason}")
        try:
            return await side.outbox.send(entry_id, side.client)
        finally:
            self.publish()

    def discard(self, entry_id: str) -> None:
        """Forget an entry (``EntryBusy``: another roost is sending it; ``DamagedEntry``: a
        folder holding files stands where its file should)."""
        side = self._need()
        try:
            side.outbox.drop(entry_id)
        finally:
            self.publish()

    # ------------------------------------------------------------------ the token

    def set_token(self, token: Secret) -> None:
        """Post with ``token`` from now on (one typed into the session), and read threads
        with it. Then :meth:`resume_interrupted` can settle what a dead process left."""
        side = self._need()
        side.client.set_token(token)
        side.token_source = "typed in this session"
        if self._on_token is not None:
            self._on_token(token)
        self.publish()

    async def whoami(self) -> Whoami:
        """Who the token acts as (``GET /user``); raises ``LookupFailed``."""
        who = await self._need().client.whoami()
        if self._state.login != who.login:
            self.publish()
        return who

    # ------------------------------------------------------------------ tracking

    async def resume_interrupted(self) -> list[Entry]:
        """Entries left "sending" by a process that died, looked up by their nonce (and sent
        only when the platform shows nothing)."""
        side = self._need()
        changed = await side.outbox.resume_interrupted(side.client)
        self.publish(changed=tuple(changed))
        return changed

    async def follow(self, snapshot: Snapshot | None, *, now: float | None = None) -> list[Entry]:
        """One round of the tracker: every sent entry checked (receipts, then the processor's
        comments), then those whose effect ``snapshot`` shows settled as applied."""
        # deferred: off the start path
        from tui.actions.tracking import follow_queued, settle_applied

        side = self._need()
        changed = await follow_queued(
            side.outbox, side.client, now=now, docs=side.docs, processor=side.processor
        )
        if snapshot is not None:
            changed += await asyncio.to_thread(settle_applied, side.outbox, snapshot)
        if changed:
            self.publish(changed=tuple(changed))
        return changed

    async def track(
        self, snapshot: Callable[[], Snapshot | None], *, every: float = FOLLOW_EVERY_S
    ) -> None:
        """Follow the outbox for as long as it runs (a background task): the documents, what a
        dead process left, then a round every ``every`` seconds."""
        if await self.ready() is None:
            return
        await self.refresh_docs()
        docs_at = time.monotonic()
        await self.resume_interrupted()
        while True:
            if time.monotonic() - docs_at >= DOCS_EVERY_S:
                await self.refresh_docs()
                docs_at = time.monotonic()
            await self.follow(snapshot())
            await asyncio.sleep(every)

    async def settle_seen(self, thread: Thread) -> list[Entry]:
        """Mark the comments and replies that ``thread`` (a copy just read) shows as
        applied."""
        from tui.actions.thread_answers import settle_seen  # deferred: off the start path

        side = self._side
        if side is None:
            return []
        settled = await asyncio.to_thread(settle_seen, side.outbox, thread)
        if settled:
            self.publish(changed=tuple(settled))
        return settled

    # ------------------------------------------------------------------ the end

    async def reset_demo(self) -> None:
        """A fresh demo world, and its own outbox (made again on the next :meth:`ready`)."""
        if self._reset is None:
            raise CannotPost("only the demo network can be reset")
        await self.aclose()
        self._problem, self._error, self._signature = None, None, None
        self._reset()
        if await self.ready() is None:  # (made: ready published the fresh outbox)
            self.publish()

    async def aclose(self) -> None:
        """Close the write side's clients; a later :meth:`ready` makes it again."""
        if self._building is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._building)
        side, self._side, self._building = self._side, None, None
        self._state = PosterState(problem=self.refused)
        if side is not None:
            await side.aclose()
