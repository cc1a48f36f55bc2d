"""tui/untrusted.py: every kind of control character the service could send is made harmless."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.untrusted import clean, clean_cell, clean_line, clean_value, is_plain, truncate

REPLACEMENT = "\ufffd"
C0 = [chr(code) for code in range(0x20)]
C1 = [chr(code) for code in range(0x80, 0xA0)]
BIDI = [chr(code) for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
SEPARATORS = ["\u2028", "\u2029"]
UNSAFE = [*C0, "\x7f", *C1, *BIDI, *SEPARATORS]


@pytest.mark.parametrize("char", C0, ids=lambda c: f"C0-{ord(c):02x}")
def test_every_c0_control_becomes_its_control_picture(char):
    assert clean(f"a{char}b") == f"a{chr(0x2400 + ord(char))}b"


def test_nul_esc_and_del_are_shown():
    assert clean("\x00") == "\u2400"
    assert clean("\x1b[31mred") == "\u241b[31mred"  # the escape sequence is drawn, not run
    assert clean("\x7f") == "\u2421"


@pytest.mark.parametrize("char", C1, ids=lambda c: f"C1-{ord(c):02x}")
def test_every_c1_control_becomes_the_replacement_character(char):
    assert clean(f"a{char}b") == f"a{REPLACEMENT}b"


def test_the_single_byte_csi_is_replaced():
    assert clean("\x9b31mred") == f"{REPLACEMENT}31mred"


@pytest.mark.parametrize("char", BIDI + SEPARATORS, ids=lambda c: f"U+{ord(c):04X}")
def test_bidi_overrides_isolates_and_separators_are_replaced(char):
    assert clean(f"evil{char}txt.exe") == f"evil{REPLACEMENT}txt.exe"


def test_rtl_letters_combining_marks_and_emoji_are_kept():
    text = "שלום e\u0301 \U0001f600 \u4e2d\u6587"
    assert clean(text) == text
    assert clean(text, multiline=True) == text


def test_one_line_text_shows_newlines_and_tabs():
    assert clean("a\nb\tc\rd") == "a\u240ab\u2409c\u240dd"


def test_multi_line_text_keeps_newlines_and_expands_tabs():
    assert clean("a\nb\tc", multiline=True) == "a\nb    c"


def test_multi_line_text_drops_cr_of_crlf_and_shows_a_lone_cr():
    assert clean("a\r\nb\rc", multiline=True) == "a\nb\u240dc"


def test_multi_line_text_still_shows_other_controls():
    assert clean("a\x1b[2Jb\x9b", multiline=True) == f"a\u241b[2Jb{REPLACEMENT}"


def test_markup_stays_literal_text():
    for text in ("[bold red]x[/]", "[link=https://evil]click[/link]", "$accent", "[@click=quit]"):
        assert clean(text) == text
        assert clean(text, multiline=True) == text


def test_non_strings_and_none():
    assert clean(None) == ""
    assert clean(42) == "42"
    assert clean(b"\x1b") == "b'\\x1b'"  # the repr: printable already


def test_clean_line_and_truncate():
    assert clean_line("ab\ncd", limit=4) == "ab\u240a\u2026"
    assert clean_line("abc") == "abc"
    assert truncate("abcdef", 3) == "ab\u2026"
    assert truncate("abc", 3) == "abc"
    assert truncate("abc", 0) == ""


def test_clean_value_cleans_keys_and_nested_strings():
    value = {"k\x1b": ["a\nb\x07", {"x": "\u202e"}], "n": 3, "t": ("\x9b",)}
    assert clean_value(value) == {
        "k\u241b": ["a\nb\u2407", {"x": REPLACEMENT}],
        "n": 3,
        "t": [REPLACEMENT],
    }


@given(st.text())
def test_no_unsafe_character_survives(text):
    for multiline in (False, True):
        result = clean(text, multiline=multiline)
        allowed = {"\n"} if multiline else set()
        assert not (set(result) & (set(UNSAFE) - allowed))


@given(st.text(alphabet=st.characters(blacklist_characters=UNSAFE)))
def test_safe_text_is_unchanged(text):
    assert clean(text) == text


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # man ZWJ woman ZWJ girl


def test_clean_cell_drops_joiners_and_modifiers_only():
    assert clean_cell(f"a{FAMILY}b") == "a\U0001f468\U0001f469\U0001f467b"
    assert clean_cell("\u2764\ufe0f love") == "\u2764 love"  # variation selector 16
    assert clean_cell("\U0001f44d\U0001f3fd") == "\U0001f44d"  # skin tone
    flag = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    assert clean_cell(flag) == "\U0001f3f4"  # tag characters
    kept = "e\u0301 \u05e9\u05dc\u05d5\u05dd \U0001f1eb\U0001f1f7 plain"
    assert clean_cell(kept) == kept  # combining marks, RTL letters, flags
    assert clean_cell("a\x1b\nb") == "a\u241b\u240ab"  # and everything clean() does


@given(
    st.text(st.sampled_from("ab \t\n\x00\x1b\x7f\x85\u2028\u202e\u2066é"), max_size=300)
    | st.text(st.characters(max_codepoint=0x7F), min_size=90, max_size=300)
)
def test_is_plain_answers_whether_clean_changes_the_text(text):
    # long ASCII texts take a bytes path (not the regex): the answer is the same
    assert is_plain(text) == (clean(text) == text)
