"""RFC 8785 JSON Canonicalization (JCS) and the strict parser RAPP/1 pairs with it.

An egg's address and its manifest entry are defined over these exact bytes, so a single
formatting difference (a number printed the Python way, keys sorted by code point instead of
UTF-16 code unit) would make a genuine egg look tampered. Everything here is pure and headless.
"""

from __future__ import annotations

import json
import json.encoder
import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from tui.errors import RoostError
from tui.strict_json import unique_members

__all__ = [
    "MAX_CANONICAL_BYTES",
    "MAX_DEPTH",
    "MAX_RAW_BYTES",
    "CanonicalJsonError",
    "canonical",
    "format_number",
    "strict_loads",
    "strict_parse",
]

MAX_DEPTH = 64
MAX_CANONICAL_BYTES = 1024 * 1024
MAX_RAW_BYTES = 64 * 1024 * 1024
_MAX_SAFE_INTEGER = 2**53 - 1

# JCS escapes exactly what the stdlib's C string encoder escapes when it keeps non-ASCII
# literal: '"', '\\', the short forms \b \t \n \f \r and other C0 as lowercase \u00xx.
_encode_string = json.encoder.encode_basestring

_FORBIDDEN = re.compile(
    "[\ud800-\udfff\ufdd0-\ufdef"
    + "".join(f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(17))
    + "]"
)


class CanonicalJsonError(RoostError, ValueError):
    """A value outside the I-JSON domain RAPP/1 canonicalizes, or input the strict parser refuses."""


def _check_text(text: str) -> None:
    if text.isascii():
        return
    bad = _FORBIDDEN.search(text)
    if bad is not None:
        code = ord(bad.group())
        kind = "surrogate code point" if 0xD800 <= code <= 0xDFFF else "noncharacter"
        raise CanonicalJsonError(f"{kind} U+{code:04X} in a string")


def _string(text: str) -> str:
    _check_text(text)
    return _encode_string(text)


def format_number(value: int | float) -> str:
    """ECMA-262 Number::toString of a binary64 value (what JCS prints for every number)."""
    if isinstance(value, bool):
        raise CanonicalJsonError("a boolean is not a number")
    if isinstance(value, int):
        if abs(value) <= _MAX_SAFE_INTEGER:
            return str(value)
        try:
            as_float = float(value)
        except OverflowError as exc:
            raise CanonicalJsonError(f"integer {value} is outside binary64") from exc
        if int(as_float) != value:
            raise CanonicalJsonError(f"integer {value} is not exactly representable as binary64")
        value = as_float
    if not math.isfinite(value):
        raise CanonicalJsonError(f"{value!r} is not a JSON number")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # value = 0.<digits> * 10**point
    point = len(whole) + (int(exponent) if exponent else 0)
    leading_zeros = len(whole + fraction) - len((whole + fraction).lstrip("0"))
    point -= leading_zeros
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= point <= 21:
        text = digits + "0" * (point - k)
    elif 0 < point <= 21:
        text = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        text = "0." + "0" * (-point) + digits
    else:
        e = point - 1
        exp = ("+" if e >= 0 else "-") + str(abs(e))
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + exp
    return sign + text


