"""Re-validating a big keyed state file: only the entries whose text changed since last time.

Why: agents.json holds every agent under one key. At 50 000 agents decoding it whole is
slow enough to see, on every refresh that changed a single heartbeat (and where no agent has a field
roost does not model, msgspec holds the GIL all that time). Here the file is walked one entry at a
time with the standard library's C JSON scanner (a loop of small calls, so the UI thread gets its
turn), each entry's raw text is compared with the text it had last time, and only new or changed
entries are validated; unchanged ones keep their model objects (so a screen's change-marking finds
them identical at once).

With nothing to compare with (the first copy after a start, or the one read from the disk cache)
the document is validated whole: that is the cheapest exact way to build every entry, and walking
it first would scan each entry into Python objects only to throw them away. Where each entry's
text lies is worked out later, the first time a changed copy is compared with it.

Memory: what is kept is the document once (the bytes the store was given, or the decoded text)
and each entry's span in it, not a copy of every entry's text.

Exactness: the result equals whole-document validation. Anything unusual gives up and validates
the whole document instead, which then decides and reports: text that is not UTF-8 or not
well-formed JSON, a duplicate key, the keyed member missing or not an object, or any entry or
other member that fails validation (so error messages and their JSON paths are exactly the
whole-document ones).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from json.decoder import scanstring
from typing import Any, cast

import msgspec

from tui.network.models import (
    STATE_FILES,
    Agent,
    InvalidDocument,
    decode,
    parse_state,
    replace,
)
from tui.network.state_files import AGENTS

__all__ = ["DELTA_CAP", "KEYED_FILES", "Keyed", "apply_delta", "delta_of", "located", "parse_keyed"]

# file -> (the member holding the keyed entries, the model of one entry)
KEYED_FILES: Mapping[str, tuple[str, type[Any]]] = {AGENTS: ("agents", Agent)}

MIN_SIZE = 1 << 20  # smaller files are validated whole: a few ms, nothing to gain

# JSON's four whitespace characters; the pattern matches the empty string, so always matches
_WHITESPACE = cast(Callable[[str, int], re.Match[str]], re.compile(r"[ \t\n\r]*").match)
_SCAN = json.JSONDecoder().scan_once  # the C scanner: (value, end) of the value at an index


class _Malformed(Exception):
    """The walk met something it does not handle exactly: validate the whole document."""


class Keyed(msgspec.Struct, frozen=True):
    """What a keyed parse leaves for the next one: the document, each entry's span in it and its
    model. ``spans`` is None until a later copy is compared with this one (see the module)."""

    document: bytes | str = ""
    spans: Mapping[str, tuple[int, int]] | None = msgspec.field(default_factory=dict)
    models: Mapping[str, Any] = msgspec.field(default_factory=dict)
    member: str = "agents"

    def entry_texts(self) -> dict[str, str]:
        """Each entry's raw JSON text, in document order (works the spans out if needed)."""
        text, spans = self._located()
        return {key: text[start:end] for key, (start, end) in spans.items()}

    def _located(self) -> tuple[str, Mapping[str, tuple[int, int]]]:
        """The document as text and each entry's span; raises _Malformed when it cannot be
        walked exactly (then it is not compared with)."""
        text = self.document
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError:
                raise _Malformed from None
        if self.spans is not None:
            return text, self.spans
        entries, _ = _layout(text, self.member, lambda _key, start: _value_end(text, start))
        spans = {key: (start, end) for key, start, end in entries}
        if len(spans) != len(entries):
            raise _Malformed  # a duplicate key: its model is the last entry's, not each one's
        return text, spans


