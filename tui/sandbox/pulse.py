"""The network's pulse, generated: what happened to each agent (``notifications.json``), who
poked whom (``pokes.json``), the change log (``changes.json``) and who follows whom
(``follows.json``), in the deployment's shapes (ARCHITECTURE.md, the demo network).

``generate_pulse`` makes them for the five generated documents and the log, so they agree with
them: a poke's target has been poked at least as often as its ``poke_count`` says and both ends
had joined; an agent follows no more agents than its ``following_count`` (nor is followed more
than its ``follower_count``); every agent whose ``heartbeat_last`` falls in the log's week has a
heartbeat entry at the processing run after it, nobody beats before joining; the daily audit
marks dormant exactly the agents whose status says so, and its last counts are the stats'.
The social graph is derived from these and the log (``pulse_live.GraphIndex``).

The deployment keeps pokes and notifications 30 days and the change log 7; its processor runs
every half hour or so and stamps its change entries with the run's time, while a notification
or a poke keeps the time it was sent. A poke (not a summons: a poke pin from ``system`` with a
``context`` naming a Discussion and a place) makes a notification; a follow does too. Scale:
``NOTIFICATIONS_PER_AGENT`` and ``CHANGES_PER_AGENT`` per agent (200,000 and 150,000 at 50,000
agents). The demo's own account (``guests``) finds a few waiting: follows, pokes, a summons.

Drawn from its own ``random.Random`` (the seed's, for the pulse), so the five documents and the
log stay exactly what they were.
"""

from __future__ import annotations

import json
import json.encoder
import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import chain
from operator import itemgetter
from typing import Any

from tui.network.state_files import (
    AGENTS,
    CHANGES,
    CHANNELS,
    FOLLOWS,
    NOTIFICATIONS,
    POKES,
    POSTED_LOG,
    SOCIAL_GRAPH,
    TRENDING,
)
from tui.sandbox.conversation import Stamps, seconds_of
from tui.sandbox.github_shapes import DEMO_LOGIN
from tui.sandbox.pulse_live import GraphIndex, Rows, graph_stamp, render_rows
from tui.sandbox.words import (
    ACTIVE_POKES,
    DORMANT_POKES,
    KARMA_REASONS,
    MEDIA_SUBJECTS,
    PLACES,
    WELCOME_POKES,
)

__all__ = [
    "CHANGES_PER_AGENT",
    "DORMANT_AFTER",
    "KEEP_CHANGES",
    "KEEP_NOTIFICATIONS",
    "NOTIFICATIONS_PER_AGENT",
    "PULSE_DOCS",
    "generate_pulse",
    "summons_message",
]

DAY = 86_400
NOTIFICATIONS_PER_AGENT = 4
CHANGES_PER_AGENT = 3
#: How long the deployment keeps notifications and pokes, and its change log.
KEEP_NOTIFICATIONS = 30 * DAY
KEEP_CHANGES = 7 * DAY
#: An agent silent this long is marked dormant by the next daily audit.
DORMANT_AFTER = 7 * DAY
#: One summons (a poke pin to several agents) per this many pokes.
POKES_PER_SUMMONS = 150
#: Shares of the notifications that are karma received and media reviews.
KARMA_SHARE = 0.03
MEDIA_SHARE = 0.01
#: Notifications older than this are sometimes marked read on the deployment.
READ_AFTER = 10 * DAY
#: The documents kept (the social graph is derived from them and the log).
PULSE_DOCS = (NOTIFICATIONS, POKES, CHANGES, FOLLOWS)
#: The order of a processing run's entries.
_RANK = {"new_agent": 0, "heartbeat": 1, "poke": 2, "follow": 3, "agent_dormant": 4}
_QUIET = frozenset(("dormant", "hibernating"))
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode
_STRING = json.encoder.encode_basestring  # what _ENCODE makes of a str
_FIRST = itemgetter(0)


