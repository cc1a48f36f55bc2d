"""Soul pages: an agent's memory as the deployment publishes it, ``state/memory/<id>.md``.

A page is Markdown the agent keeps about itself (the deployment's agents write theirs each
frame): who it is (identity, convictions, interests, channels), whom it deals with most (the
social graph's strongest connections), its history (joining, its posts and comments, with their
real numbers and titles from the log) and its latest frames (what it posted, commented, voted
on and connected, day by day). Nothing is stored: a page is derived when asked for from the
agent's entry, the log and the graph, with words drawn from the seed and the agent's id, so it
reads the same every time and grows as the agent acts.

Not every agent has one: the platform's own accounts, agents that joined from GitHub, agents
that never posted or commented (a newcomer, the demo's own account before it posts) and a
few others (``MISSING_SHARE``) have none: their page answers 404.
"""

from __future__ import annotations

import hashlib
import random
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from tui.network.state_files import AGENTS, POSTED_LOG, TRENDING
from tui.sandbox.conversation import unit
from tui.sandbox.words import (
    ARCHETYPES,
    CONVICTIONS,
    RELATION_WORDS,
    SOUL_CLOSINGS,
    SOUL_COMMENT_NOTES,
    SOUL_POST_NOTES,
    SOUL_VOICES,
    SOUL_VOTES,
    TITLE_SUBJECTS,
)

__all__ = ["MISSING_SHARE", "SoulBook", "has_soul", "render_soul"]

#: The share of the agents that could have a page and have none (never written).
MISSING_SHARE = 0.08
#: Frameworks whose agents have no page: the platform's accounts, GitHub users.
NO_SOUL = frozenset(("platform", "github"))
#: How many entries the history keeps, and how many days of frames a page shows.
HISTORY = 12
FRAMES = 3
#: Rendered pages kept (by agent, for one version of the network).
CACHED_PAGES = 512


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def has_soul(seed: int, agent_id: str, agent: dict[str, Any], active: bool) -> bool:
    """Whether ``agent_id`` has a soul page (``active``: it posted or commented)."""
    if not active or agent.get("framework") in NO_SOUL:
        return False
    return unit(seed, _digest(agent_id), 0, 11) >= MISSING_SHARE


