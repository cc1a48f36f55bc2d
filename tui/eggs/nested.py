"""The eggs inside a ``neighborhood`` or an ``estate``, each one an egg of its own.

A neighborhood packs one organism egg per rappid of ``payload.members`` (an estate one
neighborhood egg per rappid of ``payload.neighborhoods``), each named ``<owner>--<slug>.egg``
from its rappid. :func:`members` lists them: every member the payload names and every ``.egg``
entry the archive holds, each with its own verdict (verified one level deeper, as the nesting
check counts) and whether it is the member its name promises (its manifest's rappid and
variant). A member is opened as a :class:`SubEgg`: a window on the parent's bytes, never a copy
and never extracted; :func:`open_egg` opens either kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.eggs import rapp
from tui.eggs.egg_report import EggReport
from tui.eggs.verify import MAX_NESTING, verify_egg
from tui.eggs.zip_reader import EggSource

__all__ = ["MAX_NESTING", "MEMBER_KEYS", "Member", "SubEgg", "can_enter", "members", "open_egg"]

#: variant → (the payload member naming its members, the variant each member must be)
MEMBER_KEYS: dict[str, tuple[str, str]] = {
    "neighborhood": ("members", "organism"),
    "estate": ("neighborhoods", "neighborhood"),
}


@dataclass(frozen=True)
class SubEgg:
    """A member egg: ``size`` bytes at ``offset`` (from the first byte of the file) of the
    outermost egg ``egg`` (bytes or a path)."""

    egg: bytes | bytearray | memoryview | Path
    offset: int
    size: int

    def open(self) -> EggSource:
        return EggSource.of(self.egg).window(self.offset, self.size)

    def inner(self, offset: int, size: int) -> SubEgg:
        """An egg inside this one, at ``offset`` of this egg's bytes."""
        return SubEgg(self.egg, self.offset + offset, size)


def open_egg(egg: bytes | bytearray | memoryview | str | Path | SubEgg) -> EggSource:
    """A source over ``egg`` (the caller closes it)."""
    return egg.open() if isinstance(egg, SubEgg) else EggSource.of(egg)


def within(
    egg: bytes | bytearray | memoryview | str | Path | SubEgg, offset: int, size: int
) -> SubEgg:
    """The member of ``egg`` stored at ``offset`` (its own bytes), as a :class:`SubEgg`."""
    if isinstance(egg, SubEgg):
        return egg.inner(offset, size)
    return SubEgg(Path(egg) if isinstance(egg, str) else egg, offset, size)


@dataclass(frozen=True)
class Member:
    """One member of a nested egg.

    ``listed``: the rappid of the payload that names this file (None: the payload names none);
    ``rappid``/``variant``: what the member's own manifest says (None: it was not read);
    ``matches``: it is the member the payload names; ``why``: in words, either way;
    ``report``: its own verdict (None: the archive lacks it)."""

    name: str
    listed: str | None
    rappid: str | None
    variant: str | None
    matches: bool
    why: str
    size: int | None = None
    data_offset: int | None = None
    report: EggReport | None = None

    @property
    def verdict(self) -> str:
        if self.report is None:
            return "not in the archive"
        failure = self.report.first_failure
        if failure is not None:
            return f"failed at check {failure[0]} ({failure[1].id})"
        return "verified"


def can_enter(depth: int) -> bool:
    """A member of an egg at ``depth`` can be opened: it would be at most the nesting limit."""
    return depth + 1 <= MAX_NESTING


def _file_name(rappid: Any) -> str | None:
    parts = rapp.rappid_parts(rappid)
    return f"{parts[0]}--{parts[1]}.egg" if parts is not None else None


def members(source: EggSource, report: EggReport, depth: int = 0) -> list[Member] | None:
    """The members of the nested egg ``source`` at ``depth`` (its ``report`` gives the entries),
    or None when it is not a neighborhood or an estate. Each member is verified (on the calling
    thread: a worker's) one level deeper; nothing else is read."""
    manifest = report.manifest
    variant = manifest.get("variant") if isinstance(manifest, dict) else None
    if variant not in MEMBER_KEYS:
        return None
    key, child = MEMBER_KEYS[variant]
    payload = manifest.get("payload")
    named = payload.get(key) if isinstance(payload, dict) else None
    listed: dict[str, str] = {}
    unnamed: list[Any] = []
    for rappid in named if isinstance(named, list) else []:
        name = _file_name(rappid)
        if name is None:
            unnamed.append(rappid)
        else:
            listed.setdefault(name, rappid)
    entries = {e.name: e for e in report.entries[1:]}
    found: list[Member] = []
    for name, entry in entries.items():
        want = listed.get(name)
        if want is None and not name.endswith(".egg"):
            continue
        sub = verify_egg(source.window(entry.data_offset, entry.size), depth=depth + 1)
        own = sub.manifest if isinstance(sub.manifest, dict) else {}
        rappid, kind = own.get("rappid"), own.get("variant")
        rappid = rappid if isinstance(rappid, str) else None
        kind = kind if isinstance(kind, str) else None
        if want is None:
            why = f"payload.{key}[] names no member of this file name"
        elif rappid is None:
            why = "its manifest could not be read: its rappid is unknown"
        elif rappid != want:
            why = f"its rappid is not payload.{key}[]'s {want}"
        elif kind != child:
            why = f"it is a {kind or 'egg of no variant'}, not a {child}"
        else:
            why = f"the {child} payload.{key}[] names"
        matches = want is not None and rappid == want and kind == child
        found.append(Member(name, want, rappid, kind, matches, why, entry.size,
                            entry.data_offset, sub))  # fmt: skip
    for name, want in listed.items():
        if name not in entries:
            why = f"payload.{key}[] names it; the archive has no {name}"
            found.append(Member(name, want, None, None, False, why))
    for rappid in unnamed:
        shown = rappid if isinstance(rappid, str) else repr(rappid)
        found.append(Member(shown[:120], None, None, None, False, "not a valid rappid"))
    return found
