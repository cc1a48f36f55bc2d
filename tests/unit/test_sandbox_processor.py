"""The demo network's action processor and the DemoNetwork that republishes its changes."""

from __future__ import annotations

import copy
import hashlib
import json
from datetime import UTC, datetime

import pytest

from tui.actions.catalog import CATALOG
from tui.network.models import Agent, Channel, convert
from tui.network.state_files import (
    CONVERSATION_FILES,
    MANIFEST_FILE,
    PULSE_FILES,
    STATE_FILE_NAMES,
)
from tui.sandbox.deployment import ALL_ACTIONS
from tui.sandbox.generator import generate_state, serialize
from tui.sandbox.processor import HANDLERS, ActionRejected, apply_action
from tui.sandbox.published import DemoNetwork

NOW = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
STAMP = "2026-11-02T09:30:00Z"
ME = "new-agent"


@pytest.fixture(scope="module")
def base_docs():
    return generate_state(seed=11, agents=120)


@pytest.fixture
def docs(base_docs):
    docs = copy.deepcopy(base_docs)
    apply_action(
        docs,
        "register_agent",
        {"name": "New Agent", "framework": "python", "bio": "Testing."},
        ME,
        NOW,
    )
    return docs


def agents(docs):
    return docs["agents.json"]["agents"]


def other_agent(docs, *, exclude=(ME,)):
    return next(
        aid for aid, a in agents(docs).items() if aid not in exclude and a["status"] == "active"
    )


def assert_consistent(docs):
    """The invariants the generator establishes must survive every action."""
    ag = agents(docs)
    channels = docs["channels.json"]["channels"]
    stats = docs["stats.json"]
    statuses = [a["status"] for a in ag.values()]
    assert stats["total_agents"] == len(ag) == docs["agents.json"]["_meta"]["count"]
    assert stats["active_agents"] == statuses.count("active")
    assert stats["dormant_agents"] == statuses.count("dormant")
    assert stats["total_channels"] == len(channels) == docs["channels.json"]["_meta"]["count"]
    assert stats["total_topics"] == sum(1 for c in channels.values() if c.get("tag"))
    assert stats["total_posts"] == sum(c["post_count"] for c in channels.values())
    assert stats["total_posts"] == sum(a["post_count"] for a in ag.values())
    assert stats["total_pokes"] == sum(a.get("poke_count", 0) for a in ag.values())
    proposals = docs["seeds.json"].get("proposals") or []
    assert stats["total_proposals"] == len(proposals)
    for proposal in proposals:
        assert proposal["vote_count"] == len(proposal["votes"]) == len(set(proposal["votes"]))
    numbers = [p["number"] for p in docs["trending.json"]["trending"]]
    assert len(numbers) == len(set(numbers))
    for aid, agent in ag.items():
        following = agent.get("following", [])
        assert agent.get("following_count", 0) >= 0
        if "following" in agent:
            assert agent["following_count"] == len(following)
            assert aid not in following


def test_every_known_action_has_a_handler():
    assert set(HANDLERS) == set(ALL_ACTIONS)


def test_the_deployment_knows_every_catalog_action_with_the_same_required_fields():
    """Two independent tables, roost's catalog and the demo deployment's, must agree: a form
    that sends what the deployment refuses would only be found in a demo."""
    for name, spec in CATALOG.items():
        assert name in ALL_ACTIONS, name
        required = {f.name for f in spec.fields if f.required}
        assert required == set(ALL_ACTIONS[name].required), name
        assert {f.name for f in spec.fields} == set(ALL_ACTIONS[name].fields), name


def test_register_agent(docs):
    agent = agents(docs)[ME]
    assert agent["name"] == "New Agent" and agent["framework"] == "python"
    assert agent["joined"] == agent["heartbeat_last"] == STAMP
    assert agent["status"] == "active"
    assert agent["post_count"] == 0 and agent["karma_balance"] > 0
    assert docs["agents.json"]["_meta"]["last_updated"] == STAMP
    assert_consistent(docs)
    with pytest.raises(ActionRejected, match="already registered"):
        apply_action(docs, "register_agent", {"name": "x", "framework": "y", "bio": "z"}, ME, NOW)


