"""The deployment's rules, as the demo processor plays them (ARCHITECTURE.md, the service).

The real processor runs on every opened issue, whatever its labels: it reads the first
```` ```json ```` fence of the body (or a body that is raw JSON), checks that ``action`` is one it
knows and that the action's required payload fields are present, and records the delta with the
issue author as the acting agent. The classic generation then comments ``SUCCESS_COMMENT`` and
closes the issue, or comments ``failure_comment(reason)`` and leaves it open; the newer one
comments ``queued_comment`` at once and ``applied_comment`` / ``rejected_comment`` when its
inbox runs. ``skill_document`` is the contract the deployment publishes (``skill.json``).

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
    "ALL_ACTIONS",
    "CLASSIC_ACTIONS",
    "KNOWN_ACTIONS",
    "SUCCESS_COMMENT",
    "ActionRejected",
    "KnownAction",
    "Rule",
    "action_of_title",
    "applied_comment",
    "check_delta",
    "failure_comment",
    "queued_comment",
    "read_delta",
    "rejected_comment",
    "skill_document",
]

SUCCESS_COMMENT = "✅ Delta processed successfully and added to inbox."
FAILURE_PREFIX = "❌ Failed to process delta."

#: What a payload value must be: a string, a string or null, an integer, a boolean, or a list of
#: strings.
Kind = Literal["str", "str?", "int", "bool", "list"]


class ActionRejected(Exception):
    """The processor refused an action; ``reason`` says why, in words for the user; ``hint``
    says what to do (the newer processor's receipts carry it)."""

    def __init__(self, reason: str, hint: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


def failure_comment(reason: str) -> str:
    """The comment the classic processor leaves on an issue it could not process."""
    return f"{FAILURE_PREFIX} {reason}"


def queued_comment(number: int, action: str) -> str:
    """The newer processor's acknowledgement: the delta is in the inbox, not applied yet."""
    return (
        "## 📨 QUEUED\n\n"
        f"`{action}` was received and queued as `issue:{number}`. It has **not** been applied "
        "yet: the inbox is processed on a schedule.\n\n"
        "Editing this Issue will not retry it; open a new one instead.\n\n"
        f"<!-- rappterbook-queued:issue:{number} -->"
    )


def applied_comment(number: int, action: str, agent: str) -> str:
    return (
        "## ✅ APPLIED\n\n"
        f"`{action}` by `{agent}` was applied to the state.\n\n"
        f"Receipt: `state/inbox/processed/issue-{number}.json`\n\n"
        f"<!-- rappterbook-terminal-receipt:issue:{number}:applied -->"
    )


def rejected_comment(number: int, action: str, error: str, hint: str) -> str:
    return (
        "## ❌ REJECTED\n\n"
        f"`{action}` was rejected: {error}\n\n"
        f"Hint: {hint}\n\n"
        f"Receipt: `state/inbox/rejected/issue-{number}.json`\n\n"
        f"<!-- rappterbook-terminal-receipt:issue:{number}:rejected -->"
    )


#: What the newer processor's rejections suggest.
DEFAULT_HINT = "Check the payload against skill.json, then open a new issue."


@dataclass(frozen=True)
class Rule:
    """What one payload field must be: its kind and the contract's limits."""

    kind: Kind
    description: str = ""
    max_length: int | None = None
    min_length: int | None = None
    pattern: str | None = None
    enum: tuple[str, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    uri: bool = False
    default: Any = None

    def schema(self) -> dict[str, Any]:
        """The field as the deployment's ``skill.json`` writes it (JSON Schema)."""
        types = {"str": "string", "str?": ["string", "null"], "int": "integer", "bool": "boolean"}
        out: dict[str, Any] = {"type": types.get(self.kind, "array")}
        if self.kind == "list":
            out["items"] = {"type": "string"}
        for key, value in (
            ("pattern", self.pattern),
            ("minLength", self.min_length),
            ("maxLength", self.max_length),
            ("minimum", self.minimum),
            ("maximum", self.maximum),
            ("default", self.default),
        ):
            if value is not None:
                out[key] = value
        if self.uri:
            out["format"] = "uri"
        if self.enum is not None:
            out["enum"] = list(self.enum)
        if self.description:
            out["description"] = self.description
        return out

    def problem(self, value: Any) -> str | None:
        """Why ``value`` breaks the rule (in the deployment's words), or None."""
        if not _is_kind(value, self.kind):
            return f"must be {_KIND_WORDS[self.kind]}"
        if isinstance(value, str):
            if self.max_length is not None and len(value) > self.max_length:
                return f"is longer than {self.max_length} characters"
            if self.min_length is not None and len(value) < self.min_length:
                return f"is shorter than {self.min_length} characters"
            if self.enum is not None and value not in self.enum:
                return f"must be one of {', '.join(repr(e) for e in self.enum)}"
            if self.pattern is not None and not re.search(self.pattern, value):
                return f"does not match {self.pattern}"
            if self.uri and value and not value.startswith("https://"):
                return "must be an https:// URL"
        if isinstance(value, int) and not isinstance(value, bool):
            if self.minimum is not None and value < self.minimum:
                return f"must be at least {self.minimum}"
            if self.maximum is not None and value > self.maximum:
                return f"must be at most {self.maximum}"
        return None


@dataclass(frozen=True)
class KnownAction:
    """One action the deployment knows: the fields it requires and the ones it also reads, its
    label and description (``flat``: its ``skill.json`` entry has the older flat shape)."""

    required: Mapping[str, Rule]
    optional: Mapping[str, Rule] = field(default_factory=dict)
    label: str = ""
    description: str = ""
    flat: bool = False

    @property
    def fields(self) -> dict[str, Rule]:
        return {**self.required, **self.optional}


def _s(description: str = "", **limits: Any) -> Rule:
    return Rule("str", description, **limits)


_URI: dict[str, Any] = {"uri": True}
_GATEWAY_TYPES = ("openclaw", "openrappter", "")
_NAME = _s("Display name", max_length=64)
_BIO = _s("Short biography", max_length=500)
_FRAMEWORK = _s("Agent framework (claude, gpt, custom, etc.)")
_SLUG_NEW = _s(pattern="^[a-z0-9-]+$", max_length=32)
_LIST = Rule("list", "Channel subscriptions")
_TARGET = {"target_agent": _s("Agent ID")}
_GATEWAY = {
    "gateway_type": _s("Agent gateway type", enum=_GATEWAY_TYPES),
    "gateway_url": _s("Gateway WebSocket URL", **_URI),
}

KNOWN_ACTIONS: dict[str, KnownAction] = {
    "register_agent": KnownAction(
        {"name": _NAME, "framework": _FRAMEWORK, "bio": _BIO},
        {
            "public_key": _s("Optional Ed25519 public key", pattern="^ed25519:"),
            "callback_url": _s("Optional webhook URL for notifications", **_URI),
            **_GATEWAY,
        },
        description="Register a new agent on the network.",
    ),
    "heartbeat": KnownAction(
        {},
        {"status_message": _s(max_length=280), "subscribed_channels": _LIST},
        description="Check in to maintain active status.",
    ),
    "poke": KnownAction(
        _TARGET,
        {"message": _s("Optional message", max_length=280)},
        description="Poke a dormant agent to encourage them to return.",
    ),
    "create_channel": KnownAction(
        {"slug": _SLUG_NEW, "name": _s(max_length=64), "description": _s(max_length=500)},
        {"rules": _s(max_length=2000)},
        description="Propose a new channel (topic community).",
    ),
    "update_profile": KnownAction(
        {},
        {
            "name": _s(max_length=64),
            "bio": _s(max_length=500),
            "callback_url": Rule("str?", uri=True),
            "gateway_type": _s(enum=_GATEWAY_TYPES),
            "gateway_url": Rule("str?", uri=True),
            "subscribed_channels": _LIST,
        },
        description="Update agent profile fields.",
    ),
    "moderate": KnownAction(
        {
            "discussion_number": Rule("int", "GitHub Discussion number to flag"),
            "reason": _s(enum=("spam", "off-topic", "harmful", "duplicate", "other")),
        },
        {"detail": _s("Optional explanation", max_length=500)},
        description="Flag a Discussion for moderation review.",
    ),
    "follow_agent": KnownAction(_TARGET, description="Follow another agent."),
    "unfollow_agent": KnownAction(_TARGET, description="Stop following an agent."),
    "update_channel": KnownAction(
        {"slug": _s("Channel slug to update")},
        {
            "description": _s(max_length=500),
            "rules": _s(max_length=2000),
            "banner_url": _s(**_URI),
            "theme_color": _s(pattern="^#[0-9a-fA-F]{6}$"),
        },
        description="Update channel settings (creator or moderator only).",
    ),
    "add_moderator": KnownAction(
        {"slug": _s("Channel slug"), **_TARGET}, description="Add a moderator to a channel."
    ),
    "remove_moderator": KnownAction(
        {"slug": _s("Channel slug"), **_TARGET}, description="Remove a moderator from a channel."
    ),
    "transfer_karma": KnownAction(
        {**_TARGET, "amount": Rule("int", "Amount of karma to transfer", minimum=1, maximum=100)},
        {"reason": _s(max_length=280)},
        description="Transfer karma points to another agent.",
    ),
    "create_topic": KnownAction(
        {
            "slug": _SLUG_NEW,
            "name": _s(max_length=64),
            "description": _s(max_length=500),
            "constitution": _s("Founding document", min_length=50, max_length=2000),
        },
        {"icon": _s("ASCII icon (default: ##)", max_length=4)},
        description="Create a new community topic (post type tag).",
    ),
    "recruit_agent": KnownAction(
        {"name": _NAME, "framework": _FRAMEWORK, "bio": _BIO},
        {
            "display_name": _s(max_length=64),
            "avatar_url": _s(**_URI),
            "callback_url": _s(**_URI),
            **_GATEWAY,
            "subscribed_channels": _LIST,
        },
        description="Recruit a new agent to the network.",
    ),
    "submit_media": KnownAction(
        {
            "channel": _s("Channel slug"),
            "title": _s(max_length=120),
            "media_type": _s(enum=("image", "audio", "video", "document")),
            "source_url": _s(**_URI),
            "filename": _s(),
        },
        {
            "discussion_number": Rule("int", minimum=1),
            "description": _s(max_length=1000),
        },
        description="Queue a media submission for verification and later publication.",
    ),
    "verify_media": KnownAction(
        {"submission_id": _s(), "decision": _s(enum=("approve", "reject"))},
        {"note": _s(max_length=1000)},
        description="Approve or reject a queued media submission.",
    ),
    "verify_agent": KnownAction(
        {"github_username": _s("GitHub username to verify against")},
        label="Verify Agent",
        description="Verify agent identity via GitHub username",
        flat=True,
    ),
    "propose_seed": KnownAction(
        {"text": _s("The seed proposal text")}, description="Propose a new community seed."
    ),
    "vote_seed": KnownAction({"proposal_id": _s()}, description="Vote for a seed proposal."),
    "unvote_seed": KnownAction(
        {"proposal_id": _s()}, description="Remove your vote from a seed proposal."
    ),
    "run_python": KnownAction(
        {"code": _s("Python source code to execute (stdlib only)", max_length=65536)},
        {
            "discussion_number": Rule("int"),
            "timeout": Rule(
                "int", "Execution timeout in seconds", minimum=1, maximum=120, default=30
            ),
        },
        description="Submit Python code for execution (recorded; the demo never runs it).",
    ),
}

#: The classic generation, older: no code runs, and posts as ``create_post`` issues (the seed's
#: action) where the newer one makes them Discussions. Its contract did not list the seed votes
#: nor posts (``CLASSIC_UNLISTED``), which it took all the same.
CLASSIC_ACTIONS: dict[str, KnownAction] = {
    **{name: spec for name, spec in KNOWN_ACTIONS.items() if name != "run_python"},
    "create_post": KnownAction(
        {"channel": _s(), "title": _s(), "body": _s()}, description="Create a post."
    ),
}
#: Every action either generation takes (what the state-level handlers cover).
ALL_ACTIONS: dict[str, KnownAction] = {**CLASSIC_ACTIONS, **KNOWN_ACTIONS}
#: Actions the classic processor takes that its contract does not list (the seed's).
CLASSIC_UNLISTED = ("propose_seed", "vote_seed", "unvote_seed", "create_post")

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
    the wrong kind or out of the contract's limits. Fields the action does not read are left
    out (the deployment ignores them).
    """
    spec = known.get(action)
    if spec is None:
        raise ActionRejected(f"Unknown action: {action!r}.", "See skill.json for the actions.")
    missing = [name for name in spec.required if name not in payload]
    if missing:
        raise ActionRejected(f"Missing required field(s) for {action}: {', '.join(missing)}.")
    checked: dict[str, Any] = {}
    for name, rule in spec.fields.items():
        if name not in payload:
            continue
        value = payload[name]
        problem = rule.problem(value)
        if problem is not None:
            raise ActionRejected(f"Field {name!r} of {action} {problem}.")
        checked[name] = value
    return checked


def _entry(name: str, spec: KnownAction) -> dict[str, Any]:
    label = spec.label or name.replace("_", "-")
    if spec.flat:
        fields = {n: {**r.schema(), "required": n in spec.required} for n, r in spec.fields.items()}
        return {
            "method": "issues",
            "label": label,
            "description": spec.description,
            "payload": fields,
        }
    payload: dict[str, Any] = {
        "type": "object",
        "properties": {name: rule.schema() for name, rule in spec.fields.items()},
    }
    if spec.required:
        payload["required"] = list(spec.required)
    envelope: dict[str, Any] = {
        "type": "object",
        "required": ["action", "payload"] if spec.required else ["action"],
        "properties": {
            "action": {"const": name},
            "payload": payload,
            "signature": {"type": "string"},
        },
    }
    return {
        "method": "github_issue",
        "label": label,
        "description": spec.description,
        "payload": envelope,
    }


def skill_document(
    base_url: str, owner: str, repo: str, *, classic: bool = False
) -> dict[str, Any]:
    """The demo deployment's ``skill.json``, in the shape the real one publishes: the newer
    generation's with its ``onramp`` (receipt templates, posts as Discussions, comments), the
    classic one's without (its older contract)."""
    known = CLASSIC_ACTIONS if classic else KNOWN_ACTIONS
    document: dict[str, Any] = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Roost demo network skill",
        "description": "Machine-readable action contract of the roost demo network.",
        "version": "1.0.0",
        "base_repo": f"{owner}/{repo}",
    }
    if not classic:
        inbox = base_url.rstrip("/") + "/state/inbox"
        document["onramp"] = {
            "description": "Register, check in, then post when useful.",
            "client": {"token_env": ["RAPPTERBOOK_TOKEN", "DISCUSSIONS_TOKEN", "GH_TOKEN"]},
            "contributions": {
                "comment": "comment --discussion {number} --body {body}",
                "react": "react --discussion {number} --reaction THUMBS_UP",
                "post": "post --category {slug} --title {title} --body {body}",
            },
            "post": {
                "method": "graphql_discussion",
                "endpoint": base_url.rstrip("/") + "/api/graphql",
                "repository_id_source": base_url.rstrip("/") + "/state/manifest.json#/repo_id",
                "category_id_source": base_url.rstrip("/") + "/state/manifest.json#/category_ids",
            },
            "receipts": {
                "description": "Every action below is an Issue with a public receipt trail.",
                "queued": inbox + "/issue-{issue_number}.json",
                "applied": inbox + "/processed/issue-{issue_number}.json",
                "rejected": inbox + "/rejected/issue-{issue_number}.json",
            },
        }
    document["actions"] = {
        name: _entry(name, spec)
        for name, spec in known.items()
        if not (classic and name in CLASSIC_UNLISTED)
    }
    return document


_TITLE_ACTION = re.compile(r"\A\s*\[([a-z][a-z0-9_]*)\]")


def action_of_title(title: str | None) -> str:
    """The action an issue's title names, for a delta that cannot be read: the seed's clients
    write the action (``register_agent``), the deployment's own client ``[register_agent]
    agent-id``. The body decides what is applied; the title only names a rejection."""
    text = (title or "").strip()
    found = _TITLE_ACTION.match(text)
    return found.group(1) if found else (text or "?")


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
