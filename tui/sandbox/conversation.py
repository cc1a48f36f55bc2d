"""The conversation's log: every post and comment entry of the demo network (``posted_log.json``).

``generate_log`` makes the log of a generated network: two posts and five comment entries per
agent (100,000 and 250,000 at 50,000 agents), posts oldest first as the deployment appends them,
comments in the order they were made. Its counts are the network's: the generator takes the
agents' and channels' post and comment counts, the stats and trending from it.

The log holds entries only (small). What a thread says — bodies, replies, reactions — is derived
on demand from the network's seed and the thread's number (``threads``); the few values the log
needs from a thread (its native votes, which comments are vote emoji) come from ``unit``, a
hash of (seed, number, index), so the log and a thread derived later always agree.

The ``log_*`` functions change a log in place, for the processor (a post, a comment, a vote);
they do nothing to a set of documents without a log.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from tui.network.state_files import AGENTS, CHANNELS, POSTED_LOG, STATS, TRENDING
from tui.sandbox.prose import VOTE_EMOJI, post_title, tag_topic

__all__ = [
    "COMMENTS_PER_AGENT",
    "FIRST_NUMBER",
    "Stamps",
    "POSTS_PER_AGENT",
    "find_post",
    "generate_log",
    "is_vote",
    "log_comment",
    "log_post",
    "log_reaction",
    "max_number",
    "native_votes",
    "seconds_of",
    "title_topic",
    "unit",
    "vote_emoji",
]

POSTS_PER_AGENT = 2
COMMENTS_PER_AGENT = 5
#: The first Discussion's number (the repository's first numbers went to its setup).
FIRST_NUMBER = 101
#: How often a comment is a legacy vote (one emoji).
VOTE_SHARE = 0.12

DAY = 86_400
_MASK = (1 << 64) - 1


def _mix(value: int) -> int:
    """splitmix64: a well-spread 64-bit hash of an integer."""
    value = (value + 0x9E3779B97F4A7C15) & _MASK
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & _MASK
    return value ^ (value >> 31)


def unit(seed: int, number: int, index: int, salt: int) -> float:
    """A number in [0, 1) fixed by its arguments: the same in every process and run."""
    return _mix(_mix(_mix(seed & _MASK ^ salt) ^ number) ^ index) / 2.0**64


def is_vote(seed: int, number: int, index: int) -> bool:
    """Whether the ``index``-th generated comment of Discussion ``number`` is a vote emoji."""
    return index > 0 and unit(seed, number, index, 1) < VOTE_SHARE


def vote_emoji(seed: int, number: int, index: int) -> str:
    roll = unit(seed, number, index, 2)
    return VOTE_EMOJI[0] if roll < 0.55 else VOTE_EMOJI[int(roll * 100) % len(VOTE_EMOJI)]


def native_votes(seed: int, number: int) -> tuple[int, int]:
    """(👍, 👎) native reactions a generated Discussion was given."""
    up = int(1.0 / max(unit(seed, number, 0, 3), 1e-9) ** 0.6) - 1
    down = int(up * unit(seed, number, 0, 4) * 0.5) if up else int(unit(seed, number, 0, 5) < 0.1)
    return min(up, 60), down


_TWO = tuple(f"{n:02d}" for n in range(60))


class Stamps:
    """ISO timestamps of epoch seconds, fast: the day's part is kept."""

    def __init__(self) -> None:
        self._days: dict[int, str] = {}

    def __call__(self, seconds: int) -> str:
        day, rest = divmod(seconds, DAY)
        prefix = self._days.get(day)
        if prefix is None:
            prefix = datetime.fromtimestamp(day * DAY, UTC).strftime("%Y-%m-%dT")
            self._days[day] = prefix
        hours, rest = divmod(rest, 3600)
        minutes, rest = divmod(rest, 60)
        return f"{prefix}{_TWO[hours]}:{_TWO[minutes]}:{_TWO[rest]}Z"


_TAG = re.compile(r"\A\[([A-Za-z][A-Za-z0-9_-]*)(?::[^\]]*)?\]")


def title_topic(title: str) -> str | None:
    """The topic of a title's leading tag (``[DEBATE] …`` → ``debate``), or None."""
    found = _TAG.match(title)
    return tag_topic(found.group(0)) if found else None


def seconds_of(text: str) -> int:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp())


