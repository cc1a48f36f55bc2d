"""Posting from the dashboard: the app's side of the write path (ARCHITECTURE.md, the write side).

The write side itself is the service's :class:`~tui.actions.poster.Poster` (headless): it makes
the issue client and outbox once, sends, follows and publishes its state. This adapter gives it
keys and screens: ``n`` opens the action picker for what is selected (tui/ui/screens/forms), over
the deployment's catalog; a submitted draft is drafted and sent through the poster in a worker;
``T`` asks for a token; ``o`` opens the Outbox screen, a view of the poster's state. Each state
the poster publishes becomes one message, :class:`WriteController.PosterChanged`, whose handler
(:meth:`WriteController.show`) puts the summary on the bars and tells what changed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message

from tui.config import Secret
from tui.ui.textual_compat import hide_bindings
from tui.untrusted import clean_line

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel

    from tui.actions.catalog import ActionSpec
    from tui.actions.outbox import Entry
    from tui.actions.poster import PosterState
    from tui.conversation.thread import Thread
    from tui.network.store import Snapshot
    from tui.service import Service
    from tui.ui.screens.forms import ActionContext, Draft, DraftKeeper

__all__ = ["WriteController"]

#: The longest `n` waits for the deployment's documents the first time (then the last good
#: copy, or the built-in catalog).
DOCS_FIRST_WAIT_S = 5.0


class WriteController:
    """The keys that post (:attr:`BINDINGS`, actions on the app that call the methods here) over
    the service's poster, and the worker that runs its tracker.

    ``app`` shows what happens (toasts, screens) and runs the workers; ``snapshot`` is the
    state on view (for the forms' references and to settle applied actions); ``show_outbox``
    puts the outbox's summary on the status bars.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "compose", "Post", id="app.compose"),
        Binding("o", "outbox", "Outbox", id="app.outbox", show=False),
        Binding("T", "token", "Type a token for this session", show=False, id="app.token"),
    ]

    @dataclass(eq=False)
    class PosterChanged(Message):
        """The poster published a new state (an entry drafted, sent, followed, settled…)."""

        state: PosterState

    def __init__(
        self,
        app: App[Any],
        service: Service,
        *,
        snapshot: Callable[[], Snapshot],
        show_outbox: Callable[[str], None],
    ) -> None:
        self.app = app
        self.service = service
        self.poster = service.poster
        self._snapshot = snapshot
        self._show_outbox = show_outbox
        if self.poster.refused is not None:  # the footer offers no n (the key still says why)
            hide_bindings(app, ("app.compose",))
        self._drafts: DraftKeeper | None = None
        self._unsubscribe = self.poster.subscribe(
            lambda state: app.post_message(self.PosterChanged(state))
        )

    def close(self) -> None:
        """Stop hearing the poster (the app is leaving)."""
        self._unsubscribe()

    def draft_keeper(self) -> DraftKeeper:
        """Where unsent drafts are kept: beside the outbox, or in memory without one."""
        if self._drafts is None:
            # deferred: off the start path
            from tui.ui.screens.forms import FileDrafts, MemoryDrafts

            side = self.poster.side
            self._drafts = (
                FileDrafts(side.outbox.folder / "drafts") if side is not None else MemoryDrafts()
            )
        return self._drafts

    # ------------------------------------------------------------------ n: compose

    def compose(self) -> bool:
        """``n``: the action picker for what is selected; False: nothing opens (a toast says
        why)."""
        return self._start(self._open_flow)

    def answer(self, action: str, prefill: dict[str, Any]) -> None:
        """One action's form at once, ``prefill`` pinned (the thread's ``c``, ``R``, ``+``:
        the post, the comment, the reaction are the thread's, not a kept draft's)."""
        self._start(lambda: self._open_answer(action, prefill))

    def _start(self, open_form: Callable[[], None]) -> bool:
        """What every form needs first: a person who may post, then (in a worker) the write
        side, a token, the deployment's contract; then ``open_form``. False: nothing opens."""
        refused = self.poster.refused
        if refused is not None:  # read-only, or a guest: no form, no outbox, no token
            self.app.notify(refused, severity="warning", markup=False)
            return False
        self.app.run_worker(
            self._prepare_then(open_form), group="compose", exclusive=True, name="compose"
        )
        return True

    async def _prepare_then(self, open_form: Callable[[], None]) -> None:
        side = await self.poster.ready()  # the token is looked for in a thread
        if side is not None and not side.client.has_token:
            # no token anywhere: ask for one first (escape composes anyway: the draft is kept
            # and the entry waits in the outbox until a token is given)
            self._ask_token(self.poster.token_question, then=lambda: self._compose_now(open_form))
            return
        await self._read_docs()
        open_form()

    def _compose_now(self, open_form: Callable[[], None]) -> None:
        self.app.run_worker(self._docs_then(open_form), group="docs", exclusive=True, name="docs")

    async def _docs_then(self, open_form: Callable[[], None]) -> None:
        await self._read_docs()
        open_form()

    async def _read_docs(self) -> None:
        """The deployment's contract decides the actions (and how a post is made): read it
        first, once per run (its last good copy stands in when it cannot be read)."""
        if self.poster.docs_asked:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.poster.refresh_docs(first=True), DOCS_FIRST_WAIT_S)

    def _open_flow(self) -> None:
        from tui.ui.screens.forms import open_action_flow  # deferred: off the start path

        open_action_flow(
            self.app,
            self._action_context(),
            self._snapshot(),
            self.draft_keeper(),
            on_submit=self._submit_draft,
            login=self.login,
            whoami=self._whoami_login if self.poster.side is not None else None,
            catalog=self.catalog(),
            compose=self.compose_request,
        )

    def _open_answer(self, action: str, prefill: dict[str, Any]) -> None:
        # deferred: off the start path
        from tui.actions.completion import References
        from tui.ui.screens.forms.flow import open_action_form

        catalog = self.catalog()
        if action not in catalog:
            self.app.notify(
                f"This deployment's contract has no {action} action: nothing to send it with",
                severity="warning",
                markup=False,
            )
            return
        open_action_form(
            self.app,
            action,
            prefill=prefill,
            pinned=True,
            references=References(self._snapshot()),
            drafts=self.draft_keeper(),
            on_submit=self._submit_draft,
            login=self.login,
            whoami=self._whoami_login if self.poster.side is not None else None,
            catalog=catalog,
            compose=self.compose_request,
        )

    def catalog(self) -> dict[str, ActionSpec]:
        """The actions the forms offer (the poster's catalog)."""
        return self.poster.catalog()

    def compose_request(
        self, spec: ActionSpec, payload: dict[str, Any], nonce: str
    ) -> tuple[str, dict[str, Any]]:
        """The exact request of an action, as the form previews it and the outbox keeps it."""
        return self.poster.compose_request(spec, payload, nonce, self._snapshot().discussions_index)

    def _submit_draft(self, draft: Draft) -> None:
        """The form's submit: save the entry (raises, and the form keeps the draft, when posting
        is impossible), then send it in a worker."""
        assert draft.nonce is not None  # the form gives every draft its nonce
        entry = self.poster.draft(
            draft.action,
            draft.payload,
            nonce=draft.nonce,
            snapshot=self._snapshot(),
            catalog=self.catalog(),
        )
        self.app.notify(f"{entry.action}: in the outbox, sending…", title="Outbox", markup=False)
        self.app.run_worker(
            self.poster.send(entry.id),
            group="send",
            exit_on_error=False,
            name="send",
            description="send",
        )

    def _action_context(self) -> ActionContext:
        """What the person has selected on the tab on view: an agent, a channel, a proposal."""
        # deferred: off the start path
        from tui.ui.screens.base import StateScreen
        from tui.ui.screens.forms import ActionContext

        screen = self.app.screen
        if isinstance(screen, StateScreen) or hasattr(screen, "posting_context"):
            return screen.posting_context()  # a tab's selection; a thread's post
        return ActionContext()

    @property
    def login(self) -> str | None:
        """Whom the token acts as, once the platform said (None before)."""
        side = self.poster.side
        return side.client.known_login if side is not None else None

    async def _whoami_login(self) -> str | None:
        try:
            return (await self.poster.whoami()).login
        except Exception:  # the form says the check failed; nothing else depends on it
            return None

    # ------------------------------------------------------------------ T: a token

    def ask_token(self) -> None:
        """``T``: type a token for this session (the write side made first, in a worker)."""
        refused = self.poster.refused
        if refused is not None:
            self.app.notify(f"Cannot post here: {refused}", severity="warning", markup=False)
            return
        self.app.run_worker(self._ready_then_ask(), group="compose", exclusive=True, name="token")

    async def _ready_then_ask(self) -> None:
        if await self.poster.ready() is None:
            self.app.notify(
                f"Cannot post here: {self.poster.problem}", severity="warning", markup=False
            )
            return
        self._ask_token("")

    def _ask_token(self, why: str, then: Callable[[], None] | None = None) -> None:
        # deferred: off the start path
        from tui.actions.token import origin_of
        from tui.ui.screens.forms.token_prompt import TokenPrompt

        side = self.poster.side
        assert side is not None  # asked only once the write side is made
        scheme, host, port = origin_of(side.client.write_url)
        default = {"https": 443, "http": 80}.get(scheme)
        origin = f"{scheme}://{host}" + (f":{port}" if port != default else "")

        def answered(token: str | None) -> None:
            if token:
                self.poster.set_token(Secret(token))  # it reads threads with it too
                self.app.run_worker(  # what a dead process left "sending" can be settled now
                    self.poster.resume_interrupted(),
                    group="resume",
                    exit_on_error=False,
                    name="resume interrupted",
                )
                self.app.run_worker(
                    self._tell_token_owner(),
                    group="whoami",
                    exclusive=True,
                    exit_on_error=False,
                    name="whoami",
                )
            if then is not None:
                then()

        self.app.push_screen(TokenPrompt(side.client.repo, origin, why=why), answered)

    async def _tell_token_owner(self) -> None:
        """Say who the new token acts as and what it may do (``GET /user``)."""
        side = self.poster.side
        if side is None:
            return
        try:
            who = await self.poster.whoami()
        except Exception as exc:  # told, never a crash: the token may be wrong
            self.app.notify(
                f"Token set for this session, but the platform did not accept it: "
                f"{clean_line(str(exc), 160)}",
                severity="warning",
                markup=False,
            )
            return
        self.app.notify(
            f"Token set for this session: acting as {clean_line(who.login, 40)} · "
            f"{clean_line(who.describe(side.client.repo), 120)}",
            title="Token",
            markup=False,
        )

    # ------------------------------------------------------------------ tracking

    def start_tracking(self) -> None:
        """Begin following the outbox (called once the dashboard is up; off the start path)."""
        self.app.run_worker(
            self.poster.track(self._snapshot),
            group="track",
            exclusive=True,
            exit_on_error=False,
            name="track",
            description="follow",
        )

    async def settle_seen(self, thread: Thread) -> None:
        """Mark the outbox's comments and replies that ``thread`` (a copy just read) shows as
        applied (a worker calls it; the poster publishes what moved)."""
        await self.poster.settle_seen(thread)

    def outbox_entries(self) -> list[Entry]:
        """The outbox's entries, oldest first, as last published ([] while the write side is
        not made yet)."""
        return list(self.poster.state.entries)

    def show(self, state: PosterState) -> None:
        """The app's handler of :class:`PosterChanged`: the bars' summary, and a toast for
        each entry that moved and each notice about the deployment's documents."""
        self._show_outbox(state.summary)
        for notice in state.notices:
            self.app.notify(
                clean_line(notice, 300), title="Deployment", severity="warning", markup=False
            )
        for entry in state.changed:
            number = f" #{entry.number}" if entry.number else ""
            reason = f": {clean_line(entry.reason, 200)}" if entry.reason else ""
            severity: SeverityLevel = (
                "error" if entry.state in ("failed", "rejected", "unknown") else "information"
            )
            self.app.notify(
                f"{clean_line(entry.action, 40)}{number}: {entry.state}{reason}",
                title="Outbox",
                severity=severity,
                markup=False,
            )

    # ------------------------------------------------------------------ the demo world

    def ask_demo_reset(self, then: Callable[[], Awaitable[None]]) -> None:
        """`roost demo --reset`: ask, then start a fresh demo world (and outbox) or keep it;
        ``then`` runs after a reset (the app refreshes its state)."""
        self.app.run_worker(self._ask_demo_reset(then), group="demo-reset", exit_on_error=False)

    async def _ask_demo_reset(self, then: Callable[[], Awaitable[None]]) -> None:
        from tui.ui.screens.demo_reset import ResetDemoConfirm  # deferred: off the start path

        await self.poster.ready()  # what the world's outbox holds, to say what is set aside
        entries = len(self.poster.state.entries)
        issues = self.service.demo_posts()

        def answered(reset: bool | None) -> None:
            if not reset:
                self.app.notify("Kept the demo world as it was.", title="Demo", markup=False)
                return
            self.app.run_worker(self._reset_demo(then), group="demo-reset", exit_on_error=False)

        self.app.push_screen(ResetDemoConfirm(issues, entries), answered)

    async def _reset_demo(self, then: Callable[[], Awaitable[None]]) -> None:
        self.app.workers.cancel_group(self.app, "track")
        self._drafts = None
        await self.poster.reset_demo()
        self.app.notify("A fresh demo world, with its own outbox.", title="Demo", markup=False)
        await then()
        self.start_tracking()

    # ------------------------------------------------------------------ o: the outbox

    def open_outbox(self) -> None:
        """``o``: the Outbox screen (the write side made first, in a worker)."""
        from tui.ui.screens.outbox import OutboxScreen  # deferred: off the start path

        if isinstance(self.app.screen, OutboxScreen):
            return
        refused = self.poster.refused
        if refused is not None:
            self.app.notify(f"No outbox: {refused}", severity="warning", markup=False)
            return
        self.app.run_worker(self._open_outbox(), group="outbox", exclusive=True, name="outbox")

    async def _open_outbox(self) -> None:
        from tui.ui.screens.outbox import OutboxScreen  # deferred: off the start path

        if await self.poster.ready() is None:
            self.app.notify(f"No outbox: {self.poster.problem}", severity="warning", markup=False)
            return
        if not isinstance(self.app.screen, OutboxScreen):
            self.app.push_screen(OutboxScreen(self.poster))
