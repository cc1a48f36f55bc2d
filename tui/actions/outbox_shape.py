"""What an outbox entry read back from disk must look like, field by field.

An entry file is as untrusted as the service's answers: whoever can write the outbox folder can
put a string where a number was, a list where an object was. Every field the code relies on is
checked here before an :class:`~tui.actions.outbox.Entry` is made, so that nothing further on
(sending, following, printing, the Outbox screen) meets a value of the wrong type. What fails
is said in words (:func:`entry_problem`), and the outbox lists the file as damaged.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tui.actions.builtin_actions import REACTION_CONTENTS
from tui.actions.issue_client import is_issue_number as positive_int

__all__ = ["KINDS", "entry_problem", "is_number"]

#: How an entry is sent.
KINDS = frozenset({"issue", "discussion", "discussion_comment", "discussion_reaction"})

Check = Callable[[Any], bool]


def is_number(value: Any) -> bool:
    return type(value) in (int, float)


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _flag(value: Any) -> bool:
    return isinstance(value, bool)


def _optional(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _shaped(fields: Mapping[str, tuple[Check, str]]) -> Check:
    """An object whose listed members, where present, pass their checks."""

    def check(value: Any) -> bool:
        return isinstance(value, dict) and _member_problem(value, fields) is None

    return check


def _each(check: Check) -> Check:
    return lambda value: isinstance(value, list) and all(check(v) for v in value)


def _member_problem(data: Mapping[str, Any], fields: Mapping[str, tuple[Check, str]]) -> str | None:
    for name, (check, what) in fields.items():
        if name in data and not check(data[name]):
            return f"its {name} is not {what}"
    return None


_ATTEMPT = _shaped(
    {
        "at": (_optional(is_number), "a time"),
        "kind": (_text, "text"),
        "status": (_optional(lambda v: type(v) is int), "a status"),
        "message": (_text, "text"),
    }
)
_COMMENT = _shaped(
    {
        "id": (_optional(lambda v: type(v) is int), "a number"),
        "login": (_text, "text"),
        "at": (_text, "text"),
        "body": (_text, "text"),
    }
)
_RECEIPT = _shaped(
    {
        "status": (_text, "text"),
        "url": (_text, "text"),
        "error": (_optional(_text), "text"),
        "hint": (_optional(_text), "text"),
    }
)
_BASELINE = _shaped(
    {
        "actor": (_text, "text"),
        "seen": (lambda v: v is None or type(v) in (bool, int, float, dict), "a record"),
    }
)
_TRACKING = _shaped(
    {
        "queued_at": (is_number, "a time"),
        "next_at": (is_number, "a time"),
        "checks": (lambda v: type(v) is int, "a count"),
        "seen_comments": (_optional(lambda v: type(v) is int), "a count"),
        "two_step": (_flag, "true or false"),
        "closed": (_flag, "true or false"),
        "issue_etag": (_optional(_text), "text"),
        "comments_etag": (_optional(_text), "text"),
        "receipt_etags": (
            lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
            "an object of texts",
        ),
        "receipt_error": (_text, "text"),
        "last_error": (_text, "text"),
    }
)

#: Every field of an entry and what it must hold (``state`` is checked against the outbox's).
FIELDS: dict[str, tuple[Check, str]] = {
    "id": (_text, "text"),
    "action": (_text, "text"),
    "payload": (lambda v: isinstance(v, dict), "an object"),
    "nonce": (_text, "text"),
    "state": (_text, "text"),
    "kind": (lambda v: v in KINDS, "issue, discussion, discussion_comment or discussion_reaction"),
    "created_at": (_text, "text"),
    "updated_at": (_text, "text"),
    "request": (lambda v: isinstance(v, dict), "an object"),
    "number": (_optional(positive_int), "an issue number"),
    "html_url": (_optional(_text), "text"),
    "api_url": (_optional(_text), "text"),
    "author": (_optional(_text), "text"),
    "reason": (_optional(_text), "text"),
    "retry_safe": (_optional(_flag), "true or false"),
    "unreachable": (_flag, "true or false"),
    "maybe_sent": (_flag, "true or false"),
    "notices": (_texts, "a list of texts"),
    "attempts": (_each(_ATTEMPT), "a list of answers"),
    "comment": (_optional(_text), "text"),
    "accepted_at": (_optional(_text), "text"),
    "applied_at": (_optional(_text), "text"),
    "received_at": (_optional(_text), "text"),
    "issue_created_at": (_optional(_text), "text"),
    "node_id": (_optional(_text), "text"),
    "receipt": (_optional(_RECEIPT), "a receipt"),
    "comments": (_each(_COMMENT), "a list of comments"),
    "baseline": (_optional(_BASELINE), "a record of the state"),
    "tracking": (_TRACKING, "a record of the checks"),
}

REQUIRED = ("id", "action", "payload", "nonce")

#: What the request of each kind holds (what sending it reads).
REQUESTS: dict[str, dict[str, tuple[Check, str]]] = {
    "issue": {"title": (_text, "text"), "body": (_text, "text"), "labels": (_texts, "texts")},
    "discussion": {
        "repositoryId": (_text, "text"),
        "categoryId": (_text, "text"),
        "title": (_text, "text"),
        "body": (_text, "text"),
    },
    "discussion_comment": {
        "discussion_number": (positive_int, "a Discussion's number"),
        "body": (_text, "text"),
        "reply_to": (_text, "text"),
        "discussionId": (_text, "text"),
    },
    "discussion_reaction": {
        "discussion_number": (positive_int, "a Discussion's number"),
        "subject": (_text, "text"),
        "content": (lambda v: v in REACTION_CONTENTS, "one of GitHub's reactions"),
        "subjectId": (_text, "text"),
    },
}
#: Members of a request that may be left out (checked where present).
OPTIONAL = frozenset({"labels", "reply_to", "discussionId", "subject", "subjectId"})


def entry_problem(data: Any, states: frozenset[str] | tuple[str, ...]) -> str | None:
    """Why ``data`` (a parsed entry file) is not an outbox entry, in words; None when it is."""
    if not isinstance(data, dict):
        return "not a JSON object"
    missing = [name for name in REQUIRED if name not in data]
    if missing:
        return f"it has no {', '.join(missing)}"
    problem = _member_problem(data, FIELDS)
    if problem is not None:
        return problem
    if data.get("state", "draft") not in states:
        return "its state is not one roost knows"
    request, wanted = data.get("request", {}), REQUESTS[data.get("kind", "issue")]
    absent = [name for name in wanted if name not in request and name not in OPTIONAL]
    if absent:
        return f"its request has no {', '.join(absent)}"
    problem = _member_problem(request, wanted)
    return problem.replace("its ", "its request's ", 1) if problem is not None else None
