"""A contract's ``pattern`` is checked within a bound: a slow one never freezes roost.

``^(\\w+\\s?)*$`` (a common naive pattern) against a long word and a ``!`` backtracks for
without end under ``re``; the engine roost uses now settles it at once, but not every pattern can be
(``^(\\w|\\w\\w)+$``). Every check (the catalog's validation, the form's values, the CLI)
ends within the budget: a pattern that runs out is then reported once and not enforced, and the
field stays usable. Patterns that can be checked still are, as before.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tui.actions import patterns
from tui.actions.catalog import ActionSpec, FieldSpec, validate_field, validate_payload
from tui.actions.contract import parse_skill
from tui.actions.form_values import field_messages

ROOT = Path(__file__).resolve().parents[2]
#: Slow under any backtracking engine (the number of ways to split the word grows like
#: Fibonacci's numbers).
SLOW = r"^(\w|\w\w)+$"
#: The issue's own example: endless under ``re``, settled at once by ``regex``'s guards.
NAIVE = r"^(\w+\s?)*$"
HOSTILE = "a" * 5000 + "!"


@pytest.fixture(autouse=True)
def clean_slate():
    patterns.forget()
    yield
    patterns.forget()


def test_every_check_of_a_slow_pattern_ends_and_the_field_stays_usable():
    """In a fresh interpreter, with nothing but the catalog's and the form's own calls (which
    a form, its preview, a prefill and the CLI make): each ends; none blocks the value. Under
    ``re`` the first of them never returns (the process is stopped)."""
    code = textwrap.dedent(
        f"""
        import json
        from tui.actions.catalog import ActionSpec, FieldSpec, validate_field, validate_payload
        from tui.actions.form_values import field_messages, payload_from_values
        bio = FieldSpec("bio", "str", pattern={SLOW!r}, pattern_anywhere=True)
        spec = ActionSpec("register_agent", fields=(bio,))
        value = {HOSTILE!r}
        out = {{
            "field": [str(e) for e in validate_field(bio, value)],
            "payload": [str(e) for e in validate_payload(spec, {{"bio": value}})],
            "form": field_messages(bio, value),
            "values": payload_from_values(spec, {{"bio": value}}),
        }}
        from tui.actions.patterns import new_notices
        out["notices"], out["again"] = new_notices(), new_notices()
        print(json.dumps(out))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["field"] == out["payload"] == out["form"] == []
    payload, problems = out["values"]
    assert payload == {"bio": HOSTILE} and problems == {}
    assert out["notices"] == ["bio: pattern too slow to check: not enforced here"]
    assert out["again"] == []  # told once


def test_a_slow_pattern_is_given_up_once_then_never_run_again(monkeypatch):
    assert patterns.matches(SLOW, HOSTILE, where="bio") is None
    assert patterns.given_up(SLOW) == patterns.TOO_SLOW

    def never(pattern):
        raise AssertionError("a pattern found too slow is not run again")

    monkeypatch.setattr(patterns, "compiled", never)
    assert patterns.matches(SLOW, "short", where="bio") is None  # not even a short value
    assert patterns.new_notices() == ["bio: pattern too slow to check: not enforced here"]
    assert patterns.new_notices() == []
    spec = FieldSpec("bio", "str", pattern=SLOW, pattern_anywhere=True)
    assert validate_field(spec, "no! no!") == []
    assert spec.limits() == [f"pattern {SLOW} (pattern too slow to check: not enforced here)"]


@pytest.mark.parametrize(
    ("pattern", "value", "anywhere", "holds"),
    [
        (r"^[a-z0-9-]+$", "good-slug", False, True),
        (r"^[a-z0-9-]+$", "Bad Slug", False, False),
        (r"^[A-Z]{3}", "ABCdef", True, True),  # JSON Schema: anywhere
        (r"^[A-Z]{3}", "ABCdef", False, False),  # the whole value
        (r"\d", "a1", True, True),
        (r"^(?!.*--)[a-z-]+$", "a--b", False, False),  # lookahead, as re runs it
        (r"^(a)\1$", "aa", False, True),  # backreference
        (SLOW, "word", True, True),  # a slow pattern on a value it settles at once
        (SLOW, "bad!", True, False),
        (NAIVE, "two words", True, True),
        (NAIVE, "a" * 400 + "!", True, False),  # under re: endless
    ],
)
def test_patterns_that_can_be_checked_are_checked_as_before(pattern, value, anywhere, holds):
    spec = FieldSpec("x", "str", pattern=pattern, pattern_anywhere=anywhere)
    assert (validate_field(spec, value) == []) is holds
    assert patterns.given_up(pattern) is None


