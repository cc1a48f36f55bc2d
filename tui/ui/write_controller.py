"""Posting from the dashboard: the app's side of the write path (ARCHITECTURE.md, the write side).

``n`` opens the action picker for what is selected (tui/ui/screens/forms); a submitted draft becomes
an outbox entry (saved before anything leaves) and is sent by a worker; a background worker then
follows queued entries to accepted / rejected and each refresh settles accepted ones whose effect
the state shows. The app mixes this in: its handlers own the UI state, workers only do I/O and
report back through messages.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.message import Message

from tui.untrusted import clean_line

if TYPE_CHECKING:
    from tui.actions.connection import WriteSide
    from tui.actions.outbox import Entry
    from tui.ui.screens.forms import ActionContext, Draft

__all__ = ["ActionsProgressed", "PostingMixin"]

FOLLOW_EVERY_S = 10.0  # the tracker's pace; each entry's own checks are paced by tracking.py


class ActionsProgressed(Message):
    """Entries of the outbox changed state (sent, accepted, rejected, applied…)."""

    def __init__(self, entries: list[Entry], counts: dict[str, int]) -> None:
        super().__init__()
        self.entries = entries
        self.counts = counts


class PostingMixin:
    """Mixed into :class:`tui.ui.app.RoostApp` (which provides ``service``, ``settings``,
    ``snapshot``, ``notify``, ``push_screen`` and the worker machinery)."""

    POSTING_BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "compose", "Post", id="app.compose"),
        Binding("o", "outbox", "Outbox", id="app.outbox", show=False),
        Binding("T", "token", "Type a token for this session", show=False, id="app.token"),
    ]

    _write: WriteSide | None = None
    write_problem: str | None = None
    _drafts: Any = None
    outbox_counts: dict[str, int] = {}  # noqa: RUF012 - replaced, never mutated

    # ------------------------------------------------------------------ the write side

    def write_side(self) -> WriteSide | None:
        """The issue client and outbox of this service, made on first use (None, with the reason
        in ``write_problem``, when posting is not possible: no repository, a refused URL)."""
        if self._write is None and self.write_problem is None:
            from tui.actions.connection import write_side
            from tui.actions.token import TokenError
            from tui.config import ConfigError

            service = getattr(self, "service", None)
            if service is None:
                self.write_problem = "this dashboard has no service to post to"
                return None
            try:
                self._write = write_side(service)
            except (TokenError, ConfigError) as exc:
                self.write_problem = str(exc)
        return self._write

    def draft_keeper(self) -> Any:
        if self._drafts is None:
            from tui.ui.screens.forms import FileDrafts, MemoryDrafts

            write = self.write_side()
            self._drafts = (
                FileDrafts(write.outbox.folder / "drafts") if write is not None else MemoryDrafts()
            )
        return self._drafts

    # ------------------------------------------------------------------ n: compose

    def action_compose(self) -> None:
        write = self.write_side()
        if write is not None and not write.client.has_token:
            # no token anywhere: ask for one first (escape composes anyway: the draft is kept
            # and the entry waits in the outbox until a token is given)
            self._ask_token(
                write,
                "No token was found (ROOST_TOKEN, GH_TOKEN, GITHUB_TOKEN, the config, gh).",
                then=self._compose_now,
            )
            return
        self._compose_now()

    def _compose_now(self) -> None:
        from tui.ui.screens.forms import open_action_flow

        write = self.write_side()
        catalog = None
        if write is not None:
            from tui.actions.connection import catalog_for

            catalog = catalog_for(self.settings)  # type: ignore[attr-defined]
        open_action_flow(
            self,  # type: ignore[arg-type]
            self._action_context(),
            self.snapshot,  # type: ignore[attr-defined]
            self.draft_keeper(),
            on_submit=self._submit_draft,
            login=self._login(),
            whoami=self._whoami_login if write is not None else None,
            catalog=catalog,
        )

    # ------------------------------------------------------------------ T: a token

    def action_token(self) -> None:
        write = self.write_side()
        if write is None:
            self.notify(  # type: ignore[attr-defined]
                f"Cannot post here: {self.write_problem}", severity="warning", markup=False
            )
            return
        self._ask_token(write, "")

    def _ask_token(self, write: WriteSide, why: str, then: Any = None) -> None:
        from tui.actions.token import origin_of
        from tui.ui.screens.forms.token_prompt import TokenPrompt

        scheme, host, port = origin_of(write.client.write_url)
        default = {"https": 443, "http": 80}.get(scheme)
        origin = f"{scheme}://{host}" + (f":{port}" if port != default else "")

        def answered(token: str | None) -> None:
            if token:
                from tui.config import Secret

                write.client.set_token(Secret(token))
                write.token_source = "typed in this session"
                self._tell_token_owner()
            if then is not None:
                then()

        self.push_screen(TokenPrompt(write.client.repo, origin, why=why), answered)  # type: ignore[attr-defined]

    @work(group="whoami", exclusive=True, exit_on_error=False, name="whoami")
    async def _tell_token_owner(self) -> None:
        """Say who the new token acts as and what it may do (``GET /user``)."""
        write = self.write_side()
        if write is None:
            return
        try:
            who = await write.client.whoami()
        except Exception as exc:  # told, never a crash: the token may be wrong
            self.notify(  # type: ignore[attr-defined]
                f"Token set for this session, but the platform did not accept it: "
                f"{clean_line(str(exc), 160)}",
                severity="warning",
                markup=False,
            )
            return
        self.notify(  # type: ignore[attr-defined]
            f"Token set for this session: acting as {clean_line(who.login, 40)} · "
            f"{clean_line(who.describe(write.client.repo), 120)}",
            title="Token",
            markup=False,
        )

    def _action_context(self) -> ActionContext:
        """What the person has selected: an agent, a channel or a proposal."""
        from tui.ui.screens.forms import ActionContext

        screen = self.screen  # type: ignore[attr-defined]
        tab = getattr(screen, "TAB_ID", None)
        if tab == "seeds":
            proposal = screen.selected_proposal()
            return (
                ActionContext("proposal", proposal.id) if proposal is not None else ActionContext()
            )
        kind = {"agents": "agent", "channels": "channel"}.get(tab or "")
        key = screen.copy_text() if kind is not None and hasattr(screen, "copy_text") else None
        return ActionContext(kind, key) if key else ActionContext()  # type: ignore[arg-type]

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
        write = self.write_side()
        if write is None:
            raise RuntimeError(f"cannot post: {self.write_problem}")
        entry = write.outbox.draft(draft.action, dict(draft.payload), nonce=draft.nonce)
        self.notify(  # type: ignore[attr-defined]
            f"{entry.action}: in the outbox, sending…", title="Outbox", markup=False
        )
        self._send_entry(entry.id)

    @work(group="send", exclusive=False, exit_on_error=False, name="send", description="send")
    async def _send_entry(self, entry_id: str) -> None:
        from tui.actions.outbox import EntryBusy

        write = self.write_side()
        if write is None:
            return
        try:
            entry = await write.outbox.send(entry_id, write.client)
        except EntryBusy:
            return  # another roost is sending it
        self._report_entries([entry])
        self.post_message(ActionsProgressed([entry], write.outbox.counts()))  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ tracking

    def start_tracking(self) -> None:
        """Begin following the outbox (called once the dashboard is up; off the start path)."""
        self._track()

    async def close_write_side(self) -> None:
        if self._write is not None:
            await self._write.aclose()

    @work(group="track", exclusive=True, exit_on_error=False, name="track", description="follow")
    async def _track(self) -> None:
        from tui.actions.tracking import follow_queued

        write = await asyncio.to_thread(self.write_side)  # may ask `gh` for a token: not on the UI
        if write is None:
            return
        changed = list(await write.outbox.resume_interrupted(write.client))
        self.post_message(ActionsProgressed(changed, write.outbox.counts()))  # type: ignore[attr-defined]
        changed = []
        while True:
            changed += await follow_queued(write.outbox, write.client)
            changed += await asyncio.to_thread(self._settle)
            if changed:
                self.post_message(ActionsProgressed(changed, write.outbox.counts()))  # type: ignore[attr-defined]
                changed = []
            await asyncio.sleep(FOLLOW_EVERY_S)

    def _settle(self) -> list[Entry]:
        from tui.actions.tracking import settle_applied

        write = self._write
        return settle_applied(write.outbox, self.snapshot) if write is not None else []  # type: ignore[attr-defined]

    def on_actions_progressed(self, message: ActionsProgressed) -> None:
        self._show_outbox_counts(message.counts)
        self._report_entries(message.entries)
        from tui.ui.screens.outbox import OutboxScreen, RefreshOutbox

        for screen in self.screen_stack:  # type: ignore[attr-defined]
            if isinstance(screen, OutboxScreen):
                screen.post_message(RefreshOutbox())

    def on_outbox_changed(self, message: Any) -> None:
        """The Outbox screen saw the folder change (tui/ui/screens/outbox)."""
        self._show_outbox_counts(message.counts)

    def _show_outbox_counts(self, counts: dict[str, int]) -> None:
        from tui.actions.outbox_report import status_summary

        self.outbox_counts = dict(counts)
        self._publish(outbox=status_summary(counts))  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ o: the outbox

    def action_outbox(self) -> None:
        from tui.ui.screens.outbox import OutboxScreen

        if isinstance(self.screen, OutboxScreen):  # type: ignore[attr-defined]
            return
        write = self.write_side()
        if write is None:
            self.notify(  # type: ignore[attr-defined]
                f"No outbox: {self.write_problem}", severity="warning", markup=False
            )
            return
        client = write.client if write.client.has_token else None
        self.push_screen(  # type: ignore[attr-defined]
            OutboxScreen(
                write.outbox,
                client,
                no_client_reason="no token: set ROOST_TOKEN, GH_TOKEN or GITHUB_TOKEN, or log in with gh",
            )
        )

    def _report_entries(self, entries: list[Entry]) -> None:
        for entry in entries:
            number = f" #{entry.number}" if getattr(entry, "number", None) else ""
            reason = f": {clean_line(entry.reason, 200)}" if getattr(entry, "reason", None) else ""
            severity = (
                "error" if entry.state in ("failed", "rejected", "unknown") else "information"
            )
            self.notify(  # type: ignore[attr-defined]
                f"{clean_line(entry.action, 40)}{number}: {entry.state}{reason}",
                title="Outbox",
                severity=severity,
                markup=False,
            )
