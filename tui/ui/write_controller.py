"""Posting from the dashboard: the app's side of the write path (ARCHITECTURE.md, the write side).

``n`` opens the action picker for what is selected (tui/ui/screens/forms), over the deployment's
catalog (its skill.json over the built-in one, the config's tables over both); a submitted draft
becomes an outbox entry (saved before anything leaves, with what the state showed for it) and is
sent by a worker, as an issue or, where the deployment says so, a Discussion; a background worker
then follows sent entries (receipts first, then the processor's comments) to their verdict, and
each refresh settles the ones whose effect the state shows. The app holds one :class:`WriteController` and hands it its keys; workers only
do I/O and report back through messages, which the app's handlers pass on to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message

from tui.config import Secret
from tui.errors import RoostError
from tui.read_only import posting_refused
from tui.ssh.mode import TYPE_A_TOKEN
from tui.ui.textual_compat import hide_bindings
from tui.untrusted import clean_line

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel

    from tui.actions.catalog import ActionSpec
    from tui.actions.connection import WriteSide
    from tui.actions.outbox import Entry
    from tui.conversation.thread import Thread
    from tui.network.store import Snapshot
    from tui.service import Service
    from tui.ui.screens.forms import ActionContext, Draft, DraftKeeper

__all__ = ["WriteController"]

FOLLOW_EVERY_S = 10.0  # the tracker's pace; each entry's own checks are paced by tracking.py
#: How often the deployment's skill.json and manifest are asked again (conditionally).
DOCS_EVERY_S = 300.0
#: The longest `n` waits for them the first time (then the last good copy, or the built-in).
DOCS_FIRST_WAIT_S = 5.0
NO_TOKEN = (
    "no token: set ROOST_TOKEN, RAPPTERBOOK_TOKEN, DISCUSSIONS_TOKEN, GH_TOKEN or GITHUB_TOKEN, "
    "or log in with gh"
)
NO_TOKEN_OVER_SSH = "no token: served over SSH, press T to type one for this session"


class WriteController:
    """The write side of one app: its issue client and outbox (made on first use), the keys
    that post (:attr:`BINDINGS`, actions on the app that call the methods here) and the worker
    that follows the outbox.

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
    class ActionsProgressed(Message):
        """Entries of the outbox changed state (sent, accepted, rejected, applied…)."""

        entries: list[Entry]
        counts: dict[str, int]

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
        self._snapshot = snapshot
        self._show_outbox = show_outbox
        #: Why nothing is posted from here at all (read-only, a guest over SSH), or None: then
        #: the write side is never built and no token is looked for.
        self.refused = posting_refused(service.settings)
        if self.refused is not None:  # the footer offers no n (the key still says why)
            hide_bindings(app, ("app.compose",))
        self._write: WriteSide | None = None
        #: Why posting is impossible here (no repository, a refused URL, read-only), once known.
        self.problem: str | None = self.refused
        self._drafts: DraftKeeper | None = None
        self.outbox_counts: dict[str, int] = {}

    # ------------------------------------------------------------------ the write side

    def write_side(self) -> WriteSide | None:
        """The issue client and outbox of this service, made on first use (None, with the reason
        in :attr:`problem`, when posting is not possible: no repository, a refused URL)."""
        if self._write is None and self.problem is None:
            from tui.actions.connection import write_side  # deferred: off the start path

            try:
                self._write = write_side(self.service)
            except RoostError as exc:  # a refused URL, no repository, a bad [actions] table
                self.problem = exc.describe()
        return self._write

    def draft_keeper(self) -> DraftKeeper:
        """Where unsent drafts are kept: beside the outbox, or in memory without one."""
        if self._drafts is None:
            # deferred: off the start path
            from tui.ui.screens.forms import FileDrafts, MemoryDrafts

            write = self.write_side()
            self._drafts = (
                FileDrafts(write.outbox.folder / "drafts") if write is not None else MemoryDrafts()
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
        """What every form needs first: a person who may post, a token, the deployment's
        contract; then ``open_form``. False: nothing opens."""
        ssh_role = self.service.settings.ssh_role
        if self.refused is not None:  # read-only, or a guest: no form, no outbox, no token
            self.app.notify(self.refused, severity="warning", markup=False)
            return False
        write = self.write_side()
        if write is not None and not write.client.has_token:
            # no token anywhere: ask for one first (escape composes anyway: the draft is kept
            # and the entry waits in the outbox until a token is given)
            self._ask_token(
                write,
                TYPE_A_TOKEN
                if ssh_role
                else "No token was found (ROOST_TOKEN, RAPPTERBOOK_TOKEN, DISCUSSIONS_TOKEN, "
                "GH_TOKEN, GITHUB_TOKEN, the config, gh).",
                then=lambda: self._compose_now(open_form),
            )
            return True
        self._compose_now(open_form)
        return True

    def _compose_now(self, open_form: Callable[[], None]) -> None:
        write = self.write_side()
        if write is not None and write.docs is not None and not write.docs.asked:
            # the deployment's contract decides the actions (and how a post is made): read it
            # first, once per run (its last good copy stands in when it cannot be read)
            self.app.run_worker(
                self._read_docs_then(write, open_form), group="docs", exclusive=True, name="docs"
            )
            return
        open_form()

    async def _read_docs_then(self, write: WriteSide, open_form: Callable[[], None]) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._refresh_docs(write), DOCS_FIRST_WAIT_S)
        if write.docs is not None:
            write.docs.asked = True
        open_form()

    def _open_flow(self) -> None:
        from tui.ui.screens.forms import open_action_flow  # deferred: off the start path

        write = self.write_side()
        open_action_flow(
            self.app,
            self._action_context(),
            self._snapshot(),
            self.draft_keeper(),
            on_submit=self._submit_draft,
            login=self._login(),
            whoami=self._whoami_login if write is not None else None,
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
        write = self.write_side()
        open_action_form(
            self.app,
            action,
            prefill=prefill,
            pinned=True,
            references=References(self._snapshot()),
            drafts=self.draft_keeper(),
            on_submit=self._submit_draft,
            login=self._login(),
            whoami=self._whoami_login if write is not None else None,
            catalog=catalog,
            compose=self.compose_request,
        )

    def catalog(self) -> dict[str, ActionSpec]:
        """The actions the forms offer: the deployment's merged catalog (its last good
        skill.json, from this run or the disk cache), without those roost cannot send."""
        from tui.actions.connection import catalog_for  # deferred: off the start path

        write = self.write_side()
        docs = write.docs if write is not None else None
        if docs is not None:
            docs.load_cached()
        table = catalog_for(self.service.settings, docs)
        return {name: spec for name, spec in table.items() if spec.sendable}

    def compose_request(
        self, spec: ActionSpec, payload: dict[str, Any], nonce: str
    ) -> tuple[str, dict[str, Any]]:
        """The exact request of an action, as the form previews it and the outbox keeps it."""
        # deferred: off the start path
        from tui.actions.compose import compose_request
        from tui.actions.deployment_docs import describe_manifest_problem

        write = self.write_side()
        docs = write.docs if write is not None else None
        return compose_request(
            spec,
            payload,
            nonce,
            docs.manifest.value if docs is not None else None,
            manifest_problem=describe_manifest_problem(docs) if docs is not None else "",
            discussions_index=self._snapshot().discussions_index,
        )

    # ------------------------------------------------------------------ T: a token

    def ask_token(self) -> None:
        write = self.write_side()
        if write is None:
            self.app.notify(f"Cannot post here: {self.problem}", severity="warning", markup=False)
            return
        self._ask_token(write, "")

    def _ask_token(
        self, write: WriteSide, why: str, then: Callable[[], None] | None = None
    ) -> None:
        # deferred: off the start path
        from tui.actions.token import origin_of
        from tui.ui.screens.forms.token_prompt import TokenPrompt

        scheme, host, port = origin_of(write.client.write_url)
        default = {"https": 443, "http": 80}.get(scheme)
        origin = f"{scheme}://{host}" + (f":{port}" if port != default else "")

        def answered(token: str | None) -> None:
            if token:
                write.client.set_token(Secret(token))
                write.token_source = "typed in this session"
                self.service.threads().set_token(Secret(token))  # reads with it too
                self.app.run_worker(  # what a dead process left "sending" can be settled now
                    self._resume_interrupted(write),
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

        self.app.push_screen(TokenPrompt(write.client.repo, origin, why=why), answered)

    async def _resume_interrupted(self, write: WriteSide) -> None:
        """Entries left "sending" by a process that died are looked up by their nonce (and
        sent only when the platform shows nothing): the tracker did so at start, when there
        was no token to ask with."""
        changed = await write.outbox.resume_interrupted(write.client)
        if changed:
            self.app.post_message(self.ActionsProgressed(changed, write.outbox.counts()))

    async def _tell_token_owner(self) -> None:
        """Say who the new token acts as and what it may do (``GET /user``)."""
        write = self.write_side()
        if write is None:
            return
        try:
            who = await write.client.whoami()
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
            f"{clean_line(who.describe(write.client.repo), 120)}",
            title="Token",
            markup=False,
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

    def _login(self) -> str | None:
        write = self._write
        return write.client.known_login if write is not None else None

    async def _whoami_login(self) -> str | None:
        write = self.write_side()
        if write is None:
            return None
        try:
            return (await write.client.whoami()).login
        except Exception:  # the form says the check failed; nothing else depends on it
            return None

    def _submit_draft(self, draft: Draft) -> None:
        """The form's submit: save the entry (raises, and the form keeps the draft, when posting
        is impossible), then send it in a worker."""
        # deferred: off the start path
        from tui.actions.catalog import get_action
        from tui.actions.tracking import baseline

        write = self.write_side()
        if write is None:
            raise RuntimeError(f"cannot post: {self.problem}")
        spec = get_action(draft.action, self.catalog())
        payload = dict(draft.payload)
        assert draft.nonce is not None  # the form gives every draft its nonce
        kind, request = self.compose_request(spec, payload, draft.nonce)  # ValueError: kept
        entry = write.outbox.draft(
            draft.action,
            payload,
            nonce=draft.nonce,
            kind=kind,
            request=request,
            label=spec.label,
            baseline=baseline(draft.action, payload, self._login(), self._snapshot()),
        )
        self.app.notify(f"{entry.action}: in the outbox, sending…", title="Outbox", markup=False)
        self.app.run_worker(
            self._send_entry(write, entry.id),
            group="send",
            exit_on_error=False,
            name="send",
            description="send",
        )

    async def _send_entry(self, write: WriteSide, entry_id: str) -> None:
        from tui.actions.outbox import EntryBusy  # deferred: off the start path

        try:
            entry = await write.outbox.send(entry_id, write.client)
        except EntryBusy:
            return  # another roost is sending it
        # told once, by the app's handler of the message (progressed)
        self.app.post_message(self.ActionsProgressed([entry], write.outbox.counts()))

    def outbox_entries(self) -> list[Entry]:
        """The outbox's entries, oldest first ([] while the write side is not made yet: making
        it may ask `gh` for a token)."""
        return self._write.outbox.entries() if self._write is not None else []

    # ------------------------------------------------------------------ tracking

    def start_tracking(self) -> None:
        """Begin following the outbox (called once the dashboard is up; off the start path)."""
        self.app.run_worker(
            self._track(),
            group="track",
            exclusive=True,
            exit_on_error=False,
            name="track",
            description="follow",
        )

    async def aclose(self) -> None:
        if self._write is not None:
            await self._write.aclose()

    def ask_demo_reset(self, then: Callable[[], Awaitable[None]]) -> None:
        """`roost demo --reset`: ask, then start a fresh demo world (and outbox) or keep it;
        ``then`` runs after a reset (the app refreshes its state)."""
        from tui.ui.screens.demo_reset import ResetDemoConfirm  # deferred: off the start path

        write = self.write_side()
        entries = len(write.outbox.entries()) if write is not None else 0
        issues = self.service.demo_posts()

        def answered(reset: bool | None) -> None:
            if not reset:
                self.app.notify("Kept the demo world as it was.", title="Demo", markup=False)
                return
            self.app.run_worker(self._reset_demo(then), group="demo-reset", exit_on_error=False)

        self.app.push_screen(ResetDemoConfirm(issues, entries), answered)

    async def _reset_demo(self, then: Callable[[], Awaitable[None]]) -> None:
        self.app.workers.cancel_group(self.app, "track")
        if self._write is not None:
            await self._write.aclose()
        self._write, self._drafts, self.problem = None, None, self.refused
        self.service.reset_demo()
        write = self.write_side()
        self.outbox_changed(write.outbox.counts() if write is not None else {})
        self.app.notify("A fresh demo world, with its own outbox.", title="Demo", markup=False)
        await then()
        self.start_tracking()

    async def _track(self) -> None:
        from tui.actions.tracking import follow_queued  # deferred: off the start path

        write = await asyncio.to_thread(self.write_side)  # may ask `gh` for a token: not on the UI
        if write is None:
            return
        await self._refresh_docs(write)
        docs_at = time.monotonic()
        changed = list(await write.outbox.resume_interrupted(write.client))
        self.app.post_message(self.ActionsProgressed(changed, write.outbox.counts()))
        changed = []
        while True:
            if time.monotonic() - docs_at >= DOCS_EVERY_S:
                await self._refresh_docs(write)
                docs_at = time.monotonic()
            changed += await follow_queued(
                write.outbox, write.client, docs=write.docs, processor=write.processor
            )
            changed += await asyncio.to_thread(self._settle, write)
            if changed:
                self.app.post_message(self.ActionsProgressed(changed, write.outbox.counts()))
                changed = []
            await asyncio.sleep(FOLLOW_EVERY_S)

    async def _refresh_docs(self, write: WriteSide) -> None:
        """Ask for the deployment's skill.json and manifest again; tell, once each, what of
        them could not be used."""
        if write.docs is None:
            return
        await write.docs.refresh()
        for notice in write.docs.new_notices():
            self.app.notify(
                clean_line(notice, 300), title="Deployment", severity="warning", markup=False
            )

    def _settle(self, write: WriteSide) -> list[Entry]:
        from tui.actions.tracking import settle_applied  # deferred: off the start path

        return settle_applied(write.outbox, self._snapshot())

    async def settle_seen(self, thread: Thread) -> None:
        """Mark the outbox's comments and replies that ``thread`` (a copy just read) shows as
        applied, and say so as any progress is said (a worker calls it)."""
        from tui.actions.thread_answers import settle_seen  # deferred: off the start path

        write = self._write
        if write is None:
            return
        settled = await asyncio.to_thread(settle_seen, write.outbox, thread)
        if settled:
            self.app.post_message(self.ActionsProgressed(settled, write.outbox.counts()))

    @property
    def login(self) -> str | None:
        """Whom the token acts as, once the platform said (None before)."""
        return self._login()

    def progressed(self, message: ActionsProgressed) -> None:
        """The app's handler of :class:`ActionsProgressed`: toasts, the bars' summary and any
        Outbox screen open."""
        self.outbox_changed(message.counts)
        self._report_entries(message.entries)
        from tui.ui.screens.outbox import OutboxScreen  # deferred: off the start path

        for screen in self.app.screen_stack:
            if isinstance(screen, OutboxScreen):
                screen.post_message(OutboxScreen.Reread())

    def outbox_changed(self, counts: dict[str, int]) -> None:
        """The outbox's counts changed (here, or seen by the Outbox screen)."""
        from tui.actions.outbox_report import status_summary  # deferred: off the start path

        self.outbox_counts = dict(counts)
        self._show_outbox(status_summary(counts))

    # ------------------------------------------------------------------ o: the outbox

    def open_outbox(self) -> None:
        from tui.ui.screens.outbox import OutboxScreen  # deferred: off the start path

        if isinstance(self.app.screen, OutboxScreen):
            return
        write = self.write_side()
        if write is None:
            self.app.notify(f"No outbox: {self.problem}", severity="warning", markup=False)
            return
        client = write.client if write.client.has_token else None
        no_token = NO_TOKEN_OVER_SSH if self.service.settings.ssh_role else NO_TOKEN
        self.app.push_screen(OutboxScreen(write.outbox, client, no_client_reason=no_token))

    def _report_entries(self, entries: list[Entry]) -> None:
        for entry in entries:
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
