"""The action form's edges a new user met: which field has the focus, in colour as without it."""

from __future__ import annotations

import pytest
from app_rig import painted
from forms_rig import FormsHost, demo_snapshot, open_form, settle

SNAPSHOT = demo_snapshot()
BAR = "\u258c"


def row_text(app, text: str) -> str:
    """The first painted row that shows ``text``, as drawn."""
    for row in painted(app).strips:
        line = "".join(segment.text for chop in row for segment in chop)
        if text in line:
            return line
    raise AssertionError(f"{text!r} is not on the screen")


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
