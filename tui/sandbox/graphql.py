"""A small GraphQL reader and executor: the part of the language GitHub's clients send.

One operation per document (``query`` / ``mutation``, or a bare selection set), variable
definitions with defaults, fields with aliases and arguments (variables, strings, block strings,
numbers, booleans, null, enums, lists and input objects), nested selection sets and inline
fragments (``... on Type``). Fragment definitions and directives are refused with an error, as a
server that does not know them would.

Execution walks a schema of plain Python resolvers (:class:`ObjectType`): a field's resolver
gets the parent value, its arguments and the request context, and returns a scalar, a mapping
for an object type, a list of either, or None. A resolver raises :class:`FieldError` for an
error GitHub reports beside partial data (``NOT_FOUND``, ``FORBIDDEN`` …): the field becomes
``null`` and the error lands in ``errors`` with its ``path``. Unknown fields and bad syntax are
errors of the whole request (no ``data``), with GitHub's messages and ``locations``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Field",
    "FieldError",
    "GraphQLRequestError",
    "ObjectType",
    "Schema",
    "execute",
    "parse",
]


class GraphQLRequestError(Exception):
    """An error of the whole request (syntax, an unknown field, a bad variable): no data."""

    def __init__(self, message: str, line: int = 1, column: int = 1, extra: dict | None = None):
        super().__init__(message)
        self.message = message
        self.line, self.column = line, column
        self.extra = extra or {}

    def as_json(self) -> dict[str, Any]:
        return {
            **self.extra,
            "locations": [{"line": self.line, "column": self.column}],
            "message": self.message,
        }


class FieldError(Exception):
    """An error of one field (``type``: NOT_FOUND, FORBIDDEN, UNPROCESSABLE, …)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


# ---------------------------------------------------------------------------------------------
# Reading

_TOKEN = re.compile(
    r"(?P<skip>[\s,\ufeff]+|#[^\n\r]*)"
    r'|(?P<block>"""(?:\\"""|[^"]|"(?!""))*""")'
    r'|(?P<string>"(?:\\.|[^"\\\n\r])*")'
    r"|(?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<name>[_A-Za-z][_0-9A-Za-z]*)"
    r"|(?P<spread>\.\.\.)"
    r"|(?P<punct>[!$():=@\[\]{}|&])"
)


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    line: int
    column: int


def _tokens(source: str) -> list[_Tok]:
    found: list[_Tok] = []
    position, line, line_start = 0, 1, 0
    while position < len(source):
        match = _TOKEN.match(source, position)
        column = position - line_start + 1
        if match is None:
            shown = source[position]
            raise GraphQLRequestError(
                f'Parse error on "{shown}" ({shown!r}) at [{line}, {column}]', line, column
            )
        kind = match.lastgroup or ""
        text = match.group()
        if kind != "skip":
            found.append(_Tok(kind, text, line, column))
        newlines = text.count("\n")
        if newlines:
            line += newlines
            line_start = match.start() + text.rfind("\n") + 1
        position = match.end()
    found.append(_Tok("end", "", line, position - line_start + 1))
    return found


@dataclass
class Selection:
    name: str
    alias: str
    arguments: dict[str, Any]
    selections: list[Selection] | None
    line: int
    column: int
    on_type: str | None = None  # an inline fragment's type condition (name is "...")


@dataclass(frozen=True)
class Variable:
    name: str


@dataclass
class Operation:
    kind: str
    variables: dict[str, tuple[str, Any]]  # name -> (type, default)
    selections: list[Selection]