def parse_keyed(
    file_name: str,
    data: bytes,
    previous: Keyed | None,
    *,
    min_size: int = MIN_SIZE,
    piece: int | None = None,
) -> tuple[Any, Keyed | None]:
    """Validate ``data`` like :func:`parse_state`, reusing ``previous``'s unchanged entries.

    Returns the model and what the next call needs (``None`` when the file is small or not a
    keyed file). Raises StateValidationError as parse_state does. With no previous copy the
    entries are validated ``piece`` bytes at a time (:func:`_validate_in_pieces`).
    """
    spec = KEYED_FILES.get(file_name)
    if spec is None or len(data) < min_size:
        return parse_state(file_name, data), None
    member, entry_model = spec
    if previous is not None and previous.models:
        try:
            return _parse(file_name, data, member, entry_model, previous)
        except _Malformed:
            pass
    model = _validate_in_pieces(file_name, data, member, entry_model, piece or PIECE)
    if model is None:
        model = parse_state(file_name, data)
    return model, Keyed(data, None, getattr(model, member), member)


def located(keyed: Keyed) -> Keyed:
    """``keyed`` with each entry's span worked out now, which the next comparison would do
    first (a second walk of the whole document). A process that forks many readers of one copy
    (the SSH zygote) does it once before they are forked, rather than each reader on its first
    change. Unchanged when the spans are known or the document cannot be walked exactly."""
    if keyed.spans is not None or not keyed.models:
        return keyed
    try:
        text, spans = keyed._located()
    except _Malformed:
        return keyed
    return Keyed(text, spans, keyed.models, keyed.member)


#: The most entry text a delta carries; a bigger change is read whole by each reader.
DELTA_CAP = 256 * 1024


def delta_of(
    old_models: Mapping[str, Any], new: Keyed, new_model: Any
) -> tuple[dict[str, str], list[str], str] | None:
    """What a reader holding ``old_models`` needs to make the new copy without reading it: the
    text of each entry that is new or changed (new ones last, as in the document), the keys
    removed, and the other members as JSON (the keyed one empty). None when that is not exact
    or not small: the kept entries moved, the new copy's spans are unknown, the other members
    do not come back equal from their JSON, or the text is over :data:`DELTA_CAP`."""
    if not isinstance(new.document, str) or not new.spans:
        return None
    new_models = new.models
    kept = [key for key in old_models if key in new_models]
    new_keys = list(new_models)
    if new_keys[: len(kept)] != kept:
        return None  # entries moved, or a new one came before an old one
    member = new.member
    others = replace(new_model, **{member: {}})
    rest = msgspec.json.encode(others).decode()
    try:
        if decode(type(new_model), rest) != others:
            return None
    except InvalidDocument:
        return None
    text, spans = new.document, new.spans
    changed: dict[str, str] = {}
    size = len(rest)
    for key in new_keys:
        if old_models.get(key) is not new_models[key]:
            start, end = spans[key]
            size += end - start
            if size > DELTA_CAP:
                return None
            changed[key] = text[start:end]
    removed = [key for key in old_models if key not in new_models]
    return changed, removed, rest


def apply_delta(
    file_name: str, keyed: Keyed, changed: Mapping[str, str], removed: list[str], rest: str
) -> tuple[Any, Keyed] | None:
    """The copy :func:`delta_of` describes, made from ``keyed``'s entries: only the changed
    entries and the other members are validated. The result keeps no document (a later copy
    without a delta is validated whole). None when something does not validate (the whole file
    then decides)."""
    spec = KEYED_FILES.get(file_name)
    if spec is None or spec[0] != keyed.member:
        return None
    member, entry_model = spec
    models = dict(keyed.models)
    for key in removed:
        models.pop(key, None)
    try:
        for key, text in changed.items():
            models[key] = decode(entry_model, text)
        document: Any = decode(STATE_FILES[file_name], rest)
    except InvalidDocument:
        return None
    return replace(document, **{member: models}), Keyed("", None, models, member)


# --------------------------------------------------------------------------- first copy: in pieces

