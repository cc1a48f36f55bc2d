"""Following a sent action to its outcome (ARCHITECTURE.md, the write side).

Two processor generations answer an action issue, and roost reads both:

* the classic one comments ``✅ Delta processed successfully…`` and closes the issue (→
  accepted), or comments ``❌ Failed to process delta. …`` (→ rejected);
* the newer one comments ``## 📨 QUEUED`` with ``<!-- rappterbook-queued:issue:N -->`` (→
  received), later ``## ✅ APPLIED`` or ``## ❌ REJECTED`` with
  ``<!-- rappterbook-terminal-receipt:issue:N:applied|rejected -->`` (→ applied / rejected), and
  writes durable receipts readable without a token (``deployment_docs``).

A verdict is read only from the processor's account (``github-actions[bot]`` unless the
settings name another) and a marker only when it names this issue: on a public repository
anyone can comment "✅" on your issue. Other accounts' comments are kept as comments, never as
verdicts. Receipts come first (a conditional GET on the read URL: no token, no rate limit) and
are authoritative over comments; a receipt that later disappears (the deployment archives them)
changes nothing.

A comment, reply or reaction made on a GitHub Discussion has no processor: it is ``queued`` once
the platform answered with it and ``applied`` once it is seen (:func:`follow_answer`: the
thread read back holds the comment with its nonce, or the subject says the viewer has reacted
with that content). Reading a thread settles them too (``tui/actions/thread_answers.py``).

"Applied" means this action's effect: when an entry is drafted roost records what the state
showed for it (:func:`baseline`), and :func:`effect_seen` claims the effect only once the state
has moved past that record the way the action implies (a heartbeat newer than both the recorded
beat and the issue's creation less a minute of clock skew). A receipt saying applied is enough
on its own.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import re
import time
from datetime import datetime
from typing import Any

from tui.actions.deployment_docs import DeploymentDocs
from tui.actions.discussions import look_for
from tui.actions.graphql_send import NotThere, as_node_id
from tui.actions.issue_client import IssueClient, LookupFailed
from tui.actions.outbox import DamagedEntry, Entry, EntryBusy, Outbox, now_iso
from tui.network.fetch import FetchError, fetch
from tui.network.models import as_utc
from tui.network.side_files import parse_json
from tui.untrusted import clean, clean_line

__all__ = [
    "DEFAULT_PROCESSOR",
    "ANSWER_KINDS",
    "FOLLOWED_STATES",
    "SHOWN_IN_STATE",
    "baseline",
    "effect_seen",
    "follow",
    "follow_answer",
    "follow_queued",
    "next_check_after",
    "read_comments",
    "settle_applied",
]

#: The account the deployment's processor comments as (a workflow).
DEFAULT_PROCESSOR = "github-actions[bot]"

#: Pauses between checks of one issue: quick at first, then every minute.
CHECK_STEPS_S = (3.0, 5.0, 10.0, 20.0, 30.0, 60.0)
#: Pauses between checks of a comment or reaction: a GraphQL read is never a free 304, and
#: GitHub shows what was made at once, so one not seen soon is asked for ever less often.
ANSWER_CHECK_STEPS_S = (3.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0)

#: How far the processor's clock may lag the platform's when it stamps a heartbeat.
CLOCK_SKEW_S = 60.0

#: Entries a check can move forward.
FOLLOWED_STATES = frozenset({"queued", "received", "accepted"})

#: Entries that answer a post on the platform itself (no processor): comments, replies and
#: reactions. A post (``discussion``) is applied once made.
ANSWER_KINDS = frozenset({"discussion_comment", "discussion_reaction"})

#: The most of a verdict comment kept, and of a receipt's error and hint.
COMMENT_CAP = 4000
#: Comments of other accounts kept per entry (the newest).
OTHER_COMMENTS_KEPT = 20
#: The most of one receipt read.
RECEIPT_CAP = 256 * 1024

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


def next_check_after(checks: int, steps: tuple[float, ...] = CHECK_STEPS_S) -> float:
    """Seconds to wait before check number ``checks + 1`` of one entry."""
    return steps[min(checks, len(steps) - 1)]


# ---------------------------------------------------------------------------------------------
# Reading the comments


def _queued_marker(number: int) -> re.Pattern[str]:
    return re.compile(rf"<!--\s*rappterbook-queued:issue:{number}\s*-->")


def _terminal_marker(number: int) -> re.Pattern[str]:
    return re.compile(
        rf"<!--\s*rappterbook-terminal-receipt:issue:{number}:(applied|rejected)\s*-->"
    )


def _login(comment: dict[str, Any]) -> str:
    user = comment.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    return login if isinstance(login, str) else ""


def read_comments(
    comments: Any, number: int, processor: str = DEFAULT_PROCESSOR, *, closed: bool = False
) -> tuple[tuple[str, str] | None, list[dict[str, Any]]]:
    """(the processor's latest word as (state, its comment), other accounts' comments).

    The processor's word: ``received`` (a QUEUED marker for this issue), ``applied`` /
    ``rejected`` (a terminal marker for this issue under its heading), or, from the classic
    generation, ``accepted`` (a first line starting with ✅, the issue closed) / ``rejected``
    (a first line starting with ❌). Anything else, and anything from another account, is a
    comment.
    """
    queued, terminal = _queued_marker(number), _terminal_marker(number)
    word: tuple[str, str] | None = None
    others: list[dict[str, Any]] = []
    rank = {"received": 1, "accepted": 2, "rejected": 3, "applied": 3}
    for comment in comments if isinstance(comments, list) else []:
        if not isinstance(comment, dict) or not isinstance(comment.get("body"), str):
            continue
        body = comment["body"]
        login = _login(comment)
        if login != processor:
            others.append(
                {
                    "id": comment.get("id") if isinstance(comment.get("id"), int) else None,
                    "login": clean_line(login, 60) or "?",
                    "at": clean_line(comment.get("created_at") or "", 40),
                    "body": clean(body, multiline=True)[:COMMENT_CAP],
                }
            )
            continue
        found = None
        end = terminal.search(body)
        text = body.strip()
        if end is not None:
            heading = "## ✅ APPLIED" if end.group(1) == "applied" else "## ❌ REJECTED"
            if heading in body:
                found = end.group(1)
        elif queued.search(body) and "## 📨 QUEUED" in body:
            found = "received"
        elif text.startswith("✅") and closed:
            found = "accepted"
        elif text.startswith("❌"):
            found = "rejected"
        if found is not None and (word is None or rank[found] >= rank[word[0]]):
            word = (found, clean(text, multiline=True)[:COMMENT_CAP])
    return word, others


# ---------------------------------------------------------------------------------------------
# Receipts


def _receipt_problem(receipt: Any, number: int, status: str) -> str | None:
    """Why ``receipt`` is not the receipt of issue ``number`` with ``status``, or None."""
    if not isinstance(receipt, dict):
        return "not a JSON object"
    if receipt.get("issue_number") != number:
        return f"its issue_number is {clean_line(str(receipt.get('issue_number')), 20)}"
    request_id = receipt.get("request_id")
    if request_id != f"issue:{number}":
        return f"its request_id is {clean_line(str(request_id), 40)}"
    if status == "queued":
        return None if isinstance(receipt.get("action"), str) else "it names no action"
    if receipt.get("status") != status:
        return f"its status is {clean_line(str(receipt.get('status')), 20)}"
    if status == "rejected" and not isinstance(receipt.get("error"), str):
        return "it gives no error"
    return None


async def _receipts(entry: Entry, docs: DeploymentDocs) -> bool:
    """Read the entry's receipts (final ones first); True when the entry changed."""
    track = entry.tracking
    etags: dict[str, str] = track.setdefault("receipt_etags", {})
    assert entry.number is not None
    for status, url in docs.receipt_urls(entry.number).items():
        if status == "queued" and entry.state != "queued":
            continue
        try:
            result = await fetch(
                docs.client,
                url,
                cap=RECEIPT_CAP,
                etag=etags.get(status),
                deadline_s=20.0,
                same_origin=True,  # a receipt is read from the read URL's origin only
            )
        except FetchError as exc:
            track["receipt_error"] = f"{status} receipt {exc.url}: {exc.reason}"
            continue
        if result.status != 200:
            continue  # 304: as before; 404: not (or no longer) there, which says nothing
        try:
            receipt = parse_json(result.body)
        except ValueError as exc:
            track["receipt_error"] = f"{status} receipt is not JSON: {exc}"
            continue
        problem = _receipt_problem(receipt, entry.number, status)
        if problem is not None:
            track["receipt_error"] = f"the {status} receipt does not match this action: {problem}"
            continue
        if result.etag:
            etags[status] = result.etag
        track.pop("receipt_error", None)
        track["two_step"] = True
        if status == "queued":
            entry.state = "received"
            entry.received_at = entry.received_at or now_iso()
            return True
        entry.receipt = {
            "status": status,
            "url": result.url or url,  # the URL actually read
            "error": clean(receipt.get("error") or "", multiline=True)[:COMMENT_CAP] or None,
            "hint": clean(receipt.get("hint") or "", multiline=True)[:COMMENT_CAP] or None
            if isinstance(receipt.get("hint"), str)
            else None,
        }
        entry.state = status
        if status == "applied":
            entry.applied_at = now_iso()
        else:
            entry.comment = entry.receipt["error"]
        return True
    return False


