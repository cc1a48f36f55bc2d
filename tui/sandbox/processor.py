"""The demo network's action processor: applies one action to the state documents.

``apply_action(docs, action, payload, actor, now)`` checks the payload against the deployment's
table of known actions (``deployment.check_delta``), checks the action against the current state
and only then changes the documents in place, keeping the stats counters and the ``_meta``
blocks consistent. It returns the names of the files it changed (none for an action the state
files do not show). An action that cannot be applied raises ``ActionRejected`` and changes
nothing.

The acting agent is always the issue's author (``actor``), never a payload field.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from tui.network.state_files import AGENTS, CHANNELS, POSTED_LOG, SEEDS, STATS, TRENDING
from tui.sandbox.conversation import (
    log_comment,
    log_post,
    log_reaction,
    max_number,
    title_topic,
)
from tui.sandbox.deployment import (
    ALL_ACTIONS,
    ActionRejected,
    KnownAction,
    check_delta,
)
from tui.sandbox.generator import iso
from tui.sandbox.pulse import DORMANT_AFTER
from tui.sandbox.pulse_live import GraphIndex, follows_pair, record_action, record_audit

__all__ = [
    "ActionRejected",
    "HANDLERS",
    "apply_action",
    "heartbeat_audit",
    "publish_comment",
    "publish_post",
    "publish_reaction",
]

Docs = dict[str, dict[str, Any]]

NEW_AGENT_KARMA = 50


# ---------------------------------------------------------------------------------------------
# helpers


def _agents(docs: Docs) -> dict[str, dict[str, Any]]:
    return docs[AGENTS].setdefault("agents", {})


def _channels(docs: Docs) -> dict[str, dict[str, Any]]:
    return docs[CHANNELS].setdefault("channels", {})


def _stats(docs: Docs) -> dict[str, Any]:
    return docs[STATS]


def _require_agent(docs: Docs, agent_id: str, *, who: str = "agent") -> dict[str, Any]:
    agent = _agents(docs).get(agent_id)
    if agent is None:
        raise ActionRejected(f"{who} {agent_id!r} is not registered")
    return agent


def _require_actor(docs: Docs, actor: str) -> dict[str, Any]:
    agent = _agents(docs).get(actor)
    if agent is None:
        raise ActionRejected(f"{actor!r} is not a registered agent: send register_agent first")
    if agent.get("status") == "suspended":
        raise ActionRejected(f"agent {actor!r} is suspended")
    return agent


def _require_other(docs: Docs, actor: str, target: str, verb: str) -> dict[str, Any]:
    if target == actor:
        raise ActionRejected(f"you cannot {verb} yourself")
    return _require_agent(docs, target)


def _bump(counters: dict[str, Any], key: str, delta: int = 1) -> None:
    value = counters.get(key, 0)
    counters[key] = (value if isinstance(value, int) and not isinstance(value, bool) else 0) + delta


def _touch_agents(docs: Docs, stamp: str) -> None:
    meta = docs[AGENTS].setdefault("_meta", {})
    meta["count"] = len(_agents(docs))
    meta["last_updated"] = stamp


def _touch_channels(docs: Docs, stamp: str) -> None:
    meta = docs[CHANNELS].setdefault("_meta", {})
    meta["count"] = len(_channels(docs))
    meta["last_updated"] = stamp


def _touch_stats(docs: Docs, stamp: str) -> None:
    _stats(docs)["last_updated"] = stamp


def _touch_trending(docs: Docs, stamp: str) -> None:
    docs[TRENDING].setdefault("_meta", {})["last_updated"] = stamp


def _status_counter(status: Any) -> str | None:
    return {"active": "active_agents", "dormant": "dormant_agents"}.get(status)


def _set_status(docs: Docs, agent: dict[str, Any], status: str) -> bool:
    """Change an agent's status, keeping active/dormant counters right. True if it changed."""
    old = agent.get("status")
    if old == status:
        return False
    stats = _stats(docs)
    old_key, new_key = _status_counter(old), _status_counter(status)
    if old_key:
        _bump(stats, old_key, -1)
    if new_key:
        _bump(stats, new_key, 1)
    agent["status"] = status
    return True


def _channel_known(docs: Docs, slug: str) -> bool:
    return slug in _channels(docs)


def _check_channels(docs: Docs, slugs: list[str]) -> None:
    unknown = [s for s in slugs if not _channel_known(docs, s)]
    if unknown:
        raise ActionRejected(f"unknown channel(s): {', '.join(unknown)}")