def test_register_with_optional_fields(base_docs):
    docs = copy.deepcopy(base_docs)
    payload = {
        "name": "Opt",
        "framework": "python",
        "bio": "b",
        "public_key": "ed25519:abc",
        "callback_url": "https://example.org/hook",
    }
    changed = apply_action(docs, "register_agent", payload, "opt-agent", NOW)
    assert changed == {"agents.json", "stats.json"}
    agent = agents(docs)["opt-agent"]
    assert agent["public_key"] == "ed25519:abc"
    assert agent["callback_url"] == "https://example.org/hook"
    with pytest.raises(ActionRejected, match="unknown channel"):
        apply_action(
            docs, "heartbeat", {"subscribed_channels": ["no-such-channel"]}, "opt-agent", NOW
        )


def test_unregistered_actor_is_rejected(base_docs):
    docs = copy.deepcopy(base_docs)
    with pytest.raises(ActionRejected, match="not a registered agent"):
        apply_action(docs, "heartbeat", {}, "stranger", NOW)


def test_heartbeat_revives_dormant_agent(docs):
    dormant = next(aid for aid, a in agents(docs).items() if a["status"] == "dormant")
    active_before = docs["stats.json"]["active_agents"]
    changed = apply_action(
        docs,
        "heartbeat",
        {"status_message": "back", "subscribed_channels": ["code", "meta"]},
        dormant,
        NOW,
    )
    assert changed == {"agents.json", "stats.json"}
    agent = agents(docs)[dormant]
    assert agent["status"] == "active" and agent["heartbeat_last"] == STAMP
    assert agent["status_message"] == "back"
    assert agent["subscribed_channels"] == ["code", "meta"]
    assert docs["stats.json"]["active_agents"] == active_before + 1
    assert_consistent(docs)
    # an active agent's heartbeat does not touch stats
    assert apply_action(docs, "heartbeat", {}, dormant, NOW) == {"agents.json"}


def test_poke(docs):
    target = other_agent(docs)
    before = agents(docs)[target].get("poke_count", 0)
    total = docs["stats.json"]["total_pokes"]
    assert apply_action(docs, "poke", {"target_agent": target}, ME, NOW) == {
        "agents.json",
        "stats.json",
    }
    assert agents(docs)[target]["poke_count"] == before + 1
    assert docs["stats.json"]["total_pokes"] == total + 1
    assert_consistent(docs)
    with pytest.raises(ActionRejected, match="not registered"):
        apply_action(docs, "poke", {"target_agent": "ghost-99"}, ME, NOW)
    with pytest.raises(ActionRejected, match="yourself"):
        apply_action(docs, "poke", {"target_agent": ME}, ME, NOW)


def test_follow_and_unfollow(docs):
    target = other_agent(docs)
    followers = agents(docs)[target].get("follower_count", 0)
    assert apply_action(docs, "follow_agent", {"target_agent": target}, ME, NOW) == {"agents.json"}
    assert agents(docs)[ME]["following"] == [target]
    assert agents(docs)[ME]["following_count"] == 1
    assert agents(docs)[target]["follower_count"] == followers + 1
    with pytest.raises(ActionRejected, match="already follow"):
        apply_action(docs, "follow_agent", {"target_agent": target}, ME, NOW)
    apply_action(docs, "unfollow_agent", {"target_agent": target}, ME, NOW)
    assert agents(docs)[ME]["following_count"] == 0
    assert agents(docs)[target]["follower_count"] == followers
    with pytest.raises(ActionRejected, match="do not follow"):
        apply_action(docs, "unfollow_agent", {"target_agent": target}, ME, NOW)
    with pytest.raises(ActionRejected, match="yourself"):
        apply_action(docs, "follow_agent", {"target_agent": ME}, ME, NOW)
    assert_consistent(docs)


def test_update_profile(docs):
    apply_action(
        docs,
        "update_profile",
        {"name": "Renamed", "bio": "New bio", "callback_url": None, "gateway_type": "openclaw"},
        ME,
        NOW,
    )
    agent = agents(docs)[ME]
    assert agent["name"] == "Renamed" and agent["bio"] == "New bio"
    assert agent["callback_url"] is None and agent["gateway_type"] == "openclaw"
    assert agent["last_renamed"] == STAMP
    with pytest.raises(ActionRejected, match="at least one field"):
        apply_action(docs, "update_profile", {}, ME, NOW)


def test_fields_the_deployment_does_not_read_are_ignored(docs):
    """The deployment checks the required fields only: anything else is not applied."""
    karma = agents(docs)[ME]["karma"]
    with pytest.raises(ActionRejected, match="at least one field"):
        apply_action(docs, "update_profile", {"karma": 10**6, "status": "admin"}, ME, NOW)
    assert agents(docs)[ME]["karma"] == karma and agents(docs)[ME]["status"] == "active"
    target = other_agent(docs)
    apply_action(docs, "poke", {"target_agent": target, "extra": {"x": 1}}, ME, NOW)
    assert "extra" not in agents(docs)[target]


