"""A table's line: its cells joined into one strip (edge, cells with gaps, padding)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tui.ui.table.rows import EDGE, GAP

__all__ = ["join_line"]


def join_line(cells: list[list[Segment]], line_width: int, style: Style) -> Strip:
    """Edge, cells with gaps, padding to ``line_width``: runs of one style become one
    segment (a plain row is a single segment, which the compositor handles fastest)."""
    segments: list[Segment] = []
    texts = [" " * EDGE]
    current: Style | None = style
    used = EDGE
    gap = " " * GAP
    for n, cell in enumerate(cells):
        if n:
            cell = [Segment(gap, style), *cell]
        for text, segment_style, _control in cell:
            if segment_style is not current and segment_style != current:
                segments.append(Segment("".join(texts), current))
                texts = []
                current = segment_style
            texts.append(text)
            used += cell_len(text)
    if used < line_width:
        if current is not style and current != style:
            segments.append(Segment("".join(texts), current))
            texts = []
            current = style
        texts.append(" " * (line_width - used))
    segments.append(Segment("".join(texts), current))
    return Strip(segments, max(used, line_width))
