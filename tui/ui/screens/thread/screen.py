"""The thread of one post: pushed over the tab it was opened from (Posts, Trending), which it
gives back as it was on ``escape`` / ``backspace``.

Plain Textual: a header (title with its tag apart, author, channel, time, votes and
reactions), the :class:`~.view.ThreadView` with the body and the comments, a find line, a status
line (where this copy comes from and how old it is) and the key bar. The screen never reads
anything itself: the app hands it what the thread reader gives (a first copy at once, the
reader's answer later) and reads again on ``r``; ``c``, ``R`` and ``+`` ask the app for the
action's form (ARCHITECTURE.md, the conversation).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static

from tui.conversation.reading import ThreadRead
from tui.conversation.thread import Thread
from tui.network.models import as_utc
from tui.ui.stylesheets import sheets
from tui.ui.textual_compat import hide_bindings
from tui.ui.widgets.editors import OrderedInput
from tui.ui.widgets.key_bar import KeyBar
from tui.ui.widgets.text import age, copy, when
from tui.ui.widgets.vim import vim_bindings
from tui.untrusted import clean

from ..post_table import safe_url
from .view import ThreadView, reactions_text

if TYPE_CHECKING:
    from tui.actions.outbox import Entry
    from tui.ui.conversation import ConversationController

__all__ = ["ThreadScreen", "source_line"]

_REMOTE = ("rest", "graphql")


def source_line(read: ThreadRead | None, now: datetime) -> str:
    """Where the copy on view comes from and how old it is: "from the cache, 3m old", "from
    GitHub", "offline: copy of 2h ago"."""
    if read is None or read.thread is None:
        problem = f": {clean(read.problem)}" if read is not None and read.problem else ""
        return f"nothing of this thread could be read yet{problem}"
    source = read.thread.source
    old = age(read.fetched_at, now) if read.fetched_at is not None else None
    if source in _REMOTE:
        if read.fresh:
            text = "from GitHub"
        else:
            why = clean(read.problem) if read.problem else "offline"
            text = f"{why}: copy of {old} ago" if old else why
    elif source == "log":
        text = "what the list of posts says (no text)"
    else:
        text = "from the cache" + (f", {old} old" if old else "")
    if read.problem and (source not in _REMOTE or read.fresh):
        text += f" \u00b7 {clean(read.problem)}"
    return text


