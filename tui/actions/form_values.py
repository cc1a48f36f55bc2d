"""Typed form values ↔ payload, checked with the catalog's own validation.

The form shows text; the catalog validates JSON values. This module is the one translation
between them (no Textual), so the form, its preview and the tests agree on what a field means:

* ``str`` / ``text``: the text as typed; left empty, the field is left out of the payload. A
  ``nullable`` field typed as exactly ``null`` sends JSON ``null`` (it clears the value).
* ``int``: a whole number, written in decimal; empty is left out.
* ``bool``: a checkbox; an optional one is sent only when ticked, a required one always.
* ``choices``: one of the catalog's values; nothing chosen is left out.
* ``list[str]``: one item per line, surrounding spaces and blank lines ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from tui.actions.catalog import ActionSpec, FieldError, FieldSpec, validate_field, validate_payload
from tui.actions.drafts import FormValue

__all__ = [
    "NULL_WORD",
    "WidgetKind",
    "field_messages",
    "has_input",
    "parse_value",
    "payload_from_values",
    "values_from_payload",
    "widget_kind",
]

WidgetKind = Literal["input", "integer", "textarea", "checkbox", "select", "lines"]

#: What a nullable field holds to send JSON ``null``.
NULL_WORD = "null"

_ABSENT = object()


def widget_kind(spec: FieldSpec) -> WidgetKind:
    """Which widget edits ``spec``."""
    if spec.choices is not None and spec.type in ("str", "text"):
        return "select"
    return {
        "str": "input",
        "text": "textarea",
        "int": "integer",
        "bool": "checkbox",
        "list[str]": "lines",
    }[spec.type]  # type: ignore[return-value]


def parse_value(spec: FieldSpec, raw: FormValue | None) -> tuple[Any, str | None]:
    """(payload value or ``_ABSENT``, conversion problem) for one typed value."""
    if spec.type == "bool":
        ticked = bool(raw) if isinstance(raw, bool) else False
        return (ticked if (ticked or spec.required) else _ABSENT), None
    text = raw if isinstance(raw, str) else ""
    if spec.type == "list[str]":
        items = [line.strip() for line in text.splitlines()]
        items = [item for item in items if item]
        return (items if items else _ABSENT), None
    if spec.type == "int":
        stripped = text.strip()
        if not stripped:
            return _ABSENT, None
        try:
            return int(stripped, 10), None
        except ValueError:
            return _ABSENT, "must be a whole number"
    if spec.nullable and text.strip() == NULL_WORD:
        return None, None
    if not text.strip():
        return _ABSENT, None
    return text, None


def _message(spec: FieldSpec, error: FieldError) -> str:
    """A catalog message as shown beside its field: ``tags[2]`` reads as ``line 3``."""
    where = error.field
    if where.startswith(f"{spec.name}[") and where.endswith("]"):
        index = where[len(spec.name) + 1 : -1]
        if index.isdigit():
            return f"line {int(index) + 1} {error.message}"
    return error.message


def field_messages(spec: FieldSpec, raw: FormValue | None) -> list[str]:
    """Every problem with one typed value, in the catalog's words (``[]`` when fine)."""
    value, problem = parse_value(spec, raw)
    if problem is not None:
        return [problem]
    if value is _ABSENT:
        return ["is required"] if spec.required else []
    return [_message(spec, error) for error in validate_field(spec, value)]


def payload_from_values(
    action: ActionSpec, values: Mapping[str, FormValue]
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """(payload, problems by field name; ``""`` for the payload as a whole)."""
    payload: dict[str, Any] = {}
    problems: dict[str, list[str]] = {}
    for spec in action.fields:
        value, problem = parse_value(spec, values.get(spec.name))
        if problem is not None:
            problems.setdefault(spec.name, []).append(problem)
        elif value is not _ABSENT:
            payload[spec.name] = value
    names = {spec.name for spec in action.fields}
    for error in validate_payload(action, payload):
        base = error.field.split("[", 1)[0]
        key = base if base in names else ""
        failed = action.field(base) if key else None
        message = _message(failed, error) if failed is not None else str(error)
        if message not in problems.get(key, []):
            problems.setdefault(key, []).append(message)
    return payload, problems


def values_from_payload(action: ActionSpec, payload: Mapping[str, Any]) -> dict[str, FormValue]:
    """Typed values that give back ``payload`` (prefills from a context or the CLI)."""
    values: dict[str, FormValue] = {}
    for spec in action.fields:
        if spec.name not in payload:
            continue
        value = payload[spec.name]
        if spec.type == "bool":
            values[spec.name] = bool(value)
        elif value is None:
            values[spec.name] = NULL_WORD if spec.nullable else ""
        elif spec.type == "list[str]" and isinstance(value, list | tuple):
            values[spec.name] = "\n".join(str(item) for item in value)
        else:
            values[spec.name] = str(value)
    return values


def has_input(action: ActionSpec, values: Mapping[str, FormValue]) -> bool:
    """Whether anything was typed or ticked (an untouched form needs no draft)."""
    for spec in action.fields:
        raw = values.get(spec.name)
        if raw is True or (isinstance(raw, str) and raw.strip()):
            return True
    return False
