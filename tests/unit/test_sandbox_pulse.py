"""The demo network's pulse: notifications, pokes, the change log, follows, the social graph
and soul pages, generated consistent with the world and kept so by the actions applied."""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tui.cli import main
from tui.network.models import parse_state
from tui.network.pulse import PULSE_MODELS
from tui.network.state_files import (
    AGENTS,
    CHANGES,
    FOLLOWS,
    MANIFEST_FILE,
    NOTIFICATIONS,
    POKES,
    POSTED_LOG,
    PULSE_FILES,
    SOCIAL_GRAPH,
    STATE_FILE_NAMES,
    STATS,
    TRENDING,
)
from tui.sandbox.app import DEMO_LOGIN, DEMO_TOKEN, create_app
from tui.sandbox.conversation import generate_log
from tui.sandbox.discussions import Conversation
from tui.sandbox.faults import Faults
from tui.sandbox.generator import (
    DEFAULT_EPOCH,
    generate_network,
    generate_state,
    serialize,
    serialize_rows,
)
from tui.sandbox.published import DemoNetwork
from tui.sandbox.pulse import (
    CHANGES_PER_AGENT,
    DORMANT_AFTER,
    KEEP_CHANGES,
    KEEP_NOTIFICATIONS,
    NOTIFICATIONS_PER_AGENT,
)
from tui.sandbox.pulse_live import GraphIndex
from tui.sandbox.server import in_process_client
from tui.sandbox.world import DemoWorld

REAL = Path(__file__).resolve().parents[3] / "shared" / "real" / "rappterbook-more" / "state"
ISSUES = "/api/repos/roost-demo/network/issues"
AUTH = {"Authorization": f"Bearer {DEMO_TOKEN}"}
NOW = DEFAULT_EPOCH.timestamp()
PLAIN_POKE = ["from_agent", "target_agent", "message", "timestamp"]
PINNED_POKE = [*PLAIN_POKE, "context", "resolved", "resolved_at"]


def seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def docs_of(network: DemoNetwork) -> dict[str, Any]:
    return {name: json.loads(data) for name, data in network.files.items()}


@pytest.fixture(scope="module")
def network() -> DemoNetwork:
    return DemoNetwork.generate(seed=7, agents=300)


@pytest.fixture(scope="module")
def docs(network) -> dict[str, Any]:
    return docs_of(network)


# --- generation: same seed, same bytes; the rest untouched --------------------------------------


def test_the_pulse_is_the_same_for_the_same_seed_and_another_for_another():
    one, two = generate_network(seed=4, agents=80), generate_network(seed=4, agents=80)
    for name in PULSE_FILES:
        assert isinstance(one[name], bytes) and one[name] == two[name]
    other = generate_network(seed=5, agents=80)
    assert other[NOTIFICATIONS] != one[NOTIFICATIONS]
    fresh = DemoNetwork(dict(one), generated_at="2026-11-01T12:00:00Z")
    kept = DemoNetwork.generate(seed=4, agents=80)
    again = DemoNetwork.generate(seed=4, agents=80)  # read back from the kept bytes
    for name in PULSE_FILES:
        assert fresh.files[name] == kept.files[name] == again.files[name]


def test_the_generated_graph_is_the_one_the_documents_make():
    network = DemoNetwork.generate(seed=4, agents=80)
    parsed = {name: json.loads(network.files[name]) for name in (POSTED_LOG, POKES, FOLLOWS)}
    stamp = json.loads(network.files[SOCIAL_GRAPH])["_meta"]["generated_at"]
    assert GraphIndex.of(parsed).render(stamp) == network.files[SOCIAL_GRAPH]
    reread = DemoNetwork(
        {**network.docs, POKES: parsed[POKES]}, generated_at="2026-11-01T12:00:00Z"
    )
    assert reread.files[SOCIAL_GRAPH] == network.files[SOCIAL_GRAPH]


def test_the_five_files_and_the_log_stay_what_they_were():
    five = generate_state(seed=3, agents=120)
    every = generate_network(seed=3, agents=120)
    for name in STATE_FILE_NAMES:
        assert serialize(every[name]) == serialize(five[name])
    log = generate_log(3, DEFAULT_EPOCH, five, "https://discussions.roost-demo.invalid/x/y")
    assert len(every[POSTED_LOG]["comments"]) == len(log["comments"])
    assert every[POSTED_LOG]["posts"][-1]["timestamp"] == log["posts"][-1]["timestamp"]


