"""tui/ui/widgets/text.py: service text to safe Text/Content, ages, counts, bars, stamps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from rich.text import Text
from textual.content import Content

from tui.ui.widgets.text import (
    age,
    age_seconds,
    bar,
    content,
    count,
    epoch_seconds,
    hang_labelled,
    labelled,
    plain,
    short,
    stamp,
    when,
)

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def test_plain_and_content_keep_markup_literal_and_show_controls():
    hostile = "[bold]x[/] \x1b[31m"
    assert isinstance(plain(hostile), Text)
    assert plain(hostile).plain == "[bold]x[/] \u241b[31m"
    assert plain(hostile).spans == []  # nothing was parsed as markup
    assert isinstance(content(hostile), Content)
    assert content(hostile).plain == "[bold]x[/] \u241b[31m"
    assert content(hostile).spans == []


def test_plain_and_content_multiline():
    assert plain("a\nb", multiline=True).plain == "a\nb"
    assert plain("a\nb").plain == "a\u240ab"
    assert content("a\tb", multiline=True).plain == "a    b"


def test_plain_carries_the_style_and_no_line_end():
    text = plain("x", style="bold")
    assert text.style == "bold"
    assert text.end == ""


def test_short_is_one_clean_line():
    assert short("a\nb" * 100, 5) == "a\u240aba\u2026"
    assert short(ValueError("bad\x1b")) == "bad\u241b"


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0, "0s"),
        (59.9, "59s"),
        (60, "1m"),
        (3599, "59m"),
        (3600, "1h"),
        (86399, "23h"),
        (86400, "1d"),
        (365 * 86400 - 1, "364d"),
        (365 * 86400, "1y"),
        (-30, "0s"),  # clock skew
        (-300, "+5m"),
        (None, "\u2014"),
    ],
)
def test_age_seconds(seconds, expected):
    assert age_seconds(seconds) == expected


def test_age_and_when():
    assert age(None, NOW) == "\u2014"
    assert age(NOW - timedelta(hours=3), NOW) == "3h"
    assert when(NOW - timedelta(hours=3), NOW) == "2026-11-01 09:00Z (3h ago)"
    assert when(NOW + timedelta(minutes=5), NOW) == "2026-11-01 12:05Z (in 5m)"
    assert when(None, NOW) == "\u2014"


def test_epoch_seconds():
    assert epoch_seconds("2026-11-01T12:00:00Z") == NOW.timestamp()
    assert epoch_seconds("2026-11-01T12:00:00") == NOW.timestamp()  # naive means UTC
    assert epoch_seconds("2026-11-01T13:00:00+01:00") == NOW.timestamp()
    assert epoch_seconds("not a date") is None
    assert epoch_seconds(None) is None
    assert epoch_seconds("") is None


def test_count():
    assert count(None) == "\u2014"
    assert count(1234567) == "1,234,567"
    assert count(12.0) == "12"
    assert count(1234.5) == "1,234.50"


@pytest.mark.parametrize(
    ("fraction", "width", "expected"),
    [
        (0.0, 4, "\u00b7\u00b7\u00b7\u00b7"),
        (1.0, 4, "\u2588\u2588\u2588\u2588"),
        (0.5, 4, "\u2588\u2588\u00b7\u00b7"),
        (1 / 16, 2, "\u258f\u00b7"),  # one eighth of a cell
        (0.25, 2, "\u258c\u00b7"),  # half a cell
        (2.0, 3, "\u2588\u2588\u2588"),  # clamped
        (-1.0, 2, "\u00b7\u00b7"),
        (float("nan"), 2, "\u00b7\u00b7"),
        (0.5, 0, ""),
    ],
)
def test_bar(fraction, width, expected):
    assert bar(fraction, width) == expected
    assert len(bar(fraction, width)) == width


def test_labelled_pads_the_label_and_cleans_the_value():
    line = labelled("name", "[b]x\x07", width=6)
    assert line.plain == "name   [b]x\u2407"


def test_stamp():
    assert stamp(None, NOW) == "\u2014"
    assert stamp("2026-11-01T11:00:00Z", NOW) == "2026-11-01 11:00Z (1h ago)"
    assert stamp("yesterday\x1b", NOW) == "yesterday\u241b (not a date)"


# -- long values in a detail pane ----------------------------------------


def _hung(lines: list[Content], width: int) -> list[str]:
    return hang_labelled(Content("\n").join(lines), width).plain.split("\n")


def test_a_long_value_wraps_under_itself_at_its_parts():
    rows = _hung([labelled("numbers", "karma 63 · balance 200 · posts 10 · comments 26", 10)], 40)
    assert rows == ["numbers    karma 63 · balance 200", "           posts 10 · comments 26"]
    assert all(len(row) <= 40 for row in rows)


def test_a_date_and_its_age_stay_whole():
    rows = _hung([labelled("joined", "2026-07-16 09:39Z (131d ago)", 10)], 36)
    assert rows == ["joined     2026-07-16 09:39Z", "           (131d ago)"]


def test_a_word_wider_than_the_room_gets_a_line_of_its_own_else_an_ellipsis():
    url = "https://example.org/a/very/long/path/that/fits"  # 46: wider than the room (35)
    assert _hung([labelled("website", url, 10)], 46) == ["website", url]
    assert _hung([labelled("website", url, 10)], 40) == ["website", url[:39] + "\u2026"]
    rows = _hung([labelled("links", f"see {url} now", 10)], 46)
    assert rows == ["links      see", url, "           now"]


def test_free_text_wraps_at_spaces_under_the_value():
    text = "one two three four five six seven eight nine ten eleven"
    rows = _hung([labelled("about", text, 10)], 40)
    assert rows[0].startswith("about      one two") and all(
        r.startswith(" " * 11) for r in rows[1:]
    )
    assert " ".join(r.strip() for r in rows).removeprefix("about ").strip() == text


def test_lines_that_fit_or_are_not_labelled_are_left_to_the_widget():
    long_plain = Content("a plain line " * 6)
    short = labelled("id", "zion-1", 10)
    body = Content("\n").join([short, long_plain])
    assert hang_labelled(body, 40) is body or hang_labelled(body, 40).plain == body.plain
    assert hang_labelled(body, 200) is body


def test_middle_cut_keeps_both_ends_and_the_width():
    from rich.cells import cell_len

    from tui.ui.widgets.text import middle_cut

    url = "http://demo.roost.invalid/hub/api/hive-hub/v1/organization-seeds.json"
    assert middle_cut(url, len(url)) == url
    cut = middle_cut(url, 40)
    head, tail = cut.split("…")
    assert cell_len(cut) == 40 and url.startswith(head) and url.endswith(tail)
    for width in range(12):
        assert cell_len(middle_cut("日本語のテキストです", width)) == width  # wide characters


def test_fit_parts_shares_the_room_and_cuts_only_the_long_parts():
    from rich.cells import cell_len

    from tui.ui.widgets.text import fit_parts

    short, long = "http://a.example/x.json", "http://demo.roost.invalid/" + "p/" * 30 + "i.json"
    assert fit_parts([short, long], 200) == [short, long]
    parts = fit_parts([short, long], 60)
    assert parts[0] == short and "…" in parts[1]
    assert cell_len(", ".join(parts)) == 60
