"""The zygote's parts on their own: the server's side with stand-in zygote programs (one that
dies, one that never answers), a forked process waited for through its pidfd, and a store
that starts from a zygote's snapshot (tui/ssh/zygote.py, tui/network/feed.py)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import sys
import textwrap

import pytest

from tui.network.disk_cache import CachedMeta, DiskCache
from tui.network.feed import FollowerStore
from tui.network.keyed import located, parse_keyed
from tui.network.store import Store
from tui.sandbox.generator import generate_state, serialize
from tui.ssh import zygote as zygote_module
from tui.ssh.child import ChildLimits
from tui.ssh.zygote import GIVE_UP_AFTER, ForkedProcess, Zygote

BASE = "http://sandbox.test"

#: Answers "ready" and then nothing, whatever it is asked.
MUTE = textwrap.dedent(
    """
    import json, socket, sys, time
    control = socket.socket(fileno=int(sys.argv[1]))
    control.send(json.dumps({"ready": 1, "read_s": 0}).encode())
    time.sleep(600)
    """
)


class Feeds:
    """The refresher's side as the zygote sees it: a feed per zygote, closed when it ends."""

    def __init__(self) -> None:
        self.open: dict[int, socket.socket] = {}
        self.opened = 0

    def open_feed(self, owner: object) -> int:
        ours, theirs = socket.socketpair()
        self.open[id(owner)] = ours
        self.opened += 1
        return theirs.detach()

    def close_feed(self, owner: object) -> None:
        sock = self.open.pop(id(owner), None)
        if sock is not None:
            sock.close()


def zygote(tmp_path, argv: list[str], lines: list[str], **kwargs) -> tuple[Zygote, Feeds]:
    feeds = Feeds()
    made = Zygote(
        env=dict(os.environ),
        cwd=tmp_path,
        open_feed=feeds.open_feed,
        close_feed=feeds.close_feed,
        log=lines.append,
        argv=argv,
        pause_s=0.01,
        **kwargs,
    )
    return made, feeds


async def until(condition, what: str) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


async def test_a_zygote_that_keeps_dying_is_restarted_then_given_up(tmp_path):
    lines: list[str] = []
    argv = [
        sys.executable,
        "-c",
        "import sys; print('broken install', file=sys.stderr); sys.exit(3)",
    ]
    made, feeds = zygote(tmp_path, argv, lines)
    made.start()
    try:
        await until(lambda: made.gave_up, "the server gives up on the zygote")
        assert made.starts == GIVE_UP_AFTER
        exits = [line for line in lines if line.startswith("zygote: exited (")]
        assert len(exits) == GIVE_UP_AFTER, lines
        assert "zygote: exited (3): broken install" in exits  # its last words, cleaned
        assert "zygote: starting again in 0.01 s; sessions are spawned meanwhile" in lines
        assert lines[-1].startswith(f"zygote: failed {GIVE_UP_AFTER} times in 10 min")
        assert feeds.opened == GIVE_UP_AFTER and not feeds.open  # each one's feed closed
        # nothing is forked: the caller spawns
        feed_r, feed_w = socket.socketpair()
        assert (
            await made.start_child({}, (80, 24), ChildLimits(), tmp_path, feed_w.fileno()) is None
        )
        feed_r.close()
        feed_w.close()
    finally:
        await made.stop()


async def test_a_zygote_that_does_not_answer_is_ended_and_replaced(tmp_path, monkeypatch):
    monkeypatch.setattr(zygote_module, "ANSWER_S", 0.5)
    lines: list[str] = []
    made, feeds = zygote(tmp_path, [sys.executable, "-c", MUTE], lines)
    made.start()
    try:
        await until(lambda: made.ready, "the stand-in is ready")
        first = made.process
        ours, theirs = socket.socketpair()
        child = await made.start_child({}, (80, 24), ChildLimits(), tmp_path, theirs.fileno())
        assert child is None  # the session is spawned instead
        assert "zygote: no answer to a session's request; ending it" in lines
        await until(lambda: made.ready and made.process is not first, "a new zygote")
        assert first is not None and first.returncode is not None
        ours.close()
        theirs.close()
    finally:
        await made.stop()
    assert made.process is not None and made.process.returncode is not None


async def test_a_forked_process_is_waited_for_through_its_pidfd():
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os._exit(7)
    process = ForkedProcess(pid)
    assert await asyncio.wait_for(process.wait(), 30) == 7
    assert process.returncode == 7
    assert not os.path.exists(f"/proc/{pid}")  # reaped


