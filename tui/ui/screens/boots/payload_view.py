"""What the inspector draws from an egg's payload and from a failed egg, as Rich text.

The Payload pane shows a ``session``'s transcript as a conversation and an ``invite``'s target
and signature in words (:mod:`tui.eggs.json_eggs`) above the payload's JSON; a nested egg's
members are prompts of the pane's list (:mod:`tui.eggs.nested`). A failed egg's files carry
their hash status (:mod:`tui.eggs.unverified`). Every value comes from the egg: cleaned, drawn
as ``Text``/``Syntax``, never markup.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from tui.eggs.egg_report import NOT_REPRODUCIBLE, EggReport, packaging_summary
from tui.eggs.json_eggs import invite, transcript
from tui.eggs.nested import Member
from tui.eggs.unverified import FailedEgg
from tui.ui.screens.boots.json_text import pretty_json, size_text
from tui.untrusted import clean, clean_line

__all__ = [
    "STATUS_MARKS",
    "failed_files_note",
    "member_prompt",
    "payload_renderable",
    "reproducibility_text",
]

#: a failed egg's file: (mark, style) by hash status
STATUS_MARKS: dict[str, tuple[str, str]] = {
    "matches": ("✓ matches", "green"),
    "differs": ("✗ differs", "bold red"),
    "missing": ("✗ missing", "bold red"),
    "extra": ("✗ extra", "bold yellow"),
    "manifest": ("manifest", "dim"),
    "unlisted": ("· unlisted", "dim"),
}
_ROLE_STYLES = ("bold cyan", "bold magenta", "bold green", "bold yellow", "bold blue")


def _json(value: Any) -> Syntax:
    return Syntax(pretty_json(value), "json", theme="ansi_dark", word_wrap=True)


def _conversation(payload: Any) -> Text:
    turns, line = transcript(payload)
    text = Text.assemble(("Session transcript", "bold"), f" · {clean_line(line)}\n")
    roles: dict[str, str] = {}
    for turn in turns:
        role = clean_line(turn.role, 40)
        style = roles.setdefault(role, _ROLE_STYLES[len(roles) % len(_ROLE_STYLES)])
        text.append("\n")
        text.append(role, style=style)
        if turn.time:
            text.append(f"  {clean_line(turn.time, 40)}", style="dim")
        if turn.other:
            text.append(f"  {clean_line(turn.other, 200)}", style="dim")
        text.append("\n")
        body = clean(turn.text, multiline=True) or "(no text)"
        text.append("  " + body.replace("\n", "\n  ") + "\n")
    if not turns:
        text.append("\nno turns\n", style="dim")
    return text


def _invite(manifest: Any) -> Text:
    seen = invite(manifest)
    text = Text("Invite\n", style="bold")
    if seen is None:
        return text.append("the payload is not an object\n", style="bold red")
    for label, value, problem in (
        ("target rappid", seen.target_rappid, seen.rappid_problem),
        ("target URL", seen.target_url, seen.url_problem),
        ("target kind", seen.target_kind, seen.kind_problem),
    ):
        text.append(f"  {label:<14} ", style="bold")
        text.append(clean_line(value) or "—")
        if problem:
            text.append(f"  ✗ {problem}", style="bold red")
        text.append("\n")
    good = seen.signature.startswith("a detached JWS")
    text.append(f"  {'signature':<14} ", style="bold")
    text.append(clean_line(seen.signature), style="yellow" if good else "bold red")
    return text.append("\n")


def payload_renderable(manifest: Any, no_payload: str) -> RenderableType:
    """The Payload pane: a session's conversation or an invite's target above the JSON."""
    payload = manifest.get("payload") if isinstance(manifest, dict) else None
    if payload is None:
        return Text(no_payload)
    variant = manifest.get("variant")
    if variant == "session":
        return Group(_conversation(payload), Text("\npayload (JSON)", style="dim"), _json(payload))
    if variant == "invite":
        return Group(_invite(manifest), Text("\npayload (JSON)", style="dim"), _json(payload))
    return _json(payload)


def member_prompt(member: Member, can_open: bool) -> Text:
    """One member of a nested egg: mark, file name, its verdict, whether it is the member its
    payload names, and its rappid."""
    mark, style = ("✓", "green") if member.matches else ("✗", "bold red")
    text = Text.assemble((f"{mark} ", style), (clean_line(member.name, 60), "bold"))
    if member.size is not None:
        text.append(f"  {size_text(member.size)}", style="dim")
    verdict_style = "green" if member.verdict == "verified" else "bold red"
    text.append(f"  {member.verdict}", style=verdict_style)
    text.append(f"\n    {clean_line(member.why, 160)}", style=style)
    rappid = member.rappid or member.listed
    if rappid:
        text.append(f"\n    {clean_line(rappid, 160)}", style="dim")
    if member.report is not None and not can_open:
        text.append("\n    deeper than the nesting limit: not opened", style="dim")
    return text


def failed_files_note(failed: FailedEgg | None) -> Text:
    """The Files pane's note over a failed egg's files."""
    if failed is None:
        return Text("reading what can be read of a failed egg…", style="dim")
    if failed.unreadable is not None:
        return Text(f"no files shown: the container cannot be read safely ({failed.unreadable})",
                    style="bold red")  # fmt: skip
    counts = failed.counts()
    said = ", ".join(f"{n} {status}" for status, n in counts.items() if status != "manifest")
    text = Text("UNVERIFIED", style="bold red")
    text.append(f" · hash against the manifest's contents: {said or 'no files'}")
    if failed.note:
        text.append(f" · {clean_line(failed.note, 200)}", style="yellow")
    return text


def reproducibility_text(report: EggReport) -> Text | None:
    """The report's "not byte-reproducible" packaging notes, one rule a line, or None."""
    if not report.reproducibility:
        return None
    text = Text(f"{NOT_REPRODUCIBLE} (packaging only): ", style="yellow")
    text.append("; ".join(packaging_summary(report.reproducibility)))
    return text