def _allot(rng: random.Random, total: int, posts: int) -> list[int]:
    """``total`` comments over ``posts`` posts: a heavy tail, most posts with a few or none."""
    counts = [0] * posts
    if not posts or total <= 0:
        return counts
    weights = [rng.paretovariate(1.25) for _ in range(posts)]
    scale = total / (sum(weights) or 1.0)
    shares = [w * scale for w in weights]
    for index, share in enumerate(shares):
        counts[index] = int(share)
    order = sorted(range(posts), key=lambda i: (int(shares[i]) - shares[i], i))
    for i in range(total - sum(counts)):
        counts[order[i % posts]] += 1
    return counts


def _draw(rng: random.Random, slots: list[str], count: int, fallback: list[str]) -> list[str]:
    """``count`` names from ``slots`` without putting any back (so no name is drawn more often
    than it has slots), topped up from ``fallback`` when the slots run out."""
    if count <= len(slots):
        return rng.sample(slots, count)
    drawn = slots + rng.choices(fallback, k=count - len(slots))
    rng.shuffle(drawn)
    return drawn


def _numbers(rng: random.Random, count: int, top: int, taken: set[int]) -> list[int]:
    """``count`` Discussion numbers at or below ``top`` and not ``taken``, highest first packed
    with small gaps (issues share the numbering); above ``top`` when too few are left."""
    found: list[int] = []
    number = top
    while len(found) < count and number >= FIRST_NUMBER:
        if number not in taken:
            found.append(number)
        number -= 1 if rng.random() < 0.75 else rng.randrange(2, 5)
    number = top + 1
    while len(found) < count:
        if number not in taken:
            found.append(number)
        number += 1
    return sorted(found)


def generate_log(
    seed: int, epoch: datetime, docs: dict[str, dict[str, Any]], site_url: str
) -> dict[str, Any]:
    """``posted_log.json`` for the five generated documents ``docs``: the network's recent
    history, as the deployment's log holds it. The stats count every post since the network
    began; the log holds the latest two posts and five comment entries per agent — every
    trending post among them, with its number, title, author, channel, votes and comment count
    — and no agent or channel in it more often than its counters say (below a hundred agents
    the trending posts alone may outnumber them: trending always lists sixty).

    Drawn from its own ``random.Random`` (the seed's, for the conversation), so the five
    documents stay exactly ``generate_state``'s.
    """
    rng = random.Random(f"{seed}:conversation")
    now = int(epoch.timestamp())
    stamp = Stamps()
    agents: dict[str, dict[str, Any]] = docs[AGENTS]["agents"]
    channels: dict[str, dict[str, Any]] = docs[CHANNELS]["channels"]
    stats = docs[STATS]
    trending = [p for p in docs[TRENDING].get("trending", []) if isinstance(p.get("number"), int)]
    fixed_comments = sum(int(p.get("commentCount") or 0) for p in trending)
    n_posts = max(len(trending), min(int(stats["total_posts"]), POSTS_PER_AGENT * len(agents)))
    n_comments = max(
        fixed_comments,
        min(
            int(stats["total_comments"]),
            max(COMMENTS_PER_AGENT * len(agents), fixed_comments + 3 * len(agents)),
        ),
    )
    joined = {aid: seconds_of(a["joined"]) for aid, a in agents.items()}
    opened = {slug: seconds_of(c["created_at"]) for slug, c in channels.items()}
    span = DAY * min(240.0, max(7.0, 240.0 * n_posts / max(1, int(stats["total_posts"]))))
    start = now - int(span)

    # the posts beside the trending ones: their authors and channels, then when
    others = n_posts - len(trending)
    by_author = Counter(p["author"] for p in trending)
    by_channel = Counter(p["channel"] for p in trending)
    author_slots = [
        aid for aid, a in agents.items() for _ in range(int(a["post_count"]) - by_author[aid])
    ]
    channel_slots = [
        slug for slug, c in channels.items() for _ in range(int(c["post_count"]) - by_channel[slug])
    ]
    authors = _draw(rng, author_slots, others, list(agents))
    slugs = _draw(rng, channel_slots, others, list(channels))
    drafts = []
    for author, slug in zip(authors, slugs, strict=True):
        low = min(max(start, joined.get(author, start), opened.get(slug, start)) + 60, now - 120)
        drafts.append((now - 60 - int((now - 60 - low) * rng.random() ** 1.5), author, slug))
    drafts.sort()
    taken = {int(p["number"]) for p in trending}
    numbers = _numbers(rng, others, max(taken, default=FIRST_NUMBER) + rng.randrange(1, 6), taken)

    posts: list[dict[str, Any]] = []
    for (at, author, slug), number in zip(drafts, numbers, strict=True):
        title, topic, _ = post_title(
            rng, str(channels[slug].get("tag") or ""), datetime.fromtimestamp(at, UTC)
        )
        up, down = native_votes(seed, number)
        posts.append(_post_entry(number, title, slug, author, at, site_url, up, down, topic))
    times = {entry["number"]: at for entry, (at, *_) in zip(posts, drafts, strict=True)}
    for post in trending:
        title = str(post.get("title") or "")
        entry = _post_entry(
            int(post["number"]),
            title,
            str(post.get("channel") or ""),
            str(post.get("author") or "system"),
            0,
            site_url,
            int(post.get("upvotes") or 0),
            int(post.get("downvotes") or 0),
            title_topic(title),
        )
        entry["url"] = post.get("url") or entry["url"]
        entry["commentCount"] = int(post.get("commentCount") or 0)
        posts.append(entry)
    posts.sort(key=lambda p: p["number"])
    _place_in_time(posts, times, start, now)
    for post in posts:  # nobody posts before joining, nor in a channel not yet opened
        floor = max(joined.get(post["author"], 0), opened.get(post["channel"], 0)) + 60
        times[post["number"]] = min(max(times[post["number"]], floor), now - 30)
    posts.sort(key=lambda p: (times[p["number"]], p["number"]))  # the order they were posted
    for post in posts:
        post["timestamp"] = stamp(times[post["number"]])
    comments = _comments(rng, seed, now, posts, times, agents, joined, n_comments)
    return {"posts": posts, "comments": comments}


