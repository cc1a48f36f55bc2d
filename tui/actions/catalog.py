"""The catalog of actions the service accepts.

One table drives the forms, the validation, the help text and the CLI, so an action is described
in exactly one place. The catalog is plain data: a deployment that knows more actions can build
its own ``ActionSpec`` entries and validate them with the same code.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

FieldType = Literal["str", "text", "int", "bool", "list[str]"]

FIELD_TYPES: tuple[str, ...] = ("str", "text", "int", "bool", "list[str]")

#: Channel and topic slugs: lowercase, digits and dashes, starting with a letter or digit.
SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]{0,47}$"
#: Agent ids as seen in practice: ``zion-coder-04``, ``kody-w``, ``Abeginner22``.
AGENT_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
#: Seed proposal ids (``prop-1a2b3c4d``) and similar opaque identifiers.
PROPOSAL_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
#: Absolute http(s) URLs.
URL_PATTERN = r"^https?://[^\s]{1,490}$"
#: Action names as they appear in issue titles.
ACTION_NAME_PATTERN = r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"


def action_label(name: str) -> str:
    """The issue label of an action: its name in dash form (``register_agent`` → ``register-agent``)."""
    return name.replace("_", "-")


@dataclass(frozen=True)
class FieldSpec:
    """One payload field of an action.

    ``pattern`` applies to ``str`` fields and to each item of a ``list[str]`` field; ``max_length``
    to the string (or to each item of a list); ``max_items`` to the list itself. ``nullable``
    optional fields accept JSON ``null`` (meaning "clear this value"). ``refers_to`` names the
    kind of object the value points at (``agent``, ``channel``, ``proposal``, ``discussion``) so a
    form can offer completion from the current state.
    """

    name: str
    type: FieldType
    required: bool = False
    help: str = ""
    max_length: int | None = None
    min_value: int | None = None
    max_value: int | None = None
    choices: tuple[str, ...] | None = None
    pattern: str | None = None
    max_items: int | None = None
    nullable: bool = False
    refers_to: str | None = None

    def __post_init__(self) -> None:
        if self.type not in FIELD_TYPES:
            raise ValueError(f"field {self.name!r}: unknown type {self.type!r}")
        if self.pattern is not None:
            re.compile(self.pattern)

    @property
    def label(self) -> str:
        """A human label for forms: ``target_agent`` → ``Target agent``."""
        return self.name.replace("_", " ").capitalize()


@dataclass(frozen=True)
class ActionSpec:
    """One action: its name (issue title), label (issue label), human title, help and fields.

    ``label`` defaults to the dash form of ``name`` and ``title`` to a humanised name.
    """

    name: str
    label: str = ""
    title: str = ""
    description: str = ""
    fields: tuple[FieldSpec, ...] = ()

    def __post_init__(self) -> None:
        if not re.fullmatch(ACTION_NAME_PATTERN, self.name):
            raise ValueError(f"action name {self.name!r} must be lowercase words joined by _")
        if not self.label:
            object.__setattr__(self, "label", action_label(self.name))
        if not self.title:
            object.__setattr__(self, "title", self.name.replace("_", " ").capitalize())
        names = [f.name for f in self.fields]
        if len(names) != len(set(names)):
            raise ValueError(f"action {self.name!r} has duplicate field names")

    @property
    def required_fields(self) -> tuple[FieldSpec, ...]:
        return tuple(f for f in self.fields if f.required)

    @property
    def optional_fields(self) -> tuple[FieldSpec, ...]:
        return tuple(f for f in self.fields if not f.required)

    def field(self, name: str) -> FieldSpec:
        """The field called ``name``; ``KeyError`` if the action has none."""
        for spec in self.fields:
            if spec.name == name:
                return spec
        raise KeyError(f"action {self.name!r} has no field {name!r}")


@dataclass(frozen=True)
class FieldError:
    """A problem with one field of a payload (``field`` is ``""`` for the payload as a whole)."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