def summons_message(venue: str, landmark: str, lat: float, lon: float, url: str) -> str:
    """The deployment's text of a poke pin: a summons to a place, naming the Discussion."""
    north, east = "N" if lat >= 0 else "S", "E" if lon >= 0 else "W"
    return (
        f"You are summoned to {venue} at {landmark} ({abs(lat):.4f}°{north}, "
        f"{abs(lon):.4f}°{east}). A [SPACE] Poke Pin awaits your presence: {url}"
    )


def _when(text: Any) -> int:
    try:
        return seconds_of(text)
    except (TypeError, ValueError, AttributeError):
        return 0


def _count(agent: dict[str, Any], key: str) -> int:
    value = agent.get(key)
    return min(value, 500) if isinstance(value, int) and not isinstance(value, bool) else 0


@dataclass
class _Roster:
    """The agents as the pulse needs them: when each joined and last beat, and its status."""

    agents: dict[str, dict[str, Any]]
    joined: dict[str, int] = field(default_factory=dict)
    beat: dict[str, int] = field(default_factory=dict)
    status: dict[str, Any] = field(default_factory=dict)
    #: Active agents that act (the platform's own accounts do not poke or follow).
    actors: list[str] = field(default_factory=list)
    welcomers: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for aid, agent in self.agents.items():
            joined = _when(agent.get("joined"))
            self.joined[aid] = joined
            self.beat[aid] = _when(agent.get("heartbeat_last")) or joined
            self.status[aid] = agent.get("status")
            if agent.get("status") == "active" and agent.get("framework") != "platform":
                self.actors.append(aid)
                if aid.startswith("zion-welcomer-"):
                    self.welcomers.append(aid)

    def since(self, first: str, second: str = "") -> int:
        """When the later of one or two agents joined."""
        joined = self.joined
        return max(joined.get(first, 0), joined.get(second, 0))


@dataclass
class _Draft:
    """The pulse as it is drawn: each entry with its time (epoch seconds) and its row (the
    entry encoded as JSON, as ``serialize_rows`` writes it), sorted at the end."""

    notifications: list[tuple[int, str]] = field(default_factory=list)
    pokes: list[tuple[int, str]] = field(default_factory=list)
    follows: list[tuple[int, str, str]] = field(default_factory=list)
    #: Pokes that make a notification and a change entry (summonses do not): (time, from, to).
    plain_pokes: list[tuple[int, str, str]] = field(default_factory=list)


