"""Regenerate screenshots/*.svg: every screen of roost on the demo network.

    python scripts/screenshots.py            # writes screenshots/*.svg
    python scripts/screenshots.py --check    # exits 1 if a committed screenshot is missing

Deterministic: the demo network from seed 7 at its fixed epoch, a clock frozen at that epoch, and
a few refresh cycles of scripted activity (posts, votes, heartbeats) so the Stats sparklines and
deltas have a history to draw. The same app, store and screens as `roost demo`. What would differ
from run to run is pinned: the random ids and nonces roost makes (``secrets.token_hex``, seeded
per shot) and the outbox's clock (the frozen one). The outbox shots post their actions through
roost's outbox and issue client to the demo network, whose processor and fault knobs give each
entry its outcome.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from textual.pilot import Pilot  # noqa: E402

from tui.actions import outbox as outbox_module  # noqa: E402
from tui.actions.connection import write_side  # noqa: E402
from tui.actions.tracking import follow_queued  # noqa: E402
from tui.config import Settings  # noqa: E402
from tui.sandbox.generator import DEFAULT_EPOCH  # noqa: E402
from tui.sandbox.github_shapes import DEMO_LOGIN  # noqa: E402
from tui.sandbox.hub import hub_state  # noqa: E402
from tui.sandbox.processor import ActionRejected  # noqa: E402
from tui.service import Service, connect  # noqa: E402
from tui.ui.app import RoostApp  # noqa: E402

OUT = ROOT / "screenshots"


class FrozenClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


Prepare = Callable[[Service, FrozenClock], Awaitable[None]]


@dataclass(frozen=True)
class Shot:
    name: str
    screen: str
    keys: tuple[str, ...] = ()
    size: tuple[int, int] = (120, 40)
    title: str = ""
    #: Done to the demo network (through roost's own APIs) before the app starts.
    prepare: Prepare | None = None
    #: The agent roost is set to (its inbox, in the status bar).
    agent: str | None = None
    #: The theme (one of Textual's, by name), as ``theme = "…"`` in the config sets it.
    theme: str | None = None


# n, pick register_agent, fill its three required fields
_REGISTER: tuple[str, ...] = (
    "n",
    *"register_agent",
    "enter",
    *"Night Owl",
    "tab",
    *"roost",
    "tab",
    *"Reads the feed at night and posts field notes.",
)


async def _tamper_one_egg(service: Service, clock: FrozenClock) -> None:
    """The demo hub serves one record's egg with a byte changed (its checks then fail)."""
    hub_state(service.demo_app).faults.tampered.add(TAMPERED)


#: The record whose egg the demo hub serves altered.
TAMPERED = "night-shift-newsroom"
#: In the Boots tab, enter on three rows (each egg is downloaded, checked and opened in the
#: inspector; escape comes back): a verified egg, the altered one (third row), and a store's
#: pre-RAPP/1 egg (twelfth row), which is legacy.
_EGGS_JUDGED: tuple[str, ...] = (
    *("enter", "escape"),
    *("j", "j", "enter", "escape"),
    *(*("j",) * 9, "enter", "escape"),
)


async def _outbox_in_every_state(service: Service, clock: FrozenClock) -> None:
    """Post actions through roost's outbox and issue client to the demo network, its
    processor (both generations) and fault knobs giving each one outcome: the outbox then holds
    an entry in every state a sent action can be in, oldest first."""
    sandbox = service.demo_app.state.sandbox
    faults = sandbox.faults

    async def no_wait(seconds: float) -> None:
        return None

    write = write_side(service, clock=lambda: clock.now.timestamp(), sleep=no_wait)
    outbox, client = write.outbox, write.client
    network = sandbox.network
    agents = list(network.doc("agents.json")["agents"])
    proposal = (network.doc("seeds.json").get("proposals") or [{}])[0].get("id", "prop-0")

    async def post(action: str, payload: dict[str, Any]) -> str:
        clock.now += timedelta(minutes=2)
        entry = outbox.draft(action, payload)
        await outbox.send(entry.id, client)
        return entry.id

    async def follow() -> None:
        await follow_queued(
            outbox, client, now=clock.now.timestamp() + 86_400, docs=write.docs,
            processor=write.processor,
        )  # fmt: skip

    try:
        await write.docs.refresh()
        # applied (the newer processor: queued, then its inbox applied it)
        await post("heartbeat", {"status_message": "Back from a week of reading the archive"})
        await follow()
        # rejected, with the processor's reason
        await post("follow_agent", {"target_agent": "night-owl-404"})
        await follow()
        # failed: the platform refused the request (a token without the scope)
        faults.update({"write_status": 403, "write_variant": "scope"})
        await post("poke", {"target_agent": agents[4], "message": "Your digest is due"})
        # unknown: roost was stopped while the platform held the request
        faults.update({"write_latency": 30})
        clock.now += timedelta(minutes=2)
        entry = outbox.draft("follow_agent", {"target_agent": agents[7]})
        issues = len(sandbox.issues)
        sending = asyncio.ensure_future(outbox.send(entry.id, client))
        while len(sandbox.issues) == issues:  # created; its answer is held back
            await asyncio.sleep(0.01)
        sending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sending
        faults.update({"write_latency": 0})
        # accepted: the classic processor's verdict (a poke leaves nothing in the state)
        sandbox.processor = "classic"
        await post("poke", {"target_agent": agents[2], "message": "Welcome back"})
        await follow()
        sandbox.processor = "newer"
        # received: the newer processor queued it; its inbox has not run yet
        faults.update({"inbox_delay": 600})
        await post("vote_seed", {"proposal_id": proposal})
        await follow()
        # queued: the platform holds the issue; no processor has answered yet
        faults.update({"process_delay": 600})
        await post("create_post", {"channel": "general", "title": "Night notes", "body": "…"})
        await follow()
    finally:
        await write.aclose()


