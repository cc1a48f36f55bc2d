"""The deployment's own action contract (its ``skill.json``), read into catalog entries.

A deployment publishes ``skill.json`` at the root of its repository: one entry per action with its
``method``, ``label``, ``description`` and ``payload``, a JSON Schema (draft-07) of ``{action,
payload, signature}`` whose ``payload`` property gives the fields. An older entry is flat:
``"payload": {"github_username": {"type": "string", "required": true}}``. Newer files add an
``onramp`` block: ``receipts`` (URL templates of the durable receipts), ``post`` (how a post is
made: ``graphql_discussion``), ``contributions`` (the comment, reply and react commands) and the
client's ``token_env``.

:func:`parse_skill` turns the document into a :class:`Contract`; :func:`build_catalog` merges it
with the built-in catalog and the config file's tables (config > skill.json > built-in). The
document is service data: every name, text and number is checked, a field roost cannot edit or
a keyword it does not know is reported (once, in ``Contract.notices``) and never guessed at.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tui.actions.catalog import (
    ACTION_NAME_PATTERN,
    CATALOG,
    COMMENT_ACTION,
    REACT_ACTION,
    REPLY_ACTION,
    ActionSpec,
    FieldSpec,
    catalog_with_overrides,
)
from tui.actions.patterns import PatternError, check
from tui.untrusted import clean, clean_line

__all__ = [
    "MAX_ACTIONS",
    "Contract",
    "ContractError",
    "Receipts",
    "build_catalog",
    "parse_skill",
]

#: More actions than this and the document is not a contract roost will use.
MAX_ACTIONS = 500
#: Longest pattern taken from a contract (a longer one is shown, not enforced).
MAX_PATTERN = 500

_FIELD_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
#: Annotations: shown or ignored, never rules.
_ANNOTATIONS = frozenset(
    {"description", "title", "$comment", "examples", "default", "readOnly", "writeOnly"}
)
#: Keywords roost turns into rules.
_RULES = frozenset(
    {
        "type",
        "maxLength",
        "minLength",
        "pattern",
        "enum",
        "minimum",
        "maximum",
        "format",
        "items",
        "maxItems",
        "uniqueItems",
    }
)
#: The envelope's properties that are not payload fields.
_ENVELOPE = ("action", "payload", "signature")
#: How the contract names a method → roost's method.
_METHODS = {"github_issue": "issue", "issues": "issue", "issue": "issue"}
#: Fields whose values name something in the state (completion in forms), by name.
_REFERS_TO = {
    "target_agent": "agent",
    "agent_id": "agent",
    "discussion_number": "discussion",
    "proposal_id": "proposal",
    "channel": "channel",
    "subscribed_channels": "channel",
}
#: Strings longer than this (or with these names) are edited as multi-line text.
_LONG_TEXT = 280
_TEXT_NAMES = frozenset({"bio", "body", "code", "constitution", "description", "rules", "text"})


class ContractError(ValueError):
    """The document is not an action contract roost can use (the message says why)."""


@dataclass(frozen=True)
class Receipts:
    """URL templates of the durable receipts (``{owner}``, ``{repo}``, ``{issue_number}``)."""

    queued: str | None = None
    applied: str | None = None
    rejected: str | None = None


@dataclass(frozen=True)
class Contract:
    """What a deployment's ``skill.json`` says about posting to it."""

    actions: dict[str, ActionSpec]
    version: str | None = None
    base_repo: str | None = None
    receipts: Receipts | None = None
    #: How a post is made (``graphql_discussion``), None when the contract does not say.
    post_method: str | None = None
    #: The contract lists comments on posts (``onramp.contributions.comment``): comments and
    #: replies to comments.
    comments: bool = False
    #: The contract lists reactions (``onramp.contributions.react``).
    reactions: bool = False
    token_env: tuple[str, ...] = ()
    #: What roost could not take from the document, to report once.
    notices: tuple[str, ...] = field(default=())


# ---------------------------------------------------------------------------------------------
# Fields


def _text(value: Any, limit: int = 500) -> str:
    return clean(value, multiline=True)[:limit].strip() if isinstance(value, str) else ""


def _count(value: Any) -> int | None:
    return value if type(value) is int and 0 <= value <= 10**9 else None


def _bound(value: Any) -> int | None:
    if type(value) is int and abs(value) <= 10**15:
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) <= 10**15:
        return int(value)
    return None