def test_every_pulse_file_is_in_the_manifest_and_parses(network):
    manifest = json.loads(network.manifest_bytes)["files"]
    for name in PULSE_FILES:
        data = network.files[name]
        assert manifest[name] == {"hash": hashlib.sha256(data).hexdigest(), "size": len(data)}
        assert isinstance(parse_state(name, data), PULSE_MODELS[name])
        assert serialize_rows(json.loads(data)) == data  # one entry a line, like the log


def test_the_counts_scale_with_the_agents(docs):
    assert len(docs[NOTIFICATIONS]["notifications"]) == NOTIFICATIONS_PER_AGENT * 300
    assert len(docs[CHANGES]["changes"]) == CHANGES_PER_AGENT * 300
    for name, key in ((NOTIFICATIONS, "notifications"), (POKES, "pokes"), (FOLLOWS, "follows")):
        assert docs[name]["_meta"] == {
            "count": len(docs[name][key]),
            "last_updated": "2026-11-01T12:00:00Z",
        }
    kinds = Counter(n["type"] for n in docs[NOTIFICATIONS]["notifications"])
    assert kinds.most_common(1)[0][0] == "poke"
    assert {"follow", "karma_received", "media_verified"} <= set(kinds)


# --- the deployment's shapes -----------------------------------------------------------------


def key_shapes(entries: list[dict[str, Any]], by: str | None = None) -> set[tuple]:
    return {((e.get(by),) if by else ()) + tuple(e) for e in entries}


@pytest.mark.skipif(not REAL.is_dir(), reason="the real deployment's files are not here")
def test_the_shapes_are_the_real_deployments(docs):
    real = {name: json.loads((REAL / name).read_text()) for name in PULSE_FILES}
    for name in PULSE_FILES:
        assert list(docs[name]) == list(real[name]), name
        if "_meta" in real[name] and name != SOCIAL_GRAPH:
            assert list(docs[name]["_meta"]) == list(real[name]["_meta"])
    assert key_shapes(docs[NOTIFICATIONS]["notifications"]) == key_shapes(
        real[NOTIFICATIONS]["notifications"]
    )
    assert key_shapes(docs[POKES]["pokes"]) == key_shapes(real[POKES]["pokes"])
    pinned = next(p for p in real[POKES]["pokes"] if "context" in p)
    ours = next(p for p in docs[POKES]["pokes"] if "context" in p)
    assert list(ours["context"]) == list(pinned["context"])
    assert list(ours["context"]["location"]) == list(pinned["context"]["location"])
    real_changes = key_shapes(real[CHANGES]["changes"], by="type")
    ours_changes = key_shapes(docs[CHANGES]["changes"], by="type")
    assert real_changes <= ours_changes
    assert ours_changes - real_changes == {("follow", "ts", "type", "id", "target")}
    graph, real_graph = docs[SOCIAL_GRAPH], real[SOCIAL_GRAPH]
    assert list(graph["_meta"]) == list(real_graph["_meta"])
    assert key_shapes(graph["nodes"]) == key_shapes(real_graph["nodes"])
    assert key_shapes(graph["edges"]) == key_shapes(real_graph["edges"])


def test_the_shapes_without_the_real_files(docs):
    notification = docs[NOTIFICATIONS]["notifications"][0]
    assert list(notification) == ["agent_id", "type", "from_agent", "timestamp", "read", "detail"]
    assert {tuple(p) for p in docs[POKES]["pokes"]} == {tuple(PLAIN_POKE), tuple(PINNED_POKE)}
    assert list(docs[CHANGES]) == ["last_updated", "changes"]
    assert list(docs[FOLLOWS]["follows"][0]) == ["follower", "followed", "timestamp"]


# --- consistent with the world ---------------------------------------------------------------


def test_pokes_and_their_notifications_agree(docs):
    agents = docs[AGENTS]["agents"]
    pokes = docs[POKES]["pokes"]
    notes = Counter(
        (n["from_agent"], n["agent_id"], n["timestamp"], n["detail"])
        for n in docs[NOTIFICATIONS]["notifications"]
        if n["type"] == "poke"
    )
    plain = [p for p in pokes if "context" not in p]
    assert notes == Counter(
        (p["from_agent"], p["target_agent"], p["timestamp"], p["message"]) for p in plain
    )
    received = Counter(p["target_agent"] for p in plain if p["target_agent"] != DEMO_LOGIN)
    for target, count in received.items():
        assert count <= agents[target]["poke_count"]  # never more than the counter says
    for poke in pokes:
        at = seconds(poke["timestamp"])
        assert NOW - KEEP_NOTIFICATIONS < at <= NOW
        for who in (poke["from_agent"], poke["target_agent"]):
            if who != DEMO_LOGIN:
                assert seconds(agents[who]["joined"]) <= at
    assert [p["timestamp"] for p in pokes] == sorted(p["timestamp"] for p in pokes)


