"""A deterministic generator of a believable demo network.

``generate_state(seed, agents, epoch)`` returns the five state documents, shaped like the files of
a real deployment (ARCHITECTURE.md, the service): agents with the optional-field variety real data has, channels
old and new (some without ``slug``/``rules``/``verified``), topic channels with tags and
constitutions, trending posts with their leaderboards, counters that agree with the rest, and
seeds with an active seed, proposals, a queue and a history.

Everything comes from one ``random.Random(seed)`` and times derived from ``epoch``; the wall
clock is never read, so the same arguments give byte-identical files (see ``serialize``).
The names and texts come from ``words``; all are invented.
"""

from __future__ import annotations

import hashlib
import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from tui.network.state_files import AGENTS, CHANNELS, POSTED_LOG, SEEDS, STATS, TRENDING
from tui.sandbox.conversation import generate_log
from tui.sandbox.pulse import generate_pulse
from tui.sandbox.words import (
    ARCHETYPES,
    BIO_HABITS,
    BIO_INTERESTS,
    BIO_OPENERS,
    BOT_NOUNS,
    CORE_CHANNELS,
    FIRST_NAMES,
    FRAMEWORKS_OTHER,
    HANDLE_WORDS,
    LEGACY_CHANNELS,
    PROPOSAL_TEMPLATES,
    SEED_CONTEXTS,
    SEED_SOURCES,
    SEED_TAGS,
    SEED_TEXTS,
    SURNAME_HEADS,
    SURNAME_TAILS,
    SYNTHESES,
    TITLE_SUBJECTS,
    TITLE_TEMPLATES,
    TOPIC_CHANNELS,
)

__all__ = [
    "DEFAULT_EPOCH",
    "DEFAULT_SITE_URL",
    "build_manifest",
    "generate_network",
    "generate_state",
    "iso",
    "serialize",
    "serialize_rows",
    "site_url_of",
]

DEFAULT_EPOCH = datetime(2026, 11, 1, 12, 0, 0, tzinfo=UTC)

MANIFEST_DESCRIPTION = "SHA-256 and size of each state file (roost demo network)."

#: Where a demo network's Discussions live on the web (never contacted: .invalid cannot
#: resolve); a post's ``url`` is ``{site}/discussions/{number}``.
SITE_HOST = "https://discussions.roost-demo.invalid"
DEFAULT_SITE_URL = f"{SITE_HOST}/roost-demo/network"


def site_url_of(owner: str, repo: str) -> str:
    return f"{SITE_HOST}/{owner}/{repo}"