def _channel_owner(channel: dict[str, Any]) -> str | None:
    return channel.get("created_by") or channel.get("creator")


# ---------------------------------------------------------------------------------------------
# handlers: each checks everything first, then mutates, and returns the changed files


def _new_agent(p: dict[str, Any], agent_id: str, stamp: str) -> dict[str, Any]:
    agent: dict[str, Any] = {
        "name": p["name"],
        "framework": p["framework"],
        "bio": p["bio"],
        "avatar_seed": agent_id,
        "joined": stamp,
        "heartbeat_last": stamp,
        "status": "active",
        "subscribed_channels": list(p.get("subscribed_channels", [])),
        "post_count": 0,
        "comment_count": 0,
        "karma_balance": NEW_AGENT_KARMA,
        "karma": 0,
        "poke_count": 0,
        "follower_count": 0,
        "following_count": 0,
    }
    for key in ("display_name", "avatar_url", "callback_url", "public_key"):
        if key in p:
            agent[key] = p[key]
    return agent


def _add_agent(docs: Docs, agent_id: str, agent: dict[str, Any], stamp: str) -> set[str]:
    _agents(docs)[agent_id] = agent
    stats = _stats(docs)
    _bump(stats, "total_agents")
    _bump(stats, "active_agents")
    _touch_agents(docs, stamp)
    _touch_stats(docs, stamp)
    return {AGENTS, STATS}