def test_summonses_pin_a_real_discussion_and_a_place(docs):
    posts = {p["number"]: p for p in docs[POSTED_LOG]["posts"]}
    pinned = [p for p in docs[POKES]["pokes"] if "context" in p]
    assert pinned and all(p["from_agent"] == "system" for p in pinned)
    resolved = [p for p in pinned if p["resolved"]]
    assert resolved and len(resolved) < len(pinned)
    for poke in pinned:
        context = poke["context"]
        post = posts[context["discussion"]]
        assert context["type"] == "space_summon" and context["url"] == post["url"]
        assert post["url"] in poke["message"]
        location = context["location"]
        assert isinstance(location["lat"], float) and location["name"]
        if poke["resolved"]:
            assert poke["timestamp"] < poke["resolved_at"] <= "2026-11-01T12:00:00Z"
        else:
            assert poke["resolved_at"] is None


def test_follows_never_outnumber_the_counters(docs):
    agents = docs[AGENTS]["agents"]
    follows = docs[FOLLOWS]["follows"]
    pairs = [(f["follower"], f["followed"]) for f in follows]
    assert len(set(pairs)) == len(pairs) and all(a != b for a, b in pairs)
    for who, count in Counter(a for a, _ in pairs).items():
        assert count <= agents[who]["following_count"]
    for who, count in Counter(b for _, b in pairs if b != DEMO_LOGIN).items():
        assert count <= agents[who]["follower_count"]
    recent = Counter(
        (f["follower"], f["followed"], f["timestamp"])
        for f in follows
        if seconds(f["timestamp"]) > NOW - KEEP_NOTIFICATIONS
    )
    notes = Counter(
        (n["from_agent"], n["agent_id"], n["timestamp"])
        for n in docs[NOTIFICATIONS]["notifications"]
        if n["type"] == "follow"
    )
    assert notes == recent


def test_the_change_log_is_the_weeks_and_agrees_with_the_agents(docs):
    agents = docs[AGENTS]["agents"]
    changes = docs[CHANGES]["changes"]
    stamps = [c["ts"] for c in changes]
    assert stamps == sorted(stamps) and docs[CHANGES]["last_updated"] == stamps[-1]
    assert all(NOW - KEEP_CHANGES < seconds(s) <= NOW for s in stamps)
    by_type = defaultdict(list)
    for change in changes:
        by_type[change["type"]].append(change)
    joined = {aid: seconds(a["joined"]) for aid, a in agents.items()}
    beat = {aid: seconds(a["heartbeat_last"]) for aid, a in agents.items()}
    assert {c["id"] for c in by_type["new_agent"]} == {
        aid for aid, at in joined.items() if at > NOW - KEEP_CHANGES
    }
    last_beat: dict[str, float] = {}
    for change in by_type["heartbeat"]:
        at = seconds(change["ts"])
        assert at >= joined[change["id"]]  # nobody beats before joining
        last_beat[change["id"]] = max(last_beat.get(change["id"], 0), at)
    assert set(last_beat) == {aid for aid, at in beat.items() if at > NOW - KEEP_CHANGES}
    for aid, at in last_beat.items():
        assert beat[aid] <= at < beat[aid] + 2 * 3600  # the processing run after it
    dormant = {
        aid
        for aid, a in agents.items()
        if a["status"] == "dormant" and beat[aid] + DORMANT_AFTER > NOW - KEEP_CHANGES
    }
    assert {c["id"] for c in by_type["agent_dormant"]} == dormant
    audits = by_type["heartbeat_audit"]
    assert len(audits) == 7 and audits[-1]["ts"] == "2026-11-01T12:00:00Z"
    stats = docs[STATS]
    assert (audits[-1]["total_active"], audits[-1]["total_dormant"]) == (
        stats["active_agents"],
        stats["dormant_agents"],
    )
    assert sum(a["agents_marked_dormant"] for a in audits) == len(dormant)
    pokes = [p for p in docs[POKES]["pokes"] if "context" not in p]
    assert Counter(c["target"] for c in by_type["poke"]) == Counter(
        p["target_agent"] for p in pokes if seconds(p["timestamp"]) > NOW - KEEP_CHANGES
    )


