"""Egg and record JSON as text safe to draw, and sizes as people read them (no Textual import)."""

from __future__ import annotations

import json
from typing import Any

from tui.eggs.boot_rows import size_text
from tui.untrusted import clean_value

__all__ = ["pretty_json", "size_text"]


def pretty_json(value: Any) -> str:
    """Indented JSON of ``value`` with every string (keys too) passed through the sanitiser.

    The result is shown through Rich ``Syntax`` or ``Text``, never parsed as markup.
    """
    return json.dumps(clean_value(value), indent=2, ensure_ascii=False, sort_keys=False)
