"""The network's pulse for the app tests: notifications, pokes, a change log and a social graph
built here around a generated network (and the conversation's documents, for the threads a poke
pin names), served by the real sandbox app; soul pages from a reader a test hands in.

Tests build these documents themselves, as ``conversation_rig`` does for the conversation, so
what they assert does not move when the demo's generator changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import msgspec
from app_rig import BASE, Clock, Rig, service_for
from conversation_rig import conversation_docs
from textual.pilot import Pilot
from textual_idle import settle

from tui.network.store import Store
from tui.pulse.soul import SoulPage
from tui.sandbox.app import create_app
from tui.sandbox.generator import DEFAULT_EPOCH, generate_state, iso
from tui.sandbox.published import DemoNetwork
from tui.sandbox.server import in_process_client
from tui.ui import speed
from tui.ui.app import RoostApp

__all__ = [
    "ME",
    "SOUL",
    "FakeSouls",
    "make_pulse_rig",
    "pulse_docs",
    "pulse_network",
    "wait_for",
    "with_agent",
]

ME = "zion-coder-01"  # the agent the inbox is for
PIN = 129  # the Discussion the poke pin names (the conversation rig's newest post)
SOUL = """# zion-coder-01 — Soul File

## Identity
Writes **small tools** and reads every diff twice.

## Convictions
- Tests first
- Small commits
  - with a *why* in each

> Code is read more often than it is written.

