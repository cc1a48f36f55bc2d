"""Following a queued action to its outcome (issue 10 item 4).

Two halves, both headless:

* :func:`follow` reads the issue and its comments (conditional requests, paced by
  :func:`next_check_after`) until the processor has spoken: ``✅`` → accepted, ``❌`` → rejected
  with its comment (cleaned: it is service text).
* :func:`effect_seen` is a function of (entry, snapshot) the app calls after each state refresh:
  True once the state shows the action's effect (→ applied), False while it does not yet, None
  when the state files never show this action.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import time
from typing import Any

from tui.actions.issue_client import IssueClient
from tui.actions.outbox import Entry, EntryBusy, Outbox, now_iso
from tui.network.fetch import FetchError
from tui.network.models import as_utc
from tui.untrusted import clean

__all__ = [
    "SHOWN_IN_STATE",
    "effect_seen",
    "follow",
    "follow_queued",
    "next_check_after",
    "settle_applied",
]

#: Pauses between checks of one issue: quick at first, then every minute.
CHECK_STEPS_S = (3.0, 5.0, 10.0, 20.0, 30.0, 60.0)

#: How far the processor's clock may lag roost's when it stamps a heartbeat.
CLOCK_SKEW_S = 600.0

#: Actions whose effect the state files show.
SHOWN_IN_STATE = frozenset(
    {
        "register_agent",
        "heartbeat",
        "follow_agent",
        "unfollow_agent",
        "create_channel",
        "update_channel",
        "propose_seed",
        "vote_seed",
        "unvote_seed",
        "create_post",
    }
)


def next_check_after(checks: int) -> float:
    """Seconds to wait before check number ``checks + 1`` of one issue."""
    return CHECK_STEPS_S[min(checks, len(CHECK_STEPS_S) - 1)]


def _verdict(comments: Any) -> tuple[str, str] | None:
    """("accepted"|"rejected", comment) from the processor's latest verdict comment."""
    for comment in reversed(comments if isinstance(comments, list) else []):
        body = comment.get("body") if isinstance(comment, dict) else None
        if not isinstance(body, str):
            continue
        text = body.strip()
        if text.startswith("✅"):
            return "accepted", clean(text, multiline=True)[:2000]
        if text.startswith("❌"):
            return "rejected", clean(text, multiline=True)[:2000]
    return None


async def follow(entry: Entry, client: IssueClient, *, now: float | None = None) -> bool:
    """One check of a queued entry; True when the entry changed (the caller saves it).

    Skips the check until its paced time has come. The comments are fetched only when the
    issue changed (its ETag moved), so an idle issue costs one 304 per check.
    """
    if entry.state != "queued" or entry.number is None:
        return False
    now = time.time() if now is None else now
    track = entry.tracking
    if now < float(track.get("next_at", 0)):
        return False
    checks = int(track.get("checks", 0))
    track["checks"] = checks + 1
    track["next_at"] = now + next_check_after(checks)
    base = f"{client.issues_url}/{entry.number}"
    try:
        issue = await client.conditional_get(base, track.get("issue_etag"))
        if issue.status == 304 and track.get("seen_comments") is not None:
            return True
        if issue.status not in (200, 304):
            track["last_error"] = f"issue answered {issue.status}"
            return True
        if issue.status == 200:
            track["issue_etag"] = issue.headers.get("etag")
        comments = await client.conditional_get(f"{base}/comments", track.get("comments_etag"))
    except FetchError as exc:
        track["last_error"] = f"{exc.kind}: {exc.reason}"
        return True
    if comments.status == 304:
        return True
    if comments.status != 200:
        track["last_error"] = f"comments answered {comments.status}"
        return True
    track["comments_etag"] = comments.headers.get("etag")
    try:
        listed = comments.json()
    except ValueError:
        listed = []
    track["seen_comments"] = len(listed) if isinstance(listed, list) else 0
    verdict = _verdict(listed)
    if verdict is not None:
        entry.state, entry.comment = verdict
        entry.accepted_at = now_iso()
        track.pop("last_error", None)
    return True


# ---------------------------------------------------------------------------------------------
# The effect in the state


def _agent(snapshot: Any, agent_id: str | None) -> Any:
    agents = getattr(snapshot, "agents", None)
    if agents is None or not agent_id:
        return None
    return agents.agents.get(agent_id)


