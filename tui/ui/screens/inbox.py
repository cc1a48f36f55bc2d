"""The inbox (``i``): what happened to the agent roost is set to, newest first, over the tabs.

Its rows are the agent's notifications (``notifications.json``) and the pokes aimed at it
(``pokes.json``), one row per thing (:func:`tui.pulse.inbox.inbox_for`); ``●`` marks what this
person has not read here. "Read" is kept on this machine, per service (the deployment cannot be
told): a row is read once its detail or its thread is opened, ``R`` marks them all. The screen
is a table like the tabs' (filter, sort, vim keys, ``J``), so it is a :class:`TableScreen`
pushed over the tab it was opened from; the app hands it the agent and the read state
(attributes down) and hears from it when something was read (:class:`InboxScreen.ItemsRead`).

Its files are asked for when it is first shown (``StateScreen.FilesWanted``), never at start.
Without an agent the table says how to set one; a deployment that publishes neither file is
told apart from one whose files are still loading.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message

from tui.network.state_files import NOTIFICATIONS, POKES
from tui.network.store import Snapshot
from tui.pulse.inbox import InboxItem, ReadState, inbox_for
from tui.ui.table.virtual_table import Column, LazyRow
from tui.ui.widgets.detail_pane import Link
from tui.ui.widgets.text import age_seconds, epoch_seconds, labelled, stamp
from tui.untrusted import clean, truncate

from .base import Place
from .post_table import post_links, safe_url
from .table_screen import TableScreen

if TYPE_CHECKING:
    from tui.actions.action_context import ActionContext

__all__ = ["INBOX_FILES", "NO_AGENT", "InboxRow", "InboxScreen"]

INBOX_FILES = (NOTIFICATIONS, POKES)
UNREAD_MARK = "\u25cf"  # ●

#: What the inbox says when roost does not know whose inbox to show.
NO_AGENT = (
    "No agent is set, so roost does not know whose inbox to show. Set one with "
    'agent = "your-agent-id" in the config file (or in a profile), the environment variable '
    "ROOST_AGENT=your-agent-id, or roost --agent your-agent-id."
)
NOTHING_PUBLISHED = (
    f"This deployment publishes neither {NOTIFICATIONS} nor {POKES}: there is no inbox to "
    "read here."
)

# 80 columns: the text is the free column and yields first; "post" (the Discussion a poke pin
# names) is dropped before the text is cut short
COLUMNS = (
    Column("unread", "", 1),  # ● on what is unread
    Column("age", "age", 4, align="right"),
    Column("type", "type", 6, max_width=16),
    Column("from", "from", 12, max_width=22),
    Column("text", "text", 24, flex=True),
    Column("re", "post", 6, optional=True),  # the post it names
)


@dataclass(frozen=True, slots=True)
class InboxContext:
    """What the rows of one build share: "now" (POSIX seconds) and the read state."""

    now: float
    read: ReadState


class InboxRow(LazyRow):
    """One item of the inbox."""

    __slots__ = ()
    model: InboxItem
    context: InboxContext

    def make_cells(self) -> tuple[str | Text, ...]:
        item = self.model
        when = epoch_seconds(item.timestamp)
        unread = _unread(item, self.context.read)
        return (
            Text(UNREAD_MARK, style="bold") if unread else "",
            age_seconds(None if when is None else self.context.now - when),
            item.type,
            item.sender or "",
            item.text,
            f"#{item.discussion}" if item.discussion is not None else "",
        )

    def make_sort_values(self) -> tuple[Any, ...]:
        return tuple(value(self) for value in _SORT_VALUES)

    def make_haystack(self) -> str:
        """What ``/`` searches: type, sender, text, place and the Discussion's number."""
        item = self.model
        parts = (item.type, item.sender or "", item.text, item.place or "")
        number = f"#{item.discussion}" if item.discussion is not None else ""
        return " ".join((*parts, number)).lower()


def _unread(item: InboxItem, read: ReadState) -> bool:
    return item.unread and not read.is_read(item.key)


def _when_sort(row: InboxRow) -> float | None:
    when = epoch_seconds(row.model.timestamp)
    return -when if when is not None else None  # the youngest first


_SORT_VALUES: tuple[Callable[[InboxRow], Any], ...] = (
    lambda row: 0 if _unread(row.model, row.context.read) else 1,  # unread first
    _when_sort,
    lambda row: row.model.type.lower(),
    lambda row: (row.model.sender or "").lower(),
    lambda row: row.model.text.lower(),
    lambda row: row.model.discussion,
)
assert len(_SORT_VALUES) == len(COLUMNS)


