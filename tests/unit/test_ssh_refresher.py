"""One refresher per server: sessions' stores follow it and never ask the service for a state
file (tui/ssh/refresher.py, tui/network/feed.py), against the sandbox's request log."""

from __future__ import annotations

import asyncio
import socket
from types import MappingProxyType

import pytest
from msgspec.structs import replace

from tui.network.disk_cache import DiskCache
from tui.network.feed import REFRESHER_GONE, FollowerStore, cycle_of, encode
from tui.network.state_files import POSTED_LOG, STATE_FILE_NAMES
from tui.network.store import Store, StoreOptions
from tui.sandbox.app import create_app
from tui.sandbox.server import in_process_client
from tui.ssh.refresher import Refresher

BASE = "http://sandbox.test"
MANIFEST_PATH = "/state/manifest-hashes.json"
FAST = StoreOptions(retry_delay_s=0, interval_s=3600, jitter=0, min_interval_s=1)
SESSIONS = 4


@pytest.fixture
def sandbox():
    return create_app(agents=60)


@pytest.fixture
async def client(sandbox):
    async with in_process_client(sandbox, base_url=BASE) as client:
        yield client


def gets(sandbox) -> list[str]:
    return sandbox.state.sandbox.paths("GET")


async def until(condition, what: str) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


class Team:
    """A refresher (polling once an hour: the test runs the cycles it wants, and a session's
    request wakes the loop) and the stores of sessions following it, each on a feed as a
    dashboard inherits it."""

    def __init__(self, client, folder) -> None:
        self.folder = folder
        store = Store(BASE, client=client, cache=DiskCache(folder), options=FAST)
        self.refresher = Refresher(store, log=lambda line: None)
        self.followers: list[FollowerStore] = []
        self.tasks: list[asyncio.Task] = []
        self.seen: list[list[list[str]]] = []

    def join(self) -> FollowerStore:
        fd = self.refresher.open_feed(object())
        follower = FollowerStore(BASE, feed=fd, cache=DiskCache(self.folder), options=FAST)
        seen: list[list[str]] = []
        follower.subscribe(lambda snapshot, report: seen.append(list(report.fetched)))
        follower.load_cache()
        self.followers.append(follower)
        self.seen.append(seen)
        self.tasks.append(asyncio.get_running_loop().create_task(follower.run()))
        return follower

    async def start(self) -> None:
        """The refresher's loop: its first cycle at once."""
        await self.refresher.start()
        await until(lambda: self.refresher.store.last_report is not None, "the first cycle")
        cycle = self.refresher.store.last_report.cycle
        await until(lambda: all(f.followed == cycle for f in self.followers), "sessions follow")
        return self.refresher.store.last_report

    async def cycle(self):
        report = await self.refresher.store.refresh()
        await until(
            lambda: all(f.followed == report.cycle for f in self.followers),
            "every session took the cycle",
        )
        return report

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for follower in self.followers:
            await follower.aclose()
        await self.refresher.stop()


async def test_sessions_share_one_refresh_per_cycle(sandbox, client, tmp_path):
    team = Team(client, tmp_path / "cache")
    for _ in range(SESSIONS):
        team.join()
    try:
        await team.start()
        assert gets(sandbox).count(MANIFEST_PATH) == 1
        assert sorted(gets(sandbox)) == sorted(
            [MANIFEST_PATH, *(f"/state/{name}" for name in STATE_FILE_NAMES)]
        )
        for follower in team.followers:
            snapshot = follower.snapshot
            assert snapshot.all_verified, snapshot.integrity_summary()
            assert len(snapshot.agents.agents) == 60
            assert follower.status.state == "online"
            assert follower.status == team.refresher.store.status

        # nothing changed: one manifest request (a 304) for the whole team, no file
        sandbox.state.sandbox.clear_log()
        before = [f.snapshot for f in team.followers]
        await team.cycle()
        assert gets(sandbox) == [MANIFEST_PATH]
        assert [f.snapshot for f in team.followers] == before

        # one file changed: one download, whatever the number of sessions
        network = sandbox.state.sandbox.network
        stats = dict(network.doc("stats.json"))
        stats["total_widgets"] = 42
        network.replace_doc("stats.json", stats)
        sandbox.state.sandbox.clear_log()
        old_agents = [f.snapshot.agents for f in team.followers]
        await team.cycle()
        assert gets(sandbox) == [MANIFEST_PATH, "/state/stats.json"]
        for follower, agents, seen in zip(team.followers, old_agents, team.seen, strict=True):
            assert follower.snapshot.stats.counters()["total_widgets"] == 42
            assert follower.snapshot.agents is agents  # unchanged files keep their objects
            assert seen[-1] == ["stats.json"]
            assert follower.last_report.requests == 0
    finally:
        await team.close()


