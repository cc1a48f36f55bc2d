"""The outbox and outcome tracking against the in-process demo network.

Every catalog action goes form-free through the whole write side — outbox entry, issue client,
the sandbox's processor, tracking, the store's next snapshot — and its effect is found in the
state. Entries are written before their request leaves, never hold the token, are sent under a
lock, and an entry left in "sending" is resolved by lookup without a second issue.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from tui.actions.catalog import CATALOG
from tui.actions.connection import write_side
from tui.actions.outbox import Entry, EntryBusy, Outbox, service_key
from tui.actions.tracking import SHOWN_IN_STATE, baseline, effect_seen, follow
from tui.config import DEMO_BASE_URL, Secret, Settings
from tui.network.store import Store
from tui.sandbox.app import DEMO_LOGIN, DEMO_TOKEN, create_app
from tui.sandbox.server import in_process_client
from tui.service import Service
from tui.session import Session

Snap = Any


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


class Ticking:
    """The sandbox's clock: a second passes at every reading, as between two real requests."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def demo_service(processor: str = "newer") -> Service:
    """A fresh demo network (in-process, not the machine's kept world) playing ``processor``:
    its demo account is not registered yet."""
    app = create_app(agents=40, processor=processor, clock=Ticking())
    client = in_process_client(app, base_url=DEMO_BASE_URL)
    settings = Settings(  # no read URL: the demo network (its in-process client)
        write_url=DEMO_BASE_URL + "/api",
        repo="roost-demo/network",
    )
    session = Session(token=Secret(DEMO_TOKEN), token_source="demo")
    store = Store(DEMO_BASE_URL, client=client)
    return Service(settings, store, session, demo_app=app, client=client)


@pytest.fixture(params=["newer", "classic"])
async def demo(request, tmp_path):
    service = demo_service(request.param)
    clock = FakeClock()
    side = write_side(service, outbox_root=tmp_path, clock=clock, sleep=clock.sleep)
    await side.docs.refresh()
    yield service, side
    await side.aclose()
    await service.aclose()


def sandbox(service):
    return service.demo_app.state.sandbox


def classic(service) -> bool:
    return sandbox(service).processor == "classic"


async def check(side, entry: Entry, now: float = 0) -> bool:
    return await follow(entry, side.client, now=now, docs=side.docs, processor=side.processor)


async def submit(side, action: str, payload: dict, snap: Snap = None) -> Entry:
    """Send one action (its baseline taken from ``snap``) and follow it to the processor's
    verdict: accepted (classic) or applied (the newer processor's receipt)."""
    entry = side.outbox.draft(action, payload, baseline=baseline(action, payload, DEMO_LOGIN, snap))
    entry = await side.outbox.send(entry.id, side.client)
    assert entry.state == "queued", (action, entry.reason)
    assert await check(side, entry)
    side.outbox.save(entry)
    assert entry.state in ("accepted", "applied"), (action, entry.state, entry.comment)
    return entry


async def snapshot(service) -> Snap:
    await service.store.refresh()
    return service.store.snapshot


def _target(snap: Snap) -> str:
    return next(a for a in sorted(snap.agents.agents) if a != DEMO_LOGIN)


def _fixed(payload: dict) -> Callable[[Snap], dict]:
    return lambda snap: payload


def _last_proposal(snap: Snap) -> dict:
    return {"proposal_id": snap.seeds.proposals[-1].id}


