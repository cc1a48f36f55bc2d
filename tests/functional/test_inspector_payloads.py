"""The inspector on what it used to hide: a failed egg (read-only, unverified, behind a red
banner), a session's transcript, an invite's target and signature, a neighborhood's members
opened as eggs of their own with a breadcrumb back. Snapshots at 80×24."""

from __future__ import annotations

from egg_fixtures import ESCAPE_TEXT, HOSTILE_NAME, InspectorApp
from rich.text import Text
from test_inspector_snapshots import steps
from textual.widgets import OptionList, Static, TabbedContent, Tree
from textual_idle import settle

from tui.eggs import rapp
from tui.eggs.canonical_json import canonical
from tui.sandbox.eggs import pack_egg, write_stored_zip
from tui.ui.screens.boots.inspector import EggInspectorScreen

SIZE = (80, 24)
UTC = "2026-01-01T00:00:00.000Z"
TAIL = "ab" * 32
ME = f"rappid:@me/thing:{TAIL}"
PLACEHOLDER = "MIGRATED-UNSIGNED-legacy-pointer"
FILES = {
    "agent.py": b"print('hello')\n",
    "docs/readme.md": b"# readme\n",
    "rappid.json": canonical({"rappid": ME}),
}


def plain(widget: Static) -> str:
    content = widget.content
    return content.plain if isinstance(content, Text) else str(getattr(content, "code", content))


def failed_egg() -> bytes:
    """A rapplication whose agent.py was changed, one file gone and one added after packing."""
    listed = {**FILES, "gone.txt": b"gone"}
    paths = sorted(listed, key=rapp.path_sort_key)
    value = {"schema": "rapp/1-egg", "variant": "rapplication", "rappid": ME, "created_utc": UTC,
             "contents": [{"path": p, "hash": rapp.Hb("rapp/1:egg", listed[p])} for p in paths],
             "payload": {}, "sig": None}  # fmt: skip
    files = {**FILES, "agent.py": b"import os  # changed\n", "zz-extra.txt": b"extra"}
    return write_stored_zip([("manifest.json", canonical(value)), *sorted(files.items())])


def unreadable_egg() -> bytes:
    return write_stored_zip([("manifest.json", b"{}"), ("../escape.txt", b"x")])


def json_egg(variant: str, payload: dict, sig: str | None = None) -> bytes:
    return canonical({"schema": "rapp/1-egg", "variant": variant, "rappid": ME, "created_utc": UTC,
                      "contents": [], "payload": payload, "sig": sig})  # fmt: skip


SESSION = {"runtime": "brainstem 0.9", "transcript": [
    {"role": "user", "text": "What does the newsroom publish tonight?", "time": "2026-01-01T20:00Z"},
    {"role": "assistant", "text": "Three stories:\n- the harbour\n- the vote\n- the weather",
     "time": "2026-01-01T20:01Z"},
    {"role": HOSTILE_NAME, "text": ESCAPE_TEXT, "time": "[bold]now[/]"},
]}  # fmt: skip
INVITE = {"target_rappid": f"rappid:@kody-w/estate:{TAIL}", "target_url":
          "https://hub.example/estates/kody-w", "target_kind": "estate"}  # fmt: skip


def organism(slug: str) -> tuple[bytes, str]:
    rappid = f"rappid:@me/{slug}:{TAIL}"
    egg, _ = pack_egg(variant="organism", rappid=rappid, created_utc=UTC, payload={},
                      files={"rappid.json": canonical({"rappid": rappid}), "soul.md": b"# soul"})  # fmt: skip
    return egg, rappid


def neighborhood() -> bytes:
    one, first = organism("one")
    two, second = organism("two")
    hood, _ = pack_egg(variant="neighborhood", rappid=f"rappid:@me/street:{TAIL}",
                       created_utc=UTC, payload={"members": [first, second]},
                       files={"me--one.egg": one, "me--two.egg": two})  # fmt: skip
    return hood


async def ready(pilot) -> EggInspectorScreen:
    await settle(pilot)
    assert isinstance(pilot.app.screen, EggInspectorScreen)
    return pilot.app.screen


async def to_pane(pilot, screen: EggInspectorScreen, pane: str) -> None:
    while screen.query_one(TabbedContent).active != pane:
        await pilot.press("tab")
        await settle(pilot)


