"""A team on one server: `roost serve-ssh` with N sessions, as its users and its operator see it.

    python tests/perf/bench_ssh.py [SESSIONS] [AGENTS] [--no-zygote]

The demo network with AGENTS agents is served over HTTP by `roost sandbox serve` (its own
process); `roost serve-ssh --read-url URL` runs as its own process on a loopback port, its disk
cache filled first by `roost state` (a server restarted on a warm cache); the sessions are
asyncssh clients in this process, each on its own connection, drawing on a pyte screen at
80×24. A session has its *first rows* once its screen shows the Agents tab's count and a row.

* ``lone``: one session, connect to first rows, beside a local start (``python -m tui
  --read-url URL`` on a pseudo-terminal at 80×24, from the same cache, spawn to first rows);
  rounds alternate, medians compared. Goal: ≤ 1.2×.
* ``together``: SESSIONS sessions started at once (one ``gather``), each one's time to first
  rows; median and max. Goals: ≤ 2 s and ≤ 3 s at 16.
* ``idle``: bytes each session's client receives while nobody types (IDLE_S; no refresh falls
  in it: the server polls once an hour here; ``ssh_idle`` measures a minute with one).
* ``change``: an agent's heartbeat is applied on the sandbox and one session types ``r``: the
  server's one refresher downloads what changed and every session follows. The CPU time
  (user + system, from /proc) of the server, its zygote and its sessions until all are quiet
  again, less what they spend idle in as long, first with SESSIONS sessions, then with one
  (the others closed): the ratio. A change is made before either, unmeasured, so both are
  steady changes. Goal: ≤ 4×.
* ``memory``: after the change with SESSIONS sessions, the proportional set size (PSS, from
  /proc/PID/smaps_rollup: each shared page divided among the processes sharing it) of the
  sessions' dashboards and the zygote, summed; the server's own beside it; each dashboard's
  unique set (USS: its private pages, what one more session adds). Goal: ≤ 2.5 GB at 16.

The clients run in this process on the same cores as the server: their key exchanges and
terminal emulation are counted in no figure but do compete for the CPU, as a second machine's
would not. ``--no-zygote`` measures the same with every dashboard spawned (the figures the
design was chosen from, ARCHITECTURE.md).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import pyte

ROOT = Path(__file__).resolve().parents[2]
PERF = Path(__file__).resolve().parent
for _path in (ROOT, PERF):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from figures import figure  # noqa: E402

from tests.ssh_rig import Server, children_of, connect, open_terminal, server_env  # noqa: E402
from tui.ssh.child import open_pty  # noqa: E402

__all__ = ["measure_ssh"]

SIZE = (80, 24)
START_MAX_S = 300.0
GOAL_MEDIAN_S = 2.0
GOAL_MAX_S = 3.0
GOAL_LONE_RATIO = 1.2
GOAL_MEMORY_GB = 2.5
GOAL_CPU_RATIO = 4.0
GOAL_IDLE_KB = 5.0
_COUNT = re.compile(r"\b[\d,]+ agents\b")
TICK = os.sysconf("SC_CLK_TCK")
QUIET_S = 1.5  # CPU back to its idle rate this long: a change has been followed everywhere


def rows_shown(text: str) -> bool:
    """The Agents tab's count and at least one agent's row are on the screen."""
    return bool(_COUNT.search(text)) and "zion-" in text


# ------------------------------------------------------------------ the processes


def _sandbox(agents: int, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "sandbox", "serve", "--port", "0", "--json"]
        + ["--agents", str(agents)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    return process, json.loads(line)["read_url"]


def _fill_cache(url: str, env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "tui", "state", "--read-url", url],
        env=env,
        stdout=subprocess.DEVNULL,
        check=True,
    )


def _cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total


def _rollup(pid: int) -> dict[str, int]:
    """PSS and USS of ``pid`` in bytes (0 when it is gone)."""
    found = {"pss": 0, "uss": 0}
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return found
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name == "Pss":
            found["pss"] = int(rest.split()[0]) * 1024
        elif name in ("Private_Clean", "Private_Dirty"):
            found["uss"] += int(rest.split()[0]) * 1024
    return found


# ------------------------------------------------------------------ a local start


async def _local_start(url: str, env: dict[str, str], folder: Path) -> float:
    """Spawn `roost --read-url URL` on a PTY; seconds to its first rows."""
    loop = asyncio.get_running_loop()
    master, slave = open_pty(SIZE)
    screen = pyte.Screen(*SIZE)
    stream = pyte.ByteStream(screen)
    shown = asyncio.Event()

    def readable() -> None:
        try:
            data = os.read(master, 1 << 16)
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(master)
            return
        stream.feed(data)
        if rows_shown("\n".join(screen.display)):
            shown.set()

    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "tui", "--read-url", url],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=folder,
        env={**env, "TERM": "xterm-256color", "LANG": "C.UTF-8", "ROOST_CONFIG": os.devnull},
        start_new_session=True,
    )
    os.close(slave)
    loop.add_reader(master, readable)
    try:
        await asyncio.wait_for(shown.wait(), START_MAX_S)
        return time.perf_counter() - started
    finally:
        loop.remove_reader(master)
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.to_thread(process.wait, 30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        os.close(master)


# ------------------------------------------------------------------ sessions


class _Session:
    def __init__(self, conn: Any, term: Any, seconds: float) -> None:
        self.conn = conn
        self.term = term
        self.seconds = seconds


async def _session(port: int, started: float) -> _Session:
    conn = await connect(port)
    term = await open_terminal(conn, *SIZE)
    await term.wait_for("agents", "zion-", timeout=START_MAX_S)
    while not rows_shown(term.text()):
        await asyncio.sleep(0.02)
    return _Session(conn, term, time.perf_counter() - started)


async def _close(sessions: list[_Session], server: Server, remaining: int = 0) -> None:
    for session in sessions:
        session.conn.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(server.children()) > remaining:
        await asyncio.sleep(0.1)


def _tree(server: Server) -> list[int]:
    """The server, its zygote and its sessions' dashboards."""
    return [server.pid, *children_of(server.pid)]


