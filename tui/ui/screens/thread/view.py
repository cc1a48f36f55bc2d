"""The thread's text: the post's body, then its comments with replies indented under their
parent, drawn line by line (Textual's Line API) so that a thread of thousands of comments costs
no more to show or scroll than the lines on screen.

The view is a list of pieces: the post's body (in pieces of a few KB), a rule, notes, and per
comment a header line, its body pieces and a blank line. A piece is drawn with Rich
(:mod:`.text`) the first time one of its lines is needed, at the width of the view, and kept;
until then its height is estimated from its text, so the scrollbar may settle as pieces are
drawn. A comment is one "owner" of pieces (the post is owner -1): ``j``/``k`` move the
selection between owners, a fold hides the replies under one, and the find marks every owner
whose text holds the query.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime
from itertools import accumulate
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.conversation.thread import REACTIONS, Comment, Reactions, Thread
from tui.network.models import as_utc
from tui.ui.widgets.text import age
from tui.untrusted import clean

from .text import (
    MIN_WIDTH,
    bounded_markdown,
    chunks,
    estimate_height,
    render_lines,
    render_markdown,
)

__all__ = ["ThreadView", "reactions_text"]

MAX_LEVELS = 12  # indentation levels drawn; a deeper reply says its depth in its header
GUIDE = "\u2502 "  # one level of indentation
_EMOJI = {rest: emoji for rest, _content, emoji in REACTIONS}


def reactions_text(reactions: Reactions) -> str:
    """``👍 3  ❤ 1`` in GitHub's order; "" when there are none."""
    counts = reactions.counts
    return "  ".join(f"{_EMOJI[name]} {counts[name]:,}" for name in _EMOJI if counts.get(name))


class _Piece:
    """A run of lines of one owner (the post: -1, else a comment's index)."""

    __slots__ = ("depth", "height", "kind", "owner", "source", "strips", "width")

    def __init__(self, owner: int, kind: str, source: str = "", depth: int = 0) -> None:
        self.owner = owner
        self.kind = kind  # head, body, note, rule, gap
        self.source = source  # a body piece's Markdown (as written: bounded when drawn); a note
        self.depth = depth
        self.strips: list[Strip] | None = None
        self.width = 0  # the width the strips were drawn at
        self.height = 1


