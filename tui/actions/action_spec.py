"""The shape of an action: its fields, their types and limits, and what a problem with one says.

The catalog (:mod:`tui.actions.catalog`) is made of these; the built-in entries are in
:mod:`tui.actions.builtin_actions`. No Textual import.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from tui.actions.patterns import check, given_up

FieldType = Literal["str", "text", "int", "bool", "list[str]"]

FIELD_TYPES: tuple[str, ...] = ("str", "text", "int", "bool", "list[str]")

#: How an action reaches the deployment: an action issue, a post (a GitHub Discussion), a
#: comment or reply on one, a reaction on a post or a comment.
METHODS: tuple[str, ...] = ("issue", "discussion", "discussion_comment", "discussion_reaction")

#: Where an action's definition came from, lowest precedence first.
SOURCES: tuple[str, ...] = ("built-in", "skill.json", "config")

#: Channel and topic slugs as the deployment's contract gives them.
SLUG_PATTERN = r"^[a-z0-9-]+$"
#: A GitHub GraphQL node id (``D_kwDO…``, ``DC_kwDO…``, or the older base64 form).
NODE_ID_PATTERN = r"^[A-Za-z0-9_=+/:-]{1,200}$"
#: Action names as they appear in issue titles.
ACTION_NAME_PATTERN = r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"
#: What ``format: uri`` accepts: an absolute URI (a scheme, then no white space).
URI_PATTERN = r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$"
#: Formats roost checks; any other is shown, not enforced.
FORMATS: tuple[str, ...] = ("uri",)


def action_label(name: str) -> str:
    """The issue label of an action: its name in dash form (``register_agent`` → ``register-agent``)."""
    return name.replace("_", "-")


@dataclass(frozen=True)
class FieldSpec:
    """One payload field of an action.

    ``pattern`` applies to ``str`` fields and to each item of a ``list[str]`` field: the whole
    value must match, or, with ``pattern_anywhere`` (a contract's JSON Schema pattern), some part
    of it. ``max_length`` / ``min_length`` apply to the string (or to each item of a list);
    ``max_items`` to the list itself. ``nullable`` optional fields accept JSON ``null`` (meaning
    "clear this value"). ``format`` ``uri`` asks for an absolute URI. ``refers_to`` names the
    kind of object the value points at (``agent``, ``channel``, ``proposal``, ``discussion``) so a
    form can offer completion from the current state. ``default`` is what the deployment assumes
    when the field is left out (shown, never sent by roost). ``unchecked`` lists the contract's
    rules roost shows but does not enforce (``multipleOf: 5``).
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
    min_length: int | None = None
    format: str | None = None
    default: Any = None
    pattern_anywhere: bool = False
    unchecked: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.type not in FIELD_TYPES:
            raise ValueError(f"field {self.name!r}: unknown type {self.type!r}")
        if self.pattern is not None:
            check(self.pattern)  # PatternError (a ValueError) names the problem
        if self.format is not None and self.format not in FORMATS:
            raise ValueError(f"field {self.name!r}: unknown format {self.format!r}")

    @property
    def label(self) -> str:
        """A human label for forms: ``target_agent`` → ``Target agent``."""
        return self.name.replace("_", " ").capitalize()

    def limits(self) -> list[str]:
        """The field's rules in words (``≤280 chars``, ``1..120``, ``one of a|b``), the ones roost
        does not check last, marked so."""
        shown = []
        if self.min_length is not None and self.max_length is not None:
            shown.append(f"{self.min_length}..{self.max_length} chars")
        elif self.max_length is not None:
            shown.append(f"≤{self.max_length} chars")
        elif self.min_length is not None:
            shown.append(f"≥{self.min_length} chars")
        if self.min_value is not None or self.max_value is not None:
            low = "" if self.min_value is None else str(self.min_value)
            high = "" if self.max_value is None else str(self.max_value)
            shown.append(f"{low}..{high}")
        if self.choices is not None:
            shown.append("one of " + "|".join(c if c else '""' for c in self.choices))
        if self.format is not None:
            shown.append(f"format {self.format}")
        if self.pattern is not None:
            why = given_up(self.pattern)
            shown.append(f"pattern {self.pattern}" + (f" ({why})" if why else ""))
        if self.max_items is not None:
            shown.append(f"≤{self.max_items} items")
        if self.default is not None:
            shown.append(f"default {self.default}")
        shown.extend(f"{rule} (not checked by roost)" for rule in self.unchecked)
        return shown


@dataclass(frozen=True)
class ActionSpec:
    """One action: its name (issue title), label (issue label), human title, help and fields.

    ``label`` defaults to the dash form of ``name`` and ``title`` to a humanised name. ``method``
    says how it is sent (:data:`METHODS`); ``unsupported`` holds why roost cannot send it (a
    method or a field type it does not know), and such an action is never sent. ``source`` is
    the layer the definition came from (:data:`SOURCES`).
    """

    name: str
    label: str = ""
    title: str = ""
    description: str = ""
    fields: tuple[FieldSpec, ...] = ()
    method: str = "issue"
    source: str = "built-in"
    unsupported: str | None = None

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
        if self.method not in METHODS and self.unsupported is None:
            object.__setattr__(
                self,
                "unsupported",
                f"the deployment sends it by {self.method!r}, which roost cannot",
            )
        if self.source not in SOURCES:
            raise ValueError(f"action {self.name!r}: unknown source {self.source!r}")

    @property
    def sendable(self) -> bool:
        return self.unsupported is None

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