SHOTS: tuple[Shot, ...] = (
    Shot("agents", "agents", title="Agents"),
    Shot("agents-80x24", "agents", size=(80, 24), title="Agents at 80×24"),
    Shot("agents-filter", "agents", ("slash", *"coder", "enter"), title="Agents, filtered"),
    Shot("agent-detail", "agents", ("down", "down", "enter"), title="Agent detail"),
    Shot("trending", "trending", title="Trending"),
    Shot("trending-detail", "trending", ("enter",), title="Trending post detail"),
    Shot("channels", "channels", title="Channels"),
    Shot("channel-detail", "channels", ("down", "enter"), title="Channel detail"),
    Shot("posts", "posts", title="Posts: every post, newest first"),
    Shot("posts-80x24", "posts", size=(80, 24), title="Posts at 80×24"),
    # the busiest thread (sorted by comments): read from the demo's GitHub, with its replies
    Shot("thread", "posts", ("s", "m", "g", "enter", "j", "j"), title="A post's thread"),
    Shot(
        "thread-80x24",
        "posts",
        ("s", "m", "g", "enter", "j"),
        size=(80, 24),
        title="A thread at 80×24",
    ),
    # the demo's own agent: poked, followed and mentioned by the demo's world
    Shot("inbox", "agents", ("i",), title="Inbox", agent=DEMO_LOGIN),
    Shot("inbox-80x24", "agents", ("i",), (80, 24), "Inbox at 80×24", agent=DEMO_LOGIN),
    Shot("activity", "activity", title="Activity: the change log"),
    Shot(
        "profile-80x24",
        "agents",
        ("down", "down", "enter", "ctrl+d"),
        size=(80, 24),
        title="An agent's profile at 80×24",
    ),
    Shot("theme-nord", "trending", ("enter",), title="Trending in the nord theme", theme="nord"),
    Shot(
        "theme-light-80x24",
        "agents",
        size=(80, 24),
        title="Agents at 80×24 in textual-light",
        theme="textual-light",
    ),
    Shot("stats", "stats", title="Stats"),
    Shot("stats-counter", "stats", ("down", "down", "down", "enter"), title="Stats, one counter"),
    Shot("seeds", "seeds", title="Seeds: the active seed"),
    Shot("seeds-proposals", "seeds", ("bracketright",), title="Seeds: proposals"),
    Shot("help", "agents", ("question_mark",), title="Help"),
    Shot("sort-picker", "agents", ("s",), size=(80, 24), title="The sort picker"),
    Shot("token", "agents", ("T",), size=(80, 24), title="A token for this session"),
    Shot("palette", "agents", ("ctrl+p", *"zion-coder"), title="Command palette"),
    Shot("action-picker", "agents", ("down", "n"), title="New action: the picker, on an agent"),
    Shot("action-form", "agents", (*_REGISTER, "ctrl+t"), size=(80, 24), title="Register form"),
    Shot("action-form-wide", "agents", _REGISTER, title="Register form, preview beside it"),
    Shot(
        "action-form-invalid",
        "channels",
        (
            *("n", *"create_channel", "enter", *"Night Owls!", "tab", "tab"),
            *"Where the night shift compares notes",
            "ctrl+s",
        ),
        title="A form that says what to fix",
    ),
    Shot("outbox", "agents", ("o",), title="Outbox", prepare=_outbox_in_every_state),
    Shot(
        "outbox-detail",
        "agents",
        ("o", *("j",) * 5, "enter"),
        title="Outbox: a rejected entry",
        prepare=_outbox_in_every_state,
    ),
    Shot("inspector", "boots", ("down", "down", "enter"), title="Egg inspector: the report"),
    Shot(
        "inspector-80x24", "boots", ("down", "down", "enter"), size=(80, 24), title="Egg inspector"
    ),
    Shot("inspector-files", "boots", ("enter", "tab", "tab"), title="Egg inspector: files"),
    Shot(
        "inspector-viewer",
        "boots",
        ("enter", "tab", "tab", "down", "down", "down", "down", "down", "down", "enter"),
        title="Egg inspector: a file",
    ),
    Shot("inspector-hatch", "boots", ("enter", "shift+tab"), title="Egg inspector: hatching"),
    Shot(
        "boots",
        "boots",
        _EGGS_JUDGED,
        title="Boots: a verified, a failed and a legacy egg",
        prepare=_tamper_one_egg,
    ),
    Shot(
        "boots-80x24",
        "boots",
        (*_EGGS_JUDGED, "g"),
        (80, 24),
        "Boots at 80×24",
        _tamper_one_egg,
    ),
)


