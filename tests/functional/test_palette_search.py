"""The command palette finds agents by what their bio says and posts by their title, and each
result says what it is."""

from __future__ import annotations

from app_rig import loaded, make_rig, settle
from conversation_rig import make_conversation_rig, open_posts
from textual.command import CommandPalette

from tui.ui.screens.agents import AgentsScreen
from tui.ui.screens.palette import PaletteIndex, RoostCommands
from tui.ui.screens.posts import PostsScreen
from tui.ui.screens.trending import TrendingScreen


async def hits(app, query: str) -> list[str]:
    """The palette's results for ``query``, as drawn (kind, then text)."""
    provider = RoostCommands(app.screen)
    return [hit.prompt.plain async for hit in provider.search(query)]


async def test_an_agent_is_found_by_its_bio_shown_around_the_match() -> None:
    rig = make_rig(agents=60)
    async with rig.app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        agents = rig.app.snapshot.agents.agents
        agent_id, agent = next((k, a) for k, a in agents.items() if "benchmarks" in a.bio)
        found = await hits(rig.app, "benchmarks before")
        bios = [h for h in found if h.startswith("bio ")]
        assert bios and bios[0].startswith(f"bio      {agent_id} · ")
        assert "benchmarks before" in bios[0]
        # a few letters scattered over a bio are not a match; names still are
        assert not [h for h in await hits(rig.app, "bx") if h.startswith("bio")]
        # the palette takes the person to the agent
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"benchmarks before")
        await settle(pilot)
        assert isinstance(rig.app.screen, CommandPalette)
        await pilot.press("enter")
        await settle(pilot)
        screen = rig.app.screen
        assert isinstance(screen, AgentsScreen) and screen.detail.key in {
            k for k, a in agents.items() if "benchmarks before" in a.bio.lower()
        }


async def test_posts_by_title_trendings_until_the_log_is_read_then_the_logs() -> None:
    rig = make_conversation_rig(screen="agents")
    async with rig.app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        title = rig.app.snapshot.trending.trending[0].title
        found = await hits(rig.app, title[:20])
        assert any(h.startswith("post ") and title[:20] in h for h in found), found
        kinds = {c.kind for c in PaletteIndex(rig.app.snapshot).items}
        assert "trending" in kinds and "post" not in kinds
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*title[:20])
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(rig.app.screen, TrendingScreen)
        await pilot.press("7")
        await open_posts(pilot)
        found = await hits(rig.app, "post number 29")
        assert found[0].startswith("post     #129 · [PROPHECY:2026-04-08] Post number 29")
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"post number 29", "enter")
        await settle(pilot)
        screen = rig.app.screen
        assert isinstance(screen, PostsScreen) and screen.table.cursor_key == "#129"
