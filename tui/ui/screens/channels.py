"""Tab 3, Channels: every channel with its posts, subscribers (counted from agents) and texts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content

from tui.conversation.posts import scope_key
from tui.network.models import Channel
from tui.network.state_files import CHANNELS
from tui.network.store import Snapshot
from tui.tables.channels import COLUMNS, ChannelRow, subscriber_counts
from tui.ui.widgets.detail_pane import Link
from tui.ui.widgets.text import labelled, stamp
from tui.untrusted import clean, truncate

from .table_screen import TableScreen

__all__ = ["ChannelsScreen", "subscriber_counts"]


def _section(title: str, text: str | None) -> list[Content]:
    if not text:
        return []
    return [
        Content(""),
        Content(title).stylize("bold $text-muted"),
        Content(clean(text, multiline=True)),
    ]


def _line(label: str, value: Any) -> Content:
    return labelled(label, value, 11)


def channel_posts_link(slug: str) -> Link:
    """The detail's "go to" entry for the channel's posts (the Posts tab, narrowed to it)."""
    return Link(
        Content.assemble(("posts in #", "$text-muted"), truncate(clean(slug), 60)),
        "posts",
        scope_key("channel", slug),
    )


class ChannelsScreen(TableScreen, tab="channels"):
    """Tab 3."""

    COLUMNS = COLUMNS
    NOUN = "channels"
    SOURCE = CHANNELS
    ROW = ChannelRow
    POSTING_KIND = "channel"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("P", "posts", "The channel's posts", show=False, id="channels.posts"),
    ]

    def action_posts(self) -> None:
        """``P``: the Posts tab, narrowed to the selected channel's posts."""
        key = self.detail.key if self.detail_open else self.table.cursor_key
        if key is not None:
            self.jump_to("posts", scope_key("channel", key))

    def models(self, snapshot: Snapshot) -> Mapping[str, Channel] | None:
        channels = snapshot.channels
        return None if channels is None else channels.channels

    def build_cost(self, snapshot: Snapshot, models: Mapping[str, Channel]) -> int:
        agents = snapshot.agents
        return len(models) + (len(agents.agents) if agents is not None else 0)

    def prepare(self, snapshot: Snapshot) -> Counter[str]:
        return subscriber_counts(snapshot)

    def fingerprints(
        self, models: Mapping[str, Channel], context: Counter[str]
    ) -> Mapping[str, Any]:
        return {key: (model, context.get(key, 0)) for key, model in models.items()}

    def detail_view(self, key: str, model: Channel) -> tuple[Content, list[Link]]:
        subscribers = (self._row_context or {}).get(key, 0)
        lines = [Content.assemble(("#", "$text-muted"), (clean(key), "bold"))]
        if model.name:
            lines.append(Content(clean(model.name)).stylize("bold"))
        lines.append(Content(""))
        lines.append(_line("posts", f"{model.post_count:,}"))
        lines.append(_line("subscribers", f"{subscribers:,} (agents subscribed)"))
        verified = {True: "yes", False: "no", None: "\u2014"}[model.verified]
        lines.append(_line("verified", verified))
        if model.created_by:
            lines.append(_line("created by", model.created_by))
        if model.created_at:
            lines.append(_line("created", stamp(model.created_at, self.clock())))
        if model.icon:
            lines.append(_line("icon", model.icon))
        if model.tag:
            lines.append(_line("tag", model.tag))
        if model.topic_affinity:
            lines.append(_line("topics", ", ".join(clean(t) for t in model.topic_affinity)))
        if model.moderators:
            lines.append(_line("moderators", ", ".join(clean(m) for m in model.moderators)))
        lines += _section("description", model.description)
        lines += _section("rules", model.rules)
        lines += _section("constitution", model.constitution)
        extras = model.extras
        if extras:
            lines.append(Content(""))
            lines.append(Content("other fields").stylize("bold $text-muted"))
            for name, value in extras.items():
                lines.append(_line(truncate(clean(name), 10), truncate(clean(value), 500)))
        lines.append(Content(""))
        lines.append(
            Content("P its posts · J raw JSON · tab then enter: go to").stylize("$text-muted")
        )
        links = [channel_posts_link(key)]
        people = [model.created_by] if model.created_by else []
        people += [m for m in model.moderators or () if m not in people]
        for agent_id in people:
            links.append(
                Link(
                    Content.assemble(("agent ", "$text-muted"), truncate(clean(agent_id), 60)),
                    "agents",
                    agent_id,
                )
            )
        return Content("\n").join(lines), links
