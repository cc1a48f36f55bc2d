"""Bench: a thread of 2 000 comments, read from the published discussions cache.

    python tests/perf/bench_thread.py           # 2 000 comments, 5 rounds
    python tests/perf/bench_thread.py --smoke   # 200 comments, one round

RoostApp starts from a disk cache (no network, as in ``bench_app``) headless at 80×24 on the
Posts tab, whose log and discussions cache (the full form: every comment's Markdown, replies
nested a few deep) are in that cache. With the post's row under the cursor, keys are posted as
the terminal driver posts them (``App.post_message`` of a ``Key`` event) and frames are timed
by ``App.post_display_hook``:

* ``first_content``: from ``enter`` on the row to the first frame that shows the thread's text
  (the goal: within 150 ms), the best and the median of the rounds;
* ``j held``: ``j`` posted every 33 ms (a held key's repeat), 300 times from the post down;
  for each, the first frame written after it (the goal: the tables' next frame, 100 ms at p95).

The thread is read by the service's thread reader (``service.threads()``), or by the published
files alone where the service has none; either way from the cache, with no request.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
PERF = Path(__file__).resolve().parent
for _path in (ROOT, PERF):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from bench_app import BASE, _NoNetwork, cache_files, fill_cache  # noqa: E402
from bench_keys import _key_event, _quantile  # noqa: E402
from figures import figure  # noqa: E402
from frames_written import written_only  # noqa: E402

from tui.config import Settings  # noqa: E402
from tui.network.disk_cache import DiskCache  # noqa: E402
from tui.network.state_files import DISCUSSIONS_CACHE, DISCUSSIONS_INDEX, POSTED_LOG  # noqa: E402
from tui.network.store import Store  # noqa: E402
from tui.sandbox.generator import DEFAULT_EPOCH, iso, serialize  # noqa: E402
from tui.service import Service  # noqa: E402
from tui.ui import speed  # noqa: E402
from tui.ui.app import RoostApp  # noqa: E402
from tui.ui.screens.posts import PostsScreen  # noqa: E402
from tui.ui.screens.thread import ThreadScreen  # noqa: E402

__all__ = ["measure_thread"]

SIZE = (80, 24)
NUMBER = 4242
GOAL_FIRST_S = 0.150
GOAL_P95_S = 0.100
REPEAT_S = 0.033  # a held key's repeat

_WORDS = (
    "agents", "vote", "on", "proposals", "while", "the", "colony", "measures", "consensus",
    "and", "archive", "keeps", "every", "thread", "of", "debate", "about", "quorum", "budgets",
    "heartbeats", "long", "memory", "channels",
)  # fmt: skip


def _markdown(rng: random.Random, n: int) -> str:
    """A comment's Markdown: a paragraph or two, now and then a list, a quote or code."""
    words = lambda k: " ".join(rng.choice(_WORDS) for _ in range(k))  # noqa: E731
    parts = [f"*— **agent-{n % 97}***", "", words(rng.randint(8, 60)).capitalize() + "."]
    kind = n % 7
    if kind == 1:
        parts += ["", *(f"- {words(rng.randint(3, 9))}" for _ in range(rng.randint(2, 5)))]
    elif kind == 2:
        parts += ["", f"> {words(rng.randint(6, 20))}"]
    elif kind == 3:
        parts += ["", "```python", f"votes = {n}", "print(votes * 2)", "```"]
    elif kind == 4:
        parts += ["", f"See [the thread](https://example.org/t/{n}) and **{words(2)}**."]
    return "\n".join(parts)


def conversation(comments: int) -> dict[str, Any]:
    """The log (one post) and the full-form cache of its thread of ``comments`` comments."""
    rng = random.Random(comments)
    listed = []
    for n in range(comments):
        parent = f"DC_{n - 1}" if n % 4 and n else None  # chains of four, a few deep
        listed.append(
            {
                "id": f"DC_{n}",
                "parent_id": parent,
                "body": _markdown(rng, n),
                "author_login": "rappter1",
                "created_at": iso(DEFAULT_EPOCH),
                "reactions": {"+1": n % 3},
            }
        )
    title = "[DEBATE] A thread of many comments"
    url = f"https://github.com/example/network/discussions/{NUMBER}"
    post = {"number": NUMBER, "title": title, "channel": "debates", "author": "agent-1"}
    return {
        POSTED_LOG: {
            "posts": [{**post, "timestamp": iso(DEFAULT_EPOCH), "url": url}],
            "comments": [],
        },
        DISCUSSIONS_CACHE: {
            "discussions": [
                {
                    "number": NUMBER,
                    "title": title,
                    "body": "*Posted by **agent-1***\n\n" + _markdown(rng, 0),
                    "author_login": "rappter1",
                    "category_slug": "debates",
                    "created_at": iso(DEFAULT_EPOCH),
                    "url": url,
                    "comment_count": comments,
                    "comments": listed,
                }
            ]
        },
        DISCUSSIONS_INDEX: {str(NUMBER): {"id": f"D_{NUMBER}", "number": NUMBER}},
    }