def test_create_and_update_channel(docs):
    payload = {"slug": "tea-room", "name": "Tea Room", "description": "Calm."}
    assert apply_action(docs, "create_channel", payload, ME, NOW) == {
        "channels.json",
        "stats.json",
    }
    channel = docs["channels.json"]["channels"]["tea-room"]
    assert channel["created_by"] == ME and channel["post_count"] == 0
    assert channel["created_at"] == STAMP
    assert_consistent(docs)
    with pytest.raises(ActionRejected, match="already exists"):
        apply_action(docs, "create_channel", payload, ME, NOW)
    with pytest.raises(ActionRejected, match="already exists"):
        apply_action(
            docs, "create_channel", {"slug": "general", "name": "G", "description": "d"}, ME, NOW
        )
    assert apply_action(
        docs, "update_channel", {"slug": "tea-room", "rules": "Whisper."}, ME, NOW
    ) == {"channels.json"}
    assert channel["rules"] == "Whisper."
    other = other_agent(docs)
    with pytest.raises(ActionRejected, match="creator or a moderator"):
        apply_action(docs, "update_channel", {"slug": "tea-room", "name": "Mine"}, other, NOW)
    with pytest.raises(ActionRejected, match="no channel"):
        apply_action(docs, "update_channel", {"slug": "nope", "name": "x"}, ME, NOW)
    with pytest.raises(ActionRejected, match="at least one field"):
        apply_action(docs, "update_channel", {"slug": "tea-room"}, ME, NOW)


def test_moderators(docs):
    apply_action(
        docs, "create_channel", {"slug": "den", "name": "Den", "description": "d"}, ME, NOW
    )
    channel = docs["channels.json"]["channels"]["den"]
    helper, outsider = other_agent(docs), other_agent(docs, exclude=(ME, other_agent(docs)))
    payload = {"slug": "den", "target_agent": helper}
    assert apply_action(docs, "add_moderator", payload, ME, NOW) == {"channels.json"}
    assert channel["moderators"] == [helper]
    with pytest.raises(ActionRejected, match="already moderates"):
        apply_action(docs, "add_moderator", payload, ME, NOW)
    # a moderator may update the channel and add others; an outsider may not
    apply_action(docs, "update_channel", {"slug": "den", "rules": "Quiet."}, helper, NOW)
    with pytest.raises(ActionRejected, match="creator or a moderator"):
        apply_action(
            docs, "add_moderator", {"slug": "den", "target_agent": outsider}, outsider, NOW
        )
    with pytest.raises(ActionRejected, match="not registered"):
        apply_action(docs, "add_moderator", {"slug": "den", "target_agent": "ghost"}, ME, NOW)
    with pytest.raises(ActionRejected, match="no channel"):
        apply_action(docs, "add_moderator", {"slug": "nowhere", "target_agent": helper}, ME, NOW)
    assert apply_action(docs, "remove_moderator", payload, ME, NOW) == {"channels.json"}
    assert channel["moderators"] == []
    with pytest.raises(ActionRejected, match="does not moderate"):
        apply_action(docs, "remove_moderator", payload, ME, NOW)
    convert(Channel, channel)


def test_recruit_agent(docs):
    payload = {"name": "Nova Scout", "framework": "python", "bio": "Recruited."}
    assert apply_action(docs, "recruit_agent", payload, ME, NOW) == {"agents.json", "stats.json"}
    recruit = agents(docs)["nova-scout"]
    assert recruit["name"] == "Nova Scout" and recruit["recruited_by"] == ME
    assert recruit["status"] == "active" and recruit["joined"] == STAMP
    apply_action(docs, "recruit_agent", payload, ME, NOW)
    assert "nova-scout-2" in agents(docs)
    assert_consistent(docs)
    convert(Agent, recruit)
    with pytest.raises(ActionRejected, match="not a registered agent"):
        apply_action(docs, "recruit_agent", payload, "stranger", NOW)


def test_verify_agent(docs):
    assert apply_action(docs, "verify_agent", {"github_username": "new-agent"}, ME, NOW) == {
        "agents.json"
    }
    agent = agents(docs)[ME]
    assert agent["verified"] is True and agent["github_username"] == "new-agent"
    assert convert(Agent, agent).verified is True
    with pytest.raises(ActionRejected, match="must not be empty"):
        apply_action(docs, "verify_agent", {"github_username": " "}, ME, NOW)


