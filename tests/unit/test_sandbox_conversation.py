"""The demo network's conversation: the posted log, its threads, the cache and the index, as
generated and as published (tui/sandbox/conversation.py, threads.py, discussions.py)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tui.network.state_files import (
    CONVERSATION_FILES,
    DISCUSSIONS_CACHE,
    DISCUSSIONS_INDEX,
    POSTED_LOG,
    STATE_FILE_NAMES,
)
from tui.sandbox.app import create_app
from tui.sandbox.conversation import COMMENTS_PER_AGENT, POSTS_PER_AGENT, is_vote
from tui.sandbox.generator import generate_network, generate_state, serialize, serialize_rows
from tui.sandbox.published import DemoNetwork
from tui.sandbox.server import in_process_client
from tui.sandbox.threads import VOTE_EMOJI, byline_agent, derive_thread, vote_text
from tui.sandbox.world import DemoWorld

REAL_MORE = Path(__file__).resolve().parents[3] / "shared" / "real" / "rappterbook-more" / "state"
TRENDING_KEYS = ("number", "title", "author", "channel", "upvotes", "downvotes", "commentCount")


@pytest.fixture(scope="module")
def network() -> DemoNetwork:
    return DemoNetwork.generate(seed=7, agents=300)


@pytest.fixture(scope="module")
def docs(network) -> dict:
    return {name: network.doc(name) for name in (*STATE_FILE_NAMES, *CONVERSATION_FILES)}


def stamp_of(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# --- the log ---------------------------------------------------------------------------------


def test_the_five_files_stay_what_generate_state_makes():
    five = generate_state(seed=3, agents=120)
    every = generate_network(seed=3, agents=120)
    assert {name: serialize(five[name]) for name in STATE_FILE_NAMES} == {
        name: serialize(every[name]) for name in STATE_FILE_NAMES
    }


def test_same_seed_same_bytes_other_seed_other_bytes():
    one, two = DemoNetwork.generate(seed=4, agents=60), DemoNetwork.generate(seed=4, agents=60)
    assert one.snapshot() == two.snapshot()
    other = DemoNetwork.generate(seed=5, agents=60)
    assert other.files[POSTED_LOG] != one.files[POSTED_LOG]


def test_same_bytes_in_another_process():
    code = (
        "import hashlib; from tui.sandbox.published import DemoNetwork;"
        "n = DemoNetwork.generate(seed=2, agents=50);"
        "print(hashlib.sha256(n.manifest_bytes).hexdigest())"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    here = hashlib.sha256(DemoNetwork.generate(seed=2, agents=50).manifest_bytes).hexdigest()
    assert out.stdout.strip() == here


def test_the_log_holds_every_trending_post_as_trending_shows_it(docs):
    log, trending = docs[POSTED_LOG], docs["trending.json"]["trending"]
    posts = {p["number"]: p for p in log["posts"]}
    assert len(posts) == len(log["posts"]) == POSTS_PER_AGENT * 300
    for post in trending:
        logged = posts[post["number"]]
        assert {k: logged[k] for k in TRENDING_KEYS} == {k: post[k] for k in TRENDING_KEYS}
        assert logged["url"] == post["url"]


def test_the_log_agrees_with_the_counters(docs):
    log, stats = docs[POSTED_LOG], docs["stats.json"]
    agents, channels = docs["agents.json"]["agents"], docs["channels.json"]["channels"]
    # the log is the recent history: the counters count since the network began
    assert len(log["posts"]) <= stats["total_posts"]
    assert COMMENTS_PER_AGENT * 300 <= len(log["comments"]) <= stats["total_comments"]
    for author, count in Counter(p["author"] for p in log["posts"]).items():
        assert count <= agents[author]["post_count"], author
    for slug, count in Counter(p["channel"] for p in log["posts"]).items():
        assert count <= channels[slug]["post_count"], slug
    per_post = Counter(c["discussion_number"] for c in log["comments"])
    assert all(per_post.get(p["number"], 0) == p["commentCount"] for p in log["posts"])
    over = sum(
        n > agents[a]["comment_count"]
        for a, n in Counter(c["author"] for c in log["comments"]).items()
    )
    assert over <= 5  # a late joiner's comment goes to the post's author: barely ever over


def test_the_log_is_in_the_order_things_were_posted(docs):
    log, agents = docs[POSTED_LOG], docs["agents.json"]["agents"]
    times = [stamp_of(p["timestamp"]) for p in log["posts"]]
    assert times == sorted(times)
    assert [c["timestamp"] for c in log["comments"]] == sorted(
        c["timestamp"] for c in log["comments"]
    )
    posted = {p["number"]: p["timestamp"] for p in log["posts"]}
    assert all(c["timestamp"] >= posted[c["discussion_number"]] for c in log["comments"])
    assert all(p["timestamp"] > agents[p["author"]]["joined"][:19] for p in log["posts"])
    assert max(times) <= datetime(2026, 11, 1, 12, tzinfo=UTC)


def test_titles_tags_topics_and_votes(docs):
    posts = docs[POSTED_LOG]["posts"]
    topics = Counter(p.get("topic") for p in posts)
    assert topics[None] and {"debate", "proposal"} <= set(topics)
    assert all(p["title"].lower().startswith("[" + p["topic"]) for p in posts if p.get("topic"))
    voted = [p for p in posts if "vote_comment_count" in p]
    assert voted and all(
        p["internal_votes"] == p["vote_comment_count"] >= len(p["voters"]) >= 1 for p in voted
    )
    assert any(p["upvotes"] for p in posts) and any(p["downvotes"] for p in posts)
    comments = docs[POSTED_LOG]["comments"]
    assert any("channel" in c for c in comments) and any("channel" not in c for c in comments)


@pytest.mark.skipif(not REAL_MORE.is_dir(), reason="reference data not present")
def test_shapes_match_the_deployments_files(docs):
    real = {name: json.loads((REAL_MORE / name).read_bytes()) for name in CONVERSATION_FILES}
    post_keys = set().union(*(set(p) for p in real[POSTED_LOG]["posts"]))
    ours = set().union(*(set(p) for p in docs[POSTED_LOG]["posts"]))
    assert ours <= post_keys and {"number", "title", "voters", "topic"} <= ours
    assert set(docs[POSTED_LOG]["comments"][-1]) == set(real[POSTED_LOG]["comments"][-1])
    real_cache = real[DISCUSSIONS_CACHE]
    assert set(docs[DISCUSSIONS_CACHE]["_meta"]) == set(real_cache["_meta"])
    assert set(docs[DISCUSSIONS_CACHE]["discussions"][0]) == set(real_cache["discussions"][0])
    one = next(iter(real[DISCUSSIONS_INDEX].values()))
    assert set(next(iter(docs[DISCUSSIONS_INDEX].values()))) == set(one)


# --- threads ---------------------------------------------------------------------------------


def test_a_thread_reads_the_same_every_time_and_agrees_with_the_log(network):
    log = network.log
    post = max(log["posts"], key=lambda p: p["commentCount"])
    entries = [
        (i, c) for i, c in enumerate(log["comments"]) if c["discussion_number"] == post["number"]
    ]
    thread = derive_thread(7, "roost-demo", post, entries)
    assert thread == derive_thread(7, "roost-demo", post, entries)
    assert len(thread.comments) == post["commentCount"] > 100
    assert byline_agent(thread.body) == post["author"] and "\n\n---\n\n" in thread.body
    votes = [c for c in thread.comments if c.vote]
    assert len(votes) == post.get("vote_comment_count", 0)
    assert all(vote_text(c.body) and c.body.endswith(VOTE_EMOJI) for c in votes)
    for index, comment in enumerate(thread.comments):
        assert is_vote(7, post["number"], index) == comment.vote
        assert byline_agent(comment.body) == comment.author == entries[index][1]["author"]
        assert (
            comment.login == "roost-demo" and comment.created_at == entries[index][1]["timestamp"]
        )
    ids = {c.id: c for c in thread.comments}
    replies = [c for c in thread.comments if c.parent_id is not None]
    assert replies and all(ids[c.parent_id].parent_id is None for c in replies)
    deep = [c for c in replies if c.body.startswith("<!-- thread:")]
    assert deep  # a reply to a reply names the comment it answers
    for comment in deep:
        named = comment.body.split("thread:", 1)[1].split(" ", 1)[0]
        assert ids[int(named.removeprefix("DC_kwROOST"))].parent_id == comment.parent_id


def test_markdown_bodies(network):
    talk, log = network.conversation, network.log
    bodies = [talk.body(log, p["number"]) for p in log["posts"][:200]]
    assert any("\n- " in b or "\n1. " in b for b in bodies)
    assert any("```" in b for b in bodies) and any("\n> " in b for b in bodies)
    assert any("](https://" in b for b in bodies) and any("\n## " in b for b in bodies)
    system = [p for p in log["posts"] if p["author"] == "system"]
    assert system and byline_agent(talk.body(log, system[0]["number"])) is None


# --- the cache and the index -----------------------------------------------------------------


def test_the_index_names_every_post(docs):
    index, posts = docs[DISCUSSIONS_INDEX], docs[POSTED_LOG]["posts"]
    assert len(index) == len(posts)
    post = posts[-1]
    assert index[str(post["number"])] == {
        "id": f"D_kwROOST{post['number']:08d}",
        "number": post["number"],
        "title": post["title"],
        "channel": post["channel"],
    }


def test_the_light_cache(docs):
    cache, posts = docs[DISCUSSIONS_CACHE], docs[POSTED_LOG]["posts"]
    assert cache["_meta"] == {
        "scraped_at": "2026-11-01T12:00:00Z",
        "total": 200,
        "owner": "roost-demo",
        "repo": "network",
    }
    newest = cache["discussions"][0]
    assert newest["number"] == posts[-1]["number"] and newest["author_login"] == "roost-demo"
    assert [d["number"] for d in cache["discussions"]] == [p["number"] for p in posts[::-1][:200]]
    for entry in cache["discussions"]:
        assert "comments" not in entry and len(entry["comment_authors"]) == min(
            50, entry["comment_count"]
        )


async def test_the_full_cache_and_the_knob_that_switches_it():
    app = create_app(agents=40, discussions_cache="full")
    async with in_process_client(app) as client:
        manifest = (await client.get("/state/manifest-hashes.json")).json()["files"]
        full = (await client.get("/state/discussions_cache.json")).json()
        entry = next(d for d in full["discussions"] if d["comment_count"])
        assert len(entry["comments"]) == entry["comment_count"]
        first = entry["comments"][0]
        assert set(first) == {"body", "author_login", "created_at", "id", "parent_id"}
        assert first["id"].startswith("DC_kwROOST") and first["parent_id"] is None
        assert any(c["parent_id"] for d in full["discussions"] for c in d["comments"])
        await client.post("/_sandbox/faults", json={"discussions_cache": "light"})
        light = await client.get("/state/discussions_cache.json")
        assert "comments" not in light.json()["discussions"][0]
        after = (await client.get("/state/manifest-hashes.json")).json()["files"]
        assert after[DISCUSSIONS_CACHE]["hash"] != manifest[DISCUSSIONS_CACHE]["hash"]
        assert after[DISCUSSIONS_CACHE]["hash"] == hashlib.sha256(light.content).hexdigest()
        assert after[POSTED_LOG] == manifest[POSTED_LOG]  # the others keep their bytes
        await client.delete("/_sandbox/faults")  # back to the form the app was made with
        again = (await client.get("/state/discussions_cache.json")).json()
        assert "comments" in again["discussions"][0]
        refused = await client.post("/_sandbox/faults", json={"discussions_cache": "huge"})
        assert refused.status_code == 400
    with pytest.raises(ValueError):
        create_app(agents=10, discussions_cache="huge")


async def test_the_conversation_files_are_served_with_etags():
    app = create_app(agents=30)
    async with in_process_client(app) as client:
        for name in CONVERSATION_FILES:
            answer = await client.get(f"/state/{name}")
            assert answer.status_code == 200 and answer.headers["etag"]
            again = await client.get(
                f"/state/{name}", headers={"If-None-Match": answer.headers["etag"]}
            )
            assert again.status_code == 304
            raw = await client.get(f"/raw/roost-demo/network/main/state/{name}")
            assert raw.content == answer.content
        assert (await client.get("/raw/someone/else/main/state/stats.json")).status_code == 404
        assert (await client.get("/raw/roost-demo/network/main/skill.json")).status_code == 200


def test_serialize_rows_is_json_one_entry_a_line():
    doc = {"posts": [{"a": 1}, {"b": "é"}], "empty": [], "map": {"1": {"x": 2}}, "n": 3}
    data = serialize_rows(doc)
    assert json.loads(data) == doc
    assert data.decode().splitlines()[2] == '    {"a": 1},'


# --- kept on disk --------------------------------------------------------------------------


async def test_the_conversation_survives_a_restart(tmp_path):
    mutation = """mutation($id: ID!, $body: String!) {
      addDiscussionComment(input: {discussionId: $id, body: $body}) { comment { id } } }"""
    world = DemoWorld(tmp_path)
    app = world.open_app(agents=30, discussions_cache="full")
    number = app.state.sandbox.network.log["posts"][-1]["number"]
    async with in_process_client(app) as client:
        made = await client.post(
            "/api/graphql",
            json={"query": mutation, "variables": {"id": f"D_kwROOST{number:08d}", "body": "Kept"}},
            headers={"Authorization": "Bearer roost-demo-token"},
        )
        comment_id = made.json()["data"]["addDiscussionComment"]["comment"]["id"]
        before = (await client.get("/state/posted_log.json")).content
    again = DemoWorld(tmp_path).open_app(agents=30, discussions_cache="full")
    async with in_process_client(again) as client:
        assert (await client.get("/state/posted_log.json")).content == before
        rest = await client.get(f"/api/repos/roost-demo/network/discussions/{number}/comments")
        assert rest.json()[-1]["node_id"] == comment_id and rest.json()[-1]["body"] == "Kept"
        cache = (await client.get("/state/discussions_cache.json")).json()
        assert cache["discussions"][0]["comments"][-1]["body"] == "Kept"


# --- scale -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_fifty_thousand_agents_carry_the_conversation():
    started = time.perf_counter()
    network = DemoNetwork.generate(agents=50_000)
    seconds = time.perf_counter() - started  # reported, never asserted (the bench's business)
    log = network.log
    assert (len(log["posts"]), len(log["comments"])) == (100_000, 250_000)
    assert 60_000_000 < len(network.files[POSTED_LOG]) < 100_000_000
    stats = network.doc("stats.json")
    assert stats["total_posts"] >= 100_000 and stats["total_comments"] >= 250_000
    assert len(json.loads(network.files[DISCUSSIONS_INDEX])) == 100_000
    print(f"50k agents: {seconds:.1f} s, posted_log {len(network.files[POSTED_LOG]):,} bytes")


async def test_a_deployment_that_does_not_publish_the_conversation():
    app = create_app(seed=7, agents=60)
    app.state.sandbox.faults.update({"unpublished": [POSTED_LOG, DISCUSSIONS_CACHE]})
    async with in_process_client(app, base_url="http://sandbox.test") as client:
        assert (await client.get(f"/state/{POSTED_LOG}")).status_code == 404
        manifest = (await client.get("/state/manifest-hashes.json")).json()["files"]
        assert POSTED_LOG not in manifest and DISCUSSIONS_CACHE not in manifest
        assert DISCUSSIONS_INDEX in manifest and "agents.json" in manifest
        assert (await client.get(f"/state/{DISCUSSIONS_INDEX}")).status_code == 200
        assert app.state.sandbox.faults.as_dict()["unpublished"] == sorted(
            [POSTED_LOG, DISCUSSIONS_CACHE]
        )