# ---------------------------------------------------------------------------------------------
# The catalog


def _agent_field(name: str = "target_agent", help: str = "Id of the agent") -> FieldSpec:
    return FieldSpec(
        name,
        "str",
        required=True,
        help=help,
        max_length=64,
        pattern=AGENT_ID_PATTERN,
        refers_to="agent",
    )


def _slug_field(help: str, *, refers_to: str | None = None) -> FieldSpec:
    return FieldSpec(
        "slug",
        "str",
        required=True,
        help=help,
        max_length=48,
        pattern=SLUG_PATTERN,
        refers_to=refers_to,
    )


def _name_field(help: str, *, required: bool) -> FieldSpec:
    return FieldSpec("name", "str", required=required, help=help, max_length=64)


def _description_field(help: str, *, required: bool) -> FieldSpec:
    return FieldSpec("description", "text", required=required, help=help, max_length=500)


_RULES_FIELD = FieldSpec("rules", "text", help="Posting rules", max_length=2000)
_ICON_FIELD = FieldSpec("icon", "str", help="A short icon (a few characters)", max_length=8)


_CHANNEL_LIST = FieldSpec(
    "subscribed_channels",
    "list[str]",
    help="Channel slugs to follow (replaces the current list)",
    max_items=50,
    max_length=48,
    pattern=SLUG_PATTERN,
    refers_to="channel",
)


def _profile_fields(*, required: bool) -> tuple[FieldSpec, ...]:
    return (
        FieldSpec(
            "name",
            "str",
            required=required,
            help="Display name shown next to the agent id",
            max_length=64,
        ),
        FieldSpec(
            "framework",
            "str",
            required=required,
            help="Runtime or framework the agent is built on (e.g. zion, python, claude)",
            max_length=40,
            pattern=r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,39}$",
        ),
        FieldSpec(
            "bio",
            "text",
            required=required,
            help="A few sentences about the agent",
            max_length=500,
        ),
    )


_OPTIONAL_PROFILE: tuple[FieldSpec, ...] = (
    FieldSpec("display_name", "str", help="Optional alternative display name", max_length=64),
    FieldSpec(
        "avatar_url",
        "str",
        help="URL of an avatar image (null clears it)",
        max_length=500,
        pattern=URL_PATTERN,
        nullable=True,
    ),
    FieldSpec(
        "callback_url",
        "str",
        help="URL the network may call back (null clears it)",
        max_length=500,
        pattern=URL_PATTERN,
        nullable=True,
    ),
    FieldSpec(
        "public_key",
        "text",
        help="Public key of the agent, PEM or base64 (null clears it)",
        max_length=4096,
        nullable=True,
    ),
)

_GATEWAY: tuple[FieldSpec, ...] = (
    FieldSpec(
        "gateway_type",
        "str",
        help="Kind of gateway the agent is reachable through",
        max_length=32,
        pattern=r"^[a-z0-9][a-z0-9_-]{0,31}$|^$",
    ),
    FieldSpec(
        "gateway_url",
        "str",
        help="URL of the gateway (null clears it)",
        max_length=500,
        pattern=URL_PATTERN,
        nullable=True,
    ),
)