async def _idle_rate(server: Server, seconds: float = 3.0) -> float:
    """Ticks a second the server's tree spends with nothing happening."""
    before = _cpu_ticks(_tree(server))
    await asyncio.sleep(seconds)
    return (_cpu_ticks(_tree(server)) - before) / seconds


async def _change(url: str, server: Server, session: _Session, actor: str) -> float:
    """A heartbeat applied, `r` typed: CPU-seconds the tree spends until quiet, less idle."""
    await asyncio.sleep(3.0)  # with the idle rate's 3 s: past the refresher's pace for `r`
    idle = await _idle_rate(server)
    async with httpx.AsyncClient() as client:
        answer = await client.post(
            url + "/_sandbox/apply", json={"action": "heartbeat", "payload": {}, "actor": actor}
        )
        answer.raise_for_status()
    before = _cpu_ticks(_tree(server))
    started = time.monotonic()
    session.term.type("r")
    last, quiet_since = before, None
    busy = False
    while time.monotonic() - started < START_MAX_S:
        await asyncio.sleep(0.25)
        now_ticks = _cpu_ticks(_tree(server))
        rate = (now_ticks - last) / 0.25
        last = now_ticks
        if rate > max(2 * idle, idle + 20):
            busy, quiet_since = True, None
        elif busy:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= QUIET_S:
                break
    spent = time.monotonic() - started
    return max(0.0, (last - before) / TICK - idle / TICK * spent)


def _memory(server: Server) -> dict[str, Any]:
    dashboards = server.children()
    zygotes = server.zygotes()
    rollups = {pid: _rollup(pid) for pid in dashboards}
    zygote = sum(_rollup(pid)["pss"] for pid in zygotes)
    return {
        "sessions_and_zygote_pss": sum(r["pss"] for r in rollups.values()) + zygote,
        "zygote_pss": zygote,
        "server_pss": _rollup(server.pid)["pss"],
        "session_uss_median": statistics.median(r["uss"] for r in rollups.values()),
        "session_pss_median": statistics.median(r["pss"] for r in rollups.values()),
        "sessions": len(rollups),
        "forked": sum(_name(pid) == "roost-session" for pid in dashboards),
    }


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


