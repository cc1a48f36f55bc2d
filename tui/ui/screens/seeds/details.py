"""What the Seeds screen says about seeds and proposals: plain functions from models to ``Content``.

Every string in seeds.json is service data: it goes through :func:`tui.untrusted.clean` and is
assembled as plain ``Content`` (never markup), so a hostile id or text is shown literally.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from textual.content import Content

from tui.network.models import Convergence, Proposal, Seed, as_utc
from tui.ui.widgets.detail_pane import Link, raw_json
from tui.ui.widgets.text import age, bar, when
from tui.untrusted import clean, truncate

__all__ = [
    "Detail",
    "active_body",
    "active_summary",
    "no_active_seed",
    "ago",
    "convergence_line",
    "percent",
    "proposal_detail",
    "proposal_links",
    "raw_view",
    "score_fraction",
    "seed_detail",
    "sorted_proposals",
    "unique_keys",
    "vote_total",
]

_HEADING = "bold $accent"
_MUTED = "$text-muted"
_LABEL = "bold"


def score_fraction(score: float | None) -> float:
    """The convergence score (the service sends 0-100) as 0..1; nonsense clamps to the ends."""
    if score is None or score != score:  # NaN
        return 0.0
    return max(0.0, min(1.0, float(score) / 100.0))


def percent(score: float | None) -> str:
    return f"{round(score_fraction(score) * 100)}%"


def vote_total(proposal: Proposal) -> int:
    """The proposal's votes: ``vote_count``, or the voters listed when the count is missing."""
    return proposal.vote_count or len(proposal.votes)


def sorted_proposals(proposals: Iterable[Proposal]) -> list[Proposal]:
    """Most votes first; ties keep the file's order (stable)."""
    return sorted(proposals, key=vote_total, reverse=True)


def unique_keys(ids: Iterable[str]) -> list[str]:
    """Row keys from ids; a repeated id (hostile or broken data) gets ``#2``, ``#3``..."""
    seen: dict[str, int] = {}
    keys = []
    for raw in ids:
        n = seen.get(raw, 0) + 1
        seen[raw] = n
        keys.append(raw if n == 1 else f"{raw}#{n}")
    return keys


def ago(timestamp: str | None, now: datetime) -> str:
    moment = as_utc(timestamp)
    return "\u2014" if moment is None else age(moment, now)


def relative(timestamp: str, now: datetime) -> str:
    """ "3h ago" / "in 5m"; an unparsable timestamp shown as sent (cleaned)."""
    moment = as_utc(timestamp)
    if moment is None:
        return truncate(clean(timestamp), 40)
    text = age(moment, now)
    return f"in {text[1:]}" if text.startswith("+") else f"{text} ago"


def when_text(timestamp: str | None, now: datetime) -> str:
    """A timestamp with its age; an unparsable one shown as sent (cleaned)."""
    moment = as_utc(timestamp)
    if moment is None:
        return truncate(clean(timestamp), 40) if timestamp else "\u2014"
    return when(moment, now)


def _join(values: Sequence[str], limit: int = 200) -> str:
    shown = ", ".join(truncate(clean(v), 60) for v in values[:limit])
    more = len(values) - limit
    return shown + (f" (+{more} more)" if more > 0 else "")


def convergence_line(convergence: Convergence | None, width: int = 20) -> Content:
    """``convergence ██████▌······ 72% · not resolved · 4 signals``."""
    if convergence is None:
        return Content.assemble(("convergence ", _LABEL), ("not evaluated yet", _MUTED))
    resolved = ("resolved", "bold $text-success") if convergence.resolved else "not resolved"
    signals = convergence.signal_count
    return Content.assemble(
        ("convergence ", _LABEL),
        (bar(score_fraction(convergence.score), width), "$accent"),
        f" {percent(convergence.score)} \u00b7 ",
        resolved,
        f" \u00b7 {signals} signal{'' if signals == 1 else 's'}",
    )


def _section(title: str, body: str, *, empty: str = "(none)") -> list[Content | str | tuple]:
    text = clean(body, multiline=True).strip("\n")
    return [
        (title, _HEADING),
        "\n",
        text if text else (empty, _MUTED),
        "\n\n",
    ]


def _field(label: str, value: str) -> list[Content | str | tuple]:
    return [(f"{label} ", _LABEL), value, "\n"]


def _extras(extras: dict[str, Any]) -> list[Content | str | tuple]:
    """Fields roost does not model yet, shown as cleaned JSON so nothing the service sends hides."""
    if not extras:
        return []
    parts: list[Content | str | tuple] = [("Other fields", _HEADING), "\n"]
    for key, value in extras.items():
        try:
            shown = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            shown = repr(value)
        parts += _field(truncate(clean(key), 60) + ":", truncate(clean(shown), 2000))
    return parts


def _convergence_parts(convergence: Convergence | None, now: datetime) -> list:
    if convergence is None:
        return [convergence_line(None), "\n\n"]
    parts: list = [convergence_line(convergence), "\n"]
    if convergence.evaluated_at:
        parts += _field("evaluated", when_text(convergence.evaluated_at, now))
    if convergence.channels:
        parts += _field("channels", _join(convergence.channels))
    if convergence.agents:
        parts += _field(f"agents ({len(convergence.agents)})", _join(convergence.agents))
    parts.append("\n")
    if convergence.synthesis:
        parts += _section("Synthesis", convergence.synthesis)
    return parts