PIECE = 1 << 18  # bytes of entries decoded at a time: a short hold of the GIL by msgspec
MAX_MISSES = 4  # pieces that were not cut between two entries, before giving up on the layout
_WS = rb"[ \t\n\r]*"


@lru_cache(maxsize=8)
def _head(member: str) -> re.Pattern[bytes]:
    """``{`` whitespace ``"member"`` ``:`` ``{`` whitespace ``"``: the keyed member first (as the
    service writes it), with the two runs of whitespace that show how the document is laid out."""
    key = re.escape(json.dumps(member).encode())
    return re.compile(
        _WS + rb"\{(" + _WS + rb")" + key + _WS + rb":" + _WS + rb"\{(" + _WS + rb')"'
    )


def _validate_in_pieces(
    file_name: str, data: bytes, member: str, entry_model: type[Any], piece: int = PIECE
) -> Any | None:
    """The first copy of a big keyed file, validated a quarter MiB of entries at a time; None
    when the document is not laid out as expected or anything in it fails (then the caller
    validates it whole, which decides and reports).

    Why: the GIL is let go between pieces (a strict decode of a whole 50k-agent document holds
    it throughout), and a piece with unknown fields is decoded again entry by entry
    (:func:`~tui.network.models.decode`): a piece's worth, never the whole document.

    How the cuts are found: the whitespace around the member's first key shows the layout (two
    spaces of indent and a newline, or none). A cut is tried where an entry's closing brace is
    followed by ``,`` and the next key laid out the same way, or by the member's own closing
    brace. A cut inside an entry (a nested object that happens to look the same in a compact
    layout) leaves the piece unbalanced, so it is not valid JSON: the piece is extended to the
    next cut (at most MAX_MISSES times). A piece that is valid JSON starts between two entries
    (the first after the member's brace, each next one after a valid piece and its comma), so it
    ends between two entries: the pieces are exactly the member's entries, in order.
    """
    head = _head(member).match(data)
    if head is None:
        return None
    between = b"}," + head.group(2) + b'"'  # an entry's end, the comma, the next key's quote
    close = b"}" + head.group(1) + b"}"  # the last entry's end and the member's
    entries_model = dict[str, entry_model]  # type: ignore[valid-type]
    opened = head.start(2) - 1  # the member's "{"
    start = head.end() - 1  # the first key's quote
    size = len(data)
    view = memoryview(data)
    models: dict[str, Any] = {}
    count = misses = 0
    while True:
        search_between, search_close, missed = start + piece, start, False
        while True:
            cut = data.find(between, search_between) if search_between < size else -1
            end = -1
            if cut == -1 or missed:
                # the member's end is looked for only near the end, or after a miss: a piece
                # that runs past it is not valid JSON (one miss, once)
                end = data.find(close, search_close, size if cut == -1 else cut + len(close))
            if end != -1:
                stop, last, search_close = end + 1, True, end + 1
            elif cut != -1:
                stop, last, search_between = cut + 1, False, cut + 1
            else:
                return None
            text = bytearray(b"{")
            text += view[start:stop]
            text += b"}"
            try:
                entries: dict[str, Any] = decode(entries_model, text)
            except InvalidDocument as exc:
                misses += 1
                missed = True
                if not exc.malformed or misses > MAX_MISSES:
                    return None
                continue
            break
        count += len(entries)
        models.update(entries)
        if last:
            break
        start = stop + len(between) - 2
    if len(models) != count:
        return None  # a key in two pieces: the whole-document rules decide
    rest = data[stop + len(close) - 1 :]
    if b"\\" in rest or b'"' + member.encode() + b'"' in rest:
        return None  # perhaps the member a second time
    try:
        document: Any = decode(STATE_FILES[file_name], data[:opened] + b"{}" + rest)
    except InvalidDocument:
        return None
    if getattr(document, member):
        return None
    return replace(document, **{member: models})


