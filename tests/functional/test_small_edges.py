"""Small edges a new user met in the dashboard: each key a hint line names does what it says,
a sort starts at the top, a guest's footer offers no posting."""

from __future__ import annotations

import re

import pytest
from app_rig import loaded, make_rig, settle

from tests.functional.test_outbox_screen import Host, fill
from tui.actions.outbox import Outbox
from tui.ui.screens.outbox.screen import _HINTS, OutboxScreen

#: Words of a hint that say nothing of what its key does.
_FILLER = {"the", "their", "its", "then", "and"}


def hint_pairs(line: str) -> list[tuple[str, str]]:
    """``(key, what it does)`` for each one-character key of a hint line ("t read the thread ·
    a author · …")."""
    pairs = []
    for part in line.split(" \u00b7 "):
        key, _, does = part.strip().partition(" ")
        if len(key) == 1 and does:
            pairs.append((key, does))
    return pairs


def names_it(does: str, description: str) -> bool:
    """Whether the hint's words name the binding's description (word stems: "reads" ~ "Read")."""
    stems = [word[:4] for word in re.findall(r"[a-z]{3,}", does.lower()) if word not in _FILLER]
    return any(stem in description.lower() for stem in stems)


def assert_keys_do_what_the_hint_says(screen, line: str) -> None:
    pairs = hint_pairs(line)
    assert pairs, line
    active = screen.active_bindings
    for key, does in pairs:
        assert key in active, f"{key!r} ({does}) is bound to nothing here"
        description = active[key].binding.description
        assert names_it(does, description), f"the hint says {key} {does}; {key} is {description}"


@pytest.mark.parametrize("tab", ["agents", "channels", "trending"])
async def test_each_key_a_detail_names_is_the_key_that_does_it(tab):
    rig = make_rig(screen=tab)
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = rig.app.screen
        body = screen.detail.query_one("#detail-body").render().plain
        line = next(text for text in body.split("\n") if "J raw JSON" in text)
        assert_keys_do_what_the_hint_says(screen, line)
        await pilot.press("h")  # from the table, the same keys
        await settle(pilot)
        assert_keys_do_what_the_hint_says(screen, line)


@pytest.mark.parametrize("view", ["list", "detail"])
async def test_the_outbox_hints_name_its_keys_and_every_key_it_shows(tmp_path, view):
    app = Host(_filled(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OutboxScreen)
        line = _HINTS[view]
        assert_keys_do_what_the_hint_says(screen, line)
        named = {key for key, _does in hint_pairs(line)}
        shown = {b.key for b in OutboxScreen.BINDINGS if b.show and len(b.key) == 1}
        assert shown <= named, f"not in the {view} hints: {sorted(shown - named)}"


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_outbox_hints_are_cut_nowhere(tmp_path, size):
    app = Host(_filled(tmp_path))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for view in ("list", "detail"):
            if view == "detail":
                await pilot.press("enter")
                await settle(pilot)
            shown = app.screen.query_one("#outbox-hints").render()
            lines = [line.rstrip() for line in str(shown).split("\n")]
            assert all(len(line) <= size[0] - 2 for line in lines)
            for part in _HINTS[view].split(" \u00b7 "):  # each key with what it does, whole
                assert any(part in line for line in lines), f"{part!r} is cut at {size[0]}"


def _filled(folder) -> Outbox:
    outbox = Outbox(folder / "outbox", "example.org/network")
    fill(outbox)
    return outbox


# ------------------------------------------------------------------------- a sort starts at the top


@pytest.mark.parametrize("keys", [("s", "a"), ("S",)], ids=["sort picker", "reverse"])
async def test_after_a_sort_the_view_starts_at_the_top(keys):
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        table = rig.app.screen.table
        await pilot.press("G")  # the last row: the view scrolled down
        await settle(pilot)
        assert table.cursor_row > 0 and table.scroll_y > 0
        await pilot.press(*keys)
        await settle(pilot)
        assert table.sort_column is not None
        assert table.cursor_row == 0 and table.scroll_y == 0
        assert table.cursor_key == table.visible_keys()[0]


async def test_a_seeds_list_sorted_starts_at_the_top_too():
    rig = make_rig(screen="seeds")
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen = rig.app.screen
        await pilot.press("right_square_bracket")  # the proposals list
        await settle(pilot)
        table = screen.list("proposals").table
        assert rig.app.focused is table
        await pilot.press("G")
        await settle(pilot)
        assert table.cursor_row > 0
        await pilot.press("S")
        await settle(pilot)
        assert table.sort_column is not None
        assert table.cursor_row == 0 and table.scroll_y == 0


# ------------------------------------------------------------------------- a guest's footer


def footer_keys(app) -> list[str]:
    from tui.ui.widgets.key_bar import KeyBar

    shown, _palette = app.screen.query_one(KeyBar).keys()
    return [item.key for item in shown]


async def test_a_guests_footer_offers_no_posting_and_n_still_says_why():
    from textual.notifications import Notify

    from tui.config import Settings
    from tui.service import connect
    from tui.session import Session
    from tui.ssh.mode import GUEST, GUEST_CANNOT_POST, KEYED
    from tui.ui.app import RoostApp

    seen: list = []
    guest = RoostApp(connect(Settings(), Session(ssh_role=GUEST), use_cache=False), poll=False)
    async with guest.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await loaded(pilot)
        assert "n" not in footer_keys(guest) and "r" in footer_keys(guest)
        await pilot.press("7")  # the Posts tab, then a thread: no c, R or + either
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert {"c", "R", "plus"}.isdisjoint(footer_keys(guest))
        assert "escape" in footer_keys(guest)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        said = [str(m.notification.message) for m in seen if isinstance(m, Notify)]
        assert GUEST_CANNOT_POST in said  # the key is not offered, yet still says why
    keyed = RoostApp(connect(Settings(), Session(ssh_role=KEYED), use_cache=False), poll=False)
    async with keyed.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        assert "n" in footer_keys(keyed)
