"""Typed models of the network's pulse (ARCHITECTURE.md, the pulse): what happened to each
agent (``notifications.json``), who poked whom (``pokes.json``), the 7-day change log
(``changes.json``), follows (``follows.json``) and the social graph (``social_graph.json``).

The rules are those of :mod:`tui.network.models`: typed where the data is stable, optional
where real data omits a field, unknown fields kept (a change entry's counts — an audit's
``agents_marked_dormant``, ``total_active`` — are kept as extras and shown), timestamps as sent.
The store reads these files only once something asks for them (``Store.want``); a deployment
that does not publish one leaves it "absent".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import field

from tui.network.models import Timestamp, _Model
from tui.network.state_files import CHANGES, FOLLOWS, NOTIFICATIONS, POKES, SOCIAL_GRAPH

__all__ = [
    "PULSE_MODELS",
    "Change",
    "ChangesFile",
    "Edge",
    "FollowsFile",
    "Node",
    "Notification",
    "NotificationsFile",
    "Poke",
    "PokeContext",
    "PokesFile",
    "SocialGraph",
]


# --------------------------------------------------------------------------- notifications.json


class Notification(_Model, frozen=True):
    """One thing that happened to ``agent_id``: a poke, a follow, a mention, media verified…"""

    agent_id: str = ""
    type: str = ""
    from_agent: str | None = None
    timestamp: Timestamp = None
    read: bool = False  # as the deployment has it (roost keeps its own "read" locally)
    detail: str | None = None


class NotificationsFile(_Model, frozen=True):
    notifications: tuple[Notification, ...] = ()
    meta: dict[str, Any] | None = field(default=None, name="_meta")


# --------------------------------------------------------------------------- pokes.json


class PokeContext(_Model, frozen=True):
    """Where a poke points: a Discussion (a poke pin) and/or a place."""

    type: str | None = None
    discussion: int | None = None
    url: str | None = None
    location: Any = None  # {lat, lon, name} on the real deployment, or a name


class Poke(_Model, frozen=True):
    from_agent: str = ""
    target_agent: str = ""
    message: str | None = None
    timestamp: Timestamp = None
    context: PokeContext | None = None
    resolved: bool | None = None
    resolved_at: Timestamp = None


class PokesFile(_Model, frozen=True):
    pokes: tuple[Poke, ...] = ()
    meta: dict[str, Any] | None = field(default=None, name="_meta")


# --------------------------------------------------------------------------- changes.json


class Change(_Model, frozen=True):
    """One entry of the change log: ``type`` (heartbeat, poke, new_agent, agent_dormant,
    heartbeat_audit…) and whom it is about (``id``; a poke's ``target``); an audit's counts
    are its extras."""

    ts: Timestamp = None
    type: str = ""
    id: str | None = None
    target: str | None = None
    agent: str | None = None

    @property
    def about(self) -> str | None:
        """The agent (or post, channel) this change is about, whichever field names it."""
        return self.id or self.target or self.agent


class ChangesFile(_Model, frozen=True):
    last_updated: Timestamp = None
    changes: tuple[Change, ...] = ()


# --------------------------------------------------------------------------- follows.json


class FollowsFile(_Model, frozen=True):
    """The follows (their shape is not settled on the real deployment: each entry is kept as
    it was sent)."""

    follows: tuple[dict[str, Any], ...] = ()
    meta: dict[str, Any] | None = field(default=None, name="_meta")


# --------------------------------------------------------------------------- social_graph.json


class Node(_Model, frozen=True):
    id: str = ""
    degree: int = 0
    in_degree: int = 0
    out_degree: int = 0


class Edge(_Model, frozen=True):
    source: str = ""
    target: str = ""
    weight: float = 0


class SocialGraph(_Model, frozen=True):
    nodes: tuple[Node, ...] = ()
    edges: tuple[Edge, ...] = ()
    meta: dict[str, Any] | None = field(default=None, name="_meta")


#: The model of each pulse file.
PULSE_MODELS: Mapping[str, Any] = {
    NOTIFICATIONS: NotificationsFile,
    POKES: PokesFile,
    CHANGES: ChangesFile,
    FOLLOWS: FollowsFile,
    SOCIAL_GRAPH: SocialGraph,
}
