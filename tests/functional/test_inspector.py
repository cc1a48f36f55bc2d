"""The egg inspector on its own, driven by keys: the report first (a tampered egg's failing check
highlighted and focused), the panes in order, the file tree, the viewer (text, hex, pages,
search), hatch lines copied with ``y``, hostile names and contents shown literally."""

from __future__ import annotations

import json

import pytest
from egg_fixtures import (
    ESCAPE_TEXT,
    MARKUP_PATH,
    InspectorApp,
    demo_egg,
    extra_files_egg,
    flip_byte,
)
from rich.text import Text
from textual.widgets import Input, OptionList, Static, TabbedContent, Tree
from textual_idle import settle

from tui.eggs.entry_pages import TEXT_PAGE
from tui.ui.screens.boots.inspector import PANES, EggInspectorScreen, EntryViewer

SIZE = (80, 24)


async def ready(pilot) -> EggInspectorScreen:
    await settle(pilot)
    assert isinstance(pilot.app.screen, EggInspectorScreen)
    return pilot.app.screen


def plain(widget: Static) -> str:
    """The text a Static was given (Text, or the code of a Syntax)."""
    content = widget.content
    if isinstance(content, Text):
        return content.plain
    return str(getattr(content, "code", content))


def report_lines(screen: EggInspectorScreen) -> list[str]:
    listing = screen.query_one("#report-list", OptionList)
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


def active(screen: EggInspectorScreen) -> str:
    return screen.query_one(TabbedContent).active


async def open_entry(pilot, screen: EggInspectorScreen, name: str) -> EntryViewer:
    """Go to Files with keys, walk the tree with j until ``name`` is under the cursor, enter."""
    while active(screen) != "files":
        await pilot.press("tab")
    await pilot.pause()
    tree = screen.query_one(Tree)
    for _ in range(tree.last_line + 2):
        node = tree.cursor_node
        if node is not None and getattr(node.data, "name", None) == name:
            break
        await pilot.press("j")
    await pilot.press("enter")
    await settle(pilot)  # a failed egg's entry is read by the safe reader in a worker
    assert active(screen) == "viewer"
    return screen.query_one(EntryViewer)


async def test_demo_egg_shows_every_check_passing():
    egg, record = demo_egg()
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert screen.report is not None and screen.report.ok
        summary = plain(screen.query_one("#inspector-summary", Static))
        assert summary.startswith("VERIFIED")
        lines = report_lines(screen)
        assert len(lines) == len(screen.report.checks)
        assert not any("✗ fail" in line for line in lines)
        assert sum("✓ pass" in line for line in lines) >= 30
        assert active(screen) == "report"
        assert screen.focused is screen.query_one("#report-list")
        await pilot.press("tab", "tab")
        await pilot.pause()
        tree = screen.query_one(Tree)
        leaves = [n for n in tree.root.children if not n.children] + [
            c for n in tree.root.children for c in n.children
        ]
        names = {getattr(n.data, "name", None) for n in leaves}
        assert {"soul.md", "rappid.json", "agents/rapp_seed_runner_agent.py"} <= names
        assert all(
            str(n.label).endswith("✓") for n in leaves if n.data and n.data.name != "manifest.json"
        )