def graph_from(docs: dict[str, Any]) -> Counter:
    """The social graph as the pulse defines it, counted independently of the sandbox's."""
    weights: Counter = Counter()

    def add(a: str, b: str, delta: int = 1) -> None:
        if a and b and a != b:
            weights[(a, b)] += delta
            weights[(b, a)] += delta

    author = {p["number"]: p["author"] for p in docs[POSTED_LOG]["posts"]}
    for comment in docs[POSTED_LOG]["comments"]:
        add(comment["author"], author.get(comment["discussion_number"]))
    for poke in docs[POKES]["pokes"]:
        if "context" not in poke:
            add(poke["from_agent"], poke["target_agent"])
    for follow in docs[FOLLOWS]["follows"]:
        add(follow["follower"], follow["followed"])
    return +weights


def check_graph(docs: dict[str, Any]) -> None:
    graph = docs[SOCIAL_GRAPH]
    edges = {(e["source"], e["target"]): e["weight"] for e in graph["edges"]}
    assert len(edges) == len(graph["edges"]) == graph["_meta"]["total_edges"]
    assert edges == dict(graph_from(docs))
    weights = [e["weight"] for e in graph["edges"]]
    assert weights == sorted(weights, reverse=True)
    strength = Counter()
    for (source, _), weight in edges.items():
        strength[source] += weight
    ids = [n["id"] for n in graph["nodes"]]
    assert ids == sorted(strength) and graph["_meta"]["total_nodes"] == len(ids)
    for node in graph["nodes"]:
        assert node["in_degree"] == node["out_degree"] == strength[node["id"]]
        assert node["degree"] == node["in_degree"] + node["out_degree"]
    top = sorted(strength, key=lambda a: (-strength[a], a))[:10]
    assert graph["_meta"]["top_connectors"] == top


def test_the_social_graph_is_the_interactions(docs):
    check_graph(docs)


def test_the_demo_account_finds_an_inbox(docs):
    mine = [n for n in docs[NOTIFICATIONS]["notifications"] if n["agent_id"] == DEMO_LOGIN]
    assert Counter(n["type"] for n in mine) == {"poke": 3, "follow": 2}
    assert not any(n["read"] for n in mine)
    pokes = [p for p in docs[POKES]["pokes"] if p["target_agent"] == DEMO_LOGIN]
    assert len(pokes) == 4
    (pin,) = [p for p in pokes if "context" in p]
    assert pin["resolved"] is False
    follows = [f for f in docs[FOLLOWS]["follows"] if f["followed"] == DEMO_LOGIN]
    assert len(follows) == 2
    for entry in (*mine, *pokes):
        assert NOW - 3600 < seconds(entry.get("timestamp", "")) < NOW


# --- the processor keeps it so ---------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 5, 8, 0, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


async def post_action(client, action: str, payload: dict[str, Any]) -> int:
    from tui.actions.issue_body import compose_issue

    request = compose_issue(action, payload, None)
    response = await client.post(ISSUES, json=request.as_json(), headers=AUTH)
    assert response.status_code == 201, response.text
    return response.json()["number"]


async def served(client) -> dict[str, Any]:
    out = {}
    for name in (*PULSE_FILES, AGENTS, POSTED_LOG):
        response = await client.get(f"/state/{name}")
        assert response.status_code == 200
        out[name] = response.json()
    return out