class ThreadScreen(Screen[None]):
    """Post ``number``'s thread. ``read``: what the reader had at once (None: nothing yet);
    ``stand_in``: what the tab's row knew, shown until the reader gives more."""

    CSS_PATH = sheets("thread")
    AUTO_FOCUS = "#thread-view"
    TAB_TITLE = "Thread"  # help's first section
    SHOWS_IN_HELP = True  # help lists this screen's keys, not those of the tab under it

    BINDINGS: ClassVar[list[BindingType]] = [
        *vim_bindings(
            {
                "down": "move(1)",
                "up": "move(-1)",
                "top": "ends(-1)",
                "bottom": "ends(1)",
                "half_down": "half_page(1)",
                "half_up": "half_page(-1)",
            },
            scope="thread",
            names={
                "down": "Next comment",
                "up": "Previous comment",
                "top": "The post",
                "bottom": "The last comment",
            },
        ),
        Binding("enter", "fold", "Fold replies", id="thread.fold"),
        Binding("space", "fold", "Fold replies", show=False, id="thread.fold2"),
        Binding("slash", "find", "Find", key_display="/", id="thread.find"),
        Binding("n", "next_match(1)", "Next match (after /)", show=False, id="thread.next_match"),
        Binding("N", "next_match(-1)", "Previous match", show=False, id="thread.prev_match"),
        Binding("c", "comment", "Comment", id="thread.comment"),
        Binding("R", "reply", "Reply", id="thread.reply"),
        Binding("plus", "react", "React", key_display="+", id="thread.react"),
        Binding("r", "reload", "Reload", id="thread.reload"),
        Binding("y", "copy", "Copy the link", show=False, id="thread.copy"),
        Binding("O", "open_link", "Open the link", show=False, id="thread.open"),
        Binding("escape", "back", "Back", id="thread.back"),
        Binding("backspace", "back", "Back", show=False, id="thread.back2"),
    ]

    @dataclass(eq=False)
    class ReloadRequested(Message):
        """Read the thread again from its source (``r``); handled by the app."""

        screen: ThreadScreen
        number: int

    @dataclass(eq=False)
    class AnswerRequested(Message):
        """Open ``action``'s form with ``prefill`` (``c``, ``R``, ``+``); handled by the app."""

        action: str
        prefill: dict[str, Any]

    @dataclass(eq=False)
    class OpenLinkRequested(Message):
        """Show ``url`` in full, then open it where a browser can (``O``); handled by the app."""

        url: str

    def __init__(
        self,
        number: int,
        read: ThreadRead | None,
        *,
        stand_in: Thread | None = None,
        clock: Callable[[], datetime],
        reading: bool = True,
        no_answers: str | None = None,
    ) -> None:
        super().__init__(id="thread-screen", classes="thread-screen")
        self.number = number
        self.clock = clock
        self.stand_in = stand_in
        self.read: ThreadRead | None = read if read is not None and read.thread else None
        self._problem = read.problem if read is not None else None
        self.reading = reading  # the reader's answer is on its way
        #: Why c, R and + post nothing here (read-only, a guest over SSH), or None.
        self.no_answers = no_answers
        if no_answers is not None:  # not offered in the footer; pressed, they say why
            hide_bindings(self, ("thread.comment", "thread.reply", "thread.react"))
        self.limit_note: str | None = None
        self.outbox: tuple[Entry, ...] = ()  # what was sent from here (some on this post)
        self.login: str | None = None  # whom the token acts as
        self._find: Input | None = None
        self._mounted = False  # set in on_mount (Textual's is_mounted comes after it)
        self._meta: list[Content] = []  # the parts of the line under the title

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(Content(""), id="thread-title", markup=False)
        yield Static(Content(""), id="thread-meta", markup=False)
        yield ThreadView(id="thread-view")
        yield Static(Content(""), id="thread-status", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self._mounted = True
        self._show(keep=False)

    @property
    def view(self) -> ThreadView:
        return self.query_one(ThreadView)

    @property
    def thread(self) -> Thread | None:
        """The thread on view, a comment sent from here shown in it until it is seen."""
        thread = self.read.thread if self.read is not None else self.stand_in
        if thread is None or not self.outbox:
            return thread
        from tui.actions.thread_answers import show_pending  # deferred: off the start path

        read_at = self.read.fetched_at if self.read is not None else None
        return show_pending(thread, self.outbox, login=self.login, read_at=read_at)

    # ------------------------------------------------------------------ what the app hands in

    def take_read(
        self, read: ThreadRead, *, first: bool = False, limit_note: str | None = None
    ) -> None:
        """A copy from the reader: ``first``, what it had at once (it replaces only a copy no
        better than itself); otherwise its answer, which ends "reading…"."""
        if not first:
            self.limit_note = limit_note
            self.reading = False
            self._problem = read.problem
        if read.thread is not None and (not first or _takes(self.read, read)):
            same = self.read is not None and self.read.thread == read.thread
            self.read = read
            if same:  # the text on view stands: only where it comes from may have changed
                self._show_status()
                return
        self._show(keep=True)

    def take_pending(self, entries: Sequence[Entry], login: str | None = None) -> None:
        """The outbox as it is now: what was sent from here on this post and is not seen in
        the thread yet is shown in it, marked pending."""
        entries = tuple(entries)
        if (entries, login) != (self.outbox, self.login):
            self.outbox, self.login = entries, login
            self._show(keep=True)

    def on_conversation_controller_thread_arrived(
        self, message: ConversationController.ThreadArrived
    ) -> None:
        message.stop()
        self.take_read(message.read, first=message.first, limit_note=message.limit_note)

    def on_conversation_controller_pending_found(
        self, message: ConversationController.PendingFound
    ) -> None:
        message.stop()
        self.take_pending(message.entries, message.login)

    def _show(self, *, keep: bool) -> None:
        if not self._mounted:
            return
        now = self.clock()
        thread = self.thread
        self.query_one("#thread-title", Static).update(_title(thread, self.number))
        self._meta = _meta(thread, now)
        self._draw_meta()
        empty = "reading\u2026" if self.reading else "Nothing of this thread could be read."
        view = self.view
        if keep and view.thread is not None and thread is not None:
            view.show(thread, now)
        else:
            view.show(thread, now, empty=empty)
        self._show_status()

    def _draw_meta(self) -> None:
        meta = self.query_one("#thread-meta", Static)
        width = meta.content_region.width or self.app.size.width - 2
        meta.update(packed(self._meta, max(20, width)))

    def on_resize(self) -> None:
        if self._mounted:
            self._draw_meta()

    def _show_status(self) -> None:
        now = self.clock()
        read = self.read
        if read is None and self.stand_in is not None:
            text = "what the list of posts says (no text)"
            if self._problem:
                text += f" \u00b7 {clean(self._problem)}"
        else:
            shown = (
                read if read is not None else ThreadRead(self.number, None, problem=self._problem)
            )
            text = source_line(shown, now)
        parts = [Content(text)]
        if self.reading:
            parts.append(Content("reading from the source\u2026").stylize("$text-muted"))
        if self.limit_note:
            parts.append(Content(clean(self.limit_note)).stylize("$text-warning"))
        view = self.view
        if view.find_query.strip():
            if view.matches:
                parts.append(Content(f"find {view.current + 1}/{len(view.matches)} \u00b7 n/N"))
            else:
                parts.append(Content("find: no match"))
        self.query_one("#thread-status", Static).update(Content(" \u00b7 ").join(parts))

    # ------------------------------------------------------------------ moving

    def action_move(self, step: int) -> None:
        self.view.move(step)

    def action_ends(self, direction: int) -> None:
        owners = self.view.owners()
        if owners:
            self.view.select(owners[-1] if direction > 0 else owners[0])

    def action_half_page(self, direction: int) -> None:
        view = self.view
        step = max(1, view.scrollable_content_region.height // 2)
        view.scroll_relative(y=step * direction, animate=False, immediate=True)

    def action_fold(self) -> None:
        view = self.view
        if not view.fold() and view.selected_comment is not None:
            self.notify("No replies under this comment to fold", markup=False)

    # ------------------------------------------------------------------ find

    @property
    def find_input(self) -> Input:
        field = self._find
        if field is None:
            field = self._find = OrderedInput(
                placeholder="find in this thread…",
                id="thread-find",
                compact=True,
                select_on_focus=False,
            )
            if self.app.is_headless:
                field.cursor_blink = False  # stable snapshots
            self.mount(field, before=self.query_one("#thread-status"))
        return field

    def action_find(self) -> None:
        field = self.find_input
        field.display = True
        field.cursor_position = len(field.value)
        self.set_focus(field)

    @on(Input.Changed, "#thread-find")
    def _find_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.view.find(event.value)

    @on(Input.Submitted, "#thread-find")
    def _find_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value.strip():
            self._end_find()
        self.set_focus(self.view)

    def on_thread_view_found(self, event: ThreadView.Found) -> None:
        event.stop()
        self._show_status()

    def on_thread_view_selected(self, event: ThreadView.Selected) -> None:
        event.stop()

    def _end_find(self) -> None:
        if self._find is not None:
            self._find.value = ""
            self._find.display = False
        self.view.find("")
        self._show_status()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``n`` / ``N`` find the next match only while a find is on: otherwise ``n`` goes
        on to the app (the action picker)."""
        if action == "next_match":
            return bool(self.query_one(ThreadView).find_query.strip()) if self.is_mounted else False
        return True

    def action_next_match(self, step: int) -> None:
        self.view.next_match(step)

    async def on_key(self, event: events.Key) -> None:
        """A printable key that bubbles up while the find line has the focus is typed there
        (a burst like "/word" arrives before "/" has moved the focus)."""
        field = self._find
        if field is not None and self.focused is field and event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            field.insert_text_at_cursor(event.character)

    # ------------------------------------------------------------------ links

    def link(self) -> str | None:
        """The selected comment's link, else the post's (whole, cleaned; None: none)."""
        thread = self.thread
        comment = self.view.selected_comment
        if comment is not None and comment.url:
            return comment.url
        return thread.url if thread is not None else None

    def action_copy(self) -> None:
        url = self.link()
        if not url:
            self.notify("No link to copy here", severity="warning", markup=False)
            return
        copy(self, url)

    def action_open_link(self) -> None:
        url = self.link()
        if url is None or safe_url(url) is None:
            why = "no link" if url is None else "not an http(s) link"
            self.notify(f"Nothing to open: {why}", severity="warning", markup=False)
            return
        self.post_message(self.OpenLinkRequested(url))

    # ------------------------------------------------------------------ reading again

    def action_reload(self) -> None:
        """``r``: ask the source again (the cache's copy is not enough)."""
        self.reading = True
        self._show_status()
        self.post_message(self.ReloadRequested(self, self.number))

    def action_back(self) -> None:
        if self._find is not None and (self.focused is self._find or self.view.find_query):
            self._end_find()
            self.set_focus(self.view)
            return
        self.dismiss(None)

    # ------------------------------------------------------------------ answering

    def posting_context(self) -> Any:
        """``n`` here: the actions on this post (comment, flag)."""
        from tui.actions.action_context import ActionContext  # deferred: off the start path

        return ActionContext("post", str(self.number))

    def _refused(self) -> bool:
        if self.no_answers is not None:
            self.notify(self.no_answers, severity="warning", markup=False)
        return self.no_answers is not None

    def action_comment(self) -> None:
        if self._refused():
            return
        self.post_message(self.AnswerRequested("comment", {"discussion_number": str(self.number)}))

    def action_reply(self) -> None:
        if self._refused():
            return
        comment = self.view.selected_comment
        if comment is None:  # the post is selected: a reply to it is a comment
            self.action_comment()
            return
        if comment.pending:
            self.notify("This comment is not seen in the thread yet", severity="warning")
            return
        if comment.node_id is None:
            self.notify(
                "This copy does not name the comment to GitHub: r reads the thread from GitHub, "
                "then R replies",
                severity="warning",
                markup=False,
            )
            return
        prefill = {"discussion_number": str(self.number), "reply_to": comment.node_id}
        self.post_message(self.AnswerRequested("reply", prefill))

    def action_react(self) -> None:
        if self._refused():
            return
        comment = self.view.selected_comment
        if comment is not None and (comment.node_id is None or comment.pending):
            self.notify(
                "This copy does not name the comment to GitHub: r reads the thread from GitHub, "
                "then + reacts",
                severity="warning",
                markup=False,
            )
            return
        from .reactions import ReactionPicker  # here, not at the top: reactions imports this module

        subject = comment.node_id if comment is not None else ""
        what = "this comment" if comment is not None else "the post"

        def picked(content: str | None) -> None:
            if content:
                prefill = {
                    "discussion_number": str(self.number),
                    "subject": subject or "",
                    "content": content,
                }
                self.post_message(self.AnswerRequested("react", prefill))

        self.app.push_screen(ReactionPicker(what), picked)


def _takes(current: ThreadRead | None, new: ThreadRead) -> bool:
    """Whether a first copy (from the published files) replaces the copy on view."""
    if current is None or current.thread is None:
        return True
    return current.thread.source not in _REMOTE


def _title(thread: Thread | None, number: int) -> Content:
    if thread is None:
        return Content(f"#{number}").stylize("bold")
    title = Content(clean(thread.title) or f"#{number}").stylize("bold")
    if thread.tag:
        return Content.assemble((f"[{clean(thread.tag)}]", "bold $text-accent"), " ", title)
    return title


def _meta(thread: Thread | None, now: datetime) -> list[Content]:
    """The parts of the line under the title: author, channel, time, votes, reactions, vote
    comments, number."""
    if thread is None:
        return []
    parts = [Content.assemble(("by ", "$text-muted"), (clean(thread.author), "bold"))]
    if thread.channel:
        parts.append(Content(f"#{clean(thread.channel)}"))
    moment = as_utc(thread.created_at) if thread.created_at else None
    if moment is not None:
        parts.append(Content(when(moment, now)))
    parts.append(Content(f"\u25b2 {thread.upvotes:,} \u25bc {thread.downvotes:,}"))
    reactions = reactions_text(thread.reactions)
    if reactions:
        parts.append(Content(reactions))
    if thread.votes:
        parts.append(Content(f"{thread.votes:,} vote{'s' if thread.votes != 1 else ''}"))
    parts.append(Content(f"#{thread.number}").stylize("$text-muted"))
    return parts


def packed(parts: Sequence[Content], width: int, separator: str = " \u00b7 ") -> Content:
    """``parts`` joined by ``separator``, a new line started where the next part would not
    fit in ``width`` (a part is never split between lines unless it is wider than a line)."""
    lines: list[Content] = []
    line = Content("")
    for part in parts:
        if line.cell_length and line.cell_length + len(separator) + part.cell_length > width:
            lines.append(line)
            line = part
        else:
            line = line + separator + part if line.cell_length else part
    if line.cell_length:
        lines.append(line)
    return Content("\n").join(lines)
