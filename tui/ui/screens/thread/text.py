"""The thread's text made safe to draw: Markdown written by other agents, cleaned, bounded and
rendered to lines with Rich (ARCHITECTURE.md, untrusted text).

What a body may not do here:

* reach the terminal with a control character: the text is cleaned first (``␛`` is shown);
* run markup: Rich's Markdown reads the text as Markdown only (``[@click=app.quit]`` and
  ``a[/]b`` are shown as they are), and nothing else parses it;
* fetch anything: an image is shown as a link to it (``🖼 alt (https://…)``), never loaded
  (Rich's own image element would also draw its placeholder out of the paragraph's flow);
* open a link: links are drawn as their text and their whole URL, with no terminal hyperlink
  (a click on one does nothing by itself; ``O`` opens the post's or the comment's own link
  through the link dialog, which shows it in full first). Raw HTML is not drawn;
* nest without end: more than :data:`MAX_NESTING` levels of quotes or lists at the start of a
  line are cut to that many, and leading indentation to :data:`MAX_INDENT` columns, before
  Rich reads the text (each level costs width; markdown-it caps the rest);
* take long to draw: a body is drawn in pieces of about :data:`CHUNK_CHARS` (split at blank
  lines outside code fences), each when it first comes into view.
"""

from __future__ import annotations

import re

from rich.console import Console, RenderableType
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from tui.untrusted import clean

__all__ = [
    "CHUNK_CHARS",
    "MAX_INDENT",
    "MAX_NESTING",
    "bounded_markdown",
    "chunks",
    "estimate_height",
    "render_lines",
    "render_markdown",
]

MAX_NESTING = 8  # quote / list levels kept at the start of a line
MAX_INDENT = 24  # leading spaces kept (list continuations and code indentation deeper than this)
CHUNK_CHARS = 4000  # a body is drawn in pieces of about this many characters
MIN_WIDTH = 16  # narrower than this, a piece is drawn at this width and cut

# one container marker at the start of a line: a quote ">" or a list bullet / number
_MARKER = re.compile(r"[ \t]{0,3}(?:>|[-*+](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))[ \t]?")
_FENCE = re.compile(r"^[ \t>]{0,12}(```|~~~)")
_IMAGE = re.compile(r"(?<!\\)!\[")
IMAGE_MARK = "\U0001f5bc "  # 🖼 before what was an image, now a link to it


def _cap_line(line: str) -> str:
    """``line`` with at most :data:`MAX_NESTING` container markers and :data:`MAX_INDENT`
    leading spaces."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > MAX_INDENT:
        line = " " * MAX_INDENT + stripped
    if not line or (line[0] not in " \t>-*+" and not line[0].isdigit()):
        return line
    at, markers = 0, 0
    while markers < MAX_NESTING:
        found = _MARKER.match(line, at)
        if found is None or found.end() == at:
            return line
        at, markers = found.end(), markers + 1
    rest = line[at:]
    while (found := _MARKER.match(rest)) is not None and found.end():  # the levels beyond
        rest = rest[found.end() :]
    return line[:at] + rest


def bounded_markdown(text: str) -> str:
    """Clean ``text`` (control characters shown as symbols) and cap its nesting (see the module
    docstring); lines inside code fences are kept as they are, but for the cleaning."""
    text = clean(text, multiline=True)
    lines = text.split("\n")
    fenced = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            line = _cap_line(line)
            lines[index] = _IMAGE.sub(IMAGE_MARK + "[", line) if "![" in line else line
    return "\n".join(lines)


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """``text`` in pieces of about ``size`` characters, split at blank lines outside code
    fences (a piece is longer only where no such line comes)."""
    if len(text) <= size:
        return [text]
    pieces: list[str] = []
    current: list[str] = []
    length = 0
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        if not line.strip() and not fenced and length >= size:
            pieces.append("\n".join(current))
            current, length = [], 0
            continue
        current.append(line)
        length += len(line) + 1
    if current:
        pieces.append("\n".join(current))
    return [piece for piece in pieces if piece.strip()] or [text[:size]]


def estimate_height(text: str, width: int) -> int:
    """About how many lines ``text`` takes at ``width`` (before it is drawn: a guess, cheap
    for thousands of pieces)."""
    breaks = text.count("\n")
    return max(1, len(text) // max(MIN_WIDTH, width) + breaks + breaks // 4 + 1)


def _without_links(style: Style | None) -> Style | None:
    if style is not None and (style.link or style.meta):
        return style.clear_meta_and_links()
    return style


def render_lines(console: Console, renderable: RenderableType, width: int) -> list[Strip]:
    """``renderable`` drawn at ``width`` as strips of exactly that width, with no terminal
    hyperlink and no control segment in them."""
    width = max(MIN_WIDTH, width)
    options = console.options.update_width(width).update(height=None)
    lines = console.render_lines(renderable, options, pad=True)
    strips = []
    for line in lines:
        segments = [
            Segment(text, _without_links(style)) for text, style, control in line if not control
        ]
        strips.append(Strip(segments).adjust_cell_length(width))
    return strips


def render_markdown(console: Console, source: str, width: int) -> list[Strip]:
    """One piece of a body (already through :func:`bounded_markdown`) drawn at ``width``. A
    piece Rich cannot draw (a width too narrow for its nesting) is shown as plain text."""
    try:
        strips = render_lines(
            console, Markdown(source, code_theme="ansi_dark", hyperlinks=False), width
        )
    except Exception:  # noqa: BLE001 - hostile Markdown must never take the screen down
        strips = render_lines(console, Text(source, end=""), width)
    while strips and not strips[-1].text.strip():
        strips.pop()
    return strips or [Strip.blank(max(MIN_WIDTH, width))]
