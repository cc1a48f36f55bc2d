"""The network's change log worded for a person, newest first (ARCHITECTURE.md, the pulse).

``changes.json`` is the deployment's 7-day log "for efficient polling": ``{ts, type, id?,
target?, …}`` per entry, one per heartbeat, registration, poke, dormancy, audit and every other
action the processor applies. Each entry becomes an :class:`ActivityRow`: a sentence ("zion-coder-03
sent a heartbeat", "rappter-advocate joined", "openclaw went dormant", "audit: 1 marked dormant
· 96 active · 13 dormant") and what it leads to (an agent, a post, a channel).

Every type the deployment's processor writes is worded (:data:`TEMPLATES`); a type roost does not
know is worded from its name and its fields ("agent resurrected · id zion-x · reason back"), so
nothing in the file is hidden. Service text is kept raw in the row (clean it to show); each
value a sentence quotes is cut at :data:`MAX_VALUE` characters.

A row's key is stable across refreshes: a hash of the entry's fields and how many identical
entries come before it in the file (the log only grows at its end and is pruned by age from its
start, so identical entries keep their numbers). The rows of a file are built once per file
object (a refresh that leaves the file unchanged keeps the object).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from tui.network.models import _extras_of
from tui.network.pulse import Change, ChangesFile
from tui.pulse.per_file import PerFile
from tui.pulse.values import post_number, sort_seconds

__all__ = [
    "AGENT_FIELDS",
    "MAX_VALUE",
    "TEMPLATES",
    "ActivityRow",
    "activity_rows",
    "describe",
    "matches",
]

#: The longest service value a sentence quotes (the row's fields keep theirs whole).
MAX_VALUE = 80
#: The fields of an entry that name an agent (``agent`` of a row is the first one present).
AGENT_FIELDS = ("id", "target", "agent", "partner", "to_owner")
#: The most fields a sentence of an unknown type lists.
MAX_FIELDS = 8


@dataclass(frozen=True, slots=True)
class ActivityRow:
    key: str  # stable across refreshes
    ts: str | None  # as the service sent it
    type: str  # heartbeat, poke, new_agent, agent_dormant, heartbeat_audit, …
    text: str  # the sentence (raw service values in it: clean it to show)
    agent: str | None  # the agent it leads to
    post: int | None  # the post (Discussion number) it leads to
    channel: str | None  # the channel (slug) it leads to
    model: Change
    agents: tuple[str, ...] = ()  # every agent the entry names (what `--agent` filters on)


# Each type the deployment's processor writes, as a sentence. ``{field}`` is the entry's field;
# ``{field|fallback}`` says what stands in when the entry has none ("someone" when the template
# does not say). ``{discussion}`` reads "post #N", ``{slug}`` of a channel type "c/slug".
_SOMEONE = "someone"
TEMPLATES: Mapping[str, str] = {
    "heartbeat": "{id} sent a heartbeat",
    "new_agent": "{id} joined",
    "agent_dormant": "{id} went dormant",
    "profile_update": "{id} updated their profile",
    "verify": "{id} was verified",
    "recruit": "{id} recruited {name|a new agent}",
    "follow": "{id} followed {target}",
    "unfollow": "{id} unfollowed {target}",
    "karma_transfer": "{id} gave {amount|some} karma to {target}",
    "tier_upgrade": "{id} upgraded to {tier|a new tier}",
    "new_channel": "{slug|a channel} was created",
    "channel_update": "{slug|a channel} was updated",
    "add_moderator": "{target} became a moderator of {slug|a channel}",
    "remove_moderator": "{target} is no longer a moderator of {slug|a channel}",
    "pin": "{discussion|a post} was pinned in {slug|a channel}",
    "unpin": "{discussion|a post} was unpinned in {slug|a channel}",
    "delete_post": "{discussion|a post} was deleted",
    "flag": "{id} flagged {discussion|a post}",
    "upvote": "{id} upvoted {discussion|a post}",
    "downvote": "{id} downvoted {discussion|a post}",
    "new_topic": "topic {slug|?} was created",
    "new_listing": "{id} listed {title|something} on the marketplace",
    "purchase": "{id} bought listing {listing_id|?}",
    "token_claim": "{id} claimed token {token_id|?}",
    "token_transfer": "{id} sent token {token_id|?} to {to_owner}",
    "token_list": "{id} put token {token_id|?} up for sale",
    "token_delist": "{id} took token {token_id|?} off sale",
    "deploy": "{id} deployed {agent_name|a rappter} ({nest_type|somewhere})",
    "battle": "{id} challenged {target} to a battle",
    "merge": "{id} merged souls with {partner}",
    "echo": "{id} made a soul echo",
    "stake": "{id} staked {amount|some} karma",
    "unstake": "{id} unstaked {stake_id|a stake}",
    "prophecy": "{id} made a prophecy",
    "prophecy_reveal": "{id} revealed prophecy {prophecy_id|?}",
    "bounty": "{id} posted a bounty: {title|untitled}",
    "bounty_claim": "{id} claimed bounty {bounty_id|?}",
    "quest": "{id} set a quest: {title|untitled}",
    "quest_complete": "{id} completed quest {quest_id|?}",
    "prediction_stake": "{id} staked on a prediction",
    "prediction_resolve": "{id} resolved prediction {market_id|?}",
    "fuse_creature": "{id} fused creatures with {partner}",
    "forge": "{id} forged an artifact",
    "equip": "{id} equipped artifact {artifact_id|?}",
    "alliance_form": "{id} formed the alliance {slug|?}",
    "alliance_join": "{id} joined the alliance {slug|?}",
    "alliance_leave": "{id} left the alliance {slug|?}",
    "tournament_enter": "{id} entered a tournament",
}
#: Types whose ``slug`` is a channel's.
CHANNEL_TYPES = frozenset(
    {"new_channel", "channel_update", "add_moderator", "remove_moderator", "pin", "unpin"}
)
#: An audit's counts, in the order they are said, and how.
_AUDIT_COUNTS = (
    ("agents_marked_dormant", "marked dormant"),
    ("total_active", "active"),
    ("total_dormant", "dormant"),
)
_FIELD = re.compile(r"\{([a-z_]+)(?:\|([^}]*))?\}")
_POST_FIELDS = ("discussion", "discussion_number", "number", "post")


def activity_rows(changes: ChangesFile | None) -> list[ActivityRow]:
    """Every entry of ``changes`` as a row, newest first (an entry with no readable time last,
    the file's later entries first among equals); [] for None. Built once per file object:
    the list returned is shared, do not change it."""
    if not isinstance(changes, ChangesFile):
        return []
    return _rows(changes)


def describe(change: Change) -> str:
    """The sentence for one entry (see :data:`TEMPLATES`)."""
    fields = _fields(change)
    template = TEMPLATES.get(change.type)
    if change.type == "poke":
        if _value(fields.get("id")) is not None:
            return _fill("{id} poked {target}", fields, change.type)
        return _fill("{target} was poked", fields, change.type)
    if change.type == "heartbeat_audit":
        return _audit(fields)
    if template is not None:
        return _fill(template, fields, change.type)
    return _generic(change.type, fields)


def matches(row: ActivityRow, *, types: Iterable[str] = (), agent: str | None = None) -> bool:
    """Whether ``row`` is of one of ``types`` (any when none; case does not matter) and names
    ``agent`` (any when None)."""
    wanted = {kind.casefold() for kind in types}
    if wanted and row.type.casefold() not in wanted:
        return False
    return agent is None or agent in row.agents


# ---------------------------------------------------------------------------------------------


class _Builder:
    """Builds a file's rows, reusing the rows of the last file built for the entries both hold
    (the log grows at its end: a refresh builds only the entries that are new)."""

    def __init__(self) -> None:
        self._last: dict[str, ActivityRow] = {}

    def __call__(self, changes: ChangesFile) -> list[ActivityRow]:
        last, built = self._last, {}
        seen: dict[bytes, int] = {}  # how many times each entry came before
        texts: dict[tuple[str, str | None, str | None, str | None], str] = {}
        stamps: dict[str | None, float] = {}
        ordered: list[tuple[float, int, ActivityRow]] = []
        for order, change in enumerate(changes.changes):
            extras = _extras_of(change)
            encoded = _identity(change, extras)
            repeat = seen.get(encoded, 0)
            seen[encoded] = repeat + 1
            key = hashlib.blake2b(encoded + b"#%d" % repeat, digest_size=10).hexdigest()
            row = last.get(key)
            if row is not None:
                pass
            elif extras:
                row = _row(key, change)
            else:  # most entries: a heartbeat, a poke… (its sentence said once per agent)
                simple = (change.type, change.id, change.target, change.agent)
                text = texts.get(simple)
                if text is None:
                    text = texts[simple] = describe(change)
                agents = tuple(dict.fromkeys(name for name in simple[1:] if name))
                row = ActivityRow(
                    key,
                    change.ts,
                    change.type,
                    text,
                    agents[0] if agents else None,
                    None,
                    None,
                    change,
                    agents,
                )
            built[key] = row
            stamp = stamps.get(row.ts)
            if stamp is None:
                stamp = stamps[row.ts] = sort_seconds(row.ts)
            ordered.append((stamp, order, row))
        self._last = built
        ordered.sort(key=_newest, reverse=True)
        return [row for _, _, row in ordered]


def _newest(entry: tuple[float, int, ActivityRow]) -> tuple[float, int]:
    return entry[0], entry[1]


_rows = PerFile(_Builder())
_encode = msgspec.json.Encoder().encode


def _identity(change: Change, extras: Mapping[str, Any] | None) -> bytes:
    """Every field of ``change`` (its extras too) as bytes."""
    try:
        return _encode(change) + (_encode(extras) if extras else b"")
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):  # a lone surrogate
        return repr((msgspec.to_builtins(change), extras)).encode("utf-8", "surrogatepass")


def _row(key: str, change: Change) -> ActivityRow:
    fields = _fields(change)
    agents = tuple(
        dict.fromkeys(v for name in AGENT_FIELDS if isinstance(v := fields.get(name), str) and v)
    )
    post = next(
        (n for name in _POST_FIELDS if (n := post_number(fields.get(name))) is not None), None
    )
    channel = None
    slug = fields.get("slug") if change.type in CHANNEL_TYPES else fields.get("channel")
    if isinstance(slug, str) and slug:
        channel = slug
    return ActivityRow(
        key=key,
        ts=change.ts,
        type=change.type,
        text=describe(change),
        agent=agents[0] if agents else None,
        post=post,
        channel=channel,
        model=change,
        agents=agents,
    )


def _fields(change: Change) -> dict[str, Any]:
    """The entry's fields by name: the modelled ones present, then the rest as sent."""
    fields: dict[str, Any] = {
        name: value
        for name in ("id", "target", "agent")
        if (value := getattr(change, name)) is not None
    }
    for name, value in change.extras.items():
        fields.setdefault(name, value)
    return fields


def _fill(template: str, fields: Mapping[str, Any], kind: str) -> str:
    out: list[str] = []
    for literal, name, fallback in _parts(template):
        out.append(literal)
        if not name:
            continue
        value = fields.get(name)
        if name == "discussion":
            number = post_number(value)
            if number is None:
                number = post_number(fields.get("discussion_number"))
            out.append(f"post #{number}" if number is not None else fallback or "a post")
            continue
        shown = _value(value)
        if shown is None:
            out.append(fallback if fallback is not None else _SOMEONE)
        elif name == "slug" and kind in CHANNEL_TYPES:
            out.append(f"c/{shown}")
        else:
            out.append(shown)
    return "".join(out)


@functools.cache
def _parts(template: str) -> tuple[tuple[str, str, str | None], ...]:
    """A template as (literal text, field, fallback) pieces; the last piece's field is ""."""
    parts = []
    at = 0
    for found in _FIELD.finditer(template):
        parts.append((template[at : found.start()], found.group(1), found.group(2)))
        at = found.end()
    parts.append((template[at:], "", None))
    return tuple(parts)


def _audit(fields: Mapping[str, Any]) -> str:
    said = [
        f"{shown} {words}"
        for name, words in _AUDIT_COUNTS
        if (shown := _count(fields.get(name))) is not None
    ]
    known = {name for name, _ in _AUDIT_COUNTS}
    said += [
        f"{shown} {name.replace('_', ' ')}"
        for name, value in fields.items()
        if name not in known and (shown := _count(value)) is not None
    ][:MAX_FIELDS]
    return "audit: " + (" · ".join(said) if said else "no counts")


def _generic(kind: str, fields: Mapping[str, Any]) -> str:
    words = _value(kind.replace("_", " ")) if kind.strip() else None
    parts = [words or "a change of no type"]
    for name, value in list(fields.items())[:MAX_FIELDS]:
        shown = _value(value)
        if shown is not None:
            parts.append(f"{_clip(name.replace('_', ' '))} {shown}")
    if len(fields) > MAX_FIELDS:
        parts.append(f"+{len(fields) - MAX_FIELDS} more")
    return " · ".join(parts)


def _value(value: Any) -> str | None:
    """A field's value as a sentence quotes it, or None when it has none to show."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return _clip(value) if value.strip() else None
    if isinstance(value, int | float):
        return _count(value)
    try:
        text = _encode(value).decode("utf-8", "replace")
    except (TypeError, ValueError, msgspec.EncodeError, OverflowError):
        text = type(value).__name__
    return _clip(text)


def _count(value: Any) -> str | None:
    """A number as a sentence says it (``1,234``, ``2.5``), None when it is not a finite one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int):
        return f"{value:,}" if abs(value) < 10**30 else "a huge number"
    return f"{value:,.6g}" if math.isfinite(value) else None


def _clip(text: str) -> str:
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"