ROOM = {"slug": "demo-room", "name": "Demo room", "description": "For tests."}
ASK = "Ask anything about the demo network; answers cite the state files they read."
TRIPS: dict[str, tuple[Callable[[Snap], dict], tuple[tuple[str, Callable[[Snap], dict]], ...]]] = {
    "register_agent": (_fixed({"name": "Demo", "framework": "python", "bio": "Hi."}), ()),
    "heartbeat": (_fixed({"status_message": "busy"}), ()),
    "poke": (lambda s: {"target_agent": _target(s)}, ()),
    "follow_agent": (lambda s: {"target_agent": _target(s)}, ()),
    "unfollow_agent": (
        lambda s: {"target_agent": _target(s)},
        (("follow_agent", lambda s: {"target_agent": _target(s)}),),
    ),
    "update_profile": (_fixed({"name": "The Demo"}), ()),
    "create_channel": (_fixed(ROOM), ()),
    "update_channel": (
        _fixed({"slug": "demo-room", "rules": "None."}),
        (("create_channel", _fixed(ROOM)),),
    ),
    "create_topic": (
        _fixed({"slug": "ask-demo", "name": "Ask", "description": "Q", "constitution": ASK}),
        (),
    ),
    "moderate": (
        lambda s: {"discussion_number": s.trending.trending[0].number, "reason": "spam"},
        (),
    ),
    "transfer_karma": (lambda s: {"target_agent": _target(s), "amount": 1}, ()),
    "propose_seed": (_fixed({"text": "Chart the channels"}), ()),
    "vote_seed": (_last_proposal, (("propose_seed", _fixed({"text": "Vote me"})),)),
    "unvote_seed": (
        _last_proposal,
        (("propose_seed", _fixed({"text": "Vote me"})), ("vote_seed", _last_proposal)),
    ),
    "create_post": (_fixed({"channel": "general", "title": "Hi all", "body": "Hello"}), ()),
    "add_moderator": (
        lambda s: {"slug": "demo-room", "target_agent": _target(s)},
        (("create_channel", _fixed(ROOM)),),
    ),
    "remove_moderator": (
        lambda s: {"slug": "demo-room", "target_agent": _target(s)},
        (
            ("create_channel", _fixed(ROOM)),
            ("add_moderator", lambda s: {"slug": "demo-room", "target_agent": _target(s)}),
        ),
    ),
    "recruit_agent": (_fixed({"name": "Nova Scout", "framework": "python", "bio": "New."}), ()),
    "verify_agent": (_fixed({"github_username": "demo-agent"}), ()),
    "submit_media": (
        _fixed(
            {
                "channel": "general",
                "title": "A sketch",
                "media_type": "image",
                "source_url": "https://media.example.test/sketch.png",
                "filename": "sketch.png",
            }
        ),
        (),
    ),
    "verify_media": (_fixed({"submission_id": "media-1", "decision": "approve"}), ()),
    "run_python": (_fixed({"code": "print(sum(range(10)))", "timeout": 5}), ()),
}


def test_the_round_trips_cover_the_catalog():
    assert set(TRIPS) == set(CATALOG)


@pytest.mark.parametrize("action", sorted(TRIPS))
async def test_every_catalog_action_round_trips_to_the_state(demo, action):
    """Each action goes through the write side to the processor (classic or newer) and its
    effect is found in the state: only after it moved past what the entry recorded."""
    service, side = demo
    if action == "run_python" and classic(service):
        pytest.skip("the classic generation did not run code")
    if action == "create_post" and not classic(service):
        pytest.skip("a post is a Discussion there (test_discussions.py)")
    payload_of, setup = TRIPS[action]
    if action != "register_agent":
        await submit(side, "register_agent", {"name": "Demo", "framework": "py", "bio": "Hi."})
    for name, make in setup:
        await submit(side, name, make(await snapshot(service)))
    before = await snapshot(service)
    payload = payload_of(before)
    recorded = baseline(action, payload, DEMO_LOGIN, before)
    entry = Entry("20270101T000000Z-00000000", action, payload, "n", author=DEMO_LOGIN)
    entry.baseline, entry.state = recorded, "received"
    if action in SHOWN_IN_STATE:
        assert effect_seen(entry, before) is False  # the state has not moved yet
    entry = await submit(side, action, payload, before)
    assert entry.author == DEMO_LOGIN
    inbox = sandbox(service).inbox[-1]
    assert (inbox.issue, inbox.action, inbox.payload) == (entry.number, action, payload)
    after = await snapshot(service)
    entry.state = "received"  # as if no receipt had said so: the state alone must show it
    assert effect_seen(entry, after) is (True if action in SHOWN_IN_STATE else None)