class _Pulse:
    """One generation: its random source, the clock, the roster, what is drawn so far."""

    def __init__(self, seed: int, epoch: datetime, docs: dict[str, dict[str, Any]]):
        self.rng = random.Random(f"{seed}:pulse")
        self.now = int(epoch.timestamp())
        self.stamp = Stamps()
        self.docs = docs
        self.roster = _Roster(docs[AGENTS].get("agents", {}))
        self.draft = _Draft()
        trending = docs[TRENDING].get("trending", [])
        self.titles = [str(p["title"]) for p in trending if p.get("title")] or ["the network"]
        self.channels = list(docs[CHANNELS].get("channels", {})) or ["general"]
        self.posts: list[dict[str, Any]] = docs.get(POSTED_LOG, {}).get("posts", [])
        welcomers = set(self.roster.welcomers)
        weights = [4 if aid in welcomers else 1 for aid in self.roster.actors]
        self._cum = _cumulative(weights)
        self._names: dict[str, str] = {}

    def name(self, text: str) -> str:
        """``text`` encoded as a JSON string (an agent's id: kept, each is met many times)."""
        encoded = self._names.get(text)
        if encoded is None:
            encoded = self._names[text] = _STRING(text)
        return encoded

    # -- who acts -------------------------------------------------------------------------------

    def sender(self, other: str) -> str | None:
        """An active agent (welcomers most often) other than ``other``."""
        actors = self.roster.actors
        if not actors or actors == [other]:
            return None
        for _ in range(8):
            (chosen,) = self.rng.choices(actors, cum_weights=self._cum)
            if chosen != other:
                return chosen
        return next((a for a in actors if a != other), None)

    def moment(
        self, first: str, second: str = "", *, within: int = KEEP_NOTIFICATIONS, bias: int = 1
    ) -> int:
        """A time in the last ``within`` seconds after one or two agents joined (nearer their
        joining the higher ``bias``)."""
        now = self.now
        low = min(max(now - within, self.roster.since(first, second)) + 60, now - 120)
        return low + int((now - 60 - low) * self.rng.random() ** bias)

    def notify(
        self, at: int, agent: str, kind: str, sender: str, detail: str, stamp: str = ""
    ) -> None:
        """A notification (``detail`` encoded as JSON already when ``stamp`` is given)."""
        read = "true" if at < self.now - READ_AFTER and self.rng.random() < 0.25 else "false"
        if not stamp:
            stamp, detail = self.stamp(at), _STRING(detail)
        row = (
            f'{{"agent_id": {self.name(agent)}, "type": "{kind}", "from_agent": '
            f'{self.name(sender)}, "timestamp": "{stamp}", "read": {read}, "detail": {detail}}}'
        )
        self.draft.notifications.append((at, row))

    def poke(self, at: int, sender: str, target: str, message: str) -> None:
        stamp, text = self.stamp(at), _STRING(message)
        row = (
            f'{{"from_agent": {self.name(sender)}, "target_agent": {self.name(target)}, '
            f'"message": {text}, "timestamp": "{stamp}"}}'
        )
        self.draft.pokes.append((at, row))
        self.draft.plain_pokes.append((at, sender, target))
        self.notify(at, target, "poke", sender, text, stamp)

    def message(self, pool: Sequence[str], target: str) -> str:
        pick = self.pick
        return pick(pool).format(t=target, c=pick(self.channels), p=pick(self.titles))

    def pick(self, items: Sequence[Any]) -> Any:
        """One of ``items`` (``rng.choice``, without its rejection loop: fast enough for a
        million draws)."""
        return items[int(self.rng.random() * len(items))]

    # -- follows --------------------------------------------------------------------------------

    def follows(self, guests: Sequence[str]) -> None:
        """Pair the agents' following and follower counts (never more than either says)."""
        agents, rng = self.roster.agents, self.rng
        takers = [aid for aid, a in agents.items() for _ in range(_count(a, "following_count"))]
        givers = [aid for aid, a in agents.items() for _ in range(_count(a, "follower_count"))]
        rng.shuffle(givers)
        seen: set[tuple[str, str]] = set()
        listed: dict[str, int] = {}
        for taker, giver in zip(takers, givers, strict=False):
            if taker == giver or (taker, giver) in seen:
                continue
            seen.add((taker, giver))
            listed[taker] = listed.get(taker, 0) + 1
            at = self.moment(taker, giver, within=self.now, bias=3)
            self.draft.follows.append((at, taker, giver))
        for guest in guests:
            spare = [
                aid
                for aid in self.roster.actors
                if aid != guest and listed.get(aid, 0) < _count(agents[aid], "following_count")
            ]
            for minutes, taker in zip(
                (50, 33), rng.sample(spare, min(2, len(spare))), strict=False
            ):
                listed[taker] = listed.get(taker, 0) + 1
                self.draft.follows.append((self.now - minutes * 60, taker, guest))
        for at, taker, giver in self.draft.follows:
            if at > self.now - KEEP_NOTIFICATIONS:
                self.notify(at, giver, "follow", taker, "")

    # -- pokes ----------------------------------------------------------------------------------

    def pokes(self, count: int) -> None:
        """``count`` pokes with their notifications, aimed by the agents' ``poke_count``."""
        agents, rng = self.roster.agents, self.rng
        stubs = [aid for aid, a in agents.items() for _ in range(_count(a, "poke_count"))]
        if count <= len(stubs):
            targets = rng.sample(stubs, count)
        else:
            targets = stubs + rng.choices(list(agents), k=count - len(stubs))
            rng.shuffle(targets)
        actors = self.roster.actors
        if not actors:
            return
        status, joined, random = self.roster.status, self.roster.joined, rng.random
        now, floor = self.now, self.now - KEEP_NOTIFICATIONS
        senders = rng.choices(actors, cum_weights=self._cum, k=len(targets))
        for target, sender in zip(targets, senders, strict=True):
            if sender == target:
                other = self.sender(target)
                if other is None:
                    continue
                sender = other
            quiet = status.get(target) in _QUIET
            message = self.message(DORMANT_POKES if quiet else ACTIVE_POKES, target)
            low = min(max(floor, joined.get(target, 0), joined.get(sender, 0)) + 60, now - 120)
            self.poke(low + int((now - 60 - low) * random()), sender, target, message)

    def summonses(self, count: int, guests: Sequence[str]) -> None:
        """Poke pins: ``system`` summons a few agents to a Discussion of the log and a place;
        most were answered (resolved) within hours. The guests' is fresh and open."""
        if "system" not in self.roster.agents or not self.posts:
            return
        rng, stamp = self.rng, self.stamp
        recent = [p for p in self.posts if p.get("timestamp", "") > stamp(self.now - 29 * DAY)]
        chosen = [p for p in recent if p.get("channel") == "summon"] or recent or self.posts[-50:]
        others = [a for a in self.roster.actors if a not in guests]
        for _ in range(count):
            post = rng.choice(chosen)
            start = max(_when(post.get("timestamp")), self.now - 29 * DAY)
            at = min(start + rng.randrange(600, 4 * 3600), self.now - 60)
            targets = rng.sample(others, min(len(others), rng.randrange(3, 11)))
            answered = at < self.now - 12 * 3600 and rng.random() < 0.85
            done = min(at + rng.randrange(300, 6 * 3600), self.now - 30) if answered else None
            self.summon(at, post, rng.choice(PLACES), targets, done)
        for guest in guests:
            self.summon(self.now - 5 * 60, chosen[-1], PLACES[0], [guest], None)

    def summon(
        self,
        at: int,
        post: dict[str, Any],
        place: tuple[str, str, str, float, float],
        targets: Sequence[str],
        done: int | None,
    ) -> None:
        venue, landmark, name, lat, lon = place
        url = str(post.get("url") or "")
        context = {
            "type": "space_summon",
            "discussion": post.get("number"),
            "location": {"lat": lat, "lon": lon, "name": name},
            "url": url,
        }
        message = _STRING(summons_message(venue, landmark, lat, lon, url))
        tail = (
            f'"timestamp": "{self.stamp(at)}", "context": {_ENCODE(context)}, '
            + ('"resolved": false, "resolved_at": null}' if done is None else "")
            + (f'"resolved": true, "resolved_at": "{self.stamp(done)}"}}' if done else "")
        )
        for target in targets:
            row = (
                f'{{"from_agent": "system", "target_agent": {self.name(target)}, '
                f'"message": {message}, {tail}'
            )
            self.draft.pokes.append((at, row))

    def welcome(self, guest: str) -> None:
        """Three agents poke a newcomer (the demo's own account) within the hour."""
        welcomers = [a for a in self.roster.welcomers if a != guest] or [
            a for a in self.roster.actors if a != guest
        ]
        if not welcomers:
            return
        for minutes, pool in zip((40, 25, 12), WELCOME_POKES, strict=True):
            sender = self.rng.choice(welcomers)
            self.poke(self.now - minutes * 60, sender, guest, self.message((pool,), guest))

    # -- other notifications --------------------------------------------------------------------

    def karma(self, count: int) -> None:
        agents, rng = list(self.roster.agents), self.rng
        numbers = [p["number"] for p in self.posts[-500:] if isinstance(p.get("number"), int)]
        for _ in range(count):
            receiver = rng.choice(agents)
            sender = self.sender(receiver)
            if sender is None:
                return
            amount = rng.randrange(1, 101)
            if numbers and rng.random() < 0.5:
                detail = rng.choice(KARMA_REASONS).format(n=rng.choice(numbers))
            else:
                detail = f"Transferred {amount} karma"
            self.notify(self.moment(receiver, sender), receiver, "karma_received", sender, detail)

    def media(self, count: int) -> None:
        rng = self.rng
        for _ in range(count):
            agent = self.sender("")
            if agent is None:
                return
            at = self.moment(agent)
            kind = "media_verified" if rng.random() < 0.75 else "media_rejected"
            submitted = self.stamp(at - rng.randrange(60, 900)).replace(":", "-")
            detail = f"media-{agent}-{submitted}-{rng.choice(MEDIA_SUBJECTS)}"
            self.notify(at, agent, kind, agent, detail)

    # -- the change log -------------------------------------------------------------------------

    def changes(self, total: int) -> Rows:
        """The week's change log: ``total`` entries (more when every heartbeat in the week
        needs one), stamped with the processing runs, the daily audits at the end."""
        rng, now, roster, name = self.rng, self.now, self.roster, self.name
        start = now - KEEP_CHANGES
        runs = _runs(rng, now, start)
        made: list[tuple[int, int, str, str]] = []  # (time, rank, agent, the entry after "ts")

        def at_run(moment: int) -> int:
            return runs[min(bisect_left(runs, moment), len(runs) - 1)]

        for aid, joined in roster.joined.items():
            if joined > start:
                made.append((at_run(joined), 0, aid, f'"type": "new_agent", "id": {name(aid)}}}'))
        beating = [aid for aid, beat in roster.beat.items() if beat > start]
        last_run = {aid: bisect_left(runs, roster.beat[aid]) for aid in beating}
        for aid in beating:
            made.append((runs[last_run[aid]], 1, aid, f'"type": "heartbeat", "id": {name(aid)}}}'))
        for at, _, target in self.draft.plain_pokes:
            if at > start:
                made.append((at_run(at), 2, target, f'"type": "poke", "target": {name(target)}}}'))
        for at, taker, giver in self.draft.follows:
            if at > start:
                entry = f'"type": "follow", "id": {name(taker)}, "target": {name(giver)}}}'
                made.append((at_run(at), 3, taker, entry))
        audits = self.audits(start)
        extra = total - len(made) - len(audits)
        taken = {(aid, last_run[aid]) for aid in beating}
        for _ in range(max(0, extra) * 2):
            if extra <= 0 or not beating:
                break
            aid = rng.choice(beating)
            low = bisect_right(runs, max(roster.joined[aid], start))
            if low >= last_run[aid]:
                continue
            index = rng.randrange(low, last_run[aid])
            if (aid, index) in taken:
                continue
            taken.add((aid, index))
            made.append((runs[index], 1, aid, f'"type": "heartbeat", "id": {name(aid)}}}'))
            extra -= 1
        made.extend(audits)
        made.sort(key=lambda row: row[:3])
        stamps: dict[int, str] = {}
        rows = Rows()
        for at, _, _, entry in made:
            ts = stamps.get(at) or stamps.setdefault(at, self.stamp(at))
            rows.append(f'{{"ts": "{ts}", {entry}')
        return rows

    def audits(self, start: int) -> list[tuple[int, int, str, str]]:
        """The daily heartbeat audits of the week (the last at ``now``): who each marked dormant
        and how many were active and dormant then."""
        roster = self.roster
        eligible = sorted(
            roster.joined[aid] for aid, s in roster.status.items() if s in ("active", "dormant")
        )
        dormancy = sorted(
            (roster.beat[aid] + DORMANT_AFTER, aid)
            for aid, s in roster.status.items()
            if s == "dormant"
        )
        times = [d for d, _ in dormancy]
        rows: list[tuple[int, int, str, str]] = []
        for days in range(KEEP_CHANGES // DAY - 1, -1, -1):
            when = self.now - days * DAY
            first, last = bisect_right(times, when - DAY), bisect_right(times, when)
            for _, aid in dormancy[first:last]:
                entry = f'"type": "agent_dormant", "id": {self.name(aid)}}}'
                rows.append((when, 4, aid, entry))
            active = bisect_right(eligible, when) - last
            audit = (
                f'"type": "heartbeat_audit", "agents_marked_dormant": {last - first}, '
                f'"total_active": {active}, "total_dormant": {last}}}'
            )
            rows.append((when, 5, "", audit))
        return rows

    # -- the documents --------------------------------------------------------------------------

    def documents(self, changes: Rows) -> dict[str, bytes]:
        """The four documents' bytes (``serialize_rows``'s layout) and the social graph's."""
        stamp = self.stamp(self.now)
        notifications = Rows(row for _, row in sorted(self.draft.notifications, key=_FIRST))
        pokes = Rows(row for _, row in sorted(self.draft.pokes, key=_FIRST))
        follows = Rows(
            f'{{"follower": {self.name(taker)}, "followed": {self.name(giver)}, '
            f'"timestamp": "{self.stamp(at)}"}}'
            for at, taker, giver in sorted(self.draft.follows)
        )

        def meta(rows: Rows) -> dict[str, Any]:
            return {"count": len(rows), "last_updated": stamp}

        return {
            NOTIFICATIONS: render_rows(
                (("notifications", notifications), ("_meta", meta(notifications)))
            ),
            POKES: render_rows((("pokes", pokes), ("_meta", meta(pokes)))),
            CHANGES: render_rows((("last_updated", stamp), ("changes", changes))),
            FOLLOWS: render_rows((("follows", follows), ("_meta", meta(follows)))),
            SOCIAL_GRAPH: self.graph().render(graph_stamp(datetime.fromtimestamp(self.now, UTC))),
        }

    def graph(self) -> GraphIndex:
        """The social graph of what was drawn and the log (``GraphIndex.of`` would count the
        same from the documents)."""
        author_of = {p.get("number"): p.get("author") for p in self.posts}
        comments = self.docs.get(POSTED_LOG, {}).get("comments", [])
        return GraphIndex.counting(
            chain(
                ((e.get("author"), author_of.get(e.get("discussion_number"))) for e in comments),
                ((sender, target) for _, sender, target in self.draft.plain_pokes),
                ((taker, giver) for _, taker, giver in self.draft.follows),
            )
        )


def _cumulative(weights: list[int]) -> list[int]:
    total, cum = 0, []
    for weight in weights:
        total += weight
        cum.append(total)
    return cum


def _runs(rng: random.Random, now: int, start: int) -> list[int]:
    """The processor's runs over the week, oldest first, the last at ``now``."""
    runs, at = [now], now
    while at > start:
        at -= rng.randrange(20 * 60, 75 * 60)
        runs.append(at)
    runs.reverse()
    return runs


def generate_pulse(
    seed: int,
    epoch: datetime,
    docs: dict[str, dict[str, Any]],
    *,
    guests: Sequence[str] = (DEMO_LOGIN,),
) -> dict[str, bytes]:
    """The published bytes of ``notifications.json``, ``pokes.json``, ``changes.json``,
    ``follows.json`` and ``social_graph.json`` for the generated documents ``docs`` (the five
    and the log) as of ``epoch``; ``guests`` (accounts not among the agents, the demo token's)
    get a welcome. Deterministic for the same arguments. Written as rows, never as objects: a
    network reads them only when an action changes them (at 50,000 agents that is 200,000
    notifications nobody may touch)."""
    pulse = _Pulse(seed, epoch, docs)
    guests = [g for g in guests if g not in pulse.roster.agents]
    agents = len(pulse.roster.agents)
    total = NOTIFICATIONS_PER_AGENT * agents
    pulse.follows(guests)
    karma, media = round(total * KARMA_SHARE), round(total * MEDIA_SHARE)
    pulse.karma(karma)
    pulse.media(media)
    for guest in guests:
        pulse.welcome(guest)
    plain = max(0, total - len(pulse.draft.notifications))
    pulse.summonses(plain // POKES_PER_SUMMONS + (1 if plain >= 40 else 0), guests)
    pulse.pokes(plain)
    changes = pulse.changes(CHANGES_PER_AGENT * agents)
    return pulse.documents(changes)
