"""An agent's profile from the files that mention it (ARCHITECTURE.md, the pulse): its posts and
comments (``posted_log.json``), the pokes it sent and received (``pokes.json``) and its place in
the social graph (``social_graph.json``: degree, in and out, its strongest connections).

Each count is None when its file is not read (not published, or not asked for yet): the profile
shows only what the deployment publishes. Every file is indexed once per file object (a
refresh that leaves a file unchanged keeps its object and its index): the log's posts and
comments are counted by author in one pass, the pokes by sender and target, the graph's edges
grouped by the agents they join, in one pass over the edges. A profile is then a few
dictionary look-ups and a sort of one agent's own edges, whatever the size of the network
(:func:`warm` builds the indexes ahead, in a worker thread, for a big graph).

Pokes are counted as the inbox lists them: identical entries (the real file holds some twice)
count once. Graph edges: ``source`` → ``target``; an agent's connection to another sums the
weights of the edges between them in either direction, and says which directions there are.
A node's own degrees are used when the graph lists the agent; otherwise they are counted from
its edges.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from tui.network.conversation import PostedLog
from tui.network.pulse import Edge, Node, PokesFile, SocialGraph
from tui.pulse.per_file import PerFile

if TYPE_CHECKING:
    from tui.network.snapshot import Snapshot

__all__ = ["MAX_CONNECTIONS", "Connection", "Profile", "profile_of", "warm"]

#: The most connections a profile lists.
MAX_CONNECTIONS = 10


@dataclass(frozen=True, slots=True)
class Connection:
    agent: str
    weight: float  # the edges' weights between the two, both directions summed
    direction: Literal["out", "in", "both"]  # out: the profile's agent → this one


@dataclass(frozen=True, slots=True)
class Profile:
    agent: str
    posts: int | None  # from posted_log (None: the log is not read or not published)
    comments: int | None  # comment entries by the agent in the log
    pokes_sent: int | None  # None: pokes.json not read or not published
    pokes_received: int | None
    degree: int | None  # None: no graph
    in_degree: int | None
    out_degree: int | None
    connections: tuple[Connection, ...]  # strongest first, at most MAX_CONNECTIONS


def profile_of(agent: str, snapshot: Snapshot) -> Profile:
    """``agent``'s profile from the snapshot's files (see the module docstring). Never raises
    for what the files hold."""
    log, pokes, graph = snapshot.posted_log, snapshot.pokes, snapshot.social_graph
    posts = comments = sent = received = None
    if isinstance(log, PostedLog):
        counts = _log_counts(log)
        posts, comments = counts.posts.get(agent, 0), counts.comments.get(agent, 0)
    if isinstance(pokes, PokesFile):
        counts_of_pokes = _poke_counts(pokes)
        sent, received = counts_of_pokes.sent.get(agent, 0), counts_of_pokes.received.get(agent, 0)
    degree = in_degree = out_degree = None
    connections: tuple[Connection, ...] = ()
    if isinstance(graph, SocialGraph):
        index = _graph_index(graph)
        edges = index.edges.get(agent, ())
        connections = _connections(agent, edges)
        node = index.nodes.get(agent)
        if node is not None:
            degree, in_degree, out_degree = node.degree, node.in_degree, node.out_degree
        else:
            out_degree = sum(1 for edge in edges if edge.source == agent)
            in_degree = sum(1 for edge in edges if edge.target == agent)
            degree = out_degree + in_degree
    return Profile(
        agent=agent,
        posts=posts,
        comments=comments,
        pokes_sent=sent,
        pokes_received=received,
        degree=degree,
        in_degree=in_degree,
        out_degree=out_degree,
        connections=connections,
    )


def warm(snapshot: Snapshot) -> None:
    """Build the indexes of the snapshot's files now (call it in a worker thread when a file
    is new, so the first profile shown does not wait for them)."""
    if isinstance(snapshot.posted_log, PostedLog):
        _log_counts(snapshot.posted_log)
    if isinstance(snapshot.pokes, PokesFile):
        _poke_counts(snapshot.pokes)
    if isinstance(snapshot.social_graph, SocialGraph):
        _graph_index(snapshot.social_graph)


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _LogCounts:
    posts: Mapping[str, int]
    comments: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class _PokeCounts:
    sent: Mapping[str, int]
    received: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class _GraphIndex:
    nodes: Mapping[str, Node]
    edges: Mapping[str, list[Edge]]  # each agent's edges, either end


def _count_log(log: PostedLog) -> _LogCounts:
    return _LogCounts(
        Counter(post.author for post in log.posts),
        Counter(comment.author for comment in log.comments),
    )


def _count_pokes(file: PokesFile) -> _PokeCounts:
    distinct = {
        (poke.from_agent, poke.target_agent, poke.timestamp, poke.message) for poke in file.pokes
    }
    return _PokeCounts(
        Counter(sender for sender, _, _, _ in distinct),
        Counter(target for _, target, _, _ in distinct),
    )


def _index_graph(graph: SocialGraph) -> _GraphIndex:
    nodes: dict[str, Node] = {}
    for node in graph.nodes:
        nodes.setdefault(node.id, node)
    edges: dict[str, list[Edge]] = {}
    for edge in graph.edges:
        source, target = edge.source, edge.target
        found = edges.get(source)
        if found is None:
            edges[source] = [edge]
        else:
            found.append(edge)
        if target != source:
            found = edges.get(target)
            if found is None:
                edges[target] = [edge]
            else:
                found.append(edge)
    return _GraphIndex(nodes, edges)


_log_counts = PerFile(_count_log)
_poke_counts = PerFile(_count_pokes)
_graph_index = PerFile(_index_graph)


def _connections(agent: str, edges: list[Edge] | tuple[()]) -> tuple[Connection, ...]:
    weights: dict[str, list[float]] = {}  # other agent → [out weight, in weight, directions]
    for edge in edges:
        if edge.source == edge.target:
            continue  # an agent's edge to itself is no connection
        outward = edge.source == agent
        other = edge.target if outward else edge.source
        held = weights.setdefault(other, [0.0, 0.0, 0])
        weight = float(edge.weight) if math.isfinite(edge.weight) else 0.0
        held[0 if outward else 1] += weight
        held[2] = int(held[2]) | (1 if outward else 2)
    ranked = sorted(weights.items(), key=lambda pair: (-(pair[1][0] + pair[1][1]), pair[0]))
    direction: dict[int, Literal["out", "in", "both"]] = {1: "out", 2: "in", 3: "both"}
    return tuple(
        Connection(other, out + into, direction[int(ways)])
        for other, (out, into, ways) in ranked[:MAX_CONNECTIONS]
    )