async def test_entry_is_on_disk_in_sending_before_the_request_leaves(demo, tmp_path):
    service, side = demo
    seen: list[dict] = []

    async def hook(request: httpx.Request) -> None:
        if request.method == "POST":
            (path,) = side.outbox.folder.glob("*.json")
            seen.append(json.loads(path.read_text()))

    service.client.event_hooks["request"].append(hook)
    entry = side.outbox.draft("register_agent", {"name": "D", "framework": "py", "bio": "b"})
    await side.outbox.send(entry.id, side.client)
    assert [s["state"] for s in seen] == ["sending"]
    assert seen[0]["nonce"] == entry.nonce and seen[0]["request"]["title"] == "register_agent"


async def test_the_token_is_never_in_an_outbox_file(demo):
    service, side = demo
    sandbox(service).faults.update({"write_status": 401})
    await side.outbox.send(side.outbox.draft("heartbeat", {}).id, side.client)
    await submit(side, "register_agent", {"name": "D", "framework": "py", "bio": "b"})
    files = list(side.outbox.folder.iterdir())
    assert files
    for path in files:
        assert DEMO_TOKEN not in path.read_text("utf-8", errors="replace")


async def test_a_locked_entry_is_not_sent_twice(demo):
    service, side = demo
    entry = side.outbox.draft("register_agent", {"name": "D", "framework": "py", "bio": "b"})
    with side.outbox.locked(entry.id), pytest.raises(EntryBusy):
        await side.outbox.send(entry.id, side.client)
    assert sandbox(service).issues == []


async def test_entry_left_sending_is_resolved_by_lookup_without_a_duplicate(demo):
    service, side = demo
    entry = side.outbox.draft("register_agent", {"name": "D", "framework": "py", "bio": "b"})
    # a process sent it, the platform recorded it, and the process died before the answer
    entry.state = "sending"
    side.outbox.save(entry)
    await side.client.request("POST", side.client.issues_url, json=entry.request)
    assert len(sandbox(service).issues) == 1
    resolved = await side.outbox.send(entry.id, side.client)
    assert (resolved.state, resolved.number) == ("queued", 1)
    assert len(sandbox(service).issues) == 1


async def test_entry_left_sending_with_nothing_recorded_is_sent_once(demo):
    service, side = demo
    entry = side.outbox.draft("register_agent", {"name": "D", "framework": "py", "bio": "b"})
    entry.state = "sending"
    side.outbox.save(entry)
    resolved = await side.outbox.send(entry.id, side.client)
    assert resolved.state == "queued" and len(sandbox(service).issues) == 1
    again = await side.outbox.send(entry.id, side.client)  # queued: nothing to send
    assert again.state == "queued" and len(sandbox(service).issues) == 1


async def test_a_refusal_is_recorded_with_the_reason_and_retry_safety(demo):
    service, side = demo
    sandbox(service).faults.update({"write_status": 410})
    entry = await side.outbox.send(side.outbox.draft("heartbeat", {}).id, side.client)
    assert entry.state == "failed" and entry.retry_safe is False
    assert "issues are disabled" in entry.reason
    assert not entry.can_send


async def test_rejection_keeps_the_processors_comment_cleaned(demo):
    service, side = demo
    entry = await side.outbox.send(
        side.outbox.draft("poke", {"target_agent": "zion-coder-01"}).id, side.client
    )
    assert await follow(entry, side.client, now=0)  # the comments alone, no receipts
    assert entry.state == "rejected"
    first = "❌" if classic(service) else "## ❌ REJECTED"
    assert entry.comment.startswith(first) and "register_agent first" in entry.comment


async def test_follow_is_paced_and_uses_conditional_requests(demo):
    service, side = demo
    sandbox(service).faults.update({"process_delay": 600})
    entry = side.outbox.draft("register_agent", {"name": "D", "framework": "py", "bio": "b"})
    entry = await side.outbox.send(entry.id, side.client)
    assert await follow(entry, side.client, now=0) and entry.state == "queued"
    assert not await follow(entry, side.client, now=1)  # not due yet: no request
    sandbox(service).clear_log()
    assert await follow(entry, side.client, now=1000) and entry.state == "queued"
    statuses = [r.status for r in sandbox(service).requests]
    assert statuses == [304]  # the issue did not change, so its comments are not asked for
    assert all(r.header("if-none-match") for r in sandbox(service).requests)


