"""Snapshots of the action picker and the generic form at 80×24 and 120×40.

The form's nonce is fixed (it is random in use) and cursors do not blink. Regenerate after a
deliberate change with ``pytest tests/functional/test_forms_snapshots.py --snapshot-update`` and
look at the SVGs in tests/functional/__snapshots__/ before committing them.
"""

from __future__ import annotations

import pytest
from forms_rig import FormsHost, demo_snapshot
from test_forms import FAMILIES
from textual.widgets import Input, TextArea

from tui.ui.screens.forms import ActionContext, Draft, MemoryDrafts

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])

SNAPSHOT = demo_snapshot()
AGENT = sorted(SNAPSHOT.agents.agents)[0]
PROPOSAL = SNAPSHOT.seeds.proposals[0].id


@pytest.fixture(autouse=True)
def _fixed_nonce(monkeypatch):
    monkeypatch.setattr("tui.ui.screens.forms.form.new_nonce", lambda: "0123456789abcdef")


def steps(*keys: str):
    """A run_before: press ``keys`` (``n`` first opens the picker), settle, stop the cursors."""

    async def run_before(pilot) -> None:
        app = pilot.app
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
        for screen in app.screen_stack:
            for widget in screen.query("Input, TextArea"):
                assert isinstance(widget, Input | TextArea)
                widget.cursor_blink = False
        await pilot.pause()

    return run_before


def host(context: ActionContext | None = None, **kwargs) -> FormsHost:
    return FormsHost(SNAPSHOT, context, **kwargs)


@SIZES
def test_picker_on_an_agent(snap_compare, size):
    run = steps("n")
    assert snap_compare(host(ActionContext("agent", AGENT)), terminal_size=size, run_before=run)


@SIZES
def test_picker_filtered(snap_compare, size):
    run = steps("n", *"seed")
    assert snap_compare(host(), terminal_size=size, run_before=run)


@SIZES
def test_text_form_with_completions(snap_compare, size):
    # create_post: a channel completed from the snapshot, a one-line title, a text area body
    run = steps(
        "n",
        *"crpost",
        "enter",
        "tab",
        *"Hello",
        "enter",
        *"line one",
        "enter",
        *"two",
        "shift+tab",
        "shift+tab",
        *"co",
    )
    assert snap_compare(host(), terminal_size=size, run_before=run)


@SIZES
def test_integer_form_with_validation_errors(snap_compare, size):
    run = steps("n", *"transf", "enter", "0", "tab", *"thanks", "ctrl+s")
    assert snap_compare(host(ActionContext("agent", AGENT)), terminal_size=size, run_before=run)


@SIZES
def test_choice_bool_and_list_form(snap_compare, size):
    run = steps(
        "n", "enter", "enter", "down", "enter", "tab", "space", "tab", *"ai", "enter", *"Bad Tag"
    )
    app = host(catalog={FAMILIES.name: FAMILIES})
    assert snap_compare(app, terminal_size=size, run_before=run)


@SIZES
def test_preview(snap_compare, size):
    # 80 columns: ctrl+t shows the preview in the fields' place; 120: it is beside them already
    toggle = ("ctrl+t",) if size[0] < 110 else ()
    run = steps("n", "enter", *toggle)
    app = host(ActionContext("proposal", PROPOSAL))
    assert snap_compare(app, terminal_size=size, run_before=run)


@SIZES
def test_required_fields_on_submit(snap_compare, size):
    run = steps("n", *"create_channel", "enter", "tab", *"Name", "ctrl+s")
    assert snap_compare(host(), terminal_size=size, run_before=run)


@SIZES
def test_picker_with_a_kept_draft(snap_compare, size):
    drafts = MemoryDrafts()
    drafts.keep(Draft("create_post", {"title": "Half written"}, nonce="0123456789abcdef"))
    app = host(ActionContext("channel", "general"), drafts=drafts)
    assert snap_compare(app, terminal_size=size, run_before=steps("n"))


@SIZES
def test_list_field_completing_a_line(snap_compare, size):
    run = steps("n", *"heartbeat", "enter", *"Back", "tab", *"general", "enter", *"phi")
    assert snap_compare(host(), terminal_size=size, run_before=run)
