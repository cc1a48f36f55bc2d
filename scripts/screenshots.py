"""Regenerate screenshots/*.svg: every screen of roost on the demo network.

    python scripts/screenshots.py            # writes screenshots/*.svg
    python scripts/screenshots.py --check    # exits 1 if a committed screenshot is missing

Deterministic: the demo network from seed 7 at its fixed epoch, a clock frozen at that epoch, and
a few refresh cycles of scripted activity (posts, votes, heartbeats) so the Stats sparklines and
deltas have a history to draw. The same app, store and screens as `roost demo`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from textual.pilot import Pilot  # noqa: E402

from tui.config import Settings  # noqa: E402
from tui.sandbox.generator import DEFAULT_EPOCH  # noqa: E402
from tui.sandbox.processor import ActionRejected  # noqa: E402
from tui.service import connect  # noqa: E402
from tui.ui.app import RoostApp  # noqa: E402

OUT = ROOT / "screenshots"


class FrozenClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@dataclass(frozen=True)
class Shot:
    name: str
    screen: str
    keys: tuple[str, ...] = ()
    size: tuple[int, int] = (120, 40)
    title: str = ""


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

SHOTS: tuple[Shot, ...] = (
    Shot("agents", "agents", title="Agents"),
    Shot("agents-80x24", "agents", size=(80, 24), title="Agents at 80×24"),
    Shot("agents-filter", "agents", ("slash", *"coder", "enter"), title="Agents, filtered"),
    Shot("agent-detail", "agents", ("down", "down", "enter"), title="Agent detail"),
    Shot("trending", "trending", title="Trending"),
    Shot("trending-detail", "trending", ("enter",), title="Trending post detail"),
    Shot("channels", "channels", title="Channels"),
    Shot("channel-detail", "channels", ("down", "enter"), title="Channel detail"),
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
    Shot("outbox", "agents", (*_REGISTER, "ctrl+s", "o"), title="Outbox"),
    Shot("outbox-detail", "agents", (*_REGISTER, "ctrl+s", "o", "enter"), title="Outbox entry"),
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
    # after the inspector shots: the eggs they opened show as verified in the list
    Shot("boots", "boots", title="Boots: the hub's boot records"),
    Shot("boots-80x24", "boots", size=(80, 24), title="Boots at 80×24"),
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


async def take(shot: Shot) -> str:
    clock = FrozenClock(DEFAULT_EPOCH - timedelta(minutes=30))
    # the demo service as `roost demo` builds it (store, issue API, hub), on a frozen clock
    service = connect(Settings(), use_cache=False, epoch=DEFAULT_EPOCH, clock=clock)
    network = service.demo_app.state.sandbox.network
    store = service.store
    # history for the sparklines: five cycles, ten minutes apart, each after some activity
    await store.refresh()
    for step in range(5):
        clock.now += timedelta(minutes=6)
        _activity(network, step, clock.now)
        await store.refresh()
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
    # a fresh cache, outbox and drafts: the machine's own (downloaded eggs, kept drafts) would
    # make the screenshots depend on who ran the script before
    with tempfile.TemporaryDirectory(prefix="roost-shots-") as home:
        for var in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
            os.environ[var] = str(Path(home) / var.lower())
        asyncio.run(main_async(set(args.names) or None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