def fill(cache_dir: Path, comments: int) -> DiskCache:
    """A small network and the conversation, in a previous run's disk cache."""
    files = {name: serialize(doc) for name, doc in conversation(comments).items()}
    return cache_files(fill_cache(cache_dir, 200), files)


class _Frames:
    def __init__(self) -> None:
        self.times: list[float] = []
        self.content_at: float | None = None  # the first frame showing the thread's text
        self.changed = asyncio.Event()

    def hook(self, app: RoostApp) -> None:
        now = time.perf_counter()
        self.times.append(now)
        screen = app.screen
        if (
            self.content_at is None
            and isinstance(screen, ThreadScreen)
            and screen.view.thread is not None
            and screen.view.thread.comments
        ):
            self.content_at = now
        self.changed.set()

    async def wait(self, condition, timeout: float = 30) -> None:
        """Until ``condition`` holds: checked at each frame, and every 0.1 s (the state it
        reads may change after the last frame)."""
        deadline = time.perf_counter() + timeout
        while not condition():
            self.changed.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"the frame waited for never came ({len(self.times)} frames)")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), timeout=min(left, 0.1))

    def first_after(self, moment: float) -> float | None:
        return next((t for t in self.times if t >= moment), None)


async def _round(cache_dir: Path, comments: int) -> dict[str, Any]:
    client = httpx.AsyncClient(transport=_NoNetwork(), base_url=BASE)
    cache = DiskCache.for_service(BASE, cache_dir)
    store = Store(BASE, client=client, cache=cache, building=speed.building())
    app = RoostApp(Service(Settings(read_url=BASE), store), initial_screen="posts", poll=False)
    frames = _Frames()
    written_only(app)
    app.post_display_hook = lambda: frames.hook(app)  # type: ignore[method-assign]
    try:
        async with app.run_test(size=SIZE) as pilot:
            await frames.wait(
                lambda: (
                    isinstance(app.screen, PostsScreen)
                    and app.screen.table.cursor_key == f"#{NUMBER}"
                    and app.store.snapshot.discussions_cache is not None
                )
            )
            await pilot.pause(0.3)  # the refresh attempt (no network) is over
            sent = time.perf_counter()
            app.post_message(_key_event("enter"))
            await frames.wait(lambda: frames.content_at is not None)
            first = frames.content_at - sent  # type: ignore[operator]
            await pilot.pause(0.3)
            nexts = []
            for _ in range(min(300, comments)):
                sent = time.perf_counter()
                app.post_message(_key_event("j"))
                await asyncio.sleep(REPEAT_S)
                shown = frames.first_after(sent)
                while shown is None:
                    await frames.wait(lambda s=sent: frames.first_after(s) is not None, 5)
                    shown = frames.first_after(sent)
                nexts.append(shown - sent)
            screen = app.screen
            assert isinstance(screen, ThreadScreen) and screen.view.selected > 0
    finally:
        await client.aclose()
    return {"first_s": first, "next_s": nexts}


async def measure_thread(comments: int, rounds: int) -> dict[str, Any]:
    firsts: list[float] = []
    nexts: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        cache_dir = Path(tmp)
        fill(cache_dir, comments)
        for _ in range(rounds):
            result = await _round(cache_dir, comments)
            firsts.append(result["first_s"])
            nexts.extend(result["next_s"])
    first_ms = round(min(firsts) * 1000, 1)
    p95_ms = round(_quantile(nexts, 0.95) * 1000, 1)
    return {
        "figures": [
            figure(
                f"thread of {comments:,} comments, enter to its first content, from the cache",
                first_ms,
                "ms",
                at_most=GOAL_FIRST_S * 1000,
            ),
            figure(
                f"thread of {comments:,} comments, next frame after j held, p95",
                p95_ms,
                "ms",
                at_most=GOAL_P95_S * 1000,
            ),
        ],
        "comments": comments,
        "size": list(SIZE),
        "rounds": rounds,
        "first_content_ms": [round(v * 1000, 1) for v in firsts],
        "first_content_median_ms": round(statistics.median(firsts) * 1000, 1),
        "j_held": {
            "presses": len(nexts),
            "repeat_ms": REPEAT_S * 1000,
            "p50_ms": round(statistics.median(nexts) * 1000, 1),
            "p95_ms": p95_ms,
            "max_ms": round(max(nexts) * 1000, 1),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="200 comments, one round")
    args = parser.parse_args()
    comments, rounds = (200, 1) if args.smoke else (2000, 5)
    out = asyncio.run(measure_thread(comments, rounds))
    out["cpus"] = os.cpu_count()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
