"""Every private Textual name roost relies on, in one room.

Textual's public API covers almost all roost needs. What it does not, roost reaches here and
only here: ``tests/unit/test_textual_compat.py`` checks that each name in
:data:`PRIVATE_NAMES` still exists on the installed Textual, so an upgrade that renames or drops
one fails in that test, loudly, instead of somewhere in a screen.

What is here, and why:

* :class:`ParseOnceStylesheet` - a stylesheet that parses each CSS source once per set of
  variables, not again on every re-parse (a tab's first visit re-parses up to three times, and
  every source loaded so far was parsed again on each: most of a first visit's time).
  It overrides ``Stylesheet._parse_rules`` and rebuilds ``reparse`` on ``_rules``,
  ``_rules_map``, ``_require_parse``, ``_invalid_css`` and ``_variables``.
* :func:`default_css_sources` - the DEFAULT_CSS sources a widget class adds when it mounts, as
  Textual names them (``DOMNode._get_default_css``, ``DOMNode._css_bases``), to parse one
  with the first parse.
* :func:`mark_styles_current` - a new screen's styles are computed when it mounts, from the
  stylesheet as it is then; marking them current (``_css_update_count``) spares restyling the
  app and the screen twice more (``refresh_css`` in ``_init_mode`` and in ``switch_mode``).
* :func:`focus_as_shown` - what Textual focuses when a screen is shown
  (``Screen._update_auto_focus``), for a screen whose body was mounted after it was shown.
* :data:`ContentTab`, :data:`ContentTabs` - the tab strip inside a ``TabbedContent``
  (``textual.widgets._tabbed_content``), to tell its activations from others'.
* :func:`own_bindings` - the bindings a widget itself declares (``DOMNode._bindings``), so a
  text field can act on its editing keys as it reads them, in order with the characters typed
  around them (Textual acts on them only once the key has bubbled back up to the app).
* :func:`hide_bindings` - leave some of a node's bindings out of its footer while their keys
  still act (``DOMNode._bindings``): a guest's session is offered no posting keys, yet ``n``
  still says why there is no form. Textual's ``check_action`` would hide a key only by
  switching it off.
* :func:`withdraw_notification` - take one toast away before its time (``App._unnotify``): a
  form's "fix the marked fields" once they are fixed. ``notify`` returns nothing to remove.
* :func:`app_keymap` - the keymap the app was given (``App._keymap``), for help and the
  palette, which list bindings as their classes declare them.
* :func:`character_to_key` - the key name of a character (``textual.keys._character_to_key``),
  to write a keymap's keys as Textual's bindings name them.
* :func:`composited_update` - what the terminal shows now (``Screen._compositor``,
  ``App._background_screens``), for the tests.
* :class:`OwnVirtualSize` - a ``ScrollView`` that sets its own virtual size (the table) has its
  scrollbars updated only when that size, its own or its container's changed
  (``ScrollView._size_updated`` compared the layout's virtual size, never the table's, so every
  layout of a table's screen refreshed its scrollbars and drew one more frame).
* :class:`KeyGate` - a text field sees each key before it reads it (``Widget._on_key``, where a
  widget reads its keys): the in-order text fields (tui/ui/widgets/editors.py) hold or pass on
  keys that are not theirs to type.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path, PurePath
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

from textual.cache import LRUCache
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets._tabbed_content import ContentTab, ContentTabs

if TYPE_CHECKING:
    from textual import events
    from textual._compositor import LayoutUpdate
    from textual.app import App
    from textual.binding import Binding
    from textual.geometry import Size
    from textual.notifications import Notification
    from textual.scroll_view import ScrollView
    from textual.widget import Widget

    _Field = Widget  # what the mixin below is mixed into, as a type checker reads it
    _Scrolled = ScrollView  # and OwnVirtualSize
else:
    _Field = object
    _Scrolled = object

__all__ = [
    "PRIVATE_NAMES",
    "ContentTab",
    "ContentTabs",
    "APP_PARSED",
    "CssSourceKey",
    "KeyGate",
    "OwnVirtualSize",
    "ParseOnceStylesheet",
    "composited_update",
    "default_css_sources",
    "file_css_sources",
    "focus_as_shown",
    "hide_bindings",
    "mark_styles_current",
    "own_bindings",
    "app_keymap",
    "character_to_key",
    "withdraw_notification",
]

#: (where, name): each private name used below, on the class (or module) that has it. Names
#: set in ``__init__`` are checked on an instance (see the test).
PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    ("textual.css.stylesheet.Stylesheet", "_parse_rules"),
    ("textual.css.stylesheet.Stylesheet", "_rules"),
    ("textual.css.stylesheet.Stylesheet", "_rules_map"),
    ("textual.css.stylesheet.Stylesheet", "_require_parse"),
    ("textual.css.stylesheet.Stylesheet", "_invalid_css"),
    ("textual.css.stylesheet.Stylesheet", "_variables"),
    ("textual.dom.DOMNode", "_get_default_css"),
    ("textual.dom.DOMNode", "_css_bases"),
    ("textual.dom.DOMNode", "_bindings"),
    ("textual.app.App", "_css_update_count"),
    ("textual.app.App", "_background_screens"),
    ("textual.app.App", "_unnotify"),
    ("textual.widget.Widget", "_on_key"),
    ("textual.screen.Screen", "_css_update_count"),
    ("textual.screen.Screen", "_update_auto_focus"),
    ("textual.screen.Screen", "_compositor"),
    ("textual.widgets._tabbed_content", "ContentTab"),
    ("textual.widgets._tabbed_content", "ContentTabs"),
    ("textual.keys", "_character_to_key"),
    ("textual.app.App", "_keymap"),
    ("textual.scroll_view.ScrollView", "_size_updated"),
)

#: (css, read_from, is_default_rules, tie_breaker, scope): what a parse depends on, besides the
#: variables
CssSourceKey = tuple[str, Any, bool, int, str]

# sources × themes: a few hundred at most
_CACHE_SIZE = 1024


#: The app's parses, kept across apps in this process: one app runs per process, but the SSH
#: zygote runs one headless first, and each session forked from it finds them done.
APP_PARSED: LRUCache[tuple[Any, ...], Any] = LRUCache(_CACHE_SIZE)


class ParseOnceStylesheet(Stylesheet):
    """:class:`~textual.css.stylesheet.Stylesheet` with a parse cache that outlives re-parses.

    Textual's ``Stylesheet.reparse()`` parses every source again in a fresh stylesheet (to keep
    the current one intact if the CSS turns out to be bad), and the fresh stylesheet starts with
    an empty parse cache; ``refresh_css()`` also empties the cache when it sets the CSS
    variables, even to the same values. Here parsed rules are kept by everything the parse
    depends on (the CSS text, where it was read from, whether it is default CSS, its tie
    breaker, its scope and the CSS variables), across re-parses and variable changes, so a
    source is parsed once per set of variables. The result is what Textual would build: the
    same parse, of the same text, with the same variables.
    """

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

    @classmethod
    def for_app(cls, variables: dict[str, str]) -> ParseOnceStylesheet:
        """The app's stylesheet: its parses are kept for the next app in this process
        (:data:`APP_PARSED`)."""
        return cls(variables=variables, parsed=APP_PARSED)

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = _key(variables)

    def preparse(self, source: CssSourceKey) -> None:
        """Parse ``source`` ahead of its first use (the tabs' preload, between keys; on the event
        loop: Textual's own caches are not thread-safe). Errors are left for the real parse to
        report."""
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


def mark_styles_current(screen: Screen[Any], app: App[Any]) -> None:
    """Tell Textual that ``screen``'s styles are current with ``app``'s stylesheet (a screen
    about to mount computes them from the stylesheet as it is then)."""
    screen._css_update_count = app._css_update_count


def focus_as_shown(screen: Screen[Any]) -> None:
    """Focus what Textual focuses when ``screen`` is shown (its ``AUTO_FOCUS``), if nothing is."""
    screen._update_auto_focus()


def own_bindings(node: DOMNode, key: str) -> tuple[Binding, ...]:
    """The bindings ``node`` itself has for ``key`` (not its ancestors')."""
    return tuple(node._bindings.key_to_bindings.get(key, ()))


def hide_bindings(node: DOMNode, ids: Iterable[str]) -> None:
    """Show the bindings of ``node`` whose ``id`` is in ``ids`` in no footer; their keys still
    act. Only this node's own map changes (its lists are copies of its class's)."""

    hidden = frozenset(ids)
    key_to_bindings = node._bindings.key_to_bindings
    for key, bindings in list(key_to_bindings.items()):
        if any(binding.id in hidden for binding in bindings):
            key_to_bindings[key] = [
                replace(binding, show=False) if binding.id in hidden else binding
                for binding in bindings
            ]


def withdraw_notification(app: App[Any], notification: Notification) -> None:
    """Take ``notification``'s toast away now (nothing happens if it is gone already)."""
    app._unnotify(notification)


def composited_update(app: App[Any]) -> LayoutUpdate:
    """What the terminal shows now: the screen's composited update, every row as the driver
    writes it (a widget that missed a refresh still shows its old state here)."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return cast("LayoutUpdate", update)  # full=True: always the whole screen's LayoutUpdate


class KeyGate(_Field):
    """A mixin for a text field, before ``Input`` or ``TextArea`` in its bases: each key goes
    by :meth:`diverts_key` before the field reads it, and a key diverted there is neither typed
    nor acted on by the field. (A field reads its keys in Textual's ``Widget._on_key``: this is
    roost's one override of it.)"""

    def diverts_key(self, event: events.Key) -> bool:
        """Whether ``event`` is taken away from the field (the subclass decides)."""
        return False

    async def _on_key(self, event: events.Key) -> None:
        if not self.diverts_key(event):
            await super()._on_key(event)


def character_to_key(character: str) -> str:
    """The key name Textual gives a character (``"?"`` → ``"question_mark"``), as its keymap
    and bindings use it (``textual.keys._character_to_key``)."""
    # deferred: off the start path
    from textual.keys import _character_to_key

    return _character_to_key(character)


def app_keymap(app: App[Any]) -> dict[str, str]:
    """The keymap ``app`` was given with ``set_keymap`` (binding id -> keys), normalised."""
    return dict(app._keymap)


class OwnVirtualSize(_Scrolled):
    """A mixin for a ``ScrollView`` that sets its own ``virtual_size`` (the table: its columns'
    width, its rows), before ``ScrollView`` in its bases. A layout hands every widget the
    virtual size it arranged; ``ScrollView._size_updated`` compares that with the widget's own,
    which for such a widget never match, and so refreshed its scrollbars on every layout of the
    screen: one more frame after each (``/`` drew four). Here the scrollbars are updated when
    the widget's size, its container's, or its own virtual size changed since they last were."""

    _scrollbars_for: Size | None = None  # the virtual size the scrollbars were last set for

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        own = self.virtual_size
        changed = own != self._scrollbars_for
        self._scrollbars_for = own
        # ScrollView sets the scrollbars (from the widget's own virtual size) when the virtual
        # size it is handed differs from that: hand it another one only when that changed
        return super()._size_updated(size, own + (1, 1) if changed else own, container_size, layout)
