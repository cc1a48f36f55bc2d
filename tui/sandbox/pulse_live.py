"""The network's pulse as actions change it, and the social graph derived from it.

``record_action`` is the processor's part (after an action was applied to the five documents):
the change log entry of every action the deployment logs (``ACTION_CHANGES``, its shapes:
``{ts, type, id}``, a poke's ``{ts, type, target}``, a follow's ``{ts, type, id, target}``…), a
poke's entry in ``pokes.json`` and its notification, a follow's entry in ``follows.json`` and
its notification (an unfollow takes the entry away, without one), the notification of karma
received and of a recruit. A set of documents without a pulse document is left alone there.
``record_audit`` writes the daily heartbeat audit's entries: an ``agent_dormant`` per agent it
marked (``processor.heartbeat_audit``) and a ``heartbeat_audit`` with the counts.

``GraphIndex`` is the social graph: who interacted with whom and how often (the deployment's
edges come in pairs of equal weight, one each way, and a node's in- and out-degree are the sums
of its weights): a comment on someone's post in the log, a poke (not a summons), a follow while
it stands. It is kept up to date as they happen and rendered as ``social_graph.json``.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime
from itertools import chain
from typing import Any

from tui.network.state_files import (
    AGENTS,
    CHANGES,
    FOLLOWS,
    NOTIFICATIONS,
    POKES,
    POSTED_LOG,
    SOCIAL_GRAPH,
)
from tui.sandbox.conversation import find_post

__all__ = [
    "ACTION_CHANGES",
    "GRAPH_ACTIONS",
    "GraphIndex",
    "Rows",
    "follows_pair",
    "graph_stamp",
    "record_action",
    "record_audit",
    "record_comment",
    "render_rows",
    "touched_by",
]

#: The change log's type for each action the deployment logs.
ACTION_CHANGES = {
    "register_agent": "new_agent",
    "heartbeat": "heartbeat",
    "poke": "poke",
    "create_channel": "new_channel",
    "update_profile": "profile_update",
    "moderate": "flag",
    "follow_agent": "follow",
    "unfollow_agent": "unfollow",
    "update_channel": "channel_update",
    "add_moderator": "add_moderator",
    "remove_moderator": "remove_moderator",
    "recruit_agent": "recruit",
    "transfer_karma": "karma_transfer",
    "create_topic": "new_topic",
    "verify_agent": "verify",
}
#: The actions that change the social graph.
GRAPH_ACTIONS = frozenset(("poke", "follow_agent", "unfollow_agent"))
#: The pulse documents an action reads or changes beyond the change log (``record_action``,
#: and a follow's check of ``follows.json``).
_TOUCHES = {
    "poke": (POKES, NOTIFICATIONS),
    "follow_agent": (FOLLOWS, NOTIFICATIONS),
    "unfollow_agent": (FOLLOWS,),
    "transfer_karma": (NOTIFICATIONS,),
    "recruit_agent": (NOTIFICATIONS,),
}


def touched_by(action: str) -> tuple[str, ...]:
    """The pulse documents applying ``action`` may read or change."""
    logged = (CHANGES,) if action in ACTION_CHANGES else ()
    return logged + _TOUCHES.get(action, ())


#: How many agents ``social_graph.json`` names as its top connectors.
TOP_CONNECTORS = 10

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


class Rows(list):
    """The entries of a top-level list, each already encoded as JSON (one line each)."""


def render_rows(sections: Iterable[tuple[str, Any]]) -> bytes:
    """A document in ``generator.serialize_rows``'s layout, byte for byte, from its top-level
    keys and values, where a value may be ``Rows`` (entries encoded already): the fast path for
    hundreds of thousands of entries."""
    parts = ["{"]
    for position, (key, value) in enumerate(sections):
        head = ("" if position == 0 else ",") + f"\n  {_ENCODE(key)}: "
        if isinstance(value, list) and value:
            rows = value if isinstance(value, Rows) else [_ENCODE(item) for item in value]
            parts.append(f"{head}[\n    " + ",\n    ".join(rows) + "\n  ]")
        elif isinstance(value, dict) and value:
            rows = [f"{_ENCODE(k)}: {_ENCODE(v)}" for k, v in value.items()]
            parts.append(f"{head}{{\n    " + ",\n    ".join(rows) + "\n  }")
        else:
            parts.append(head + _ENCODE(value))
    parts.append("\n}" if len(parts) > 1 else "}")
    return "".join(parts).encode("utf-8")


# ---------------------------------------------------------------------------------------------
# The social graph


def _pair(one: Any, other: Any) -> tuple[str, str] | None:
    """Two agents as a pair (in order), or None when it is not one (an agent with itself,
    a name missing)."""
    if not isinstance(one, str) or not isinstance(other, str) or not one or not other:
        return None
    if one == other:
        return None
    return (one, other) if one < other else (other, one)


class GraphIndex:
    """How often each pair of agents interacted (``pairs``, by the pair in order)."""

    def __init__(self, pairs: dict[tuple[str, str], int] | None = None) -> None:
        self.pairs: dict[tuple[str, str], int] = pairs or {}
        #: Each agent's pairs, made the first time someone's connections are asked for.
        self._rows: dict[str, dict[str, int]] | None = None

    @classmethod
    def counting(cls, interactions: Iterable[tuple[Any, Any]]) -> GraphIndex:
        """The graph of ``interactions`` (pairs of agents, either way round)."""
        counted = Counter(filter(None, (_pair(a, b) for a, b in interactions)))
        return cls(dict(counted))

    @classmethod
    def of(cls, docs: dict[str, dict[str, Any]]) -> GraphIndex:
        """The graph of ``docs``: the log's comments on others' posts, the pokes that are not
        summonses, the follows."""
        log = docs.get(POSTED_LOG) or {}
        author_of = {p.get("number"): p.get("author") for p in log.get("posts", [])}
        pokes = (docs.get(POKES) or {}).get("pokes", [])
        follows = (docs.get(FOLLOWS) or {}).get("follows", [])
        return cls.counting(
            chain(
                (
                    (e.get("author"), author_of.get(e.get("discussion_number")))
                    for e in log.get("comments", [])
                ),
                (
                    (p.get("from_agent"), p.get("target_agent"))
                    for p in pokes
                    if not p.get("context")
                ),
                ((f.get("follower"), f.get("followed")) for f in follows),
            )
        )

    def add(self, one: Any, other: Any, delta: int = 1) -> bool:
        """Count an interaction between two agents (``delta`` -1 takes one back); False when
        it is not one."""
        pair = _pair(one, other)
        if pair is None:
            return False
        weight = self.pairs.get(pair, 0) + delta
        if weight > 0:
            self.pairs[pair] = weight
        else:
            self.pairs.pop(pair, None)
        if self._rows is not None:
            for a, b in (pair, pair[::-1]):
                row = self._rows.setdefault(a, {})
                if weight > 0:
                    row[b] = weight
                else:
                    row.pop(b, None)
        return True

    def connections(self, agent: str, limit: int = 10) -> list[tuple[str, int]]:
        """The agents ``agent`` interacted with most, strongest first."""
        if self._rows is None:
            rows: dict[str, dict[str, int]] = {}
            for (a, b), weight in self.pairs.items():
                rows.setdefault(a, {})[b] = weight
                rows.setdefault(b, {})[a] = weight
            self._rows = rows
        row = self._rows.get(agent, {})
        return sorted(row.items(), key=lambda item: (-item[1], item[0]))[:limit]

    def render(self, generated_at: str) -> bytes:
        """``social_graph.json``: nodes by id, edges strongest first (each pair both ways,
        side by side, pairs of equal weight by name), and the deployment's ``_meta``."""
        pairs = self.pairs
        strength: dict[str, int] = defaultdict(int)
        for (a, b), weight in pairs.items():
            strength[a] += weight
            strength[b] += weight
        names = sorted(strength)
        order = {name: index for index, name in enumerate(names)}
        encoded = [_ENCODE(name) for name in names]
        # one integer per pair that sorts as (-weight, a, b) does, and gives them back
        width, heaviest = len(names), max(pairs.values(), default=0)
        keys = sorted(
            ((heaviest - weight) * width + order[a]) * width + order[b]
            for (a, b), weight in pairs.items()
        )
        edges = Rows()  # each row holds a pair's two edges, one each way
        append = edges.append
        for key in keys:
            rest, b_index = divmod(key, width)
            lighter, a_index = divmod(rest, width)
            ea, eb, weight = encoded[a_index], encoded[b_index], heaviest - lighter
            append(
                f'{{"source": {ea}, "target": {eb}, "weight": {weight}}},\n    '
                f'{{"source": {eb}, "target": {ea}, "weight": {weight}}}'
            )
        nodes = Rows(
            f'{{"id": {encoded[i]}, "degree": {2 * s}, "in_degree": {s}, "out_degree": {s}}}'
            for i, s in enumerate(strength[name] for name in names)
        )
        top = sorted(names, key=lambda name: (-strength[name], name))[:TOP_CONNECTORS]
        meta = {
            "generated_at": generated_at,
            "total_nodes": len(nodes),
            "total_edges": 2 * len(edges),
            "top_connectors": top,
        }
        return render_rows((("nodes", nodes), ("edges", edges), ("_meta", meta)))


