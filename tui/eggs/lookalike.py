"""Archive names that look alike: one name in two Unicode forms, two names a case-insensitive
filesystem makes one, a file that is also a folder, a segment mixing confusable scripts.

A person reading a file list cannot tell ``manifest.json`` from ``manifеst.json`` (a Cyrillic
``е``) or ``café.md`` in NFC from its NFD twin; an extractor on macOS or Windows writes two such
names to one file. :func:`name_problem` judges one name, :func:`collisions` a set of them; a
RAPP/1 egg fails on either (``zip.names``), a legacy egg has them flagged beside each entry.

Scripts are told apart by the Unicode character names; the mixes allowed in one segment are
those of Unicode's "highly restrictive" profile (UTS #39): one script, or Latin with Han and
Japanese kana, with Han and Bopomofo, or with Han and Hangul.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable

__all__ = ["collisions", "fold", "lookalikes", "name_problem", "scripts_of"]

_SCRIPTS = (
    "LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC", "GEORGIAN", "HEBREW",
    "ARABIC", "CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO", "THAI", "DEVANAGARI",
)  # fmt: skip
_ALLOWED_MIXES = (
    frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "CJK", "BOPOMOFO"}),
    frozenset({"LATIN", "CJK", "HANGUL"}),
)


@functools.lru_cache(maxsize=4096)
def _script(char: str) -> str:
    words = unicodedata.name(char, "UNKNOWN").split()
    return next((w for w in words if w in _SCRIPTS), words[0])


def scripts_of(segment: str) -> set[str]:
    """The scripts of the letters of ``segment`` (digits and punctuation belong to none)."""
    return {
        "LATIN" if c.isascii() else _script(c)
        for c in segment
        if c.isalpha() and unicodedata.category(c).startswith("L")
    }


def name_problem(name: str) -> str | None:
    """Why ``name`` on its own could pass for another name, or None."""
    if name.isascii():  # one script, and already its own compatibility form
        return None
    for segment in name.split("/"):
        scripts = scripts_of(segment)
        if len(scripts) > 1 and not any(scripts <= allowed for allowed in _ALLOWED_MIXES):
            return f"segment {segment!r} mixes {' and '.join(sorted(scripts)).lower()} letters"
        if segment.isascii() or unicodedata.is_normalized("NFKC", segment):
            continue
        compat = unicodedata.normalize("NFKC", segment)
        if compat.isascii():
            return f"segment {segment!r} is written in look-alikes of {compat!r}"
    return None


def fold(name: str) -> tuple[str, ...]:
    """What a normalizing, case-insensitive filesystem makes of ``name``, segment by segment."""
    return tuple(unicodedata.normalize("NFD", part).casefold() for part in name.split("/"))


def collisions(names: Iterable[str]) -> list[tuple[str, str, str]]:
    """``(name, earlier name, how)`` for each name that is another one once case and Unicode
    form are set aside, or is a folder of a file (or a file of a folder) listed too."""
    found: list[tuple[str, str, str]] = []
    seen: dict[tuple[str, ...], str] = {}
    ordered = list(names)
    for name in ordered:
        key = fold(name)
        other = seen.get(key)
        if other is not None and other != name:
            same_form = unicodedata.normalize("NFC", other) == unicodedata.normalize("NFC", name)
            how = "the same name in another Unicode form" if same_form else "the same name in another case"  # fmt: skip
            found.append((name, other, how))
        seen.setdefault(key, name)
    folders: dict[tuple[str, ...], str] = {}
    for name in ordered:
        key = fold(name)
        for cut in range(1, len(key)):
            folders.setdefault(key[:cut], name)
    for name in ordered:
        inside = folders.get(fold(name))
        if inside is not None:
            found.append((name, inside, "a file that is also the folder of another"))
    return found


def lookalikes(names: Iterable[str]) -> dict[str, str]:
    """Each name that looks like another or passes for one, with why (for a file list)."""
    ordered = list(names)
    flagged: dict[str, str] = {}
    for name in ordered:
        problem = name_problem(name)
        if problem is not None:
            flagged[name] = problem
    for name, other, how in collisions(ordered):
        flagged.setdefault(name, f"{how}: {other!r}")
        flagged.setdefault(other, f"{how}: {name!r}")
    return flagged
