"""`roost serve-ssh`'s zygote end to end: sessions forked from it are each a process of their
own (its PTY, session, limits, feed, nothing of the zygote's), a killed or frozen one ends
alone, and a zygote that dies is noticed, logged and started again while sessions are spawned
(tui/ssh/zygote.py, tui/ssh/zygote_main.py)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from tests.ssh_rig import Server, alive, connect, open_terminal, until

pytestmark = pytest.mark.slow

DASHBOARD = "301 agents"


def comm(pid: int) -> str:
    return Path(f"/proc/{pid}/comm").read_text().strip()


def parent(pid: int) -> int:
    text = Path(f"/proc/{pid}/stat").read_text()
    return int(text[text.rindex(")") + 2 :].split()[1])


def field(pid: int, index: int) -> str:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()[index]


def sockets(pid: int) -> set[str]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:"):
            found.add(target)
    return found


def limit(pid: int, name: str) -> str:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith(name):
            return line[len(name) :].split()[0]
    raise AssertionError(name)


@pytest.fixture
def server(tmp_path: Path):
    with Server(tmp_path) as server:
        server.wait_for_line("zygote: ready")
        yield server


async def test_forked_sessions_are_processes_of_their_own_and_end_alone(server):
    [zygote] = server.zygotes()
    async with await connect(server.port) as conn:
        terms = [await open_terminal(conn) for _ in range(3)]
        for term in terms:
            await term.wait_for(DASHBOARD)
        pids = await until(lambda: len(server.children()) == 3 and server.children())
        zygote_sockets = sockets(zygote)
        for pid in pids:
            # forked by the zygote, then the server's own child, in a session of its own
            assert comm(pid) == "roost-session" and parent(pid) == server.pid
            assert int(field(pid, 3)) == pid  # its session: setsid
            assert int(field(pid, 16)) == 10  # nice
            assert limit(pid, "Max address space") == str(2 << 30)
            assert limit(pid, "Max open files") == "256"
            # its feed: a socket of its own (/proc/PID/environ shows the zygote's environment:
            # a fork's own is in its memory, checked below by what the dashboard does)
            assert sockets(pid)
            # nothing of the zygote's: not its control socket, not its feed
            assert not sockets(pid) & zygote_sockets
            assert os.readlink(f"/proc/{pid}/fd/0").startswith("/dev/pts/")
        # the session's own environment: a guest's dashboard, which says so
        terms[1].type("n")
        await terms[1].wait_for("posting is off for guests")
        # sessions share nothing mutable: a key in one is seen in that one only
        terms[0].type("2")
        await terms[0].wait_for("Trending")
        assert DASHBOARD in terms[2].text()

        os.kill(pids[0], signal.SIGKILL)
        os.kill(pids[1], signal.SIGSTOP)  # frozen: neither the server nor the others wait
        try:
            await until(lambda: not alive(pids[0]), what="the killed dashboard reaped")
            await terms[0].wait_closed()
            terms[2].type("r")
            await terms[2].wait_for("online")
            terms[2].type("?")
            await terms[2].wait_for("Help")
            assert alive(pids[1]) and alive(pids[2]) and alive(zygote)
            # a new session still forks, beside the frozen one
            more = await open_terminal(conn)
            await more.wait_for(DASHBOARD)
        finally:
            os.kill(pids[1], signal.SIGCONT)
    server.wait_for_line(r"session guest@.* \(exit -9\)")


async def test_a_dead_zygote_is_started_again_and_sessions_are_spawned_meanwhile(server):
    [zygote] = server.zygotes()
    async with await connect(server.port) as conn:
        first = await open_terminal(conn)
        await first.wait_for(DASHBOARD)
        [forked] = server.children()
        os.kill(zygote, signal.SIGKILL)
        server.wait_for_line(r"zygote: exited \(-9\)")
        server.wait_for_line(r"zygote: starting again in 1 s; sessions are spawned meanwhile")
        # the session forked before runs on
        first.type("r")
        await first.wait_for("online")
        assert alive(forked)
        # one opened meanwhile (or after) works either way
        second = await open_terminal(conn)
        await second.wait_for(DASHBOARD)
        await until(lambda: len(server.zygotes()) == 1 and server.zygotes() != [zygote])
        await until(lambda: sum("zygote: ready" in line for line in server.lines) == 2)
        third = await open_terminal(conn)
        await third.wait_for(DASHBOARD)
        newest = await until(
            lambda: [p for p in server.children() if p != forked and comm(p) == "roost-session"]
        )
        assert newest and all(parent(p) == server.pid for p in newest)
    assert server.stop() == 0
    assert not server.children() and not server.zygotes()


async def test_no_zygote_spawns_every_session(tmp_path):
    with Server(tmp_path, "--no-zygote") as server:
        async with await connect(server.port) as conn:
            term = await open_terminal(conn)
            await term.wait_for(DASHBOARD)
            [pid] = await until(server.children)
            assert comm(pid) != "roost-session"
            assert server.zygotes() == []
        await asyncio.sleep(0)
    assert not any("zygote:" in line for line in server.lines)
