"""NO_COLOR (no-color.org): no colour leaves roost, and what must stay distinct — the cursor row,
the table header, the active tab, a bad status — is drawn with attributes instead."""

from __future__ import annotations

import pytest
from app_rig import loaded, make_rig, painted, settle
from rich.color import ColorType


def row_styles(app, y: int) -> list:
    return [segment.style for chop in painted(app).strips[y] for segment in chop if segment.text]


def styles_at(app, text: str) -> list:
    """The styles of the first painted row that shows ``text``, from where it starts."""
    for row in painted(app).strips:
        segments = [segment for chop in row for segment in chop if segment.text]
        line = "".join(segment.text for segment in segments)
        if text in line:
            at = line.index(text)
            seen = 0
            for index, segment in enumerate(segments):
                if seen + len(segment.text) > at:
                    return [segment.style for segment in segments[index:]]
                seen += len(segment.text)
    raise AssertionError(f"{text!r} is not on the screen")


def colour_free(style) -> bool:
    return style is None or all(
        colour is None or colour.type == ColorType.DEFAULT
        for colour in (style.color, style.bgcolor)
    )


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_no_color_sends_no_colour_and_keeps_the_cursor_distinct(monkeypatch, size):
    monkeypatch.setenv("NO_COLOR", "1")
    rig = make_rig()
    async with rig.app.run_test(size=size) as pilot:
        await loaded(pilot)
        await pilot.press("j")
        await settle(pilot)
        update = painted(rig.app)
        every = [s.style for row in update.strips for chop in row for s in chop if s.text]
        assert every and all(colour_free(style) for style in every)
        header = row_styles(rig.app, 2)
        cursor = row_styles(rig.app, 4)  # j: the second data row
        other = row_styles(rig.app, 3)
        assert header[0].underline and header[0].bold and not header[0].reverse
        assert cursor[0].reverse and cursor[0].bold
        assert not other[0].reverse and not other[0].underline
        tab = styles_at(rig.app, "1 Agents")
        assert tab[0].underline and tab[0].bold  # the active tab
        if size[0] >= 120:  # the detail opens beside the table and takes the focus
            await pilot.press("enter", "l")
            await settle(pilot)
            assert not rig.app.screen.table.has_focus
            assert row_styles(rig.app, 4)[0].reverse  # still distinct, blurred


async def test_without_no_color_the_theme_colours_are_sent(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert not all(colour_free(style) for style in row_styles(rig.app, 3))


def painted_line(app, text: str) -> int:
    """The index of the first painted row that shows ``text``."""
    for y, row in enumerate(painted(app).strips):
        if text in "".join(segment.text for chop in row for segment in chop):
            return y
    raise AssertionError(f"{text!r} is not on the screen")


def reversed_text(app, y: int) -> str:
    """What painted row ``y`` shows in reverse video, left of the dialog's scrollbar."""
    segments = [segment for chop in painted(app).strips[y] for segment in chop if segment.text]
    shown, column = [], 0
    for segment in segments:
        if segment.style is not None and segment.style.reverse and column < 75:
            shown.append(segment.text)
        column += len(segment.text)
    return "".join(shown)


async def test_no_color_form_fields_show_the_cursor_and_which_field_has_the_focus(monkeypatch):
    """The cursor is reversed (its background colour is dropped), an empty focused field shows
    it, and the focused field has a bar and an underlined label the others have not."""
    from textual.widgets import TextArea

    monkeypatch.setenv("NO_COLOR", "1")
    rig = make_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press(*"create_topic", "enter")
        await settle(pilot)
        app = rig.app
        for editor in app.screen.query("Input, TextArea"):
            editor.cursor_blink = False
        every = [s.style for row in painted(app).strips for chop in row for s in chop if s.text]
        assert all(colour_free(style) for style in every)
        slug, name = painted_line(app, "Slug *"), painted_line(app, "Name *")
        assert reversed_text(app, slug + 1) == " "  # empty and focused: the cursor cell
        assert reversed_text(app, name + 1) == ""
        assert "\u258cSlug *" in "".join(s.text for c in painted(app).strips[slug] for s in c)
        assert styles_at(app, "Slug *")[0].underline
        assert not styles_at(app, "Name *")[0].underline
        await pilot.press(*"ab", "tab", "tab")  # on to the description, a text area
        await settle(pilot)
        assert isinstance(app.focused, TextArea)
        app.focused.cursor_blink = False
        await settle(pilot)
        description = painted_line(app, "Description *")
        assert reversed_text(app, description + 1) == " "
        assert not styles_at(app, "Slug *")[0].underline
        assert styles_at(app, "Description *")[0].underline
