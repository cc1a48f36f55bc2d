"""An agent's detail as a profile: its posts and comments in the log, pokes sent and received,
its place in the social graph (each connection a link), its soul page rendered as Markdown,
each only where its file is published; read when a detail opens, never at start; hostile text."""

from __future__ import annotations

import asyncio

import pytest
from app_rig import loaded, painted, settle
from hostile import MARKDOWN_ATTACKS, assert_clean_terminal
from pulse_app_rig import ME, FakeSouls, make_pulse_rig, wait_for
from textual.widgets import OptionList

from tui.network.state_files import POKES, POSTED_LOG, SOCIAL_GRAPH
from tui.ui.screens.agents import AgentsScreen
from tui.ui.screens.posts import PostsScreen


def body(screen: AgentsScreen) -> str:
    return screen.detail.query_one("#detail-body").render().plain


def link_labels(screen: AgentsScreen) -> list[str]:
    links = screen.detail.query_one("#detail-links", OptionList)
    return [str(links.get_option_at_index(i).prompt) for i in range(links.option_count)]


def screen_text(app) -> str:
    return "\n".join("".join(chop.text for chop in row) for row in painted(app).strips)


async def open_profile(pilot, agent: str = ME) -> AgentsScreen:
    """The Agents tab's detail of ``agent``, once its profile's files and soul page are in."""
    app = pilot.app
    screen: AgentsScreen = app.screen
    screen.table.move_cursor_to(agent)
    await pilot.press("enter")
    await wait_for(
        pilot,
        lambda: (
            all(
                app.snapshot.file(n).loaded or app.snapshot.file(n).integrity == "absent"
                for n in (POSTED_LOG, POKES, SOCIAL_GRAPH)
            )
            and "soul page" in body(screen)
            and "reading the soul page" not in body(screen)
        ),
    )
    return screen


@pytest.mark.slow
async def test_the_profile_from_the_log_the_pokes_and_the_graph() -> None:
    rig = make_pulse_rig(agent=None)
    async with rig.app.run_test(size=(140, 50)) as pilot:
        await loaded(pilot)
        assert SOCIAL_GRAPH not in rig.store.file_names  # not at start
        screen = await open_profile(pilot)
        text = body(screen)
        assert "in the log 8 posts · 15 comments" in text
        assert "pokes      3 sent · 2 received" in text
        assert "graph      degree 11 · in 4 · out 7" in text
        # the strongest first (both directions' weights summed), with the direction: ⇄ both
        # ways, → only from this agent; a line wraps between connections, never inside one
        assert "strongest  zion-debater-01(⇄80), zion-curator-01(⇄60)," in text
        assert "zion-welcomer-01(→35)" in text
        labels = link_labels(screen)
        assert labels[0] == f"posts by {ME}"
        assert f"activity of {ME}" in labels
        connected = [label for label in labels if label.startswith("connected ")]
        assert connected[0] == "connected zion-debater-01 ⇄ 80" and len(connected) == 7


@pytest.mark.slow
async def test_a_connection_is_a_link_to_that_agent_and_posts_by_it_a_scoped_tab() -> None:
    rig = make_pulse_rig(agent=None)
    async with rig.app.run_test(size=(140, 50)) as pilot:
        await loaded(pilot)
        screen = await open_profile(pilot)
        links = screen.detail.query_one("#detail-links", OptionList)
        links.focus()
        links.highlighted = link_labels(screen).index("connected zion-welcomer-01 → 35")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.detail.key == "zion-welcomer-01"
        await pilot.press("backspace")
        await settle(pilot)
        assert screen.detail.key == ME
        await pilot.press("P")
        await wait_for(pilot, lambda: isinstance(rig.app.screen, PostsScreen))
        assert rig.app.screen.scope == ("author", ME)