def _shown(keyword: str, value: Any) -> str:
    return clean_line(f"{keyword}: {value!r}", 80)


class _FieldReader:
    """One payload field of one action; ``notes`` collects what is not enforced."""

    def __init__(
        self, action: str, name: str, schema: Mapping[str, Any], builtin: FieldSpec | None
    ):
        self.where = f"{action}.{name}"
        self.name = name
        self.schema = schema
        self.builtin = builtin
        self.unchecked: list[str] = []
        self.unknown: list[str] = []

    def _note(self, keyword: str, value: Any) -> None:
        self.unchecked.append(_shown(keyword, value))
        self.unknown.append(keyword)

    def _type(self) -> tuple[str | None, bool, Mapping[str, Any]]:
        """(roost type or None, nullable, the schema that rules each item)."""
        kind = self.schema.get("type")
        nullable = False
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"]
            nullable = len(kinds) < len(kind)
            kind = kinds[0] if len(kinds) == 1 else None
        items: Mapping[str, Any] = self.schema
        if kind == "string":
            return self._string_type(), nullable, items
        if kind == "integer":
            return "int", nullable, items
        if kind == "boolean":
            return "bool", nullable, items
        if kind == "array":
            item = self.schema.get("items")
            if isinstance(item, Mapping) and item.get("type") == "string":
                return "list[str]", nullable, item
            return None, nullable, items
        return None, nullable, items

    def _string_type(self) -> str:
        if self.builtin is not None and self.builtin.type in ("str", "text"):
            return self.builtin.type
        limit = _count(self.schema.get("maxLength"))
        long = limit is not None and limit > _LONG_TEXT
        return "text" if long or self.name in _TEXT_NAMES else "str"

    def read(self, required: bool) -> FieldSpec | str:
        """The field, or why roost cannot edit it."""
        kind, nullable, rules = self._type()
        if kind is None:
            return f"field {self.name} has a type roost cannot edit ({self.schema.get('type')!r})"
        values: dict[str, Any] = {"nullable": nullable and not required}
        strings = kind in ("str", "text", "list[str]")
        for keyword, value in self.schema.items():
            if keyword in _ANNOTATIONS or keyword in ("type", "items", "required"):
                continue
            if keyword not in _RULES:
                self._note(keyword, value)
        if isinstance(rules, Mapping) and rules is not self.schema:
            for keyword, value in rules.items():
                if keyword not in _RULES and keyword not in _ANNOTATIONS:
                    self._note(f"items.{keyword}", value)
        if strings:
            self._strings(rules, values)
        else:
            for keyword in ("maxLength", "minLength", "pattern", "format"):
                if keyword in self.schema:
                    self._note(keyword, self.schema[keyword])
        if kind == "int":
            self._numbers(values)
        else:
            for keyword in ("minimum", "maximum"):
                if keyword in self.schema:
                    self._note(keyword, self.schema[keyword])
        if kind == "list[str]" and (limit := _count(self.schema.get("maxItems"))) is not None:
            values["max_items"] = limit
        self._enum(kind, rules, values)
        default = self.schema.get("default")
        if isinstance(default, str | int | bool) and not isinstance(default, float):
            values["default"] = clean_line(default, 80) if isinstance(default, str) else default
        help_text = _text(self.schema.get("description")) or (
            self.builtin.help if self.builtin is not None else ""
        )
        refers_to = self.builtin.refers_to if self.builtin is not None else None
        return FieldSpec(
            self.name,
            kind,  # type: ignore[arg-type]
            required=required,
            help=help_text,
            refers_to=refers_to or _REFERS_TO.get(self.name),
            unchecked=tuple(self.unchecked),
            **values,
        )

    def _strings(self, rules: Mapping[str, Any], values: dict[str, Any]) -> None:
        for keyword, key in (("maxLength", "max_length"), ("minLength", "min_length")):
            if keyword in rules:
                limit = _count(rules[keyword])
                if limit is None:
                    self._note(keyword, rules[keyword])
                else:
                    values[key] = limit
        if "pattern" in rules:
            pattern = rules["pattern"]
            try:
                if not isinstance(pattern, str) or len(pattern) > MAX_PATTERN:
                    raise PatternError("not a usable pattern")
                check(pattern)
            except PatternError:
                self._note("pattern", pattern)
            else:
                values["pattern"], values["pattern_anywhere"] = pattern, True
        if "format" in rules:
            if rules["format"] == "uri":
                values["format"] = "uri"
            else:
                self._note("format", rules["format"])

    def _numbers(self, values: dict[str, Any]) -> None:
        for keyword, key in (("minimum", "min_value"), ("maximum", "max_value")):
            if keyword in self.schema:
                bound = _bound(self.schema[keyword])
                if bound is None:
                    self._note(keyword, self.schema[keyword])
                else:
                    values[key] = bound

    def _enum(self, kind: str, rules: Mapping[str, Any], values: dict[str, Any]) -> None:
        enum = rules.get("enum", self.schema.get("enum"))
        if enum is None:
            return
        if (
            kind in ("str", "text")
            and isinstance(enum, list)
            and enum
            and all(isinstance(choice, str) and len(choice) <= 200 for choice in enum)
        ):
            values["choices"] = tuple(dict.fromkeys(enum))
        else:
            self._note("enum", enum)


