"""The egg inspector's viewer: one entry of an egg, a page at a time (text highlighted by its
name's suffix, hex for binary, JSON indented with ``r`` for its own bytes), with search. The
status line gives the entry's size as stored, whichever form is shown. The
pages come from :mod:`tui.eggs.entry_pages`; everything drawn is untrusted text made literal."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Static

from tui.eggs.entry_pages import EntryPages, language_for
from tui.ui.screens.boots.json_text import size_text
from tui.ui.widgets.editors import OrderedInput
from tui.untrusted import clean_line

__all__ = ["EntryViewer"]


class EntryViewer(Vertical):
    """One entry, a page at a time: text (highlighted by suffix) or hex, with search."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pages: EntryPages | None = None
        self.page = 0
        self.needle = ""
        self.match: int | None = None
        self.force_hex = False
        self.hash_ok: bool | None = None
        self.note = ""  # said instead of "hash not checked" (a legacy egg's entries)
        self.other: EntryPages | None = None  # the entry's raw pages, or its pretty ones

    def compose(self) -> ComposeResult:
        yield Static(Text("No entry open: choose one on Files (enter)."), id="viewer-status")
        with VerticalScroll(id="viewer-scroll"):
            yield Static("", id="viewer-body", markup=False)
        yield OrderedInput(
            placeholder="search this entry (enter: find, escape: close)", id="viewer-search"
        )

    def on_mount(self) -> None:
        self.query_one("#viewer-search", Input).display = False

    @property
    def scroll(self) -> VerticalScroll:
        return self.query_one("#viewer-scroll", VerticalScroll)

    def open(self, pages: EntryPages, hash_ok: bool | None = None, note: str = "") -> None:
        """Show ``pages`` from its first page, pretty-printed when it is JSON (``r``: its own
        bytes); a search belongs to the entry it was made in."""
        pretty = pages.pretty_json()
        self.other = pages if pretty is not None else None
        self.pages, self.page, self.match, self.force_hex = pretty or pages, 0, None, False
        self.needle, self.hash_ok, self.note = "", hash_ok, note
        self.show()

    def toggle_raw(self) -> bool:
        """Between a JSON entry's pretty form and its own bytes; False when it has no other."""
        if self.pages is None or self.other is None:
            return False
        self.pages, self.other = self.other, self.pages
        self.page, self.match, self.force_hex = 0, None, False
        self.show()
        self.scroll.scroll_home(animate=False)
        return True

    def clear_search(self) -> None:
        """Forget the search (the highlighting of the entry's language comes back)."""
        if self.needle or self.match is not None:
            self.needle, self.match = "", None
            self.show()

    def turn(self, delta: int) -> None:
        if self.pages is None:
            return
        target = max(0, self.page + delta)
        if delta > 0 and self.pages.last_page(self.page):
            return
        self.page = target
        self.show()
        self.scroll.scroll_home(animate=False)

    def toggle_hex(self) -> None:
        if self.pages is not None:
            self.pages.binary = self.force_hex = not self.pages.binary
            self.pages._starts = [0]
            self.page = 0 if self.match is None else self.pages.page_of(self.match)
            self.show()

    def search(self, needle: str, *, next_match: bool = False, previous: bool = False) -> bool:
        """Find ``needle`` (after the current match with ``next_match``, before it with
        ``previous``, both wrapping) and show its page."""
        if self.pages is None or not needle:
            return False
        self.needle = needle
        if previous:
            before = self.match if self.match is not None else self.pages.size
            self.match = self.pages.find_before(needle, before)
        else:
            after = self.match if next_match and self.match is not None else -1
            self.match = self.pages.find(needle, after)
        if self.match is not None:
            self.page = self.pages.page_of(self.match)
        self.show()
        return self.match is not None

    def show(self) -> None:
        pages = self.pages
        if pages is None:
            return
        start, end = pages.bounds(self.page)
        kind = "hex" if pages.binary else (language_for(pages.name) or "text")
        # the file's size as stored, whichever form is shown: the indented text is larger
        stored = self.other.size if pages.pretty and self.other is not None else pages.size
        where = f" · bytes {start}–{end}"
        if pages.pretty:  # positions in the indented text are not the file's bytes
            kind, where = "json, shown indented (r: its own bytes)", ""
        elif self.other is not None:
            kind += " as stored (r: indented)"
        last = " (last)" if pages.last_page(self.page) else ""
        status = Text()
        if self.hash_ok is False:
            status.append("✗ HASH MISMATCH · ", "bold red")
        if self.note:
            status.append(f"· {self.note} · ", "yellow")
        elif self.hash_ok is None:
            status.append("· hash not checked · ", "yellow")
        status.append_text(Text.assemble(
            (clean_line(pages.name, 60), "bold"),
            f" · {size_text(stored)} · {kind} · page {self.page + 1}/~{pages.page_count()}"
            f"{last}{where}",
        ))  # fmt: skip
        if self.needle:
            found = "no match" if self.match is None else f"match at byte {self.match}"
            if self.match is not None and pages.pretty:
                found = f"match on page {self.page + 1}"
            status.append(f" · “{clean_line(self.needle, 30)}”: {found}", style="italic")
        self.query_one("#viewer-status", Static).update(status)
        body = pages.text(self.page)
        self.query_one("#viewer-body", Static).update(self._render_body(body, pages))
        self._scroll_to_match(body)

    def _render_body(self, body: str, pages: EntryPages) -> Syntax | Text:
        language = None if pages.binary else language_for(pages.name)
        if language is not None and not self.needle:
            return Syntax(body, language, theme="ansi_dark", word_wrap=True)
        text = Text(body, no_wrap=pages.binary)
        if self.needle and not pages.binary:
            text.highlight_words([clean_line(self.needle)], style="black on yellow")
        elif self.needle and self.match is not None:
            label = f"{self.match // 16 * 16:08x}  "
            at = body.find(label)
            if at >= 0:
                end = body.find("\n", at)
                text.stylize("black on yellow", at, end if end >= 0 else len(body))
        return text

    def _scroll_to_match(self, body: str) -> None:
        if self.match is None or self.pages is None:
            return
        if self.pages.binary:
            start = self.pages.bounds(self.page)[0]
            line = (self.match - start) // 16
        else:
            before = body[: max(0, body.find(clean_line(self.needle)))]
            line = _wrapped_rows(before, self.scroll.scrollable_content_region.width)
        self.call_after_refresh(self.scroll.scroll_to, 0, max(0, line - 2), animate=False)


def _wrapped_rows(text: str, width: int) -> int:
    """The screen row at which ``text`` ends once word-wrapped to ``width`` columns (an
    estimate by characters: a minified JSON entry is one line of many rows)."""
    width = max(1, width)
    lines = text.split("\n")
    rows = sum(max(1, -(-cell_len(line) // width)) for line in lines[:-1])
    return rows + cell_len(lines[-1]) // width