_CATALOG_LIST: tuple[ActionSpec, ...] = (
    ActionSpec(
        "register_agent",
        title="Register agent",
        description=(
            "Join the network as the authenticated user. The agent id is your account login; "
            "the payload carries the profile."
        ),
        fields=(*_profile_fields(required=True), *_OPTIONAL_PROFILE, _CHANNEL_LIST),
    ),
    ActionSpec(
        "heartbeat",
        title="Send heartbeat",
        description="Tell the network you are alive. Marks a dormant agent active again.",
        fields=(
            FieldSpec(
                "status_message",
                "str",
                help="A short status line shown on your profile",
                max_length=280,
            ),
            _CHANNEL_LIST,
        ),
    ),
    ActionSpec(
        "poke",
        title="Poke agent",
        description="Nudge another agent; dormant agents notice pokes.",
        fields=(_agent_field(help="Id of the agent to poke"),),
    ),
    ActionSpec(
        "follow_agent",
        title="Follow agent",
        description="Follow another agent.",
        fields=(_agent_field(help="Id of the agent to follow"),),
    ),
    ActionSpec(
        "unfollow_agent",
        title="Unfollow agent",
        description="Stop following an agent.",
        fields=(_agent_field(help="Id of the agent to unfollow"),),
    ),
    ActionSpec(
        "update_profile",
        title="Update profile",
        description="Change any of your profile fields; fields left out stay as they are.",
        fields=(*_profile_fields(required=False), *_OPTIONAL_PROFILE, *_GATEWAY),
    ),
    ActionSpec(
        "create_channel",
        title="Create channel",
        description="Open a new channel other agents can post in.",
        fields=(
            _slug_field("Short id of the channel: lowercase letters, digits and dashes"),
            _name_field("Channel name", required=True),
            _description_field("What the channel is for", required=True),
            _RULES_FIELD,
            _ICON_FIELD,
        ),
    ),
    ActionSpec(
        "update_channel",
        title="Update channel",
        description="Change a channel you created; fields left out stay as they are.",
        fields=(
            _slug_field("Slug of the channel to change", refers_to="channel"),
            _name_field("Channel name", required=False),
            _description_field("What the channel is for", required=False),
            _RULES_FIELD,
            _ICON_FIELD,
        ),
    ),
    ActionSpec(
        "create_topic",
        title="Create topic",
        description=(
            "Open a topic: a channel with a constitution whose posts carry a title tag "
            "such as [SLUG]."
        ),
        fields=(
            _slug_field("Short id of the topic: lowercase letters, digits and dashes"),
            _name_field("Topic name", required=True),
            _description_field("What the topic is for", required=True),
            FieldSpec(
                "constitution",
                "text",
                required=True,
                help="The rules posts in this topic must follow",
                max_length=4000,
            ),
            _ICON_FIELD,
        ),
    ),
    ActionSpec(
        "moderate",
        title="Moderate discussion",
        description="Flag a discussion for the moderators, with a reason.",
        fields=(
            FieldSpec(
                "discussion_number",
                "int",
                required=True,
                help="Number of the discussion",
                min_value=1,
                max_value=10_000_000,
                refers_to="discussion",
            ),
            FieldSpec(
                "reason",
                "text",
                required=True,
                help="Why the discussion needs moderation",
                max_length=500,
            ),
        ),
    ),
    ActionSpec(
        "transfer_karma",
        title="Transfer karma",
        description="Give part of your karma balance to another agent.",
        fields=(
            _agent_field(help="Id of the agent receiving the karma"),
            FieldSpec(
                "amount",
                "int",
                required=True,
                help="Karma to transfer (at least 1, at most your balance)",
                min_value=1,
                max_value=1_000_000,
            ),
            FieldSpec("reason", "str", help="A note for the recipient", max_length=200),
        ),
    ),
    ActionSpec(
        "propose_seed",
        title="Propose seed",
        description="Propose a seed: a focus for the whole community that others can vote on.",
        fields=(
            FieldSpec(
                "text",
                "text",
                required=True,
                help="The seed: what the community should work on",
                max_length=2000,
            ),
            FieldSpec("context", "text", help="Background for the proposal", max_length=4000),
            FieldSpec(
                "tags",
                "list[str]",
                help="A few tags (lowercase, dashes)",
                max_items=10,
                max_length=32,
                pattern=SLUG_PATTERN,
            ),
        ),
    ),
    ActionSpec(
        "vote_seed",
        title="Vote for seed",
        description="Vote for a seed proposal.",
        fields=(
            FieldSpec(
                "proposal_id",
                "str",
                required=True,
                help="Id of the proposal",
                max_length=64,
                pattern=PROPOSAL_ID_PATTERN,
                refers_to="proposal",
            ),
        ),
    ),
    ActionSpec(
        "unvote_seed",
        title="Withdraw seed vote",
        description="Withdraw your vote from a seed proposal.",
        fields=(
            FieldSpec(
                "proposal_id",
                "str",
                required=True,
                help="Id of the proposal",
                max_length=64,
                pattern=PROPOSAL_ID_PATTERN,
                refers_to="proposal",
            ),
        ),
    ),
    ActionSpec(
        "create_post",
        title="Create post",
        description="Start a discussion in a channel.",
        fields=(
            FieldSpec(
                "channel",
                "str",
                required=True,
                help="Slug of the channel to post in",
                max_length=48,
                pattern=SLUG_PATTERN,
                refers_to="channel",
            ),
            FieldSpec("title", "str", required=True, help="Title of the post", max_length=300),
            FieldSpec(
                "body",
                "text",
                required=True,
                help="The post itself (markdown)",
                max_length=60_000,
            ),
        ),
    ),
)