async def test_a_file_one_session_wants_is_read_once_for_all(sandbox, client, tmp_path):
    team = Team(client, tmp_path / "cache")
    first, second, third = (team.join() for _ in range(3))
    try:
        await team.start()
        sandbox.state.sandbox.clear_log()
        await first.want(POSTED_LOG)
        await until(lambda: first.snapshot.posted_log is not None, "the wanted file arrived")
        assert gets(sandbox).count(f"/state/{POSTED_LOG}") == 1
        await second.want(POSTED_LOG)  # the refresher holds it: nothing more is asked
        await until(lambda: second.snapshot.posted_log is not None, "the second session has it")
        assert gets(sandbox).count(f"/state/{POSTED_LOG}") == 1
        assert third.snapshot.file(POSTED_LOG).model is None  # not wanted, not read
    finally:
        await team.close()


async def test_the_refreshers_failure_shows_in_every_session(sandbox, client, tmp_path):
    team = Team(client, tmp_path / "cache")
    for _ in range(3):
        team.join()
    try:
        await team.start()
        sandbox.state.sandbox.faults.fail_next = 1  # the service answers 503
        sandbox.state.sandbox.faults.fail_status = 503
        await team.cycle()
        for follower in team.followers:
            assert follower.status.state == "offline"
            assert follower.status.last_success == team.refresher.store.status.last_success
            assert follower.snapshot.agents is not None  # the last good copies stay
    finally:
        await team.close()


async def test_a_frozen_session_holds_up_no_other(sandbox, client, tmp_path):
    team = Team(client, tmp_path / "cache")
    live = team.join()
    frozen_fd = team.refresher.open_feed("frozen")  # never read: its socket fills up
    frozen = socket.socket(fileno=frozen_fd)
    frozen.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        feed = team.refresher.feeds["frozen"]
        big = encode(replace(cycle_of(team.refresher.store, None), notes=["x" * 60_000]))
        for _ in range(50):  # far more than the socket holds: the server never blocks
            feed.send(big)
        assert feed.dropped > 0
        await team.start()
        assert live.snapshot.all_verified
        # a session that ends (its end closed) is dropped from the refresher's feeds
        frozen.close()
        await team.cycle()
        await until(lambda: feed.closed, "the closed feed noticed")
    finally:
        await team.close()


async def test_a_session_whose_refresher_is_gone_says_so(sandbox, client, tmp_path):
    team = Team(client, tmp_path / "cache")
    follower = team.join()
    try:
        await team.start()
        for feed in team.refresher.feeds.values():
            feed.close()
        await until(lambda: follower.status.state == "failed", "the session noticed")
        assert follower.status.loop_error == REFRESHER_GONE
        assert follower.snapshot.agents is not None
    finally:
        await team.close()


async def test_a_session_cannot_name_other_files_or_flood_cycles(sandbox, client, tmp_path):
    team = Team(client, tmp_path / "cache")
    follower = team.join()
    try:
        await team.start()
        names = team.refresher.store.file_names
        feed = next(iter(team.refresher.feeds.values()))
        team.refresher._asked(feed, b'{"type":"want","names":["../../etc/passwd","x.json"]}')
        team.refresher._asked(feed, b"not json")
        assert team.refresher.store.file_names == names
        sandbox.state.sandbox.clear_log()
        for _ in range(5):
            follower.request_refresh()
        await until(lambda: MANIFEST_PATH in gets(sandbox), "a requested cycle ran")
        await asyncio.sleep(0.2)
        assert gets(sandbox).count(MANIFEST_PATH) == 1  # paced: one cycle serves the burst
    finally:
        await team.close()


async def test_a_big_keyed_change_reaches_sessions_as_entries(tmp_path):
    """A change of a few agents in a big agents.json goes to every session as those entries
    (no session reads the 1 MB file again) and makes exactly the refresher's copy; a session
    that held another copy reads the file as before."""
    from tui.network.state_files import AGENTS

    sandbox = create_app(agents=1500)
    async with in_process_client(sandbox, base_url=BASE) as client:
        team = Team(client, tmp_path / "cache")
        for _ in range(2):
            team.join()
        try:
            await team.start()
            assert team.refresher.store.snapshot.file(AGENTS).size > 1 << 20  # a keyed file
            network = sandbox.state.sandbox.network
            agents = dict(network.doc(AGENTS))
            entries = dict(agents["agents"])
            first, second = list(entries)[:2]
            entries[first] = {**entries[first], "karma": 123_456}
            del entries[second]
            entries["zion-newcomer-99"] = {**entries[first], "name": "Newcomer"}
            network.replace_doc(AGENTS, {**agents, "agents": entries})
            # the second session holds another copy (as one that missed a cycle would)
            lost = team.followers[1]
            files = dict(lost.snapshot.files)
            files[AGENTS] = replace(files[AGENTS], sha256="0" * 64)
            lost._snapshot = replace(lost.snapshot, files=MappingProxyType(files))
            await team.cycle()
            want = team.refresher.store.snapshot.agents
            for follower in team.followers:
                got = follower.snapshot.agents
                assert got == want and list(got.agents) == list(want.agents)
                assert got.agents[first].karma == 123_456 and second not in got.agents
            made = team.followers[0]._keyed[AGENTS]
            assert made.document == "" and len(made.models) == 1500  # from the entries
            assert lost._keyed[AGENTS].document != ""  # read from the cache and walked
        finally:
            await team.close()
