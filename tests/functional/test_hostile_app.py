"""Hostile data through the real store and screens (ARCHITECTURE.md, untrusted text).

The hostile network (tests/hostile.py) is served by the real sandbox app with a correct manifest;
the tests visit every tab, open details and raw views, filter, sort, click, and search the
palette. The app must keep running, show the text literally, and never emit a control sequence
that came from the data: after removing the SGR/cursor sequences Textual itself writes, the
terminal stream must hold no ESC, CSI, BEL, NUL or other C0/C1 byte.
"""

from __future__ import annotations

import pytest
from app_rig import loaded, make_rig, settle, svg_text
from hostile import LITERALS, assert_clean_terminal, hostile_network
from textual.command import CommandPalette

from tui.ui.screens import SCREENS
from tui.ui.screens.activity import ActivityScreen
from tui.ui.screens.agents import AgentsScreen
from tui.ui.screens.posts import PostsScreen
from tui.ui.screens.table_screen import TableScreen
from tui.ui.screens.thread import ThreadScreen


async def visit_table(pilot, screen: TableScreen) -> None:
    app = pilot.app
    table = screen.table
    keys = table.visible_keys()
    for n, key in enumerate(keys[:2] + keys[-2:]):  # a spread: the tables show every payload
        table.move_cursor_to(key)
        await pilot.press("enter")
        if isinstance(screen, PostsScreen):  # enter reads the thread (a post with a number)
            await settle(pilot)
            if isinstance(app.screen, ThreadScreen):
                assert_clean_terminal(app)
                await pilot.press("escape")
            screen.open_detail(key)
        elif isinstance(screen, ActivityScreen):  # enter goes to what the row is about
            await settle(pilot)
            assert_clean_terminal(app)
            if app.screen is not screen:
                await pilot.press("backspace")
                await settle(pilot)
            assert app.screen is screen
            screen.open_detail(key)
        assert screen.detail.key == key
        assert_clean_terminal(app)
        if n == 0:
            await pilot.press("J")
            assert_clean_terminal(app)
            await pilot.press("J")
        screen.close_detail()
    for _ in range(len(screen.COLUMNS) + 1):
        await pilot.press("s", "s")  # the picker, then its "next column"
    await pilot.press("S")
    await pilot.pause()
    assert_clean_terminal(app, svg=True)


@pytest.mark.slow
async def test_hostile_data_every_screen_at_80x24():
    rig = make_rig(network=hostile_network())
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        snapshot = rig.store.snapshot
        assert snapshot.all_verified, snapshot.integrity_summary()
        for screen_class in SCREENS:
            await pilot.press(screen_class.TAB_KEY)
            await settle(pilot)
            screen = rig.app.screen
            assert type(screen) is screen_class
            assert_clean_terminal(rig.app)
            if isinstance(screen, TableScreen):
                assert screen.table.total_count > 0
                await visit_table(pilot, screen)
            else:
                for key in ("down", "enter", "tab", "down", "enter", "escape", "y"):
                    await pilot.press(key)
                    await pilot.pause()
                    assert_clean_terminal(rig.app)
            # keys the hostile text spells must not have done anything odd
            assert rig.app.is_running
        await pilot.press("question_mark")
        await pilot.pause()
        assert_clean_terminal(rig.app)
        await pilot.press("escape")
        assert rig.app.is_running


