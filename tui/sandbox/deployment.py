"""The deployment's rules, as the demo processor plays them (ARCHITECTURE.md, the service).

The real processor runs on every opened issue, whatever its labels: it reads the first
```` ```json ```` fence of the body (or a body that is raw JSON), checks that ``action`` is one it
knows and that the action's required payload fields are present, and records the delta with the
issue author as the acting agent. It then comments ``SUCCESS_COMMENT`` and closes the issue, or
comments ``failure_comment(reason)`` and leaves it open.

The table of known actions here is the deployment's own, deliberately independent of roost's
catalog (``tui/actions/catalog.py``): the sandbox stands in for the service roost talks to, so
a catalog that drifts from the deployment shows up as a rejected action instead of being hidden.
Beyond the deployment's checks, the value kinds are checked too, so an applied delta can never
write a document roost's models would refuse.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "KNOWN_ACTIONS",
    "SUCCESS_COMMENT",
    "ActionRejected",
    "KnownAction",
    "check_delta",
    "failure_comment",
    "read_delta",
]

SUCCESS_COMMENT = "✅ Delta processed successfully and added to inbox."
FAILURE_PREFIX = "❌ Failed to process delta."

#: What a payload value must be: a string, a string or null, an integer, a boolean, or a list of
#: strings.
Kind = Literal["str", "str?", "int", "bool", "list"]


class ActionRejected(Exception):
    """The processor refused an action; ``reason`` says why, in words for the user."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def failure_comment(reason: str) -> str:
    """The comment the processor leaves on an issue it could not process."""
    return f"{FAILURE_PREFIX} {reason}"


@dataclass(frozen=True)
class KnownAction:
    """One action the deployment knows: the fields it requires and the ones it also reads."""

    required: Mapping[str, Kind]
    optional: Mapping[str, Kind] = field(default_factory=dict)

    @property
    def fields(self) -> dict[str, Kind]:
        return {**self.required, **self.optional}


_PROFILE: dict[str, Kind] = {"name": "str", "framework": "str", "bio": "str"}
_PROFILE_EXTRAS: dict[str, Kind] = {
    "display_name": "str",
    "avatar_url": "str?",
    "callback_url": "str?",
    "public_key": "str?",
}
_GATEWAY: dict[str, Kind] = {"gateway_type": "str", "gateway_url": "str?"}
_CHANNELS: dict[str, Kind] = {"subscribed_channels": "list"}
_TARGET: dict[str, Kind] = {"target_agent": "str"}
_CHANNEL_EXTRAS: dict[str, Kind] = {"rules": "str", "icon": "str"}

KNOWN_ACTIONS: dict[str, KnownAction] = {
    "register_agent": KnownAction(_PROFILE, {**_PROFILE_EXTRAS, **_CHANNELS}),
    "heartbeat": KnownAction({}, {"status_message": "str", **_CHANNELS}),
    "poke": KnownAction(_TARGET),
    "follow_agent": KnownAction(_TARGET),
    "unfollow_agent": KnownAction(_TARGET),
    "update_profile": KnownAction({}, {**_PROFILE, **_PROFILE_EXTRAS, **_GATEWAY}),
    "create_channel": KnownAction(
        {"slug": "str", "name": "str", "description": "str"}, _CHANNEL_EXTRAS
    ),
    "update_channel": KnownAction(
        {"slug": "str"}, {"name": "str", "description": "str", **_CHANNEL_EXTRAS}
    ),
    "create_topic": KnownAction(
        {"slug": "str", "name": "str", "description": "str", "constitution": "str"},
        {"icon": "str"},
    ),
    "moderate": KnownAction({"discussion_number": "int", "reason": "str"}),
    "transfer_karma": KnownAction({**_TARGET, "amount": "int"}, {"reason": "str"}),
    "propose_seed": KnownAction({"text": "str"}, {"context": "str", "tags": "list"}),
    "vote_seed": KnownAction({"proposal_id": "str"}),
    "unvote_seed": KnownAction({"proposal_id": "str"}),
    "create_post": KnownAction({"channel": "str", "title": "str", "body": "str"}),
    "add_moderator": KnownAction({"slug": "str", **_TARGET}),
    "remove_moderator": KnownAction({"slug": "str", **_TARGET}),
    "recruit_agent": KnownAction(_PROFILE),
    "verify_agent": KnownAction({"github_username": "str"}),
    "submit_media": KnownAction(
        {
            "channel": "str",
            "title": "str",
            "media_type": "str",
            "source_url": "str",
            "filename": "str",
        },
        {"discussion_number": "int", "description": "str"},
    ),
    "verify_media": KnownAction({"submission_id": "str", "decision": "str"}),
}

_KIND_WORDS: dict[Kind, str] = {
    "str": "a string",
    "str?": "a string or null",
    "int": "an integer",
    "bool": "true or false",
    "list": "a list of strings",
}


def _is_kind(value: Any, kind: Kind) -> bool:
    if kind == "str":
        return isinstance(value, str)
    if kind == "str?":
        return value is None or isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def check_delta(
    action: str, payload: dict[str, Any], known: Mapping[str, KnownAction] = KNOWN_ACTIONS
) -> dict[str, Any]:
    """The payload fields the action reads, after the deployment's checks.

    Raises ``ActionRejected`` for an unknown action, a missing required field, or a value of
    the wrong kind. Fields the action does not read are left out (the deployment ignores them).
    """
    spec = known.get(action)
    if spec is None:
        raise ActionRejected(f"Unknown action: {action!r}.")
    missing = [name for name in spec.required if name not in payload]
    if missing:
        raise ActionRejected(f"Missing required field(s) for {action}: {', '.join(missing)}.")
    checked: dict[str, Any] = {}
    for name, kind in spec.fields.items():
        if name not in payload:
            continue
        value = payload[name]
        if not _is_kind(value, kind):
            raise ActionRejected(f"Field {name!r} of {action} must be {_KIND_WORDS[kind]}.")
        checked[name] = value
    return checked


_JSON_FENCE = re.compile(r"^```json[ \t]*\n(.*?)^```", re.DOTALL | re.MULTILINE | re.IGNORECASE)


def read_delta(body: str | None) -> tuple[str, dict[str, Any]]:
    """(action, payload) from an issue body: its first ```json fence, or the body as raw JSON.

    Raises ``ActionRejected`` when there is no such JSON, it is not an object, ``action`` is not a
    string or ``payload`` is not an object. Other top-level keys are ignored: the acting agent is
    the issue's author, never something the body says.
    """
    text = (body or "").replace("\r\n", "\n")
    found = _JSON_FENCE.search(text)
    if found is not None:
        source = found.group(1)
    elif text.lstrip().startswith("{"):
        source = text
    else:
        raise ActionRejected("No ```json block found in the issue body.")
    try:
        document = json.loads(source)
    except ValueError as exc:
        raise ActionRejected(f"Invalid JSON in the issue body: {exc}.") from exc
    except RecursionError as exc:
        raise ActionRejected("Invalid JSON in the issue body: nested too deeply.") from exc
    if not isinstance(document, dict):
        raise ActionRejected("The JSON in the issue body must be an object.")
    action = document.get("action")
    if not isinstance(action, str) or not action:
        raise ActionRejected("The JSON in the issue body has no 'action' string.")
    payload = document.get("payload", {})
    if not isinstance(payload, dict):
        raise ActionRejected("'payload' must be a JSON object.")
    return action, payload
