"""Keys that arrive in one burst (a fast typist, a paste of keystrokes over SSH, tmux send-keys)
reach the form in the order they were typed.

The terminal driver hands a burst to the app at once; the app forwards each key to the widget
focused *at that moment* faster than the widget handles it. ``pilot.press`` waits after every key
and cannot show this, so these tests post the burst the way the driver does.
"""

from __future__ import annotations

import pytest
from forms_rig import FormsHost, demo_snapshot, open_form, settle
from textual import events
from textual.widgets import TextArea

from tui.actions.action_context import ActionContext
from tui.ui.screens.forms.form import ActionForm

SNAPSHOT = demo_snapshot()

NAMED = {"\t": "tab", "\r": "enter", "\x13": "ctrl+s", "\x1b": "escape"}


def burst(app, typed: str, *, shift_tab_at: set[int] = frozenset()) -> None:
    """Post every key of ``typed`` to the app at once, as the driver does with one read."""
    for index, char in enumerate(typed):
        if index in shift_tab_at:
            app.post_message(events.Key("shift+tab", None))
        elif char in NAMED:
            app.post_message(events.Key(NAMED[char], char if char not in "\x13\x1b" else None))
        else:
            app.post_message(events.Key(char, char))


@pytest.mark.parametrize("key", ["\t", "\r"], ids=["tab", "enter"])
async def test_tab_or_enter_in_a_burst_moves_to_the_next_field(key):
    app = FormsHost(SNAPSHOT)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "register_agent")
        burst(app, f"ab{key}xy{key}zz")
        await settle(pilot)
        values = form.values()
        assert (values["name"], values["framework"], values["bio"]) == ("ab", "xy", "zz")
        assert isinstance(app.focused, TextArea) and app.focused.id == "field-bio"


async def test_shift_tab_in_a_burst_goes_back():
    app = FormsHost(SNAPSHOT)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "register_agent")
        # a, tab, b, shift+tab, c: "ac" in the name, "b" in the framework
        burst(app, "a\tb?c", shift_tab_at={3})
        await settle(pilot)
        values = form.values()
        assert (values["name"], values["framework"]) == ("ac", "b")


async def test_ctrl_s_in_a_burst_sends_what_was_typed_before_it():
    app = FormsHost(SNAPSHOT)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_form(pilot, "register_agent")
        burst(app, "ab\txy\tzz\x13")
        await settle(pilot)
        assert len(app.submitted) == 1
        payload = dict(app.submitted[0].payload)
        assert (payload["name"], payload["framework"], payload["bio"]) == ("ab", "xy", "zz")


async def test_enter_in_a_text_area_is_a_new_line_not_the_next_field():
    app = FormsHost(SNAPSHOT)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "register_agent")
        burst(app, "ab\txy\tline one\rline two")
        await settle(pilot)
        assert form.values()["bio"] == "line one\nline two"
        assert app.focused is not None and app.focused.id == "field-bio"


def heading_in_view(form: ActionForm, name: str) -> bool:
    fields = form.query_one("#form-fields")
    label = form.row(name).query_one(".field-label")
    return fields.region.contains_region(label.region)


async def test_the_first_fields_heading_is_in_view_when_opened_and_when_restored():
    app = FormsHost(SNAPSHOT)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "register_agent")
        await settle(pilot)
        assert heading_in_view(form, "name"), form.query_one("#form-fields").scroll_y
        burst(app, "ab\txy\tzz")
        await settle(pilot)
        await pilot.press("escape")  # kept as a draft
        await settle(pilot)
        restored = await open_form(pilot, "register_agent")
        await settle(pilot)
        assert restored is not form and restored.values()["name"] == "ab"
        assert heading_in_view(restored, "name")
        assert heading_in_view(restored, "public_key")  # the field that has the focus
        assert app.focused is not None and app.focused.id == "field-public_key"


def login_line(form: ActionForm) -> str:
    return str(form.query_one("#form-login").render())


async def test_the_form_says_when_the_acting_login_is_not_an_agent_yet():
    app = FormsHost(SNAPSHOT, login="newcomer-9")
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "heartbeat")
        line = login_line(form)
        assert "acting as newcomer-9" in line
        assert "not registered here: send register_agent first" in line
        await pilot.press("escape")
        await settle(pilot)
        form = await open_form(pilot, "register_agent")
        assert "not registered" not in login_line(form)  # registering is the way in


async def test_a_registered_login_gets_no_warning_except_on_register_again():
    member = next(iter(SNAPSHOT.agents.agents))
    app = FormsHost(SNAPSHOT, login=member.upper())  # logins compare case-insensitively
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "heartbeat")
        assert "registered" not in login_line(form)
        await pilot.press("escape")
        await settle(pilot)
        form = await open_form(pilot, "register_agent")
        assert "already registered: update_profile changes a profile" in login_line(form)


def keys_at_once(app, *keys: str) -> None:
    """Post ``keys`` (single characters, or key names like ``ctrl+u``) at once, as one read."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


@pytest.mark.parametrize("field", ["name", "bio"], ids=["input", "text-area"])
@pytest.mark.parametrize(
    ("keys", "left"),
    [
        (("a", "b", "c", "ctrl+u", "x", "y", "z"), "xyz"),
        (("a", "b", "c", "backspace", "d"), "abd"),
        (("a", "b", "c", "home", "x", "end", "y"), "xabcy"),
    ],
    ids=["ctrl+u", "backspace", "home-end"],
)
async def test_editing_keys_in_a_burst_act_in_order(field, keys, left):
    """A key the field does not type (ctrl+u, backspace, home) acts where it was typed, not
    after the characters that came behind it in the same burst."""
    app = FormsHost(SNAPSHOT)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "register_agent")
        form.row(field).editor.focus()
        await settle(pilot)
        keys_at_once(app, *keys)
        await settle(pilot)
        assert form.values()[field] == left


@pytest.mark.parametrize("field", ["framework", "bio"], ids=["input", "text-area"])
async def test_tab_end_ctrl_u_and_text_in_a_burst_replace_the_next_fields_text(field):
    """``tab end ctrl+u text`` in one burst: the next field's old text goes, ``text`` stays
    (the editing keys used to act after ``text`` was typed, and took it with them)."""
    app = FormsHost(SNAPSHOT)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "register_agent")
        form.row(field).editor.focus()
        await pilot.press(*"old")
        form.row("name" if field == "framework" else "framework").editor.focus()
        await settle(pilot)
        keys_at_once(app, "tab", "end", "ctrl+u", *"text")
        await settle(pilot)
        assert form.values()[field] == "text"
        assert app.focused is form.row(field).editor


async def test_keys_after_escape_in_a_burst_act_where_the_form_closed_to():
    """``ab`` escape ``n`` in one read: the draft keeps ``ab`` and ``n`` acts on the screen the
    form closed to (here it opens the picker again), instead of being typed into the form."""
    app = FormsHost(SNAPSHOT)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_form(pilot, "register_agent")
        burst(app, "ab\x1bn")
        await settle(pilot)
        assert app.drafts.kept("register_agent").values["name"] == "ab"
        assert not isinstance(app.screen, ActionForm)
        assert app.screen.query_one("#picker-filter").has_focus  # n opened the picker


async def test_escape_in_a_burst_closes_the_completions_first_and_typing_goes_on():
    app = FormsHost(SNAPSHOT, ActionContext())
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "poke")
        burst(app, "zion\x1bx")
        await settle(pilot)
        assert isinstance(app.screen, ActionForm)
        assert form.values()["target_agent"] == "zionx"
