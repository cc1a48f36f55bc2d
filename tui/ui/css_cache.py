"""A Textual stylesheet that parses each CSS source once, not on every re-parse.

Why: Textual's ``Stylesheet.reparse()`` parses every source again in a fresh stylesheet (to keep
the current one intact if the CSS turns out to be bad), and the fresh stylesheet starts with an
empty parse cache; ``refresh_css()`` also empties the cache when it sets the CSS variables, even
to the same values. A tab's first visit re-parses up to three times (the screen's own CSS, then
``refresh_css`` twice), so every CSS source roost and Textual have loaded so far was parsed again
on each: 50–170 ms of a first tab visit at 80×24, growing with every tab opened.

Here parsed rules are kept by everything the parse depends on (the CSS text, where it was read
from, whether it is default CSS, its tie breaker, its scope and the CSS variables), across
re-parses and variable changes, so a source is parsed once per set of variables. The result is
what Textual would build: the same parse, of the same text, with the same variables (Textual's
own cache hands out the same rule objects again in the same way).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path, PurePath
from types import SimpleNamespace
from typing import Any

from textual.cache import LRUCache
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

__all__ = ["CssSourceKey", "ParseOnceStylesheet", "default_css_sources", "file_css_sources"]

#: (css, read_from, is_default_rules, tie_breaker, scope): what a parse depends on, besides the
#: variables
CssSourceKey = tuple[str, Any, bool, int, str]

# sources × themes: a few hundred at most
_CACHE_SIZE = 1024


class ParseOnceStylesheet(Stylesheet):
    """:class:`~textual.css.stylesheet.Stylesheet` with a parse cache that outlives re-parses."""

    def __init__(
        self,
        *,
        variables: dict[str, str] | None = None,
        parsed: LRUCache[tuple[Any, ...], Any] | None = None,
    ) -> None:
        super().__init__(variables=variables)
        self._parsed: LRUCache[tuple[Any, ...], Any] = (
            parsed if parsed is not None else LRUCache(_CACHE_SIZE)
        )
        self._variables_key = _key(self._variables)

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = _key(variables)

    def preparse(self, source: CssSourceKey) -> None:
        """Parse ``source`` ahead of its first use (on the event loop, while idle: Textual's
        own caches are not thread-safe). Errors are left for the real parse to report."""
        with contextlib.suppress(Exception):  # reported when Textual parses it for real
            self._parse_rules(*source)

    def _parse_rules(
        self,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> Any:
        key = (self._variables_key, css, read_from, is_default_rules, tie_breaker, scope)
        rules = self._parsed.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            self._parsed[key] = rules
        return rules

    def copy(self) -> ParseOnceStylesheet:
        stylesheet = ParseOnceStylesheet(variables=self._variables.copy(), parsed=self._parsed)
        stylesheet.source = self.source.copy()
        return stylesheet

    def reparse(self) -> None:
        """As Textual's ``Stylesheet.reparse`` (parse into a fresh stylesheet, keep this one if
        that fails), with the fresh stylesheet sharing this one's parsed rules."""
        stylesheet = ParseOnceStylesheet(variables=self._variables, parsed=self._parsed)
        for read_from, (css, is_defaults, tie_breaker, scope) in self.source.items():
            stylesheet.add_source(
                css,
                read_from=read_from,
                is_default_css=is_defaults,
                tie_breaker=tie_breaker,
                scope=scope,
            )
        try:
            stylesheet.parse()
        except Exception:
            self._invalid_css.update(stylesheet._invalid_css)
            raise
        else:
            self._rules = stylesheet.rules
            self._rules_map = None
            self.source = stylesheet.source
            self._require_parse = False


def _key(variables: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(variables.items()))


def default_css_sources(node_class: type[DOMNode]) -> list[CssSourceKey]:
    """The DEFAULT_CSS sources a widget of ``node_class`` adds when it mounts, as Textual
    names them (``DOMNode._get_default_css``: the class and the bases it inherits CSS from,
    each with its tie breaker and scope)."""
    stand_in = SimpleNamespace(_node_bases=node_class._css_bases(node_class))
    return [
        (css, read_from, True, tie_breaker, scope)
        for read_from, css, tie_breaker, scope in DOMNode._get_default_css(stand_in)  # type: ignore[arg-type]
    ]


def file_css_sources(paths: Iterable[str | PurePath]) -> list[CssSourceKey]:
    """The sources of ``.tcss`` files as ``Stylesheet.read`` names them."""
    sources: list[CssSourceKey] = []
    for path in paths:
        try:
            css = Path(path).expanduser().read_text(encoding="utf-8")
        except OSError:
            continue
        sources.append(
            (css, (str(Path(os.path.abspath(Path(path).expanduser()))), ""), False, 0, "")
        )
    return sources
