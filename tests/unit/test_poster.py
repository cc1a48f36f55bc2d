"""The Poster, headless: the write side of one service with no Textual at all.

An action goes through `Poster` against the in-process demo network (the sandbox every posting
test uses): drafted, sent, followed to its verdict, each step published as a `PosterState`.
The token is looked for in a worker thread, once, however many ask at the same moment.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from tui.actions.connection import WriteSide
from tui.actions.issue_client import IssueClient
from tui.actions.outbox import Entry, Outbox
from tui.actions.poster import CannotPost, Poster, PosterState
from tui.actions.tracking import FOLLOWED_STATES
from tui.config import Secret, Settings
from tui.service import connect
from tui.session import Session

TOKEN = "ghp_recordedInTheTest0000"

HEADLESS = textwrap.dedent(
    """
    import asyncio, json, sys

    from tui.config import Settings
    from tui.service import connect


    async def main():
        service = connect(Settings(), use_cache=False)  # the demo network, in-process
        poster = service.poster
        states = []
        poster.subscribe(states.append)
        entry = await poster.submit("heartbeat", {"status_message": "from no terminal at all"})
        sandbox = service.demo_app.state.sandbox
        issue = next(i for i in sandbox.issues if i.number == entry.number)
        await poster.refresh_docs()
        followed = await poster.follow(service.store.snapshot, now=10**9)
        await service.aclose()
        print(json.dumps({
            "state": entry.state,
            "same_body": issue.body == entry.request["body"],
            "followed": [e.state for e in followed],
            "published": [(s.drafts, s.queued, s.applied, len(s.changed)) for s in states],
            "summary": states[-1].summary,
            "ui": sorted(m for m in sys.modules
                         if m.split(".")[0] == "textual" or m.startswith("tui.ui")),
        }))


    asyncio.run(main())
    """
)


def test_an_action_is_posted_and_followed_through_the_poster_without_textual():
    """The whole write path in a fresh interpreter that never imports Textual or tui.ui (Rich
    may come with httpx): drafted (published), sent (published as changed), then applied by
    the tracker's round."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", HEADLESS],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["ui"] == []
    assert said["state"] == "queued" and said["same_body"]
    assert said["followed"] == ["applied"]
    # ready (empty), the draft, the send (one entry changed), the round (one changed)
    assert [tuple(p) for p in said["published"]] == [
        (0, 0, 0, 0),
        (1, 0, 0, 0),
        (0, 1, 0, 1),
        (0, 0, 1, 1),
    ]
    assert said["summary"] == ""  # nothing in flight, nothing failed


async def test_every_step_is_published_with_what_changed(tmp_path):
    service = connect(Settings(), use_cache=False)
    service.poster = poster = Poster.for_service(service, outbox_root=tmp_path)
    states: list[PosterState] = []
    unsubscribe = poster.subscribe(states.append)
    try:
        assert poster.side is None and not poster.state.ready  # nothing made before it is asked
        entry = await poster.submit("heartbeat", {}, snapshot=service.store.snapshot)
        assert entry is not None and entry.state == "queued"
        last = states[-1]
        assert last.ready and last.has_token and last.folder == poster.side.outbox.folder
        assert [e.id for e in last.changed] == [entry.id] and last.counts == {"queued": 1}
        assert (last.sent, last.tracked, last.failed, last.sending) == (1, 1, 0, 0)
        told = len(states)
        assert not poster.reread()  # the folder is as published: nothing said
        Outbox(poster.side.outbox.folder).draft("heartbeat", {})  # another roost drafts one
        assert poster.reread() and len(states) == told + 1 and states[-1].drafts == 1
        assert states[-1].changed == ()  # seen, not moved by this roost
        poster.discard(next(e.id for e in states[-1].entries if e.state == "draft"))
        assert states[-1].drafts == 0
        unsubscribe()
        poster.reread(force=True)
        assert len(states) == told + 2
    finally:
        await service.aclose()


def test_the_states_counts_name_the_outboxs_states():
    entries = tuple(
        Entry(id=f"20261205T00000{i}Z-0000000{i}", action="poke", payload={}, nonce="n", state=s)
        for i, s in enumerate(("queued", "received", "accepted", "applied", "failed", "sending"))
    )
    state = PosterState.of(entries)
    assert state.tracked == sum(1 for e in entries if e.state in FOLLOWED_STATES) == 3
    assert (state.sent, state.applied, state.failed, state.sending) == (4, 1, 1, 1)
    assert state.summary == "outbox: 1 sending · 1 failed"


async def test_the_token_is_looked_for_in_a_worker_thread_never_on_the_loop(tmp_path):
    """The token source blocks until the event loop has run on: were it called on the loop, the
    loop could not run and the source would give up. Two callers at once get one search."""
    service = connect(Settings(), use_cache=False)
    loop_thread = threading.get_ident()
    ran_on: list[int] = []
    loop_ran = threading.Event()

    def find(session: Session) -> tuple[Secret | None, str | None]:
        ran_on.append(threading.get_ident())
        if not loop_ran.wait(10):  # the loop sets it meanwhile
            raise AssertionError("the event loop was blocked while the token was looked for")
        return Secret(TOKEN), "a recording source"

    service.poster = poster = Poster.for_service(service, outbox_root=tmp_path, find=find)
    try:
        key, tracker = asyncio.ensure_future(poster.ready()), asyncio.ensure_future(poster.ready())
        await asyncio.sleep(0.05)
        loop_ran.set()  # reached only while the search is under way elsewhere
        first, second = await asyncio.gather(key, tracker)
        assert first is second is poster.side and first is not None
        assert len(ran_on) == 1 and ran_on[0] != loop_thread
        assert first.token_source == "a recording source"
        assert TOKEN not in repr(first) and TOKEN not in repr(poster.state)
    finally:
        await service.aclose()


async def test_read_only_makes_nothing_and_looks_for_no_token(tmp_path):
    looked: list[Session] = []

    def find(session: Session) -> tuple[Secret | None, str | None]:
        looked.append(session)
        return Secret(TOKEN), "never"

    service = connect(Settings(readonly=True), use_cache=False)
    service.poster = poster = Poster.for_service(service, outbox_root=tmp_path, find=find)
    try:
        assert await poster.ready() is None
        assert poster.problem is not None and "read-only" in poster.problem
        with pytest.raises(CannotPost):
            poster.draft("heartbeat", {})
        with pytest.raises(CannotPost):
            await poster.submit("heartbeat", {})
        assert looked == [] and poster.side is None and not list(tmp_path.iterdir())
    finally:
        await service.aclose()


async def test_a_retry_says_why_it_cannot_send(tmp_path):
    outbox = Outbox(tmp_path / "outbox")
    client = IssueClient("https://api.github.com", "o/r", None)
    poster = Poster.over(WriteSide(client, outbox, None), Settings())
    entry = outbox.draft("heartbeat", {})
    with pytest.raises(CannotPost, match="no token"):
        await poster.retry(entry.id)
    entry.state, entry.number = "queued", 7
    outbox.save(entry)
    with pytest.raises(CannotPost, match="already on the platform as #7"):
        await poster.retry(entry.id)
    assert outbox.load(entry.id).state == "queued"
    await client.aclose()