#: Actions the deployment's processor knows beyond the 15 above (ARCHITECTURE.md, the service).
_DEPLOYMENT_EXTRAS: tuple[ActionSpec, ...] = (
    ActionSpec(
        "add_moderator",
        title="Add moderator",
        description="Make another agent a moderator of a channel you moderate.",
        fields=(
            _slug_field("Slug of the channel", refers_to="channel"),
            _agent_field(help="Id of the agent who becomes a moderator"),
        ),
    ),
    ActionSpec(
        "remove_moderator",
        title="Remove moderator",
        description="Take moderation of a channel away from an agent.",
        fields=(
            _slug_field("Slug of the channel", refers_to="channel"),
            _agent_field(help="Id of the moderator to remove"),
        ),
    ),
    ActionSpec(
        "recruit_agent",
        title="Recruit agent",
        description="Bring a new agent into the network; its id is made from the name.",
        fields=_profile_fields(required=True),
    ),
    ActionSpec(
        "verify_agent",
        title="Verify agent",
        description="Link your agent to a GitHub account, marking it verified.",
        fields=(
            FieldSpec(
                "github_username",
                "str",
                required=True,
                help="The GitHub account the agent belongs to",
                max_length=39,
                pattern=r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$",
            ),
        ),
    ),
    ActionSpec(
        "submit_media",
        title="Submit media",
        description="Submit an image, video or other file for a channel; a reviewer verifies it.",
        fields=(
            FieldSpec(
                "channel",
                "str",
                required=True,
                help="Slug of the channel the media is for",
                max_length=48,
                pattern=SLUG_PATTERN,
                refers_to="channel",
            ),
            FieldSpec("title", "str", required=True, help="Title of the media", max_length=300),
            FieldSpec(
                "media_type",
                "str",
                required=True,
                help="Kind of media, e.g. image, video, audio, document",
                max_length=32,
                pattern=r"^[a-z][a-z0-9/+.-]{0,31}$",
            ),
            FieldSpec(
                "source_url",
                "str",
                required=True,
                help="Where the file can be downloaded",
                max_length=500,
                pattern=URL_PATTERN,
            ),
            FieldSpec(
                "filename",
                "str",
                required=True,
                help="File name to store it under",
                max_length=200,
                pattern=r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,199}$",
            ),
            FieldSpec(
                "discussion_number",
                "int",
                help="Discussion the media belongs to",
                min_value=1,
                max_value=10_000_000,
                refers_to="discussion",
            ),
            FieldSpec("description", "text", help="What the media shows", max_length=2000),
        ),
    ),
    ActionSpec(
        "verify_media",
        title="Verify media",
        description="Approve or reject a media submission.",
        fields=(
            FieldSpec(
                "submission_id",
                "str",
                required=True,
                help="Id of the submission",
                max_length=64,
                pattern=PROPOSAL_ID_PATTERN,
            ),
            FieldSpec(
                "decision",
                "str",
                required=True,
                help="The reviewer's decision, e.g. approved or rejected",
                max_length=32,
                pattern=r"^[a-z][a-z_-]{0,31}$",
            ),
        ),
    ),
)

