"""The footer: the screen's shown key bindings on one line.

Textual's ``Footer`` mounts one widget per key and recomposes them all whenever the bindings
change (focus moves, a screen resumes), a noticeable part of roost's cold start.
``KeyBar`` is one widget that renders the same line: each shown binding as `` key Description ``,
the command palette's key on the right, keys of disabled actions dimmed. A click on a key
presses it; the key under the mouse is highlighted. Everything it shows comes from roost's own
bindings, never from the service.
"""

from __future__ import annotations

import msgspec
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import RenderResult
from textual.keys import key_to_character
from textual.widget import Widget
from textual.widgets import Input

__all__ = ["KeyBar"]


class _Key(msgspec.Struct, frozen=True):
    key: str  # what a click presses
    display: str
    description: str
    enabled: bool


# key names Textual's key_to_character does not resolve (their Unicode names are "SOLIDUS"...)
_CHARACTERS = {"slash": "/", "backslash": "\\"}


def _is_printable(key: str) -> bool:
    character = key_to_character(key) or _CHARACTERS.get(key)
    return character is not None and character.isprintable()


class KeyBar(Widget, can_focus=False):
    """One line of key hints for the screen it is on."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--hover"}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._spans: list[tuple[int, int, _Key]] = []  # cells [start, end) of each key, as drawn
        self._hover: str | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: object) -> None:
        self.refresh()

    def keys(self) -> tuple[list[_Key], _Key | None]:
        """The shown bindings (one per action, first key wins) and the palette's key."""
        app = self.app
        active = self.screen.active_bindings
        # keys a focused text field would type (e.g. "/" while filtering) do not act: not shown
        typing = isinstance(self.screen.focused, Input)
        shown: dict[str, _Key] = {}
        for _node, binding, enabled, _tooltip in active.values():
            if typing and _is_printable(binding.key):
                continue
            # while typing, the way out is worth a hint even where escape is not shown
            listed = binding.show or (typing and binding.key == "escape" and binding.description)
            if listed and binding.action not in shown:
                shown[binding.action] = _Key(
                    binding.key, app.get_key_display(binding), binding.description, enabled
                )
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _node, binding, enabled, _tooltip = active[app.COMMAND_PALETTE_BINDING]
            palette = _Key(binding.key, app.get_key_display(binding), binding.description, enabled)
        return list(shown.values()), palette

    def _piece(self, item: _Key, lead: str = " ") -> Text:
        piece = Text.assemble(
            (f"{lead}{item.display} ", self.get_component_rich_style("key-bar--key")),
            (f"{item.description} ", self.get_component_rich_style("key-bar--description")),
        )
        if not item.enabled:
            piece.stylize(Style(dim=True))
        if item.key == self._hover:
            piece.stylize(self.get_component_rich_style("key-bar--hover"))
        return piece

    def render(self) -> RenderResult:
        keys, palette = self.keys()
        width = self.size.width
        tail = self._piece(palette, lead="") if palette is not None else None
        room = width - (1 + tail.cell_len if tail is not None else 0)
        if room < 0:  # too narrow for the palette's key: the others get the line
            tail, room = None, width
        line = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, _Key]] = []
        x = 0
        for item in keys:
            piece = self._piece(item)
            if x + piece.cell_len > room:
                break
            line.append_text(piece)
            spans.append((x, x + piece.cell_len, item))
            x += piece.cell_len
        if tail is not None and palette is not None:
            line.append(" " * (room - x))
            line.append("\u258f", Style(dim=True))
            spans.append((room + 1, width, palette))
            line.append_text(tail)
        self._spans = spans
        return line

    @property
    def spans(self) -> tuple[tuple[int, int, _Key], ...]:
        """Each key as last drawn: its cells [start, end) and the key."""
        return tuple(self._spans)

    @property
    def hovered(self) -> str | None:
        """The key under the mouse (highlighted), if any."""
        return self._hover

    def key_at(self, x: int) -> _Key | None:
        for start, end, item in self._spans:
            if start <= x < end:
                return item
        return None

    def on_click(self, event: events.Click) -> None:
        item = self.key_at(event.x)
        if item is None:
            return
        event.stop()
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        item = self.key_at(event.x)
        hover = item.key if item is not None else None
        if hover != self._hover:
            self._hover = hover
            self.refresh()

    def on_leave(self, _event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()