```python
print("hello, roost")
```
"""


def _at(minutes: float) -> str:
    return iso(DEFAULT_EPOCH - timedelta(minutes=minutes))


def pulse_docs(agents: list[str]) -> dict[str, Any]:
    """``notifications.json``, ``pokes.json``, ``changes.json`` and ``social_graph.json`` for a
    network of ``agents`` (``ME`` among them): ``ME`` has five items (a poke pin naming post
    #129 with a place, a poke, a follow, a mention, a media verdict the deployment marks read)
    and others have theirs; the change log has every type the deployment writes."""
    a = agents
    notifications = [
        {
            "agent_id": ME,
            "type": "poke",
            "from_agent": a[0],
            "timestamp": _at(5),
            "read": False,
            "detail": f"You are summoned to The Hadron Colloquium at CERN. A Poke Pin: #{PIN}",
        },
        {
            "agent_id": ME,
            "type": "follow",
            "from_agent": a[2],
            "timestamp": _at(20),
            "read": False,
            "detail": f"{a[2]} followed you",
        },
        {
            "agent_id": ME,
            "type": "poke",
            "from_agent": a[5],
            "timestamp": _at(45),
            "read": False,
            "detail": f"Hey {ME}, c/code has gone quiet. It could use someone to spark it back.",
        },
        {
            "agent_id": ME,
            "type": "mention",
            "from_agent": a[3],
            "timestamp": _at(90),
            "read": False,
            "detail": f"{a[3]} mentioned you on #128",
        },
        {
            "agent_id": ME,
            "type": "media_verified",
            "from_agent": "system",
            "timestamp": _at(600),
            "read": True,
            "detail": "media-zion-coder-01-field-notes",
        },
        *(
            {
                "agent_id": a[i],
                "type": "poke",
                "from_agent": a[i + 1],
                "timestamp": _at(30 + i),
                "read": False,
                "detail": f"Hey {a[i]}, your turn.",
            }
            for i in range(6, 12)
        ),
    ]
    pokes = [
        {
            "from_agent": a[0],
            "target_agent": ME,
            "message": f"You are summoned to The Hadron Colloquium at CERN. A Poke Pin: #{PIN}",
            "timestamp": _at(5),
            "context": {
                "type": "space_summon",
                "discussion": PIN,
                "url": f"https://github.com/example/network/discussions/{PIN}",
                "location": {"lat": 46.2044, "lon": 6.0536, "name": "CERN, Geneva"},
            },
            "resolved": False,
            "resolved_at": None,
        },
        {
            "from_agent": a[5],
            "target_agent": ME,
            "message": f"Hey {ME}, c/code has gone quiet. It could use someone to spark it back.",
            "timestamp": _at(45),
            "resolved": True,
            "resolved_at": _at(40),
        },
        *(
            {"from_agent": ME, "target_agent": a[i], "message": "ping", "timestamp": _at(200 + i)}
            for i in (2, 3, 4)
        ),
        *(
            {"from_agent": a[i + 1], "target_agent": a[i], "timestamp": _at(30 + i)}
            for i in range(6, 12)
        ),
    ]
    changes: list[dict[str, Any]] = []
    for step in range(24):  # oldest first, as the deployment appends them
        minutes = 600 - step * 20
        changes.append({"ts": _at(minutes), "type": "heartbeat", "id": a[step % len(a)]})
        if step % 6 == 0:
            changes.append({"ts": _at(minutes), "type": "poke", "target": a[(step + 3) % len(a)]})
    changes.insert(5, {"ts": _at(500), "type": "new_agent", "id": a[7]})
    changes.insert(9, {"ts": _at(420), "type": "agent_dormant", "id": a[8]})
    changes.insert(
        12,
        {
            "ts": _at(360),
            "type": "heartbeat_audit",
            "agents_marked_dormant": 1,
            "total_active": 57,
            "total_dormant": 3,
        },
    )
    nodes = [{"id": name, "degree": 0, "in_degree": 0, "out_degree": 0} for name in a[:12]]
    edges = []
    for i, other in enumerate(a[2:9]):  # ME's connections, strongest first
        weight = 40 - i * 5
        edges.append({"source": ME, "target": other, "weight": weight})
        if i % 2 == 0:
            edges.append({"source": other, "target": ME, "weight": weight})
    mine = [n for n in nodes if n["id"] == ME][0]
    mine.update(degree=11, in_degree=4, out_degree=7)
    return {
        "notifications.json": {
            "notifications": notifications,
            "_meta": {"count": len(notifications), "last_updated": _at(1)},
        },
        "pokes.json": {"pokes": pokes, "_meta": {"count": len(pokes)}},
        "changes.json": {"last_updated": _at(1), "changes": changes},
        "social_graph.json": {
            "nodes": nodes,
            "edges": edges,
            "_meta": {"generated_at": _at(60), "total_nodes": len(nodes)},
        },
    }


def pulse_network(
    *, agents: int = 60, extra: Mapping[str, Any] | None = None, posts: int = 30
) -> DemoNetwork:
    """A generated network with the conversation's documents and :func:`pulse_docs`
    (``extra``: more or other documents, e.g. hostile ones)."""
    docs = generate_state(seed=7, agents=agents, epoch=DEFAULT_EPOCH)
    docs.update(conversation_docs(posts))
    docs.update(pulse_docs(list(docs["agents.json"]["agents"])))
    docs.update(extra or {})
    return DemoNetwork(docs, generated_at=iso(DEFAULT_EPOCH))


@dataclass
class FakeSouls:
    """Soul pages a test hands in (the protocol of ``tui.pulse.soul.SoulPages``): ``cached``
    gives what was read before, ``read`` answers from ``pages`` (a missing agent: no page),
    once ``gate`` is set when a test holds it."""

    pages: dict[str, str] = field(default_factory=dict)
    problem: str | None = None
    gate: asyncio.Event | None = None
    calls: list[str] = field(default_factory=list)
    kept: dict[str, SoulPage] = field(default_factory=dict)

    def cached(self, agent: str) -> SoulPage | None:
        return self.kept.get(agent)

    async def read(self, agent: str) -> SoulPage:
        self.calls.append(agent)
        if self.gate is not None:
            await self.gate.wait()
        when = datetime(2026, 11, 1, 11, 0, tzinfo=DEFAULT_EPOCH.tzinfo)
        if self.problem is not None:
            kept = self.kept.get(agent)
            text = kept.text if kept is not None else None
            return SoulPage(agent, text, False, kept.fetched_at if kept else None, self.problem)
        text = self.pages.get(agent)
        page = SoulPage(agent, text, text is None, when, None)
        self.kept[agent] = page
        return page


def with_agent(settings: Any, agent: str | None, bell: bool = False) -> Any:
    """``settings`` with the ``agent`` and ``bell`` settings (a new value: they are frozen)."""
    return msgspec.structs.replace(settings, agent=agent, bell=bell)


def make_pulse_rig(
    *,
    screen: str = "agents",
    agent: str | None = ME,
    bell: bool = False,
    network: DemoNetwork | None = None,
    souls: FakeSouls | None = None,
    size_agents: int = 60,
) -> Rig:
    """The app on ``network`` (default :func:`pulse_network`) on a frozen clock, set to
    ``agent``'s inbox; soul pages from ``souls`` (default: one page, ``ME``'s)."""
    network = network or pulse_network(agents=size_agents)
    sandbox = create_app(network, seed=7, agents=size_agents, epoch=DEFAULT_EPOCH)
    clock = Clock()
    client = in_process_client(sandbox, BASE)
    store = Store(BASE, client=client, clock=clock, building=speed.building())
    service = service_for(store, demo=True, demo_app=sandbox)
    service.settings = with_agent(service.settings, agent, bell)
    souls = souls if souls is not None else FakeSouls({ME: SOUL})
    service.soul_pages = lambda: souls  # type: ignore[method-assign]
    app = RoostApp(service, clock=clock, initial_screen=screen, poll=False)
    return Rig(app, network, store, clock, sandbox.state.sandbox.faults)


async def wait_for(pilot: Pilot, condition: Any, timeout: float = 20) -> None:
    """Settle until ``condition()`` holds (the app's workers and messages run meanwhile)."""
    for _ in range(int(timeout / 0.02)):
        await settle(pilot)
        if condition():
            await settle(pilot)
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the condition never held")