def test_the_cli_and_the_form_say_the_same_of_an_item_of_a_list():
    spec = ActionSpec(
        "tagged", fields=(FieldSpec("tags", "list[str]", pattern=SLOW, pattern_anywhere=True),)
    )
    assert validate_payload(spec, {"tags": ["fine", HOSTILE, "bad!"]}) == []
    assert field_messages(spec.field("tags"), f"fine\n{HOSTILE}\nbad!") == []
    assert patterns.new_notices() == ["tags: pattern too slow to check: not enforced here"]


def _contract_with(**fields: str):
    properties = {name: {"type": "string", "pattern": p} for name, p in fields.items()}
    body = {
        "actions": {
            "wave": {
                "method": "github_issue",
                "payload": {
                    "type": "object",
                    "properties": {"payload": {"type": "object", "properties": properties}},
                },
            }
        }
    }
    return parse_skill(body)


def test_a_pattern_re_cannot_run_is_still_shown_not_enforced():
    """As before: the contract reports it and leaves it out of the rules; the config file's is
    refused; a check against it holds nothing back."""
    contract = _contract_with(broken="(unclosed", letters=r"^\p{L}+$")
    wave = contract.actions["wave"]
    assert wave.field("broken").pattern is None and wave.field("letters").pattern is None
    assert contract.notices == (
        "rules roost does not check (shown, not enforced): pattern (wave.broken, wave.letters)",
    )
    with pytest.raises(ValueError, match="cannot be used"):
        FieldSpec("x", "str", pattern="(unclosed")
    assert patterns.matches("(unclosed", "x") is None


@pytest.mark.parametrize(
    "pattern",
    [
        "(?:(?:ab|cd){1000}){1000}",  # crashes the regex module's compiler
        "(?:(?:(?:a{100}){100}){100})",  # a million nodes; one level more: a hundred million
        "(?:a{300,}){300,}",
    ],
)
def test_a_pattern_that_would_take_long_to_compile_is_never_compiled(pattern, monkeypatch):
    import regex

    def never(*args, **kwargs):
        raise AssertionError("regex.compile was reached")

    monkeypatch.setattr(regex, "compile", never)
    contract = _contract_with(code=pattern)
    assert contract.actions["wave"].field("code").pattern is None
    assert contract.notices == (
        "rules roost does not check (shown, not enforced): pattern (wave.code)",
    )
    with pytest.raises(ValueError, match="counted repeats"):
        FieldSpec("x", "str", pattern=pattern)
    assert patterns.matches(pattern, "ab") is None


def test_counted_repeats_a_contract_means_are_kept():
    for pattern in (r"^[0-9a-f]{64}$", r"^.{1,280}$", r"^[\s\S]{0,65536}$", r"^(?:ab){40}$"):
        assert patterns.compiled(pattern) is not None
    assert patterns.matches(r"^[0-9a-f]{64}$", "f" * 64) is True


def test_the_private_names_of_res_parser_are_there():
    """The screen reads ``re``'s parse tree: a Python that moves these fails here first."""
    from re import _constants, _parser

    parsed = _parser.parse(r"(?:a|b){2,}(?=c)(?!d)(?>e)(f)(?(1)g|h)")
    ops = {op for op, _ in parsed}
    assert {_constants.MAX_REPEAT, _constants.ASSERT, _constants.ASSERT_NOT} <= ops
    assert {_constants.ATOMIC_GROUP, _constants.SUBPATTERN, _constants.GROUPREF_EXISTS} <= ops
    assert _constants.MIN_REPEAT and _constants.POSSESSIVE_REPEAT and _constants.BRANCH


def test_reading_a_contract_compiles_no_pattern_until_a_value_is_held_to_it(monkeypatch):
    """A contract is read on the dashboard's event loop: its patterns are only checked there;
    each is compiled (once) when a field's value is first checked against it."""
    import regex

    from tui.sandbox.deployment import skill_document

    compiled_now: list[str] = []
    real = regex.compile

    def counting(pattern, *args, **kwargs):
        compiled_now.append(pattern)
        return real(pattern, *args, **kwargs)

    patterns.compiled.cache_clear()
    monkeypatch.setattr(regex, "compile", counting)
    contract = parse_skill(skill_document("https://example.test", "o", "r"))
    slug = contract.actions["create_channel"].field("slug")
    assert slug.pattern and compiled_now == []
    assert validate_field(slug, "Not A Slug") != [] and validate_field(slug, "a-slug") == []
    assert compiled_now == [slug.pattern]


def test_a_pattern_the_engine_will_not_compile_is_said_once_and_not_enforced(monkeypatch):
    import regex

    def refusing(pattern, *args, **kwargs):
        raise regex.error("not here")

    patterns.compiled.cache_clear()
    monkeypatch.setattr(regex, "compile", refusing)
    spec = FieldSpec("code", "str", pattern=r"^[A-Z]+$")  # re takes it: the field is made
    assert validate_field(spec, "lower") == []
    assert patterns.new_notices() == ["code: pattern this check cannot run: not enforced here"]
    assert patterns.new_notices() == []
    patterns.compiled.cache_clear()
