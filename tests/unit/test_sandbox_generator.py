"""The deterministic demo network generator."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tui.network.models import Agent
from tui.network.state_files import STATE_FILE_NAMES
from tui.sandbox.generator import (
    DEFAULT_EPOCH,
    build_manifest,
    generate_state,
    serialize,
)

REAL = Path(__file__).resolve().parents[3] / "shared" / "real" / "rappterbook-state"


@pytest.fixture(scope="module")
def state():
    return generate_state()


def as_bytes(docs):
    return {name: serialize(doc) for name, doc in docs.items()}


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def iter_timestamps(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from iter_timestamps(v)
    elif isinstance(value, list):
        for v in value:
            yield from iter_timestamps(v)
    elif isinstance(value, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT[0-9:.]+(Z|\+00:00)", value):
        yield value


# --- determinism ----------------------------------------------------------------------------


def test_same_arguments_give_byte_identical_files(state):
    again = as_bytes(generate_state(seed=7, agents=300, epoch=DEFAULT_EPOCH))
    assert as_bytes(state) == again
    assert set(again) == set(STATE_FILE_NAMES)


def test_other_seed_or_epoch_gives_other_files(state):
    assert as_bytes(generate_state(seed=8)) != as_bytes(state)
    later = DEFAULT_EPOCH + timedelta(days=3)
    moved = generate_state(epoch=later)
    assert moved["stats.json"]["last_updated"] == "2026-11-04T12:00:00Z"
    # same structure, shifted times
    assert list(moved["agents.json"]["agents"]) == list(state["agents.json"]["agents"])


def test_determinism_across_processes():
    """No hash randomisation or wall clock leaks into the output."""
    code = (
        "import hashlib; from tui.sandbox.generator import generate_state, serialize;"
        "d = generate_state(seed=3, agents=120);"
        "print(hashlib.sha256(b''.join(serialize(d[k]) for k in sorted(d))).hexdigest())"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            check=True,
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": str(seed), "PATH": ""},
            cwd=Path(__file__).resolve().parents[2],
        ).stdout
        for seed in (1, 2)
    }
    assert len(outputs) == 1


def test_no_time_after_the_epoch(state):
    stamps = [parse_time(s) for doc in state.values() for s in iter_timestamps(doc)]
    assert len(stamps) > 600
    assert max(stamps) <= DEFAULT_EPOCH
    assert min(stamps) > DEFAULT_EPOCH - timedelta(days=365)


def test_naive_epoch_is_utc():
    naive = generate_state(agents=20, epoch=datetime(2026, 11, 1, 12, 0, 0))
    assert as_bytes(naive) == as_bytes(generate_state(agents=20))


def test_rejects_empty_network():
    with pytest.raises(ValueError):
        generate_state(agents=0)


@pytest.mark.parametrize("count", [1, 2, 9, 10, 11])
def test_tiny_networks_are_consistent(count):
    docs = generate_state(agents=count)
    assert len(docs["agents.json"]["agents"]) == count
    assert_stats_consistent(docs)


# --- shape and counts -----------------------------------------------------------------------


def test_sizes(state):
    agents = state["agents.json"]["agents"]
    assert len(agents) == 300
    assert len(state["channels.json"]["channels"]) >= 20
    assert len(state["trending.json"]["trending"]) >= 50
    data = as_bytes(state)
    per_agent = len(data["agents.json"]) / len(agents)
    assert 800 < per_agent < 1100  # ~950 bytes/agent like the published file
    assert len(data["stats.json"]) < 1000
    assert data["agents.json"].startswith(b'{\n  "agents": {\n')


def assert_stats_consistent(docs):
    agents = docs["agents.json"]["agents"]
    channels = docs["channels.json"]["channels"]
    stats = docs["stats.json"]
    statuses = Counter(a["status"] for a in agents.values())
    assert stats["total_agents"] == len(agents) == docs["agents.json"]["_meta"]["count"]
    assert stats["active_agents"] == statuses["active"]
    assert stats["dormant_agents"] == statuses["dormant"]
    assert stats["total_channels"] == len(channels) == docs["channels.json"]["_meta"]["count"]
    assert stats["total_posts"] == sum(c["post_count"] for c in channels.values())
    assert stats["total_posts"] == sum(a["post_count"] for a in agents.values())
    assert stats["total_comments"] == sum(a["comment_count"] for a in agents.values())
    assert stats["total_pokes"] == sum(a.get("poke_count", 0) for a in agents.values())
    assert stats["total_topics"] == sum(1 for c in channels.values() if c.get("tag"))
    assert stats["total_proposals"] == len(docs["seeds.json"]["proposals"])
    assert stats["total_summons"] == channels["summon"]["post_count"]
    assert stats["last_updated"] == docs["agents.json"]["_meta"]["last_updated"]
    assert docs["trending.json"]["_meta"]["total_posts_analyzed"] == stats["total_posts"]


def test_stats_are_consistent(state):
    assert_stats_consistent(state)
    assert {"total_topics", "total_resurrections"} <= set(state["stats.json"])


def test_agent_ids_and_required_fields(state):
    agents = state["agents.json"]["agents"]
    ids = list(agents)
    zion = [a for a in ids if re.fullmatch(r"zion-[a-z]+-\d{2,}", a)]
    assert len(zion) > 150
    assert len(ids) - len(zion) > 50  # github-style handles, bots, platform agents
    assert "system" in agents and "mod-team" in agents
    assert any(re.search(r"[A-Z]", a) for a in ids)  # mixed-case handles exist, as in practice
    for agent_id, agent in agents.items():
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", agent_id)
        for key in (
            "name",
            "framework",
            "bio",
            "avatar_seed",
            "joined",
            "heartbeat_last",
            "status",
            "post_count",
            "comment_count",
            "karma",
            "karma_balance",
        ):
            assert key in agent, (agent_id, key)
        assert parse_time(agent["joined"]) <= parse_time(agent["heartbeat_last"])
        assert agent["name"] and agent["bio"]
        assert all(isinstance(agent[k], int) for k in ("post_count", "comment_count", "karma"))
        for slug in agent.get("subscribed_channels", []):
            assert slug in state["channels.json"]["channels"]


def test_optional_field_variety(state):
    agents = list(state["agents.json"]["agents"].values())
    have = Counter(key for a in agents for key in a)
    n = len(agents)
    # fields real data omits on some agents
    for key in ("traits", "subscribed_channels"):
        assert 0 < have[key] < n, key
    # optional fields present on some agents only
    for key in Agent.OPTIONAL_FIELDS:
        assert 0 < have[key] < n, key
    avatar_types = {type(a["avatar_url"]) for a in agents if "avatar_url" in a}
    assert avatar_types == {str, type(None)}
    assert {a["public_key"] for a in agents if "public_key" in a} == {None}
    assert any(a["avatar_seed"] is None for a in agents)
    # unknown fields, as new ones appear over time
    known = {
        "name", "framework", "bio", "avatar_seed", "joined", "heartbeat_last", "status",
        "subscribed_channels", "post_count", "comment_count", "karma", "karma_balance", "traits",
        "display_name", "avatar_url", "public_key", "callback_url", "gateway_type",
        "gateway_url", "verified", "poke_count", "follower_count", "following_count",
    }  # fmt: skip
    assert set(have) - known
    statuses = Counter(a["status"] for a in agents)
    assert statuses["active"] > statuses["dormant"] > 0
    assert len({a["framework"] for a in agents}) >= 5
    traits = next(a["traits"] for a in agents if "traits" in a)
    assert len(traits) == 10 and all(isinstance(v, float) for v in traits.values())
    assert abs(sum(traits.values()) - 1.0) < 0.01
    # a few timestamps carry microseconds
    assert any("." in a["joined"] for a in agents)


def test_larger_network_has_other_statuses():
    agents = generate_state(agents=2000)["agents.json"]["agents"].values()
    assert set(Counter(a["status"] for a in agents)) - {"active", "dormant"}


def test_channels_shape(state):
    channels = state["channels.json"]["channels"]
    without_slug = [c for c in channels.values() if "slug" not in c]
    assert without_slug and all("rules" not in c and "verified" not in c for c in without_slug)
    assert all("creator" in c for c in without_slug)
    with_slug = {k: c for k, c in channels.items() if "slug" in c}
    assert all(c["slug"] == k for k, c in with_slug.items())
    topics = [c for c in channels.values() if c.get("tag")]
    assert len(topics) >= 8
    assert all(c["constitution"] and c["tag"].startswith("[") for c in topics)
    for channel in channels.values():
        assert {"name", "description", "created_at", "post_count", "topic_affinity", "icon"} <= set(
            channel
        )
    assert any(ord(ch) > 127 for c in channels.values() for ch in c["icon"])


def test_trending_shape(state):
    trending = state["trending.json"]
    agents = state["agents.json"]["agents"]
    channels = state["channels.json"]["channels"]
    posts = trending["trending"]
    keys = {
        "title", "author", "channel", "upvotes", "downvotes", "commentCount", "score",
        "number", "url",
    }  # fmt: skip
    assert all(set(p) == keys for p in posts)
    assert all(isinstance(p["score"], float) for p in posts)
    assert [p["score"] for p in posts] == sorted((p["score"] for p in posts), reverse=True)
    assert len({p["number"] for p in posts}) == len(posts)
    assert all(p["author"] in agents and p["channel"] in channels for p in posts)
    assert all(p["url"].endswith(f"/discussions/{p['number']}") for p in posts)
    tagged = [p for p in posts if channels[p["channel"]].get("tag")]
    assert all(p["title"].startswith(channels[p["channel"]]["tag"]) for p in tagged)
    assert len(trending["top_agents"]) == 10
    assert all(row["agent_id"] in agents for row in trending["top_agents"])
    assert all(
        row["posts"] == agents[row["agent_id"]]["post_count"] for row in trending["top_agents"]
    )
    assert all(row["channel"] in channels for row in trending["top_channels"])
    assert all(channels[row["topic"]].get("tag") for row in trending["top_topics"])
    assert set(trending["top_agents"][0]) == {
        "agent_id",
        "posts",
        "comments_received",
        "reactions_received",
        "score",
    }


def test_seeds_shape(state):
    seeds = state["seeds.json"]
    agents = state["agents.json"]["agents"]
    assert set(seeds) == {"active", "proposals", "queue", "history"}
    active = seeds["active"]
    assert {"id", "text", "context", "source", "tags", "injected_at", "frames_active"} <= set(
        active
    )
    assert set(active["convergence"]) >= {
        "score",
        "resolved",
        "signal_count",
        "channels",
        "agents",
        "synthesis",
    }
    assert all(a in agents for a in active["convergence"]["agents"])
    proposals = seeds["proposals"]
    assert len(proposals) >= 10
    assert len({p["id"] for p in proposals}) == len(proposals)
    for p in proposals:
        assert set(p) == {
            "id",
            "text",
            "context",
            "author",
            "tags",
            "proposed_at",
            "votes",
            "vote_count",
        }
        assert p["vote_count"] == len(p["votes"]) == len(set(p["votes"]))
        assert all(v in agents for v in p["votes"]) and p["author"] in agents
    assert any(p["vote_count"] > 3 for p in proposals)
    assert seeds["queue"] and all("queued_at" in q for q in seeds["queue"])
    assert len(seeds["history"]) >= 5 and all("archived_at" in h for h in seeds["history"])
    assert any("resolution" in h for h in seeds["history"])
    ids = [active["id"]] + [s["id"] for s in seeds["queue"] + seeds["history"]]
    assert len(set(ids)) == len(ids)


# --- manifest -------------------------------------------------------------------------------


def test_build_manifest(state):
    files = as_bytes(state)
    manifest = json.loads(build_manifest(files, "2026-11-01T12:00:00Z"))
    assert manifest["_meta"]["generated_at"] == "2026-11-01T12:00:00Z"
    assert manifest["_meta"]["description"]
    assert set(manifest["files"]) == set(STATE_FILE_NAMES)
    for name, data in files.items():
        entry = manifest["files"][name]
        assert entry == {"hash": hashlib.sha256(data).hexdigest(), "size": len(data)}
    assert build_manifest(files, "x") == build_manifest(dict(reversed(files.items())), "x")


def test_serialize_format():
    assert serialize({"a": "é", "b": [1]}) == '{\n  "a": "é",\n  "b": [\n    1\n  ]\n}'.encode()


# --- scale ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_fifty_thousand_agents():
    docs = generate_state(agents=50_000)  # its speed is the bench's business, not a test's
    agents_bytes = serialize(docs["agents.json"])
    assert len(docs["agents.json"]["agents"]) == 50_000
    assert 40_000_000 < len(agents_bytes) < 55_000_000
    assert_stats_consistent(docs)


# --- the core's models accept every generated file ------------------------------------------


def test_generated_files_validate_with_the_core_models(state):
    models = pytest.importorskip("tui.network.models")
    files = as_bytes(state)
    for name, data in files.items():
        models.parse_state(name, data)
    if hasattr(models, "parse_manifest"):
        models.parse_manifest(build_manifest(files, "2026-11-01T12:00:00Z"))


# --- compared with the published files (skipped in a fresh clone) ---------------------------


@pytest.mark.skipif(not REAL.is_dir(), reason="reference data not present")
def test_shapes_match_the_published_files(state):
    real = {name: json.loads((REAL / name).read_bytes()) for name in STATE_FILE_NAMES}
    for name in STATE_FILE_NAMES:
        assert set(real[name]) <= set(state[name]) | {"proposals"}, name
    # every field all real agents have, every generated agent has too
    real_agents = list(real["agents.json"]["agents"].values())
    always = set.intersection(*(set(a) for a in real_agents))
    ours = list(state["agents.json"]["agents"].values())
    assert always <= set.intersection(*(set(a) for a in ours))
    # every optional agent field the real data has appears in ours too
    seen_real = set().union(*(set(a) for a in real_agents))
    seen_ours = set().union(*(set(a) for a in ours))
    assert seen_real - {"last_amendment"} <= seen_ours
    real_post_keys = set(real["trending.json"]["trending"][0])
    assert set(state["trending.json"]["trending"][0]) == real_post_keys
    assert set(real["stats.json"]) <= set(state["stats.json"])
    real_channel_keys = set().union(*(set(c) for c in real["channels.json"]["channels"].values()))
    our_channel_keys = set().union(*(set(c) for c in state["channels.json"]["channels"].values()))
    assert real_channel_keys <= our_channel_keys
    # nothing of the reference text made its way into the generator's output
    real_bios = {a["bio"] for a in real_agents}
    assert not real_bios & {a["bio"] for a in ours}
