"""The pulse's files for tests: snapshots built from documents, the real files when
../shared/real holds them, and hostile documents whose every text field carries a payload.

``pulse_snapshot(docs)`` validates each document with the store's own models (``parse_state``)
and puts it in a :class:`~tui.network.snapshot.Snapshot`, as a refresh would.
``hostile_pulse(agent)`` gives ``notifications.json``, ``pokes.json``, ``changes.json``,
``social_graph.json`` and ``posted_log.json`` in which ids, types, details, messages, places,
URLs and change fields are built from :data:`tests.hostile.PAYLOADS`, all of them aimed at
``agent`` (so its inbox, its profile and the feed hold every payload).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import MappingProxyType
from typing import Any

from hostile import PAYLOADS

from tui.network.models import parse_state
from tui.network.snapshot import FileState, Snapshot

__all__ = ["REAL_PULSE_DIR", "hostile_pulse", "pulse_snapshot", "real_documents"]

# ../shared/real beside the clone; ROOST_REAL_DIR names it for a clone kept elsewhere
REAL_PULSE_DIR = (
    Path(
        os.environ.get("ROOST_REAL_DIR")
        or Path(__file__).resolve().parents[1].parent / "shared" / "real"
    )
    / "rappterbook-more"
    / "state"
)


def pulse_snapshot(docs: dict[str, Any]) -> Snapshot:
    """A snapshot holding ``docs`` (file name → document, or bytes) as validated models."""
    files = {}
    for name, doc in docs.items():
        data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
        files[name] = FileState(name, model=parse_state(name, data), integrity="verified")
    return Snapshot(MappingProxyType(files))


def real_documents(*names: str) -> dict[str, bytes]:
    """The real files ``names`` as bytes (the caller skips when the folder is absent)."""
    return {name: (REAL_PULSE_DIR / name).read_bytes() for name in names}


def hostile_pulse(agent: str = "victim") -> dict[str, Any]:
    """Documents whose every text field carries a payload, each entry aimed at ``agent``."""
    stamp = "2026-03-15T12:00:00Z"
    notifications, pokes, changes, edges, nodes, posts, comments = [], [], [], [], [], [], []
    for n, text in enumerate(PAYLOADS):
        sender = text[:300]
        notifications.append(
            {
                "agent_id": agent,
                "type": text[:100] if n % 2 else "poke",
                "from_agent": sender,
                "timestamp": stamp if n % 3 else text[:50],
                "read": n % 4 == 0,
                "detail": text,
                "url": text,
                "discussion": [n, -n, "12", True, None][n % 5],
                text[:40] or "empty": text,  # an unknown field
            }
        )
        pokes.append(
            {
                "from_agent": sender,
                "target_agent": agent,
                "message": text,
                "timestamp": stamp if n % 2 else text[:60],
                "context": {
                    "type": text[:80],
                    "discussion": n + 1 if n % 2 else None,
                    "url": text,
                    "location": [
                        {"lat": 46.2, "lon": 6.05, "name": text},
                        text,
                        {"lat": "north", "lon": 1e308, "name": None},
                        {"lat": -999.5, "lon": 10**400},
                        [text],
                    ][n % 5],
                },
                "resolved": [True, False, None][n % 3],
                "resolved_at": text[:40],
            }
        )
        changes += [
            {"ts": stamp, "type": text[:100], "id": agent, "target": sender, text[:30]: text},
            {"ts": text[:40], "type": "heartbeat", "id": sender},
            {"ts": stamp, "type": "poke", "target": agent, "id": sender},
            {"ts": stamp, "type": "new_channel", "slug": text, "id": agent},
            {"ts": stamp, "type": "pin", "slug": text, "discussion": text, "id": agent},
            {"ts": stamp, "type": "karma_transfer", "id": agent, "target": sender, "amount": text},
            {
                "ts": stamp,
                "type": "heartbeat_audit",
                "agents_marked_dormant": [1, -5, 1.5, 10**40, "x", None, True][n % 7],
                text[:20] or "x": n,
            },
        ]
        edges += [
            {"source": agent, "target": sender, "weight": float(n)},
            {"source": sender, "target": agent, "weight": 1e308},
            {"source": agent, "target": agent, "weight": 5.0},
        ]
        nodes.append({"id": sender, "degree": n, "in_degree": n, "out_degree": 0})
        posts.append({"number": n + 1, "title": text, "channel": text[:50], "author": agent})
        comments.append({"discussion_number": n + 1, "post_title": text, "author": agent})
    return {
        "notifications.json": {"notifications": notifications, "_meta": {"count": text}},
        "pokes.json": {"pokes": pokes},
        "changes.json": {"last_updated": stamp, "changes": changes},
        "social_graph.json": {"nodes": nodes, "edges": edges},
        "posted_log.json": {"posts": posts, "comments": comments},
    }
