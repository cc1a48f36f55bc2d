"""RFC 8785 (JCS) vectors and the strict parser's refusals."""

from __future__ import annotations

import json
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.eggs.canonical_json import (
    MAX_DEPTH,
    CanonicalJsonError,
    canonical,
    format_number,
    strict_loads,
)

# RFC 8785 Appendix B: IEEE-754 bit patterns and their ECMA-262 text.
RFC_NUMBERS = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


@pytest.mark.parametrize(("bits", "text"), RFC_NUMBERS)
def test_rfc8785_number_vectors(bits, text):
    value = struct.unpack(">d", bytes.fromhex(bits))[0]
    assert format_number(value) == text
    assert canonical(value) == text.encode()


@pytest.mark.parametrize("bits", ["7fffffffffffffff", "7ff0000000000000", "fff0000000000000"])
def test_nan_and_infinity_are_refused(bits):
    with pytest.raises(CanonicalJsonError):
        canonical(struct.unpack(">d", bytes.fromhex(bits))[0])


def test_integers():
    assert canonical(2**53 - 1) == b"9007199254740991"
    assert canonical(-(2**53) + 1) == b"-9007199254740991"
    assert canonical(2**60) == b"1152921504606847000"  # exactly representable: printed as JS does
    with pytest.raises(CanonicalJsonError):
        canonical(2**53 + 1)
    assert canonical(True) == b"true" and canonical(None) == b"null"


def test_rfc8785_sample_document():
    # RFC 8785 §3.2.2: numbers, string escapes and literals.
    text = (
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
        ' "literals": [null, true, false]}'
    )
    expected = (
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    )
    assert canonical(json.loads(text)) == expected.encode("utf-8")


def test_rfc8785_key_order_is_by_utf16_code_units():
    # RFC 8785 §3.2.3: sorted by UTF-16 code units, so U+1F600 (a surrogate pair) sorts before U+FB33.
    names = ["\u20ac", "\r", "\ufb33", "1", "\U0001f600", "\u0080", "\u00f6"]
    keys = list(json.loads(canonical({name: name for name in names})))
    assert keys == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]


def test_string_escapes():
    assert canonical('\x00\x1f\x7f"\\/\b\t\n\f\r') == b'"\\u0000\\u001f\x7f\\"\\\\/\\b\\t\\n\\f\\r"'
    assert canonical("é😀") == '"é😀"'.encode()


@pytest.mark.parametrize("text", ["\ud800", "a\udfff", "\ufdd0", "\uffff", "\U0010fffe"])
def test_surrogates_and_noncharacters_are_refused(text):
    with pytest.raises(CanonicalJsonError):
        canonical(text)
    with pytest.raises(CanonicalJsonError):
        canonical({text: 1})


def test_depth_limit():
    value: object = 1
    for _ in range(MAX_DEPTH):
        value = [value]
    canonical(value)  # 64 arrays around a number: depth 64 is allowed
    with pytest.raises(CanonicalJsonError):
        canonical([value])
    with pytest.raises(CanonicalJsonError):
        strict_loads(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
    with pytest.raises(CanonicalJsonError):
        strict_loads(b"[" * 100_000)


@pytest.mark.parametrize(
    "data",
    [
        b'\xef\xbb\xbf{"a":1}',  # BOM
        b'{"a":1,"a":2}',  # duplicate names
        b"NaN",
        b"[Infinity]",
        b"[-Infinity]",
        b"0.10000000000000001",  # does not survive the binary64 round trip
        b"1e400",
        b"9007199254740993",
        b'"\\ud800"',  # lone surrogate
        b'"\xff"',  # not UTF-8
        b'{"a":1} x',
        b"",
        b'"\x01"',
    ],
)
def test_strict_parser_refuses(data):
    with pytest.raises(CanonicalJsonError):
        strict_loads(data)


def test_strict_parser_accepts():
    assert strict_loads(b' {"b":[1,2.5,-0,1e2],"a":"\\u00e9"} ') == {
        "b": [1, 2.5, 0, 100.0],
        "a": "é",
    }
    assert canonical(strict_loads(b"-0")) == b"0"


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    # a double of 2^53 or more prints as an integer token the strict parser may refuse (see below)
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: abs(f) < 2**53)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values)
def test_canonical_round_trips_through_the_strict_parser(value):
    try:
        text = canonical(value)
    except CanonicalJsonError:
        return  # surrogates / noncharacters in generated text
    parsed = strict_loads(text)
    assert canonical(parsed) == text


@given(
    st.binary(max_size=200)
    | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass"))
)
def test_strict_parser_never_raises_anything_else(data):
    try:
        value = strict_loads(data)
    except CanonicalJsonError:
        return
    canonical(value)


def test_large_integer_tokens_must_be_exact():
    # §2: beyond 2^53-1 an integer is allowed only if binary64 holds it exactly. ECMA-262 prints
    # the double 2^60 as "1152921504606847000", which names no double exactly: the strict parser
    # refuses that text although canonical() printed it (the reference has the same asymmetry).
    assert strict_loads(b"1152921504606846976") == 2**60
    assert canonical(2**60) == b"1152921504606847000"
    with pytest.raises(CanonicalJsonError):
        strict_loads(b"1152921504606847000")
    assert canonical({"a": [1, {"b": 2**53 - 1}], "\U0001f600": 1, "\ufb33": 2}) == (
        '{"a":[1,{"b":9007199254740991}],"\U0001f600":1,"\ufb33":2}'.encode()
    )