# ---------------------------------------------------------------------------------------------
# One check of one entry


def _status_words(status: int) -> str:
    """A status a check cannot use, with what it means for the check."""
    if 300 <= status < 400:
        return f"{status} (a redirect, not followed with the token)"
    if status in (401, 403):
        return f"{status} (the token may not read it)"
    if status == 404:
        return "404 (not found)"
    return str(status)


async def follow(
    entry: Entry,
    client: IssueClient,
    *,
    now: float | None = None,
    docs: DeploymentDocs | None = None,
    processor: str = DEFAULT_PROCESSOR,
) -> bool:
    """One check of a sent entry; True when the entry changed (the caller saves it). A
    comment, reply or reaction is :func:`follow_answer`'s; what follows is an issue's.

    Skips the check until its paced time has come. Receipts first (when the deployment has
    them), then the issue and its comments, fetched only when the issue changed (its ETag
    moved), so an idle issue costs one 304 per check.
    """
    if entry.kind in ANSWER_KINDS:
        return await follow_answer(entry, client, now=now)
    if entry.state not in FOLLOWED_STATES or entry.number is None or entry.kind != "issue":
        return False
    if not _due(entry, now):
        return False
    track = entry.tracking
    receipts = docs is not None and (track.get("two_step") or docs.has_receipt_templates())
    if (
        receipts
        and docs is not None
        and await _receipts(entry, docs)
        and entry.state in ("applied", "rejected")
    ):
        return True
    if entry.state == "accepted":
        return True  # the classic verdict is in; only the state (or a receipt) says more
    base = f"{client.issues_url}/{entry.number}"
    try:
        issue = await client.conditional_get(base, track.get("issue_etag"))
        if issue.status == 304 and track.get("seen_comments") is not None:
            track.pop("last_error", None)
            return True
        if issue.status not in (200, 304):
            track["last_error"] = f"GET of the issue answered {_status_words(issue.status)}"
            return True
        if issue.status == 200:
            track["issue_etag"] = issue.headers.get("etag")
            try:
                data = issue.json()
            except ValueError:
                data = {}
            track["closed"] = isinstance(data, dict) and data.get("state") == "closed"
        comments = await client.conditional_get(f"{base}/comments", track.get("comments_etag"))
    except FetchError as exc:
        track["last_error"] = f"{exc.kind}: {exc.reason}"
        return True
    if comments.status == 304:
        track.pop("last_error", None)
        return True
    if comments.status != 200:
        track["last_error"] = f"GET of its comments answered {_status_words(comments.status)}"
        return True
    track["comments_etag"] = comments.headers.get("etag")
    try:
        listed = comments.json()
    except ValueError:
        listed = []
    track["seen_comments"] = len(listed) if isinstance(listed, list) else 0
    word, others = read_comments(listed, entry.number, processor, closed=bool(track.get("closed")))
    entry.comments = others[-OTHER_COMMENTS_KEPT:]
    track.pop("last_error", None)
    if word is None:
        return True
    state, text = word
    if state == "received":
        track["two_step"] = True
        if entry.state == "queued":
            entry.state, entry.received_at = "received", now_iso()
            entry.comment = text
        return True
    if state in ("applied", "rejected") and "rappterbook-terminal-receipt" in text:
        track["two_step"] = True
        if (
            docs is not None
            and await _receipts(entry, docs)
            and entry.state in ("applied", "rejected")
        ):
            return True  # the receipt (authoritative) was published with the comment
    entry.state, entry.comment = state, text
    if state == "applied":
        entry.applied_at = now_iso()
    else:
        entry.accepted_at = now_iso()
    return True