async def test_actions_show_in_the_pulse_once_the_processor_had_its_delay():
    clock = Clock()
    faults = Faults(process_delay=30, inbox_delay=60)
    app = create_app(agents=60, clock=clock, faults=faults)
    async with in_process_client(app) as client:
        await post_action(client, "register_agent", {"name": "D", "framework": "f", "bio": "b"})
        clock.advance(90)
        before = await served(client)
        target = next(iter(before[AGENTS]["agents"]))
        assert before[CHANGES]["changes"][-1]["id"] == DEMO_LOGIN  # joined
        assert before[CHANGES]["changes"][-1]["type"] == "new_agent"

        await post_action(client, "poke", {"target_agent": target, "message": "Wake up!"})
        await post_action(client, "heartbeat", {})
        await post_action(client, "follow_agent", {"target_agent": target})
        clock.advance(30)  # queued, not applied yet
        assert await served(client) == before
        clock.advance(60)
        after = await served(client)

    applied = clock.now.strftime("%Y-%m-%dT%H:%M:%SZ")  # queued after 30 s, applied 60 s later
    assert after[POKES]["pokes"][-1] == {
        "from_agent": DEMO_LOGIN,
        "target_agent": target,
        "message": "Wake up!",
        "timestamp": applied,
    }
    news = after[NOTIFICATIONS]["notifications"][-2:]
    assert news == [
        {
            "agent_id": target,
            "type": "poke",
            "from_agent": DEMO_LOGIN,
            "timestamp": applied,
            "read": False,
            "detail": "Wake up!",
        },
        {
            "agent_id": target,
            "type": "follow",
            "from_agent": DEMO_LOGIN,
            "timestamp": applied,
            "read": False,
            "detail": "",
        },
    ]
    assert after[NOTIFICATIONS]["_meta"]["count"] == len(after[NOTIFICATIONS]["notifications"])
    assert after[CHANGES]["changes"][-3:] == [
        {"ts": applied, "type": "poke", "target": target},
        {"ts": applied, "type": "heartbeat", "id": DEMO_LOGIN},
        {"ts": applied, "type": "follow", "id": DEMO_LOGIN, "target": target},
    ]
    assert after[FOLLOWS]["follows"][-1] == {
        "follower": DEMO_LOGIN,
        "followed": target,
        "timestamp": applied,
    }
    check_graph(after)
    edges = {(e["source"], e["target"]): e["weight"] for e in after[SOCIAL_GRAPH]["edges"]}
    old = {(e["source"], e["target"]): e["weight"] for e in before[SOCIAL_GRAPH]["edges"]}
    assert edges[(DEMO_LOGIN, target)] == old.get((DEMO_LOGIN, target), 0) + 2  # poke, follow


async def test_an_unfollow_takes_the_follow_and_its_weight_away():
    app = create_app(agents=60, processor="classic")
    async with in_process_client(app) as client:
        before = await served(client)
        generated = before[FOLLOWS]["follows"][0]  # a follow the world began with
        follower, followed = generated["follower"], generated["followed"]

        async def as_follower(action: str) -> httpx.Response:
            payload = {"target_agent": followed}
            body = {"action": action, "payload": payload, "actor": follower}
            return await client.post("/_sandbox/apply", json=body)

        response = await as_follower("unfollow_agent")
        assert response.json()["result"] == "applied", response.text
        assert (await as_follower("follow_agent")).json()["result"] == "applied"
        twice = await as_follower("follow_agent")
        assert twice.status_code == 409 and "already follow" in twice.json()["reason"]
        after = await served(client)
    assert after[FOLLOWS]["follows"][:-1] == before[FOLLOWS]["follows"][1:]
    assert after[FOLLOWS]["follows"][-1]["follower"] == follower
    kinds = [c["type"] for c in after[CHANGES]["changes"][-2:]]
    assert kinds == ["unfollow", "follow"]
    check_graph(after)
    agents_before, agents_after = before[AGENTS]["agents"], after[AGENTS]["agents"]
    for who, key in ((follower, "following_count"), (followed, "follower_count")):
        assert agents_after[who][key] == agents_before[who][key]  # down one, up one


async def test_karma_and_recruits_notify_as_the_deployment_does():
    app = create_app(agents=60, processor="classic")
    network = app.state.sandbox.network
    actor = next(a for a, v in network.docs[AGENTS]["agents"].items() if v["status"] == "active")
    other = next(a for a in network.docs[AGENTS]["agents"] if a != actor)
    now = datetime(2026, 11, 2, tzinfo=UTC)
    network.apply("transfer_karma", {"target_agent": other, "amount": 3}, actor, now)
    network.apply("recruit_agent", {"name": "Nova Scout", "framework": "f", "bio": "b"}, actor, now)
    notes = docs_of(network)[NOTIFICATIONS]["notifications"][-2:]
    assert [(n["type"], n["agent_id"], n["from_agent"], n["detail"]) for n in notes] == [
        ("karma_received", other, actor, "Transferred 3 karma"),
        ("recruit_success", actor, "nova-scout", "Recruited Nova Scout"),
    ]
    changes = docs_of(network)[CHANGES]["changes"][-2:]
    assert changes == [
        {
            "ts": "2026-11-02T00:00:00Z",
            "type": "karma_transfer",
            "id": actor,
            "target": other,
            "amount": 3,
        },
        {"ts": "2026-11-02T00:00:00Z", "type": "recruit", "id": actor, "name": "Nova Scout"},
    ]


