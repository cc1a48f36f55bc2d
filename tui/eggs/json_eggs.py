"""What a JSON egg carries, in the words a person reads it by.

A ``session`` egg's payload is a transcript: :func:`transcript` turns it into a conversation,
one :class:`Turn` (role, text, time) per item, whatever the runtime named those members. An
``invite`` egg points at a neighborhood or an estate: :func:`invite` gives its target rappid,
URL and kind, each with what is wrong with it, and its signature in words — a placeholder such
as ``"MIGRATED-UNSIGNED-legacy-pointer"`` is "not a signature", not only a grammar failure.

Values are returned as they are (bounded); the inspector cleans them before drawing them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tui.eggs import rapp

__all__ = [
    "MAX_TURNS",
    "MAX_TURN_TEXT",
    "Invite",
    "Turn",
    "invite",
    "signature_words",
    "transcript",
]

#: Turns of a transcript shown (the rest are counted), and characters of one turn's text.
MAX_TURNS = 2_000
MAX_TURN_TEXT = 8_000
_ROLE = ("role", "speaker", "author", "from", "who", "sender")
_TEXT = ("text", "content", "message", "body", "msg")
_TIME = ("time", "ts", "utc", "created_utc", "timestamp", "at", "date")


@dataclass(frozen=True)
class Turn:
    """One item of a session's transcript: who spoke, what, when ("" when it does not say);
    ``other``: the item's remaining members, as compact JSON (bounded)."""

    role: str
    text: str
    time: str
    other: str = ""


def _first(item: dict[str, Any], names: tuple[str, ...]) -> tuple[str | None, Any]:
    for name in names:
        if name in item:
            return name, item[name]
    return None, None


def _as_text(value: Any, limit: int) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    elif isinstance(value, list) and all(isinstance(v, dict) and "text" in v for v in value):
        text = "\n".join(str(v["text"]) for v in value)  # content given as parts
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def transcript(payload: Any) -> tuple[list[Turn], str]:
    """The conversation of a session's ``payload`` and a line about it (the runtime, how many
    turns, what could not be read)."""
    if not isinstance(payload, dict):
        return [], "the payload is not an object: no transcript"
    items = payload.get("transcript")
    runtime = payload.get("runtime")
    said = f"runtime {_as_text(runtime, 80)}" if isinstance(runtime, str) else "no runtime named"
    if not isinstance(items, list):
        return [], f"{said}; the transcript is not an array"
    turns = []
    for item in items[:MAX_TURNS]:
        if not isinstance(item, dict):
            turns.append(Turn("?", _as_text(item, MAX_TURN_TEXT), "", "not an object"))
            continue
        role_key, role = _first(item, _ROLE)
        text_key, text = _first(item, _TEXT)
        time_key, time = _first(item, _TIME)
        rest = {k: v for k, v in item.items() if k not in (role_key, text_key, time_key)}
        turns.append(
            Turn(
                _as_text(role, 40) or "?",
                _as_text(text, MAX_TURN_TEXT),
                _as_text(time, 40),
                _as_text(rest, 200) if rest else "",
            )
        )
    count = f"{len(items):,} turn{'' if len(items) == 1 else 's'}"
    if len(items) > MAX_TURNS:
        count += f" (the first {MAX_TURNS:,} shown)"
    return turns, f"{said} · {count}"


def signature_words(sig: Any) -> str:
    """The manifest's ``sig`` in words: unsigned, a detached JWS (never verified here: roost
    holds no keys), or not a signature at all and why."""
    if sig is None:
        return "unsigned: sig is null"
    problem = rapp.sig_problem(sig)
    if problem is None:
        return "a detached JWS signature, not verified: roost holds no signer keys"
    if isinstance(sig, str) and "." not in sig:
        return (
            f"not a signature: sig is the text {_as_text(sig, 80)!r}, a placeholder, not a "
            "detached JWS; nothing proves who made this egg"
        )
    return f"not a signature: {problem}; nothing proves who made this egg"


@dataclass(frozen=True)
class Invite:
    """An invite's target and signature, each value with what is wrong with it ("" when
    nothing is)."""

    target_rappid: str
    rappid_problem: str
    target_url: str
    url_problem: str
    target_kind: str
    kind_problem: str
    signature: str


def invite(manifest: Any) -> Invite | None:
    """The invite ``manifest`` names (None when it is not an object with an object payload)."""
    payload = manifest.get("payload") if isinstance(manifest, dict) else None
    if not isinstance(payload, dict):
        return None
    target = payload.get("target_rappid")
    url = payload.get("target_url")
    kind = payload.get("target_kind")
    url_text = _as_text(url, 300)
    url_problem = ""
    if not isinstance(url, str):
        url_problem = "missing or not a string"
    elif not url.startswith(("https://", "http://")):
        url_problem = "not an http(s) URL"
    return Invite(
        target_rappid=_as_text(target, 300),
        rappid_problem="" if rapp.is_rappid(target) else "not a valid rappid",
        target_url=url_text,
        url_problem=url_problem,
        target_kind=_as_text(kind, 80),
        kind_problem="" if kind in ("neighborhood", "estate") else "not neighborhood or estate",
        signature=signature_words(manifest.get("sig")),
    )