def test_drafts_survive_a_new_process(tmp_path):
    outbox = Outbox(tmp_path / "svc")
    entry = outbox.draft("heartbeat", {"status_message": "half typed"})
    again = Outbox(tmp_path / "svc").load(entry.id)
    assert (again.state, again.payload) == ("draft", {"status_message": "half typed"})
    assert [e.id for e in Outbox(tmp_path / "svc").entries()] == [entry.id]


def test_service_keys_separate_services_and_demo_runs():
    a = service_key("https://api.github.com", "o/r")
    assert a != service_key("https://api.github.com", "o/other")
    assert service_key("http://x.invalid/api", "o/r", "run1") != service_key(
        "http://x.invalid/api", "o/r", "run2"
    )
    assert "/" not in a


async def test_the_outbox_is_followed_to_its_verdict_then_applied(demo):
    from tui.actions.tracking import follow_queued, settle_applied

    service, side = demo
    sandbox(service).faults.update({"process_delay": 600})
    register = side.outbox.draft("register_agent", {"name": "D", "framework": "py", "bio": "b"})
    media = side.outbox.draft("verify_media", {"submission_id": "m-1", "decision": "approve"})
    for entry in (register, media):
        await side.outbox.send(entry.id, side.client)
    options = {"docs": side.docs, "processor": side.processor}
    assert await follow_queued(side.outbox, side.client, now=0, **options) == []
    assert settle_applied(side.outbox, await snapshot(service)) == []
    sandbox(service).process_pending()
    changed = await follow_queued(side.outbox, side.client, now=10_000, **options)
    if classic(service):
        assert sorted(e.state for e in changed) == ["accepted", "accepted"]
        (applied,) = settle_applied(side.outbox, await snapshot(service))
        assert (applied.id, applied.state) == (register.id, "applied")
        expected = {register.id: "applied", media.id: "accepted"}
    else:  # the newer processor's receipts say applied, for both
        assert sorted(e.state for e in changed) == ["applied", "applied"]
        assert all(e.receipt["status"] == "applied" for e in changed)
        expected = {register.id: "applied", media.id: "applied"}
    assert {e.id: e.state for e in side.outbox.entries()} == expected


async def test_resume_interrupted_settles_dead_senders_and_skips_live_ones(demo):
    service, side = demo
    dead = side.outbox.draft("register_agent", {"name": "D", "framework": "py", "bio": "b"})
    live = side.outbox.draft("heartbeat", {})
    for entry in (dead, live):
        entry.state = "sending"
        side.outbox.save(entry)
    await side.client.request("POST", side.client.issues_url, json=dead.request)
    with side.outbox.locked(live.id):
        settled = await side.outbox.resume_interrupted(side.client)
    assert [(e.id, e.state, e.number) for e in settled] == [(dead.id, "queued", 1)]
    assert side.outbox.load(live.id).state == "sending"
    assert len(sandbox(service).issues) == 1


async def test_the_outbox_names_its_service_as_the_status_bar_does(demo):
    service, side = demo
    assert side.outbox.label == service.settings.service_label() == "demo network"
    assert side.outbox.label not in side.outbox.folder.name


async def test_resume_interrupted_without_a_token_leaves_them_sending(demo, tmp_path):
    """A session with no token yet (served over SSH) cannot look an entry up: it stays
    "sending" (it may be on the platform), never "failed: no token"; once a token is typed the
    same call settles it."""
    service, side = demo
    entry = side.outbox.draft("heartbeat", {})
    entry.state, entry.maybe_sent = "sending", True
    side.outbox.save(entry)
    clock = FakeClock()
    tokenless = write_side(
        service, outbox_root=tmp_path, find=lambda settings: (None, None), clock=clock,
        sleep=clock.sleep,
    )  # fmt: skip
    try:
        assert tokenless.outbox.folder == side.outbox.folder
        assert await tokenless.outbox.resume_interrupted(tokenless.client) == []
        assert side.outbox.load(entry.id).state == "sending"
        tokenless.client.set_token(Secret(DEMO_TOKEN))  # typed in the session
        (settled,) = await tokenless.outbox.resume_interrupted(tokenless.client, only=entry.id)
    finally:
        await tokenless.aclose()
    assert (settled.id, settled.state) == (entry.id, "queued")
    assert len(sandbox(service).issues) == 1
