"""What the config file says about keys and colours: ``[keymap]``, ``theme`` and ``[themes.NAME]``,
read as written and checked for shape here (the headless core; no Textual import).

``[keymap]`` maps a binding id to the keys that do its action, as Textual's ``App.set_keymap``
takes them: ``"app.refresh" = "f5"``, several keys comma-separated or as a list
(``"virtual_table.cursor_down" = "j,down,ctrl+n"``). The top level and the chosen profile each
may have one; the profile's choice of an id wins. Whether an id is roost's, whether a key is one
a terminal can send and whether two ids share a key in one place is checked against the bindings
themselves (``tui.ui.keymap``), and so are the colours of a theme (``tui.ui.themes``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tui.errors import RoostError

__all__ = ["KeyChoice", "KeymapError", "ThemeChoice", "parse_keymap", "parse_themes"]

#: A key as written: modifiers and a key name joined by "+", or one character.
_KEY_SHAPE = re.compile(r"[^\s,]+")
_NAME_SHAPE = re.compile(r"[A-Za-z0-9][\w.-]{0,63}")


class KeymapError(RoostError, ValueError):
    """A ``[keymap]``, ``theme`` or ``[themes]`` setting is wrong; the message names the file,
    the profile and the binding id or theme."""


@dataclass(frozen=True, slots=True)
class KeyChoice:
    """The keys a person chose for one binding id, and where they said so (the file and
    profile, for the one-line error that refuses a wrong one)."""

    keys: tuple[str, ...]
    origin: str

    @property
    def joined(self) -> str:
        """As Textual's keymap takes them: ``"j,down"``."""
        return ",".join(self.keys)


@dataclass(frozen=True, slots=True)
class ThemeChoice:
    """A theme of the person's own: the colours (and ``dark``, ``variables``) Textual's ``Theme``
    takes, as written, and where it was defined."""

    name: str
    values: Mapping[str, Any]
    origin: str


def _shown(value: Any) -> str:
    return ascii(value)[:80]


def parse_keymap(value: Any, origin: str) -> dict[str, KeyChoice]:
    """``[keymap]`` of one layer (the top level or a profile), its shape checked."""
    if not isinstance(value, Mapping):
        raise KeymapError(f'{origin}: [keymap] must be a table of binding id = "keys"')
    choices: dict[str, KeyChoice] = {}
    for binding_id, raw in value.items():
        where = f"{origin} [keymap] {ascii(str(binding_id))[1:-1][:80]}"
        if isinstance(raw, str):
            parts = raw.split(",")
        elif isinstance(raw, list) and all(isinstance(item, str) for item in raw):
            parts = list(raw)
        else:
            raise KeymapError(f'{where}: keys must be a string such as "j,down", got {_shown(raw)}')
        keys = tuple(part.strip() for part in parts)
        if not keys or not all(keys):
            raise KeymapError(f"{where}: an empty key in {_shown(raw)}; separate keys with commas")
        if bad := next((key for key in keys if not _KEY_SHAPE.fullmatch(key)), None):
            raise KeymapError(f"{where}: {_shown(bad)} is not a key (no spaces inside a key)")
        choices[str(binding_id)] = KeyChoice(tuple(dict.fromkeys(keys)), origin)
    return choices


def parse_themes(value: Any, origin: str) -> dict[str, ThemeChoice]:
    """``[themes.NAME]`` tables of one layer, their shape checked (the colours are checked by
    the dashboard's theme layer)."""
    if not isinstance(value, Mapping):
        raise KeymapError(f"{origin}: [themes] must be a table of [themes.NAME] tables")
    themes: dict[str, ThemeChoice] = {}
    for name, table in value.items():
        where = f"{origin} [themes.{_shown(name)}]"
        if not isinstance(name, str) or not _NAME_SHAPE.fullmatch(name):
            raise KeymapError(f"{where}: a theme name is letters, digits, '-', '_' or '.'")
        if not isinstance(table, Mapping):
            raise KeymapError(f'{where}: must be a table of colours (primary = "#88c0d0", …)')
        themes[name] = ThemeChoice(name, dict(table), f"{origin} [themes.{name}]")
    return themes