class _Reader:
    def __init__(self, source: str):
        self.tokens = _tokens(source)
        self.at = 0

    @property
    def tok(self) -> _Tok:
        return self.tokens[self.at]

    def fail(self, tok: _Tok | None = None) -> GraphQLRequestError:
        tok = tok or self.tok
        shown = tok.text or "end of file"
        kind = {"name": "IDENTIFIER", "string": "STRING", "number": "INT", "end": "EOF"}.get(
            tok.kind, tok.text
        )
        return GraphQLRequestError(
            f'Parse error on "{shown}" ({kind}) at [{tok.line}, {tok.column}]', tok.line, tok.column
        )

    def take(self, text: str | None = None, kind: str | None = None) -> _Tok:
        tok = self.tok
        if (text is not None and tok.text != text) or (kind is not None and tok.kind != kind):
            raise self.fail()
        self.at += 1
        return tok

    def peek(self, text: str) -> bool:
        return self.tok.text == text and self.tok.kind in ("punct", "spread", "name")

    def document(self) -> Operation:
        if self.peek("{"):
            operation = Operation("query", {}, self.selection_set())
        else:
            kind = self.take(kind="name")
            if kind.text not in ("query", "mutation"):
                if kind.text in ("fragment", "subscription"):
                    raise GraphQLRequestError(
                        f"{kind.text} definitions are not supported here", kind.line, kind.column
                    )
                raise self.fail(kind)
            if self.tok.kind == "name":
                self.at += 1  # the operation's name
            variables = self.variable_definitions() if self.peek("(") else {}
            operation = Operation(kind.text, variables, self.selection_set())
        if self.tok.kind != "end":
            raise GraphQLRequestError(
                "This document holds more than one operation; roost's sandbox takes one",
                self.tok.line,
                self.tok.column,
            )
        return operation

    def variable_definitions(self) -> dict[str, tuple[str, Any]]:
        self.take("(")
        found: dict[str, tuple[str, Any]] = {}
        while not self.peek(")"):
            self.take("$")
            name = self.take(kind="name").text
            self.take(":")
            kind = self.type_name()
            default = None
            if self.peek("="):
                self.take("=")
                default = self.value(const=True)
            found[name] = (kind, default)
        self.take(")")
        return found

    def type_name(self) -> str:
        if self.peek("["):
            self.take("[")
            inner = self.type_name()
            self.take("]")
            text = f"[{inner}]"
        else:
            text = self.take(kind="name").text
        if self.peek("!"):
            self.take("!")
            text += "!"
        return text

    def selection_set(self) -> list[Selection]:
        self.take("{")
        found = []
        while not self.peek("}"):
            found.append(self.selection())
        self.take("}")
        if not found:
            raise self.fail()
        return found

    def selection(self) -> Selection:
        if self.tok.kind == "spread":
            start = self.take()
            if self.tok.text != "on":
                raise GraphQLRequestError(
                    "Fragment spreads are not supported here", start.line, start.column
                )
            self.take("on")
            on_type = self.take(kind="name").text
            return Selection(
                "...", "...", {}, self.selection_set(), start.line, start.column, on_type
            )
        first = self.take(kind="name")
        alias, name = first.text, first.text
        if self.peek(":"):
            self.take(":")
            name = self.take(kind="name").text
        arguments = self.arguments() if self.peek("(") else {}
        if self.peek("@"):
            raise GraphQLRequestError(
                "Directives are not supported here", self.tok.line, self.tok.column
            )
        selections = self.selection_set() if self.peek("{") else None
        return Selection(name, alias, arguments, selections, first.line, first.column)

    def arguments(self) -> dict[str, Any]:
        self.take("(")
        found = {}
        while not self.peek(")"):
            name = self.take(kind="name").text
            self.take(":")
            found[name] = self.value()
        self.take(")")
        return found

    def value(self, const: bool = False) -> Any:
        tok = self.tok
        if tok.text == "$" and not const:
            self.take("$")
            return Variable(self.take(kind="name").text)
        if tok.kind == "number":
            self.at += 1
            return float(tok.text) if any(c in tok.text for c in ".eE") else int(tok.text)
        if tok.kind == "string":
            self.at += 1
            return _unescape(tok.text[1:-1])
        if tok.kind == "block":
            self.at += 1
            return tok.text[3:-3].replace('\\"""', '"""')
        if tok.kind == "name":
            self.at += 1
            return {"true": True, "false": False, "null": None}.get(tok.text, _Enum(tok.text))
        if tok.text == "[":
            self.take("[")
            items = []
            while not self.peek("]"):
                items.append(self.value(const))
            self.take("]")
            return items
        if tok.text == "{":
            self.take("{")
            fields = {}
            while not self.peek("}"):
                name = self.take(kind="name").text
                self.take(":")
                fields[name] = self.value(const)
            self.take("}")
            return fields
        raise self.fail()


class _Enum(str):
    """An enum value written bare (``DESC``): a string that remembers it was not quoted."""


_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _unescape(text: str) -> str:
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        nxt = text[index + 1]
        if nxt == "u":
            out.append(chr(int(text[index + 2 : index + 6], 16)))
            index += 6
        else:
            out.append(_ESCAPES.get(nxt, nxt))
            index += 2
    return "".join(out)


def parse(source: str) -> Operation:
    """The one operation in ``source``; ``GraphQLRequestError`` for what is not one."""
    if not isinstance(source, str) or not source.strip():
        raise GraphQLRequestError("A query attribute must be specified and must be a string.")
    try:
        return _Reader(source).document()
    except (ValueError, IndexError) as exc:
        raise GraphQLRequestError(f"Parse error: {exc}") from None


# ---------------------------------------------------------------------------------------------
# Executing


Resolver = Callable[[Any, dict[str, Any], Any], Any]


@dataclass(frozen=True)
class Field:
    """One field of an object type: its resolver and the type it returns (``"String"``,
    ``"Discussion"``, ``"[Discussion]"``; object types are names in the schema)."""

    resolve: Resolver
    returns: str


