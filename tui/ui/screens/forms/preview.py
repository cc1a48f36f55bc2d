"""The live preview of what a form sends, exactly as composed: an issue's title, labels and body,
a post's channel, title and body (a GitHub Discussion), or a comment's post and body.

The request comes from ``tui.actions.compose.compose_request`` (the same call the outbox and
the CLI make), so what is shown is what is sent. Typed text is untrusted too (it may have been
pasted from the service): it is cleaned and never parsed as markup.
"""

from __future__ import annotations

from typing import Any

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from tui.actions.thread_answers import request_headline
from tui.untrusted import clean

#: A composed request: its kind and its fields (``compose_request``).
Composed = tuple[str, dict[str, Any]]

__all__ = ["Composed", "IssuePreview", "preview_content"]


def _head(lines: list[Content], name: str, value: str, *, bold: bool = False) -> None:
    lines.append(
        Content.assemble((f"{name:<7}", "$text-muted"), (clean(value), "bold" if bold else ""))
    )


def preview_content(request: Composed | None, problems: list[str], error: str = "") -> Content:
    """What the preview shows for ``request`` and the form's open ``problems``."""
    lines: list[Content] = []
    if problems:
        count = len(problems)
        lines.append(
            Content(f"not ready: {count} problem{'s' if count != 1 else ''}").stylize(
                "bold $text-error"
            )
        )
        lines.extend(Content("  " + clean(problem)).stylize("$text-error") for problem in problems)
        lines.append(Content(""))
    if request is None:
        lines.append(Content(clean(error) or "nothing to send yet").stylize("$text-muted"))
        return Content("\n").join(lines)
    kind, fields = request
    headline = request_headline(kind, fields)
    if headline is not None:
        _head(lines, *headline)
        if kind == "discussion":
            _head(lines, "title", str(fields.get("title", "")), bold=True)
    else:
        _head(lines, "title", str(fields.get("title", "")), bold=True)
        _head(lines, "labels", ", ".join(str(label) for label in fields.get("labels", [])))
    lines.append(Content("body").stylize("$text-muted"))
    lines.append(Content(clean(str(fields.get("body", "")).rstrip("\n"), multiline=True)))
    return Content("\n").join(lines)


class IssuePreview(VerticalScroll, can_focus=True):
    """A scrollable view of the composed request (focusable, so keys scroll it)."""

    DEFAULT_CLASSES = "issue-preview"

    def compose(self):
        yield Static("", classes="preview-text")

    def show(self, request: Composed | None, problems: list[str], error: str = "") -> None:
        self.query_one(".preview-text", Static).update(preview_content(request, problems, error))