async def test_a_failed_egg_is_shown_unverified_behind_a_red_banner():
    async with InspectorApp(failed_egg()).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        position, check = screen.report.first_failure
        banner = plain(screen.query_one("#inspector-banner", Static))
        assert banner == f"FAILED at check {position} — nothing in it is vouched for"
        manifest = plain(screen.query_one("#manifest-body", Static))
        assert manifest.startswith(
            f"// UNVERIFIED: read from an egg that FAILED at check {position}"
        )
        assert ME in manifest
        await to_pane(pilot, screen, "files")
        tree = screen.query_one(Tree)
        labels = [str(n.label) for n in tree.root.children]
        assert any(label.startswith("agent.py") and label.endswith("✗ differs") for label in labels)
        assert any(label.startswith("gone.txt") and label.endswith("✗ missing") for label in labels)
        assert any(
            label.startswith("zz-extra.txt") and label.endswith("✗ extra") for label in labels
        )
        assert any(
            label.startswith("rappid.json") and label.endswith("✓ matches") for label in labels
        )
        assert screen.open_entry("agent.py")
        await settle(pilot)
        assert screen.query_one(TabbedContent).active == "viewer"
        status = plain(screen.query_one("#viewer-status", Static))
        assert status.startswith("✗ HASH MISMATCH") and "UNVERIFIED" in status
        assert not screen.open_entry("gone.txt")  # listed, not in the archive: nothing to show


async def test_an_egg_that_cannot_be_read_safely_shows_the_report_only():
    async with InspectorApp(unreadable_egg()).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        banner = plain(screen.query_one("#inspector-banner", Static))
        assert "cannot be read safely (legacy.names" in banner
        assert "only the report is shown" in banner
        tabbed = screen.query_one(TabbedContent)
        assert all(tabbed.get_tab(p).disabled for p in ("manifest", "files", "viewer", "payload"))
        await pilot.press("tab")
        await settle(pilot)
        assert tabbed.active == "report"


async def test_a_session_reads_as_a_conversation_and_hostile_text_stays_literal():
    async with InspectorApp(json_egg("session", SESSION)).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        body = screen.query_one("#payload-body", Static).content
        text = body.renderables[0].plain
        assert "runtime brainstem 0.9 · 3 turns" in text
        assert "user  2026-01-01T20:00Z\n  What does the newsroom publish tonight?" in text
        assert "[bold red]Evil[/]" in text and "\x1b" not in text and "[bold]now[/]" in text


async def test_an_invite_names_its_target_and_a_placeholder_is_not_a_signature():
    egg = json_egg("invite", INVITE, PLACEHOLDER)
    async with InspectorApp(egg).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        body = screen.query_one("#payload-body", Static).content
        text = body.renderables[0].plain
        assert INVITE["target_rappid"] in text and INVITE["target_url"] in text
        assert "target kind    estate" in text
        assert f"not a signature: sig is the text '{PLACEHOLDER}', a placeholder" in text


async def test_a_neighborhoods_members_open_as_eggs_with_a_breadcrumb_back():
    async with InspectorApp(neighborhood(), title="street.egg").run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await to_pane(pilot, screen, "payload")
        listing = screen.query_one("#members-list", OptionList)
        assert screen.focused is listing and listing.option_count == 2
        prompt = str(listing.get_option_at_index(1).prompt)
        assert prompt.startswith("✓ me--two.egg") and "verified" in prompt
        assert "the organism payload.members[] names" in prompt
        await pilot.press("j", "enter")
        inner = await ready(pilot)
        assert inner is not screen and inner.depth == 1
        title = plain(inner.query_one("#inspector-title", Static))
        assert title == "Egg inspector · street.egg › me--two.egg"
        assert inner.report.verified and inner.report.manifest["rappid"] == f"rappid:@me/two:{TAIL}"
        await pilot.press("escape")
        assert await ready(pilot) is screen


def test_snapshot_failed_egg_report(snap_compare):
    app = InspectorApp(failed_egg(), title="tampered.egg")
    assert snap_compare(app, terminal_size=SIZE, run_before=steps())


def test_snapshot_failed_egg_files(snap_compare):
    app = InspectorApp(failed_egg(), title="tampered.egg")
    assert snap_compare(app, terminal_size=SIZE, run_before=steps("tab", "tab"))


def test_snapshot_unreadable_egg(snap_compare):
    app = InspectorApp(unreadable_egg(), title="escape.egg")
    assert snap_compare(app, terminal_size=SIZE, run_before=steps())


def test_snapshot_session_transcript(snap_compare):
    app = InspectorApp(json_egg("session", SESSION), title="session.egg")
    keys = ("tab", "tab", "tab", "tab")
    assert snap_compare(app, terminal_size=SIZE, run_before=steps(*keys))


def test_snapshot_invite(snap_compare):
    app = InspectorApp(json_egg("invite", INVITE, PLACEHOLDER), title="tutorial-invite.egg")
    keys = ("tab", "tab", "tab", "tab")
    assert snap_compare(app, terminal_size=SIZE, run_before=steps(*keys))


def test_snapshot_neighborhood_members_and_a_member(snap_compare):
    app = InspectorApp(neighborhood(), title="street.egg")
    keys = ("tab", "tab", "tab", "tab")
    assert snap_compare(app, terminal_size=SIZE, run_before=steps(*keys))


def test_snapshot_nested_member_breadcrumb(snap_compare):
    app = InspectorApp(neighborhood(), title="street.egg")
    keys = ("tab", "tab", "tab", "tab", "enter")
    assert snap_compare(app, terminal_size=SIZE, run_before=steps(*keys))