def _utf16_key(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


def canonical(value: Any) -> bytes:
    """The JCS text of ``value`` as UTF-8 bytes; raises :class:`CanonicalJsonError` outside I-JSON.

    Member names sort by their UTF-16 code units; numbers print as ECMA-262 does; strings
    escape exactly what JCS escapes. Iterative, so a hostile depth cannot exhaust the stack.
    """
    out: list[str] = []
    # stack items: ("v", value, depth) to emit a value, ("s", text) to emit literal text
    stack: list[tuple[Any, ...]] = [("v", value, 1)]
    while stack:
        item = stack.pop()
        if item[0] == "s":
            out.append(item[1])
            continue
        _, node, depth = item
        if node is None:
            out.append("null")
        elif node is True:
            out.append("true")
        elif node is False:
            out.append("false")
        elif isinstance(node, (int, float)):
            out.append(format_number(node))
        elif isinstance(node, str):
            out.append(_string(node))
        elif isinstance(node, (list, tuple, dict)):
            if depth > MAX_DEPTH:
                raise CanonicalJsonError(f"nesting deeper than {MAX_DEPTH}")
            if isinstance(node, dict):
                for key in node:
                    if not isinstance(key, str):
                        raise CanonicalJsonError(f"member name {key!r} is not a string")
                    _check_text(key)
                keys = sorted(node, key=_utf16_key)
                stack.append(("s", "}"))
                for index in range(len(keys) - 1, -1, -1):
                    stack.append(("v", node[keys[index]], depth + 1))
                    stack.append(("s", ("," if index else "") + _string(keys[index]) + ":"))
                out.append("{")
            else:
                stack.append(("s", "]"))
                for index in range(len(node) - 1, -1, -1):
                    stack.append(("v", node[index], depth + 1))
                    if index:
                        stack.append(("s", ","))
                out.append("[")
        else:
            raise CanonicalJsonError(f"{type(node).__name__} is not a JSON value")
    return "".join(out).encode("utf-8")


def _float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise CanonicalJsonError(f"number {token} overflows binary64")
    try:
        exact = Decimal(token) == Decimal(repr(value))
    except InvalidOperation as exc:  # pragma: no cover - json only hands over valid tokens
        raise CanonicalJsonError(f"bad number {token}") from exc
    if not exact:
        raise CanonicalJsonError(f"number {token} does not survive the binary64 round trip")
    return value


def _int(token: str) -> int:
    """An integer token: beyond 2^53-1 only when binary64 holds it exactly (§2)."""
    if len(token) > 400:
        raise CanonicalJsonError("integer token too long")
    value = int(token)
    if abs(value) > _MAX_SAFE_INTEGER:
        format_number(value)  # raises unless exactly representable
    return value


def _constant(token: str) -> Any:
    raise CanonicalJsonError(f"{token} is not a JSON number")


_DECODER = json.JSONDecoder(
    object_pairs_hook=unique_members(
        lambda key: CanonicalJsonError(f"duplicate member name {key!r}")
    ),
    parse_float=_float,
    parse_int=_int,
    parse_constant=_constant,
)


def strict_loads(data: bytes | bytearray | memoryview) -> Any:
    """Parse RAPP/1 JSON strictly (§2): UTF-8 without BOM, no duplicate names, no NaN/Infinity,
    numbers that round-trip through binary64, depth ≤ 64, canonical size ≤ 1 MiB.

    Raises only :class:`CanonicalJsonError`, whatever the input.
    """
    return strict_parse(data)[0]


def strict_parse(data: bytes | bytearray | memoryview) -> tuple[Any, bytes]:
    """:func:`strict_loads` plus the value's canonical bytes (computed anyway for the size rule)."""
    raw = bytes(data)
    if len(raw) > MAX_RAW_BYTES:
        raise CanonicalJsonError(f"input is {len(raw)} bytes, more than {MAX_RAW_BYTES}")
    if raw.startswith(b"\xef\xbb\xbf"):
        raise CanonicalJsonError("input starts with a byte order mark")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CanonicalJsonError(f"not UTF-8 at byte {exc.start}") from exc
    try:
        value, end = _DECODER.raw_decode(text, _skip_ws(text, 0))
    except CanonicalJsonError:
        raise
    except RecursionError as exc:
        raise CanonicalJsonError(f"nesting deeper than {MAX_DEPTH}") from exc
    except (ValueError, OverflowError) as exc:
        raise CanonicalJsonError(f"not JSON: {exc}") from exc
    if _skip_ws(text, end) != len(text):
        raise CanonicalJsonError(f"extra data after the JSON value at character {end}")
    # canonical also enforces the depth limit and refuses surrogates and noncharacters
    canonical_text = canonical(value)
    if len(canonical_text) > MAX_CANONICAL_BYTES:
        raise CanonicalJsonError(
            f"canonical form is {len(canonical_text)} bytes, more than {MAX_CANONICAL_BYTES}"
        )
    return value, canonical_text


def _skip_ws(text: str, index: int) -> int:
    length = len(text)
    while index < length and text[index] in " \t\n\r":
        index += 1
    return index
