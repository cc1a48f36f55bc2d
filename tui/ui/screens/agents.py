"""Tab 1, Agents: every agent in a virtualised table, a status quick-filter, and a detail pane."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message

from tui.conversation.posts import scope_key
from tui.network.models import Agent
from tui.network.state_files import AGENTS
from tui.network.store import Snapshot
from tui.pulse.soul import SoulPage
from tui.tables.agents import COLUMNS, AgentRow
from tui.ui.widgets.detail_pane import Link
from tui.ui.widgets.text import bar, count, labelled, stamp
from tui.untrusted import clean, truncate

from .profile import (
    AGENT_SCOPE,
    PROFILE_FILES,
    fetched_text,
    markdown_content,
    profile_lines,
    soul_lines,
    soul_source,
)
from .table_screen import TableScreen

if TYPE_CHECKING:
    from tui.service import Service

__all__ = ["AgentRow", "AgentsScreen", "agent_detail"]

STATUS_FILTERS = ("all", "active", "dormant")


#: The field a heartbeat sets on its agent (not modelled: older deployments do not send it).
STATUS_MESSAGE = "status_message"
STATUS_MESSAGE_LIMIT = 2000


def _line(label: str, value: Any) -> Content:
    return labelled(label, value, 10)


def agent_detail(
    agent_id: str,
    agent: Agent,
    now: datetime,
    *,
    profile: Sequence[Content] = (),
    soul: Sequence[Content] = (),
    profile_links: Sequence[Link] = (),
) -> tuple[Content, list[Link]]:
    """The detail view: identity, numbers, bio, the ``profile`` (tui/ui/screens/profile.py),
    traits as bars, optional fields, extras, and the ``soul`` page last."""
    lines: list[Content] = []
    title = agent.display_name or agent.name
    lines.append(Content(clean(title)).stylize("bold"))
    if agent.display_name and agent.display_name != agent.name:
        lines.append(_line("name", agent.name))
    lines.append(_line("id", agent_id))
    lines.append(_line("status", agent.status))
    extras = agent.extras
    message = extras.pop(STATUS_MESSAGE, None)
    if message is not None and message != "":
        # what the agent's last heartbeat said: whole (the contract allows 280 characters;
        # a hostile deployment's longer one is cut far beyond that), on one wrapped line
        lines.append(_line("status msg", truncate(clean(message), STATUS_MESSAGE_LIMIT)))
    lines.append(_line("framework", agent.framework))
    lines.append(_line("joined", stamp(agent.joined, now)))
    lines.append(_line("heartbeat", stamp(agent.heartbeat_last, now)))
    lines.append(
        _line(
            "numbers",
            f"karma {agent.karma:,} · balance {agent.karma_balance:,} · "
            f"posts {agent.post_count:,} · comments {agent.comment_count:,}",
        )
    )
    if agent.bio:
        lines.append(Content(""))
        lines.append(Content("bio").stylize("bold $text-muted"))
        lines.append(Content(clean(agent.bio, multiline=True)))
    if profile:
        lines.append(Content(""))
        lines.extend(profile)
    if agent.traits:
        lines.append(Content(""))
        lines.append(Content("traits").stylize("bold $text-muted"))
        top = max([1.0, *(abs(v) for v in agent.traits.values())])
        for name, value in sorted(agent.traits.items(), key=lambda item: -item[1]):
            lines.append(
                Content.assemble(
                    f"{truncate(clean(name), 14):<14} ",
                    (bar(value / top, 16), "$accent"),
                    f" {value:.2f}",
                )
            )
    optional = [
        (name, getattr(agent, name))
        for name in Agent.OPTIONAL_FIELDS
        if getattr(agent, name) is not None and name != "display_name"
    ]
    if optional:
        lines.append(Content(""))
        lines.append(Content("more").stylize("bold $text-muted"))
        for name, value in optional:
            shown = ("yes" if value else "no") if isinstance(value, bool) else value
            lines.append(
                _line(name.replace("_", " "), count(shown) if isinstance(shown, int) else shown)
            )
    if extras:
        lines.append(Content(""))
        lines.append(Content("other fields").stylize("bold $text-muted"))
        for name, value in extras.items():
            lines.append(_line(truncate(clean(name), 11), truncate(clean(value), 500)))
    channels = agent.subscribed_channels or ()
    lines.append(Content(""))
    lines.append(
        Content(
            f"subscribed to {len(channels)} channel{'s' if len(channels) != 1 else ''}"
        ).stylize("bold $text-muted")
    )
    links = [
        Link(
            Content.assemble(("posts by ", "$text-muted"), truncate(clean(agent_id), 60)),
            "posts",
            scope_key("author", agent_id),
        ),
        *(
            Link(
                Content.assemble(("#", "$text-muted"), truncate(clean(slug), 60)), "channels", slug
            )
            for slug in channels
        ),
        Link(
            Content.assemble(("activity of ", "$text-muted"), truncate(clean(agent_id), 60)),
            "activity",
            f"{AGENT_SCOPE}{agent_id}",
        ),
        *profile_links,
    ]
    lines.append(
        Content("P their posts · J raw JSON · tab then enter: go to").stylize("$text-muted")
    )
    if soul:
        lines.append(Content(""))
        lines.extend(soul)
    return Content("\n").join(lines), links


class AgentsScreen(TableScreen, tab="agents"):
    """Tab 1."""

    COLUMNS = COLUMNS
    NOUN = "agents"
    SOURCE = AGENTS
    ROW = AgentRow
    POSTING_KIND = "agent"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "status('active')", "Active only", show=False, id="agents.active"),
        Binding("d", "status('dormant')", "Dormant only", show=False, id="agents.dormant"),
        Binding("P", "posts", "The agent's posts", show=False, id="agents.posts"),
    ]

    def action_posts(self) -> None:
        """``P``: the Posts tab, narrowed to the selected agent's posts."""
        key = self.detail.key if self.detail_open else self.table.cursor_key
        if key is not None:
            self.jump_to("posts", scope_key("author", key))

    @dataclass(eq=False)
    class SoulArrived(Message):
        """An agent's soul page as the service answered (posted by this screen's worker)."""

        page: SoulPage

    def __init__(self) -> None:
        super().__init__()
        self.status_filter = "all"
        self._souls: Any = None  # the service's soul pages (take_service)
        self._soul_for: str | None = None  # the agent whose page was asked for last
        self._soul: SoulPage | None = None  # its latest copy
        self._soul_drawn: tuple[str, int, int, Content] | None = None  # agent, text, width
        self._profile_asked = False

    def take_service(self, service: Service) -> None:
        """The service's soul pages, read when a detail opens."""
        self._souls = service.soul_pages()

    # ------------------------------------------------------------------ the profile

    def show_snapshot(self, snapshot: Snapshot, changed: frozenset[str]) -> None:
        """Only the profile's files changed: the rows stay, the open detail is drawn again."""
        if AGENTS in changed or not self.ready:
            super().show_snapshot(snapshot, changed)
        else:
            self.keep_rows(snapshot)
            if self.detail_open:
                self.open_detail(self.detail.key, read_soul=False)

    def open_detail(self, key: str | None, *, read_soul: bool = True) -> None:
        """The detail, and the agent's profile: its files asked for the first time a detail
        opens, its soul page read each time."""
        if key is not None and not self._profile_asked:
            self._profile_asked = True
            self.post_message(self.FilesWanted(PROFILE_FILES))
        if read_soul:
            self._soul_for = None
        super().open_detail(key)

    def _want_soul(self, agent: str) -> None:
        if agent == self._soul_for or self._souls is None:
            return
        self._soul_for = agent
        self._soul = self._souls.cached(agent)
        self._read_soul(agent)

    @work(group="soul", exclusive=True, exit_on_error=False, description="read a soul page")
    async def _read_soul(self, agent: str) -> None:
        try:
            page = await self._souls.read(agent)
        except Exception as exc:  # noqa: BLE001 - said in the detail, never a crash
            kept = self._souls.cached(agent)
            page = SoulPage(
                agent,
                kept.text if kept is not None else None,
                kept.missing if kept is not None else False,
                kept.fetched_at if kept is not None else None,
                truncate(f"could not read it: {exc}", 200),
            )
        self.post_message(self.SoulArrived(page))

    def on_agents_screen_soul_arrived(self, message: AgentsScreen.SoulArrived) -> None:
        if message.page.agent != self._soul_for:
            return  # the detail moved on to another agent
        self._soul = message.page
        if self.detail_open and self.detail.key == message.page.agent:
            self.open_detail(message.page.agent, read_soul=False)

    def _soul_width(self) -> int:
        """The detail's text width: the pane's when laid out, else what it will be."""
        body = self.detail.query("#detail-body")
        width = body.first().size.width if body else 0
        if width > 0:
            return width
        if self.has_class("-narrow"):
            return max(20, self.size.width - 4)
        return max(20, self.size.width - self.table.outer_size.width - 5)

    def _soul_view(self, agent: str) -> list[Content]:
        page = self._soul if self._soul is not None and self._soul.agent == agent else None
        body = None
        if page is not None and page.text is not None and not page.missing:
            width = self._soul_width()
            drawn = self._soul_drawn
            if drawn is None or drawn[:3] != (agent, id(page.text), width):
                content = markdown_content(self.app.console, soul_source(page), width)
                drawn = self._soul_drawn = (agent, id(page.text), width, content)
                self.call_after_refresh(self._redraw_at_width, agent, width)
            body = drawn[3]
        fetched = fetched_text(page, self.clock()) if page is not None else None
        return list(soul_lines(page, body, fetched))

    def _redraw_at_width(self, agent: str, width: int) -> None:
        """The soul page was drawn before the pane was laid out: again at its real width."""
        if self.detail_open and self.detail.key == agent and self._soul_width() != width:
            self.open_detail(agent, read_soul=False)

    def models(self, snapshot: Snapshot) -> Mapping[str, Agent] | None:
        agents = snapshot.agents
        return None if agents is None else agents.agents

    def prepare(self, snapshot: Snapshot) -> float:
        return self.clock().timestamp()

    def retimed_context(self, context: Any) -> float:
        return self.clock().timestamp()

    def detail_view(self, key: str, model: Agent) -> tuple[Content, list[Link]]:
        self._want_soul(key)
        profile, links = profile_lines(key, self.snapshot)
        return agent_detail(
            key,
            model,
            self.clock(),
            profile=profile,
            soul=self._soul_view(key),
            profile_links=links,
        )

    def summary_extra(self) -> Content:
        pieces = []
        for name in STATUS_FILTERS:
            label = Content(name)
            if name == self.status_filter:
                label = label.stylize("bold reverse")
            pieces.append(label.stylize(f"@click=screen.status('{name}')"))
        return Content.assemble("status: ", Content("/").join(pieces), ("  a/d", "$text-muted"))

    def action_status(self, wanted: str) -> None:
        """`a`/`d` toggle a status quick-filter; pressing it again shows all."""
        if wanted == self.status_filter or wanted == "all":
            self.status_filter = "all"
            self.table.set_predicate(None)
        else:
            self.status_filter = wanted
            # reads the models at call time: a refresh's new rows are filtered the same way
            self.table.set_predicate(
                lambda key: (agent := self._models.get(key)) is not None and agent.status == wanted
            )
        self.update_summary()

    def clear_filters(self) -> None:
        super().clear_filters()
        if self.status_filter != "all":
            self.action_status("all")

    def back_more(self) -> None:
        if self.status_filter != "all":
            self.action_status("all")
        else:
            super().back_more()