def _following(agent: Any) -> list[str]:
    value = (agent.extras or {}).get("following") if agent is not None else None
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _proposal(snapshot: Any, proposal_id: str) -> Any:
    seeds = getattr(snapshot, "seeds", None)
    proposals = getattr(seeds, "proposals", None) or ()
    return next((p for p in proposals if p.id == proposal_id), None)


def _channel(snapshot: Any, slug: str) -> Any:
    channels = getattr(snapshot, "channels", None)
    return channels.channels.get(slug) if channels is not None else None


def effect_seen(entry: Entry, snapshot: Any) -> bool | None:
    """Whether ``snapshot`` (a store snapshot) shows the effect of an accepted ``entry``.

    None: this action leaves nothing in the state files to check (poke, moderation, media, ...).
    The acting agent is the issue's author, as the processor takes it.
    """
    action, payload, actor = entry.action, entry.payload, entry.author
    if action not in SHOWN_IN_STATE:
        return None
    if action == "register_agent":
        return _agent(snapshot, actor) is not None
    if action == "heartbeat":
        agent = _agent(snapshot, actor)
        beat = as_utc(agent.heartbeat_last) if agent is not None else None
        since = as_utc(entry.accepted_at) or as_utc(entry.created_at)
        # the processor stamps the beat when it runs: a minute of clock skew is forgiven
        return (
            beat is not None and since is not None and beat.timestamp() >= since.timestamp() - 600
        )
    if action in ("follow_agent", "unfollow_agent"):
        follows = payload.get("target_agent") in _following(_agent(snapshot, actor))
        return (
            follows
            if action == "follow_agent"
            else not follows and _agent(snapshot, actor) is not None
        )
    if action == "create_channel":
        return _channel(snapshot, payload.get("slug", "")) is not None
    if action == "update_channel":
        channel = _channel(snapshot, payload.get("slug", ""))
        if channel is None:
            return False
        return all(
            getattr(channel, key, None) == payload[key]
            for key in ("name", "description", "rules")
            if key in payload
        )
    if action == "propose_seed":
        seeds = getattr(snapshot, "seeds", None)
        proposals = getattr(seeds, "proposals", None) or ()
        return any(p.text == payload.get("text") and p.author == actor for p in proposals)
    if action in ("vote_seed", "unvote_seed"):
        proposal = _proposal(snapshot, payload.get("proposal_id", ""))
        if proposal is None:
            return action == "unvote_seed"
        voted = actor in proposal.votes
        return voted if action == "vote_seed" else not voted
    # create_post: only seen when the post trends
    trending = getattr(snapshot, "trending", None)
    posts = getattr(trending, "trending", None) or ()
    return (
        any(p.title == payload.get("title") and p.channel == payload.get("channel") for p in posts)
        or False
    )


# ---------------------------------------------------------------------------------------------
# The whole outbox, for a background worker


async def follow_queued(
    outbox: Outbox, client: IssueClient, *, now: float | None = None
) -> list[Entry]:
    """One paced check of every queued entry, each under its lock (another roost following
    the same entry is skipped); returns the entries whose state changed."""
    changed = []
    for entry in outbox.entries():
        if entry.state != "queued":
            continue
        try:
            with outbox.locked(entry.id):
                fresh = outbox.load(entry.id)
                before = fresh.state
                if await follow(fresh, client, now=now):
                    outbox.save(fresh)
                    if fresh.state != before:
                        changed.append(fresh)
        except (EntryBusy, KeyError):
            continue
    return changed


def settle_applied(outbox: Outbox, snapshot: Any) -> list[Entry]:
    """Mark accepted entries whose effect ``snapshot`` shows as applied; returns them.

    Actions the state never shows stay accepted: that is their last state.
    """
    applied = []
    for entry in outbox.entries():
        if entry.state != "accepted" or effect_seen(entry, snapshot) is not True:
            continue
        try:
            with outbox.locked(entry.id):
                fresh = outbox.load(entry.id)
                if fresh.state == "accepted":
                    fresh.state, fresh.applied_at = "applied", now_iso()
                    outbox.save(fresh)
                    applied.append(fresh)
        except (EntryBusy, KeyError):
            continue
    return applied