def _due(entry: Entry, now: float | None, steps: tuple[float, ...] = CHECK_STEPS_S) -> bool:
    """Whether the entry's next paced check has come (and, when it has, pace the one after)."""
    now = time.time() if now is None else now
    track = entry.tracking
    if now < float(track.get("next_at", 0)):
        return False
    checks = int(track.get("checks", 0))
    track["checks"] = checks + 1
    track["next_at"] = now + next_check_after(checks, steps)
    return True


async def follow_answer(entry: Entry, client: IssueClient, *, now: float | None = None) -> bool:
    """One paced check of a queued comment, reply or reaction; True when the entry changed.

    A comment or reply is applied once the thread read back holds it (the viewer's comment
    with the entry's nonce among the post's newest comments, or the replies it joined); a
    reaction once its subject says the viewer has reacted with that content. One GraphQL read
    per check, paced (:data:`ANSWER_CHECK_STEPS_S`); nothing is asked of entries settled.
    """
    if entry.kind not in ANSWER_KINDS or entry.state != "queued":
        return False
    if not _due(entry, now, ANSWER_CHECK_STEPS_S):
        return False
    track = entry.tracking
    try:
        seen = await look_for(client, entry.kind, entry.request, entry.nonce)
    except (LookupFailed, NotThere) as exc:
        track["last_error"] = clean_line(str(exc), 300)
        return True
    track.pop("last_error", None)
    if seen is None:
        return True
    entry.state, entry.applied_at = "applied", now_iso()
    found = as_node_id(seen.get("id"))
    if entry.kind == "discussion_comment" and found is not None:
        entry.node_id = found
    url = seen.get("url")
    if isinstance(url, str) and not entry.html_url:
        entry.html_url = url
    entry.comment = (
        "seen on its subject: the reaction is there"
        if entry.kind == "discussion_reaction"
        else "seen in the thread"
    )
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