def _post_entry(
    number: int,
    title: str,
    channel: str,
    author: str,
    at: int,
    site_url: str,
    up: int,
    down: int,
    topic: str | None,
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "number": number,
        "title": title,
        "channel": channel,
        "author": author,
        "timestamp": at,
        "url": f"{site_url}/discussions/{number}",
        "upvotes": up,
        "downvotes": down,
        "commentCount": 0,
    }
    if topic:
        entry["topic"] = topic
    return entry


def _place_in_time(posts: list[dict[str, Any]], times: dict[int, int], start: int, now: int):
    """Give the posts without a time (the trending ones) one between their neighbours', so
    numbers and times rise together."""
    index = 0
    while index < len(posts):
        if posts[index]["number"] in times:
            index += 1
            continue
        end = index
        while end < len(posts) and posts[end]["number"] not in times:
            end += 1
        before = times[posts[index - 1]["number"]] if index else start
        after = times[posts[end]["number"]] if end < len(posts) else now - 30
        run = end - index
        for offset in range(run):
            times[posts[index + offset]["number"]] = before + (after - before) * (offset + 1) // (
                run + 1
            )
        index = end


def _comments(
    rng: random.Random,
    seed: int,
    now: int,
    posts: list[dict[str, Any]],
    times: dict[int, int],
    agents: dict[str, dict[str, Any]],
    joined: dict[str, int],
    total: int,
) -> list[dict[str, Any]]:
    """The log's comment entries: each post's ``commentCount`` of them (the trending ones
    keep theirs, the rest share what is left), oldest first."""
    free = [i for i, p in enumerate(posts) if not p["commentCount"]]
    left = total - sum(p["commentCount"] for p in posts)
    for index, count in zip(free, _allot(rng, left, len(free)), strict=True):
        posts[index]["commentCount"] = count
    made: list[tuple[int, int, int, int]] = []  # (time, number, index in thread, post index)
    for post_index, post in enumerate(posts):
        count = post["commentCount"]
        if not count:
            continue
        begin = times[post["number"]]
        window = max(1, int((now - begin - 1) * rng.uniform(0.35, 1.0)))
        offsets, at = [], 0
        for _ in range(count):
            at += int(rng.expovariate(1.0 / 5400)) + 1
            offsets.append(at)
        if offsets[-1] > window:
            offsets = [max(1, off * window // offsets[-1]) for off in offsets]
        number = post["number"]
        made.extend((begin + off, number, i, post_index) for i, off in enumerate(offsets))
    made.sort()
    slots = [aid for aid, a in agents.items() for _ in range(int(a["comment_count"]))]
    commenters = _draw(rng, slots, len(made), list(agents))
    for position, (at, *_) in enumerate(made):  # nobody comments before joining
        who = commenters[position]
        if joined.get(who, 0) <= at:
            continue
        for _ in range(4):
            other = rng.randrange(len(made))
            them = commenters[other]
            if joined.get(them, 0) <= at and joined.get(who, 0) <= made[other][0]:
                commenters[position], commenters[other] = them, who
                break
    stamp = Stamps()
    cutoff = now - (now - min(times.values(), default=now)) * 3 // 5  # older: no channel
    entries: list[dict[str, Any]] = []
    voters: dict[int, list[str]] = {}
    for (at, number, index, post_index), who in zip(made, commenters, strict=True):
        post = posts[post_index]
        if joined.get(who, 0) > at:  # still not there: the post's author speaks
            who = post["author"]
        entry = {
            "timestamp": stamp(at),
            "discussion_number": number,
            "post_title": post["title"],
            "author": who,
        }
        if at >= cutoff:
            entry["channel"] = post["channel"]
        entries.append(entry)
        if is_vote(seed, number, index):
            voters.setdefault(post_index, []).append(who)
    for post_index, names in voters.items():
        _count_votes(posts[post_index], names)
    return entries


def _count_votes(post: dict[str, Any], voters: list[str]) -> None:
    """Count vote comments by ``voters`` on ``post`` (the deployment's three vote fields)."""
    count = int(post.get("vote_comment_count") or 0) + len(voters)
    post["internal_votes"] = count
    post["voters"] = list(dict.fromkeys([*(post.get("voters") or []), *voters]))
    post["vote_comment_count"] = count


# ---------------------------------------------------------------------------------------------
# Changing a log (the processor's part)


def _log(docs: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    return docs.get(POSTED_LOG)


def find_post(docs: dict[str, dict[str, Any]], number: int) -> dict[str, Any] | None:
    """The log entry of post ``number`` (the newest are looked at first), or None."""
    log = _log(docs)
    if log is None:
        return None
    return next((p for p in reversed(log["posts"]) if p.get("number") == number), None)


def max_number(docs: dict[str, dict[str, Any]]) -> int:
    log = _log(docs)
    if log is None:
        return 0
    return max((p["number"] for p in log["posts"] if isinstance(p.get("number"), int)), default=0)


def log_post(
    docs: dict[str, dict[str, Any]],
    *,
    number: int,
    title: str,
    channel: str,
    author: str,
    stamp: str,
    url: str,
    topic: str | None,
) -> bool:
    """Append a post to the log; False when there is no log."""
    log = _log(docs)
    if log is None:
        return False
    entry: dict[str, Any] = {
        "number": number,
        "title": title,
        "channel": channel,
        "author": author,
        "timestamp": stamp,
        "url": url,
        "upvotes": 0,
        "downvotes": 0,
        "commentCount": 0,
    }
    if topic:
        entry["topic"] = topic
    log["posts"].append(entry)
    return True


def log_comment(
    docs: dict[str, dict[str, Any]], number: int, author: str, stamp: str, *, vote: bool
) -> bool:
    """Append a comment entry and count it on its post (a vote emoji as a vote too); False
    when there is no log or no such post."""
    post = find_post(docs, number)
    if post is None:
        return False
    entry = {
        "timestamp": stamp,
        "discussion_number": number,
        "post_title": post.get("title", ""),
        "author": author,
        "channel": post.get("channel", ""),
    }
    docs[POSTED_LOG]["comments"].append(entry)
    post["commentCount"] = int(post.get("commentCount") or 0) + 1
    if vote:
        _count_votes(post, [author])
    return True


def log_reaction(docs: dict[str, dict[str, Any]], number: int, content: str, delta: int) -> bool:
    """A 👍 or 👎 on a post counted in (or, ``delta`` -1, out of) its votes."""
    key = {"THUMBS_UP": "upvotes", "THUMBS_DOWN": "downvotes"}.get(content)
    post = find_post(docs, number)
    if key is None or post is None:
        return False
    post[key] = max(0, int(post.get(key) or 0) + delta)
    return True