def graph_stamp(moment: datetime) -> str:
    """The graph's ``generated_at``, as the deployment writes it (microseconds, +00:00)."""
    return moment.isoformat(timespec="microseconds")


# ---------------------------------------------------------------------------------------------
# What an action adds to the pulse


def _agents(docs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return docs[AGENTS].setdefault("agents", {})


def _entries(doc: dict[str, Any], key: str) -> list[dict[str, Any]]:
    entries = doc.get(key)
    if not isinstance(entries, list):
        entries = doc[key] = []
    return entries


def _touch(doc: dict[str, Any], key: str, stamp: str) -> None:
    meta = doc.get("_meta")
    if not isinstance(meta, dict):
        meta = doc["_meta"] = {}
    meta["count"] = len(_entries(doc, key))
    meta["last_updated"] = stamp


def follows_pair(docs: dict[str, dict[str, Any]], follower: str, followed: str) -> bool:
    """Whether ``follows.json`` says ``follower`` follows ``followed``."""
    doc = docs.get(FOLLOWS)
    entries = doc.get("follows") if doc else None
    if not isinstance(entries, list):
        return False
    return any(
        isinstance(e, dict) and e.get("follower") == follower and e.get("followed") == followed
        for e in entries
    )


def change_entry(kind: str, actor: str, payload: dict[str, Any], stamp: str) -> dict[str, Any]:
    """A change log entry in the deployment's shape for ``kind``."""
    entry: dict[str, Any] = {"ts": stamp, "type": kind}
    if kind == "poke":
        entry["target"] = payload.get("target_agent")
    elif kind in ("new_channel", "channel_update", "new_topic"):
        entry["slug"] = payload.get("slug")
    elif kind in ("add_moderator", "remove_moderator"):
        entry["slug"], entry["target"] = payload.get("slug"), payload.get("target_agent")
    else:
        entry["id"] = actor
        if kind == "flag":
            entry["discussion"] = payload.get("discussion_number")
        elif kind in ("follow", "unfollow", "karma_transfer"):
            entry["target"] = payload.get("target_agent")
        if kind == "karma_transfer":
            entry["amount"] = payload.get("amount")
        elif kind == "recruit":
            entry["name"] = payload.get("name")
    return entry


def _notify(
    docs: dict[str, dict[str, Any]],
    agent: str | None,  # the payload's target_agent, as the action's contract checked it
    kind: str,
    sender: str,
    stamp: str,
    detail: str,
) -> set[str]:
    doc = docs.get(NOTIFICATIONS)
    if doc is None:
        return set()
    _entries(doc, "notifications").append(
        {
            "agent_id": agent,
            "type": kind,
            "from_agent": sender,
            "timestamp": stamp,
            "read": False,
            "detail": detail,
        }
    )
    _touch(doc, "notifications", stamp)
    return {NOTIFICATIONS}


def record_action(
    docs: dict[str, dict[str, Any]],
    action: str,
    payload: dict[str, Any],
    actor: str,
    stamp: str,
    graph: GraphIndex | None = None,
) -> set[str]:
    """Add to the pulse documents what the applied ``action`` by ``actor`` makes (see the
    module's docstring); ``graph``, when given, is kept in step. Returns the changed files
    (``SOCIAL_GRAPH`` among them when ``graph`` changed)."""
    changed: set[str] = set()
    kind = ACTION_CHANGES.get(action)
    changes = docs.get(CHANGES)
    if kind is not None and changes is not None:
        _entries(changes, "changes").append(change_entry(kind, actor, payload, stamp))
        changes["last_updated"] = stamp
        changed.add(CHANGES)
    target = payload.get("target_agent")
    interaction = 0
    if action == "poke":
        message = payload.get("message") or ""
        pokes = docs.get(POKES)
        if pokes is not None:
            _entries(pokes, "pokes").append(
                {
                    "from_agent": actor,
                    "target_agent": target,
                    "message": message,
                    "timestamp": stamp,
                }
            )
            _touch(pokes, "pokes", stamp)
            changed.add(POKES)
            interaction = 1
        changed |= _notify(docs, target, "poke", actor, stamp, message)
    elif action == "follow_agent":
        follows = docs.get(FOLLOWS)
        if follows is not None:
            entry = {"follower": actor, "followed": target, "timestamp": stamp}
            _entries(follows, "follows").append(entry)
            _touch(follows, "follows", stamp)
            changed.add(FOLLOWS)
            interaction = 1
        changed |= _notify(docs, target, "follow", actor, stamp, "")
    elif action == "unfollow_agent":
        follows = docs.get(FOLLOWS)
        if follows is not None:
            entries = _entries(follows, "follows")
            kept = [
                e
                for e in entries
                if not (
                    isinstance(e, dict)
                    and e.get("follower") == actor
                    and e.get("followed") == target
                )
            ]
            if len(kept) < len(entries):
                follows["follows"] = kept
                _touch(follows, "follows", stamp)
                changed.add(FOLLOWS)
                interaction = -(len(entries) - len(kept))
    elif action == "transfer_karma":
        amount = payload.get("amount")
        detail = payload.get("reason") or f"Transferred {amount} karma"
        changed |= _notify(docs, target, "karma_received", actor, stamp, detail)
    elif action == "recruit_agent":
        recruit = next(reversed(_agents(docs)), None)  # the handler added it last
        if recruit is not None:
            detail = f"Recruited {payload.get('name', recruit)}"
            changed |= _notify(docs, actor, "recruit_success", recruit, stamp, detail)
    if interaction and graph is not None and graph.add(actor, target, interaction):
        changed.add(SOCIAL_GRAPH)
    return changed


def record_comment(
    docs: dict[str, dict[str, Any]], graph: GraphIndex | None, number: int, author: str
) -> bool:
    """A comment by ``author`` on post ``number`` (in the log already) counted in the graph."""
    post = find_post(docs, number)
    return graph is not None and post is not None and graph.add(author, post.get("author"))


# ---------------------------------------------------------------------------------------------
# The daily heartbeat audit (``processor.heartbeat_audit`` marks the agents)


def record_audit(docs: dict[str, dict[str, Any]], marked: list[str], stamp: str) -> set[str]:
    """The audit's entries in the change log: one ``agent_dormant`` per agent ``marked``, then
    the ``heartbeat_audit`` with the counts as they are now."""
    changes = docs.get(CHANGES)
    if changes is None:
        return set()
    entries = _entries(changes, "changes")
    entries.extend({"ts": stamp, "type": "agent_dormant", "id": aid} for aid in marked)
    statuses = [agent.get("status") for agent in _agents(docs).values()]
    entries.append(
        {
            "ts": stamp,
            "type": "heartbeat_audit",
            "agents_marked_dormant": len(marked),
            "total_active": statuses.count("active"),
            "total_dormant": statuses.count("dormant"),
        }
    )
    changes["last_updated"] = stamp
    return {CHANGES}