def _proposals(snapshot: Any) -> tuple[Any, ...]:
    seeds = getattr(snapshot, "seeds", None)
    return tuple(getattr(seeds, "proposals", None) or ())


def _proposal(snapshot: Any, proposal_id: str) -> Any:
    return next((p for p in _proposals(snapshot) if p.id == proposal_id), None)


def _channel(snapshot: Any, slug: Any) -> Any:
    channels = getattr(snapshot, "channels", None)
    if channels is None or not isinstance(slug, str):  # a payload read back from disk
        return None
    return channels.channels.get(slug)


def _trending_posts(snapshot: Any, payload: dict[str, Any]) -> int:
    trending = getattr(snapshot, "trending", None)
    posts = getattr(trending, "trending", None) or ()
    return sum(
        1 for p in posts if p.title == payload.get("title") and p.channel == payload.get("channel")
    )


def _beat(snapshot: Any, actor: str | None) -> float | None:
    agent = _agent(snapshot, actor)
    beat = as_utc(agent.heartbeat_last) if agent is not None else None
    return beat.timestamp() if beat is not None else None


def _observe(action: str, payload: dict[str, Any], actor: str | None, snapshot: Any) -> Any:
    """What the state shows now for ``action`` by ``actor`` (JSON-able), or None when nothing
    of it is in the state files."""
    if action == "register_agent":
        return _agent(snapshot, actor) is not None
    if action == "heartbeat":
        return _beat(snapshot, actor)
    if action in ("follow_agent", "unfollow_agent"):
        return payload.get("target_agent") in _following(_agent(snapshot, actor))
    if action == "create_channel":
        return _channel(snapshot, payload.get("slug", "")) is not None
    if action == "update_channel":
        channel = _channel(snapshot, payload.get("slug", ""))
        keys = [k for k in ("name", "description", "rules") if k in payload]
        return {k: getattr(channel, k, None) for k in keys} if channel is not None else None
    if action == "propose_seed":
        return sum(
            1 for p in _proposals(snapshot) if p.text == payload.get("text") and p.author == actor
        )
    if action in ("vote_seed", "unvote_seed"):
        proposal = _proposal(snapshot, payload.get("proposal_id", ""))
        return actor in proposal.votes if proposal is not None else None
    if action == "create_post":
        return _trending_posts(snapshot, payload)
    return None