def test_a_follower_starts_from_a_zygotes_snapshot_of_the_same_service(tmp_path):
    cache = DiskCache(tmp_path / "cache")
    for name, doc in generate_state(seed=7, agents=40).items():
        body = serialize(doc)
        meta = CachedMeta(
            hashlib.sha256(body).hexdigest(), len(body), "2026-01-01T00:00:00+00:00", True
        )
        cache.store(name, body, meta)
    zygote_store = Store(BASE, cache=DiskCache(tmp_path / "cache"))
    zygote_store.load_cache()
    ours, theirs = socket.socketpair()
    try:
        follower = FollowerStore(BASE, feed=ours, cache=DiskCache(tmp_path / "cache"))
        assert follower.adopt(zygote_store)
        (tmp_path / "cache").rename(tmp_path / "gone")  # nothing is read from here on
        assert follower.load_cache() is zygote_store.snapshot
        other = FollowerStore(BASE, feed=theirs, cache=DiskCache(tmp_path / "elsewhere"))
        assert not other.adopt(zygote_store)  # another cache folder: its own reading
        assert not FollowerStore(
            "http://other.test", feed=theirs, cache=DiskCache(tmp_path / "gone")
        ).adopt(zygote_store)
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("change", [False, True])
def test_spans_worked_out_ahead_compare_as_the_walk_would(change):
    first = serialize(generate_state(seed=3, agents=3000)["agents.json"])
    assert len(first) > 1 << 20  # a keyed file
    _, keyed = parse_keyed("agents.json", first, None)
    assert keyed is not None and keyed.spans is None
    ahead = located(keyed)
    assert ahead.spans is not None and ahead.models is keyed.models
    doc = generate_state(seed=3, agents=3000)["agents.json"]
    if change:
        name = next(iter(doc["agents"]))
        doc["agents"][name]["heartbeat_last"] = "2031-01-01T00:00:00Z"
    second = serialize(doc)
    assert (
        parse_keyed("agents.json", second, ahead)[0] == parse_keyed("agents.json", second, keyed)[0]
    )
    assert located(ahead) is ahead


async def test_a_zygote_never_ready_is_ended_and_replaced(tmp_path, monkeypatch):
    monkeypatch.setattr(zygote_module, "READY_S", 0.3)
    lines: list[str] = []
    made, _feeds = zygote(tmp_path, [sys.executable, "-c", "import time; time.sleep(600)"], lines)
    made.start()
    try:
        await until(lambda: made.starts >= 2, "a second zygote")
        assert "zygote: not ready within 0.3 s: ended (-9)" in lines
        assert not made.ready
    finally:
        await made.stop()


def test_a_delta_is_sent_only_when_it_is_exact_and_small():
    from msgspec.structs import replace as struct_replace

    from tui.network.keyed import DELTA_CAP, apply_delta, delta_of

    doc = generate_state(seed=3, agents=1500)["agents.json"]
    first = serialize(doc)
    old_model, old = parse_keyed("agents.json", first, None)
    keys = list(doc["agents"])

    def changed(agents: dict) -> tuple:
        model, keyed = parse_keyed("agents.json", serialize({**doc, "agents": agents}), old)
        return model, keyed

    one = dict(doc["agents"])
    one[keys[0]] = {**one[keys[0]], "karma": 7}
    model, keyed = changed(one)
    found = delta_of(old.models, keyed, model)
    assert found is not None and list(found[0]) == [keys[0]] and found[1] == []
    made, _ = apply_delta("agents.json", old, *found)
    assert made == model
    # the other members changed too: they travel as JSON
    assert model.meta is not None
    with_meta = struct_replace(model, meta=struct_replace(model.meta, count=12_345))
    found = delta_of(old.models, keyed, with_meta)
    assert found is not None and apply_delta("agents.json", old, *found)[0] == with_meta
    # an entry moved: no delta
    moved = {keys[1]: one[keys[1]], **{k: v for k, v in one.items() if k != keys[1]}}
    assert delta_of(old.models, *reversed(changed(moved))) is None
    # too much text: no delta
    big = {k: {**v, "bio": "x" * 400} for k, v in doc["agents"].items()}
    assert sum(len(v["bio"]) for v in big.values()) > DELTA_CAP
    assert delta_of(old.models, *reversed(changed(big))) is None