class ThreadView(ScrollView, can_focus=True):
    """See the module docstring. The screen calls :meth:`show`, :meth:`move`, :meth:`fold`,
    :meth:`find` and :meth:`next_match`; :class:`Selected` and :class:`Found` tell it what
    changed."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "thread-view--author",
        "thread-view--muted",
        "thread-view--pending",
        "thread-view--selected",
        "thread-view--guide",
        "thread-view--match",
        "thread-view--current",
        "thread-view--empty",
    }

    @dataclass(eq=False)
    class Selected(Message):
        """The selection moved to owner ``index`` (-1: the post)."""

        view: ThreadView
        index: int

    @dataclass(eq=False)
    class Found(Message):
        """The find moved, or its matches changed (the screen shows "3/7")."""

        view: ThreadView

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self.thread: Thread | None = None
        self.now: datetime | None = None
        self.empty_message = ""
        self._pieces: list[_Piece] = []
        self._first_piece: dict[int, int] = {}  # owner -> index of its first piece
        self._shown: list[int] = []  # pieces not folded away, in order
        self._offsets: list[int] = [0]  # first line of each shown piece, then the total
        self._hidden: set[int] = set()  # owners folded away
        self._folded: set[str] = set()  # ids of comments whose replies are hidden
        self.selected = -1
        self.find_query = ""
        self.matches: list[int] = []  # owners whose text holds the query, in order
        self.current = 0  # index into matches
        self._styles: dict[str, Style] | None = None
        self._laid_out_width = 0
        self._settling = False

    # ------------------------------------------------------------------ content

    def show(self, thread: Thread | None, now: datetime, *, empty: str = "") -> None:
        """Show ``thread`` (None: ``empty`` says why there is nothing). The selection and the
        folds stay on the comments they were on (by id) when the thread is the same post."""
        same = (
            thread is not None and self.thread is not None and thread.number == self.thread.number
        )
        selected_id = self.selected_comment.id if same and self.selected_comment else None
        self.thread = thread
        self.now = now
        self.empty_message = empty
        if not same:
            self._folded = set()
            self.selected = -1
        else:
            self.selected = -1
            if selected_id is not None and thread is not None:
                self.selected = next(
                    (i for i, c in enumerate(thread.comments) if c.id == selected_id), -1
                )
        self._build()
        self._find_matches()
        self._layout(keep=same)
        self.refresh()

    @property
    def selected_comment(self) -> Comment | None:
        """The comment selected (None: the post is)."""
        thread = self.thread
        if thread is None or not 0 <= self.selected < len(thread.comments):
            return None
        return thread.comments[self.selected]

    def _build(self) -> None:
        pieces: list[_Piece] = []
        thread = self.thread
        if thread is not None:
            if thread.body is not None and thread.body.strip():
                for chunk in chunks(thread.body):
                    pieces.append(_Piece(-1, "body", chunk))
            elif thread.body is None:
                pieces.append(_Piece(-1, "note", "The post's text is not in this copy."))
            if thread.left_out:
                pieces.append(_Piece(-1, "note", _left_out(thread.left_out)))
            pieces.append(_Piece(-1, "rule"))
            if thread.comments and not thread.comment_texts:
                note = "comment texts are not in the cache \u00b7 r fetches the thread from GitHub"
                pieces.append(_Piece(-1, "note", note))
            for index, comment in enumerate(thread.comments):
                depth = comment.depth
                pieces.append(_Piece(index, "head", depth=depth))
                if comment.body is not None and comment.body.strip():
                    for chunk in chunks(comment.body):
                        pieces.append(_Piece(index, "body", chunk, depth))
                if comment.left_out:
                    pieces.append(_Piece(index, "note", _left_out(comment.left_out), depth))
                if comment.body is not None:
                    pieces.append(_Piece(index, "gap", depth=depth))
            if not thread.complete:
                note = "The source stopped before every comment was read: r asks again."
                pieces.append(_Piece(len(thread.comments), "note", note))
        self._pieces = pieces
        self._first_piece = {}
        for index, piece in enumerate(pieces):
            self._first_piece.setdefault(piece.owner, index)
        self._hide_folded()

    def _hide_folded(self) -> None:
        """Which owners a fold hides: the replies under each folded comment."""
        hidden: set[int] = set()
        thread = self.thread
        if thread is not None and self._folded:
            comments = thread.comments
            index = 0
            while index < len(comments):
                comment = comments[index]
                index += 1
                if comment.id in self._folded and index - 1 not in hidden:
                    while index < len(comments) and comments[index].depth > comment.depth:
                        hidden.add(index)
                        index += 1
        self._hidden = hidden
        self._shown = [i for i, piece in enumerate(self._pieces) if piece.owner not in hidden]

    # ------------------------------------------------------------------ layout

    @property
    def _content_width(self) -> int:
        return max(MIN_WIDTH + 1, self.scrollable_content_region.width)

    def _piece_width(self, piece: _Piece) -> int:
        """The width a piece is drawn at: the view's, less the gutter and the indentation."""
        return max(MIN_WIDTH, self._content_width - 1 - 2 * min(piece.depth, MAX_LEVELS))

    def _estimate(self, piece: _Piece) -> int:
        if piece.kind in ("head", "gap", "rule"):
            return 1
        return estimate_height(piece.source, self._piece_width(piece))

    def _layout(self, *, keep: bool = False) -> None:
        """Offsets of the shown pieces (drawn heights where known at this width, else
        estimates); before the view has a size, on its first resize."""
        if not self.size.width:
            self._laid_out_width = 0
            return
        width = self._laid_out_width = self._content_width
        for piece in self._pieces:
            if piece.strips is None or piece.width != self._piece_width(piece):
                piece.strips = None
                piece.height = self._estimate(piece)
        heights = (self._pieces[i].height for i in self._shown)
        self._offsets = [0, *accumulate(heights)]
        self.virtual_size = Size(width, max(1, self._offsets[-1]))
        if not keep:
            self.scroll_to(y=0, animate=False, immediate=True)
        self._settle()

    def _strips(self, piece: _Piece) -> list[Strip]:
        """The piece's lines at the current width (drawn now if they are not yet)."""
        width = self._piece_width(piece)
        if piece.strips is None or piece.width != width:
            piece.strips = self._draw(piece, width)
            piece.width = width
        return piece.strips

    def _draw(self, piece: _Piece, width: int) -> list[Strip]:
        console = self.app.console
        if piece.kind == "body":
            return render_markdown(console, bounded_markdown(piece.source), width)
        if piece.kind == "gap":
            return [Strip.blank(width)]
        if piece.kind == "head":
            text = self._head_text(piece.owner)
            text.no_wrap = True
            text.overflow = "ellipsis"
            return render_lines(console, text, width)[:1]
        if piece.kind == "rule":
            return render_lines(console, self._rule_text(width), width)[:1]
        return render_lines(console, Text(piece.source, style=self._style("muted")), width)

    def _settle(self) -> None:
        """Draw every piece in view (their heights then replace the estimates), keeping the
        lines at the top of the view where they were."""
        if self._settling or not self._shown or not self.size.width:
            return  # (not laid out yet: on_resize lays it out)
        self._settling = True
        try:
            for _ in range(20):  # a few rounds settle it; never loop on a pathological width
                top = round(self.scroll_y)
                bottom = top + max(1, self.scrollable_content_region.height)
                first = max(0, bisect_right(self._offsets, top) - 1)
                changed = False
                shift = 0
                position = first
                while position < len(self._shown) and self._offsets[position] < bottom:
                    piece = self._pieces[self._shown[position]]
                    height = len(self._strips(piece))
                    if height != piece.height:
                        if position == first and self._offsets[position] < top:
                            shift += height - piece.height  # keep the first line in view still
                        piece.height = height
                        changed = True
                    position += 1
                if not changed:
                    return
                heights = (self._pieces[i].height for i in self._shown)
                self._offsets = [0, *accumulate(heights)]
                self.virtual_size = Size(self._content_width, max(1, self._offsets[-1]))
                if shift:
                    self.scroll_to(y=top + shift, animate=False, immediate=True)
        finally:
            self._settling = False

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        self._settle()
        super().watch_scroll_y(old_value, new_value)

    def on_resize(self, event: events.Resize) -> None:
        if self._content_width != self._laid_out_width:
            self._layout(keep=True)
            self.scroll_to_selected()

    # ------------------------------------------------------------------ drawing

    def _style(self, name: str) -> Style:
        styles = self._styles
        if styles is None:
            styles = self._styles = {}
        style = styles.get(name)
        if style is None:
            style = styles[name] = self.get_component_rich_style(f"thread-view--{name}")
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        for piece in self._pieces:
            if piece.kind != "body":
                piece.strips = None

    def _head_text(self, owner: int) -> Text:
        thread = self.thread
        assert thread is not None
        comment = thread.comments[owner]
        parts: list[Text | str | tuple[str, Style]] = []
        if comment.depth > MAX_LEVELS:
            parts.append((f"\u21b3{comment.depth} ", self._style("muted")))
        parts.append((clean(comment.author) or "unknown", self._style("author")))
        moment = as_utc(comment.created_at) if comment.created_at else None
        if moment is not None and self.now is not None:
            parts.append((f" \u00b7 {age(moment, self.now)} ago", self._style("muted")))
        reactions = reactions_text(comment.reactions)
        if reactions:
            parts.append(f"  {reactions}")
        if comment.pending:
            parts.append(("  pending: sent from here, not seen yet", self._style("pending")))
        if comment.id in self._folded:
            below = _replies_below(thread.comments, owner)
            parts.append(
                (
                    f"  \u25b8 {below:,} repl{'y' if below == 1 else 'ies'} folded",
                    self._style("muted"),
                )
            )
        return Text.assemble(*parts, end="")

    def _rule_text(self, width: int) -> Text:
        thread = self.thread
        assert thread is not None
        listed = len(thread.comments)
        words = [f"{listed:,} comment{'s' if listed != 1 else ''}"]
        if thread.comment_total > listed + thread.votes:
            words.append(f"{thread.comment_total:,} in all")
        if thread.votes:
            words.append(f"{thread.votes:,} vote{'s' if thread.votes != 1 else ''}")
        label = f" {' · '.join(words)} "
        side = max(2, (width - len(label)) // 2)
        return Text(
            "\u2500" * side + label + "\u2500" * max(0, width - side - len(label)),
            style=self._style("muted"),
            end="",
        )

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        line = round(self.scroll_y) + y
        offsets = self._offsets
        if not self._shown or line >= offsets[-1]:
            if not self._shown and y == 0 and self.empty_message:
                text = Text(clean(self.empty_message), style=self._style("empty"), end="")
                return render_lines(self.app.console, text, width)[0].apply_style(base)
            return Strip.blank(width, base)
        position = bisect_right(offsets, line) - 1
        piece = self._pieces[self._shown[position]]
        strips = self._strips(piece)
        row = line - offsets[position]
        if len(strips) != piece.height:
            self.call_later(self._settle)  # drawn here first: the offsets follow
        content = strips[row] if row < len(strips) else Strip.blank(piece.width)
        if (
            self.find_query
            and piece.kind in ("body", "head")
            and self.find_query.lower() in content.text.lower()
        ):
            current = bool(self.matches) and self.matches[self.current] == piece.owner
            content = _mark(
                content, self.find_query, self._style("current" if current else "match")
            )
        selected = piece.owner == self.selected and piece.kind != "rule" and piece.owner >= 0
        gutter = Segment("\u258c" if selected else " ", self._style("selected"))
        levels = min(piece.depth, MAX_LEVELS)
        parts = [gutter]
        if levels:
            parts.append(Segment(GUIDE * levels, self._style("guide")))
        strip = Strip([*parts, *content]).crop_extend(0, width, None)
        return strip.apply_style(base)

    # ------------------------------------------------------------------ selection

    def owners(self) -> list[int]:
        """The owners one can select, in order: the post, then the comments not folded away."""
        thread = self.thread
        if thread is None:
            return []
        return [-1, *(i for i in range(len(thread.comments)) if i not in self._hidden)]

    def move(self, step: int) -> None:
        """``j`` / ``k``: the next / previous comment (``step`` far; past the ends: the ends)."""
        owners = self.owners()
        if not owners:
            return
        try:
            at = owners.index(self.selected)
        except ValueError:
            at = 0
        self.select(owners[max(0, min(len(owners) - 1, at + step))])

    def select(self, owner: int) -> None:
        if self.thread is None:
            return
        if owner in self._hidden:
            self._unfold_to(owner)
        if owner != self.selected:
            self.selected = owner
            self.post_message(self.Selected(self, owner))
        self.scroll_to_selected()
        self.refresh()

    def scroll_to_selected(self) -> None:
        """Bring the selected comment into view: whole when it fits, else its top."""
        first = self._first_piece.get(self.selected)
        if first is None or not self._shown:
            return
        if self.selected == -1:
            self.scroll_to(y=0, animate=False, immediate=True)
            return
        try:
            position = self._shown.index(first)
        except ValueError:
            return
        # draw the comment's pieces first: its height is then the real one
        end = position
        while end < len(self._shown) and self._pieces[self._shown[end]].owner == self.selected:
            piece = self._pieces[self._shown[end]]
            piece.height = len(self._strips(piece))
            end += 1
        heights = (self._pieces[i].height for i in self._shown)
        self._offsets = [0, *accumulate(heights)]
        self.virtual_size = Size(self._content_width, max(1, self._offsets[-1]))
        top, bottom = self._offsets[position], self._offsets[end]
        view = max(1, self.scrollable_content_region.height)
        y = round(self.scroll_y)
        if top < y:
            self.scroll_to(y=top, animate=False, immediate=True)
        elif bottom > y + view:
            self.scroll_to(y=min(top, bottom - view), animate=False, immediate=True)
        self._settle()

    def on_click(self, event: events.Click) -> None:
        line = round(self.scroll_y) + event.y
        if not self._shown or line >= self._offsets[-1]:
            return
        piece = self._pieces[self._shown[bisect_right(self._offsets, line) - 1]]
        if piece.kind != "rule" and piece.owner < len(self.thread.comments if self.thread else ()):
            self.select(piece.owner)

    # ------------------------------------------------------------------ folds

    def fold(self) -> bool:
        """``enter`` / ``space``: fold the selected comment's replies, or unfold them; False
        when it has none."""
        comment = self.selected_comment
        thread = self.thread
        if comment is None or thread is None:
            return False
        if comment.id in self._folded:
            self._folded.discard(comment.id)
        elif _replies_below(thread.comments, self.selected):
            self._folded.add(comment.id)
        else:
            return False
        head = self._pieces[self._first_piece[self.selected]]
        head.strips = None
        self._hide_folded()
        self._layout(keep=True)
        self.scroll_to_selected()
        self.refresh()
        return True

    def _unfold_to(self, owner: int) -> None:
        """Unfold every fold that hides ``owner``."""
        thread = self.thread
        if thread is None:
            return
        comments = thread.comments
        depth = comments[owner].depth
        for index in range(owner - 1, -1, -1):
            if comments[index].depth < depth:
                depth = comments[index].depth
                if comments[index].id in self._folded:
                    self._folded.discard(comments[index].id)
                    self._pieces[self._first_piece[index]].strips = None
        self._hide_folded()
        self._layout(keep=True)

    # ------------------------------------------------------------------ find

    def find(self, query: str) -> None:
        """Mark ``query`` (case-insensitive) and select the first owner holding it at or after
        the selection; ``""`` ends the find."""
        self.find_query = query
        self._find_matches()
        if self.matches:
            later = [n for n, owner in enumerate(self.matches) if owner >= self.selected]
            self.current = later[0] if later else 0
            self.select(self.matches[self.current])
        self.post_message(self.Found(self))
        self.refresh()

    def next_match(self, step: int) -> None:
        if self.matches:
            self.current = (self.current + step) % len(self.matches)
            self.select(self.matches[self.current])
            self.post_message(self.Found(self))

    def _find_matches(self) -> None:
        needle = self.find_query.strip().lower()
        thread = self.thread
        self.matches = []
        self.current = 0
        if not needle or thread is None:
            return
        post = " ".join((thread.title, thread.author, thread.body or ""))
        if needle in clean(post, multiline=True).lower():
            self.matches.append(-1)
        for index, comment in enumerate(thread.comments):
            text = f"{comment.author} {comment.body or ''}"
            if needle in clean(text, multiline=True).lower():
                self.matches.append(index)


def _replies_below(comments: tuple[Comment, ...], index: int) -> int:
    depth = comments[index].depth
    end = index + 1
    while end < len(comments) and comments[end].depth > depth:
        end += 1
    return end - index - 1


def _left_out(count: int) -> str:
    return f"\u2026 {count:,} more bytes are left out: the first 64 KB are shown."


def _mark(strip: Strip, needle: str, style: Style) -> Strip:
    """``strip`` with every occurrence of ``needle`` (any case) in ``style``."""
    text = strip.text.lower()
    needle = needle.lower()
    cuts: list[int] = []
    start = text.find(needle)
    while start >= 0 and len(cuts) < 200:
        cuts += [start, start + len(needle)]
        start = text.find(needle, start + len(needle))
    if not cuts:
        return strip
    # cuts are in characters; Strip.divide wants cells: count the cells before each cut
    from rich.cells import cell_len

    cells = [cell_len(strip.text[:cut]) for cut in cuts]
    pieces = strip.divide([*cells, strip.cell_length])
    out: list[Segment] = []
    for number, piece in enumerate(pieces):
        segments = list(piece)
        if number % 2:
            segments = [Segment(t, (s or Style()) + style) for t, s, _c in segments]
        out.extend(segments)
    return Strip(out, strip.cell_length)