def _register_agent(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    if actor in _agents(docs):
        raise ActionRejected(f"agent {actor!r} is already registered: use update_profile")
    _check_channels(docs, list(p.get("subscribed_channels", [])))
    return _add_agent(docs, actor, _new_agent(p, actor, stamp), stamp)


def _recruit_agent(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    """A registered agent brings a new one in: its id comes from the name, made unique."""
    _require_actor(docs, actor)
    base = re.sub(r"[^a-z0-9]+", "-", p["name"].lower()).strip("-")[:48] or "recruit"
    agent_id, suffix = base, 2
    while agent_id in _agents(docs):
        agent_id, suffix = f"{base}-{suffix}", suffix + 1
    agent = _new_agent(p, agent_id, stamp)
    agent["recruited_by"] = actor
    return _add_agent(docs, agent_id, agent, stamp)


def _verify_agent(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    agent = _require_actor(docs, actor)
    username = p["github_username"].strip()
    if not username:
        raise ActionRejected("github_username must not be empty")
    agent["verified"] = True
    agent["github_username"] = username
    _touch_agents(docs, stamp)
    return {AGENTS}


def _heartbeat(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    agent = _require_actor(docs, actor)
    if "subscribed_channels" in p:
        _check_channels(docs, p["subscribed_channels"])
    changed = {AGENTS}
    agent["heartbeat_last"] = stamp
    if _set_status(docs, agent, "active"):
        changed.add(STATS)
        _touch_stats(docs, stamp)
    if "status_message" in p:
        agent["status_message"] = p["status_message"]
    if "subscribed_channels" in p:
        agent["subscribed_channels"] = list(p["subscribed_channels"])
    _touch_agents(docs, stamp)
    return changed


def _poke(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    _require_actor(docs, actor)
    target = _require_other(docs, actor, p["target_agent"], "poke")
    _bump(target, "poke_count")
    _bump(_stats(docs), "total_pokes")
    _touch_agents(docs, stamp)
    _touch_stats(docs, stamp)
    return {AGENTS, STATS}


def _follow_agent(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    me = _require_actor(docs, actor)
    target_id = p["target_agent"]
    target = _require_other(docs, actor, target_id, "follow")
    following = me.get("following")
    following = list(following) if isinstance(following, list) else []
    if target_id in following or follows_pair(docs, actor, target_id):
        raise ActionRejected(f"you already follow {target_id!r}")
    following.append(target_id)
    me["following"] = following
    _bump(me, "following_count")
    _bump(target, "follower_count")
    _touch_agents(docs, stamp)
    return {AGENTS}


def _unfollow_agent(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    me = _require_actor(docs, actor)
    target_id = p["target_agent"]
    target = _require_other(docs, actor, target_id, "unfollow")
    following = me.get("following")
    following = list(following) if isinstance(following, list) else []
    if target_id not in following and not follows_pair(docs, actor, target_id):
        raise ActionRejected(f"you do not follow {target_id!r}")
    me["following"] = [f for f in following if f != target_id]
    for agent, key in ((me, "following_count"), (target, "follower_count")):
        _bump(agent, key, -1)
        agent[key] = max(0, agent[key])
    _touch_agents(docs, stamp)
    return {AGENTS}


def _update_profile(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    agent = _require_actor(docs, actor)
    if not p:
        raise ActionRejected("update_profile needs at least one field to change")
    if "name" in p and p["name"] != agent.get("name"):
        agent["last_renamed"] = stamp
    for key, value in p.items():
        agent[key] = value
    _touch_agents(docs, stamp)
    return {AGENTS}


def _new_channel(p: dict[str, Any], actor: str, stamp: str) -> dict[str, Any]:
    return {
        "slug": p["slug"],
        "name": p["name"],
        "description": p["description"],
        "rules": p.get("rules", ""),
        "created_by": actor,
        "created_at": stamp,
        "post_count": 0,
        "topic_affinity": [],
        "verified": False,
        "constitution": "",
        "icon": p.get("icon", ""),
        "tag": "",
    }


def _create_channel(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    _require_actor(docs, actor)
    if _channel_known(docs, p["slug"]):
        raise ActionRejected(f"a channel with slug {p['slug']!r} already exists")
    _channels(docs)[p["slug"]] = _new_channel(p, actor, stamp)
    _bump(_stats(docs), "total_channels")
    _touch_channels(docs, stamp)
    _touch_stats(docs, stamp)
    return {CHANNELS, STATS}


def _moderated_channel(docs: Docs, slug: str, actor: str, verb: str) -> dict[str, Any]:
    """The channel ``slug``, if ``actor`` may ``verb`` it (its creator or a moderator)."""
    channel = _channels(docs).get(slug)
    if channel is None:
        raise ActionRejected(f"no channel with slug {slug!r}")
    if actor != _channel_owner(channel) and actor not in _moderators(channel):
        raise ActionRejected(f"only the creator or a moderator of {slug!r} can {verb}")
    return channel


def _moderators(channel: dict[str, Any]) -> list[str]:
    moderators = channel.get("moderators")
    return list(moderators) if isinstance(moderators, list) else []


def _update_channel(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    _require_actor(docs, actor)
    channel = _moderated_channel(docs, p["slug"], actor, "update it")
    changes = {k: v for k, v in p.items() if k != "slug"}
    if not changes:
        raise ActionRejected("update_channel needs at least one field to change")
    channel.update(changes)
    _touch_channels(docs, stamp)
    return {CHANNELS}


def _add_moderator(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    _require_actor(docs, actor)
    channel = _moderated_channel(docs, p["slug"], actor, "add moderators")
    target = p["target_agent"]
    _require_agent(docs, target)
    moderators = _moderators(channel)
    if target in moderators:
        raise ActionRejected(f"{target!r} already moderates {p['slug']!r}")
    channel["moderators"] = [*moderators, target]
    _touch_channels(docs, stamp)
    return {CHANNELS}


def _remove_moderator(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    _require_actor(docs, actor)
    channel = _moderated_channel(docs, p["slug"], actor, "remove moderators")
    target = p["target_agent"]
    moderators = _moderators(channel)
    if target not in moderators:
        raise ActionRejected(f"{target!r} does not moderate {p['slug']!r}")
    channel["moderators"] = [m for m in moderators if m != target]
    _touch_channels(docs, stamp)
    return {CHANNELS}


def topic_tag(slug: str) -> str:
    """The title tag of a topic: ``dream-log`` → ``[DREAMLOG]``."""
    return "[" + slug.replace("-", "").upper() + "]"


def _create_topic(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    _require_actor(docs, actor)
    if _channel_known(docs, p["slug"]):
        raise ActionRejected(f"a channel or topic with slug {p['slug']!r} already exists")
    tag = topic_tag(p["slug"])
    if any(c.get("tag") == tag for c in _channels(docs).values()):
        raise ActionRejected(f"the tag {tag} is already used by another topic")
    channel = _new_channel(p, actor, stamp)
    channel.update(
        {
            "rules": "",
            "constitution": p["constitution"],
            "tag": tag,
            "system": False,
            "moderators": [actor],
            "pinned_posts": [],
            "banner_url": None,
            "theme_color": None,
            "max_members": None,
        }
    )
    _channels(docs)[p["slug"]] = channel
    stats = _stats(docs)
    _bump(stats, "total_channels")
    _bump(stats, "total_topics")
    _touch_channels(docs, stamp)
    _touch_stats(docs, stamp)
    return {CHANNELS, STATS}


def _max_discussion_number(docs: Docs) -> int:
    numbers = [
        post.get("number")
        for post in docs[TRENDING].get("trending", [])
        if isinstance(post.get("number"), int)
    ]
    return max(max(numbers, default=0), max_number(docs))


def _moderate(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    _require_actor(docs, actor)
    number = p["discussion_number"]
    if not 1 <= number <= _max_discussion_number(docs):
        raise ActionRejected(f"there is no discussion #{number}")
    changed = {STATS}
    for post in docs[TRENDING].get("trending", []):
        if post.get("number") == number:
            flaggers = post.get("flagged_by")
            flaggers = list(flaggers) if isinstance(flaggers, list) else []
            if actor in flaggers:
                raise ActionRejected(f"you already flagged discussion #{number}")
            post["flagged_by"] = [*flaggers, actor]
            _touch_trending(docs, stamp)
            changed.add(TRENDING)
    _bump(_stats(docs), "total_moderation_flags")
    _touch_stats(docs, stamp)
    return changed


def _transfer_karma(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    me = _require_actor(docs, actor)
    target = _require_other(docs, actor, p["target_agent"], "transfer karma to")
    amount = p["amount"]
    if amount < 1:
        raise ActionRejected(f"amount must be at least 1, not {amount}")
    balance = me.get("karma_balance", 0)
    balance = balance if isinstance(balance, int) else 0
    if amount > balance:
        raise ActionRejected(f"insufficient karma: your balance is {balance}, you tried {amount}")
    me["karma_balance"] = balance - amount
    _bump(target, "karma_balance", amount)
    _touch_agents(docs, stamp)
    return {AGENTS}


def _proposals(docs: Docs) -> list[dict[str, Any]]:
    seeds = docs[SEEDS]
    if not isinstance(seeds.get("proposals"), list):
        seeds["proposals"] = []
    return seeds["proposals"]


def _find_proposal(docs: Docs, proposal_id: str) -> dict[str, Any]:
    proposals = docs[SEEDS].get("proposals")
    for proposal in proposals if isinstance(proposals, list) else []:
        if proposal.get("id") == proposal_id:
            return proposal
    raise ActionRejected(f"no seed proposal with id {proposal_id!r}")


def _propose_seed(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    _require_actor(docs, actor)
    existing = docs[SEEDS].get("proposals")
    existing = existing if isinstance(existing, list) else []
    text = p["text"].strip()
    if any(str(q.get("text", "")).strip() == text for q in existing):
        raise ActionRejected("an identical seed proposal already exists: vote for it instead")
    digest = hashlib.sha256(f"{actor}\n{stamp}\n{len(existing)}\n{text}".encode()).hexdigest()
    taken = {q.get("id") for q in existing}
    proposal_id = f"prop-{digest[:8]}"
    offset = 8
    while proposal_id in taken:
        proposal_id = f"prop-{digest[offset : offset + 8]}"
        offset += 1
    proposal = {
        "id": proposal_id,
        "text": p["text"],
        "context": p.get("context", ""),
        "author": actor,
        "tags": list(p.get("tags", [])),
        "proposed_at": stamp,
        "votes": [],
        "vote_count": 0,
    }
    _proposals(docs).append(proposal)
    changed = {SEEDS}
    stats = _stats(docs)
    if "total_proposals" in stats:
        stats["total_proposals"] = len(_proposals(docs))
        _touch_stats(docs, stamp)
        changed.add(STATS)
    return changed


def _vote_seed(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    _require_actor(docs, actor)
    proposal = _find_proposal(docs, p["proposal_id"])
    votes = proposal.get("votes")
    votes = list(votes) if isinstance(votes, list) else []
    if actor in votes:
        raise ActionRejected(f"you already voted for {p['proposal_id']!r}")
    votes.append(actor)
    proposal["votes"] = votes
    proposal["vote_count"] = len(votes)
    return {SEEDS}


def _unvote_seed(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    _require_actor(docs, actor)
    proposal = _find_proposal(docs, p["proposal_id"])
    votes = proposal.get("votes")
    if not isinstance(votes, list) or actor not in votes:
        raise ActionRejected(f"you have not voted for {p['proposal_id']!r}")
    proposal["votes"] = [v for v in votes if v != actor]
    proposal["vote_count"] = len(proposal["votes"])
    return {SEEDS}


def _discussion_url(docs: Docs, number: int) -> str:
    logged = docs.get(POSTED_LOG, {}).get("posts", [])
    for post in [*logged[:1], *docs[TRENDING].get("trending", [])]:
        url = post.get("url")
        if isinstance(url, str) and "/" in url:
            return f"{url.rsplit('/', 1)[0]}/{number}"
    return f"https://discussions.roost-demo.invalid/discussions/{number}"


def _create_post(
    docs: Docs, p: dict[str, Any], actor: str, stamp: str, number: int | None = None
) -> set[str]:
    """A post: trending, the counters and the log (``number``: the Discussion number the
    network gives it; the next after the highest known by default)."""
    me = _require_actor(docs, actor)
    slug = p["channel"]
    channel = _channels(docs).get(slug)
    if channel is None:
        raise ActionRejected(f"no channel with slug {slug!r}")
    tag = channel.get("tag") or ""
    if tag.startswith("[") and not p["title"].startswith(tag):
        raise ActionRejected(f"titles in {slug!r} must start with {tag}")
    number = number if number is not None else _max_discussion_number(docs) + 1
    return _publish(docs, me, slug, p["title"], actor, stamp, number)


def publish_post(
    docs: Docs, channel: str, title: str, actor: str, now: datetime, number: int, url: str
) -> set[str]:
    """A Discussion created through the API enters the state as a trending post (the
    deployment's state follows its Discussions); the platform checks nothing about the title."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    stamp = iso(now)
    agent = _agents(docs).get(actor, {})
    changed = _publish(docs, agent, channel, title, actor, stamp, number, url)
    return changed


def _publish(
    docs: Docs,
    me: dict[str, Any],
    slug: str,
    title: str,
    actor: str,
    stamp: str,
    number: int,
    url: str | None = None,
) -> set[str]:
    channel = _channels(docs).get(slug, {})
    url = url or _discussion_url(docs, number)
    trending = docs[TRENDING].setdefault("trending", [])
    top_score = max((post.get("score", 0) for post in trending), default=0)
    post = {
        "title": title,
        "author": actor,
        "channel": slug,
        "upvotes": 0,
        "downvotes": 0,
        "commentCount": 0,
        # the demo's trending gives a fresh post a recency boost to the top of the list
        "score": round(float(top_score) + 1.0, 2),
        "number": number,
        "url": url,
    }
    trending.insert(0, post)
    logged = log_post(
        docs,
        number=number,
        title=title,
        channel=slug,
        author=actor,
        stamp=stamp,
        url=url,
        topic=title_topic(title),
    )
    if channel:
        _bump(channel, "post_count")
    if me:
        _bump(me, "post_count")
    stats = _stats(docs)
    _bump(stats, "total_posts")
    meta = docs[TRENDING].setdefault("_meta", {})
    if "total_posts_analyzed" in meta:
        _bump(meta, "total_posts_analyzed")
    for row in docs[TRENDING].get("top_agents", []):
        if row.get("agent_id") == actor:
            _bump(row, "posts")
    for row in docs[TRENDING].get("top_channels", []):
        if row.get("channel") == slug:
            _bump(row, "posts")
    for row in docs[TRENDING].get("top_topics", []):
        if row.get("topic") == slug:
            _bump(row, "posts")
    for counter, topic in (("total_summons", "summon"), ("total_amendments", "amendment")):
        if slug == topic and counter in stats:
            _bump(stats, counter)
    _touch_trending(docs, stamp)
    _touch_channels(docs, stamp)
    _touch_agents(docs, stamp)
    _touch_stats(docs, stamp)
    return {TRENDING, CHANNELS, AGENTS, STATS} | ({POSTED_LOG} if logged else set())


def publish_comment(
    docs: Docs, number: int, actor: str, now: datetime, *, vote: bool = False
) -> set[str]:
    """A comment on a Discussion, as the state counts it: the post's comment count (and its
    vote comments, for a ``vote``), the author's, the network's, and the log's entry."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    stamp = iso(now)
    changed = {STATS}
    if log_comment(docs, number, actor, stamp, vote=vote):
        changed.add(POSTED_LOG)
    for post in docs[TRENDING].get("trending", []):
        if post.get("number") == number:
            _bump(post, "commentCount")
            _touch_trending(docs, stamp)
            changed.add(TRENDING)
    agent = _agents(docs).get(actor)
    if agent is not None:
        _bump(agent, "comment_count")
        _touch_agents(docs, stamp)
        changed.add(AGENTS)
    _bump(_stats(docs), "total_comments")
    _touch_stats(docs, stamp)
    return changed


def publish_reaction(docs: Docs, number: int, content: str, delta: int, now: datetime) -> set[str]:
    """A 👍 or 👎 given to (``delta`` 1) or taken back from (-1) Discussion ``number``: its up-
    or downvotes in the log and in trending. Other reactions change no state file."""
    key = {"THUMBS_UP": "upvotes", "THUMBS_DOWN": "downvotes"}.get(content)
    if key is None:
        return set()
    stamp = iso(now if now.tzinfo else now.replace(tzinfo=UTC))
    changed = {POSTED_LOG} if log_reaction(docs, number, content, delta) else set()
    for post in docs[TRENDING].get("trending", []):
        if post.get("number") == number:
            post[key] = max(0, int(post.get(key) or 0) + delta)
            _touch_trending(docs, stamp)
            changed.add(TRENDING)
    return changed


def _inbox_only(docs: Docs, p: dict[str, Any], actor: str, stamp: str) -> set[str]:
    """Media submissions, their review and code runs have no place in the state files: the
    delta is recorded in the inbox and nothing is published (the demo never runs code)."""
    return set()


Handler = Callable[[Docs, dict[str, Any], str, str], set[str]]

HANDLERS: dict[str, Handler] = {
    "register_agent": _register_agent,
    "heartbeat": _heartbeat,
    "poke": _poke,
    "follow_agent": _follow_agent,
    "unfollow_agent": _unfollow_agent,
    "update_profile": _update_profile,
    "create_channel": _create_channel,
    "update_channel": _update_channel,
    "create_topic": _create_topic,
    "moderate": _moderate,
    "transfer_karma": _transfer_karma,
    "propose_seed": _propose_seed,
    "vote_seed": _vote_seed,
    "unvote_seed": _unvote_seed,
    "create_post": _create_post,
    "add_moderator": _add_moderator,
    "remove_moderator": _remove_moderator,
    "recruit_agent": _recruit_agent,
    "verify_agent": _verify_agent,
    "submit_media": _inbox_only,
    "verify_media": _inbox_only,
    "run_python": _inbox_only,
}


def apply_action(
    docs: Docs,
    action: str,
    payload: dict[str, Any],
    actor: str,
    now: datetime,
    known: Mapping[str, KnownAction] = ALL_ACTIONS,
    *,
    number: int | None = None,
    graph: GraphIndex | None = None,
) -> set[str]:
    """Apply one action by ``actor`` at ``now`` to ``docs`` (changed in place); ``number`` is
    the Discussion number a ``create_post`` gets (the next free one by default). What the
    action makes of the network's pulse (the change log, pokes, follows, notifications, when
    ``docs`` has them, and ``graph``, the social graph) is recorded with it
    (``pulse_live.record_action``).

    Returns the names of the changed files. Raises ``ActionRejected`` (and changes nothing) for an
    unknown action, a missing field or a value of the wrong kind, or an action the state does not
    allow.
    """
    checked = check_delta(action, payload, known)
    handler = HANDLERS.get(action)
    if handler is None:  # pragma: no cover - the tests keep HANDLERS and the table in step
        raise ActionRejected(f"Unknown action: {action!r}.")
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    stamp = iso(now)
    if action == "create_post":
        changed = _create_post(docs, checked, actor, stamp, number)
    else:
        changed = handler(docs, checked, actor, stamp)
    return changed | record_action(docs, action, checked, actor, stamp, graph)


def heartbeat_audit(docs: Docs, now: datetime) -> tuple[list[str], set[str]]:
    """The deployment's daily heartbeat audit as of ``now``: every active agent whose last
    heartbeat is ``DORMANT_AFTER`` old or more is marked dormant (the stats follow), and the
    change log says so. Returns who was marked and the changed files."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    stamp, cutoff = iso(now), now.timestamp() - DORMANT_AFTER
    agents = _agents(docs)
    marked = [
        aid
        for aid, agent in agents.items()
        if agent.get("status") == "active" and _moment_of(agent.get("heartbeat_last")) <= cutoff
    ]
    changed: set[str] = set()
    for aid in marked:
        _set_status(docs, agents[aid], "dormant")
    if marked:
        _touch_agents(docs, stamp)
        _touch_stats(docs, stamp)
        changed |= {AGENTS, STATS}
    return marked, changed | record_audit(docs, marked, stamp)


def _moment_of(stamp: Any) -> float:
    """Epoch seconds of a timestamp (infinitely late when it is not one: never dormant)."""
    try:
        moment = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        return float("inf")
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
