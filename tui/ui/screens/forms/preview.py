"""The live preview of the issue a form sends: title, labels and body, exactly as composed.

The body comes from ``tui.actions.issue_body.compose_issue`` (the same call the outbox makes),
so what is shown is what is sent. Typed text is untrusted too (it may have been pasted from the
service): it is cleaned and never parsed as markup.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from tui.actions.issue_body import IssueRequest
from tui.untrusted import clean

__all__ = ["IssuePreview", "preview_content"]


def preview_content(request: IssueRequest | None, problems: list[str], error: str = "") -> Content:
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
    lines.append(Content.assemble(("title  ", "$text-muted"), (clean(request.title), "bold")))
    labels = ", ".join(clean(label) for label in request.labels)
    lines.append(Content.assemble(("labels ", "$text-muted"), labels))
    lines.append(Content("body").stylize("$text-muted"))
    lines.append(Content(clean(request.body.rstrip("\n"), multiline=True)))
    return Content("\n").join(lines)


class IssuePreview(VerticalScroll, can_focus=True):
    """A scrollable view of the composed issue (focusable, so keys scroll it)."""

    DEFAULT_CLASSES = "issue-preview"

    def compose(self):
        yield Static("", classes="preview-text")

    def show(self, request: IssueRequest | None, problems: list[str], error: str = "") -> None:
        self.query_one(".preview-text", Static).update(preview_content(request, problems, error))