def test_media_actions_change_no_state_file(docs):
    before = {name: serialize(doc) for name, doc in docs.items()}
    submit = {
        "channel": "general",
        "title": "A picture",
        "media_type": "image",
        "source_url": "https://example.invalid/a.png",
        "filename": "a.png",
        "description": "optional",
    }
    assert apply_action(docs, "submit_media", submit, ME, NOW) == set()
    verdict = {"submission_id": "sub-1", "decision": "approve"}
    assert apply_action(docs, "verify_media", verdict, ME, NOW) == set()
    assert {name: serialize(doc) for name, doc in docs.items()} == before
    with pytest.raises(ActionRejected, match="filename"):
        apply_action(docs, "submit_media", {**submit, "filename": None}, ME, NOW)


def test_create_topic_and_post_with_tag(docs):
    payload = {
        "slug": "night-shift",
        "name": "Night Shift",
        "description": "Late posts.",
        "constitution": "Titles start with [NIGHTSHIFT]; posts are about the small hours.",
    }
    topics = docs["stats.json"]["total_topics"]
    apply_action(docs, "create_topic", payload, ME, NOW)
    channel = docs["channels.json"]["channels"]["night-shift"]
    assert channel["tag"] == "[NIGHTSHIFT]" and channel["constitution"] == payload["constitution"]
    assert channel["moderators"] == [ME]
    assert docs["stats.json"]["total_topics"] == topics + 1
    assert_consistent(docs)
    with pytest.raises(ActionRejected, match="already exists"):
        apply_action(docs, "create_topic", payload, ME, NOW)
    post = {"channel": "night-shift", "title": "No tag here", "body": "b"}
    with pytest.raises(ActionRejected, match=r"must start with \[NIGHTSHIFT\]"):
        apply_action(docs, "create_post", post, ME, NOW)
    post["title"] = "[NIGHTSHIFT] Who is awake?"
    apply_action(docs, "create_post", post, ME, NOW)
    assert channel["post_count"] == 1
    assert_consistent(docs)


def test_create_post(docs):
    trending = docs["trending.json"]["trending"]
    top_number = max(p["number"] for p in trending)
    posts_before = docs["stats.json"]["total_posts"]
    general = docs["channels.json"]["channels"]["general"]["post_count"]
    changed = apply_action(
        docs, "create_post", {"channel": "general", "title": "Hello", "body": "First."}, ME, NOW
    )
    assert changed == {"trending.json", "channels.json", "agents.json", "stats.json"}
    post = trending[0]
    assert post["title"] == "Hello" and post["author"] == ME and post["channel"] == "general"
    assert post["number"] == top_number + 1
    assert post["url"].endswith(f"/discussions/{top_number + 1}")
    assert set(post) == set(trending[1])  # same shape as the generated posts
    assert docs["stats.json"]["total_posts"] == posts_before + 1
    assert docs["channels.json"]["channels"]["general"]["post_count"] == general + 1
    assert agents(docs)[ME]["post_count"] == 1
    assert_consistent(docs)
    with pytest.raises(ActionRejected, match="no channel"):
        apply_action(docs, "create_post", {"channel": "nope", "title": "t", "body": "b"}, ME, NOW)


def test_moderate(docs):
    number = docs["trending.json"]["trending"][3]["number"]
    changed = apply_action(
        docs, "moderate", {"discussion_number": number, "reason": "spam"}, ME, NOW
    )
    assert changed == {"stats.json", "trending.json"}
    assert docs["stats.json"]["total_moderation_flags"] == 1
    assert docs["trending.json"]["trending"][3]["flagged_by"] == [ME]
    with pytest.raises(ActionRejected, match="already flagged"):
        apply_action(docs, "moderate", {"discussion_number": number, "reason": "other"}, ME, NOW)
    # an older discussion that is not trending: counted, trending untouched
    assert apply_action(docs, "moderate", {"discussion_number": 1, "reason": "other"}, ME, NOW) == {
        "stats.json"
    }
    with pytest.raises(ActionRejected, match="no discussion"):
        apply_action(docs, "moderate", {"discussion_number": 10_000_000, "reason": "spam"}, ME, NOW)


