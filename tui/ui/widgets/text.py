"""Textual-side text helpers: service text in, safe ``rich.text.Text`` / ``Content`` out.

Everything here goes through :func:`tui.untrusted.clean` first and never through markup, so a
screen can pass any service string to these functions (service text is hostile: it may carry
terminal escapes or markup).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.content import Content
from textual.widget import Widget

from tui.tables.cells import age_seconds, epoch_seconds
from tui.untrusted import clean, for_clipboard, truncate

__all__ = [
    "age",
    "age_seconds",
    "bar",
    "content",
    "copy",
    "count",
    "epoch_seconds",
    "fit_parts",
    "fit_whole",
    "pack_texts",
    "labelled",
    "middle_cut",
    "plain",
    "short",
    "stamp",
    "when",
    "wrap_parts",
]


def plain(text: Any, multiline: bool = False, style: str = "") -> Text:
    """Service text as a Rich ``Text`` (no markup), control characters made visible."""
    return Text(clean(text, multiline=multiline), style=style, end="")


def content(text: Any, multiline: bool = False) -> Content:
    """Service text as a Textual ``Content`` (no markup)."""
    return Content(clean(text, multiline=multiline))


def middle_cut(text: str, width: int) -> str:
    """Clean ``text`` in at most ``width`` cells: whole when it fits, else its start and its
    end with an ellipsis between (a URL keeps its host and its file name)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "\u2026"[:width]
    tail = (width - 1) // 2
    head = width - 1 - tail
    end = text[-tail:] if tail else ""
    while cell_len(end) > tail:
        end = end[1:]
    return set_cell_size(text, head) + "\u2026" + " " * (tail - cell_len(end)) + end


def fit_parts(parts: list[str], room: int, separator: str = ", ") -> list[str]:
    """``parts`` (clean text) joined by ``separator`` within ``room`` cells: each part whole
    when they all fit, else the longest ones cut in the middle (:func:`middle_cut`) to share
    the room fairly; a part shorter than its share keeps its length."""
    room -= cell_len(separator) * max(0, len(parts) - 1)
    lengths = [cell_len(part) for part in parts]
    if sum(lengths) <= room:
        return list(parts)
    shares = [0] * len(parts)
    left, open_ = max(0, room), sorted(range(len(parts)), key=lengths.__getitem__)
    while open_:
        share = left // len(open_)
        index = open_.pop(0)
        shares[index] = min(lengths[index], share) if open_ else min(lengths[index], left)
        left -= shares[index]
    return [middle_cut(part, share) for part, share in zip(parts, shares, strict=True)]


def fit_whole(parts: list[tuple[str, ...]], room: int, separator: str = " \u00b7 ") -> str:
    """One line of ``parts`` within ``room`` cells, no word cut: each part is its variants,
    the fullest first; the last parts take a shorter variant first, then give way whole (the
    first part is always kept, in its shortest form if nothing else fits)."""
    chosen = [0] * len(parts)

    def line(count: int) -> str:
        return separator.join(parts[i][chosen[i]] for i in range(count))

    count = len(parts)
    for index in reversed(range(len(parts))):
        while cell_len(line(count)) > room and chosen[index] + 1 < len(parts[index]):
            chosen[index] += 1
        if cell_len(line(count)) <= room:
            return line(count)
        if index:
            count = index  # this part gives way whole
    return line(max(1, count))


def pack_texts(parts: list[Text], width: int | None, separator: str = " \u00b7 ") -> Text:
    """``parts`` joined by ``separator``, a part that would not fit where the line is starting
    a line of its own (``width`` None: one line). A part wider than a line is left for the
    widget to wrap at its spaces, and what follows it starts a new line."""
    packed = Text(end="")
    used = 0
    for index, part in enumerate(parts):
        if index:
            if width is not None and used + cell_len(separator) + part.cell_len > width:
                packed.append("\n")
                used = 0
            else:
                packed.append(separator)
                used += cell_len(separator)
        packed.append_text(part)
        used += part.cell_len
        if width is not None and used > width:
            used = width  # wrapped by the widget: the next part goes below it
    return packed


def short(text: Any, limit: int = 200) -> str:
    """One clean line of at most ``limit`` characters (for toasts, titles, palette entries)."""
    return truncate(clean(text), limit)


def age(moment: datetime | None, now: datetime) -> str:
    """A compact age: ``12s``, ``5m``, ``3h``, ``4d``, ``2y``; ``—`` when unknown.

    A moment slightly in the future (clock skew) reads ``0s``; far in the future, ``+5m``.
    """
    if moment is None:
        return "\u2014"
    return age_seconds((now - moment).total_seconds())


def when(moment: datetime | None, now: datetime) -> str:
    """``2026-11-01 12:00Z (3h ago)``; ``—`` when unknown."""
    if moment is None:
        return "\u2014"
    stamp = moment.strftime("%Y-%m-%d %H:%MZ")
    text = age(moment, now)
    return f"{stamp} ({text} ago)" if not text.startswith("+") else f"{stamp} (in {text[1:]})"


def count(value: float | int | None) -> str:
    """A counter with thousands separators; ``—`` when absent."""
    if value is None:
        return "\u2014"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.2f}"
    return f"{int(value):,}"


_EIGHTHS = " \u258f\u258e\u258d\u258c\u258b\u258a\u2589\u2588"