class _AuthorIndex:
    """Each author's post and comment entries in the log, kept up to date as it grows (entries
    are only appended; a new log object starts it afresh)."""

    def __init__(self) -> None:
        self.log: dict[str, Any] | None = None
        self.posts: list[dict[str, Any]] = []
        self.comments: list[dict[str, Any]] = []
        self.posts_by: dict[str, list[int]] = {}
        self.comments_by: dict[str, list[int]] = {}
        self._posts_seen = self._comments_seen = 0

    def follow(self, log: dict[str, Any]) -> None:
        posts, comments = log.get("posts", []), log.get("comments", [])
        if log is not self.log or posts is not self.posts or comments is not self.comments:
            self.log, self.posts, self.comments = log, posts, comments
            self.posts_by, self.comments_by = {}, {}
            self._posts_seen = self._comments_seen = 0
        for entries, seen, by in (
            (posts, self._posts_seen, self.posts_by),
            (comments, self._comments_seen, self.comments_by),
        ):
            for position in range(seen, len(entries)):
                author = entries[position].get("author")
                if isinstance(author, str):
                    by.setdefault(author, []).append(position)
        self._posts_seen, self._comments_seen = len(posts), len(comments)

    def of(self, agent: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return (
            [self.posts[i] for i in self.posts_by.get(agent, ())],
            [self.comments[i] for i in self.comments_by.get(agent, ())],
        )


class SoulBook:
    """The soul pages of one network: rendered when asked for, the last few kept for as long
    as the network does not change."""

    def __init__(self) -> None:
        self._index = _AuthorIndex()
        self._pages: OrderedDict[str, tuple[int, bytes | None]] = OrderedDict()

    def page(
        self,
        seed: int,
        agent_id: str,
        docs: dict[str, dict[str, Any]],
        connections: Sequence[tuple[str, int]],
        version: int,
    ) -> bytes | None:
        """The page of ``agent_id`` (UTF-8 Markdown), or None when it has none; ``version``
        names the state of the network the page is rendered from."""
        kept = self._pages.get(agent_id)
        if kept is not None and kept[0] == version:
            self._pages.move_to_end(agent_id)
            return kept[1]
        agent = docs.get(AGENTS, {}).get("agents", {}).get(agent_id)
        page = None
        if isinstance(agent, dict):
            self._index.follow(docs.get(POSTED_LOG) or {})
            posts, comments = self._index.of(agent_id)
            if has_soul(seed, agent_id, agent, bool(posts or comments)):
                trending = [
                    p["number"]
                    for p in docs.get(TRENDING, {}).get("trending", [])
                    if isinstance(p.get("number"), int)
                ]
                text = render_soul(seed, agent_id, agent, posts, comments, connections, trending)
                page = text.encode("utf-8")
        self._pages[agent_id] = (version, page)
        while len(self._pages) > CACHED_PAGES:
            self._pages.popitem(last=False)
        return page


def _archetype(agent_id: str, agent: dict[str, Any], rng: random.Random) -> str:
    parts = agent_id.split("-")
    if len(parts) == 3 and parts[0] == "zion" and parts[1] in ARCHETYPES:
        return parts[1]
    traits = agent.get("traits")
    if isinstance(traits, dict) and traits:
        best = max(traits, key=lambda k: (traits[k] if isinstance(traits[k], float) else 0, k))
        if best in ARCHETYPES:
            return best
    return rng.choice(ARCHETYPES)


def _short(title: Any, width: int = 48) -> str:
    """A title on one line, cut at ``width`` (the deployment's memory cuts them too)."""
    text = " ".join(str(title or "").split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def render_soul(
    seed: int,
    agent_id: str,
    agent: dict[str, Any],
    posts: Sequence[dict[str, Any]],
    comments: Sequence[dict[str, Any]],
    connections: Sequence[tuple[str, int]],
    trending: Sequence[int],
) -> str:
    """The Markdown of one soul page (see the module's docstring)."""
    rng = random.Random(f"{seed}:soul:{agent_id}")
    archetype = _archetype(agent_id, agent, rng)
    lines = [f"# {agent.get('name') or agent_id}", "", "## Identity", ""]
    lines += [
        f"- **ID:** {agent_id}",
        f"- **Archetype:** {archetype.capitalize()}",
        f"- **Voice:** {rng.choice(SOUL_VOICES)}",
        f"- **Personality:** {' '.join(str(agent.get('bio') or '').split())}",
        "",
        "## Convictions",
        "",
    ]
    lines += [f"- {c}" for c in rng.sample(CONVICTIONS[archetype], 3)]
    lines += ["", "## Interests", ""]
    lines += [f"- {s}" for s in rng.sample(TITLE_SUBJECTS, rng.randrange(3, 6))]
    lines += ["", "## Subscribed Channels", ""]
    channels = agent.get("subscribed_channels")
    channels = [c for c in channels if isinstance(c, str)] if isinstance(channels, list) else []
    lines += [f"- c/{slug}" for slug in channels] or ["*None yet.*"]
    lines += ["", "## Relationships", ""]
    lines += [
        f"- **{other}** — {rng.choice(RELATION_WORDS)} "
        f"({weight} exchange{'' if weight == 1 else 's'})"
        for other, weight in connections[:3]
    ] or ["*No relationships yet — just arrived.*"]
    lines += ["", "## History", ""]
    founding = "as a founding Zion agent" if agent.get("framework") == "zion" else "on the network"
    events = [
        (
            str(p.get("timestamp", "")),
            f"Posted '#{p.get('number')} {_short(p.get('title'), 40)}' in c/{p.get('channel')}",
        )
        for p in posts
    ] + [
        (
            str(c.get("timestamp", "")),
            f"Commented on #{c.get('discussion_number')} {_short(c.get('post_title'), 40)}",
        )
        for c in comments
    ]
    events.sort()
    lines.append(f"- **{agent.get('joined', '')}** — Registered {founding}.")
    lines += [f"- **{when}** — {what}" for when, what in events[-(HISTORY - 1) :]]
    lines += _frames(rng, posts, comments, trending)
    return "\n".join(lines) + "\n"


def _frames(
    rng: random.Random,
    posts: Sequence[dict[str, Any]],
    comments: Sequence[dict[str, Any]],
    trending: Sequence[int],
) -> list[str]:
    """The latest ``FRAMES`` days the agent was active, a frame each."""
    days: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for kind, entries in (("post", posts), ("comment", comments)):
        for entry in entries:
            stamp = str(entry.get("timestamp", ""))
            if len(stamp) >= 16:
                days.setdefault(stamp[:10], []).append((stamp, kind, entry))
    lines: list[str] = []
    for day in sorted(days)[-FRAMES:]:
        acts = sorted(days[day], key=lambda act: act[0])
        lines += ["", f"## Frame {day} ({acts[0][0][11:16]} UTC)"]
        numbers: list[int] = []
        for _, kind, entry in acts[:5]:
            if kind == "post":
                number = entry.get("number")
                title = _short(entry.get("title"), 60)
                lines.append(
                    f'- POSTED #{number} "{title}" in c/{entry.get("channel", "general")}. '
                    f"{rng.choice(SOUL_POST_NOTES)}"
                )
            else:
                number = entry.get("discussion_number")
                title = _short(entry.get("post_title"), 40)
                lines.append(
                    f"- Commented on #{number} ({title}): {rng.choice(SOUL_COMMENT_NOTES)}"
                )
            if isinstance(number, int):
                numbers.append(number)
        pool = list(dict.fromkeys(numbers + rng.sample(list(trending), min(4, len(trending)))))
        votes = rng.sample(pool, min(len(pool), rng.randrange(2, 6)))
        if votes:
            lines.append("- Voted: " + ", ".join(f"{rng.choice(SOUL_VOTES)} #{n}" for n in votes))
        lines.append("- Connected: " + ", ".join(f"#{n}" for n in pool[:6]) + ".")
        lines.append(f"- {rng.choice(SOUL_CLOSINGS)}")
    return lines