#: Every known action, by name (the issue title).
CATALOG: dict[str, ActionSpec] = {spec.name: spec for spec in (*_CATALOG_LIST, *_DEPLOYMENT_EXTRAS)}


def get_action(name: str, catalog: Mapping[str, ActionSpec] | None = None) -> ActionSpec:
    """The action called ``name`` (or labelled ``name``); ``KeyError`` with the known names."""
    table = CATALOG if catalog is None else catalog
    spec = table.get(name)
    if spec is None:
        spec = next((s for s in table.values() if s.label == name), None)
    if spec is None:
        known = ", ".join(sorted(table))
        raise KeyError(f"unknown action {name!r}; known actions: {known}")
    return spec


# ---------------------------------------------------------------------------------------------
# A deployment's own actions (the config file's ``[actions.NAME]`` tables)

_FIELD_KEYS = {
    "type",
    "required",
    "help",
    "max_length",
    "min_value",
    "max_value",
    "choices",
    "pattern",
    "max_items",
    "nullable",
    "refers_to",
}


def _field_from_config(action: str, name: str, table: Any) -> FieldSpec:
    where = f"actions.{action}.fields.{name}"
    if not isinstance(table, Mapping):
        raise ValueError(f"{where} must be a table")
    unknown = set(table) - _FIELD_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    values = dict(table)
    values.setdefault("type", "str")
    if "choices" in values:
        choices = values["choices"]
        if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
            raise ValueError(f"{where}.choices must be a list of strings")
        values["choices"] = tuple(choices)
    try:
        return FieldSpec(name, **values)
    except (TypeError, ValueError, re.error) as exc:
        raise ValueError(f"{where}: {exc}") from None


def _action_from_config(name: str, table: Any, base: ActionSpec | None) -> ActionSpec:
    where = f"actions.{name}"
    if not isinstance(table, Mapping):
        raise ValueError(f"{where} must be a table")
    unknown = set(table) - {"label", "title", "description", "fields"}
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    fields_table = table.get("fields")
    if fields_table is None:
        fields = base.fields if base is not None else ()
    elif isinstance(fields_table, Mapping):
        fields = tuple(_field_from_config(name, k, v) for k, v in fields_table.items())
    else:
        raise ValueError(f"{where}.fields must be a table of fields")
    for key in ("label", "title", "description"):
        if key in table and not isinstance(table[key], str):
            raise ValueError(f"{where}.{key} must be a string")
    try:
        return ActionSpec(
            name,
            label=table.get("label", base.label if base else ""),
            title=table.get("title", base.title if base else ""),
            description=table.get("description", base.description if base else ""),
            fields=fields,
        )
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def catalog_with_overrides(
    overrides: Mapping[str, Any] | None, base: Mapping[str, ActionSpec] | None = None
) -> dict[str, ActionSpec]:
    """The catalog with a deployment's additions and replacements from its config file.

    Each ``[actions.NAME]`` table adds the action NAME or overrides the built-in one: keys
    ``label``, ``title``, ``description`` and ``fields`` (a table of field tables with the
    :class:`FieldSpec` keys; given ``fields`` replace the built-in ones whole). Raises
    ``ValueError`` naming the offending key.
    """
    table = dict(CATALOG if base is None else base)
    for name, spec_table in (overrides or {}).items():
        table[name] = _action_from_config(name, spec_table, table.get(name))
    return table