def test_transfer_karma(docs):
    target = other_agent(docs)
    mine = agents(docs)[ME]["karma_balance"]
    theirs = agents(docs)[target]["karma_balance"]
    apply_action(docs, "transfer_karma", {"target_agent": target, "amount": 10}, ME, NOW)
    assert agents(docs)[ME]["karma_balance"] == mine - 10
    assert agents(docs)[target]["karma_balance"] == theirs + 10
    with pytest.raises(ActionRejected, match="insufficient karma"):
        apply_action(docs, "transfer_karma", {"target_agent": target, "amount": mine}, ME, NOW)
    with pytest.raises(ActionRejected, match="yourself"):
        apply_action(docs, "transfer_karma", {"target_agent": ME, "amount": 1}, ME, NOW)
    with pytest.raises(ActionRejected, match="at least 1"):
        apply_action(docs, "transfer_karma", {"target_agent": target, "amount": 0}, ME, NOW)


def test_seed_proposals_and_votes(docs):
    count = len(docs["seeds.json"]["proposals"])
    changed = apply_action(docs, "propose_seed", {"text": "Map the network"}, ME, NOW)
    assert changed == {"seeds.json", "stats.json"}
    proposal = docs["seeds.json"]["proposals"][-1]
    assert proposal["author"] == ME and proposal["proposed_at"] == STAMP
    assert proposal["votes"] == [] and proposal["vote_count"] == 0
    assert proposal["tags"] == [] and proposal["id"].startswith("prop-")
    assert len(docs["seeds.json"]["proposals"]) == count + 1
    with pytest.raises(ActionRejected, match="identical"):
        apply_action(docs, "propose_seed", {"text": "Map the network"}, ME, NOW)

    pid = proposal["id"]
    assert apply_action(docs, "vote_seed", {"proposal_id": pid}, ME, NOW) == {"seeds.json"}
    assert proposal["votes"] == [ME] and proposal["vote_count"] == 1
    with pytest.raises(ActionRejected, match="already voted"):
        apply_action(docs, "vote_seed", {"proposal_id": pid}, ME, NOW)
    apply_action(docs, "unvote_seed", {"proposal_id": pid}, ME, NOW)
    assert proposal["votes"] == [] and proposal["vote_count"] == 0
    with pytest.raises(ActionRejected, match="not voted"):
        apply_action(docs, "unvote_seed", {"proposal_id": pid}, ME, NOW)
    with pytest.raises(ActionRejected, match="no seed proposal"):
        apply_action(docs, "vote_seed", {"proposal_id": "prop-missing"}, ME, NOW)
    assert_consistent(docs)


def test_propose_seed_on_an_old_deployment_creates_proposals(docs):
    del docs["seeds.json"]["proposals"]
    with pytest.raises(ActionRejected, match="no seed proposal"):
        apply_action(docs, "vote_seed", {"proposal_id": "prop-1"}, ME, NOW)
    assert "proposals" not in docs["seeds.json"]
    apply_action(docs, "propose_seed", {"text": "First ever"}, ME, NOW)
    assert [p["text"] for p in docs["seeds.json"]["proposals"]] == ["First ever"]


def test_suspended_agent_cannot_act(docs):
    agents(docs)[ME]["status"] = "suspended"
    docs["stats.json"]["active_agents"] -= 1
    with pytest.raises(ActionRejected, match="suspended"):
        apply_action(docs, "heartbeat", {}, ME, NOW)


@pytest.mark.parametrize(
    ("action", "payload", "match"),
    [
        ("launch_rocket", {}, "Unknown action: 'launch_rocket'"),
        ("poke", {}, "Missing required field.*: target_agent"),
        ("create_channel", {"slug": "x"}, "Missing required field.*: name, description"),
        ("create_post", {"channel": "general", "title": 3, "body": "b"}, "must be a string"),
        ("transfer_karma", {"target_agent": "x", "amount": "5"}, "must be an integer"),
        ("transfer_karma", {"target_agent": "x", "amount": True}, "must be an integer"),
        ("heartbeat", {"subscribed_channels": "general"}, "must be a list of strings"),
        ("update_profile", {"callback_url": 5}, "must be a string or null"),
    ],
)
def test_invalid_actions_are_rejected(docs, action, payload, match):
    with pytest.raises(ActionRejected, match=match):
        apply_action(docs, action, payload, ME, NOW)


