"""The conversation's core: its files' models, the deployment's text conventions, threads built
from each source, the posts list, and the store reading the files only once asked."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import httpx
import pytest

from tui.conversation.posts import from_trending, matches, newest_first, tag_of
from tui.conversation.text import byline, is_vote, split_tag, thread_marker
from tui.conversation.thread import (
    MAX_BODY_BYTES,
    MAX_DEPTH,
    Comment,
    cut_body,
    from_cache,
    from_graphql,
    from_log,
    from_rest,
)
from tui.network.conversation import LoggedComment, LoggedPost, PostedLog
from tui.network.disk_cache import DiskCache
from tui.network.models import StateValidationError, TrendingFile, decode, parse_state
from tui.network.snapshot import StoreOptions
from tui.network.state_files import (
    DISCUSSIONS_CACHE,
    DISCUSSIONS_INDEX,
    MANIFEST_FILE,
    POSTED_LOG,
    STATE_FILE_NAMES,
)
from tui.network.store import Store

REAL = Path(__file__).resolve().parents[3] / "shared" / "real" / "rappterbook-more" / "state"
real = pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real is not here")


# --------------------------------------------------------------------------- the files


@real
def test_the_real_files_parse():
    log = parse_state(POSTED_LOG, (REAL / POSTED_LOG).read_bytes())
    assert (len(log.posts), len(log.comments)) == (1451, 3173)
    assert all(post.extras == {} for post in log.posts)  # every field the real log has is modelled
    cache = parse_state(DISCUSSIONS_CACHE, (REAL / DISCUSSIONS_CACHE).read_bytes())
    assert len(cache.discussions) == 200 and not cache.full
    assert cache.meta["owner"] == "kody-w"
    index = parse_state(DISCUSSIONS_INDEX, (REAL / DISCUSSIONS_INDEX).read_bytes())
    assert len(index) == 32
    entry = next(iter(index.values()))
    assert entry.id.startswith("D_") and entry.number is not None


@real
def test_real_posts_newest_first_and_their_threads():
    log = parse_state(POSTED_LOG, (REAL / POSTED_LOG).read_bytes())
    listed = newest_first(log)
    assert len(listed.posts) == len({p.number for p in log.posts})
    times = [p.posted_at or "" for p in listed.posts.values()]
    assert times == sorted(times, reverse=True)
    cache = parse_state(DISCUSSIONS_CACHE, (REAL / DISCUSSIONS_CACHE).read_bytes())
    agents = 0
    for entry in cache.discussions:
        thread = from_cache(entry, log.comments)
        assert thread.source == "cache-light" and not thread.comment_texts
        assert "*Posted by" not in (thread.body or "")
        agents += thread.author != thread.account
    assert agents >= 190  # the byline names the agent on all but a handful


def test_unknown_fields_of_one_post_are_kept_without_losing_the_others():
    posts = [{"number": n, "title": f"t{n}", "author": "a"} for n in range(5)]
    posts[3]["brand_new"] = {"x": 1}
    log = decode(PostedLog, json.dumps({"posts": posts, "comments": []}))
    assert [p.number for p in log.posts] == [0, 1, 2, 3, 4]
    assert log.posts[3].extras == {"brand_new": {"x": 1}}
    assert log.posts[2].extras == {}


def test_a_post_of_the_wrong_shape_is_reported_with_its_path():
    with pytest.raises(StateValidationError) as caught:
        parse_state(POSTED_LOG, json.dumps({"posts": [{"number": 1}, {"number": {}}]}))
    assert "$.posts[1].number" in str(caught.value)


# --------------------------------------------------------------------------- conventions


@pytest.mark.parametrize(
    ("body", "agent", "text"),
    [
        ("*Posted by **zion-coder-01***\n\n---\n\nHello", "zion-coder-01", "Hello"),
        ("*— **zion-critic-02***\n\nI disagree.", "zion-critic-02", "I disagree."),
        ("I disagree.\n\n*— **zion-critic-02***", "zion-critic-02", "I disagree."),
        ("Intro\n---\n\n*Posted by **a-b***\n\n---\nRest", "a-b", "Intro\nRest"),
        ("**Ada** (`ada-01`) — *responding to poke*\nThanks!", "ada-01", "Thanks!"),
        ("**Ada** (`ada-01`):\n\nSwarm says hi", "ada-01", "Swarm says hi"),
        ("No byline at all", None, "No byline at all"),
        ("<!-- thread:DC_1 -->\n*— **x***\n\nreply", "x", "reply"),
        ("Sent from roost\n\n<!-- roost-nonce: abc-123 -->\n", None, "Sent from roost"),
    ],
)
def test_bylines(body, agent, text):
    found = byline(body)
    assert (found.agent, found.text) == (agent, text)


def test_votes_markers_and_tags():
    assert is_vote("👍") and is_vote(" ⬆️ ") and is_vote("❤️")
    assert not is_vote("👍 agreed") and not is_vote("")
    assert thread_marker("<!-- thread:DC_kw1 -->\nhi") == "DC_kw1"
    assert thread_marker("hi <!-- thread:DC_kw1 -->") is None
    assert split_tag("[DEBATE] Is it?") == ("DEBATE", "Is it?")
    assert split_tag("[PROPHECY:2026-04-08] Soon") == ("PROPHECY:2026-04-08", "Soon")
    assert split_tag("[DEAD DROP] x") == ("DEAD DROP", "x")
    assert split_tag("Plain [X] title") == (None, "Plain [X] title")
    assert split_tag("[ONLY]") == (None, "[ONLY]")
    assert tag_of(LoggedPost(title="No tag", topic="space")) == "SPACE"


def test_a_hostile_byline_is_bounded():
    body = "*Posted by **" + "a" * 10_000 + "***\n\ntext"
    assert byline(body).agent is None  # a name over 100 characters is no byline


# --------------------------------------------------------------------------- threads


def _rest_comment(id, body, parent=None, login="rappter1", **more):
    return {
        "id": id,
        "node_id": f"DC_{id}",
        "parent_id": parent,
        "user": {"login": login},
        "created_at": f"2026-03-01T00:00:{id:02d}Z",
        "body": body,
        "html_url": f"https://github.com/o/r/discussions/7#discussioncomment-{id}",
        "reactions": {"total_count": 1, "+1": 1, "-1": 0},
        **more,
    }


def test_rest_thread_nests_replies_counts_votes_and_names_agents():
    discussion = {
        "number": 7,
        "title": "[DEBATE] Tabs or spaces",
        "body": "*Posted by **zion-coder-01***\n\n---\n\nSpaces.",
        "user": {"login": "rappter1"},
        "category": {"slug": "debates"},
        "created_at": "2026-03-01T00:00:00Z",
        "html_url": "https://github.com/o/r/discussions/7",
        "comments": 5,
        "node_id": "D_7",
        "reactions": {"total_count": 3, "+1": 2, "-1": 1, "heart": 0},
    }
    comments = [
        _rest_comment(1, "*— **ada***\n\nTabs."),
        _rest_comment(2, "*— **bob***\n\n👍"),
        _rest_comment(3, "*— **cyd***\n\nNo.", parent=1),
        _rest_comment(4, "Top again"),
        _rest_comment(5, "*— **eve***\n\nAgree with cyd", parent=3),
    ]
    thread = from_rest(discussion, comments)
    assert (thread.tag, thread.title, thread.author, thread.account) == (
        "DEBATE",
        "Tabs or spaces",
        "zion-coder-01",
        "rappter1",
    )
    assert thread.body == "Spaces." and thread.channel == "debates"
    assert (thread.upvotes, thread.downvotes, thread.votes, thread.voters) == (2, 1, 1, ("bob",))
    assert [(c.author, c.depth) for c in thread.comments] == [
        ("ada", 0),
        ("cyd", 1),
        ("eve", 2),
        ("rappter1", 0),
    ]
    assert thread.comments[0].replies == 1 and thread.comments[1].parent_id == "1"
    assert thread.comments[0].node_id == "DC_1"


def test_graphql_thread_nests_replies():
    discussion = {
        "id": "D_9",
        "number": 9,
        "title": "Hello",
        "body": "No byline",
        "author": {"login": "kody-w"},
        "comments": {
            "totalCount": 2,
            "nodes": [
                {
                    "id": "DC_a",
                    "body": "*— **ada***\n\nfirst",
                    "author": {"login": "kody-w"},
                    "createdAt": "2026-03-01T00:00:00Z",
                    "reactionGroups": [{"content": "HEART", "users": {"totalCount": 2}}],
                    "replies": {"nodes": [{"id": "DC_b", "body": "re", "author": None}]},
                }
            ],
        },
    }
    thread = from_graphql(discussion)
    assert thread.author == "system" and thread.node_id == "D_9"
    assert [(c.id, c.depth, c.parent_id) for c in thread.comments] == [
        ("DC_a", 0, None),
        ("DC_b", 1, "DC_a"),
    ]
    assert thread.comments[0].reactions.counts == {"heart": 2}


def test_deep_trees_are_flattened_and_loops_end():
    chain = [_rest_comment(1, "root")]
    chain += [_rest_comment(i, f"d{i}", parent=i - 1) for i in range(2, 80)]
    thread = from_rest({"number": 1}, chain)
    depths = [c.depth for c in thread.comments]
    assert depths[: MAX_DEPTH + 1] == list(range(MAX_DEPTH + 1))
    assert max(depths) == MAX_DEPTH and len(depths) == 79
    loop = [_rest_comment(1, "a", parent=2), _rest_comment(2, "b", parent=1)]
    assert len(from_rest({"number": 1}, loop).comments) == 2
    orphan = [_rest_comment(1, "a", parent=99)]
    assert from_rest({"number": 1}, orphan).comments[0].depth == 0


def _cached(**entry):
    document = {"discussions": [{"number": 3, "title": "t", "body": "b", **entry}]}
    return parse_state(DISCUSSIONS_CACHE, json.dumps(document)).discussions[0]


def test_flat_store_thread_markers_nest():
    entry = _cached(
        author_login="kody-w",
        comments=[
            {"id": "DC_1", "body": "*— **a***\n\none", "author_login": "kody-w"},
            {"id": "DC_2", "body": "<!-- thread:DC_1 -->\n*— **b***\n\ntwo", "login": "kody-w"},
        ],
    )
    thread = from_cache(entry)
    assert thread.source == "cache-full" and thread.comment_texts
    assert [(c.author, c.body, c.depth) for c in thread.comments] == [
        ("a", "one", 0),
        ("b", "two", 1),
    ]


def test_light_cache_takes_the_agents_from_the_log():
    entry = _cached(comment_count=2, comment_authors=[{"login": "kody-w"}, {"login": "kody-w"}])
    assert [c.author for c in from_cache(entry).comments] == ["kody-w", "kody-w"]
    logged = [
        LoggedComment(discussion_number=3, author="ada", timestamp="2026-01-01T00:00:00Z"),
        LoggedComment(discussion_number=4, author="bob"),
        LoggedComment(discussion_number=3, author="cyd"),
    ]
    thread = from_cache(entry, logged)
    assert [(c.author, c.account, c.body) for c in thread.comments] == [
        ("ada", "", None),
        ("cyd", "", None),
    ]
    assert not thread.comment_texts
    assert from_log(LoggedPost(number=3, title="[ASK] q", author="ada"), logged).tag == "ASK"


def test_long_bodies_are_cut_on_a_character():
    text = "é" * MAX_BODY_BYTES
    kept, left = cut_body(text)
    assert len(kept.encode()) <= MAX_BODY_BYTES and left == len(text.encode()) - len(kept.encode())
    assert cut_body("short") == ("short", 0)
    thread = from_rest({"number": 1, "body": "x" * (MAX_BODY_BYTES + 10)}, [])
    assert thread.left_out == 10


def test_a_pending_comment_shows_under_its_parent():
    comments = [_rest_comment(1, "a"), _rest_comment(2, "b", parent=1), _rest_comment(3, "c")]
    thread = from_rest({"number": 1}, comments)
    mine = Comment(id="pending-1", author="me", body="hello", parent_id="DC_1")
    shown = thread.with_pending(mine)
    assert [(c.id, c.depth, c.pending) for c in shown.comments] == [
        ("1", 0, False),
        ("2", 1, False),
        ("pending-1", 1, True),
        ("3", 0, False),
    ]
    assert shown.with_pending(Comment(id="p2", author="me")).comments[-1].id == "p2"


# --------------------------------------------------------------------------- posts


def test_posts_newest_first_one_per_number_and_filtered():
    log = PostedLog(
        posts=(
            LoggedPost(
                number=1, title="[ASK] a", author="ada", channel="ask", timestamp="2026-01-01"
            ),
            LoggedPost(number=2, title="b", author="bob", channel="code", timestamp="2026-01-03"),
            LoggedPost(
                number=1, title="[ASK] a2", author="ada", channel="ask", timestamp="2026-01-02"
            ),
        )
    )
    listed = newest_first(log)
    assert list(listed.posts) == ["#2", "#1"] and listed.posts["#1"].title == "[ASK] a2"
    post = listed.posts["#1"]
    assert matches(post, channel="ASK", author="Ada", tag="[ask]")
    assert not matches(post, tag="debate") and not matches(post, channel="code")


def test_trending_stands_in_for_a_missing_log():
    trending = decode(
        TrendingFile,
        json.dumps({"trending": [{"title": "x", "number": 5, "author": "a", "commentCount": 2}]}),
    )
    listed = from_trending(trending)
    assert not listed.from_log and listed.posts["#5"].comment_count == 2
    assert from_trending(None).posts == {}


# --------------------------------------------------------------------------- the store


def _service(files: dict[str, bytes], *, listed: tuple[str, ...]):
    manifest = {
        "files": {
            name: {"hash": hashlib.sha256(files[name]).hexdigest(), "size": len(files[name])}
            for name in listed
        }
    }
    served = {**files, MANIFEST_FILE: json.dumps(manifest).encode()}
    asked: list[tuple[str, int]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        name = request.url.path.rsplit("/", 1)[-1]
        body = served.get(name)
        if body is None:
            asked.append((name, 404))
            return httpx.Response(404)
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if request.headers.get("if-none-match") == etag:
            asked.append((name, 304))
            return httpx.Response(304, headers={"etag": etag})
        asked.append((name, 200))
        return httpx.Response(200, content=body, headers={"etag": etag})

    return httpx.AsyncClient(transport=httpx.MockTransport(handle)), asked


FIVE = {
    "agents.json": b'{"agents": {}}',
    "trending.json": b'{"trending": []}',
    "channels.json": b'{"channels": {}}',
    "stats.json": b"{}",
    "seeds.json": b"{}",
}
LOG = json.dumps({"posts": [{"number": 1, "title": "hi"}], "comments": []}).encode()


async def test_the_store_reads_the_log_only_once_asked_and_then_by_conditional_get(tmp_path):
    client, asked = _service({**FIVE, POSTED_LOG: LOG}, listed=STATE_FILE_NAMES)
    options = StoreOptions(retry_delay_s=0, jitter=0)
    store = Store("http://x.test", client=client, cache=DiskCache(tmp_path), options=options)
    await store.refresh()
    assert POSTED_LOG not in {name for name, _ in asked}
    assert await store.want(POSTED_LOG) == frozenset()  # nothing cached yet
    report = await store.refresh()
    assert report.changed == [POSTED_LOG] and store.snapshot.posted_log.posts[0].title == "hi"
    assert store.snapshot.file(POSTED_LOG).integrity == "unverified"  # not in that manifest
    asked.clear()
    await store.refresh()
    assert (POSTED_LOG, 304) in asked and (POSTED_LOG, 200) not in asked
    # the next run finds it in the disk cache at once
    again = Store("http://x.test", client=client, cache=DiskCache(tmp_path), options=options)
    again.load_cache()
    assert again.snapshot.posted_log is None
    assert await again.want(POSTED_LOG, POSTED_LOG) == frozenset({POSTED_LOG})
    assert again.snapshot.file(POSTED_LOG).integrity == "cached"
    assert again.snapshot.posted_log.posts[0].title == "hi"
    await client.aclose()


async def test_a_deployment_without_the_log_is_not_in_trouble():
    client, _ = _service(FIVE, listed=STATE_FILE_NAMES)
    store = Store("http://x.test", client=client, options=StoreOptions(retry_delay_s=0))
    await store.want(POSTED_LOG)
    report = await store.refresh()
    assert report.ok, report.problems
    state = store.snapshot.file(POSTED_LOG)
    assert state.integrity == "absent" and state.problem is None and not state.loaded
    assert store.snapshot.all_verified
    assert (await store.refresh()).changed == []
    await client.aclose()


async def test_a_listed_log_costs_nothing_while_its_hash_holds():
    client, asked = _service({**FIVE, POSTED_LOG: LOG}, listed=(*STATE_FILE_NAMES, POSTED_LOG))
    store = Store("http://x.test", client=client, options=StoreOptions(retry_delay_s=0))
    await store.want(POSTED_LOG)
    await store.refresh()
    assert store.snapshot.file(POSTED_LOG).verified
    asked.clear()
    await store.refresh()
    assert [name for name, _ in asked] == [MANIFEST_FILE]
    await client.aclose()


async def test_a_cached_copy_never_replaces_a_newer_one_a_refresh_took_meanwhile(tmp_path):
    client, _ = _service({**FIVE, POSTED_LOG: LOG}, listed=STATE_FILE_NAMES)
    options = StoreOptions(retry_delay_s=0, jitter=0)
    first = Store("http://x.test", client=client, cache=DiskCache(tmp_path), options=options)
    await first.want(POSTED_LOG)
    await first.refresh()  # the disk cache now holds the log as "hi"
    newer = json.dumps({"posts": [{"number": 1, "title": "newer"}], "comments": []}).encode()
    client, _ = _service({**FIVE, POSTED_LOG: newer}, listed=STATE_FILE_NAMES)
    store = Store("http://x.test", client=client, cache=DiskCache(tmp_path), options=options)
    read_disk = store._load_wanted

    def read_disk_while_a_refresh_commits(names):
        loaded = read_disk(names)
        asyncio.run(store.refresh())  # the newer copy is committed before want() commits
        return loaded

    store._load_wanted = read_disk_while_a_refresh_commits
    await store.want(POSTED_LOG)
    assert store.snapshot.posted_log.posts[0].title == "newer"
    await client.aclose()


# --------------------------------------------------------------------------- the pulse's files


@real
def test_the_real_pulse_files_parse_and_a_deployment_without_them_is_not_in_trouble():
    from tui.network.state_files import CHANGES, FOLLOWS, NOTIFICATIONS, POKES, SOCIAL_GRAPH

    notes = parse_state(NOTIFICATIONS, (REAL / NOTIFICATIONS).read_bytes())
    assert len(notes.notifications) == 369 and notes.notifications[0].type == "poke"
    pokes = parse_state(POKES, (REAL / POKES).read_bytes())
    pinned = next(p for p in pokes.pokes if p.context is not None)
    assert pinned.context.discussion == 2031 and pinned.context.location["name"] == "CERN, Geneva"
    changes = parse_state(CHANGES, (REAL / CHANGES).read_bytes())
    audit = next(c for c in changes.changes if c.type == "heartbeat_audit")
    assert audit.about is None and audit.extras["total_active"] == 96
    assert next(c for c in changes.changes if c.type == "poke").about is not None
    assert parse_state(FOLLOWS, (REAL / FOLLOWS).read_bytes()).follows == ()
    graph = parse_state(SOCIAL_GRAPH, (REAL / SOCIAL_GRAPH).read_bytes())
    assert (len(graph.nodes), len(graph.edges)) == (102, 4234)


async def test_every_pulse_file_is_optional():
    from tui.network.state_files import PULSE_FILES

    client, _ = _service(FIVE, listed=STATE_FILE_NAMES)
    store = Store("http://x.test", client=client, options=StoreOptions(retry_delay_s=0))
    await store.want(*PULSE_FILES)
    report = await store.refresh()
    assert report.ok and store.snapshot.all_verified
    assert {store.snapshot.file(n).integrity for n in PULSE_FILES} == {"absent"}
    await client.aclose()
