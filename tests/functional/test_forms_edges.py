"""The action form's edges a new user met: which field has the focus, in colour as without it,
and an id that the network's state does not hold, flagged beside its field before sending."""

from __future__ import annotations

import pytest
from app_rig import painted
from forms_rig import FormsHost, demo_snapshot, open_form, settle

from tui.ui.screens.forms import ActionContext

SNAPSHOT = demo_snapshot()
AGENT = next(iter(SNAPSHOT.agents.agents))
CHANNEL = sorted(SNAPSHOT.channels.channels)[0]
BAR = "\u258c"


def row_text(app, text: str) -> str:
    """The first painted row that shows ``text``, as drawn."""
    for row in painted(app).strips:
        line = "".join(segment.text for chop in row for segment in chop)
        if text in line:
            return line
    raise AssertionError(f"{text!r} is not on the screen")


def warning_of(form, name: str) -> str:
    box = form.row(name).query_one(".field-warning")
    return str(box.render()) if box.display else ""


def problems_of(form, name: str) -> str:
    box = form.row(name).query_one(".field-problems")
    return str(box.render()) if box.display else ""


# ------------------------------------------------------------------------- the focused field


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light", "nord", "gruvbox"])
async def test_the_focused_field_has_a_bar_beside_it_in_every_theme(theme):
    app = FormsHost(SNAPSHOT)
    async with app.run_test(size=(80, 24)) as pilot:
        app.theme = theme
        await open_form(pilot, "create_topic")
        await settle(pilot)
        assert f"{BAR}Slug *" in row_text(app, "Slug *")
        assert BAR not in row_text(app, "Name *")
        await pilot.press("tab")
        await settle(pilot)
        assert BAR not in row_text(app, "Slug *")  # the bar moves with the focus
        assert f"{BAR}Name *" in row_text(app, "Name *")
        # the editor under the label has the bar too: the whole field is marked
        lines = ["".join(s.text for c in row for s in c) for row in painted(app).strips]
        at = next(i for i, line in enumerate(lines) if "Name *" in line)
        assert lines[at + 1].strip("│ ").startswith(BAR)


# ------------------------------------------------------------------------- ids not in the state


async def test_an_agent_not_in_the_state_is_flagged_beside_the_field_and_still_sent():
    app = FormsHost(SNAPSHOT)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "poke")
        await pilot.press(*"nobody-at-all")
        await settle(pilot)
        assert warning_of(form, "target_agent") == ("\u26a0 not an agent in this network's state")
        assert problems_of(form, "target_agent") == ""  # a warning, not a problem
        assert "not an agent in this network's state" in row_text(app, "not an agent")
        await pilot.press("ctrl+a", "ctrl+k", *AGENT)  # an agent it holds: the flag goes
        await settle(pilot)
        assert warning_of(form, "target_agent") == ""
        await pilot.press("ctrl+a", "ctrl+k", *"nobody-at-all", "ctrl+s")
        await settle(pilot)
        assert [dict(d.payload) for d in app.submitted] == [{"target_agent": "nobody-at-all"}]


async def test_a_prefilled_id_and_a_list_are_checked_too():
    app = FormsHost(SNAPSHOT, ActionContext("agent", "ghost-agent"))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "follow_agent")
        await settle(pilot)
        assert warning_of(form, "target_agent").endswith("not an agent in this network's state")
        await pilot.press("escape")
        await settle(pilot)
        form = await open_form(pilot, "heartbeat")
        form.row("subscribed_channels").set_text(f"{CHANNEL}\nnot-a-channel\n")
        await settle(pilot)
        assert warning_of(form, "subscribed_channels") == (
            "\u26a0 not a channel in this network's state: not-a-channel"
        )


async def test_an_id_half_typed_is_not_flagged_while_completions_are_offered():
    app = FormsHost(SNAPSHOT)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "create_post")
        await pilot.press(*CHANNEL[:2])
        await settle(pilot)
        row = form.row("channel")
        assert row.completions.display  # still choosing: no flag yet
        assert warning_of(form, "channel") == ""
        await pilot.press("tab")  # left half typed: now it is flagged
        await settle(pilot)
        assert warning_of(form, "channel") == "\u26a0 not a channel in this network's state"
        await pilot.press("shift+tab", "ctrl+a", "ctrl+k", *CHANNEL)
        await settle(pilot)
        assert warning_of(form, "channel") == ""