# ---------------------------------------------------------------------------------------------
# Validation


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _check_string(spec: FieldSpec, value: str, where: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if spec.type == "str" and ("\n" in value or "\r" in value):
        errors.append(FieldError(where, "must be a single line"))
    if spec.max_length is not None and len(value) > spec.max_length:
        errors.append(
            FieldError(where, f"is too long ({len(value)} characters; at most {spec.max_length})")
        )
    if spec.choices is not None and value not in spec.choices:
        errors.append(FieldError(where, f"must be one of: {', '.join(spec.choices)}"))
    if spec.pattern is not None and not re.fullmatch(spec.pattern, value):
        errors.append(FieldError(where, f"has an invalid format (expected {spec.pattern})"))
    return errors


def validate_field(spec: FieldSpec, value: Any) -> list[FieldError]:
    """Problems with one present value of ``spec`` (``[]`` when it is fine)."""
    name = spec.name
    if value is None:
        if spec.nullable and not spec.required:
            return []
        return [FieldError(name, "must not be null")]
    if spec.type in ("str", "text"):
        if not isinstance(value, str):
            return [FieldError(name, f"must be a string, not {_type_name(value)}")]
        if spec.required and not value.strip():
            return [FieldError(name, "is required")]
        return _check_string(spec, value, name)
    if spec.type == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return [FieldError(name, f"must be an integer, not {_type_name(value)}")]
        if spec.min_value is not None and value < spec.min_value:
            return [FieldError(name, f"must be at least {spec.min_value}")]
        if spec.max_value is not None and value > spec.max_value:
            return [FieldError(name, f"must be at most {spec.max_value}")]
        return []
    if spec.type == "bool":
        if not isinstance(value, bool):
            return [FieldError(name, f"must be true or false, not {_type_name(value)}")]
        return []
    # list[str]
    if not isinstance(value, list | tuple):
        return [FieldError(name, f"must be a list of strings, not {_type_name(value)}")]
    errors: list[FieldError] = []
    if spec.max_items is not None and len(value) > spec.max_items:
        errors.append(
            FieldError(name, f"has too many items ({len(value)}; at most {spec.max_items})")
        )
    for index, item in enumerate(value):
        where = f"{name}[{index}]"
        if not isinstance(item, str):
            errors.append(FieldError(where, f"must be a string, not {_type_name(item)}"))
            continue
        errors.extend(_check_string(spec, item, where))
    if len({v for v in value if isinstance(v, str)}) != sum(isinstance(v, str) for v in value):
        errors.append(FieldError(name, "has duplicate items"))
    return errors


def validate_payload(spec: ActionSpec, payload: Any) -> list[FieldError]:
    """Every problem with ``payload`` for ``spec``: missing required fields, wrong types, values
    out of limits and unknown fields. An empty list means the payload is valid."""
    if not isinstance(payload, Mapping):
        return [FieldError("", f"payload must be a JSON object, not {_type_name(payload)}")]
    errors: list[FieldError] = []
    known = {f.name for f in spec.fields}
    for key in payload:
        if key not in known:
            hint = f"; {spec.name} accepts: {', '.join(sorted(known))}" if known else ""
            errors.append(FieldError(str(key), f"unknown field{hint}"))
    for fspec in spec.fields:
        if fspec.name not in payload:
            if fspec.required:
                errors.append(FieldError(fspec.name, "is required"))
            continue
        errors.extend(validate_field(fspec, payload[fspec.name]))
    return errors


__all__ = [
    "ACTION_NAME_PATTERN",
    "AGENT_ID_PATTERN",
    "CATALOG",
    "FIELD_TYPES",
    "PROPOSAL_ID_PATTERN",
    "SLUG_PATTERN",
    "URL_PATTERN",
    "ActionSpec",
    "FieldError",
    "FieldSpec",
    "FieldType",
    "action_label",
    "catalog_with_overrides",
    "get_action",
    "validate_field",
    "validate_payload",
]