@dataclass(frozen=True)
class ObjectType:
    name: str
    fields: Mapping[str, Field]
    #: Types an inline fragment on this type may name (the type itself, its interfaces).
    also: tuple[str, ...] = ()


@dataclass(frozen=True)
class Schema:
    types: dict[str, ObjectType]
    query: str = "Query"
    mutation: str = "Mutation"


def _bind(value: Any, variables: Mapping[str, Any]) -> Any:
    if isinstance(value, Variable):
        return variables.get(value.name)
    if isinstance(value, list):
        return [_bind(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: _bind(v, variables) for k, v in value.items()}
    if isinstance(value, _Enum):
        return str(value)
    return value


def _check(schema: Schema, type_name: str, selections: list[Selection]) -> None:
    """Every field named exists and objects have selections (GitHub checks before running)."""
    object_type = schema.types[type_name]
    for selection in selections:
        if selection.name == "...":
            if selection.on_type not in (object_type.name, *object_type.also):
                raise GraphQLRequestError(
                    f"Fragment on {selection.on_type} can't be spread inside {type_name}",
                    selection.line,
                    selection.column,
                )
            _check(schema, type_name, selection.selections or [])
            continue
        if selection.name == "__typename":
            continue
        found = object_type.fields.get(selection.name)
        if found is None:
            raise GraphQLRequestError(
                f"Field '{selection.name}' doesn't exist on type '{type_name}'",
                selection.line,
                selection.column,
                {
                    "path": [selection.name],
                    "extensions": {
                        "code": "undefinedField",
                        "typeName": type_name,
                        "fieldName": selection.name,
                    },
                },
            )
        inner = found.returns.strip("[]!")
        if inner in schema.types:
            if not selection.selections:
                raise GraphQLRequestError(
                    f"Field must have selections (field '{selection.name}' returns {inner} "
                    "but has no selections. Did you mean '" + selection.name + " { ... }'?)",
                    selection.line,
                    selection.column,
                )
            _check(schema, inner, selection.selections)
        elif selection.selections:
            raise GraphQLRequestError(
                f"Selections can't be made on scalars (field '{selection.name}' returns "
                f"{inner} but has selections [...])",
                selection.line,
                selection.column,
            )


def _resolve(
    schema: Schema,
    type_name: str,
    value: Any,
    selections: list[Selection],
    variables: Mapping[str, Any],
    context: Any,
    path: list[Any],
    errors: list[dict[str, Any]],
) -> dict[str, Any]:
    object_type = schema.types[type_name]
    out: dict[str, Any] = {}
    for selection in selections:
        if selection.name == "...":
            out.update(
                _resolve(
                    schema,
                    type_name,
                    value,
                    selection.selections or [],
                    variables,
                    context,
                    path,
                    errors,
                )
            )
            continue
        if selection.name == "__typename":
            out[selection.alias] = type_name
            continue
        spec = object_type.fields[selection.name]
        here = [*path, selection.alias]
        arguments = {k: _bind(v, variables) for k, v in selection.arguments.items()}
        try:
            result = spec.resolve(value, arguments, context)
        except FieldError as exc:
            errors.append(
                {
                    "type": exc.kind,
                    "path": here,
                    "locations": [{"line": selection.line, "column": selection.column}],
                    "message": exc.message,
                }
            )
            out[selection.alias] = None
            continue
        inner = spec.returns.strip("[]!")
        if inner not in schema.types or result is None:
            out[selection.alias] = result
        elif isinstance(result, list):
            out[selection.alias] = [
                _resolve(
                    schema,
                    inner,
                    item,
                    selection.selections or [],
                    variables,
                    context,
                    [*here, index],
                    errors,
                )
                for index, item in enumerate(result)
            ]
        else:
            out[selection.alias] = _resolve(
                schema, inner, result, selection.selections or [], variables, context, here, errors
            )
    return out


def execute(
    schema: Schema, source: str, variables: Any, context: Any
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """(data, errors) of one request; ``GraphQLRequestError`` for a request that cannot run."""
    operation = parse(source)
    if variables is None:
        variables = {}
    if not isinstance(variables, dict):
        raise GraphQLRequestError("Variables are invalid JSON.")
    bound: dict[str, Any] = {}
    for name, (kind, default) in operation.variables.items():
        value = variables.get(name, default)
        if value is None and kind.endswith("!"):
            raise GraphQLRequestError(
                f"Variable ${name} of type {kind} was provided invalid value",
                extra={
                    "extensions": {
                        "value": None,
                        "problems": [{"path": [], "explanation": "Expected value to not be null"}],
                    }
                },
            )
        bound[name] = value
    root = schema.query if operation.kind == "query" else schema.mutation
    _check(schema, root, operation.selections)
    errors: list[dict[str, Any]] = []
    data = _resolve(schema, root, None, operation.selections, bound, context, [], errors)
    return data, errors
