"""The Seeds tab driven by keys in the real app, fed by the demo network through the real store.

Covers the four sections, proposals ranked by votes, the "no proposals" and "no active seed"
deployments, live refresh keeping the user's place, the jump to an agent, and hostile data.
"""

from __future__ import annotations

import asyncio
import copy
import html
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from app_rig import Clock, painted, service_for  # frozen clock; what the terminal shows
from textual import events
from textual.content import Content

from tui.network.models import Proposal
from tui.network.store import Store
from tui.sandbox.app import create_app
from tui.sandbox.generator import DEFAULT_EPOCH
from tui.sandbox.published import DemoNetwork
from tui.sandbox.server import in_process_client
from tui.ui.app import RoostApp
from tui.ui.screens.seeds import SeedsScreen
from tui.ui.screens.seeds.details import score_fraction, sorted_proposals
from tui.ui.screens.seeds.views import DetailList

BASE = "http://sandbox.invalid"
SIZE = (80, 24)


class RecordingApp(RoostApp):
    """The real app; also records the jumps it is asked for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.jumps: list[tuple[str, str | None]] = []
        self.notes: list[str] = []

    def jump_to(self, tab_id: str, key: str | None = None) -> None:
        self.jumps.append((tab_id, key))
        super().jump_to(tab_id, key)

    def notify(self, message: str, *args: Any, **kwargs: Any) -> None:
        self.notes.append(message)
        super().notify(message, *args, **kwargs)


@dataclass
class Rig:
    app: RecordingApp
    network: DemoNetwork
    store: Store
    clock: Clock

    def seeds(self) -> dict[str, Any]:
        return self.network.doc("seeds.json")

    async def publish(self, pilot, seeds: dict[str, Any], *, minutes: int = 10) -> None:
        self.clock.now += timedelta(minutes=minutes)
        self.network.replace_doc("seeds.json", seeds, self.clock.now)
        await self.store.refresh()
        await pilot.pause()

    @property
    def view(self) -> SeedsScreen:
        screen = self.app.screen
        assert isinstance(screen, SeedsScreen)
        return screen


def demo_seeds() -> dict[str, Any]:
    return DemoNetwork.generate(seed=7, agents=300).doc("seeds.json")


def make_rig(seeds: dict[str, Any] | None = None) -> Rig:
    sandbox = create_app(seed=7, agents=300, epoch=DEFAULT_EPOCH)
    network: DemoNetwork = sandbox.state.sandbox.network
    if seeds is not None:
        network.replace_doc("seeds.json", seeds, DEFAULT_EPOCH)
    clock = Clock()
    store = Store(BASE, client=in_process_client(sandbox, BASE), clock=clock)
    app = RecordingApp(service_for(store), clock=clock, initial_screen="seeds", poll=False)
    return Rig(app, network, store, clock)


async def loaded(rig: Rig, pilot) -> None:
    await asyncio.wait_for(rig.app.loaded.wait(), 10)
    await pilot.pause()


def screen_text(app: RoostApp) -> str:
    """What the terminal shows, as text."""
    return "\n".join("".join(chop.text for chop in row) for row in painted(app).strips)


def assert_no_escape_bytes(app: RoostApp) -> None:
    shot = app.export_screenshot()
    text = screen_text(app)
    for byte in ("\x1b", "\x9b", "\x00", "\x07"):
        assert byte not in shot
        assert byte not in text


# --------------------------------------------------------------------------- pure helpers


def test_proposals_rank_by_votes_stably() -> None:
    proposals = [
        Proposal(id="a", vote_count=2),
        Proposal(id="b", vote_count=5),
        Proposal(id="c", votes=("x", "y")),  # no count: the voters listed
        Proposal(id="d", vote_count=5),
    ]
    assert [p.id for p in sorted_proposals(proposals)] == ["b", "d", "a", "c"]


def test_score_fraction_clamps() -> None:
    assert score_fraction(72) == 0.72
    assert score_fraction(250) == 1.0
    assert score_fraction(-3) == 0.0
    assert score_fraction(float("nan")) == 0.0


# --------------------------------------------------------------------------- the screen


async def test_active_seed_at_80x24() -> None:
    seeds = demo_seeds()
    seeds["active"]["convergence"]["agents"] = ["zion-coder-01", "zion-debater-02", "amara-d"]
    rig = make_rig(seeds)
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        assert isinstance(rig.app.screen, SeedsScreen)
        active = seeds["active"]
        text = screen_text(rig.app)
        assert active["id"] in text
        assert "injected 3h ago" in text  # from the frozen clock
        assert "69% \u00b7 not resolved \u00b7 7 signals" in text
        assert "Write a field guide" in text
        assert "zion-debater-02" in text
        assert "Proposals 14" in text and "Queue 3" in text
        assert rig.app.focused is rig.view.active_seed.scroll
        assert rig.app.screen.copy_text() == active["id"]


async def test_keys_walk_the_sections_and_jump_to_an_agent() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        view = rig.view
        agents_table = view.active_seed.agents_table
        await pilot.press("tab")
        assert rig.app.focused is agents_table
        agent = agents_table.cursor_key
        await pilot.press("enter")
        assert rig.app.jumps == [("agents", agent)]
        assert rig.app.screen.TAB_ID == "agents"
        await pilot.press("5")  # back: the Seeds tab is as it was left
        assert isinstance(rig.app.screen, SeedsScreen)
        assert rig.app.focused is agents_table
        rig.app.jumps.clear()

        await pilot.press("right_square_bracket")
        assert view.section == "seeds-proposals"
        proposals = view.list("proposals")
        assert rig.app.focused is proposals.table
        await pilot.press("right_square_bracket")
        assert view.section == "seeds-queue"
        assert rig.app.focused is view.list("queue").table
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert view.section == "seeds-active"
        await pilot.press("left_square_bracket")
        assert view.section == "seeds-history"
        history = view.list("history")
        await pilot.press("down", "enter")
        assert rig.app.focused is history.detail  # enter: into the detail, to scroll it
        await pilot.press("pagedown")
        await pilot.press("escape")
        assert rig.app.focused is history.table
        assert rig.app.screen.copy_text() == rig.seeds()["history"][-2]["id"]  # newest first


async def test_proposals_are_ranked_with_their_voters() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        await pilot.press("right_square_bracket")
        table = rig.view.list("proposals").table
        ranked = sorted(rig.seeds()["proposals"], key=lambda p: -p["vote_count"])
        counts = [int(table.get_row(k).cells[0]) for k in table.visible_keys()]
        assert counts == sorted(counts, reverse=True)
        assert table.visible_keys()[0] == ranked[0]["id"]
        await pilot.press("down")
        second = rig.view.selected_proposal()
        assert second is not None and second.id == table.visible_keys()[1]
        assert rig.app.screen.selected_proposal() == second
        detail = rig.view.list("proposals").detail_text.visual.plain
        assert f"author {second.author}" in detail
        assert f"Voters ({len(second.votes)})" in detail
        assert ", ".join(second.votes[:3]) in detail
        assert rig.app.screen.copy_text() == second.id


async def test_a_deployment_without_proposals_and_without_an_active_seed() -> None:
    seeds = demo_seeds()
    del seeds["proposals"]
    seeds["active"] = None
    rig = make_rig(seeds)
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        text = screen_text(rig.app)
        assert "No active seed" in text
        assert "3 seeds queued" in text
        assert "Active \u2014" in text and "Proposals \u2014" in text
        assert rig.app.screen.copy_text() is None
        await pilot.press("right_square_bracket")
        text = screen_text(rig.app)
        assert "This deployment has no proposals" in text
        assert "Error" not in text
        assert rig.view.selected_proposal() is None
        await pilot.press("down", "enter", "right_square_bracket")  # nothing to select: no crash
        assert rig.view.section == "seeds-queue"
        # the deployment gains proposals and an active seed: shown in place
        fresh = demo_seeds()
        await rig.publish(pilot, fresh)
        assert rig.view.section == "seeds-queue"
        await pilot.press("left_square_bracket")
        assert "Proposals 14" in screen_text(rig.app)
        assert rig.view.list("proposals").table.row_count == 14


async def test_live_update_keeps_section_cursor_and_detail_scroll() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        await pilot.press("right_square_bracket", "down", "down")
        proposals = rig.view.list("proposals")
        chosen = proposals.table.cursor_key
        await pilot.press("enter", "down", "down")  # into the detail, scrolled a little
        scrolled = proposals.detail.scroll_y
        assert scrolled > 0
        seeds = rig.seeds()
        by_id = {p["id"]: p for p in seeds["proposals"]}
        # the chosen proposal gains votes and moves up; another one appears
        by_id[chosen]["votes"] = [*by_id[chosen]["votes"], "new-voter-1"]
        by_id[chosen]["vote_count"] += 1
        seeds["proposals"].append(
            {
                "id": "prop-new",
                "text": "A new idea",
                "author": "amara-d",
                "votes": [],
                "vote_count": 0,
                "tags": [],
                "context": "",
                "proposed_at": "2026-11-01T12:05:00Z",
            }
        )
        await rig.publish(pilot, seeds)
        assert rig.view.section == "seeds-proposals"
        assert proposals.table.cursor_key == chosen
        assert rig.app.focused is proposals.detail
        assert proposals.detail.scroll_y == scrolled
        assert "new-voter-1" in proposals.detail_text.visual.plain
        assert proposals.table.marked == {chosen, "prop-new"}
        # a cycle without seeds.json changes clears the marks only
        rig.clock.now += timedelta(minutes=1)
        await rig.store.refresh()
        await pilot.pause()
        assert proposals.table.marked == frozenset()
        assert proposals.table.cursor_key == chosen


async def test_the_palette_path_selects_a_proposal() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        target = rig.seeds()["proposals"][-1]["id"]
        rig.app.jump_to("seeds", target)
        await pilot.pause()
        assert rig.view.section == "seeds-proposals"
        assert rig.view.list("proposals").table.cursor_key == target


async def test_the_palette_path_finds_a_proposal_the_filter_hides() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        await pilot.press("right_square_bracket", "slash", *"no such text", "enter")
        table = rig.view.list("proposals").table
        assert table.row_count == 0
        target = rig.seeds()["proposals"][-1]["id"]
        rig.app.jump_to("seeds", target)
        await pilot.pause()
        assert table.cursor_key == target
        assert table.filter_query == "" and not rig.view.filter_shown


async def test_real_seeds_file(real_state_dir) -> None:
    seeds = json.loads((real_state_dir / "seeds.json").read_text())
    rig = make_rig(seeds)
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        text = screen_text(rig.app)
        if seeds.get("active"):
            assert seeds["active"]["id"] in text
        if "proposals" not in seeds:
            assert "Proposals \u2014" in text
        assert f"History {len(seeds['history'])}" in text
        await pilot.press("tab", "enter")  # an agent of the active seed
        assert rig.app.jumps[-1][0] == "agents"
        await pilot.press("5")
        for _ in range(4):
            await pilot.press("right_square_bracket", "end", "enter")
        assert_no_escape_bytes(rig.app)
        history = rig.view.list("history")
        assert history.table.row_count == len(seeds["history"])


HOSTILE = [
    "[@click=app.quit]quit[/]",
    "a[/]b",
    "[bold]x[/italic]",
    "[link=https://evil]click[/link]",
    "[OK]",
    "[$accent]theme[/]",
    "clear\x1b[2Jscreen",
    "title\x1b]0;t\x07",
    "csi\x9b31m",
    "nul\x00byte",
    "\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 rtl\u202eevil",
    "e\u0301\u0301\u0301\u0301 combining",
    "\U0001f423\U0001f468\u200d\U0001f469\u200d\U0001f467 emoji",
    "y" * 10_000,
]


def hostile_seeds() -> dict[str, Any]:
    def seed(n: int, text: str) -> dict[str, Any]:
        return {
            "id": text[:40] if n % 2 else f"seed-{n}{text[:20]}",
            "text": text,
            "context": "\n".join(HOSTILE),
            "source": text,
            "tags": HOSTILE[:6],
            "injected_at": "2026-11-01T10:00:00Z" if n % 3 else text,
            "queued_at": text,
            "frames_active": n,
            "convergence": {
                "score": 1e300 if n % 2 else -5,
                "resolved": bool(n % 2),
                "signal_count": n,
                "channels": HOSTILE,
                "agents": HOSTILE,
                "synthesis": text,
                "evaluated_at": text,
            },
            "resolution": {text: text, "agents": HOSTILE, "frames": n},
            text[:30]: text,  # an unknown field with a hostile name
        }

    return {
        "active": seed(0, "\n".join(HOSTILE)),
        "proposals": [
            {
                "id": text[:40],
                "text": text,
                "context": text,
                "author": text,
                "tags": HOSTILE,
                "proposed_at": text,
                "votes": HOSTILE,
                "vote_count": n,
            }
            for n, text in enumerate(HOSTILE)
        ]
        + [{"id": HOSTILE[0][:40], "text": "a duplicated id", "vote_count": 99}],
        "queue": [seed(n, text) for n, text in enumerate(HOSTILE)],
        "history": [seed(n, text) for n, text in enumerate(HOSTILE)],
    }


@pytest.mark.slow
async def test_hostile_seeds_render_literally() -> None:
    seeds = hostile_seeds()
    rig = make_rig(seeds)
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        shot = html.unescape(rig.app.export_screenshot())
        assert "[@click=app.quit]quit[/]" in shot
        assert_no_escape_bytes(rig.app)
        await pilot.press("tab", "end")  # the agents list: hostile ids
        for _ in range(4):
            await pilot.press("right_square_bracket")
            await pilot.press("end", "enter", "end", "escape")
            await pilot.pause()
            assert rig.app.is_running
            assert_no_escape_bytes(rig.app)
            await pilot.press("J", "G")  # the raw JSON of a hostile record
            assert_no_escape_bytes(rig.app)
            await pilot.press("J", "slash", *"[b", "enter")  # a filter of markup-like text
            assert_no_escape_bytes(rig.app)
            await pilot.press("escape")
        await pilot.press("right_square_bracket")  # proposals
        table = rig.view.list("proposals").table
        assert table.visible_keys()[0] == HOSTILE[0][:40] + "#2"  # the duplicate, 99 votes
        assert "[@click=app.quit]quit[/]" in screen_text(rig.app)
        # live update of a hostile document
        await rig.publish(pilot, copy.deepcopy(seeds) | {"active": None})
        assert rig.app.is_running
        assert_no_escape_bytes(rig.app)


async def test_hostile_text_is_visible_not_interpreted() -> None:
    rig = make_rig(hostile_seeds())
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(rig, pilot)
        body = rig.app.screen.query_one("#active-text").visual.plain
        for piece in ("[@click=app.quit]quit[/]", "a[/]b", "[bold]x[/italic]", "[OK]"):
            assert piece in body
        assert "clear\u241b[2Jscreen" in body
        assert "title\u241b]0;t\u2407" in body
        assert "csi\ufffd31m" in body
        assert "nul\u2400byte" in body
        assert "rtl\ufffdevil" in body  # the bidi override is neutralised
        assert "\U0001f423" in body and "e\u0301\u0301" in body
        assert rig.app.is_running


# --------------------------------------------------------------------------- snapshots


def _open(*keys: str, rig: Rig):
    async def run_before(pilot) -> None:
        await loaded(rig, pilot)
        await pilot.press(*keys)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_seeds_active(snap_compare, size) -> None:
    rig = make_rig()
    assert snap_compare(rig.app, terminal_size=size, run_before=_open(rig=rig))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_seeds_proposals(snap_compare, size) -> None:
    rig = make_rig()
    run_before = _open("right_square_bracket", "down", rig=rig)
    assert snap_compare(rig.app, terminal_size=size, run_before=run_before)


def test_snapshot_seeds_history(snap_compare) -> None:
    rig = make_rig()
    run_before = _open("left_square_bracket", rig=rig)
    assert snap_compare(rig.app, terminal_size=(80, 24), run_before=run_before)


def test_snapshot_seeds_without_proposals_or_active(snap_compare) -> None:
    seeds = demo_seeds()
    del seeds["proposals"]
    seeds["active"] = None
    rig = make_rig(seeds)
    run_before = _open("right_square_bracket", rig=rig)
    assert snap_compare(rig.app, terminal_size=(80, 24), run_before=run_before)


# --------------------------------------------------------------------------- keys


def burst(app: RoostApp, *keys: str) -> None:
    """Keys as a terminal delivers a fast burst: all queued before the app handles the first."""
    for key in keys:
        character = {
            "right_square_bracket": "]",
            "left_square_bracket": "[",
            "slash": "/",
            "enter": "\r",
            "escape": "\x1b",
        }.get(key, key)
        app.post_message(events.Key(key, character if len(character) == 1 else None))


async def test_every_key_of_a_fast_burst_moves_a_section() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        burst(rig.app, *["right_square_bracket"] * 4)
        await pilot.pause()
        await pilot.pause()
        assert rig.view.section == "seeds-active"  # four sections on: round to the start
        burst(rig.app, *["right_square_bracket"] * 3)
        await pilot.pause()
        await pilot.pause()
        assert rig.view.section == "seeds-history"
        assert rig.app.focused is rig.view.list("history").table
        burst(rig.app, "left_square_bracket", "left_square_bracket")
        await pilot.pause()
        await pilot.pause()
        assert rig.view.section == "seeds-proposals"
        assert rig.app.focused is rig.view.list("proposals").table


async def test_filter_and_sort_work_on_the_seeds_lists() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        await pilot.press("right_square_bracket")
        screen = rig.view
        table = screen.list("proposals").table
        author = rig.seeds()["proposals"][0]["author"]
        await pilot.press("slash", *author)
        assert screen.filter_field.has_focus
        assert 0 < table.row_count < 14
        assert all(author in table.get_row(k).haystack for k in table.visible_keys())
        await pilot.press("enter")  # back to the list, the filter kept and shown
        assert rig.app.focused is table and screen.filter_shown
        assert table.filter_query == author
        await pilot.press("right_square_bracket")  # the queue has no filter: the line hides
        assert not screen.filter_shown
        await pilot.press("left_square_bracket")
        assert screen.filter_shown and screen.filter_field.value == author
        await pilot.click("#--content-tab-seeds-history")  # a click on a tab: the same
        await pilot.pause()
        assert screen.section == "seeds-history" and not screen.filter_shown
        await pilot.click("#--content-tab-seeds-proposals")
        await pilot.pause()
        assert screen.filter_shown and screen.filter_field.value == author
        screen.set_focus(table)
        await pilot.press("escape")  # clears the filter
        assert table.row_count == 14 and not screen.filter_shown
        await pilot.press("s", "v")  # the picker, then the column's key
        assert table.sort_column == "votes" and table.sort_reverse  # numbers: largest first
        await pilot.press("s", "s")  # s in the picker: the next column
        assert table.sort_column == "id"
        await pilot.press("S")
        assert table.sort_column == "id" and table.sort_reverse
        ids = [table.get_row(k).cells[1] for k in table.visible_keys()]
        assert ids == sorted(ids, reverse=True)


async def test_a_burst_after_slash_lands_in_the_filter() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        await pilot.press("right_square_bracket")
        burst(rig.app, "slash", "z", "i", "o", "n")
        await pilot.pause()
        await pilot.pause()
        assert rig.view.filter_field.value == "zion"
        table = rig.view.list("proposals").table
        assert table.filter_query == "zion"
        await pilot.press("escape")
        # keys after enter / escape in the same burst act where the focus went
        burst(rig.app, "slash", *"zion", "enter", "j", "j")
        await pilot.pause()
        await pilot.pause()
        assert table.filter_query == "zion" and table.cursor_row == 2
        assert rig.app.focused is table
        chosen = table.cursor_key
        burst(rig.app, "slash", "x", "escape", "k")
        await pilot.pause()
        await pilot.pause()
        assert table.filter_query == "" and not rig.view.filter_shown
        keys = table.visible_keys()
        assert table.cursor_key == keys[keys.index(chosen) - 1]  # k: the row above, unfiltered
        await pilot.press("enter")  # a find in the detail, then the next match, in one burst
        burst(rig.app, "slash", *"e", "enter", "n")
        await pilot.pause()
        await pilot.pause()
        pane = rig.view.list("proposals").detail
        assert pane.find_query == "e" and pane.match_count > 1 and pane.current == 1
        # keys bound elsewhere before "/" act first: escape ends the find, ] opens the queue
        burst(rig.app, "escape", "escape", "right_square_bracket", "slash", *"user", "enter", "j")
        await pilot.pause()
        await pilot.pause()
        queue = rig.view.list("queue").table
        assert pane.find_query == "" and rig.view.section == "seeds-queue"
        assert queue.filter_query == "user" and queue.cursor_row == 1
        assert rig.app.focused is queue


async def test_editing_keys_in_a_burst_act_in_order_in_the_filter() -> None:
    """``/abc ctrl+u zion`` in one read leaves ``zion``: ctrl+u acts where it was typed."""
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        await pilot.press("right_square_bracket")
        burst(rig.app, "slash", "a", "b", "c")
        await pilot.pause()
        burst(rig.app, "ctrl+u", "z", "i", "o", "n", "x", "backspace")
        await pilot.pause()
        await pilot.pause()
        assert rig.view.filter_field.value == "zion"


async def test_filter_and_sort_say_where_they_do_not_apply() -> None:
    seeds = demo_seeds()
    seeds["active"] = None
    rig = make_rig(seeds)
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        await pilot.press("s", "a")
        assert any("Sorting works on a list" in note for note in rig.app.notes)
        assert any("Go to author works on a proposal" in note for note in rig.app.notes)
        assert rig.app.jumps == []


async def test_raw_json_of_the_record_on_view() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        active = rig.seeds()["active"]
        await pilot.press("J")
        text = rig.app.screen.query_one("#active-text").visual.plain
        assert text.startswith(f"raw JSON \u00b7 seed {active['id']}")
        assert '"convergence": {' in text
        await pilot.press("J")
        assert "raw JSON" not in rig.app.screen.query_one("#active-text").visual.plain
        await pilot.press("right_square_bracket")
        proposals = rig.view.list("proposals")
        first = proposals.table.cursor_key
        proposals.detail.scroll_to(y=3, animate=False, immediate=True)
        await pilot.press("J")
        text = proposals.detail_text.visual.plain
        assert text.startswith(f"raw JSON \u00b7 proposal {first}")
        assert '"vote_count":' in text
        assert proposals.detail.scroll_y == 0  # opens at the top
        await pilot.press("j")  # another proposal: its detail, not raw JSON
        assert "raw JSON" not in proposals.detail_text.visual.plain
        burst(rig.app, "j", "j", "J")  # every key counts: the raw view of the row moved to
        await pilot.pause()
        await pilot.pause()
        third = proposals.table.visible_keys()[3]
        assert proposals.table.cursor_key == third
        assert proposals.detail_text.visual.plain.startswith(f"raw JSON \u00b7 proposal {third}")


async def test_a_proposals_author_is_a_link() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(rig, pilot)
        await pilot.press("right_square_bracket", "down")
        proposal = rig.view.selected_proposal()
        assert proposal is not None and proposal.author
        await pilot.press("a")
        assert rig.app.jumps == [("agents", proposal.author)]
        assert rig.app.screen.TAB_ID == "agents"
        await pilot.press("5")
        proposals = rig.view.list("proposals")
        await pilot.press("enter", "tab")  # into the detail, then its "Go to" list
        assert rig.app.focused is proposals.links
        await pilot.press("enter")
        assert rig.app.jumps[-1] == ("agents", proposal.author)
        assert rig.app.screen.TAB_ID == "agents"


@pytest.mark.slow
async def test_vim_motion_in_lists_panes_and_sections() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        await pilot.press("l")
        assert rig.view.section == "seeds-proposals"
        table = rig.view.list("proposals").table
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1
        await pilot.press("G")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("g")
        assert table.cursor_row == 0
        await pilot.press("ctrl+d")
        half = table.cursor_row
        assert half >= 1
        await pilot.press("ctrl+u")
        assert table.cursor_row == 0
        await pilot.press("h", "h")
        assert rig.view.section == "seeds-history"
        history = rig.view.list("history")
        await pilot.press("enter")  # into the detail: the same keys scroll it
        pane = history.detail
        assert rig.app.focused is pane and pane.max_scroll_y > 2
        await pilot.press("j")
        assert pane.scroll_y == 1
        await pilot.press("G")
        assert pane.scroll_y == pane.max_scroll_y
        await pilot.press("g")
        assert pane.scroll_y == 0
        await pilot.press("ctrl+d")
        assert pane.scroll_y > 1
        await pilot.press("ctrl+u")
        assert pane.scroll_y == 0
        await pilot.press("escape", "l")  # back to the list; l: the next section (Active)
        assert rig.view.section == "seeds-active"


def test_snapshot_seeds_filtered(snap_compare) -> None:
    rig = make_rig()
    run_before = _open("right_square_bracket", "slash", *"zion", "enter", rig=rig)
    assert snap_compare(rig.app, terminal_size=(80, 24), run_before=run_before)


def test_snapshot_seeds_raw_json(snap_compare) -> None:
    rig = make_rig()
    run_before = _open("right_square_bracket", "right_square_bracket", "J", rig=rig)
    assert snap_compare(rig.app, terminal_size=(80, 24), run_before=run_before)


async def test_find_in_a_detail_and_in_the_raw_view() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        await pilot.press("left_square_bracket", "enter")  # history: into the first detail
        history = rig.view.list("history")
        pane = history.detail
        assert rig.app.focused is pane
        label = rig.app.screen.query_one("#seeds-filter-label")
        await pilot.press("slash", *"2026")  # injected, archived, evaluated
        assert pane.match_count == 3 and pane.current == 0
        assert label.visual.plain == f"find 1/{pane.match_count}"
        assert history.table.filter_query == ""  # a find, not a filter
        await pilot.press("enter")
        assert rig.app.focused is pane
        last = pane.match_count
        await pilot.press("N")  # back from the first: the last match, scrolled into view
        await pilot.pause()
        assert pane.current == last - 1 and label.visual.plain == f"find {last}/{last}"
        assert pane.scroll_y > 0
        await pilot.press("n")
        assert pane.current == 0
        await pilot.press("J")  # the raw view: the find goes on in it
        assert pane.match_count >= 1
        marked = pane.text.visual
        assert isinstance(marked, Content)
        assert any(span.style == pane.CURRENT for span in marked.spans)
        await pilot.press("escape")  # ends the find, focus stays in the text
        assert pane.find_query == "" and not rig.view.filter_shown
        assert rig.app.focused is pane
        plain = pane.text.visual
        assert isinstance(plain, Content)
        assert not any(span.style in (pane.CURRENT, pane.MATCH) for span in plain.spans)
        await pilot.press("escape")
        assert rig.app.focused is history.table


async def test_find_in_the_active_seed_and_no_match() -> None:
    rig = make_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(rig, pilot)
        pane = rig.view.active_seed.scroll
        await pilot.press("slash", *"field guide")
        assert pane.match_count == 1
        await pilot.press("ctrl+a", "ctrl+k", *"zzzz-nothing")
        label = rig.app.screen.query_one("#seeds-filter-label")
        assert pane.match_count == 0 and label.visual.plain == "find: no match"
        await pilot.press("enter", "right_square_bracket")  # another section: the find ends
        assert pane.find_query == "" and rig.view.section == "seeds-proposals"


async def pause_until(pilot, condition, rounds: int = 100) -> None:
    """Pause until ``condition()`` holds (the build runs on a timer the idle wait does not see)."""
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.02)


async def test_the_lists_are_built_after_the_first_frame_and_keys_before_that_wait(
    monkeypatch,
) -> None:
    """The tab's first frame composes the Active section only; its three lists are mounted
    right after it. A jump to a proposal or a "]" that comes before they are built lands on
    the list once it is (held back here until the test lets the build go)."""
    gate = asyncio.Event()
    build_lists = SeedsScreen._build_lists

    async def gated(self: SeedsScreen) -> None:
        if not gate.is_set():  # not yet: look again in a moment (the screen keeps running)
            self.set_timer(0.02, self._build_lists)
            return
        await build_lists(self)

    monkeypatch.setattr(SeedsScreen, "_build_lists", gated)
    names = ("proposals", "queue", "history")

    rig = make_rig()
    rig.app.initial_screen = rig.app.DEFAULT_MODE = "agents"
    async with rig.app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(rig.app.loaded.wait(), 10)
        await pilot.pause()
        target = rig.seeds()["proposals"][-1]["id"]
        rig.app.jump_to("seeds", target)
        for _ in range(3):
            await pilot.pause()
        view = rig.view
        assert not any(view.list(name).built for name in names)
        assert view.section == "seeds-proposals"
        assert view.current_table() is None and view.copy_text() is None
        await pilot.press("escape", "J", "s", "slash")  # nothing to act on yet: no crash
        gate.set()
        await pause_until(pilot, lambda: all(view.list(name).built for name in names))
        assert all(view.list(name).built for name in names)
        assert view.section == "seeds-proposals"
        assert view.list("proposals").table.cursor_key == target
        assert rig.app.focused is view.list("proposals").table

    gate.clear()
    rig = make_rig()
    rig.app.initial_screen = rig.app.DEFAULT_MODE = "agents"
    async with rig.app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(rig.app.loaded.wait(), 10)
        await pilot.pause()
        burst(rig.app, "5", "right_square_bracket", "right_square_bracket", "j")
        for _ in range(3):
            await pilot.pause()
        view = rig.view
        assert view.section == "seeds-queue" and not view.list("queue").built
        assert rig.app.focused is view._strip()  # the section strip, not a hidden pane
        burst(rig.app, "j")  # typed while the list is still being built
        await pilot.pause()
        gate.set()
        queue = view.list("queue")
        await pause_until(pilot, lambda: queue.built and rig.app.focused is queue.table)
        await pilot.pause()
        assert queue.built and rig.app.focused is queue.table
        assert queue.table.row_count == len(rig.seeds()["queue"])
        # the list's keys typed before it was there waited for it: two rows down
        assert queue.table.cursor_key == queue.table.visible_keys()[2]
        await pilot.press("k")
        assert queue.table.cursor_key == queue.table.visible_keys()[1]


async def test_list_keys_typed_after_the_list_is_built_but_before_it_is_focused_wait(
    monkeypatch,
) -> None:
    """Between a list's build and the screen's handling of its Built message, the list is
    there but the focus is still on the section strip: ``j`` typed then waits for the focus
    too (it was lost on the strip, now and then, under load)."""
    gate = asyncio.Event()
    build_lists = SeedsScreen._build_lists
    late: list[DetailList.Built] = []
    handle = SeedsScreen.on_detail_list_built

    async def gated(self: SeedsScreen) -> None:
        if not gate.is_set():
            self.set_timer(0.02, self._build_lists)
            return
        await build_lists(self)

    def handled_late(self: SeedsScreen, event: DetailList.Built) -> None:
        if event.detail_list.id == "queue" and not late:
            event.stop()
            late.append(event)  # handled below, once the keys are in
            return
        handle(self, event)

    monkeypatch.setattr(SeedsScreen, "_build_lists", gated)
    monkeypatch.setattr(SeedsScreen, "on_detail_list_built", handled_late)
    rig = make_rig()
    rig.app.initial_screen = rig.app.DEFAULT_MODE = "agents"
    async with rig.app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(rig.app.loaded.wait(), 10)
        await pilot.pause()
        burst(rig.app, "5", "right_square_bracket", "right_square_bracket")
        for _ in range(3):
            await pilot.pause()
        view = rig.view
        queue = view.list("queue")
        assert view.section == "seeds-queue" and not queue.built
        assert rig.app.focused is view._strip()
        gate.set()
        await pause_until(pilot, lambda: bool(late))
        assert queue.built and rig.app.focused is view._strip()  # built, not focused yet
        burst(rig.app, "j", "j")
        await pilot.pause()
        handle(view, late[0])
        await pause_until(pilot, lambda: rig.app.focused is queue.table)
        await pilot.pause()
        assert queue.table.cursor_key == queue.table.visible_keys()[2]
