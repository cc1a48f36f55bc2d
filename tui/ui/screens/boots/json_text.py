"""Egg and record JSON as text safe to draw, and sizes as people read them (no Textual import)."""

from __future__ import annotations

import json
from typing import Any

from tui.untrusted import clean_value

__all__ = ["pretty_json", "size_text"]


def pretty_json(value: Any) -> str:
    """Indented JSON of ``value`` with every string (keys too) passed through the sanitiser.

    The result is shown through Rich ``Syntax`` or ``Text``, never parsed as markup.
    """
    return json.dumps(clean_value(value), indent=2, ensure_ascii=False, sort_keys=False)


def size_text(size: int) -> str:
    """``1.2 MB`` style (powers of 1000, as the hub's ``bytes`` are quoted), exact below 1 kB."""
    if size < 1000:
        return f"{size} B"
    value = float(size)
    for unit in ("kB", "MB", "GB"):
        value /= 1000
        if value < 1000 or unit == "GB":
            return f"{value:.1f} {unit}"
    return f"{size} B"