async def test_hostile_text_is_shown_literally_and_clicks_do_nothing():
    rig = make_rig(network=hostile_network())
    async with rig.app.run_test(size=(160, 50)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        table = screen.table
        # the name cells hold the raw text; the table cleans it when drawing
        assert table.get_row("[@click=app.quit]").cells[1].startswith("[@click=app.quit]")
        table.move_cursor_to("[@click=app.quit]")
        await pilot.press("enter")
        await pilot.pause()
        text = svg_text(rig.app.export_screenshot())
        for literal in LITERALS:
            assert literal in text, literal
        assert "\u0645\u0631\u062d\u0628\u0627" in text  # RTL kept
        body = screen.detail.query_one("#detail-body").render().plain
        assert "[@click=app.quit]click me[/]" in body
        assert "\u241b]0;pwned title\u2407" in body  # the OSC shown, not run
        assert "not a date \u241b[2J (not a date)" in body  # an odd timestamp shown as sent
        # click every visible cell of the table and the detail: "[@click=app.quit]" is text
        for x, y in ((4, 3), (30, 4), (30, 5), (120, 2), (120, 8), (100, 12)):
            await pilot.click(offset=(x, y))
        await pilot.pause()
        assert rig.app.is_running
        assert_clean_terminal(rig.app)


async def test_hostile_filter_and_palette():
    rig = make_rig(network=hostile_network())
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        await pilot.press("slash", *"a[/]b")
        await pilot.pause()
        assert "a[/]b" in screen.table.visible_keys()
        assert_clean_terminal(rig.app)
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(rig.app.screen, CommandPalette)
        for query in ("[@click", "a[/]b", "[$acc", "\u0645\u0631", "L" * 40, "pwned"):
            palette_input = rig.app.screen.query_one("CommandInput")
            palette_input.value = query
            await settle(pilot)  # the palette's search worker, and the list it fills
            assert_clean_terminal(rig.app)
        palette_input.value = "[@click=app.quit]"
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert rig.app.is_running
        assert isinstance(rig.app.screen, AgentsScreen)
        assert rig.app.screen.table.cursor_key == "[@click=app.quit]"
        assert_clean_terminal(rig.app)


async def test_hostile_urls_are_not_opened(monkeypatch):
    rig = make_rig(network=hostile_network(), screen="trending")
    opened: list[str] = []
    async with rig.app.run_test(size=(80, 24)) as pilot:
        monkeypatch.setattr("tui.browser.browser_unavailable", lambda: None)
        monkeypatch.setattr("tui.browser.open_in_browser", lambda url: opened.append(url) or True)
        await loaded(pilot)
        screen = rig.app.screen
        for key in screen.table.visible_keys():
            screen.table.move_cursor_to(key)
            await pilot.press("O")
        await rig.app.workers.wait_for_complete()
        await pilot.pause()
        assert all(url.startswith(("https://example.org/", "http://")) for url in opened)
        assert opened and not any("\x1b" in url or "javascript" in url for url in opened)
        assert_clean_terminal(rig.app)


PASTE_HIJACK = "zion-01\n echo PWNED\n\x1b]52;c;ZWNobw==\x07\x1b[200~"


async def test_y_never_copies_a_line_break_or_an_escape():
    """Paste hijacking: an id holding a line break (and a terminal's escapes) must not reach the
    clipboard as it is; what is copied is what is drawn, on one line, and the toast says so."""
    from textual.notifications import Notify

    from tui.sandbox.generator import DEFAULT_EPOCH, generate_state, iso
    from tui.sandbox.published import DemoNetwork

    docs = generate_state(seed=7, agents=20, epoch=DEFAULT_EPOCH)
    first = next(iter(docs["agents.json"]["agents"].values()))
    docs["agents.json"]["agents"][PASTE_HIJACK] = dict(first)
    rig = make_rig(network=DemoNetwork(docs, generated_at=iso(DEFAULT_EPOCH)))
    posted = []
    async with rig.app.run_test(size=(120, 30), message_hook=posted.append) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        screen.table.move_cursor_to(PASTE_HIJACK)
        await pilot.press("y")
        await pilot.pause()
        copied = rig.app.clipboard
        assert copied == "zion-01␊ echo PWNED␊␛]52;c;ZWNobw==␇␛[200~"
        assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in copied)
        toasts = [str(m.notification.message) for m in posted if isinstance(m, Notify)]
        assert any("line breaks and control characters replaced" in t for t in toasts), toasts
        rig.app.copy_to_clipboard("a\nb")  # every copy, whoever asks, by the same rule
        assert rig.app.clipboard == "a␊b"
