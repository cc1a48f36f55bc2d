"""Completion of agent ids, channel slugs, proposal ids and discussion numbers from a snapshot,
and the one check that an id typed for an agent, a channel or a proposal is in the state.

Built once per snapshot (and kind) and searched on every keystroke, so a search never walks the
entries in Python: ids are kept sorted for a prefix search by bisection, and the lines shown
(``id · name``) are joined into one text that ``str.find`` and a compiled pattern scan at C
speed for substring and in-order-letters matches. Every search stops at ``limit`` results.

:meth:`References.unknown` (the form beside its field, `roost action submit` on stderr) says
when an id is not in the state: a warning, never a refusal, since the state can lag the network
(an agent registered a minute ago is not in it yet). No Textual here.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tui.network.state_files import AGENTS, CHANNELS, SEEDS
from tui.network.store import Snapshot
from tui.untrusted import clean, clean_line, truncate

if TYPE_CHECKING:
    from tui.actions.action_spec import ActionSpec

__all__ = [
    "CHECKED_KINDS",
    "KIND_FILES",
    "REFERENCE_KINDS",
    "Completion",
    "ReferenceIndex",
    "References",
    "checked_kinds",
    "reference_warnings",
]

#: What a catalog field's ``refers_to`` may name and this module completes.
REFERENCE_KINDS: tuple[str, ...] = ("agent", "channel", "proposal", "discussion")
#: The kinds an id is checked against the state for (one of them, then several): a discussion
#: number is not, the state names only trending's posts.
CHECKED_KINDS: dict[str, tuple[str, str]] = {
    "agent": ("an agent", "agents"),
    "channel": ("a channel", "channels"),
    "proposal": ("a proposal", "proposals"),
}
#: The state file each checked kind is read from.
KIND_FILES: dict[str, str] = {"agent": AGENTS, "channel": CHANNELS, "proposal": SEEDS}
SHOWN_ID_CHARS = 60  # of an id quoted in a warning

LABEL_CHARS = 60  # of a line's description, after the id
QUERY_CHARS = 64  # longer queries are cut (no id is longer)


@dataclass(frozen=True, slots=True)
class Completion:
    """One candidate: ``key`` is what the field receives, ``label`` (clean) what is shown."""

    key: str
    label: str

    @property
    def line(self) -> str:
        """The key and its label as one clean line for display."""
        shown = clean(self.key)
        return f"{shown} \u00b7 {self.label}" if self.label else shown


class ReferenceIndex:
    """Sorted keys and one searchable text over ``(key, label)`` pairs."""

    def __init__(self, entries: Iterable[tuple[str, str]]) -> None:
        items = sorted(
            ((key.lower(), key, truncate(clean(label), LABEL_CHARS)) for key, label in entries),
            key=lambda item: (item[0], item[1]),
        )
        self._lower = [item[0] for item in items]
        self._keys = [item[1] for item in items]
        self._labels = [item[2] for item in items]
        # one line per entry; keys and labels cannot hold "\n" once cleaned
        lines = [f"{clean(lower)} {label.lower()}" for lower, _k, label in items]
        self._starts: list[int] = []
        offset = 0
        for line in lines:
            self._starts.append(offset)
            offset += len(line) + 1
        self._text = "\n".join(lines)

    def __len__(self) -> int:
        return len(self._keys)

    def _entry(self, index: int) -> Completion:
        return Completion(self._keys[index], self._labels[index])

    def _prefixed(self, needle: str) -> Iterator[int]:
        index = bisect_left(self._lower, needle)
        while index < len(self._lower) and self._lower[index].startswith(needle):
            yield index
            index += 1

    def _line_at(self, offset: int) -> int:
        return bisect_right(self._starts, offset) - 1

    def _containing(self, needle: str) -> Iterator[int]:
        position = self._text.find(needle)
        while position >= 0:
            line = self._line_at(position)
            yield line
            next_line = self._starts[line + 1] if line + 1 < len(self._starts) else len(self._text)
            position = self._text.find(needle, next_line)

    def _in_order(self, needle: str) -> Iterator[int]:
        letters = [re.escape(letter) for letter in needle if not letter.isspace()]
        if not letters:
            return
        pattern = re.compile("[^\n]*?".join(letters))
        match = pattern.search(self._text)
        while match is not None:
            line = self._line_at(match.start())
            yield line
            next_line = self._starts[line + 1] if line + 1 < len(self._starts) else len(self._text)
            match = pattern.search(self._text, next_line)

    def find(self, key: str) -> str | None:
        """``key`` when an entry has it; else an entry's key that differs from it only in
        case (what was meant, most likely); else None."""
        lower = key.lower()
        index = bisect_left(self._lower, lower)
        near: str | None = None
        while index < len(self._lower) and self._lower[index] == lower:
            if self._keys[index] == key:
                return key
            near = near or self._keys[index]
            index += 1
        return near

    def search(self, query: str, limit: int = 8) -> list[Completion]:
        """Up to ``limit`` entries for ``query``: ids starting with it first (in order), then
        lines containing it, then lines holding its letters in order. Empty query: the first
        entries."""
        if limit <= 0:
            return []
        needle = clean(query.strip()).lower().strip()[:QUERY_CHARS]  # ends trimmed as typed
        if not needle:
            return [self._entry(index) for index in range(min(limit, len(self._keys)))]
        found: list[int] = []
        seen: set[int] = set()
        for source in (self._prefixed, self._containing, self._in_order):
            for index in source(needle):
                if index in seen:
                    continue
                seen.add(index)
                found.append(index)
                if len(found) >= limit:
                    return [self._entry(i) for i in found]
        return [self._entry(i) for i in found]


@dataclass
class References:
    """The indexes of one snapshot, each built once, when first asked for (a form builds the
    ones its fields need in a thread, so the first keystroke does not wait for 50k agents)."""

    snapshot: Snapshot
    _built: dict[str, ReferenceIndex | None] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def index(self, kind: str) -> ReferenceIndex | None:
        """The index of ``kind`` (``agent``, ``channel``, ``proposal``, ``discussion``), or
        None when the snapshot has nothing of that kind loaded or the kind is unknown."""
        if kind not in REFERENCE_KINDS:
            return None
        with self._lock:
            if kind not in self._built:
                entries = self._entries(kind)
                self._built[kind] = ReferenceIndex(entries) if entries is not None else None
            return self._built[kind]

    def built(self, kind: str) -> bool:
        """Whether :meth:`index` answers ``kind`` without building anything."""
        return kind in self._built

    def search(self, kind: str, query: str, limit: int = 8) -> list[Completion]:
        index = self.index(kind)
        return index.search(query, limit) if index is not None else []

    def unknown(self, kind: str, value: object) -> str | None:
        """Why ``value`` (an id, or a list of ids) is not in the state as a ``kind`` (``agent``,
        ``channel``, ``proposal``), in words to show beside it; None when every id is there,
        when there is nothing to check, or when the state cannot tell (its file is not loaded).
        Builds the kind's index when it is not built yet (a form asks once it is)."""
        if kind not in CHECKED_KINDS:
            return None
        ids = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        ids = [item.strip() for item in ids if isinstance(item, str) and item.strip()]
        index = self.index(kind) if ids else None
        if index is None:
            return None
        one, many = CHECKED_KINDS[kind]
        missing: list[str] = []
        meant: list[str] = []
        for item in dict.fromkeys(ids):
            found = index.find(item)
            if found == item:
                continue
            missing.append(clean_line(item, SHOWN_ID_CHARS))
            if found is not None:
                meant.append(clean_line(found, SHOWN_ID_CHARS))
        if not missing:
            return None
        hint = f" (did you mean {', '.join(meant)}?)" if meant else ""
        if isinstance(value, str):
            return f"not {one} in this network's state{hint}"
        what = one if len(missing) == 1 else many
        return f"not {what} in this network's state: {', '.join(missing)}{hint}"

    def _entries(self, kind: str) -> list[tuple[str, str]] | None:
        snapshot = self.snapshot
        if kind == "agent":
            agents = snapshot.agents
            if agents is None:
                return None
            return [(agent_id, agent.name or "") for agent_id, agent in agents.agents.items()]
        if kind == "channel":
            channels = snapshot.channels
            if channels is None:
                return None
            return [(slug, channel.name or "") for slug, channel in channels.channels.items()]
        if kind == "proposal":
            seeds = snapshot.seeds
            if seeds is None or seeds.proposals is None:  # None: a deployment without them
                return None
            return [(proposal.id, proposal.text or "") for proposal in seeds.proposals]
        trending = snapshot.trending
        if trending is None:
            return None
        return [
            (str(post.number), post.title or "")
            for post in trending.trending
            if post.number is not None
        ]


def checked_kinds(spec: ActionSpec, payload: Mapping[str, object]) -> list[str]:
    """The kinds :func:`reference_warnings` would check ``payload``'s fields against."""
    found = (f.refers_to for f in spec.fields if f.name in payload)
    return sorted({kind for kind in found if kind in CHECKED_KINDS})


def reference_warnings(
    spec: ActionSpec, payload: Mapping[str, object], references: References
) -> dict[str, str]:
    """Each field of ``payload`` whose id is not in the state, and why (:meth:`References.unknown`).
    `roost action submit` says them on stderr; the form shows each beside its field."""
    warnings: dict[str, str] = {}
    for field_spec in spec.fields:
        kind = field_spec.refers_to
        if kind in CHECKED_KINDS and field_spec.name in payload:
            said = references.unknown(kind, payload[field_spec.name])
            if said is not None:
                warnings[field_spec.name] = said
    return warnings
