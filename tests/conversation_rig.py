"""The conversation for the app tests: a posted log, a discussions cache (full form: bodies,
nested replies, vote comments) and an index built here, served by the real sandbox app beside a
generated network; and a thread reader that answers from threads a test hands it.

The demo network does not publish these files itself (yet): tests that need them build them
here, so what they assert does not move when the demo's generator changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from app_rig import (
    BASE,
    Clock,
    Rig,
    service_for,  # noqa: E402,I001 — one rig builds on the other
)
from textual.pilot import Pilot
from textual_idle import settle

from tui.conversation.reading import ThreadRead
from tui.conversation.thread import Thread
from tui.network.store import Store
from tui.sandbox.app import create_app
from tui.sandbox.generator import DEFAULT_EPOCH, generate_state, iso
from tui.sandbox.published import DemoNetwork
from tui.sandbox.server import in_process_client
from tui.ui import speed
from tui.ui.app import RoostApp

__all__ = [
    "CHANNELS",
    "FakeReader",
    "conversation_docs",
    "conversation_network",
    "make_conversation_rig",
    "open_posts",
]

CHANNELS = ("debates", "code", "general", "philosophy")
AUTHORS = ("zion-coder-01", "zion-debater-02", "zion-philosopher-03", "rappter-critic")
TAGS = ("DEBATE", "PROPOSAL", None, "ARTIFACT", None, "PROPHECY:2026-04-08")
URL = "https://github.com/example/network/discussions/{}"

BODY = """*Posted by **{author}***

---

## A question for the {channel} channel

Should agents **vote** on their own proposals? A few points:

- it keeps the *count* honest
- it makes `quorum` easier
  - nested: but only a little

> Quoted from an older thread: "votes are cheap".

```python
print("votes", 3)
```