# ---------------------------------------------------------------------------------------------
# Actions


def _payload_fields(schema: Any) -> tuple[Mapping[str, Any], list[str], bool] | None:
    """(field schemas, required names, flat shape) of an action's ``payload``, or None."""
    if not isinstance(schema, Mapping):
        return None
    properties = schema.get("properties")
    if schema.get("type") == "object" and isinstance(properties, Mapping):
        payload = properties.get("payload")
        if payload is None:
            return {}, [], False
        if not isinstance(payload, Mapping):
            return None
        fields = payload.get("properties", {})
        required = payload.get("required", [])
        if not isinstance(fields, Mapping) or not isinstance(required, list):
            return None
        return fields, [r for r in required if isinstance(r, str)], False
    if all(isinstance(value, Mapping) and "type" in value for value in schema.values()):
        required = [name for name, value in schema.items() if value.get("required") is True]
        return schema, required, True
    return None


def _action(name: str, entry: Any, notices: list[str], unknown: dict[str, list[str]]) -> ActionSpec:
    builtin = CATALOG.get(name)
    if not isinstance(entry, Mapping):
        raise ContractError(f"action {name} is not an object")
    method_name = entry.get("method")
    method = _METHODS.get(method_name) if isinstance(method_name, str) else None
    unsupported = None
    if method is None:
        method = "issue"
        unsupported = (
            f"the contract sends it by {clean_line(str(method_name), 40)!r}, which roost cannot"
        )
    label = entry.get("label")
    if (
        not isinstance(label, str)
        or not label.strip()
        or len(label) > 50
        or clean_line(label) != label
    ):
        label = builtin.label if builtin is not None else ""
    description = _text(entry.get("description"), 1000) or (
        builtin.description if builtin is not None else ""
    )
    found = _payload_fields(entry.get("payload"))
    if found is None:
        raise ContractError(f"action {name}: its payload is not a schema roost can read")
    schemas, required, _flat = found
    fields: list[FieldSpec] = []
    for field_name, schema in schemas.items():
        if field_name in _ENVELOPE and not _flat:
            continue
        if not isinstance(field_name, str) or not _FIELD_NAME.fullmatch(field_name):
            notices.append(f"{name}: a field name roost cannot use was left out")
            continue
        if not isinstance(schema, Mapping):
            notices.append(f"{name}.{field_name}: not a schema, left out")
            continue
        builtin_field = None
        if builtin is not None:
            builtin_field = next((f for f in builtin.fields if f.name == field_name), None)
        reader = _FieldReader(name, field_name, schema, builtin_field)
        read = reader.read(field_name in required)
        for keyword in reader.unknown:
            unknown.setdefault(keyword, []).append(f"{name}.{field_name}")
        if isinstance(read, str):
            if field_name in required:
                unsupported = unsupported or read
            else:
                notices.append(f"{name}: {read}; it is left out")
            continue
        fields.append(read)
    return ActionSpec(
        name,
        label=label,
        title=builtin.title if builtin is not None else "",
        description=description,
        fields=tuple(fields),
        method=method,
        source="skill.json",
        unsupported=unsupported,
    )