def _activity(network, step: int, when: datetime) -> None:
    """A little life on the network between refreshes (all through the real processor)."""
    agents = list(network.doc("agents.json")["agents"])
    channels = [c for c in network.doc("channels.json")["channels"]]
    proposals = network.doc("seeds.json").get("proposals") or []
    actor = agents[(step * 7) % len(agents)]
    network.apply("heartbeat", {}, actor, when)
    network.apply(
        "create_post",
        {
            "channel": channels[step % len(channels)],
            "title": f"Field notes, day {step + 1}",
            "body": "…",
        },
        actor,
        when,
    )
    if proposals:
        voter = agents[(step * 11 + 3) % len(agents)]
        proposal = proposals[step % len(proposals)]["id"]
        with contextlib.suppress(ActionRejected):  # already voted: activity is decoration
            network.apply("vote_seed", {"proposal_id": proposal}, voter, when)


@contextlib.contextmanager
def _pinned(shot: Shot, clock: FrozenClock) -> Iterator[None]:
    """What would change from run to run, pinned for one shot: the random hex of ids and
    nonces (seeded by the shot's name) and the outbox's clock (the frozen one)."""
    rng = random.Random(shot.name)

    def token_hex(nbytes: int = 32) -> str:
        return rng.getrandbits(8 * nbytes).to_bytes(nbytes, "big").hex()

    with (
        mock.patch("secrets.token_hex", token_hex),
        mock.patch.object(outbox_module, "utc_now", clock),
    ):
        yield


async def take(shot: Shot) -> str:
    clock = FrozenClock(DEFAULT_EPOCH - timedelta(minutes=30))
    with _pinned(shot, clock):
        return await _take(shot, clock)


async def _take(shot: Shot, clock: FrozenClock) -> str:
    # the demo service as `roost demo` builds it (store, issue API, hub), on a frozen clock
    service = connect(
        Settings(agent=shot.agent, theme=shot.theme),
        use_cache=False,
        epoch=DEFAULT_EPOCH,
        clock=clock,
    )
    service.demo_app.state.sandbox.clock = clock  # issues and comments stamped on it too
    network = service.demo_app.state.sandbox.network
    store = service.store
    # history for the sparklines: five cycles, ten minutes apart, each after some activity
    await store.refresh()
    for step in range(5):
        clock.now += timedelta(minutes=6)
        _activity(network, step, clock.now)
        await store.refresh()
    if shot.prepare is not None:
        clock.now = DEFAULT_EPOCH - timedelta(minutes=20)
        await shot.prepare(service, clock)
    clock.now = DEFAULT_EPOCH
    app = RoostApp(service, clock=clock, initial_screen=shot.screen, poll=False)
    async with app.run_test(size=shot.size) as pilot:
        await _settle(pilot)
        for key in shot.keys:
            await pilot.press(key)
            await _settle(pilot)
        _no_blink(app)
        await _settle(pilot)
        svg = app.export_screenshot(title=f"roost — {shot.title or shot.name}")
    return svg


async def _settle(pilot: Pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.05)


def _no_blink(app: RoostApp) -> None:
    from textual.widgets import Input

    for screen in app.screen_stack:
        for field in screen.query(Input):
            field.cursor_blink = False


async def main_async(names: set[str] | None) -> list[Path]:
    OUT.mkdir(exist_ok=True)
    written = []
    for shot in SHOTS:
        if names and shot.name not in names:
            continue
        # a fresh cache, outbox, drafts and demo world per shot: the machine's own (downloaded
        # eggs, kept drafts) or another shot's would make a shot depend on what ran before
        with tempfile.TemporaryDirectory(prefix="roost-shots-") as home:
            for var in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
                os.environ[var] = str(Path(home) / var.lower())
            svg = await take(shot)
        path = OUT / f"{shot.name}.svg"
        path.write_text(svg, encoding="utf-8")
        written.append(path)
        print(f"wrote {path.relative_to(ROOT)}", flush=True)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="*", help="only these shots (default: all)")
    parser.add_argument("--check", action="store_true", help="only check every shot exists")
    args = parser.parse_args(argv)
    if args.check:
        missing = [s.name for s in SHOTS if not (OUT / f"{s.name}.svg").exists()]
        for name in missing:
            print(f"missing screenshots/{name}.svg", file=sys.stderr)
        return 1 if missing else 0
    asyncio.run(main_async(set(args.names) or None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
