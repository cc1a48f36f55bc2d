"""The theme: one of Textual's by name (``theme = "nord"``) or one of the person's own
(``[themes.NAME]`` in the config, the colours Textual's ``Theme`` takes), checked before the
dashboard starts. ``NO_COLOR`` still wins: the app is made with Textual's NoColor filter
(:func:`tui.ui.stylesheets.no_color`), which takes every colour out whatever the theme.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES, Theme

from tui.config import ConfigError, Settings
from tui.suggest import did_you_mean

__all__ = ["COLOURS", "checked_themes", "theme_names"]

#: The colours a theme of one's own may set (``primary`` it must).
COLOURS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "warning",
    "error",
    "success",
)
_OTHERS = {f.name for f in fields(Theme)} - {"name", *COLOURS}


def _theme(name: str, values: dict[str, Any], origin: str) -> Theme:
    if unknown := sorted(set(values) - set(COLOURS) - _OTHERS):
        guess = did_you_mean(unknown[0], [*COLOURS, *_OTHERS])
        raise ConfigError(
            f"{origin}: unknown {unknown[0]!r}"
            + (f", {guess}" if guess else "")
            + f" (a theme takes {', '.join(COLOURS)}, dark, variables)"
        )
    if "primary" not in values:
        raise ConfigError(f'{origin}: a theme needs at least primary = "#RRGGBB"')
    for colour in COLOURS:
        value = values.get(colour)
        if value is None:
            continue
        try:
            if not isinstance(value, str):
                raise ColorParseError(str(value))
            Color.parse(value)
        except ColorParseError:
            raise ConfigError(
                f'{origin}: {colour} = {ascii(value)[:40]} is not a colour ("#88c0d0", '
                '"rgb(136,192,208)", a colour name)'
            ) from None
    if not isinstance(values.get("dark", True), bool):
        raise ConfigError(f"{origin}: dark must be true or false")
    variables = values.get("variables", {})
    if not isinstance(variables, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in variables.items()
    ):
        raise ConfigError(f'{origin}: variables must be a table of name = "value"')
    try:
        return Theme(name=name, **values)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{origin}: {exc}") from None


def theme_names(own: list[Theme] | None = None) -> list[str]:
    """Textual's themes and the person's own, by name."""
    return [*BUILTIN_THEMES, *(theme.name for theme in own or ())]


def checked_themes(settings: Settings) -> tuple[list[Theme], str | None]:
    """The person's own themes and the theme named by the settings (None: none named); a
    wrong colour or an unknown name is a :class:`~tui.config.ConfigError` naming the file and
    profile (or the variable), with the closest name."""
    own = [
        _theme(choice.name, dict(choice.values), choice.origin)
        for choice in settings.themes.values()
    ]
    name = settings.theme
    if name is not None and name not in theme_names(own):
        origin = settings.given.get("theme", "theme")
        guess = did_you_mean(name, theme_names(own))
        raise ConfigError(
            f"{origin}: theme {ascii(name)[:40]} is not a theme"
            + (f"; {guess}" if guess else "")
            + " (Textual's themes, or one under [themes.NAME]; ctrl+p, Theme, lists them)"
        )
    return own, name
