"""An agent's profile (tui/pulse/profile.py): posts and comments from the log, pokes sent and
received, its place in the graph; None for what is not published; indexes built once per file."""

from __future__ import annotations

from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pulse_rig import REAL_PULSE_DIR, hostile_pulse, pulse_snapshot, real_documents

from tui.network.pulse import Edge, Node, SocialGraph
from tui.network.snapshot import FileState, Snapshot
from tui.pulse import profile as profile_module
from tui.pulse.profile import MAX_CONNECTIONS, Connection, profile_of, warm

ME = "zion-coder-03"


def graph(edges: list[tuple[str, str, float]], nodes: list[dict] | None = None) -> dict:
    return {
        "nodes": nodes or [],
        "edges": [{"source": s, "target": t, "weight": w} for s, t, w in edges],
    }


def test_nothing_published_nothing_said():
    empty = Snapshot(MappingProxyType({}))
    profile = profile_of(ME, empty)
    assert profile.agent == ME
    assert (profile.posts, profile.comments, profile.pokes_sent, profile.pokes_received) == (
        None, None, None, None,
    )  # fmt: skip
    assert (profile.degree, profile.in_degree, profile.out_degree) == (None, None, None)
    assert profile.connections == ()


def test_counts_from_the_log_and_the_pokes():
    poke = {"from_agent": ME, "target_agent": "b", "message": "hi", "timestamp": "t1"}
    snapshot = pulse_snapshot(
        {
            "posted_log.json": {
                "posts": [{"number": 1, "author": ME}, {"number": 2, "author": "b"},
                          {"number": 3, "author": ME}],
                "comments": [{"discussion_number": 2, "author": ME}],
            },
            "pokes.json": {
                "pokes": [poke, poke, {**poke, "timestamp": "t2"},
                          {"from_agent": "c", "target_agent": ME, "timestamp": "t3"}],
            },
        }
    )  # fmt: skip
    profile = profile_of(ME, snapshot)
    assert (profile.posts, profile.comments) == (2, 1)
    assert (profile.pokes_sent, profile.pokes_received) == (2, 1)  # the same poke twice: once
    assert profile.degree is None and profile.connections == ()
    nobody = profile_of("nobody", snapshot)
    assert (nobody.posts, nobody.comments, nobody.pokes_sent, nobody.pokes_received) == (0,) * 4


def test_the_graph_strongest_connections_first_with_their_directions():
    edges = [
        (ME, "out-only", 5.0),
        ("in-only", ME, 7.0),
        (ME, "both", 2.0),
        ("both", ME, 4.0),
        (ME, ME, 100.0),  # no connection to itself
        (ME, "out-only", 1.0),  # a second edge adds up
        ("x", "y", 50.0),  # not mine
        (ME, "inf", float("inf")),
    ]
    nodes = [{"id": ME, "degree": 9, "in_degree": 4, "out_degree": 5}]
    profile = profile_of(ME, pulse_snapshot({"social_graph.json": graph(edges, nodes)}))
    assert (profile.degree, profile.in_degree, profile.out_degree) == (9, 4, 5)
    assert profile.connections == (
        Connection("in-only", 7.0, "in"),
        Connection("both", 6.0, "both"),
        Connection("out-only", 6.0, "out"),
        Connection("inf", 0.0, "out"),
    )


def test_an_agent_the_graph_does_not_list_has_degrees_counted_from_its_edges():
    edges = [(ME, "a", 1.0), (ME, "b", 1.0), ("c", ME, 1.0)]
    profile = profile_of(ME, pulse_snapshot({"social_graph.json": graph(edges)}))
    assert (profile.degree, profile.in_degree, profile.out_degree) == (3, 1, 2)
    lonely = profile_of("lonely", pulse_snapshot({"social_graph.json": graph(edges)}))
    assert (lonely.degree, lonely.in_degree, lonely.out_degree) == (0, 0, 0)


