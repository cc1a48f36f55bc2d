"""roost's benchmark: every figure of docs/performance.md comes from here, measured side by side.

    python tests/perf/bench.py               # full sizes (ten minutes or more on 2 cores)
    python tests/perf/bench.py --smoke       # tiny sizes (a `slow` test runs it through pytest)
    python tests/perf/bench.py --only refresh,validation
    python tests/perf/bench.py --write-docs  # a full run, then docs/performance.md from it
    python tests/perf/bench.py --from-json docs/performance.json --write-docs   # the page again

Prints one JSON document. Each section's result carries ``figures`` (tests/perf/figures.py):
what the page shows of it, each with its goal where one stands. Sections:

refresh      bytes and requests of one no-change refresh cycle of the store vs a TTL-style full
             refetch of all five files (what the deployment's own SDK does every 60 s), on the same
             generated network served by the demo sandbox (in-process, so both pay the same
             transport). Bytes are counted on the wire: status line + headers + body, by one
             httpx response hook shared by both clients. Two store cases: the manifest answered
             304 (ETag) and the manifest re-sent (200) with no file changed.
validation   agents.json: validation (msgspec) into roost's models vs `json.loads` alone, best
             of several runs each, at 1k / 10k / 50k agents.
table        first paint and one filter keystroke at 50k rows: roost's VirtualTable vs the stock
             Textual DataTable (tests/perf/bench_table.py).
cold_start   start from the disk cache to a painted Agents screen (all rows) vs a bare one-widget
             Textual app: fresh processes (what a person waits for) and, to isolate roost's own
             work, both apps inside one warm interpreter (tests/perf/bench_app.py).
refresh_stall
             the longest the UI's event loop is held up while a refresh that changed one agent
             of 50k is validated and shown: roost's entry-by-entry validation vs validating the
             whole agents.json (tests/perf/bench_stall.py).
store_paths  the store's first refresh (no previous copy), steady refresh and load_cache beside
             `json.loads` of the same bytes, at 1k / 10k / 50k agents (tests/perf/bench_paths.py).
cli          `roost state --json` and `roost state` as fresh processes, with and without
             PYTHONUNBUFFERED=1, beside a process doing json.load + json.dumps of the same data.
memory       peak traced memory and peak RSS of `roost state` at 50k agents beside a process that
             only json.loads the same agents.json, and of `roost state --json` beside its floor
             (GET, json.loads and one json.dumps of the five files: tests/perf/cli_floor.py).
keys         keystroke latency: the real app at 50k agents from its first paint, a scripted session
             typed with no settling pause, p50/p95/max per key; quit beside a bare app's
             (tests/perf/bench_keys.py), in the process and, as a person waits for it, from
             the key written to a pseudo-terminal until the process has exited
             (``keys.quit_process``, tests/perf/bench_quit.py).
eggs         verifying a 64 MB egg (every check, with its boot record) vs one sha256 pass over the
             same bytes, in memory and from a file, beside the passes alone; peak traced memory
             vs the largest entry (tests/perf/bench_eggs.py).
inspector    opening the egg inspector on a 64 MB egg with 5 000 entries: from the push to the
             painted report, headless at 80x24 (tests/perf/bench_inspector.py).
thread       a thread of 2 000 comments from the published discussions cache: enter on its post
             to the first frame showing it, and the next frame after each ``j`` of a held key
             (tests/perf/bench_thread.py).
posts        the Posts tab and its log in a 50 000-agent demo world (100 000 posts, 250 000
             comment entries, a 78 MB posted_log.json): first visit and each key of a filter
             and sorts, next frame and settled, beside the same keys on Agents in the same app;
             a no-change refresh of the log (no request when the manifest lists it, one 304
             when not); its parse beside json.loads of the same bytes; what the parsed log
             holds beside what json.loads' document holds (tests/perf/bench_posts.py).
pulse        the inbox and Activity in a 50 000-agent demo world (200 000 notifications, 150 000
             change entries): `i` to the inbox's rows from a warm store beside `?` to the help
             screen, and the first open of an agent never asked for; Activity's first visit
             and its filter keys, next frame and settled, beside the same keys on Agents; a
             no-change refresh wanting every pulse file (the manifest's 304 and one 304 per file
             it does not list) beside one wanting none (tests/perf/bench_pulse.py).
ssh_idle     what one idle session sends its SSH client: the demo dashboard on a pseudo-terminal at
             80x24, nothing typed for a minute (one refresh falls in it), every byte it writes
             counted (tests/perf/bench_idle.py).
ssh          a team on one server: `roost serve-ssh` on a 50 000-agent sandbox and ``--ssh N``
             asyncssh sessions (16 by default): N started together to their first rows (median,
             max), a lone session beside a local start, what an idle session's client receives,
             the CPU a data change costs N sessions over one, and the memory (PSS summed) of the
             sessions and their zygote after it (tests/perf/bench_ssh.py).
machinery    what the speed machinery (tui/ui/speed) buys: cold start, next frame and settled frame
             of the key session, quit and `roost state --json` with everything on, with
             ROOST_PLAIN=1 (plain Textual) and with each piece off alone, at 20 000 agents, two
             rounds (tests/perf/bench_machinery.py; five to fifteen minutes on a busy 2-core
             machine); the page shows it as "What the machinery buys". ``--plain`` runs this
             section alone, ``--plain-variants gc,preload`` only those pieces' variants.
export       50 000 Agents rows as shown written to CSV by roost's export (formula cells
             neutralised, control characters cleaned) beside csv.writer over the same cells, and
             to JSON Lines (tests/perf/bench_export.py).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
PERF = Path(__file__).resolve().parent
if str(PERF) not in sys.path:
    sys.path.insert(0, str(PERF))

import figures  # noqa: E402
from bench_paths import best_of  # noqa: E402
from figures import figure  # noqa: E402

from tui.network.models import STATE_FILES, parse_state  # noqa: E402
from tui.network.store import Store, StoreOptions, state_base_url  # noqa: E402
from tui.sandbox.app import create_app  # noqa: E402
from tui.sandbox.generator import generate_state, serialize  # noqa: E402
from tui.ui.speed import gc_policy  # noqa: E402

BASE = "http://bench.invalid"
#: Rounds of the script the posts and pulse sections type on each tab: a p95 of 160 presses
#: a tab rests on its 8 slowest (5 rounds: on 4, and one slow press moved the ratio by 10%).
ROUNDS = 10

SECTIONS = (
    "refresh",
    "validation",
    "store_paths",
    "cli",
    "memory",
    "table",
    "cold_start",
    "refresh_stall",
    "keys",
    "eggs",
    "inspector",
    "thread",
    "posts",
    "pulse",
    "export",
    "ssh_idle",
    "ssh",
    "machinery",
)


# --------------------------------------------------------------------------- refresh


class WireCounter(httpx.AsyncBaseTransport):
    """A transport wrapper counting requests and bytes on the wire (status line + headers +
    body as it streams past), so the store and the TTL client are measured the same way; and
    the same per file (the last part of the URL's path): ``files[name]``."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.requests = 0
        self.bytes = 0
        self.files: dict[str, dict[str, Any]] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        name = request.url.path.rsplit("/", 1)[-1]
        file = self.files.setdefault(
            name, {"requests": 0, "statuses": [], "wire_bytes": 0, "body_bytes": 0}
        )
        self.requests += 1
        file["requests"] += 1
        file["statuses"].append(response.status_code)
        head = len(f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n")
        head += sum(len(k) + len(v) + 4 for k, v in response.headers.raw) + 2
        self.bytes += head
        file["wire_bytes"] += head
        inner_stream = response.stream
        counter = self

        class CountingStream(httpx.AsyncByteStream):
            async def __aiter__(self):
                async for chunk in inner_stream:
                    counter.bytes += len(chunk)
                    file["wire_bytes"] += len(chunk)
                    file["body_bytes"] += len(chunk)
                    yield chunk

            async def aclose(self) -> None:
                await inner_stream.aclose()

        response.stream = CountingStream()
        return response

    def reset(self) -> None:
        self.requests = 0
        self.bytes = 0
        self.files = {}


def _client(app) -> tuple[httpx.AsyncClient, WireCounter]:
    counter = WireCounter(httpx.ASGITransport(app=app))
    return httpx.AsyncClient(transport=counter, base_url=BASE), counter


async def bench_refresh(agents: int) -> dict[str, Any]:
    app = create_app(agents=agents)
    client, counter = _client(app)
    store = Store(BASE, client=client, options=StoreOptions(retry_delay_s=0))
    first = await store.refresh()
    assert first.ok, first.problems
    sizes = {name: store.snapshot.file(name).size for name in STATE_FILES}

    # Case A: nothing changed, the manifest answers 304 to If-None-Match.
    counter.reset()
    report = await store.refresh()
    no_change = {
        "requests": counter.requests,
        "wire_bytes": counter.bytes,
        "body_bytes": report.bytes_downloaded,
        "manifest": report.manifest,
        "fetched": report.fetched,
    }

    # Case B: the manifest is re-sent in full (e.g. a CDN without ETag support, or a manifest
    # rewritten with a new generated_at), but no state file changed.
    store._manifest_validators = (None, None)  # forget the manifest's ETag only
    counter.reset()
    report = await store.refresh()
    manifest_resent = {
        "requests": counter.requests,
        "wire_bytes": counter.bytes,
        "body_bytes": report.bytes_downloaded,
        "manifest": report.manifest,
        "fetched": report.fetched,
    }

    # TTL-style: GET all five files every cycle, unconditionally.
    ttl_client, ttl_counter = _client(app)
    base = state_base_url(BASE)
    for name in STATE_FILES:
        response = await ttl_client.get(base + name)
        response.raise_for_status()
    ttl = {"requests": ttl_counter.requests, "wire_bytes": ttl_counter.bytes}
    await client.aclose()
    await ttl_client.aclose()
    bytes_304 = round(ttl["wire_bytes"] / max(1, no_change["wire_bytes"]), 1)
    bytes_resent = round(ttl["wire_bytes"] / max(1, manifest_resent["wire_bytes"]), 1)
    return {
        "figures": [
            figure(f"requests of a no-change cycle, {agents:,} agents", no_change["requests"], ""),
            figure("TTL refetch's bytes over a no-change cycle's (manifest 304)", bytes_304, "×"),
            figure(
                "TTL refetch's bytes over a no-change cycle's (manifest re-sent)", bytes_resent, "×"
            ),
        ],
        "agents": agents,
        "file_sizes": sizes,
        "store_no_change_304": no_change,
        "store_manifest_resent": manifest_resent,
        "ttl_full_refetch": ttl,
        "bytes_ratio_304": bytes_304,
        "bytes_ratio_manifest_resent": bytes_resent,
    }


# --------------------------------------------------------------------------- validation


def _validate(data: bytes) -> object:
    """agents.json validated as the store validates it: in the memory policy connect() gives
    it (tui/ui/speed/gc_policy.py)."""
    with gc_policy.building(len(data)):
        return parse_state("agents.json", data)


def _without_gc(fn, *args):
    gc.disable()
    try:
        return fn(*args)
    finally:
        gc.enable()


def bench_validation(sizes: list[int], runs: int) -> dict[str, Any]:
    rows = []
    for n in sizes:
        data = serialize(generate_state(agents=n)["agents.json"])
        # interleave the two so machine noise hits both alike
        loads = best_of(lambda data=data: json.loads(data), runs)
        validate = best_of(lambda data=data: _validate(data), runs)
        loads = min(loads, best_of(lambda data=data: json.loads(data), runs))
        loads_no_gc = best_of(lambda data=data: _without_gc(json.loads, data), runs)
        rows.append(
            {
                "agents": n,
                "bytes": len(data),
                "json_loads_s": round(loads, 4),
                "validate_s": round(validate, 4),
                "ratio": round(validate / loads, 2),
                # for transparency: roost pauses the cyclic GC while validating big files; this is
                # the ratio against json.loads given the same favour
                "json_loads_gc_paused_s": round(loads_no_gc, 4),
                "ratio_vs_gc_paused_loads": round(validate / loads_no_gc, 2),
            }
        )
    shown = [
        figure(f"validation over json.loads, {row['agents']:,} agents", row["ratio"], "×")
        for row in rows
    ]
    return {"figures": shown, "runs": runs, "results": rows}


# --------------------------------------------------------------------------- main


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    only = set(args.only.split(",")) if args.only else set(SECTIONS)
    smoke = args.smoke
    out: dict[str, Any] = {"smoke": smoke, "python": sys.version.split()[0]}
    if "refresh" in only:
        out["refresh"] = await bench_refresh(200 if smoke else args.real_agents)
    if "validation" in only:
        sizes = [200, 1000] if smoke else [1000, 10_000, 50_000]
        out["validation"] = bench_validation(sizes, runs=2 if smoke else 5)
    if "store_paths" in only:
        from bench_paths import measure_store_paths

        sizes = [200, 1000] if smoke else [1000, 10_000, 50_000]
        out["store_paths"] = await asyncio.to_thread(measure_store_paths, sizes, 2 if smoke else 5)
    if "cli" in only:
        from bench_paths import measure_cli

        out["cli"] = await asyncio.to_thread(
            measure_cli, 2000 if smoke else 50_000, 1 if smoke else 3
        )
    if "memory" in only:
        from bench_paths import measure_memory

        out["memory"] = await asyncio.to_thread(measure_memory, 2000 if smoke else 50_000)
    if "table" in only:
        from bench_table import measure_tables

        out["table"] = await measure_tables(2000 if smoke else 50_000)
    if "refresh_stall" in only:
        from bench_stall import measure_refresh_stall

        out["refresh_stall"] = await measure_refresh_stall(
            2000 if smoke else 50_000, rounds=1 if smoke else 3
        )
    if "keys" in only:
        import tempfile

        from bench_keys import measure_keys
        from bench_quit import measure_process_quit

        agents = 2000 if smoke else 50_000
        with tempfile.TemporaryDirectory() as tmp:
            # 9 quit rounds: the bare app's quit takes two or three of the pilot's 20 ms idle
            # steps from one round to the next, so a median of 5 moved with a single round
            out["keys"] = await measure_keys(agents, Path(tmp), quit_rounds=1 if smoke else 9)
        with tempfile.TemporaryDirectory() as tmp:
            out["keys"]["quit_process"] = await asyncio.to_thread(
                measure_process_quit, Path(tmp), agents, rounds=1 if smoke else 5
            )
        out["keys"]["figures"] += out["keys"]["quit_process"]["figures"]
    if "eggs" in only:
        from bench_eggs import measure_eggs

        sizes = [200_000] if smoke else [64 * 1024 * 1024]
        out["eggs"] = await asyncio.to_thread(measure_eggs, sizes, 1 if smoke else 5)
    if "inspector" in only:
        from bench_inspector import measure_inspector

        size, entries = ((1 << 20), 200) if smoke else ((64 << 20), 5000)
        out["inspector"] = await measure_inspector(size, entries, 1 if smoke else 3)
    if "thread" in only:
        from bench_thread import measure_thread

        out["thread"] = await measure_thread(200 if smoke else 2000, 1 if smoke else 5)
    if "posts" in only:
        from bench_posts import measure_posts

        out["posts"] = await measure_posts(
            2000 if smoke else 50_000,
            rounds=1 if smoke else ROUNDS,
            runs=2 if smoke else 5,
            aligned=not smoke,  # its waits (a second a key) would double the smoke run's time
        )
    if "pulse" in only:
        from bench_pulse import measure_pulse

        out["pulse"] = await measure_pulse(
            2000 if smoke else 50_000,
            rounds=1 if smoke else ROUNDS,
            runs=2 if smoke else 5,
            aligned=not smoke,
        )
    if "export" in only:
        from bench_export import measure_export

        out["export"] = measure_export(2000 if smoke else 50_000, 2 if smoke else 7)
    if "ssh_idle" in only:
        from bench_idle import measure_idle_output

        out["ssh_idle"] = await asyncio.to_thread(measure_idle_output, 10.0 if smoke else 60.0)
    if "ssh" in only:
        from bench_ssh import measure_ssh

        out["ssh"] = await asyncio.to_thread(
            measure_ssh,
            args.ssh,
            2000 if smoke else 50_000,
            rounds=1 if smoke else 3,
            idle_s=10.0 if smoke else 60.0,
        )
    if "machinery" in only:
        from bench_machinery import measure_machinery

        out["machinery"] = await measure_machinery(
            2000 if smoke else 20_000,
            rounds=1 if smoke else args.plain_rounds,
            pieces=args.plain_variants.split(",") if args.plain_variants else None,
        )
    if "cold_start" in only:
        import tempfile

        from bench_app import measure_cold_start, measure_process_cold_start

        agents = 2000 if smoke else 50_000
        repeats = 1 if smoke else 3
        with tempfile.TemporaryDirectory() as tmp:
            out["cold_start"] = {
                "process": await asyncio.to_thread(
                    # 15 rounds: on this machine a round's roost, bare and data-load times
                    # each move by a third from one round to the next, and the median of 7
                    # such rounds moved by 0.35 between full runs of the same code
                    measure_process_cold_start,
                    Path(tmp),
                    agents,
                    repeats=1 if smoke else 15,
                ),
                "in_process": await measure_cold_start(Path(tmp), agents, repeats=repeats),
            }
            out["cold_start"]["figures"] = out["cold_start"]["process"]["figures"]
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: checks the bench runs")
    parser.add_argument(
        "--only",
        help="comma list of sections: " + ",".join(SECTIONS),
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="the machinery section alone (--only machinery): every figure with ROOST_PLAIN",
    )
    parser.add_argument(
        "--plain-rounds", type=int, default=2, help="rounds of the machinery section (default 2)"
    )
    parser.add_argument(
        "--plain-variants",
        metavar="PIECES",
        help="the machinery section with these pieces' variants only (and everything on, plain)",
    )
    parser.add_argument(
        "--page",
        metavar="FILE",
        help="with --from-json or after a run: write the page to FILE instead of docs/ (a check)",
    )
    parser.add_argument(
        "--real-agents",
        type=int,
        default=1300,
        help="agents for the refresh case (1300 ≈ a 1.2 MB agents.json)",
    )
    parser.add_argument(
        "--ssh",
        type=int,
        default=None,
        metavar="N",
        help="sessions started together in the ssh section (16; 3 with --smoke)",
    )
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help=f"write {figures.DOCS.relative_to(ROOT)} (and the run beside it, as JSON) from this"
        " run: a full run only",
    )
    parser.add_argument(
        "--from-json", metavar="FILE", help="measure nothing: read the result of an earlier run"
    )
    args = parser.parse_args(argv)
    if args.plain:
        args.only = "machinery"
    if args.from_json:
        result = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
    else:
        if args.write_docs and (args.smoke or args.only):
            parser.error("--write-docs needs a full run: no --smoke, no --only")
        if args.ssh is None:
            args.ssh = 3 if args.smoke else 16
        result = asyncio.run(main_async(args))
        result["finished_utc"] = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        figures.stamp(result)
        print(json.dumps(result, indent=2))
    if args.page:
        page = figures.write(result, SECTIONS, Path(args.page))
        print(f"bench: wrote {page}", file=sys.stderr)
    if args.write_docs:
        missing = [s for s in SECTIONS if "figures" not in result.get(s, {})]
        if result.get("smoke") or missing:
            parser.error(f"not a full run: smoke={result.get('smoke')}, missing {missing}")
        path = figures.write(result, SECTIONS)
        print(f"bench: wrote {path.relative_to(ROOT)}", file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