def _parse(
    file_name: str, data: bytes, member: str, entry_model: type[Any], previous: Keyed
) -> tuple[Any, Keyed]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Malformed from None
    old_text, old_spans = previous._located()
    old_models = previous.models
    unchanged: set[str] = set()  # keys whose previous text was found again here

    def entry_end(key: str, start: int) -> int:
        span = old_spans.get(key)
        if span is not None:
            old = old_text[span[0] : span[1]]
            # An object or array is self-delimiting: if the text here starts with the entry's
            # previous text, that is the whole value (no scan, no objects built).
            if old[:1] in "{[" and text.startswith(old, start):
                unchanged.add(key)
                return start + len(old)
        unchanged.discard(key)
        return _value_end(text, start)

    entries, others = _layout(text, member, entry_end)
    spans: dict[str, tuple[int, int]] = {}
    models: dict[str, Any] = {}
    for key, value_start, value_end in entries:
        if key in spans:
            raise _Malformed  # a duplicate key: the whole-document rules decide
        spans[key] = (value_start, value_end)
        if key in unchanged:
            models[key] = old_models[key]
            continue
        try:
            models[key] = decode(entry_model, text[value_start:value_end])
        except InvalidDocument:
            raise _Malformed from None  # reported by the whole-document validation
    rest = "{" + ",".join([f"{json.dumps(member)}:{{}}", *(text[a:b] for a, b in others)]) + "}"
    try:
        document: Any = decode(STATE_FILES[file_name], rest)
    except InvalidDocument:
        raise _Malformed from None
    return replace(document, **{member: models}), Keyed(text, spans, models, member)


def _layout(
    text: str, member: str, entry_end: Callable[[str, int], int]
) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """Walk a whole document: (key, value start, value end) of each entry of ``member`` (whose
    ends ``entry_end(key, start)`` finds) and the raw spans of the other top-level members."""
    entries: list[tuple[str, int, int]] = []
    others: list[tuple[int, int]] = []  # raw "key": value spans of the other top-level members
    seen: list[bool] = []

    def top_value_end(key: str, key_start: int, start: int) -> int:
        if key == member:
            if seen or text[start : start + 1] != "{":
                raise _Malformed  # a second keyed member, or not an object
            seen.append(True)
            return _walk(text, start, lambda key, _key_start, at: entry_end(key, at), entries)
        end = _value_end(text, start)
        others.append((key_start, end))
        return end

    start = _WHITESPACE(text, 0).end()
    if text[start : start + 1] != "{":
        raise _Malformed
    end = _walk(text, start, top_value_end, [])
    if not seen or _WHITESPACE(text, end).end() != len(text):
        raise _Malformed
    return entries, others


def _value_end(text: str, start: int) -> int:
    try:
        return _SCAN(text, start)[1]
    except (StopIteration, ValueError, RecursionError):
        raise _Malformed from None


def _walk(
    text: str,
    index: int,
    value_end: Callable[[str, int, int], int],
    spans: list[tuple[str, int, int]],
) -> int:
    """Walk the object at ``text[index] == "{"``: append (key, value start, value end) of each
    member to ``spans`` (``value_end(key, key_start, value_start)`` finds each end) and return
    the index after the closing brace."""
    index = _WHITESPACE(text, index + 1).end()
    if text[index : index + 1] == "}":
        return index + 1
    while True:
        if text[index : index + 1] != '"':
            raise _Malformed
        key_start = index
        try:
            key, index = scanstring(text, index + 1)
        except ValueError:
            raise _Malformed from None
        index = _WHITESPACE(text, index).end()
        if text[index : index + 1] != ":":
            raise _Malformed
        start = _WHITESPACE(text, index + 1).end()
        end = value_end(key, key_start, start)
        spans.append((key, start, end))
        index = _WHITESPACE(text, end).end()
        char = text[index : index + 1]
        if char == "}":
            return index + 1
        if char != ",":
            raise _Malformed
        index = _WHITESPACE(text, index + 1).end()
