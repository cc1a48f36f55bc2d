"""The catalog of actions the service accepts.

One table drives the forms, the validation, the help text and the CLI, so an action is described
in exactly one place. The catalog is plain data built from three layers, the later winning for an
action they both describe: the built-in entries (:mod:`tui.actions.builtin_actions`: the
deployment's contract as roost knows it, with roost's own hints: which strings are multi-line,
which fields name an agent or a channel), the contract the deployment publishes (``skill.json``,
read by ``tui/actions/contract.py``) and the config file's ``[actions.NAME]`` tables. Every entry
says which layer it came from (``source``).

An action is sent the way its ``method`` says: ``issue`` (an action issue the processor reads),
``discussion`` (a post: a GitHub Discussion created through GraphQL), ``discussion_comment`` (a
comment on one, or a reply to one of its comments) or ``discussion_reaction`` (a reaction on a
post or a comment). Any other method is listed with the reason roost cannot send it
(``unsupported``), and never sent.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tui.actions.action_spec import (
    ACTION_NAME_PATTERN,
    FIELD_TYPES,
    FORMATS,
    METHODS,
    SLUG_PATTERN,
    SOURCES,
    URI_PATTERN,
    ActionSpec,
    FieldError,
    FieldSpec,
    FieldType,
    action_label,
)
from tui.actions.builtin_actions import (
    ANSWER_ACTIONS,
    CATALOG,
    COMMENT_ACTION,
    GATEWAY_TYPES,
    REACT_ACTION,
    REACTION_CONTENTS,
    REPLY_ACTION,
)
from tui.actions.patterns import matches
from tui.suggest import did_you_mean


def get_action(name: str, catalog: Mapping[str, ActionSpec] | None = None) -> ActionSpec:
    """The action called ``name`` (or labelled ``name``); ``KeyError`` with the known names."""
    table = CATALOG if catalog is None else catalog
    spec = table.get(name)
    if spec is None:
        spec = next((s for s in table.values() if s.label == name), None)
    if spec is None:
        known = ", ".join(sorted(table))
        guess = did_you_mean(name, [*table, *(s.label for s in table.values())])
        raise KeyError(
            f"unknown action {name!r}; {guess + ' ' if guess else ''}known actions: {known}"
        )
    return spec


# ---------------------------------------------------------------------------------------------
# A deployment's own actions (the config file's ``[actions.NAME]`` tables)

_FIELD_KEYS = {
    "type",
    "required",
    "help",
    "max_length",
    "min_length",
    "min_value",
    "max_value",
    "choices",
    "pattern",
    "format",
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
            method=base.method if base else "issue",
            unsupported=base.unsupported if base else None,
            source="config",
        )
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def catalog_with_overrides(
    overrides: Mapping[str, Any] | None, base: Mapping[str, ActionSpec] | None = None
) -> dict[str, ActionSpec]:
    """The catalog with a deployment's additions and replacements from its config file.

    Each ``[actions.NAME]`` table adds the action NAME or overrides the one ``base`` has (the
    built-in catalog unless given): keys ``label``, ``title``, ``description`` and ``fields`` (a
    table of field tables with the :class:`FieldSpec` keys; given ``fields`` replace the others
    whole). Raises ``ValueError`` naming the offending key.
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


def _pattern_holds(spec: FieldSpec, value: str) -> bool:
    """False only when the pattern says no in time; a pattern that cannot say (too slow, or
    one the engine cannot run) is shown, not enforced (:mod:`tui.actions.patterns`)."""
    if spec.pattern is None:
        return True
    verdict = matches(spec.pattern, value, anywhere=spec.pattern_anywhere, where=spec.name)
    return verdict is not False


def _check_string(spec: FieldSpec, value: str, where: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if spec.type in ("str", "list[str]") and ("\n" in value or "\r" in value):
        errors.append(FieldError(where, "must be a single line"))
    if spec.max_length is not None and len(value) > spec.max_length:
        errors.append(
            FieldError(where, f"is too long ({len(value)} characters; at most {spec.max_length})")
        )
    if spec.min_length is not None and len(value) < spec.min_length:
        errors.append(
            FieldError(where, f"is too short ({len(value)} characters; at least {spec.min_length})")
        )
    if spec.choices is not None and value not in spec.choices:
        shown = ", ".join(c if c else '""' for c in spec.choices)
        errors.append(FieldError(where, f"must be one of: {shown}"))
    if spec.format == "uri" and not re.fullmatch(URI_PATTERN, value):
        errors.append(FieldError(where, "must be an absolute URL (such as https://…)"))
    if not _pattern_holds(spec, value):
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
    "ANSWER_ACTIONS",
    "CATALOG",
    "COMMENT_ACTION",
    "FIELD_TYPES",
    "FORMATS",
    "GATEWAY_TYPES",
    "METHODS",
    "REACTION_CONTENTS",
    "REACT_ACTION",
    "REPLY_ACTION",
    "SLUG_PATTERN",
    "SOURCES",
    "URI_PATTERN",
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