async def test_tampered_egg_highlights_and_focuses_the_first_failing_check():
    egg, record = demo_egg()
    tampered = flip_byte(egg, "soul.md", 3)
    async with InspectorApp(tampered, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        report = screen.report
        assert report is not None and report.first_failure is not None
        position, check = report.first_failure
        listing = screen.query_one("#report-list", OptionList)
        assert screen.focused is listing
        assert listing.highlighted == position - 1
        assert "first failure" in report_lines(screen)[position - 1]
        summary = plain(screen.query_one("#inspector-summary", Static))
        assert summary.startswith(f"FAILED at check {position}: {check.name}")
        detail = plain(screen.query_one("#report-detail", Static))
        assert detail.startswith(f"{check.id} · fail")
        banner = plain(screen.query_one("#inspector-banner", Static))
        assert banner == f"FAILED at check {position} — nothing in it is vouched for"
        # the CRC failed, yet the safe reader shows the file, unverified: its hash differs
        await pilot.press("tab", "tab")
        await settle(pilot)
        labels = [str(n.label) for n in screen.query_one(Tree).root.children]
        soul = next(label for label in labels if label.startswith("soul.md"))
        assert soul.endswith("✗ differs")
        agent = next(label for label in labels if label.startswith("rappid.json"))
        assert agent.endswith("✓ matches")
        note = plain(screen.query_one("#files-note", Static))
        assert note.startswith("UNVERIFIED") and "CRC-32" in note


@pytest.mark.slow
async def test_tab_and_shift_tab_walk_the_panes_in_order_and_escape_returns():
    egg, record = demo_egg()
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        seen = [active(screen)]
        for _ in PANES[1:]:
            await pilot.press("tab")
            await pilot.pause()
            seen.append(active(screen))
        assert seen == [pane for pane, _ in PANES]
        await pilot.press("tab")
        assert active(screen) == "report"
        await pilot.press("shift+tab")
        assert active(screen) == "hatch"
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is not screen


async def test_enter_opens_an_entry_and_escape_goes_back_to_files():
    egg, record = demo_egg()
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        viewer = await open_entry(pilot, screen, "rappid.json")
        assert viewer.pages is not None and viewer.pages.name == "rappid.json"
        status = plain(screen.query_one("#viewer-status", Static))
        assert "rappid.json" in status and "json" in status
        assert "seed-boot-organism" in plain(screen.query_one("#viewer-body", Static))
        await pilot.press("escape")
        await pilot.pause()
        assert active(screen) == "files"
        assert isinstance(pilot.app.screen, EggInspectorScreen)


async def test_hex_view_for_binary_entries():
    binary = bytes(range(256)) * 4
    egg, record = extra_files_egg({"blob.bin": binary})
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        viewer = await open_entry(pilot, screen, "blob.bin")
        assert viewer.pages is not None and viewer.pages.binary
        body = plain(screen.query_one("#viewer-body", Static))
        assert body.splitlines()[0] == (
            "00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|"
        )
        assert "|@ABCDEFGHIJKLMNO|" in body
        assert "hex" in plain(screen.query_one("#viewer-status", Static))
        # x shows the same bytes as text and back
        await pilot.press("x")
        assert not viewer.pages.binary
        await pilot.press("x")
        assert viewer.pages.binary


async def test_large_entry_is_paged_and_search_jumps_to_the_page_of_the_match():
    lines = b"".join(b"line %06d of a long log\n" % n for n in range(10_000))
    lines += b"the NEEDLE is here\n"
    egg, record = extra_files_egg({"big.log": lines})
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        viewer = await open_entry(pilot, screen, "big.log")
        assert viewer.pages is not None and viewer.pages.page_count() > 5
        first = plain(screen.query_one("#viewer-body", Static))
        assert first.startswith("line 000000") and len(first.encode()) <= TEXT_PAGE
        assert "NEEDLE" not in first
        await pilot.press("right_square_bracket")
        second = plain(screen.query_one("#viewer-body", Static))
        assert viewer.page == 1 and second.startswith("line ")
        assert second.splitlines()[0] != first.splitlines()[0]
        assert first.endswith("\n")  # pages end on a line break
        await pilot.press("left_square_bracket")
        assert viewer.page == 0
        await pilot.press("slash")
        search = screen.query_one("#viewer-search", Input)
        assert search.has_focus
        await pilot.press(*"NEEDLE", "enter")
        await pilot.pause()
        assert viewer.match == lines.index(b"NEEDLE")
        assert viewer.pages.last_page(viewer.page) and viewer.page > 1
        assert "NEEDLE is here" in plain(screen.query_one("#viewer-body", Static))
        assert "match at byte" in plain(screen.query_one("#viewer-status", Static))
        assert not search.display


async def test_search_next_match_wraps_and_reports_no_match():
    text = b"alpha beta\n" * 3
    egg, record = extra_files_egg({"notes.txt": text})
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        viewer = await open_entry(pilot, screen, "notes.txt")
        await pilot.press("slash", *"beta", "enter")
        assert viewer.match == 6
        await pilot.press("n")
        assert viewer.match == 17
        await pilot.press("n", "n")
        assert viewer.match == 6  # wrapped
        await pilot.press("N")
        assert viewer.match == 28  # N: the previous match, wrapping back to the last one
        await pilot.press("N")
        assert viewer.match == 17
        await pilot.press("slash", "ctrl+a", *"zzz", "enter")
        await pilot.pause()
        assert viewer.match is None
        assert "no match" in plain(screen.query_one("#viewer-status", Static))


async def test_hostile_names_and_contents_stay_literal():
    egg, record = extra_files_egg({MARKUP_PATH: ESCAPE_TEXT.encode()})
    async with InspectorApp(egg, record, title="[b]title[/b]\x1b]0;x\x07").run_test(
        size=SIZE
    ) as pilot:
        screen = await ready(pilot)
        title = plain(screen.query_one("#inspector-title", Static))
        assert "[b]title[/b]␛]0;x␇" in title
        viewer = await open_entry(pilot, screen, MARKUP_PATH)
        body = plain(screen.query_one("#viewer-body", Static))
        assert body == "before ␛[2J [@click=app.quit]quit[/] after\n"
        status = plain(screen.query_one("#viewer-status", Static))
        assert "[@click=app.quit]x[bold red].md" in status
        assert viewer.pages is not None
        tree = screen.query_one(Tree)
        folder = next(n for n in tree.root.children if str(n.label).startswith("docs/"))
        assert str(folder.children[0].label).startswith("[@click=app.quit]x[bold red].md")
        # the screen still works: nothing was run (the app did not quit)
        await pilot.press("escape")
        assert pilot.app.is_running


async def test_y_copies_the_installer_line_as_text():
    egg, record = demo_egg()
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("shift+tab")
        assert active(screen) == "hatch"
        hatch = screen.query_one("#hatch-list", OptionList)
        lines = [str(hatch.get_option_at_index(i).prompt) for i in range(hatch.option_count)]
        installer = next(i for i, line in enumerate(lines) if line.startswith("installer: "))
        assert any(line.startswith("grantsAuthority: false") for line in lines)
        assert any(line.startswith("hatcher sha256: 49b210e0") for line in lines)
        for _ in range(installer):
            await pilot.press("j")
        await pilot.press("y")
        assert pilot.app.clipboard == record.brainstem.installer


@pytest.mark.parametrize("pane", ["manifest", "payload"])
async def test_manifest_and_payload_panes_show_the_json(pane):
    egg, record = demo_egg()
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        while active(screen) != pane:
            await pilot.press("tab")
        code = plain(screen.query_one(f"#{pane}-body", Static))
        if pane == "manifest":
            assert '"schema": "rapp/1-egg"' in code
            # a few contents are listed in full: each path with the hash it must have
            assert '"path": "soul.md"' in code and '"hash": "' in code
            assert record.egg.address in code
        else:
            assert '"kind": "rapp-seed-boot/1"' in code


async def test_big_folders_start_closed_and_fill_when_opened():
    files = {f"many/item_{n:03d}.txt": b"x%d\n" % n for n in range(70)}
    egg, record = extra_files_egg(files)
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("tab", "tab")
        await pilot.pause()
        tree = screen.query_one(Tree)
        many = next(n for n in tree.root.children if str(n.label).startswith("many/"))
        small = next(n for n in tree.root.children if str(n.label).startswith("agents/"))
        assert str(many.label) == "many/  70 entries"
        assert not many.is_expanded and not many.children
        assert small.is_expanded and len(small.children) == 1
        tree.move_cursor(many)
        await pilot.press("enter")
        await pilot.pause()
        assert many.is_expanded and len(many.children) == 70
        viewer = await open_entry(pilot, screen, "many/item_069.txt")
        assert viewer.pages is not None and viewer.pages.name == "many/item_069.txt"


async def test_quick_key_presses_are_not_lost_and_a_click_on_a_tab_still_works():
    from textual import events

    egg, record = demo_egg()
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        for _ in range(2):  # as a terminal delivers "\t\t" typed fast, with no pause
            pilot.app.post_message(events.Key("tab", "\t"))
        await ready(pilot)
        assert active(screen) == "files"
        await pilot.click(f"#{screen.query_one(TabbedContent).get_tab('payload').id}")
        await ready(pilot)
        assert active(screen) == "payload"
        await pilot.press("tab")
        assert active(screen) == "hatch"


async def test_a_search_belongs_to_its_entry():
    """escape ends the search and the entry's highlighting comes back; another entry opens with
    no search carried over."""
    from rich.syntax import Syntax

    egg, record = extra_files_egg({"notes.md": b"# beta\n", "code.py": b"x = 'beta'\n"})
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        viewer = await open_entry(pilot, screen, "notes.md")
        await pilot.press("slash", *"beta", "enter")
        assert viewer.match == 2
        assert not isinstance(screen.query_one("#viewer-body", Static).content, Syntax)
        await pilot.press("escape")  # the search goes first; the viewer stays
        assert viewer.needle == "" and viewer.match is None and active(screen) == "viewer"
        await pilot.press("escape")
        await pilot.pause()
        assert active(screen) == "files"
        viewer = await open_entry(pilot, screen, "code.py")
        assert viewer.needle == ""
        assert isinstance(screen.query_one("#viewer-body", Static).content, Syntax)


def _with_crc_fixed(egg: bytes, name: str) -> bytes:
    """``egg`` with entry ``name``'s CRC-32 recomputed in both headers (its bytes then pass
    the container checks and fail only their manifest hash)."""
    import struct
    import zlib

    from tui.eggs.zip_reader import EggSource, StrictZipReader

    data = bytearray(egg)
    cd_size, cd_offset = struct.unpack_from("<II", data, len(data) - 22 + 12)
    pos = cd_offset
    while pos < cd_offset + cd_size:
        name_len, extra, comment = struct.unpack_from("<HHH", data, pos + 28)
        local = struct.unpack_from("<I", data, pos + 42)[0]
        if bytes(data[pos + 46 : pos + 46 + name_len]) == name.encode():
            start = local + 30 + name_len
            size = struct.unpack_from("<I", data, pos + 24)[0]
            crc = zlib.crc32(data[start : start + size])
            struct.pack_into("<I", data, pos + 16, crc)
            struct.pack_into("<I", data, local + 14, crc)
        pos += 46 + name_len + extra + comment
    StrictZipReader(EggSource.of(bytes(data))).read_directory()
    return bytes(data)


async def test_the_viewer_says_when_an_entry_is_not_the_manifests_bytes():
    egg, record = demo_egg()
    tampered = _with_crc_fixed(flip_byte(egg, "soul.md", 3), "soul.md")
    async with InspectorApp(tampered, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await open_entry(pilot, screen, "soul.md")
        status = plain(screen.query_one("#viewer-status", Static))
        assert status.startswith("✗ HASH MISMATCH")
    async with InspectorApp(flip_byte(egg, "soul.md", 3), record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)  # the CRC fails: the safe reader still hashes the bytes
        await open_entry(pilot, screen, "soul.md")
        note = plain(screen.query_one("#files-note", Static))
        assert note.startswith("UNVERIFIED") and "1 differs" in note and "CRC-32" in note
        status = plain(screen.query_one("#viewer-status", Static))
        assert status.startswith("✗ HASH MISMATCH") and "UNVERIFIED" in status
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await open_entry(pilot, screen, "soul.md")
        assert "HASH" not in plain(screen.query_one("#viewer-status", Static))


async def test_a_match_deep_in_one_long_line_is_scrolled_into_view():
    line = b'{"k":"' + b"abcdefghij" * 2000 + b'NEEDLE"}'  # minified: one line, many rows
    egg, record = extra_files_egg({"one.json": line})
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        viewer = await open_entry(pilot, screen, "one.json")
        await pilot.press("slash", *"NEEDLE", "enter")
        for _ in range(3):
            await pilot.pause()
        scroll = viewer.scroll
        assert scroll.scroll_y > 100  # ~20 000 characters at < 80 columns: hundreds of rows
        assert scroll.scroll_y <= scroll.max_scroll_y


async def test_vim_jumps_in_the_report_and_help_lists_the_inspectors_keys():
    """In `roost egg inspect` (its own app): g/G/ctrl+d, ? lists the inspector's keys (those
    kept off the key bar too), q quits."""
    from tui.eggs.pipeline import check_local
    from tui.ui.screens.boots.inspector_app import InspectorApp as RoostInspectorApp
    from tui.ui.screens.help import HelpScreen

    egg, record = demo_egg()
    report = check_local(egg, record).report
    async with RoostInspectorApp(egg, record, report=report).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        listing = screen.query_one("#report-list", OptionList)
        await pilot.press("G")
        assert listing.highlighted == listing.option_count - 1
        await pilot.press("g")
        assert listing.highlighted == 0
        await pilot.press("ctrl+d")
        assert listing.highlighted and listing.highlighted > 1
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(pilot.app.screen, HelpScreen)
        help_screen = pilot.app.screen
        for _ in range(3):  # a burst: no refresh between the keys, each still moves a line
            help_screen.action_scroll("down")
        await pilot.pause()
        assert help_screen.query_one("#help-body").scroll_y == 3
        keys = plain(pilot.app.screen.query_one("#help-keys", Static))
        assert keys.startswith("Egg inspector")
        for words in ("Hex/text", "Prev page", "Prev pane", "Previous match", "Quit"):
            assert words in keys
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is screen
        await pilot.press("q")
        await pilot.pause()
    assert pilot.app.return_code == 0


async def test_a_json_entry_is_indented_and_r_shows_its_own_bytes():
    """A minified JSON file reads as one line of hundreds of kilobytes: the viewer indents it;
    r shows the file's own bytes, and again r the indented form."""
    value = {"items": [{"id": n, "name": f"item {n}", "tags": ["a", "b"]} for n in range(2000)]}
    minified = json.dumps(value, separators=(",", ":")).encode()
    egg, record = extra_files_egg({"data/big.json": minified})
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("tab", "tab")
        await pilot.pause()
        assert screen.open_entry("data/big.json")
        await pilot.pause()
        viewer = screen.query_one(EntryViewer)
        assert viewer.pages.pretty and viewer.pages.size > len(minified)
        body = plain(screen.query_one("#viewer-body", Static))
        assert body.startswith('{\n  "items": [\n    {\n      "id": 0,')
        assert "indented (r: its own bytes)" in plain(screen.query_one("#viewer-status", Static))
        await pilot.press("r")
        await pilot.pause()
        assert not viewer.pages.pretty and viewer.pages.size == len(minified)
        assert plain(screen.query_one("#viewer-body", Static)).startswith('{"items":[{"id":0,')
        assert "as stored (r: indented)" in plain(screen.query_one("#viewer-status", Static))
        await pilot.press("r")
        await pilot.pause()
        assert viewer.pages.pretty


async def test_the_viewer_gives_a_files_size_as_stored_and_says_when_it_is_indented():
    """Indented, a JSON entry is larger than the file: the status gave the indented size as the
    file's, and byte positions that were the indented text's."""
    from tui.ui.screens.boots.json_text import size_text

    minified = json.dumps({"a": [1, 2, {"b": "c"}], "d": "e" * 40}, separators=(",", ":"))
    egg, record = extra_files_egg({"data/small.json": minified.encode()})
    async with InspectorApp(egg, record).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert screen.open_entry("data/small.json")
        await pilot.pause()
        viewer = screen.query_one(EntryViewer)
        assert viewer.pages.pretty and viewer.pages.size != len(minified)
        status = plain(screen.query_one("#viewer-status", Static))
        assert f"data/small.json · {size_text(len(minified))} · " in status
        assert size_text(viewer.pages.size) not in status
        assert "shown indented" in status and "bytes 0" not in status
        await pilot.press("r")
        await pilot.pause()
        status = plain(screen.query_one("#viewer-status", Static))
        assert f"data/small.json · {size_text(len(minified))} · json as stored" in status
        assert f"bytes 0–{len(minified)}" in status


async def test_a_legacy_eggs_entries_are_inflated_off_the_event_loop_and_shown():
    from tests.legacy_eggs import AGENT, legacy_egg

    async with InspectorApp(legacy_egg()).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert screen.report.legacy
        assert screen.open_entry("agents/field_notes_agent.py")  # a worker inflates it
        await ready(pilot)
        viewer = screen.query_one(EntryViewer)
        assert active(screen) == "viewer"
        assert viewer.pages is not None and viewer.pages.name == "agents/field_notes_agent.py"
        assert "AGENT_ID" in plain(screen.query_one("#viewer-body", Static))
        assert viewer.pages.size == len(AGENT)
        status = plain(screen.query_one("#viewer-status", Static))
        assert status.startswith("· legacy egg: its CRC-32 checked, no hash promised ·")
        assert "no hashes, no address" in plain(screen.query_one("#manifest-body", Static))
