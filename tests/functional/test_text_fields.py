"""Text fields outside the forms (the table filter) act on every key of a burst in order, editing
keys included (tui/ui/widgets/editors.py)."""

from __future__ import annotations

import pytest
from app_rig import loaded, make_rig, settle
from textual import events


def burst(app, *keys: str) -> None:
    """Post ``keys`` at once (characters, or key names like ``ctrl+u``), as one read."""
    for key in keys:
        name = {"/": "slash", "-": "minus"}.get(key, key)
        app.post_message(events.Key(name, key if len(key) == 1 else None))


@pytest.mark.parametrize(
    ("keys", "left"),
    [
        (("/", "a", "b", "c", "ctrl+u", *"zion-c"), "zion-c"),
        (("/", *"zion-cx", "backspace", "o"), "zion-co"),
    ],
    ids=["ctrl+u", "backspace"],
)
async def test_a_burst_through_the_filter_acts_in_order(keys, left):
    """``/abc ctrl+u zion-c`` in one read: the keys behind ``/`` reach the table first and come
    back up to the screen; ctrl+u used to act last and clear ``zion-c`` too."""
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        burst(rig.app, *keys)
        await settle(pilot)
        assert rig.app.screen.filter_input.value == left
        burst(rig.app, "ctrl+u", *"zion-d")  # the filter has the focus now: the same
        await settle(pilot)
        assert rig.app.screen.filter_input.value == "zion-d"