def test_a_network_reads_its_pulse_only_when_it_needs_to_and_applies_the_same():
    """Held as bytes, the pulse documents an action touches are read when it is applied: the
    files come out as those of a network that read everything at once."""
    lazy = DemoNetwork.generate(seed=7, agents=60)
    kept = (*STATE_FILE_NAMES, POSTED_LOG, *PULSE_FILES[:-1])
    eager = DemoNetwork(
        {name: json.loads(lazy.files[name]) for name in kept},
        generated_at=lazy.generated_at,
        conversation=Conversation.from_json(lazy.conversation.as_json()),
    )
    assert eager.files == lazy.files
    agents = [a for a, v in lazy.docs[AGENTS]["agents"].items() if v["status"] == "active"]
    me, other = agents[:2]
    now = datetime(2026, 11, 2, 9, tzinfo=UTC)
    steps = [
        ("register_agent", {"name": "N", "framework": "f", "bio": "b"}, "newcomer"),
        ("heartbeat", {}, me),
        ("poke", {"target_agent": other, "message": "hi"}, me),
        ("follow_agent", {"target_agent": other}, me),
        ("unfollow_agent", {"target_agent": other}, me),
        ("transfer_karma", {"target_agent": other, "amount": 2}, me),
        ("recruit_agent", {"name": "Rec Ruit", "framework": "f", "bio": "b"}, me),
        ("create_channel", {"slug": "lazy-room", "name": "L", "description": "d"}, me),
        ("update_profile", {"bio": "new"}, me),
        ("verify_agent", {"github_username": me}, me),
        ("propose_seed", {"text": "Read lazily"}, me),
    ]
    for action, payload, actor in steps:
        assert lazy.apply(action, payload, actor, now) == eager.apply(action, payload, actor, now)
        assert lazy.files == eager.files, action
    assert lazy.audit(now) == eager.audit(now) and lazy.files == eager.files


def test_service_text_is_published_as_it_was_sent():
    network = DemoNetwork.generate(seed=7, agents=60)
    hostile = "[b]bold[/b] \x1b[31mred\x1b[0m <script>x</script>"
    actor, target = list(network.docs[AGENTS]["agents"])[:2]
    network.apply("poke", {"target_agent": target, "message": hostile}, actor, datetime.now(UTC))
    assert docs_of(network)[NOTIFICATIONS]["notifications"][-1]["detail"] == hostile
    assert docs_of(network)[POKES]["pokes"][-1]["message"] == hostile


def test_a_network_without_a_pulse_publishes_none_and_applies_as_before():
    network = DemoNetwork(generate_state(seed=7, agents=30), generated_at="2026-11-01T12:00:00Z")
    assert not set(PULSE_FILES) & set(network.files)
    actor, target = list(network.docs[AGENTS]["agents"])[:2]
    changed = network.apply("poke", {"target_agent": target}, actor, datetime.now(UTC))
    assert changed == {AGENTS, STATS}


async def test_comments_count_in_the_graph_when_they_are_published():
    clock = Clock()
    app = create_app(agents=60, clock=clock, faults=Faults(process_delay=45))
    network = app.state.sandbox.network
    post = network.docs[POSTED_LOG]["posts"][-1]
    commenter = next(a for a in network.docs[AGENTS]["agents"] if a != post["author"])
    before = docs_of(network)[SOCIAL_GRAPH]
    network.make_comment(
        post["number"], f"*— **{commenter}***\n\nAgreed.", "roost-demo", clock(), delay=45
    )
    assert docs_of(network)[SOCIAL_GRAPH] == before
    clock.advance(46)
    network.publish_due(clock())
    after = docs_of(network)
    check_graph(after)
    weight = {(e["source"], e["target"]): e["weight"] for e in after[SOCIAL_GRAPH]["edges"]}
    old = {(e["source"], e["target"]): e["weight"] for e in before["edges"]}
    pair = (commenter, post["author"])
    assert weight[pair] == old.get(pair, 0) + 1


# --- the daily audit ---------------------------------------------------------------------------