def _line(label: str, value: Any) -> Content:
    return labelled(label, value, 9)


class InboxScreen(TableScreen):
    """The inbox of ``agent`` (None: not set). ``read`` is the service's read state, kept by
    the app; this screen marks items read in it and says so (:class:`ItemsRead`)."""

    TAB_ID: ClassVar[str] = "inbox"
    TAB_TITLE: ClassVar[str] = "Inbox"
    FILES: ClassVar[frozenset[str]] = frozenset(INBOX_FILES)
    COLUMNS = COLUMNS
    NOUN = "items"
    SOURCE = NOTIFICATIONS
    ROW = InboxRow
    POSTING_KIND = "agent"  # `n` on an item: actions on its sender (poke back, follow)
    DETAIL_ON_JUMP = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open: its thread, else its detail", show=False, id="inbox.open"),
        Binding("t", "thread", "Read the thread it names", show=False, id="inbox.thread"),
        Binding("d", "detail", "Detail", show=False, id="inbox.detail"),
        Binding("a", "sender", "Go to the sender", show=False, id="inbox.sender"),
        Binding("R", "all_read", "Mark all read", id="inbox.all_read"),
        Binding("i", "close", "Close the inbox", show=False, id="inbox.close"),
    ]

    @dataclass(eq=False)
    class ItemsRead(Message):
        """Items were marked read in the read state (the app updates the unread count)."""

        count: int

    def __init__(self, agent: str | None, read: ReadState) -> None:
        super().__init__()
        self.agent = agent
        self.read = read

    def on_mount(self) -> None:
        if self.agent:  # the first time the inbox is shown, never at roost's start
            self.post_message(self.FilesWanted(INBOX_FILES))

    # ------------------------------------------------------------------ rows

    def models(self, snapshot: Snapshot) -> Mapping[str, InboxItem] | None:
        if not self.agent:
            return {}
        if snapshot.notifications is None and snapshot.pokes is None:
            return None
        return {item.key: item for item in inbox_for(self.agent, snapshot, self.read)}

    def prepare(self, snapshot: Snapshot) -> InboxContext:
        return InboxContext(self.clock().timestamp(), self.read)

    def retimed_context(self, context: Any) -> InboxContext:
        return InboxContext(self.clock().timestamp(), self.read)

    def fingerprints(self, models: Mapping[str, Any], context: Any) -> Mapping[str, Any]:
        """An item's key is made from its fields: only new keys are news (marked for a cycle),
        not an item read since."""
        return dict.fromkeys(models, True)

    def raw_model(self, model: InboxItem) -> Any:
        """``J``: the notification or poke as the deployment published it."""
        return model.model

    @property
    def items(self) -> list[InboxItem]:
        return list(self._models.values())

    def unread_count(self) -> int:
        return sum(1 for item in self._models.values() if _unread(item, self.read))

    def _absent(self, name: str) -> bool:
        return self.snapshot.file(name).integrity == "absent"

    def show_empty_state(self) -> None:
        snapshot = self.snapshot
        if not self.agent:
            message = NO_AGENT
        elif self.building:
            message = "loading\u2026"
        elif self._absent(NOTIFICATIONS) and self._absent(POKES):
            message = NOTHING_PUBLISHED
        elif any(snapshot.file(name).loaded for name in INBOX_FILES):
            message = f"Nothing in {clean(self.agent)}'s inbox."
        else:
            state = snapshot.file(NOTIFICATIONS)
            if state.integrity == "missing" and not state.loaded:
                message = f"loading {NOTIFICATIONS} and {POKES}\u2026"
            else:
                message = self.not_loaded_text(NOTIFICATIONS)
        self.table.set_empty_message(message)

    def summary_extra(self) -> Content:
        if not self.agent:
            return Content("no agent set").stylize("$text-warning")
        parts = [Content.assemble("inbox of ", (truncate(clean(self.agent), 40), "bold"))]
        unread = self.unread_count()
        if unread:
            parts.append(Content(f"{unread:,} unread").stylize("$text-warning bold"))
        for name in INBOX_FILES:
            if self._absent(name) and not all(self._absent(n) for n in INBOX_FILES):
                parts.append(Content(f"{name} is not published here").stylize("$text-muted"))
        return Content(" \u00b7 ").join(parts)

    # ------------------------------------------------------------------ read

    def mark_read(self, *items: InboxItem) -> None:
        """Remember ``items`` as read; their marks go at once."""
        new = [item.key for item in items if _unread(item, self.read)]
        if not new:
            return
        self.read.mark_read(new)
        self._redraw_marks()
        self.post_message(self.ItemsRead(len(new)))

    def action_all_read(self) -> None:
        """``R``: every item of this inbox marked read."""
        unread = [item for item in self._models.values() if _unread(item, self.read)]
        if not unread:
            self.notify("Nothing unread here", markup=False)
            return
        self.read.mark_all(unread)
        self._redraw_marks()
        self.post_message(self.ItemsRead(len(unread)))
        self.notify(f"Marked {len(unread):,} read", markup=False)

    def _redraw_marks(self) -> None:
        rows = self.rows
        if hasattr(rows, "retime"):  # the cells are made again from the read state
            rows.retime(self._row_context)
        self.table.redraw_rows()
        self.update_summary()

    # ------------------------------------------------------------------ the selected item

    def current_item(self) -> InboxItem | None:
        key = self.detail.key if self.detail_open else self.table.cursor_key
        return self._models.get(key) if key is not None else None

    def row_chosen(self, key: str) -> None:
        item = self._models.get(key)
        if item is not None and item.discussion is not None:
            self._read_thread(item)
        else:
            self.open_detail(key)

    def action_open(self) -> None:
        """``enter`` from the detail pane: the thread the item names, else nothing more."""
        item = self.current_item()
        if item is not None and item.discussion is not None:
            self._read_thread(item)

    def action_thread(self) -> None:
        item = self.current_item()
        if item is None:
            return
        if item.discussion is None:
            self.notify("This item names no discussion", severity="warning", markup=False)
            return
        self._read_thread(item)

    def _read_thread(self, item: InboxItem) -> None:
        assert item.discussion is not None
        self.mark_read(item)
        self.open_thread(item.discussion)

    def action_detail(self) -> None:
        if self.detail_open:
            self.close_detail()
        else:
            self.open_detail(self.table.cursor_key)

    def action_sender(self) -> None:
        """``a``: the sender on the Agents tab."""
        item = self.current_item()
        if item is None or not item.sender:
            return
        self.mark_read(item)
        self.jump_to("agents", item.sender)

    def action_close(self) -> None:
        self.dismiss()

    def posting_context(self) -> ActionContext:
        """``n`` on an item: the actions on its sender (poke back, follow, …)."""
        from tui.actions.action_context import ActionContext  # deferred: off the start path

        item = self.current_item()
        if item is None or not item.sender:
            return ActionContext()
        return ActionContext("agent", item.sender)

    def copy_text(self) -> str | None:
        item = self.current_item()
        if item is None:
            return None
        return safe_url(item.url) or item.text or None

    def link_url(self) -> str | None:
        item = self.current_item()
        return safe_url(item.url) if item is not None else None

    def back_more(self) -> None:
        """``escape`` with nothing open: back to the tab under the inbox."""
        self.dismiss()

    def place(self) -> Place:
        where = super().place()
        return Place(self.TAB_ID, where.key, where.filter, where.detail_open)

    # ------------------------------------------------------------------ detail

    def detail_view(self, key: str, model: InboxItem) -> tuple[Content, list[Link]]:
        """The whole item; showing it is reading it."""
        self.mark_read(model)
        sender = model.sender or "\u2014"
        lines = [
            Content.assemble(
                (truncate(clean(model.type), 40) or "notification", "bold $text-accent"),
                " from ",
                (truncate(clean(sender), 80), "bold"),
            ),
            Content(""),
            _line("to", self.agent or "\u2014"),
            _line("when", stamp(model.timestamp, self.clock())),
        ]
        if model.resolved is not None:
            answered = "yes" if model.resolved else "not yet"
            resolved_at = getattr(model.model, "resolved_at", None)
            if model.resolved and resolved_at:
                answered += f", {stamp(resolved_at, self.clock())}"
            lines.append(_line("answered", answered))
        if model.place:
            lines.append(_line("place", truncate(clean(model.place), 300)))
        if model.discussion is not None:
            lines.append(_line("thread", f"#{model.discussion} (enter or t reads it)"))
        if model.url:
            lines.append(_line("url", truncate(clean(model.url), 400)))
        for name, value in getattr(model.model, "extras", {}).items():
            lines.append(_line(truncate(clean(name), 9), truncate(clean(value), 500)))
        lines.append(Content(""))
        lines.append(Content(truncate(clean(model.text, multiline=True), 20_000)))
        lines.append(Content(""))
        lines.append(
            Content("a the sender · n answer · R all read · J raw JSON").stylize("$text-muted")
        )
        links = post_links(model.sender or "", "")
        if model.discussion is not None:
            label = Content.assemble(("post ", "$text-muted"), f"#{model.discussion}")
            links.append(Link(label, "posts", f"#{model.discussion}"))
        return Content("\n").join(lines), links