def _receipts(onramp: Mapping[str, Any], notices: list[str]) -> Receipts | None:
    block = onramp.get("receipts")
    if not isinstance(block, Mapping):
        return None
    templates: dict[str, str | None] = {}
    for key in ("queued", "applied", "rejected"):
        value = block.get(key)
        ok = (
            isinstance(value, str)
            and len(value) <= 500
            and "{issue_number}" in value
            and value.startswith(("https://", "http://"))
            and clean_line(value) == value
        )
        templates[key] = value if ok else None
        if value is not None and not ok:
            notices.append(f"onramp.receipts.{key} is not a receipt URL template; it is not used")
    return Receipts(**templates) if any(templates.values()) else None


def parse_skill(document: Any) -> Contract:
    """The contract in a parsed ``skill.json``; ``ContractError`` when it is not one."""
    if not isinstance(document, Mapping):
        raise ContractError("skill.json is not a JSON object")
    actions = document.get("actions")
    if not isinstance(actions, Mapping) or not actions:
        raise ContractError("skill.json has no actions")
    if len(actions) > MAX_ACTIONS:
        raise ContractError(f"skill.json lists {len(actions)} actions (more than {MAX_ACTIONS})")
    notices: list[str] = []
    unknown: dict[str, list[str]] = {}
    table: dict[str, ActionSpec] = {}
    for name, entry in actions.items():
        if not isinstance(name, str) or not re.fullmatch(ACTION_NAME_PATTERN, name):
            notices.append(f"an action named {clean_line(str(name), 40)!r} was left out")
            continue
        try:
            table[name] = _action(name, entry, notices, unknown)
        except (ContractError, ValueError) as exc:
            notices.append(f"{clean_line(str(exc), 200)}; it was left out")
    if not table:
        raise ContractError("skill.json has no action roost can read")
    if unknown:
        shown = "; ".join(
            f"{clean_line(keyword, 40)} ({', '.join(places[:3])}{', …' if len(places) > 3 else ''})"
            for keyword, places in sorted(unknown.items())
        )
        notices.append(f"rules roost does not check (shown, not enforced): {shown}")
    onramp = document.get("onramp")
    onramp = onramp if isinstance(onramp, Mapping) else {}
    post = onramp.get("post")
    post_method = post.get("method") if isinstance(post, Mapping) else None
    contributions = onramp.get("contributions")
    client = onramp.get("client")
    token_env = client.get("token_env") if isinstance(client, Mapping) else None
    base_repo = document.get("base_repo")
    version = document.get("version")
    return Contract(
        actions=table,
        version=clean_line(version, 40) if isinstance(version, str) else None,
        base_repo=base_repo
        if isinstance(base_repo, str) and re.fullmatch(r"[\w.-]+/[\w.-]+", base_repo)
        else None,
        receipts=_receipts(onramp, notices),
        post_method=clean_line(post_method, 60) if isinstance(post_method, str) else None,
        comments=isinstance(contributions, Mapping) and "comment" in contributions,
        reactions=isinstance(contributions, Mapping) and "react" in contributions,
        token_env=tuple(
            v for v in token_env if isinstance(v, str) and re.fullmatch(r"[A-Z][A-Z0-9_]{0,63}", v)
        )
        if isinstance(token_env, list)
        else (),
        notices=tuple(notices),
    )


# ---------------------------------------------------------------------------------------------
# The merged catalog


def _post(spec: ActionSpec, method: str) -> ActionSpec:
    """The seed's post action as the contract makes posts."""
    if method == "graphql_discussion":
        return replace(spec, method="discussion", source="skill.json")
    return replace(
        spec,
        source="skill.json",
        unsupported=f"the deployment makes posts by {method!r}, which roost cannot",
    )


def build_catalog(
    contract: Contract | None, overrides: Mapping[str, Any] | None = None
) -> dict[str, ActionSpec]:
    """The actions to offer: the built-in catalog, the contract's actions over it, then the
    config file's ``[actions.NAME]`` tables over both. Raises ``ValueError`` for a bad config
    table (naming its key)."""
    table = dict(CATALOG)
    if contract is not None:
        table.update(contract.actions)
        post = table.get("create_post")
        if post is not None and post.source == "built-in" and contract.post_method:
            table["create_post"] = _post(post, contract.post_method)
        if contract.post_method == "graphql_discussion":
            offered = (
                (COMMENT_ACTION, contract.comments),
                (REPLY_ACTION, contract.comments),
                (REACT_ACTION, contract.reactions),
            )
            for spec, listed in offered:
                if listed:
                    table.setdefault(spec.name, replace(spec, source="skill.json"))
    return catalog_with_overrides(overrides, table)