def seed_detail(seed: Seed, now: datetime, *, with_convergence: bool = True) -> Content:
    """Everything about one seed (queue and history entries; the active seed's body)."""
    parts: list = [(clean(seed.id), "bold"), "\n"]
    if seed.source:
        parts += _field("source", truncate(clean(seed.source), 200))
    for label, stamp in (
        ("queued", seed.queued_at),
        ("injected", seed.injected_at),
        ("resolved", seed.resolved_at),
        ("archived", seed.archived_at),
    ):
        if stamp:
            parts += _field(label, when_text(stamp, now))
    if seed.frames_active is not None:
        parts += _field("frames active", str(seed.frames_active))
    if seed.tags:
        parts += _field("tags", _join(seed.tags))
    parts.append("\n")
    parts += _section("Text", seed.text)
    parts += _section("Context", seed.context)
    if with_convergence:
        parts += _convergence_parts(seed.convergence, now)
    if seed.resolution:
        parts += [("Resolution", _HEADING), "\n"]
        for key, value in seed.resolution.items():
            if isinstance(value, list | tuple):
                shown = _join([str(v) for v in value])
            elif isinstance(value, str):
                shown = clean(value, multiline=True)
            else:
                shown = clean(json.dumps(value, ensure_ascii=False, default=str))
            parts += _field(truncate(clean(key), 60) + ":", shown)
        parts.append("\n")
    parts += _extras(seed.extras)
    return Content.assemble(*parts).rstrip()


def proposal_detail(proposal: Proposal, now: datetime) -> Content:
    votes = vote_total(proposal)
    parts: list = [
        (clean(proposal.id), "bold"),
        "\n",
        *_field("votes", str(votes)),
        *_field("author", truncate(clean(proposal.author), 200) if proposal.author else "\u2014"),
    ]
    if proposal.proposed_at:
        parts += _field("proposed", when_text(proposal.proposed_at, now))
    if proposal.tags:
        parts += _field("tags", _join(proposal.tags))
    parts.append("\n")
    parts += _section("Text", proposal.text)
    parts += _section("Context", proposal.context)
    parts += [(f"Voters ({len(proposal.votes)})", _HEADING), "\n"]
    parts += [_join(proposal.votes, 500) if proposal.votes else ("no votes yet", _MUTED), "\n\n"]
    parts += _extras(proposal.extras)
    return Content.assemble(*parts).rstrip()


def active_summary(active: Seed, now: datetime) -> Content:
    """The lines above the active seed's text: id, source, age, convergence, tags, channels."""
    convergence = active.convergence
    head: list = [(clean(active.id), "bold")]
    if active.source:
        head.append(f" \u00b7 source {truncate(clean(active.source), 40)}")
    if active.injected_at:
        head.append(f" \u00b7 injected {relative(active.injected_at, now)}")
    if active.frames_active is not None:
        frames = active.frames_active
        head.append(f" \u00b7 {frames} frame{'' if frames == 1 else 's'} active")
    lines: list = [*head, "\n", convergence_line(convergence)]
    if active.tags:
        lines += ["\n", ("tags ", _LABEL), _join(active.tags)]
    if convergence is not None and convergence.channels:
        lines += ["\n", ("channels ", _LABEL), _join(convergence.channels)]
    return Content.assemble(*lines)


def active_body(active: Seed, now: datetime) -> Content:
    """The active seed's text, context and synthesis (its agents are listed beside it)."""
    convergence = active.convergence
    body: list = []
    body += _section("Text", active.text)
    body += _section("Context", active.context)
    if convergence is not None:
        body += _section("Synthesis", convergence.synthesis, empty="(no synthesis yet)")
        if convergence.evaluated_at:
            body += _field("convergence evaluated", when_text(convergence.evaluated_at, now))
        if convergence.agents:
            body += _field(f"agents ({len(convergence.agents)})", "see the list on the right")
    if active.resolution or active.resolved_at or active.extras:
        body.append("\n")
        body += [seed_detail(active, now, with_convergence=False), "\n"]
    return Content.assemble(*body).rstrip()


def no_active_seed(queued: int) -> tuple[Content, Content]:
    """Summary and body while the network is between seeds."""
    follow = (
        f"{queued} seed{'' if queued == 1 else 's'} queued: see the Queue section (press ])."
        if queued
        else "The queue is empty."
    )
    return Content.assemble(("No active seed", "bold"), " right now."), Content(follow)


def raw_view(kind: str, record_id: str, model: Any) -> Content:
    """A record's raw JSON under a heading that says which record it is."""
    heading = Content.assemble(
        ("raw JSON", _HEADING), f" \u00b7 {kind} ", (clean(record_id), "bold")
    )
    return Content.assemble(heading, "\n\n", raw_json(model))


def proposal_links(proposal: Proposal) -> list[Link]:
    """Where a proposal leads: its author on the Agents tab."""
    if not proposal.author:
        return []
    label = Content.assemble(("agent ", _MUTED), truncate(clean(proposal.author), 60))
    return [Link(label, "agents", proposal.author)]


@dataclass(frozen=True, slots=True)
class Detail:
    """What a list's detail shows for one row: its text, its links, and its record (raw JSON)."""

    kind: str  # "proposal", "seed"
    record_id: str
    model: Any
    body: Content
    links: list[Link] = field(default_factory=list)

    def raw_view(self) -> Content:
        return raw_view(self.kind, self.record_id, self.model)
