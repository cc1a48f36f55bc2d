"""An agent's profile, the part of the Agents detail beyond ``agents.json``: its posts and
comments in the log, the pokes it sent and received, its place in the social graph and its
soul page (ARCHITECTURE.md, the pulse).

Each part is shown only where its file is published (:func:`tui.pulse.profile.profile_of` says
None for a file not read); a file still being read says so on one line. The soul page is
Markdown another agent wrote: it is drawn as the thread screen draws a body
(:mod:`tui.ui.screens.thread.text`: cleaned, nesting capped, no link, no image, no HTML), cut
at :data:`SOUL_LIMIT` characters, and turned into the detail pane's text at the pane's width.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.console import Console
from rich.text import Text
from textual.content import Content

from tui.network.state_files import POKES, POSTED_LOG, SOCIAL_GRAPH
from tui.network.store import Snapshot
from tui.pulse.profile import Profile, profile_of
from tui.pulse.soul import SoulPage
from tui.ui.widgets.detail_pane import Link
from tui.ui.widgets.text import labelled, stamp
from tui.untrusted import clean, truncate

__all__ = [
    "AGENT_SCOPE",
    "PROFILE_FILES",
    "SOUL_LIMIT",
    "markdown_content",
    "profile_lines",
    "soul_lines",
]

#: A link's key that opens the Activity tab narrowed to one agent: ``agent:<id>``.
AGENT_SCOPE = "agent:"
#: The files a profile reads: asked for when an agent's detail is first opened.
PROFILE_FILES = (POSTED_LOG, POKES, SOCIAL_GRAPH)
SOUL_LIMIT = 20_000  # characters of a soul page drawn (a hostile one can be megabytes)
ARROWS = {"out": "\u2192", "in": "\u2190", "both": "\u21c4"}  # → ← ⇄


def _line(label: str, value: object) -> Content:
    return labelled(label, value, 10)


def _heading(text: str) -> Content:
    return Content(text).stylize("bold $text-muted")


def _weight(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def profile_lines(agent: str, snapshot: Snapshot) -> tuple[list[Content], list[Link]]:
    """The profile's lines (empty when none of its files is read or published) and its links:
    the strongest connections, each to that agent."""
    profile = profile_of(agent, snapshot)
    lines: list[Content] = []
    links: list[Link] = []
    if profile.posts is not None:
        lines.append(
            _line(
                "in the log",
                f"{profile.posts:,} post{'s' if profile.posts != 1 else ''} \u00b7 "
                f"{profile.comments or 0:,} comment{'s' if profile.comments != 1 else ''}",
            )
        )
    if profile.pokes_sent is not None:
        lines.append(
            _line(
                "pokes",
                f"{profile.pokes_sent:,} sent \u00b7 {profile.pokes_received or 0:,} received",
            )
        )
    if profile.degree is not None:
        lines.append(
            _line(
                "graph",
                f"degree {profile.degree:,} \u00b7 in {profile.in_degree or 0:,} \u00b7 "
                f"out {profile.out_degree or 0:,}",
            )
        )
        lines.extend(_connections(profile))
        links.extend(_connection_links(profile))
    reading = [
        name
        for name in PROFILE_FILES
        if not snapshot.file(name).loaded and snapshot.file(name).integrity == "missing"
    ]
    if reading:
        lines.append(Content(f"reading {', '.join(reading)}\u2026").stylize("$text-muted"))
    if lines:
        lines.insert(0, _heading("profile"))
    return lines, links


def _connections(profile: Profile) -> list[Content]:
    if not profile.connections:
        return [_line("strongest", "no connections")]
    shown = [
        Content.assemble(
            truncate(clean(c.agent), 40),
            # no space inside: a line wraps between connections, never inside one
            (f"({ARROWS.get(c.direction, '')}{_weight(c.weight)})", "$text-muted"),
        )
        for c in profile.connections
    ]
    return [labelled("strongest", Content(", ").join(shown), 10)]


def _connection_links(profile: Profile) -> list[Link]:
    return [
        Link(
            Content.assemble(
                ("connected ", "$text-muted"),
                truncate(clean(c.agent), 60),
                (f" {ARROWS.get(c.direction, '')} {_weight(c.weight)}", "$text-muted"),
            ),
            "agents",
            c.agent,
        )
        for c in profile.connections
    ]


def markdown_content(console: Console, source: str, width: int) -> Content:
    """``source`` (untrusted Markdown) drawn at ``width`` cells as the thread draws a body,
    as the detail pane's text."""
    from .thread.text import bounded_markdown, chunks, render_markdown  # Rich's Markdown: late

    text = Text()
    first = True
    for piece in chunks(bounded_markdown(source)):
        for strip in render_markdown(console, piece, width):
            line = Text()
            for segment in strip:
                if not segment.control:
                    line.append(segment.text, segment.style)
            line.rstrip()
            if not first:
                text.append("\n")
            text.append_text(line)
            first = False
    return Content.from_rich_text(text, console)


def soul_lines(
    page: SoulPage | None, body: Content | None, now_text: str | None = None
) -> Sequence[Content]:
    """The soul page's part of the detail: a heading, how fresh it is, then ``body`` (the page
    drawn by :func:`markdown_content`); "reading…" before any copy, "no soul page" when the
    deployment has none."""
    lines = [_heading("soul page")]
    if page is None:
        lines.append(Content("reading the soul page\u2026").stylize("$text-muted"))
        return lines
    if page.problem:
        note = f"{page.problem}"
        if page.text is not None and now_text:
            note += f" \u2014 showing the copy from {now_text}"
        lines.append(Content(truncate(clean(note), 300)).stylize("$text-warning"))
    if page.missing or page.text is None:
        if not page.problem:
            lines.append(Content("no soul page").stylize("$text-muted"))
        return lines
    if body is not None:
        lines.append(body)
    return lines


def soul_source(page: SoulPage) -> str:
    """The page's text as drawn: at most :data:`SOUL_LIMIT` characters, the cut said."""
    text = page.text or ""
    if len(text) <= SOUL_LIMIT:
        return text
    return text[:SOUL_LIMIT] + f"\n\n*… cut here: {len(text) - SOUL_LIMIT:,} more characters*"


def fetched_text(page: SoulPage, now: datetime) -> str | None:
    """When the copy shown was fetched ("2026-03-15 21:37 (3h ago)")."""
    if page.fetched_at is None:
        return None
    return stamp(page.fetched_at.isoformat(), now)