async def test_the_soul_page_is_markdown_drawn_safely() -> None:
    rig = make_pulse_rig(agent=None)
    async with rig.app.run_test(size=(140, 50)) as pilot:
        await loaded(pilot)
        screen = await open_profile(pilot)
        text = body(screen)
        soul = text[text.index("soul page") :]
        assert "zion-coder-01 — Soul File" in soul and "Identity" in soul
        assert "Writes small tools and reads every diff twice." in soul  # no ** left
        assert "• Tests first" in soul and 'print("hello, roost")' in soul
        assert "##" not in soul and "```" not in soul


async def test_no_soul_page_says_so_and_each_part_only_where_published() -> None:
    souls = FakeSouls({})  # the deployment has no page for anyone
    rig = make_pulse_rig(agent=None, souls=souls)
    rig.faults.unpublished = {POKES, SOCIAL_GRAPH}
    async with rig.app.run_test(size=(140, 50)) as pilot:
        await loaded(pilot)
        screen = await open_profile(pilot)
        text = body(screen)
        assert "no soul page" in text
        assert "in the log" in text
        assert "pokes " not in text and "graph " not in text and "strongest" not in text
        assert not [label for label in link_labels(screen) if label.startswith("connected")]
        assert souls.calls == [ME]


async def test_the_soul_page_is_read_when_a_detail_opens_and_its_copy_shown_at_once() -> None:
    souls = FakeSouls({ME: "# first\n\nthe page as it was"})
    rig = make_pulse_rig(agent=None, souls=souls)
    async with rig.app.run_test(size=(140, 50)) as pilot:
        await loaded(pilot)
        screen = await open_profile(pilot)
        assert "the page as it was" in body(screen)
        await pilot.press("escape")
        souls.pages[ME] = "# second\n\nthe page as it is now"
        souls.gate = asyncio.Event()  # the service is slow: the copy at hand shows meanwhile
        await pilot.press("enter")
        for _ in range(5):  # not settle(): it waits for every worker, the held one too
            await pilot.pause()
        assert screen.detail_open and "the page as it was" in body(screen)
        souls.gate.set()
        await wait_for(pilot, lambda: "the page as it is now" in body(screen))
        assert souls.calls == [ME, ME]


async def test_offline_the_kept_copy_shows_with_why() -> None:
    souls = FakeSouls({ME: "kept words"})
    rig = make_pulse_rig(agent=None, souls=souls)
    async with rig.app.run_test(size=(140, 50)) as pilot:
        await loaded(pilot)
        screen = await open_profile(pilot)
        await pilot.press("escape")
        souls.problem = "offline: the service did not answer"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "offline" in body(screen))
        text = body(screen)
        assert "offline: the service did not answer — showing the copy from" in text
        assert "kept words" in text


@pytest.mark.parametrize("size", [(80, 24), (140, 50)], ids=["80x24", "140x50"])
async def test_a_hostile_soul_page_is_drawn_as_text(size) -> None:
    page = "\n\n".join(MARKDOWN_ATTACKS) + "\n\n" + "x " * 30_000
    rig = make_pulse_rig(agent=None, souls=FakeSouls({ME: page}))
    async with rig.app.run_test(size=size) as pilot:
        await loaded(pilot)
        screen = await open_profile(pilot)
        assert_clean_terminal(rig.app)
        text = body(screen)
        assert "[@click=app.quit]click me[/]" in text  # markup shown, never run
        assert "tracker.example/pixel.png" in text  # an image is a link to it, never fetched
        assert "<script>" not in text  # raw HTML is not drawn
        assert "cut here" in text  # a page past the limit says where it was cut
        await pilot.press("l", "G")
        await pilot.pause()
        assert_clean_terminal(rig.app, svg=True)
        assert rig.app.is_running


def _profile_steps(*keys: str):
    async def run_before(pilot) -> None:
        await loaded(pilot)
        await open_profile(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_profile(snap_compare, size):
    run = _profile_steps()
    assert snap_compare(make_pulse_rig(agent=None).app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_profile_soul_page(snap_compare, size):
    # the end of the detail: the soul page, then the links (G again: the end once the last of
    # the text is laid out, which can come after the first G on a busy machine)
    run = _profile_steps("l", "G", "G")
    assert snap_compare(make_pulse_rig(agent=None).app, terminal_size=size, run_before=run)