async def test_the_heartbeat_audit_marks_the_silent_dormant():
    clock = Clock()
    clock.now = DEFAULT_EPOCH + timedelta(days=3)
    app = create_app(agents=60, clock=clock)
    async with in_process_client(app) as client:
        before = await served(client)
        marked = (await client.post("/_sandbox/audit")).json()["marked_dormant"]
        after = await served(client)
        stats = (await client.get("/state/stats.json")).json()
    cutoff = (clock.now - timedelta(seconds=DORMANT_AFTER)).timestamp()
    expected = sorted(
        aid
        for aid, a in before[AGENTS]["agents"].items()
        if a["status"] == "active" and seconds(a["heartbeat_last"]) <= cutoff
    )
    assert marked and sorted(marked) == expected
    assert all(after[AGENTS]["agents"][aid]["status"] == "dormant" for aid in marked)
    stamp = clock.now.strftime("%Y-%m-%dT%H:%M:%SZ")
    tail = after[CHANGES]["changes"][-len(marked) - 1 :]
    assert tail[:-1] == [{"ts": stamp, "type": "agent_dormant", "id": aid} for aid in marked]
    assert tail[-1] == {
        "ts": stamp,
        "type": "heartbeat_audit",
        "agents_marked_dormant": len(marked),
        "total_active": stats["active_agents"],
        "total_dormant": stats["dormant_agents"],
    }


# --- soul pages ----------------------------------------------------------------------------------


@pytest.fixture
async def souls():
    app = create_app(agents=60)
    async with in_process_client(app) as client:
        yield app, client


def page_path(agent: str) -> str:
    return f"/state/memory/{agent}.md"


async def test_most_agents_have_a_soul_page_served_with_an_etag(souls):
    app, client = souls
    network = app.state.sandbox.network
    agents = network.docs[AGENTS]["agents"]
    found = {aid: (await client.get(page_path(aid))).status_code for aid in agents}
    assert set(found.values()) == {200, 404}
    assert sum(code == 200 for code in found.values()) >= 0.7 * len(agents)
    for aid, code in found.items():
        if agents[aid]["framework"] in ("platform", "github"):
            assert code == 404
    agent = next(aid for aid, code in found.items() if code == 200)
    response = await client.get(page_path(agent))
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    etag = response.headers["etag"]
    assert etag == f'"{hashlib.sha256(response.content).hexdigest()}"'
    again = await client.get(page_path(agent), headers={"If-None-Match": etag})
    assert again.status_code == 304 and not again.content
    manifest = (await client.get(f"/state/{MANIFEST_FILE}")).json()["files"]
    assert not any(name.startswith("memory") for name in manifest)


async def test_a_soul_page_tells_of_the_agent_with_real_post_numbers(souls):
    app, client = souls
    network = app.state.sandbox.network
    log = network.docs[POSTED_LOG]
    numbers = {p["number"] for p in log["posts"]} | {
        p["number"] for p in network.docs[TRENDING]["trending"]
    }
    pages = 0
    for aid, agent in network.docs[AGENTS]["agents"].items():
        response = await client.get(page_path(aid))
        if response.status_code != 200:
            continue
        pages += 1
        text = response.text
        assert text.startswith(f"# {agent['name']}\n")
        for heading in ("## Identity", "## Convictions", "## Relationships", "## History"):
            assert f"\n{heading}\n" in text
        assert f"- **ID:** {aid}" in text and "## Frame " in text
        import re

        mentioned = {int(n) for n in re.findall(r"#(\d+)", text)}
        assert mentioned and mentioned <= numbers
        mine = [p["number"] for p in log["posts"] if p["author"] == aid]
        mine += [c["discussion_number"] for c in log["comments"] if c["author"] == aid]
        assert mentioned & set(mine)
    assert pages


async def test_missing_and_unpublished_soul_pages_answer_404(souls):
    app, client = souls
    for missing in ("system", "nobody-at-all", DEMO_LOGIN, "../agents", ""):
        assert (await client.get(page_path(missing))).status_code == 404
    network = app.state.sandbox.network
    agent = next(aid for aid in network.docs[AGENTS]["agents"] if network.soul_page(aid))
    faults = app.state.sandbox.faults
    faults.update({"unpublished": [f"memory/{agent}.md"]})
    assert (await client.get(page_path(agent))).status_code == 404
    faults.update({"unpublished": ["memory"]})
    assert (await client.get(page_path(agent))).status_code == 404
    faults.reset()
    assert (await client.get(page_path(agent))).status_code == 200