def test_at_most_ten_connections_ties_by_name():
    edges = [(ME, f"peer-{n:02d}", 1.0) for n in range(30)]
    profile = profile_of(ME, pulse_snapshot({"social_graph.json": graph(edges)}))
    assert len(profile.connections) == MAX_CONNECTIONS
    assert [c.agent for c in profile.connections] == [f"peer-{n:02d}" for n in range(10)]


def test_each_file_is_indexed_once_per_file_object(monkeypatch):
    built = []
    original = profile_module._index_graph
    monkeypatch.setattr(
        profile_module,
        "_graph_index",
        profile_module.PerFile(lambda g: built.append(g) or original(g)),
    )
    model = SocialGraph(
        nodes=(Node(id="a", degree=1),), edges=(Edge(source="a", target="b", weight=1),)
    )
    snapshot = Snapshot(MappingProxyType({"social_graph.json": FileState("g", model=model)}))
    warm(snapshot)
    for agent in ("a", "b", "c", "a"):
        profile_of(agent, snapshot)
    assert built == [model]  # warm built it; the four profiles read it
    other = SocialGraph(edges=(Edge(source="a", target="c", weight=2),))
    newer = Snapshot(MappingProxyType({"social_graph.json": FileState("g", model=other)}))
    assert profile_of("a", newer).connections == (Connection("c", 2.0, "out"),)
    assert built == [model, other]


def test_a_big_graph_is_one_pass_and_a_profile_reads_only_its_own_edges():
    agents = 5000
    edges = tuple(
        Edge(source=f"a{n % agents}", target=f"a{(n * 7 + 1) % agents}", weight=n % 13)
        for n in range(200_000)
    )
    model = SocialGraph(edges=edges)
    snapshot = Snapshot(MappingProxyType({"social_graph.json": FileState("g", model=model)}))
    index = profile_module._graph_index(model)
    assert sum(len(found) for found in index.edges.values()) == 2 * len(edges) - sum(
        1 for e in edges if e.source == e.target
    )
    profile = profile_of("a42", snapshot)
    assert profile.out_degree == 40 and profile.in_degree == 40
    assert profile.connections and sum(c.weight for c in profile.connections) > 0


def test_the_real_files_make_profiles():
    if not REAL_PULSE_DIR.is_dir():
        pytest.skip("../shared/real is not present beside this clone")
    snapshot = pulse_snapshot(real_documents("social_graph.json", "pokes.json", "posted_log.json"))
    nodes = snapshot.social_graph.nodes
    assert len(nodes) == 102 and len(snapshot.social_graph.edges) == 4234
    for node in nodes:
        profile = profile_of(node.id, snapshot)
        assert profile.degree == node.degree and profile.posts is not None
        assert len(profile.connections) <= MAX_CONNECTIONS
        weights = [c.weight for c in profile.connections]
        assert weights == sorted(weights, reverse=True)
    busiest = max(nodes, key=lambda n: n.degree)
    assert profile_of(busiest.id, snapshot).connections


def test_hostile_files_make_a_profile():
    snapshot = pulse_snapshot(hostile_pulse("victim"))
    profile = profile_of("victim", snapshot)
    assert profile.posts == profile.comments == len(snapshot.posted_log.posts)
    assert profile.pokes_received == len(
        {(p.from_agent, p.timestamp) for p in snapshot.pokes.pokes}
    )
    assert len(profile.connections) == MAX_CONNECTIONS
    assert all(isinstance(c.agent, str) and c.direction in ("in", "out", "both")
               for c in profile.connections)  # fmt: skip


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c", ""]),
            st.sampled_from(["a", "b", "c", ""]),
            st.floats(allow_nan=True),
        ),
        max_size=20,
    ),
    st.sampled_from(["a", "b", "z", ""]),
)
def test_profile_of_never_raises_on_any_graph(edges, agent):
    model = SocialGraph(edges=tuple(Edge(source=s, target=t, weight=w) for s, t, w in edges))
    snapshot = Snapshot(MappingProxyType({"social_graph.json": FileState("g", model=model)}))
    profile = profile_of(agent, snapshot)
    assert profile.degree == (profile.in_degree or 0) + (profile.out_degree or 0)
    assert all(c.agent != agent for c in profile.connections)
