"""The commands' tables: into a terminal, columns fitted to its width under a header; into a
pipe, one row a line, tab-separated, every field whole (as `gh` prints them).

Cells are clean lines already (:func:`tui.untrusted.clean_cell`): a tab or a newline in the
service's text is shown, never splits a row. Widths are counted in terminal cells (wide
characters two, combining marks none).
"""

from __future__ import annotations

import shutil
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from typing import TextIO

__all__ = ["cells", "fit", "is_terminal", "print_rows", "print_table", "table_width"]

#: The narrowest table drawn (a narrower terminal wraps it).
MIN_WIDTH = 60


def is_terminal(out: TextIO) -> bool:
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty())


def table_width() -> int:
    return max(MIN_WIDTH, shutil.get_terminal_size().columns)


def print_table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    out: TextIO,
    *,
    width: int,
    flex: int,
    caps: Mapping[int, int] | None = None,
    right: Collection[int] = (),
    cap: int = 12,
    flex_min: int = 16,
) -> None:
    """``rows`` under ``header``, each column as wide as its widest cell up to its cap
    (``caps[i]``, else ``cap``); column ``flex`` takes what is left of ``width`` (at least
    ``flex_min``); columns in ``right`` are aligned right. Cells too wide end in an ellipsis."""
    if not rows:
        return
    caps = caps or {}
    widths = [
        min(caps.get(i, cap), max(cells(header[i]), *(cells(row[i]) for row in rows)))
        for i in range(len(header))
    ]
    rest = sum(w for i, w in enumerate(widths) if i != flex) + len(widths) - 1
    widths[flex] = max(flex_min, width - rest)

    def line(row: Sequence[str]) -> str:
        parts = []
        for i, cell in enumerate(row):
            cell = fit(cell, widths[i])
            pad = " " * (widths[i] - cells(cell))
            parts.append(pad + cell if i in right else cell + pad)
        return " ".join(parts).rstrip()

    print(line(header), file=out)
    for row in rows:
        print(line(row), file=out)


def print_rows(rows: Sequence[Sequence[str]], out: TextIO) -> None:
    """Tab-separated, one row a line (each cell a clean line: no tab or newline inside)."""
    for row in rows:
        print("\t".join(row), file=out)


def cells(text: str) -> int:
    """How many terminal cells ``text`` (one clean line) takes: wide characters two, combining
    marks none."""
    if text.isascii():
        return len(text)
    return sum(_width(char) for char in text)


def _width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def fit(text: str, room: int) -> str:
    """``text`` cut to ``room`` cells, the cut marked with an ellipsis."""
    if cells(text) <= room:
        return text
    kept, used = [], 0
    for char in text:
        used += _width(char)
        if used > room - 1:
            break
        kept.append(char)
    return "".join(kept) + "…"