See [the rules](https://example.org/rules) before answering.
"""


def _when(minutes: int) -> str:
    return iso(DEFAULT_EPOCH - timedelta(minutes=minutes))


def conversation_docs(posts: int = 30, *, thread_comments: int = 12) -> dict[str, Any]:
    """``posted_log.json`` with ``posts`` posts (numbers 100…, newest last, as the deployment
    appends them), ``discussions_cache.json`` in the full form for the five newest (the newest
    has ``thread_comments`` comments: replies two deep and two vote comments) and
    ``discussions_index.json``."""
    logged = []
    comments = []
    for n in range(posts):
        number = 100 + n
        tag = TAGS[n % len(TAGS)]
        title = f"Post number {n} about votes"
        if tag:
            title = f"[{tag}] {title}"
        logged.append(
            {
                "number": number,
                "title": title,
                "channel": CHANNELS[n % len(CHANNELS)],
                "author": AUTHORS[n % len(AUTHORS)],
                "timestamp": _when((posts - n) * 37),
                "url": URL.format(number),
                "upvotes": n % 7,
                "downvotes": n % 3,
                "commentCount": n % 5,
                **({"topic": tag.split(":")[0].lower()} if tag else {}),
                **({"mystery_field": "kept"} if n == 3 else {}),
            }
        )
        for c in range(n % 5):
            comments.append(
                {
                    "timestamp": _when((posts - n) * 37 - c - 1),
                    "discussion_number": number,
                    "post_title": title,
                    "author": AUTHORS[(n + c + 1) % len(AUTHORS)],
                }
            )
    cached = []
    for n in range(posts - 5, posts):
        number = 100 + n
        author = AUTHORS[n % len(AUTHORS)]
        entry_comments = []
        count = thread_comments if n == posts - 1 else 3
        for c in range(count):
            parent = None
            if c % 3 == 1 or c % 3 == 2:
                parent = f"DC_{number}_{c - 1}"
            body = f"*— **{AUTHORS[c % len(AUTHORS)]}***\n\nComment {c} on post {number}: " + (
                "I agree with the *second* point." if c % 2 else "Not so fast: see below."
            )
            entry_comments.append(
                {
                    "id": f"DC_{number}_{c}",
                    "node_id": f"DC_{number}_{c}",
                    "parent_id": parent,
                    "body": body,
                    "author_login": "rappter1",
                    "created_at": _when(30 - c),
                    "url": URL.format(number) + f"#discussioncomment-{c}",
                    "reactions": {"+1": c % 3, "heart": 1 if c == 0 else 0},
                }
            )
        for v, emoji in enumerate(("👍", "⬆️")):
            entry_comments.append(
                {
                    "id": f"DCV_{number}_{v}",
                    "body": f"*— **{AUTHORS[v]}***\n\n{emoji}",
                    "author_login": "rappter1",
                    "created_at": _when(5),
                }
            )
        cached.append(
            {
                "number": number,
                "title": logged[n]["title"],
                "body": BODY.format(author=author, channel=logged[n]["channel"]),
                "author_login": "rappter1",
                "category_slug": logged[n]["channel"],
                "created_at": logged[n]["timestamp"],
                "url": URL.format(number),
                "upvotes": 4,
                "downvotes": 1,
                "comment_count": len(entry_comments),
                "comments": entry_comments,
                "node_id": f"D_{number}",
                "reactions": {"+1": 3, "rocket": 1},
            }
        )
    return {
        "posted_log.json": {"posts": logged, "comments": comments},
        "discussions_cache.json": {
            "_meta": {"scraped_at": iso(DEFAULT_EPOCH), "total": len(cached)},
            "discussions": cached,
        },
        "discussions_index.json": {
            str(100 + n): {"id": f"D_{100 + n}", "number": 100 + n, "title": logged[n]["title"]}
            for n in range(posts)
        },
    }


def conversation_network(
    posts: int = 30, *, agents: int = 60, extra: Mapping[str, Any] | None = None, **kwargs: Any
) -> DemoNetwork:
    """A generated network that also publishes :func:`conversation_docs` (``extra``: more or
    other documents, e.g. a hostile log)."""
    docs = generate_state(seed=7, agents=agents, epoch=DEFAULT_EPOCH)
    docs.update(conversation_docs(posts, **kwargs))
    docs.update(extra or {})
    return DemoNetwork(docs, generated_at=iso(DEFAULT_EPOCH))


@dataclass
class FakeReader:
    """A thread reader (the protocol of tui/conversation/reading.py) over threads a test hands
    in: ``first`` gives ``cached`` at once, ``read`` gives ``remote`` (or the cached copy with
    ``problem`` when there is none), once ``gate`` is set when a test holds it."""

    cached: dict[int, ThreadRead] = field(default_factory=dict)
    remote: dict[int, ThreadRead] = field(default_factory=dict)
    problem: str | None = None
    note: str | None = None
    gate: asyncio.Event | None = None
    calls: list[tuple[str, int, bool]] = field(default_factory=list)

    @property
    def limit_note(self) -> str | None:
        return self.note

    def first(self, number: int) -> ThreadRead | None:
        self.calls.append(("first", number, False))
        return self.cached.get(number)

    async def read(self, number: int, *, fresh: bool = False) -> ThreadRead:
        self.calls.append(("read", number, fresh))
        if self.gate is not None:
            await self.gate.wait()
        found = self.remote.get(number)
        if found is not None:
            return found
        kept = self.cached.get(number)
        thread = kept.thread if kept is not None else None
        fetched = kept.fetched_at if kept is not None else None
        return ThreadRead(number, thread, fetched_at=fetched, fresh=False, problem=self.problem)

    def serve(
        self, thread: Thread, *, remote: bool = False, fetched_at: datetime | None = None
    ) -> None:
        """Answer with ``thread``: at once (``first``) or from the source (``read``)."""
        read = ThreadRead(thread.number, thread, fetched_at=fetched_at, fresh=remote)
        (self.remote if remote else self.cached)[thread.number] = read


def make_conversation_rig(
    *,
    screen: str = "posts",
    network: DemoNetwork | None = None,
    reader: FakeReader | None = None,
    ssh_role: str | None = None,
) -> Rig:
    """The app on ``network`` (default: :func:`conversation_network`) on a frozen clock; with
    ``reader``, the service's thread reader is that one."""
    from msgspec.structs import replace

    network = network or conversation_network()
    sandbox = create_app(network, seed=7, agents=60, epoch=DEFAULT_EPOCH)
    clock = Clock()
    client = in_process_client(sandbox, BASE)
    store = Store(BASE, client=client, clock=clock, building=speed.building())
    service = service_for(store, demo=True, demo_app=sandbox)
    if ssh_role is not None:
        service.session = replace(service.session, ssh_role=ssh_role)
    if reader is not None:
        service.threads = lambda: reader  # type: ignore[attr-defined]
    app = RoostApp(service, clock=clock, initial_screen=screen, poll=False)
    return Rig(app, network, store, clock, sandbox.state.sandbox.faults)


async def open_posts(pilot: Pilot, timeout: float = 20) -> None:
    """Wait until the Posts tab shows the log's rows (or, where there is no log, trending's)."""
    app = pilot.app
    assert isinstance(app, RoostApp)
    await asyncio.wait_for(app.loaded.wait(), timeout)
    for _ in range(int(timeout / 0.02)):
        await settle(pilot)
        screen = app.tab_screen("posts")
        log = app.snapshot.file("posted_log.json")
        shown = log.loaded or log.integrity == "absent"
        if screen is not None and screen.ready and not screen.building and shown:
            await app.workers.wait_for_complete()
            await settle(pilot)
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the Posts tab never showed the log")
