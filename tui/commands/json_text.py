"""The JSON the commands print: strict, one line, ASCII only, a number that is not finite as null.

:func:`as_json` encodes a document of plain values in one C pass (msgspec). :func:`write_json`
prints the same bytes (and a newline) for a document that holds the state's models themselves
(msgspec structs, each standing for :func:`~tui.network.models.dump` of it): it encodes the big
containers member by member, so no second copy of the state is ever built as Python values,
and writes the text in slices, so no whole-document string or bytes copy is made either.
`roost state --json` at 50,000 agents prints about 44 MB this way.
"""

from __future__ import annotations

import codecs
import json
import math
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import IO, Any

import msgspec

from tui.network.models import _extras_of, _nested_members, dump

__all__ = ["as_json", "write_json"]


def as_json(document: Any) -> str:
    """One line of strict JSON, ASCII only; a number that is not finite leaves as null.

    msgspec encodes it in one C pass (non-finite numbers as null, control characters as \\u
    escapes), then every byte from DEL up leaves as the \\u escape of its character, as
    ``json.dumps``'s ``ensure_ascii`` writes it: no control or non-ASCII character reaches a
    terminal. What msgspec cannot encode (a lone surrogate) goes through ``json.dumps``.
    """
    try:
        data = msgspec.json.encode(document)
    except (TypeError, ValueError, msgspec.EncodeError):
        return json.dumps(
            _finite(document), ensure_ascii=True, allow_nan=False, separators=(",", ":")
        )
    return _ascii(data)


def _ascii(data: bytes) -> str:
    # in JSON text bytes past ASCII (and DEL) occur only inside strings: escaping them in place
    # keeps every string's value
    return data.replace(b"\x7f", b"\\u007f").decode("ascii", errors=_ESCAPE_UTF8)


def _escape_utf8(error: UnicodeError) -> tuple[str, int]:
    """The run of UTF-8 bytes ``error`` stopped at, as JSON \\u escapes (an error handler)."""
    if not isinstance(error, UnicodeDecodeError):
        raise error  # registered for decoding only
    data, end = error.object, error.start
    while end < len(data) and data[end] >= 0x80:
        end += 1
    return json.dumps(data[error.start : end].decode(), ensure_ascii=True)[1:-1], end


_ESCAPE_UTF8 = "roost-json-escape-utf8"
codecs.register_error(_ESCAPE_UTF8, _escape_utf8)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


# ---------------------------------------------------------------------------------------------
# Printing a document that holds models

#: How deep containers are written member by member: the document, the snapshot, a model, its
#: big mapping or list; each member below is encoded whole (an agent is a few hundred bytes).
STREAM_DEPTH = 4
#: The most bytes escaped and written at once.
SLICE = 1 << 20

_encode = msgspec.json.Encoder().encode


def write_json(document: Any, out: IO[str]) -> None:
    """Print ``document`` as ``as_json(dump(document)) + "\\n"`` prints it, byte for byte,
    without building ``dump(document)``: models (msgspec structs) in it stand for their dump
    (unknown fields included).

    The encoded pieces are kept until the end (as much as the output, in bytes): where msgspec
    cannot encode a piece (a lone surrogate), the whole document goes through
    :func:`as_json`'s ``json.dumps`` path instead, as it always did."""
    pieces: list[bytes] = []
    try:
        _pieces(document, pieces.append, STREAM_DEPTH)
    except (TypeError, ValueError, msgspec.EncodeError):
        out.write(as_json(dump(document)) + "\n")
        return
    pieces.append(b"\n")
    binary = getattr(out, "buffer", None)
    out.flush()
    for text in _slices(pieces):
        if binary is not None:
            binary.write(text.encode("ascii"))
        else:
            out.write(text)
    if binary is not None:
        binary.flush()


def _slices(pieces: list[bytes]) -> Iterable[str]:
    """The pieces as ASCII text, about :data:`SLICE` bytes at a time, each piece let go of once
    it is written (a piece never splits a string, so no escape is ever cut in two)."""
    batch = bytearray()
    for index, piece in enumerate(pieces):
        pieces[index] = b""
        batch += piece
        if len(batch) >= SLICE:
            yield _ascii(bytes(batch))
            batch.clear()
    if batch:
        yield _ascii(bytes(batch))


def _pieces(value: Any, emit: Callable[[bytes], object], depth: int) -> None:
    """Emit the JSON of ``dump(value)``: containers down to ``depth`` member by member, the
    rest encoded whole."""
    if depth > 0:
        if isinstance(value, msgspec.Struct) and _fields(type(value)) is not None:
            _struct_pieces(value, emit, depth)
            return
        if isinstance(value, dict) and all(isinstance(key, str) for key in value):
            _members(value.items(), b"{", b"}", emit, depth)
            return
        if isinstance(value, list | tuple):
            emit(b"[")
            for index, member in enumerate(value):
                if index:
                    emit(b",")
                _pieces(member, emit, depth - 1)
            emit(b"]")
            return
    emit(_encode_whole(value))


def _struct_pieces(value: msgspec.Struct, emit: Callable[[bytes], object], depth: int) -> None:
    """A model as ``dump`` gives it: its fields by their JSON names, in order, then the unknown
    fields it kept."""
    fields = _fields(type(value))
    assert fields is not None
    members = [(encode_name, getattr(value, name)) for name, encode_name in fields]
    members += list((_extras_of(value) or {}).items())
    _members(members, b"{", b"}", emit, depth)


def _members(
    members: Iterable[tuple[str, Any]],
    opening: bytes,
    closing: bytes,
    emit: Callable[[bytes], object],
    depth: int,
) -> None:
    emit(opening)
    first = True
    for key, member in members:
        emit(_encode(key) + b":" if first else b"," + _encode(key) + b":")
        first = False
        _pieces(member, emit, depth - 1)
    emit(closing)


def _encode_whole(value: Any) -> bytes:
    """``dump(value)`` encoded; a model that holds no unknown fields (and no models that
    could) is encoded as it is, which gives the same bytes without the plain copy."""
    if value is None or isinstance(value, str | int | float):
        return _encode(value)
    if (
        isinstance(value, msgspec.Struct)
        and _fields(type(value)) is not None
        and not _extras_of(value)
        and not _nested_members(type(value))
    ):
        return _encode(value)
    return _encode(dump(value))


@lru_cache(maxsize=128)
def _fields(model: type[msgspec.Struct]) -> tuple[tuple[str, str], ...] | None:
    """(name, JSON name) of a struct type's fields in the order ``to_builtins`` writes them;
    None for a struct ``to_builtins`` writes otherwise (tagged, as an array, defaults left out)."""
    config = model.__struct_config__
    if config.omit_defaults or config.array_like or config.tag is not None:
        return None
    return tuple((info.name, info.encode_name) for info in msgspec.structs.fields(model))