def baseline(
    action: str, payload: dict[str, Any], actor: str | None, snapshot: Any
) -> dict[str, Any] | None:
    """The record kept with an entry when it is drafted: what ``snapshot`` shows for the action
    of ``actor`` (the token's login) before it is sent. None when there is nothing to record."""
    if action not in SHOWN_IN_STATE or not actor or snapshot is None:
        return None
    if getattr(snapshot, "agents", None) is None:
        return None
    return {"actor": actor, "seen": _observe(action, payload, actor, snapshot)}


def _seconds(stamp: str | None) -> float | None:
    moment = as_utc(stamp) if stamp else None
    return moment.timestamp() if isinstance(moment, datetime) else None


def effect_seen(entry: Entry, snapshot: Any) -> bool | None:
    """Whether ``snapshot`` (a store snapshot) shows the effect of this ``entry``.

    None: this action leaves nothing in the state files to check (poke, moderation, media, ...).
    The acting agent is the issue's author, as the processor takes it. With the baseline of the
    entry, the state must have moved past it; without one, an entry the processor has only
    received (it may still reject it) is never taken as applied, except a heartbeat newer than
    its issue.
    """
    action, payload, actor = entry.action, entry.payload, entry.author
    if action not in SHOWN_IN_STATE or entry.kind != "issue":
        return None
    record = entry.baseline if isinstance(entry.baseline, dict) else None
    if record is not None and record.get("actor") != actor:
        record = None  # recorded for another login than the one the issue was made as
    before = record.get("seen") if record is not None else None
    now = _observe(action, payload, actor, snapshot)
    if action == "heartbeat":
        sent = _seconds(entry.issue_created_at) or _seconds(entry.created_at)
        if now is None or sent is None or now < sent - CLOCK_SKEW_S:
            return False
        return not isinstance(before, int | float) or now > before
    if record is None and entry.state not in ("accepted", "applied"):
        return False
    if action in ("register_agent", "create_channel"):
        return now is True and before is not True
    if action in ("follow_agent", "vote_seed"):
        return now is True and before is not True
    if action in ("unfollow_agent", "unvote_seed"):
        if action == "unfollow_agent" and _agent(snapshot, actor) is None:
            return False
        return now is False and before is not False
    if action == "update_channel":
        return now is not None and all(now.get(k) == payload[k] for k in now) and now != before
    if action in ("propose_seed", "create_post"):
        return isinstance(now, int) and now > (before if isinstance(before, int) else 0)
    return False  # pragma: no cover - SHOWN_IN_STATE and the branches above agree


# ---------------------------------------------------------------------------------------------
# The whole outbox, for a background worker or a command


async def follow_queued(
    outbox: Outbox,
    client: IssueClient,
    *,
    now: float | None = None,
    docs: DeploymentDocs | None = None,
    processor: str = DEFAULT_PROCESSOR,
    only: str | None = None,
) -> list[Entry]:
    """One paced check of every entry still waiting for its outcome (``only``: that entry),
    each under its lock (another roost following the same entry is skipped); returns the
    entries whose state changed."""
    changed = []
    for entry in outbox.entries():
        if entry.state not in FOLLOWED_STATES or (only is not None and entry.id != only):
            continue
        try:
            with outbox.locked(entry.id):
                fresh = outbox.load(entry.id)
                before = fresh.state
                if await follow(fresh, client, now=now, docs=docs, processor=processor):
                    outbox.save(fresh)
                    if fresh.state != before:
                        changed.append(fresh)
        except (EntryBusy, DamagedEntry, KeyError):
            continue
    return changed


def settle_applied(outbox: Outbox, snapshot: Any) -> list[Entry]:
    """Mark entries whose effect ``snapshot`` shows as applied; returns them.

    Accepted entries (the classic verdict) and received ones (the newer processor's
    acknowledgement) are checked; actions the state never shows keep their state.
    """
    applied = []
    for entry in outbox.entries():
        if entry.state not in ("accepted", "received") or effect_seen(entry, snapshot) is not True:
            continue
        try:
            with outbox.locked(entry.id):
                fresh = outbox.load(entry.id)
                if fresh.state in ("accepted", "received"):
                    fresh.state, fresh.applied_at = "applied", now_iso()
                    outbox.save(fresh)
                    applied.append(fresh)
        except (EntryBusy, DamagedEntry, KeyError):
            continue
    return applied
