"""Where roost's ``.tcss`` files are, installed (inside the wheel) or in a checkout.

Every sheet is in the top-level ``styles/`` folder, and no widget but the table engine's
(tui/ui/table) carries ``DEFAULT_CSS``. The app loads ``app.tcss``, ``widgets.tcss`` and
``tables.tcss`` (the chrome, the shared widgets and the table tabs, the first one shown); the other
screens name their own sheets in ``CSS_PATH``, so Textual parses a screen's CSS when that screen is
first shown, not at start-up.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePath

import tui

__all__ = ["no_color", "sheets", "styles_dir"]


def no_color() -> bool:
    """Whether ``NO_COLOR`` is set (no-color.org): then no colour at all leaves roost.

    Textual alone would still send 256-colour greys (its Monochrome filter); an app made with
    ``ansi_color=no_color()`` gets Textual's NoColor filter instead, which sends the terminal's
    default colours only. What must stay distinct (the cursor row, headers, the active tab, a
    bad status) is styled by attributes under ``:nocolor`` (reverse, bold, underline)."""
    return "NO_COLOR" in os.environ  # as Textual reads it: set, whatever its value


def styles_dir() -> Path:
    """The ``.tcss`` folder: inside the installed package (wheel), else the checkout's."""
    package = Path(tui.__file__).resolve().parent
    for candidate in (package / "styles", package.parent / "styles"):
        if candidate.is_dir():
            return candidate
    return package.parent / "styles"


def sheets(*names: str) -> list[str | PurePath]:
    """The paths of the named sheets (``"tables"`` → ``…/styles/tables.tcss``)."""
    folder = styles_dir()
    return [folder / f"{name}.tcss" for name in names]
