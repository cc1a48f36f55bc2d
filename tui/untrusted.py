"""The one sanitiser for service data (all of which is treated as hostile).

Everything the service sends is hostile until it passes through :func:`clean`. The function is
pure ``str -> str`` and imports nothing from Textual or Rich, so the headless core and the CLI use
the same rules as the widgets. Widgets then wrap the result in ``rich.text.Text`` or
``textual.content.Content`` (never markup), which is the other half of the rule.

What it does:

* C0 controls (``\\x00``-``\\x1f`` except, for multi-line text, ``\\n`` and ``\\t``) and DEL become
  their visible Unicode "control pictures" (``\\x1b`` -> ``␛``), so an injected escape sequence is
  shown, not executed by the terminal.
* C1 controls (``\\x80``-``\\x9f``, e.g. the single-byte CSI ``\\x9b``) become ``�``.
* Bidirectional overrides/isolates (U+202A-U+202E, U+2066-U+2069) and the line/paragraph
  separators become ``�``: they can reorder or break what a person sees; ordinary RTL letters and
  combining marks are kept.
* ``\\r`` is dropped from ``\\r\\n`` pairs in multi-line text, shown as ``␍`` otherwise.

:func:`clean_cell` goes further for table cells, whose columns only line up if every terminal
gives the text the same width: it drops the characters that join or modify the character before
them (zero-width joiner, variation selectors, skin-tone modifiers, tag characters). Terminals
disagree on the width of what they form (a ZWJ family is 2 cells in one, 6 in another), while
the width of what is left is the sum of its characters' widths everywhere.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "JOINERS",
    "clean",
    "clean_cell",
    "clean_line",
    "clean_value",
    "for_clipboard",
    "is_plain",
    "truncate",
]

_REPLACEMENT = "\ufffd"

# Control pictures: U+2400 + code for C0, U+2421 for DEL.
_C0_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)}
_C0_PICTURES[0x7F] = "\u2421"

_SINGLE_LINE_TABLE: dict[int, str] = dict(_C0_PICTURES)
for _code in range(0x80, 0xA0):
    _SINGLE_LINE_TABLE[_code] = _REPLACEMENT
for _code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029):
    _SINGLE_LINE_TABLE[_code] = _REPLACEMENT

_MULTI_LINE_TABLE = dict(_SINGLE_LINE_TABLE)
del _MULTI_LINE_TABLE[0x0A]  # \n
_MULTI_LINE_TABLE[0x09] = "    "  # a tab expands to spaces: widths stay predictable

# zero-width joiner, variation selectors (and their supplement), emoji skin-tone modifiers, tags
JOINERS = re.compile(
    "[\u200d\ufe00-\ufe0f\U0001f3fb-\U0001f3ff\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def clean(text: Any, *, multiline: bool = False) -> str:
    """Return ``text`` as a string that is safe to draw on a terminal.

    ``multiline=True`` keeps newlines (and turns tabs into spaces) for bios, rules, seed texts;
    otherwise every control character, newline included, is made visible so a one-line cell can
    never be split or styled by the data.
    """
    if text is None:
        return ""
    if not isinstance(text, str):
        text = str(text)
    if not _UNSAFE.search(text):
        return text
    if multiline:
        text = text.replace("\r\n", "\n")
        return text.translate(_MULTI_LINE_TABLE)
    return text.translate(_SINGLE_LINE_TABLE)


_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))


def is_plain(text: str) -> bool:
    """Whether :func:`clean` would leave ``text`` as it is (nothing to make visible)."""
    if len(text) > 100 and text.isascii():
        # ASCII's unsafe characters are the C0 controls and DEL: what is left when the
        # printable bytes are deleted (a C loop: 2 us for 2.6 kB, the regex search 15 us)
        return not text.encode("ascii").translate(None, _PRINTABLE_ASCII)
    return _UNSAFE.search(text) is None


def clean_cell(text: Any) -> str:
    """One line for a table cell: :func:`clean`, then without :data:`JOINERS`, so that the
    width the table measures is the width every terminal draws."""
    result = clean(text)
    if result.isascii() or not JOINERS.search(result):
        return result
    return JOINERS.sub("", result)


def clean_line(text: Any, limit: int | None = None) -> str:
    """One-line form: controls made visible, newlines shown as ``␊``, optionally truncated."""
    result = clean(text)
    return truncate(result, limit) if limit is not None else result


def for_clipboard(text: Any) -> tuple[str, bool]:
    """What a copy puts on the clipboard, and whether that differs from ``text``: the text as it
    is drawn, on one line (line breaks, escape sequences and other controls as visible symbols).
    A pasted id or URL must never carry a line break or an escape into a shell (paste
    hijacking); the caller says so when something was replaced."""
    raw = text if isinstance(text, str) else str(text)
    cleaned = clean_line(raw)
    return cleaned, cleaned != raw


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, marking the cut with an ellipsis."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "\u2026"


def clean_value(value: Any) -> Any:
    """Recursively clean every string (keys included) of a JSON-like value, for printing."""
    if isinstance(value, str):
        return clean(value, multiline=True)
    if isinstance(value, dict):
        return {clean(k): clean_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_value(v) for v in value]
    return value