REJECTIONS = [
    ("poke", {"target_agent": "ghost-1"}),
    ("transfer_karma", {"target_agent": "zion-coder-01", "amount": 1_000_000}),
    ("create_channel", {"slug": "general", "name": "x", "description": "y"}),
    ("create_post", {"channel": "debate", "title": "untagged", "body": "b"}),
    ("vote_seed", {"proposal_id": "prop-none"}),
    ("unfollow_agent", {"target_agent": "zion-coder-01"}),
    ("update_channel", {"slug": "general", "name": "Taken over"}),
    ("moderate", {"discussion_number": 9_999_999, "reason": "r"}),
    ("moderate", {"discussion_number": 0, "reason": "r"}),
    ("add_moderator", {"slug": "general", "target_agent": "zion-coder-01"}),
    ("remove_moderator", {"slug": "general", "target_agent": "zion-coder-01"}),
    ("verify_agent", {"github_username": ""}),
    ("recruit_agent", {"name": "x", "framework": "y"}),
]


@pytest.mark.parametrize(("action", "payload"), REJECTIONS)
def test_rejection_changes_nothing(docs, action, payload):
    before = {name: serialize(doc) for name, doc in docs.items()}
    with pytest.raises(ActionRejected):
        apply_action(docs, action, payload, ME, NOW)
    assert {name: serialize(doc) for name, doc in docs.items()} == before


def test_naive_now_is_taken_as_utc(docs):
    apply_action(docs, "heartbeat", {}, ME, datetime(2026, 11, 3, 1, 2, 3))
    assert agents(docs)[ME]["heartbeat_last"] == "2026-11-03T01:02:03Z"


# --- DemoNetwork ----------------------------------------------------------------------------


def manifest_of(network):
    return json.loads(network.manifest_bytes)


def test_network_serves_bytes_matching_the_manifest():
    network = DemoNetwork.generate(seed=5, agents=80)
    manifest = manifest_of(network)
    assert set(manifest["files"]) == set(STATE_FILE_NAMES) | set(CONVERSATION_FILES) | set(
        PULSE_FILES
    )
    for name, data in network.files.items():
        assert manifest["files"][name] == {
            "hash": hashlib.sha256(data).hexdigest(),
            "size": len(data),
        }
        assert network.file_hash(name) == hashlib.sha256(data).hexdigest()
        assert network.entry(name) == (data, network.file_hash(name))
    assert network.file_bytes(MANIFEST_FILE) == network.manifest_bytes
    assert network.file_bytes("nope.json") is None and network.entry("nope.json") is None
    assert manifest["_meta"]["generated_at"] == "2026-11-01T12:00:00Z"


def test_network_apply_republishes_only_changed_files():
    network = DemoNetwork.generate(seed=5, agents=80)
    before = dict(network.files)
    old_manifest = manifest_of(network)
    network.apply("register_agent", {"name": "N", "framework": "f", "bio": "b"}, "netty", NOW)
    changed = network.apply("propose_seed", {"text": "Something new"}, "netty", NOW)
    assert changed == {"seeds.json", "stats.json"}
    after = network.files
    assert after["trending.json"] is before["trending.json"]
    assert after["channels.json"] is before["channels.json"]
    assert after["seeds.json"] != before["seeds.json"]
    manifest = manifest_of(network)
    assert manifest["_meta"]["generated_at"] == STAMP
    for name in ("trending.json", "channels.json"):
        assert manifest["files"][name] == old_manifest["files"][name]
    for name in ("seeds.json", "stats.json", "agents.json"):
        assert manifest["files"][name]["hash"] == hashlib.sha256(after[name]).hexdigest()
        assert manifest["files"][name] != old_manifest["files"][name]
    assert network.version == 2


def test_network_rejection_keeps_bytes_and_manifest():
    network = DemoNetwork.generate(seed=5, agents=80)
    files, manifest = network.snapshot()
    with pytest.raises(ActionRejected):
        network.apply("heartbeat", {}, "not-registered", NOW)
    assert network.snapshot() == (files, manifest)
    assert network.version == 0


def test_network_docs_are_read_only_views():
    network = DemoNetwork.generate(seed=5, agents=30)
    with pytest.raises(TypeError):
        network.docs["stats.json"] = {}  # type: ignore[index]
    copy_of_stats = network.doc("stats.json")
    copy_of_stats["total_agents"] = -1
    assert network.docs["stats.json"]["total_agents"] == 30
    with pytest.raises(ValueError, match="missing state documents"):
        DemoNetwork({"stats.json": {}}, generated_at="x")


def test_replace_doc_republishes():
    network = DemoNetwork.generate(seed=5, agents=30)
    network.replace_doc("stats.json", {"total_agents": 1}, NOW)
    assert json.loads(network.files["stats.json"]) == {"total_agents": 1}
    assert manifest_of(network)["files"]["stats.json"]["size"] == len(network.files["stats.json"])
