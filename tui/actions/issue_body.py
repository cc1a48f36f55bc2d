"""The issue that carries one action, and the parser the service (and the sandbox) applies to it.

An action is one issue: title = action name, labels = [dash form], body = a markdown ``json`` code
fence holding exactly ``{"action": <name>, "payload": {...}}``. A client nonce travels in an HTML
comment *outside* the fence, so it never reaches the processor but lets the outbox recognise its
own issue later when a send ended in an unknown state.

Payload text is untrusted and may contain anything, including backticks. The JSON inside the
fence escapes every backtick (``\\u0060``), so no payload can close the fence early, and escapes
the characters some renderers treat as line breaks or hide (C1 controls, U+2028/2029, bidi
controls, lone surrogates). The fence is plain JSON either way: ``json.loads`` gives back the
exact payload.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from tui.actions.catalog import ACTION_NAME_PATTERN, action_label
from tui.conversation.text import NONCE_COMMENT
from tui.errors import RoostError
from tui.strict_json import unique_members

#: GitHub refuses issue bodies longer than this many characters.
MAX_BODY_CHARS = 65_536
#: Nonces: letters, digits and ``._:``, single dashes between them; at most 128 characters.
NONCE_PATTERN = r"^[A-Za-z0-9._:]+(?:-[A-Za-z0-9._:]+)*$"
_NONCE_MAX = 128

_OPEN_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
# Characters escaped inside JSON strings beyond what json.dumps escapes on its own.
_UNSAFE_CHARS = re.compile("[`\x7f-\x9f\u2028\u2029\ufeff\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_COMMENT_OPEN = re.compile(r"<(?=!--)")


class IssueBodyError(RoostError, ValueError):
    """The issue body does not carry a well-formed action."""


@dataclass(frozen=True)
class IssueRequest:
    """What to send to ``POST /repos/{owner}/{repo}/issues``."""

    title: str
    labels: list[str] = field(default_factory=list)
    body: str = ""

    def as_json(self) -> dict[str, Any]:
        """The JSON request body."""
        return {"title": self.title, "labels": list(self.labels), "body": self.body}


@dataclass(frozen=True)
class ParsedAction:
    """An action read back from an issue body."""

    action: str
    payload: dict[str, Any]
    nonce: str | None = None


def new_nonce() -> str:
    """A fresh random client nonce (32 hex characters)."""
    return secrets.token_hex(16)


def _escape_char(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def render_action_json(action: str, payload: dict[str, Any]) -> str:
    """The fence content: pretty-printed, sorted keys, with the unsafe characters escaped."""
    text = json.dumps(
        {"action": action, "payload": payload},
        indent=2,
        sort_keys=True,
        ensure_ascii=False,
        allow_nan=False,
    )
    # Outside JSON strings the text is plain ASCII punctuation, so every match lies inside a
    # string, where a \uXXXX escape means the same character.
    text = _UNSAFE_CHARS.sub(_escape_char, text)
    return _COMMENT_OPEN.sub(r"\\u003c", text)


def compose_issue(
    action: str, payload: dict[str, Any], nonce: str | None = None, *, label: str | None = None
) -> IssueRequest:
    """The issue that performs ``action`` with ``payload``, labelled ``label`` (the action's
    dash form unless the deployment's contract names another).

    Raises ``ValueError`` for an action name that is not lowercase words joined by ``_``, a
    payload that is not a JSON object of JSON values (no NaN/Infinity), a malformed nonce, or a
    body over GitHub's limit.
    """
    if not isinstance(action, str) or not re.fullmatch(ACTION_NAME_PATTERN, action):
        raise ValueError(f"action name {action!r} must be lowercase words joined by _")
    if not isinstance(payload, dict):
        raise ValueError(f"payload must be a dict, not {type(payload).__name__}")
    if any(not isinstance(key, str) for key in payload):
        raise ValueError("payload keys must be strings")
    if nonce is not None and (
        not isinstance(nonce, str)
        or len(nonce) > _NONCE_MAX
        or not re.fullmatch(NONCE_PATTERN, nonce)
    ):
        raise ValueError(
            "nonce must be 1-128 letters, digits or ._: with single dashes between them"
        )
    try:
        fence_body = render_action_json(action, payload)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"payload is not representable as JSON: {exc}") from exc
    body = f"```json\n{fence_body}\n```\n"
    if nonce is not None:
        body += f"\n<!-- roost-nonce: {nonce} -->\n"
    if len(body) > MAX_BODY_CHARS:
        raise ValueError(
            f"issue body is {len(body)} characters; the limit is {MAX_BODY_CHARS}: shorten the text"
        )
    return IssueRequest(title=action, labels=[label or action_label(action)], body=body)


# ---------------------------------------------------------------------------------------------
# Parsing


def _find_fence(lines: list[str]) -> tuple[str, int, int] | None:
    """(content, first line index, closing line index) of the action fence, or None.

    The first fence whose info string is ``json`` wins; failing that, the first fence without an
    info string. Fences follow CommonMark: up to three spaces of indent, three or more backticks
    or tildes, closed by a run of the same character at least as long.
    """
    candidates: list[tuple[str, int, int, str]] = []
    index = 0
    while index < len(lines):
        opened = _OPEN_FENCE.match(lines[index])
        if opened is None:
            index += 1
            continue
        indent, fence, info = len(opened.group(1)), opened.group(2), opened.group(3)
        if fence[0] == "`" and "`" in info:
            index += 1  # not a fence: backtick fences cannot have backticks in the info string
            continue
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = next((j for j in range(index + 1, len(lines)) if closing.match(lines[j])), None)
        if end is None:
            raise IssueBodyError(
                f"the code fence opened on line {index + 1} is never closed: "
                f"end it with a line of {fence}"
            )
        content_lines = []
        for line in lines[index + 1 : end]:
            strip = len(line) - len(line.lstrip(" "))
            content_lines.append(line[min(strip, indent) :])
        word = info.strip().split(maxsplit=1)[0].lower() if info.strip() else ""
        candidates.append(("\n".join(content_lines), index, end, word))
        index = end + 1
    for wanted in ("json", ""):
        for content, start, end, word in candidates:
            if word == wanted:
                return content, start, end
    return None


_no_duplicates = unique_members(lambda key: IssueBodyError(f"the JSON repeats the key {key!r}"))


def _reject_constant(name: str) -> Any:
    raise IssueBodyError(f"the JSON contains {name}, which is not valid JSON")


def parse_issue_body(body: str) -> ParsedAction:
    """Read the action, payload and client nonce from an issue body.

    Raises ``IssueBodyError`` when there is no ``json`` code fence, when its content is not valid
    JSON, when the top level is not an object with exactly the keys ``action`` and ``payload``,
    when ``action`` is not an action name, or when ``payload`` is not an object.
    """
    if not isinstance(body, str):
        raise IssueBodyError("the issue has no body")
    # CommonMark line endings only (not str.splitlines, which also splits on U+2028, \x85, ...).
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    found = _find_fence(lines)
    if found is None:
        raise IssueBodyError(
            'the body has no ```json code fence; expected {"action": ..., "payload": {...}} '
            "inside one"
        )
    content, start, end = found
    try:
        document = json.loads(
            content, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant
        )
    except json.JSONDecodeError as exc:
        raise IssueBodyError(
            f"the code fence does not hold valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg})"
        ) from exc
    except RecursionError as exc:
        raise IssueBodyError("the JSON in the code fence is nested too deeply") from exc
    if not isinstance(document, dict):
        raise IssueBodyError(
            f"the code fence must hold a JSON object, not {type(document).__name__}"
        )
    keys = set(document)
    if keys != {"action", "payload"}:
        extra = sorted(keys - {"action", "payload"})
        missing = sorted({"action", "payload"} - keys)
        problems = []
        if missing:
            problems.append(f"missing {', '.join(missing)}")
        if extra:
            problems.append(f"unexpected {', '.join(repr(k) for k in extra)}")
        raise IssueBodyError(
            "the JSON must have exactly the keys action and payload (" + "; ".join(problems) + ")"
        )
    action = document["action"]
    if not isinstance(action, str) or not re.fullmatch(ACTION_NAME_PATTERN, action):
        raise IssueBodyError(
            f"action must be an action name such as register_agent, not {action!r}"
        )
    payload = document["payload"]
    if not isinstance(payload, dict):
        raise IssueBodyError(f"payload must be a JSON object, not {type(payload).__name__}")
    outside = "\n".join(lines[:start] + lines[end + 1 :])
    nonce_match = NONCE_COMMENT.search(outside)
    nonce = nonce_match.group(1) if nonce_match else None
    return ParsedAction(action=action, payload=payload, nonce=nonce)


__all__ = [
    "MAX_BODY_CHARS",
    "NONCE_PATTERN",
    "IssueBodyError",
    "IssueRequest",
    "ParsedAction",
    "compose_issue",
    "new_nonce",
    "parse_issue_body",
    "render_action_json",
]
