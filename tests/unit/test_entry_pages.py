"""What the viewer and `egg cat` call binary: one rule for both."""

from __future__ import annotations

import pytest

from tui.eggs.entry_pages import EntryPages, looks_binary


@pytest.mark.parametrize(
    ("data", "binary"),
    [
        (b"", False),
        (b"# soul\n\nplain text\twith a tab\r\n", False),
        ("caf\u00e9 \u2603 \U0001f600\n".encode(), False),
        (b"a few \x1b[1mescapes\x1b[0m in a line of text\n", False),
        (b"text\x00with a NUL", True),
        (b"\xff\xfe not UTF-8", True),
        (b"\x01" * 1000, True),
        (b"x" * 60 + b"\x02" * 40, True),
    ],
)
def test_looks_binary(data, binary):
    assert looks_binary(data) is binary


def test_a_character_cut_at_the_end_of_a_head_is_still_text():
    head = ("a" * 10 + "\u2603").encode()[:-1]  # the snowman cut in two
    assert looks_binary(head, cut=True) is False
    assert looks_binary(head) is True  # a whole file ending so is not UTF-8


def test_the_viewer_pages_a_file_of_control_bytes_as_binary():
    assert EntryPages.of_bytes("ones.bin", b"\x01" * 20_000).binary
    assert not EntryPages.of_bytes("notes.md", b"notes\n" * 4_000).binary