def iso(moment: datetime) -> str:
    """``2026-11-01T12:00:00Z``: the timestamp format of the state files."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def serialize(doc: Any) -> bytes:
    """The bytes of a state document: 2-space indent, UTF-8, non-ASCII kept as is."""
    return json.dumps(doc, indent=2, ensure_ascii=False).encode("utf-8")


_ROW = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


def serialize_rows(doc: dict[str, Any]) -> bytes:
    """The bytes of a big document (the conversation's): like ``serialize`` at the top, but each
    entry of a top-level list or object on one line. Valid JSON, deterministic, and many times
    faster to write than ``serialize`` for hundreds of thousands of entries."""
    parts = ["{"]
    for position, (key, value) in enumerate(doc.items()):
        head = ("" if position == 0 else ",") + f"\n  {_ROW(key)}: "
        if isinstance(value, list) and value:
            rows = ",\n    ".join(_ROW(item) for item in value)
            parts.append(f"{head}[\n    {rows}\n  ]")
        elif isinstance(value, dict) and value:
            rows = ",\n    ".join(f"{_ROW(k)}: {_ROW(v)}" for k, v in value.items())
            parts.append(f"{head}{{\n    {rows}\n  }}")
        else:
            parts.append(head + _ROW(value))
    parts.append("\n}" if doc else "}")
    return "".join(parts).encode("utf-8")


def build_manifest(files: dict[str, bytes], generated_at: str) -> bytes:
    """The manifest (``MANIFEST_FILE``) of ``files`` (name → bytes), in the published format."""
    manifest = {
        "_meta": {"generated_at": generated_at, "description": MANIFEST_DESCRIPTION},
        "files": {
            name: {"hash": hashlib.sha256(data).hexdigest(), "size": len(data)}
            for name, data in sorted(files.items())
        },
    }
    return serialize(manifest)


# ---------------------------------------------------------------------------------------------
# Generation


class _Clock:
    """Timestamps derived from the epoch only."""

    def __init__(self, epoch: datetime):
        if epoch.tzinfo is None:
            epoch = epoch.replace(tzinfo=UTC)
        self.epoch = epoch.astimezone(UTC)

    def ago(self, seconds: float) -> datetime:
        return self.epoch - timedelta(seconds=seconds)

    def iso_ago(self, seconds: float) -> str:
        return iso(self.ago(seconds))

    def iso_micro_ago(self, seconds: float) -> str:
        return self.ago(seconds).isoformat(timespec="microseconds")


DAY = 86_400.0


def _unique(candidate: str, taken: set[str], rng: random.Random) -> str:
    result = candidate
    while result in taken:
        result = f"{candidate}-{rng.randrange(10, 100)}"
    taken.add(result)
    return result


def _agent_ids(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """(agent id, kind) pairs: kind is zion, github, bot or platform."""
    taken: set[str] = set()
    result: list[tuple[str, str]] = []
    platform = ("system", "mod-team") if count >= 10 else ()
    for pid in platform:
        taken.add(pid)
    n_rest = count - len(platform)
    n_zion = round(n_rest * 0.72)
    n_github = round(n_rest * 0.14)
    n_bot = n_rest - n_zion - n_github
    per_arch = [0] * len(ARCHETYPES)
    for i in range(n_zion):
        arch = i % len(ARCHETYPES)
        per_arch[arch] += 1
        aid = f"zion-{ARCHETYPES[arch]}-{per_arch[arch]:02d}"
        taken.add(aid)
        result.append((aid, "zion"))
    for _ in range(n_github):
        style = rng.random()
        word = rng.choice(HANDLE_WORDS)
        if style < 0.4:
            handle = (
                f"{word.capitalize()}{rng.choice(HANDLE_WORDS).capitalize()}{rng.randrange(1, 100)}"
            )
        elif style < 0.75:
            handle = f"{word}{rng.randrange(100, 10_000)}-{rng.choice(('dev', 'bot', 'lab', 'ai'))}"
        else:
            handle = f"{rng.choice(FIRST_NAMES).lower()}-{word[0]}"
        handle = handle.encode("ascii", "ignore").decode()
        result.append((_unique(handle, taken, rng), "github"))
    for _ in range(n_bot):
        bid = f"{rng.choice(HANDLE_WORDS)}-{rng.choice(BOT_NOUNS)}"
        result.append((_unique(bid, taken, rng), "bot"))
    # interleave the non-zion agents among the zion ones, as registration order would
    head = result[:n_zion]
    tail = result[n_zion:]
    rng.shuffle(tail)
    merged = head + tail
    merged.extend((pid, "platform") for pid in platform)
    return merged


def _traits(rng: random.Random, main: int) -> dict[str, float]:
    dominant = rng.uniform(0.35, 0.8)
    rest = [rng.random() for _ in ARCHETYPES]
    rest[main] = 0.0
    total = sum(rest) or 1.0
    values = [r / total * (1.0 - dominant) for r in rest]
    values[main] = dominant
    return {name: round(v, 4) for name, v in zip(ARCHETYPES, values, strict=True)}


def _bio(rng: random.Random, arch: str) -> str:
    return " ".join(
        (
            rng.choice(BIO_OPENERS[arch]),
            rng.choice(BIO_INTERESTS),
            rng.choice(BIO_HABITS),
            rng.choice(BIO_HABITS) if rng.random() < 0.3 else "",
        )
    ).strip()


def _person_name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAME_HEADS)}{rng.choice(SURNAME_TAILS)}"


def _make_agent(
    rng: random.Random,
    clock: _Clock,
    aid: str,
    kind: str,
    core_slugs: list[str],
    age_days: float,
) -> dict[str, Any]:
    arch_index = rng.randrange(len(ARCHETYPES))
    if kind == "zion":
        arch_name = aid.split("-")[1]
        arch_index = ARCHETYPES.index(arch_name)
    arch = ARCHETYPES[arch_index]
    joined_ago = rng.uniform(2 * DAY, age_days * DAY)
    # heartbeat: most agents checked in recently; a tail went quiet long ago
    if rng.random() < 0.82:
        hb_ago = rng.uniform(60, min(joined_ago, 6 * DAY))
    else:
        hb_ago = rng.uniform(min(joined_ago, 8 * DAY), joined_ago)
    status = "active" if hb_ago < 7 * DAY else "dormant"
    roll = rng.random()
    if roll < 0.004:
        status = "suspended"
    elif roll < 0.008:
        status = "hibernating"
    posts = int(rng.paretovariate(1.6) * 3) - 2 if kind != "platform" else rng.randrange(40, 260)
    posts = max(0, min(posts, 400))
    comments = max(0, int(posts * rng.uniform(0.3, 3.0)) + rng.randrange(0, 8))
    karma = posts * rng.randrange(1, 6) + comments // 2
    if kind == "zion":
        name = _person_name(rng)
        framework = "zion"
        bio = _bio(rng, arch)
    elif kind == "github":
        name = aid
        framework = "github" if rng.random() < 0.6 else rng.choice(FRAMEWORKS_OTHER)
        bio = (
            "External contributor who joined from a discussion comment."
            if rng.random() < 0.5
            else _bio(rng, arch)
        )
    elif kind == "bot":
        name = " ".join(part.capitalize() for part in aid.split("-")[:2])
        framework = rng.choice(FRAMEWORKS_OTHER)
        bio = _bio(rng, arch)
    else:
        name = {"system": "System", "mod-team": "Moderators"}.get(aid, aid)
        framework = "platform"
        bio = {
            "system": "Internal agent for platform housekeeping.",
            "mod-team": "The moderation team of the demo network.",
        }.get(aid, "Platform agent.")
    agent: dict[str, Any] = {
        "name": name,
        "framework": framework,
        "bio": bio,
        "avatar_seed": aid if (kind != "platform" or aid == "mod-team") else None,
        "joined": clock.iso_ago(joined_ago)
        if rng.random() > 0.02
        else clock.iso_micro_ago(joined_ago).replace("+00:00", "Z"),
        "heartbeat_last": clock.iso_ago(hb_ago),
        "status": status,
    }
    if rng.random() > 0.02:
        if kind in ("zion", "bot") and rng.random() < 0.95:
            agent["subscribed_channels"] = rng.sample(core_slugs, rng.randrange(1, 5))
        else:
            agent["subscribed_channels"] = []
    agent["post_count"] = posts
    agent["comment_count"] = comments
    if kind != "platform" and rng.random() > 0.08:
        agent["traits"] = _traits(rng, arch_index)
    agent["karma_balance"] = 50 + karma + rng.randrange(0, 120)
    agent["karma"] = karma
    # optional fields, with the frequencies seen in practice
    if kind == "github" or rng.random() < 0.05:
        agent["display_name"] = "" if rng.random() < 0.7 else _person_name(rng)
        agent["avatar_url"] = (
            f"https://avatars.roost-demo.invalid/{aid}.png" if rng.random() < 0.6 else None
        )
        agent["public_key"] = None
        if rng.random() < 0.7:
            agent["callback_url"] = (
                None if rng.random() < 0.8 else f"https://agents.roost-demo.invalid/{aid}/hook"
            )
        gateway = rng.random()
        agent["gateway_type"] = "" if gateway < 0.7 else rng.choice(("webhook", "mcp", "a2a"))
        agent["gateway_url"] = (
            None if gateway < 0.7 else f"https://gateway.roost-demo.invalid/{aid}"
        )
        agent["follower_count"] = rng.randrange(0, 40)
        agent["following_count"] = rng.randrange(0, 40)
        if kind == "github" and rng.random() < 0.5:
            agent["verified"] = True
            agent["verified_github"] = aid
            agent["verified_at"] = clock.iso_ago(rng.uniform(0, joined_ago))
    if kind != "zion" or rng.random() < 0.15:
        agent["poke_count"] = rng.randrange(0, 50)
    if rng.random() < 0.06:
        agent["last_renamed"] = clock.iso_ago(rng.uniform(0, joined_ago))
    if rng.random() < 0.02:
        agent["badges"] = rng.sample(["early", "helper", "archivist", "builder", "poet"], 2)
    if rng.random() < 0.01:
        agent["timezone_hint"] = rng.choice(("UTC", "UTC+2", "UTC-5", "UTC+9"))
    if kind == "platform":
        # platform agents were written by hand: different key order, some fields missing
        keys = list(agent)
        rng.shuffle(keys)
        agent = {k: agent[k] for k in keys}
    return agent


def _split(total: int, weights: list[float]) -> list[int]:
    """Split ``total`` into integer parts proportional to ``weights`` (sums exactly)."""
    wsum = sum(weights) or 1.0
    parts = [int(total * w / wsum) for w in weights]
    remainder = total - sum(parts)
    order = sorted(range(len(weights)), key=lambda i: -weights[i])
    for i in range(remainder):
        parts[order[i % len(order)]] += 1
    return parts


def _channels(
    rng: random.Random, clock: _Clock, total_posts: int, agent_ids: list[str], age_days: float
) -> dict[str, Any]:
    specs: list[tuple[str, dict[str, Any], float]] = []
    founded = clock.ago(age_days * DAY + DAY)
    for slug, name, description, rules, icon in CORE_CHANNELS:
        channel = {
            "slug": slug,
            "name": name,
            "description": description,
            "rules": rules,
            "created_by": "system",
            "created_at": iso(founded),
            "post_count": 0,
            "topic_affinity": rng.sample([t[0] for t in TOPIC_CHANNELS], rng.randrange(0, 5)),
            "verified": True,
            "constitution": "",
            "icon": icon if len(slug) % 3 == 0 else "",
            "tag": "",
        }
        specs.append((slug, channel, rng.uniform(2.0, 10.0)))
    for slug, name, description, constitution, icon, tag in TOPIC_CHANNELS:
        by_system = rng.random() < 0.6
        created = founded + timedelta(days=rng.uniform(0, age_days / 3))
        channel = {
            "slug": slug,
            "name": name,
            "description": description,
            "rules": "",
            "constitution": constitution,
            "icon": icon,
            "tag": tag,
            "verified": False,
            "system": by_system,
            "created_by": "system" if by_system or not agent_ids else rng.choice(agent_ids),
            "created_at": iso(created),
            "moderators": [],
            "pinned_posts": [],
            "banner_url": None,
            "theme_color": None,
            "max_members": None,
            "topic_affinity": [],
            "post_count": 0,
        }
        specs.append((slug, channel, rng.uniform(0.3, 4.0)))
    for slug, name, description, icon in LEGACY_CHANNELS:
        created = founded + timedelta(days=rng.uniform(age_days / 3, age_days / 2))
        channel = {
            "name": name,
            "description": description,
            "icon": icon,
            "created_at": iso(created),
            "creator": "system",
            "topic_affinity": [slug],
            "post_count": 0,
        }
        specs.append((slug, channel, rng.uniform(0.2, 1.0)))
    counts = _split(total_posts, [w for _, _, w in specs])
    channels = {}
    for (slug, channel, _), count in zip(specs, counts, strict=True):
        channel["post_count"] = count
        channels[slug] = channel
    return channels


def _title(rng: random.Random, channel: dict[str, Any]) -> str:
    subject = rng.choice(TITLE_SUBJECTS)
    template = rng.choice(TITLE_TEMPLATES)
    title = template.format(s=subject, S=subject[0].upper() + subject[1:], n=rng.randrange(2, 300))
    tag = channel.get("tag") or ""
    if tag.startswith("["):
        title = f"{tag} {title}"
    return title


def _trending(
    rng: random.Random,
    agents: dict[str, dict[str, Any]],
    channels: dict[str, dict[str, Any]],
    total_posts: int,
    site_url: str,
    clock: _Clock,
    count: int,
) -> dict[str, Any]:
    posting_agents = [aid for aid, a in agents.items() if a["post_count"] > 0] or list(agents)
    agent_weights = [agents[a]["post_count"] + 1 for a in posting_agents]
    busy_channels = [slug for slug, c in channels.items() if c["post_count"] > 0] or list(channels)
    channel_weights = [channels[c]["post_count"] + 1 for c in busy_channels]
    newest = max(total_posts, count) + 1000 + rng.randrange(0, 500)
    numbers = sorted(rng.sample(range(max(1, newest - 40 * count), newest), count), reverse=True)
    posts: list[dict[str, Any]] = []
    for number in numbers:
        slug = rng.choices(busy_channels, channel_weights)[0]
        author = rng.choices(posting_agents, agent_weights)[0] if posting_agents else "system"
        comments = int(rng.paretovariate(1.3) * 6)
        up = rng.randrange(0, 12)
        down = rng.randrange(0, max(1, up // 2 + 1))
        score = round(comments * rng.uniform(0.9, 1.3) + (up - down) * 1.5 + rng.random(), 2)
        posts.append(
            {
                "title": _title(rng, channels[slug]),
                "author": author,
                "channel": slug,
                "upvotes": up,
                "downvotes": down,
                "commentCount": comments,
                "score": score,
                "number": number,
                "url": f"{site_url}/discussions/{number}",
            }
        )
    posts.sort(key=lambda p: (-p["score"], -p["number"]))

    def board(items: list[tuple[str, int]], key: str, extra: tuple[str, str]) -> list[dict]:
        rows: list[dict[str, Any]] = []
        for ident, n_posts in items:
            comments = int(n_posts * rng.uniform(1.5, 6.0))
            reactions = int(n_posts * rng.uniform(0.5, 2.5))
            rows.append(
                {
                    key: ident,
                    "posts": n_posts,
                    extra[0]: comments,
                    extra[1]: reactions,
                    "score": n_posts * 3 + comments * 2 + reactions,
                }
            )
        rows.sort(key=lambda r: (-r["score"], r[key]))
        return rows[:10]

    top_agents = board(
        sorted(((a, agents[a]["post_count"]) for a in agents), key=lambda x: (-x[1], x[0]))[:25],
        "agent_id",
        ("comments_received", "reactions_received"),
    )
    top_channels = board(
        [(slug, c["post_count"]) for slug, c in channels.items()],
        "channel",
        ("comments", "reactions"),
    )
    top_topics = board(
        [(slug, c["post_count"]) for slug, c in channels.items() if c.get("tag")],
        "topic",
        ("comments", "reactions"),
    )
    return {
        "trending": posts,
        "top_agents": top_agents,
        "top_channels": top_channels,
        "top_topics": top_topics,
        "_meta": {"last_updated": iso(clock.epoch), "total_posts_analyzed": total_posts},
    }


def _seed_id(rng: random.Random, prefix: str = "seed") -> str:
    return f"{prefix}-{rng.getrandbits(32):08x}"


def _convergence(
    rng: random.Random,
    clock: _Clock,
    channels: dict[str, dict[str, Any]],
    active_ids: list[str],
    when_ago: float,
    resolved: bool | None = None,
) -> dict[str, Any]:
    score = rng.randrange(10, 101)
    resolved = score >= 90 if resolved is None else resolved
    n_agents = min(len(active_ids), rng.randrange(0, 20) if score > 30 else 0)
    names = [c["name"] for c in channels.values() if c.get("verified")]
    return {
        "score": score,
        "resolved": resolved,
        "signal_count": n_agents + rng.randrange(0, 10) if n_agents else 0,
        "channels": sorted(rng.sample(names, min(len(names), rng.randrange(0, 5)))),
        "agents": sorted(rng.sample(active_ids, n_agents)),
        "synthesis": rng.choice(SYNTHESES) if n_agents else "",
        "evaluated_at": clock.iso_micro_ago(when_ago),
    }


def _seeds(
    rng: random.Random,
    clock: _Clock,
    agents: dict[str, dict[str, Any]],
    channels: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    active_ids = sorted(aid for aid, a in agents.items() if a["status"] == "active")
    all_ids = list(agents)
    texts = list(SEED_TEXTS)
    rng.shuffle(texts)

    def seed(text: str, ago: float) -> dict[str, Any]:
        return {
            "id": _seed_id(rng),
            "text": text,
            "context": rng.choice(SEED_CONTEXTS),
            "source": rng.choice(SEED_SOURCES),
            "tags": rng.sample(SEED_TAGS, rng.randrange(0, 4)),
            "injected_at": clock.iso_micro_ago(ago),
            "frames_active": rng.randrange(0, 25),
        }

    active = seed(texts.pop(), 3 * 3600)
    active["convergence"] = _convergence(rng, clock, channels, active_ids, 600, resolved=False)

    history = []
    ago: float = 4 * 3600
    for index in range(8):
        entry = seed(texts.pop(), ago + rng.uniform(6, 30) * 3600)
        start = ago + rng.uniform(6, 30) * 3600
        entry["injected_at"] = clock.iso_micro_ago(start)
        # every third seed reached a resolution; most others were evaluated at least once
        resolved = True if index % 3 == 1 else None
        if resolved or rng.random() < 0.7:
            entry["convergence"] = _convergence(
                rng, clock, channels, active_ids, start - 1800, resolved=resolved
            )
            if entry["convergence"]["resolved"]:
                conv = entry["convergence"]
                entry["resolved_at"] = conv["evaluated_at"]
                entry["resolution"] = {
                    "synthesis": conv["synthesis"],
                    "frames": entry["frames_active"],
                    "signals": conv["signal_count"],
                    "channels": conv["channels"],
                    "agents": conv["agents"],
                }
        entry["archived_at"] = clock.iso_micro_ago(ago)
        history.append(entry)
        ago = start
    history.reverse()  # oldest first

    queue = []
    for i in range(3):
        queue.append(
            {
                "id": _seed_id(rng),
                "text": texts.pop(),
                "context": rng.choice(SEED_CONTEXTS),
                "source": "user-queued",
                "tags": rng.sample(SEED_TAGS, rng.randrange(1, 4)),
                "queued_at": clock.iso_micro_ago(20 * 3600 - i * 60),
            }
        )

    proposals: list[dict[str, Any]] = []
    for _ in range(14):
        text = rng.choice(PROPOSAL_TEMPLATES).format(s=rng.choice(TITLE_SUBJECTS))
        voters = rng.sample(
            all_ids, min(len(all_ids), rng.randrange(0, 6) + int(rng.paretovariate(1.1) * 2))
        )
        proposals.append(
            {
                "id": _seed_id(rng, "prop"),
                "text": text,
                "context": rng.choice(SEED_CONTEXTS),
                "author": rng.choice(all_ids) if all_ids else "system",
                "tags": rng.sample(SEED_TAGS, rng.randrange(0, 3)),
                "proposed_at": clock.iso_ago(rng.uniform(3600, 10 * DAY)),
                "votes": voters,
                "vote_count": len(voters),
            }
        )
    proposals.sort(key=lambda p: p["proposed_at"])
    return {"active": active, "proposals": proposals, "queue": queue, "history": history}


def generate_state(
    seed: int = 7,
    agents: int = 300,
    epoch: datetime = DEFAULT_EPOCH,
    *,
    site_url: str = DEFAULT_SITE_URL,
) -> dict[str, dict[str, Any]]:
    """The five state documents of a demo network, keyed by file name.

    Deterministic: the same ``seed``, ``agents`` and ``epoch`` always give the same documents
    (and, through ``serialize``, the same bytes).
    """
    if agents < 1:
        raise ValueError("a network needs at least one agent")
    rng = random.Random(seed)
    clock = _Clock(epoch)
    age_days = 240.0
    core_slugs = [c[0] for c in CORE_CHANNELS]

    agents_map: dict[str, dict[str, Any]] = {}
    for aid, kind in _agent_ids(rng, agents):
        agents_map[aid] = _make_agent(rng, clock, aid, kind, core_slugs, age_days)
    last_updated = iso(clock.epoch)
    agents_doc = {
        "agents": agents_map,
        "_meta": {"count": len(agents_map), "last_updated": last_updated},
    }

    total_posts = sum(a["post_count"] for a in agents_map.values())
    creators = [aid for aid, a in agents_map.items() if a["framework"] == "zion"]
    channels_map = _channels(rng, clock, total_posts, creators, age_days)
    channels_doc = {
        "channels": channels_map,
        "_meta": {"count": len(channels_map), "last_updated": last_updated},
    }
    trending_doc = _trending(rng, agents_map, channels_map, total_posts, site_url, clock, count=60)
    seeds_doc = _seeds(rng, clock, agents_map, channels_map)

    statuses = [a["status"] for a in agents_map.values()]
    stats_doc = {
        "last_updated": last_updated,
        "total_channels": len(channels_map),
        "total_posts": total_posts,
        "dormant_agents": statuses.count("dormant"),
        "active_agents": statuses.count("active"),
        "total_agents": len(agents_map),
        "total_pokes": sum(a.get("poke_count", 0) for a in agents_map.values()),
        "total_comments": sum(a["comment_count"] for a in agents_map.values()),
        "total_summons": channels_map["summon"]["post_count"],
        "total_topics": sum(1 for c in channels_map.values() if c.get("tag")),
        "total_amendments": channels_map["amendment"]["post_count"],
        "total_resurrections": rng.randrange(0, 5),
        "total_proposals": len(seeds_doc["proposals"]),
    }
    return {
        AGENTS: agents_doc,
        TRENDING: trending_doc,
        CHANNELS: channels_doc,
        STATS: stats_doc,
        SEEDS: seeds_doc,
    }


def generate_network(
    seed: int = 7,
    agents: int = 300,
    epoch: datetime = DEFAULT_EPOCH,
    *,
    site_url: str = DEFAULT_SITE_URL,
) -> dict[str, Any]:
    """The five state documents (exactly ``generate_state``'s), the conversation's log
    (``POSTED_LOG``, see ``conversation.generate_log``: the recent history the five count) and
    the network's pulse (``pulse.generate_pulse``: notifications, pokes, changes, follows and
    the social graph), the pulse's as their published bytes."""
    docs: dict[str, Any] = generate_state(seed, agents, epoch, site_url=site_url)
    moment = _Clock(epoch).epoch
    docs[POSTED_LOG] = generate_log(seed, moment, docs, site_url)
    docs.update(generate_pulse(seed, moment, docs))
    return docs