def bar(fraction: float, width: int) -> str:
    """A horizontal bar of ``width`` cells filled to ``fraction`` (0..1), in eighths."""
    if width <= 0:
        return ""
    fraction = 0.0 if fraction != fraction else max(0.0, min(1.0, fraction))  # NaN -> 0
    eighths = round(fraction * width * 8)
    full, rest = divmod(eighths, 8)
    text = "\u2588" * full + (_EIGHTHS[rest] if rest else "")
    return text.ljust(width, "\u00b7") if len(text) < width else text[:width]


LABEL_STYLE = "$text-muted"
UNIT_SEPARATOR = " \u00b7 "  # between the parts of one value ("karma 63 · posts 10")


def labelled(label: str, value: Any, width: int = 12) -> Content:
    """A detail line: a muted label padded to ``width`` then one space, then the clean value.

    Drawn by a :class:`~tui.ui.widgets.find_text.FindScroll`, a value too long for the pane wraps
    under itself (see :func:`hang_labelled`), never under the label."""
    return Content.assemble((label.ljust(width), LABEL_STYLE), " ", clean(value))


def hang_labelled(body: Content, width: int) -> Content:
    """``body`` with every :func:`labelled` line that is wider than ``width`` wrapped under its
    value (a hanging indent). A value's parts (split at " · ") stay whole on one line when they
    fit; a part wider than the room wraps at its spaces; a single word wider than the room (a
    URL, an id) gets a line of its own, whole when the pane is wide enough, else cut with an
    ellipsis — the pane's copy and open keys have it whole."""
    if width < 20 or all(line.cell_length <= width for line in body.split("\n")):
        return body
    return Content("\n").join(row for line in body.split("\n") for row in _hang_line(line, width))


def _hang_line(line: Content, width: int) -> list[Content]:
    spans = line.spans
    plain = line.plain
    if line.cell_length <= width or not spans:
        return [line]
    first = spans[0]
    indent = first.end + 1
    if (
        first.start != 0
        or first.style != LABEL_STYLE
        or plain[first.end : indent] != " "
        or indent > width // 2
    ):
        return [line]
    room = width - indent
    rows = _pack(line[indent:], room, width)
    pad = Content(" " * indent)
    # a row wider than the room is one long word (a URL): on a line of its own, from the left
    shown = [
        line[:indent] + rows[0] if rows[0].cell_length <= room else line[:indent].rstrip(),
        *(pad + row if row.cell_length <= room else row for row in rows[1:]),
    ]
    if rows[0].cell_length > room:
        shown.insert(1, rows[0])
    return shown


def wrap_parts(value: Content, width: int) -> Content:
    """``value``'s parts (split at " · ") in lines of at most ``width`` cells: a part is never
    split while it fits a line (a key stays with what it does), a wider one wraps at its spaces;
    no word is cut unless it is wider than the line itself."""
    width = max(1, width)
    return Content("\n").join(_pack(value, width, width))


def _pack(value: Content, room: int, width: int) -> list[Content]:
    """Greedy lines of at most ``room`` cells from the parts of ``value``; a single word wider
    than the room gets a line of its own (up to ``width``, cut with an ellipsis beyond)."""
    plain = value.plain
    parts: list[Content] = []
    start = 0
    while (at := plain.find(UNIT_SEPARATOR, start)) >= 0:
        parts.append(value[start : at + len(UNIT_SEPARATOR)])
        start = at + len(UNIT_SEPARATOR)
    parts.append(value[start:])
    rows: list[Content] = []
    current = Content("")
    for part in parts:
        if current.cell_length and current.cell_length + part.rstrip().cell_length <= room:
            current += part
            continue
        if current.cell_length:
            rows.append(_without_separator(current))
            current = Content("")
        if part.rstrip().cell_length <= room:
            current = part
            continue
        for word in _words(part):  # the part alone is too wide: by words, "(…)" kept whole
            if current.cell_length and current.cell_length + word.rstrip().cell_length > room:
                rows.append(current.rstrip())
                current = Content("")
            if word.rstrip().cell_length > room:  # one word wider than the room: alone
                if current.cell_length:
                    rows.append(current.rstrip())
                rows.append(word.rstrip().truncate(width, ellipsis=True))
                current = Content("")
                continue
            current += word
    if current.cell_length or not rows:
        rows.append(current.rstrip())
    return rows


_WORD = re.compile(r"\([^()]*\)\s*|\S+\s*")


def _words(part: Content) -> list[Content]:
    """The words of ``part`` with their trailing spaces; a parenthesised group is one word."""
    return [part[m.start() : m.end()] for m in _WORD.finditer(part.plain)]


def _without_separator(row: Content) -> Content:
    row = row.rstrip()
    tail = UNIT_SEPARATOR.rstrip()
    return row[: -len(tail)].rstrip() if row.plain.endswith(tail) else row


def stamp(value: str | None, now: datetime) -> str:
    """A service timestamp for a detail view: :func:`when`, or the text as sent if unparsable."""
    if not value:
        return "\u2014"
    from tui.network.models import as_utc  # deferred: off the start path

    moment = as_utc(value)
    if moment is None:
        return f"{truncate(clean(value), 80)} (not a date)"
    return when(moment, now)


def copy(widget: Widget, text: str, what: str = "") -> None:
    """Copy ``text`` (OSC 52, works over SSH) as the clipboard rule allows
    (:func:`tui.untrusted.for_clipboard`: one line, controls as symbols) and say so in a toast
    (``what``: e.g. "the link"), saying too when something was replaced."""
    copied, changed = for_clipboard(text)
    widget.app.copy_to_clipboard(copied)
    note = " (line breaks and control characters replaced)" if changed else ""
    label = f"{what} " if what else ""
    widget.notify(f"Copied {label}{truncate(copied, 80)}{note}", markup=False)