async def _measure(
    count: int, agents: int, folder: Path, zygote: bool, rounds: int, idle_s: float
) -> dict[str, Any]:
    env = server_env(folder)
    sandbox, url = _sandbox(agents, env)
    try:
        _fill_cache(url, env)
        args = ["--read-url", url, "--interval", "3600", "--max-sessions", str(count + 1)]
        args += ["--max-per-address", str(count + 1), "--idle-timeout", "0"]
        if not zygote:
            args.append("--no-zygote")
        with Server(folder, *args) as server:
            if zygote:
                server.wait_for_line("zygote: ready", START_MAX_S)
            local: list[float] = []
            lone: list[float] = []
            for _ in range(rounds):
                local.append(await _local_start(url, env, folder))
                session = await _session(server.port, time.perf_counter())
                lone.append(session.seconds)
                await _close([session], server)
            started = time.perf_counter()
            sessions = list(
                await asyncio.gather(*(_session(server.port, started) for _ in range(count)))
            )
            together = sorted(s.seconds for s in sessions)
            await asyncio.sleep(5.0)  # the starts' own work (warm-ups) is over
            received = [len(s.term.output) for s in sessions]
            await asyncio.sleep(idle_s)
            idle = [
                (len(s.term.output) - before) / 1024 * 60 / idle_s
                for s, before in zip(sessions, received, strict=True)
            ]
            await _change(url, server, sessions[0], "zion-coder-01")  # unmeasured: warm-up
            cpu_many = await _change(url, server, sessions[0], "zion-coder-02")
            memory = _memory(server)
            await _close(sessions[1:], server, remaining=1)
            cpu_one = await _change(url, server, sessions[0], "zion-coder-03")
            await _close(sessions[:1], server)
            log = [line for line in server.lines if "zygote:" in line]
    finally:
        sandbox.terminate()
        sandbox.wait(30)
    return {
        "local_start_s": [round(x, 3) for x in local],
        "lone_session_s": [round(x, 3) for x in lone],
        "together_s": [round(x, 3) for x in together],
        "idle_kb_a_minute": [round(x, 2) for x in idle],
        "change_cpu_s": {"sessions": round(cpu_many, 3), "one": round(cpu_one, 3)},
        "memory": memory,
        "zygote_log": log,
    }


def measure_ssh(
    sessions: int = 16,
    agents: int = 50_000,
    *,
    zygote: bool = True,
    rounds: int = 3,
    idle_s: float = 60.0,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        run = asyncio.run(_measure(sessions, agents, Path(tmp), zygote, rounds, idle_s))
    local = statistics.median(run["local_start_s"])
    lone = statistics.median(run["lone_session_s"])
    together = run["together_s"]
    memory = run["memory"]
    total_gb = memory["sessions_and_zygote_pss"] / 1e9
    cpu = run["change_cpu_s"]
    cpu_ratio = cpu["sessions"] / cpu["one"] if cpu["one"] else None
    mb = 1 << 20
    n = f"{sessions} sessions"
    return {
        "figures": [
            figure(
                f"{n} started together, to first rows, median, {agents:,} agents",
                round(statistics.median(together), 3),
                "s",
                at_most=GOAL_MEDIAN_S,
            ),
            figure(f"{n} started together, to first rows, max", together[-1], "s", at_most=3.0),
            figure(
                "a lone session to first rows over a local start",
                round(lone / local, 2),
                "×",
                at_most=GOAL_LONE_RATIO,
            ),
            figure("a lone session, connect to first rows", round(lone, 3), "s"),
            figure("a local start, spawn to first rows", round(local, 3), "s"),
            figure(
                f"{n} and the zygote after a data change, PSS summed",
                round(total_gb, 2),
                "GB",
                at_most=GOAL_MEMORY_GB,
            ),
            figure(
                "a session, unique memory (USS), median",
                round(memory["session_uss_median"] / mb),
                "MiB",
            ),
            figure("the zygote, PSS", round(memory["zygote_pss"] / mb), "MiB"),
            figure("the server (its refresher), PSS", round(memory["server_pss"] / mb), "MiB"),
            figure(
                f"CPU of a data change, {n} over one",
                round(cpu_ratio, 2) if cpu_ratio is not None else None,
                "×",
                at_most=GOAL_CPU_RATIO,
            ),
            figure(f"CPU of a data change, {n}", cpu["sessions"], "s"),
            figure(
                "bytes an idle session's client receives, a minute, max",
                max(run["idle_kb_a_minute"]),
                "KB",
                at_most=GOAL_IDLE_KB,
            ),
        ],
        "sessions": sessions,
        "agents": agents,
        "zygote": zygote,
        "runs": run,
    }


if __name__ == "__main__":
    words = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    result = measure_ssh(
        int(words[0]) if words else 16,
        int(words[1]) if len(words) > 1 else 50_000,
        zygote="--no-zygote" not in sys.argv,
    )
    print(json.dumps(result, indent=2))
