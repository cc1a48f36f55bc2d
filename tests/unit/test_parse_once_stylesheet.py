"""Each CSS source parsed once (ParseOnceStylesheet, tui/ui/textual_compat.py): the same rules Textual's own re-parse builds,
new rules when the variables change, and sources parsed ahead are not parsed again."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.css import stylesheet as textual_stylesheet
from textual.css.stylesheet import Stylesheet, StylesheetParseError
from textual.widgets import Button, DataTable, Static

from tui.ui.textual_compat import ParseOnceStylesheet, default_css_sources, file_css_sources

SOURCES = [
    ("Screen { background: $bg; } .x { color: $fg; }", ("a.tcss", ""), False, 0, ""),
    ("Static { padding: 1; }", ("b.py", "Static.DEFAULT_CSS"), True, -2, "Static"),
    ("#id > .y { border: solid $fg; }", ("c.tcss", ""), False, 0, ""),
]
VARIABLES = {"bg": "red", "fg": "blue"}


def _load(stylesheet: Stylesheet) -> Stylesheet:
    for css, read_from, is_default, tie_breaker, scope in SOURCES:
        stylesheet.add_source(
            css,
            read_from=read_from,
            is_default_css=is_default,
            tie_breaker=tie_breaker,
            scope=scope,
        )
    stylesheet.parse()
    return stylesheet


@pytest.fixture
def parses(monkeypatch) -> list[object]:
    """Every real parse of a source (the parser Textual's stylesheet calls, past its caches)."""
    calls: list[object] = []
    real = textual_stylesheet.parse

    def counting(scope, css, read_from, *args, **kwargs):
        calls.append(read_from)
        return real(scope, css, read_from, *args, **kwargs)

    monkeypatch.setattr(textual_stylesheet, "parse", counting)
    return calls


def test_a_reparse_builds_what_textuals_builds():
    ours = _load(ParseOnceStylesheet(variables=dict(VARIABLES)))
    theirs = _load(Stylesheet(variables=dict(VARIABLES)))
    ours.reparse()
    theirs.reparse()
    assert ours.css == theirs.css
    assert ours.source == theirs.source


def test_a_reparse_does_not_parse_unchanged_sources_again(parses):
    stylesheet = _load(ParseOnceStylesheet(variables=dict(VARIABLES)))
    assert len(parses) == len(SOURCES)
    for _ in range(3):
        stylesheet.set_variables(dict(VARIABLES))  # what App.refresh_css does every time
        stylesheet.reparse()
    assert len(parses) == len(SOURCES)


def test_textuals_own_stylesheet_parses_them_all_again(parses):
    """What the subclass is for (if Textual starts keeping its cache, this shows it)."""
    stylesheet = _load(Stylesheet(variables=dict(VARIABLES)))
    stylesheet.set_variables(dict(VARIABLES))
    stylesheet.reparse()
    assert len(parses) == 2 * len(SOURCES)


def test_new_variables_give_new_rules():
    stylesheet = _load(ParseOnceStylesheet(variables=dict(VARIABLES)))
    assert "#0000FF" in stylesheet.css  # blue
    stylesheet.set_variables({"bg": "red", "fg": "#00ff00"})
    stylesheet.reparse()
    assert "#00FF00" in stylesheet.css and "#0000FF" not in stylesheet.css
    stylesheet.set_variables(dict(VARIABLES))  # and back: from the cache, the same as before
    stylesheet.reparse()
    assert stylesheet.css == _load(Stylesheet(variables=dict(VARIABLES))).css


def test_a_source_parsed_ahead_is_not_parsed_again(parses):
    stylesheet = ParseOnceStylesheet(variables=dict(VARIABLES))
    for source in SOURCES:
        stylesheet.preparse(source)
    assert len(parses) == len(SOURCES)
    _load(stylesheet)
    stylesheet.reparse()
    assert len(parses) == len(SOURCES)


def test_bad_css_parsed_ahead_is_still_reported_when_used():
    stylesheet = ParseOnceStylesheet(variables=dict(VARIABLES))
    bad = ("Screen { colour: red; }", ("bad.tcss", ""), False, 0, "")
    stylesheet.preparse(bad)  # no error here
    stylesheet.add_source(bad[0], read_from=bad[1])
    with pytest.raises(StylesheetParseError):
        stylesheet.parse()


@pytest.mark.parametrize("widget_class", [Static, Button, DataTable])
def test_default_css_sources_are_named_as_a_mounted_widget_names_them(widget_class):
    expected = [
        (css, read_from, True, tie_breaker, scope)
        for read_from, css, tie_breaker, scope in widget_class()._get_default_css()
    ]
    assert default_css_sources(widget_class) == expected


def test_file_sources_are_named_as_stylesheet_read_names_them(tmp_path: Path):
    path = tmp_path / "x.tcss"
    path.write_text("Screen { color: red; }", encoding="utf-8")
    textual = Stylesheet()
    textual.read(path)
    ((read_from, (css, is_default, tie_breaker, scope)),) = textual.source.items()
    assert file_css_sources([path]) == [(css, read_from, is_default, tie_breaker, scope)]
    assert file_css_sources([tmp_path / "missing.tcss"]) == []
