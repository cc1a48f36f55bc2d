"""A scrolling text with vim motion and a find: the Seeds texts, the detail panes and their raw
JSON views all move and search the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from tui.ui.widgets.text import hang_labelled
from tui.ui.widgets.vim import vim_bindings

__all__ = ["FindScroll", "scroll_body", "vim_scroll_keys"]


def vim_scroll_keys(scope: str) -> list[BindingType]:
    """``j``/``k``, ``g``/``G`` and ``ctrl+d``/``ctrl+u`` that scroll a text, ids under ``scope``."""
    motions = {
        "down": "scroll_down",
        "up": "scroll_up",
        "top": "scroll_home",
        "bottom": "scroll_end",
        "half_down": "half_page(1)",
        "half_up": "half_page(-1)",
    }
    return [
        *vim_bindings(motions, scope=scope, names={"top": "To the top", "bottom": "To the bottom"}),
        Binding("n", "next_match(1)", "Next match (after /)", show=False, id=f"{scope}.n"),
        Binding("N", "next_match(-1)", "Previous match", show=False, id=f"{scope}.N"),
    ]


def scroll_body(body: VerticalScroll, where: str) -> None:
    """One scroll key in a text (``down``, ``up``, ``home``, ``end``, ``page_down``,
    ``page_up``, ``half_down``, ``half_up``), at once and never animated: a burst of keys moves
    as far as the keys say. (Textual defers a scroll to the next refresh by default, and each
    key of a burst then starts from the same place: six ``j`` moved one line.)"""
    if where in ("half_down", "half_up"):
        step = max(1, body.scrollable_content_region.height // 2)
        y = step if where == "half_down" else -step
        body.scroll_relative(y=y, animate=False, immediate=True)
    else:
        getattr(body, f"scroll_{where}")(animate=False, immediate=True)


class FindScroll(VerticalScroll, can_focus=True):
    """A scrolling text (:attr:`text`, a ``Static`` inside) whose matches of :attr:`find_query`
    are marked with attributes; ``n`` / ``N`` scroll to the next / previous.

    The screen owns the find line: it calls :meth:`find` and reads :attr:`current` and
    :attr:`match_count` when :class:`Found` arrives.
    """

    BINDINGS: ClassVar[list[BindingType]] = vim_scroll_keys("text")

    MATCH = "underline bold"
    CURRENT = "reverse bold"  # attributes, not colours: visible with NO_COLOR too
    MAX_MATCHES = 1000
    TEXT_SELECTOR: ClassVar[str] = "Static"

    @dataclass(eq=False)
    class Found(Message):
        """The find moved to another match (the screen shows "3/7")."""

        pane: FindScroll

    def __init__(
        self,
        *children: object,
        id: str | None = None,  # noqa: A002 - Textual's own parameter name
        classes: str | None = None,
    ) -> None:
        super().__init__(*children, id=id, classes=classes)  # type: ignore[arg-type]
        self.find_query = ""
        self.current = 0  # index of the current match
        self.match_count = 0
        self._body = Content("")

    @property
    def text(self) -> Static:
        return self.query_one(self.TEXT_SELECTOR, Static)

    def action_half_page(self, direction: int) -> None:
        scroll_body(self, "half_down" if direction > 0 else "half_up")

    def show_text(self, body: Content) -> None:
        """New text; the matches of the find (if any) are marked in it."""
        self._body = body
        self._draw(scroll=False)

    def find(self, query: str) -> None:
        """Mark ``query`` (case-insensitive) and scroll to its first match; ``""`` ends it."""
        self.find_query = query
        self.current = 0
        self._draw(scroll=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``n`` / ``N`` are "next match" only while a find is on: otherwise the key goes on to
        the app (``n`` posts an action)."""
        if action == "next_match":
            return bool(self.find_query.strip())
        return True

    def action_next_match(self, step: int) -> None:
        if self.match_count:
            self.current = (self.current + step) % self.match_count
            self._draw(scroll=True)

    def _draw(self, *, scroll: bool) -> None:
        body, needle = self._body, self.find_query.lower()
        starts: list[int] = []
        if needle.strip():
            plain = body.plain.lower()
            start = plain.find(needle)
            while start >= 0 and len(starts) < self.MAX_MATCHES:
                starts.append(start)
                start = plain.find(needle, start + len(needle))
        self.match_count = len(starts)
        self.current = min(self.current, max(0, len(starts) - 1))
        for n, start in enumerate(starts):
            style = self.CURRENT if n == self.current else self.MATCH
            body = body.stylize(style, start, start + len(needle))
        width = self._text_width()
        if width:
            body = hang_labelled(body, width)  # long values wrap under themselves
        else:  # not laid out yet: again once it is
            self.call_after_refresh(self._draw_when_laid_out)
        self.text.update(body)
        if scroll and starts:
            self.call_after_refresh(self._scroll_to_current, body)
        self.post_message(self.Found(self))

    def _text_width(self) -> int:
        """The cells a line of the text gets; room for the vertical scrollbar is always kept
        (it appears once the text is long, and would then re-wrap the hanging lines)."""
        width = self.scrollable_content_region.width - self.text.styles.gutter.width
        if width and not self.show_vertical_scrollbar:
            width -= self.styles.scrollbar_size_vertical
        return max(0, width)

    def _draw_when_laid_out(self) -> None:
        if self._text_width() and self._body.cell_length:
            self._draw(scroll=False)

    def on_resize(self) -> None:
        if self._body.cell_length:
            self._draw(scroll=False)  # the hanging indents depend on the width

    def _scroll_to_current(self, body: Content) -> None:
        width = self._text_width()
        lines = body.wrap(max(1, width))
        line = next(
            (y for y, text in enumerate(lines) if any(s.style == self.CURRENT for s in text.spans)),
            0,
        )
        top = self.text.virtual_region.y  # the text may sit below a heading
        line += top
        if not self.scrollable_content_region.height > line - self.scroll_y >= 0:
            self.scroll_to(y=max(0, line - 1), animate=False, immediate=True)