async def test_a_soul_page_grows_when_its_agent_posts(souls):
    app, client = souls
    network = app.state.sandbox.network
    assert (await client.get(page_path(DEMO_LOGIN))).status_code == 404
    now = datetime(2026, 11, 2, 9, tzinfo=UTC)
    network.apply(
        "register_agent", {"name": "Demo", "framework": "roost", "bio": "b"}, DEMO_LOGIN, now
    )
    network.apply(
        "create_post", {"channel": "general", "title": "First words", "body": "Hi"}, DEMO_LOGIN, now
    )
    number = network.docs[POSTED_LOG]["posts"][-1]["number"]
    page = await client.get(page_path(DEMO_LOGIN))
    assert page.status_code == 200 and f"#{number} First words" in page.text


def test_soul_pages_are_the_same_for_the_same_seed():
    one, two = DemoNetwork.generate(seed=9, agents=40), DemoNetwork.generate(seed=9, agents=40)
    for aid in list(one.docs[AGENTS]["agents"])[:10]:
        assert one.soul_page(aid) == two.soul_page(aid)


# --- knobs ---------------------------------------------------------------------------------------


async def test_any_pulse_file_can_be_unpublished():
    app = create_app(agents=30, faults=Faults(unpublished={NOTIFICATIONS, SOCIAL_GRAPH}))
    async with in_process_client(app) as client:
        manifest = (await client.get(f"/state/{MANIFEST_FILE}")).json()["files"]
        assert NOTIFICATIONS not in manifest and SOCIAL_GRAPH not in manifest
        assert POKES in manifest
        assert (await client.get(f"/state/{NOTIFICATIONS}")).status_code == 404
        assert (await client.get(f"/state/{POKES}")).status_code == 200


def test_sandbox_serve_can_play_a_deployment_without_the_pulse(monkeypatch):
    import tui.sandbox.server

    seen: dict[str, Any] = {}

    async def fake_serve(host: str, port: int, **kwargs: Any) -> None:
        seen.update(kwargs)

    monkeypatch.setattr(tui.sandbox.server, "serve", fake_serve)
    argv = ["sandbox", "serve", "--port", "0", "--unpublish", NOTIFICATIONS]
    assert main([*argv, "--unpublish", "memory"]) == 0
    assert seen["faults"].unpublished == {NOTIFICATIONS, "memory"}
    assert main(["sandbox", "serve", "--port", "0"]) == 0
    assert seen["faults"].unpublished == set()


# --- the demo world --------------------------------------------------------------------------


async def test_the_demo_world_keeps_its_pulse(tmp_path):
    world = DemoWorld(tmp_path)
    app = world.open_app(agents=30)
    async with in_process_client(app) as client:
        first = await served(client)
    joined = first[CHANGES]["changes"][-1]
    assert (joined["type"], joined["id"]) == ("new_agent", DEMO_LOGIN)
    mine = [n for n in first[NOTIFICATIONS]["notifications"] if n["agent_id"] == DEMO_LOGIN]
    assert len(mine) == 5
    kept = json.loads((tmp_path / "world.json").read_text())
    assert not set(PULSE_FILES) & set(kept["docs"])
    assert {n: t.encode() for n, t in kept["published"].items()} == {
        name: app.state.sandbox.network.files[name] for name in PULSE_FILES
    }
    again = DemoWorld(tmp_path).open_app(agents=30)
    async with in_process_client(again) as client:
        assert await served(client) == first


# --- at scale ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_fifty_thousand_agents_carry_the_promised_pulse():
    network = DemoNetwork.generate(seed=7, agents=50_000)
    files = network.files
    notifications = parse_state(NOTIFICATIONS, files[NOTIFICATIONS])
    changes = parse_state(CHANGES, files[CHANGES])
    assert len(notifications.notifications) == 200_000
    assert len(changes.changes) == 150_000
    graph = parse_state(SOCIAL_GRAPH, files[SOCIAL_GRAPH])
    assert len(graph.nodes) > 40_000 and graph.edges[0].weight >= graph.edges[-1].weight
    for name in (POKES, FOLLOWS):
        parse_state(name, files[name])
    page = next(p for p in map(network.soul_page, list(network.docs[AGENTS]["agents"])[:50]) if p)
    assert page.startswith(b"# ")
