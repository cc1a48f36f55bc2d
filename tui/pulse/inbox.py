"""An agent's inbox: its notifications and the pokes aimed at it, newest first (ARCHITECTURE.md,
the pulse).

Two files feed it. ``notifications.json`` says what happened to each agent (a poke, a follow, a
mention, media verified…); ``pokes.json`` says who poked whom, why (a poke pin's Discussion, a
place) and whether it was answered. The deployment writes a poke to both: a ``poke``
notification for the target and a pokes entry. The inbox lists such a poke once:

* a poke's identity is (sender, target, timestamp, text) — the notification's ``from_agent``,
  ``agent_id``, ``timestamp`` and ``detail``; the poke's ``from_agent``, ``target_agent``,
  ``timestamp`` and ``message`` — and an item's :attr:`InboxItem.key` is a hash of it, so the
  notification and the pokes entry of one poke are one item (on the real deployment every poke
  notification has its pokes entry), shown with the poke's context (its discussion, its place,
  resolved or not) and the notification's ``read``;
* any other notification's identity is (agent, type, sender, timestamp, detail);
* entries that are the same in every field (the real files hold some twice or three times) are
  one item; :attr:`InboxItem.copies` says how many there were.

A key depends only on those fields, never on the file's order or on which of the two files is
published, so what this person marked read stays read across refreshes and restarts
(:class:`~tui.pulse.read_state.ReadState`). An agent's entries are found by one pass in C over
each file the first time that agent is asked for, and held for the file object (a refresh that
leaves the file unchanged keeps the object): 200,000 notifications and 150,000 pokes cost tens
of milliseconds the first time, nothing after.

All text is the service's: an item holds it raw; clean it to show it (:mod:`tui.untrusted`).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from tui.network.pulse import Notification, NotificationsFile, Poke, PokesFile
from tui.pulse.per_file import PerFile
from tui.pulse.read_state import ReadState
from tui.pulse.values import post_number, sort_seconds

if TYPE_CHECKING:
    from tui.network.snapshot import Snapshot

__all__ = [
    "InboxItem",
    "ReadState",
    "inbox_for",
    "place_text",
    "poke_key",
    "unread_items",
]

T = TypeVar("T")

#: The longest text an item keeps (a hostile detail can be megabytes long).
MAX_TEXT = 2000


@dataclass(frozen=True, slots=True)
class InboxItem:
    """One thing waiting for the agent (see the module docstring)."""

    key: str  # stable across refreshes: a hash of the fields that make the item what it is
    kind: Literal["notification", "poke"]  # "poke": from pokes.json (with its context)
    type: str  # the notification's type ("poke", "follow", "media_verified"…); "poke" for a poke
    sender: str | None  # from_agent
    text: str  # the detail or message (raw service text: clean it to show)
    timestamp: str | None  # as the service sent it
    discussion: int | None  # the Discussion a poke pin (or a notification) names
    url: str | None  # the URL its context names (raw: check it before opening)
    place: str | None  # a poke's location as text ("CERN, Geneva (46.2044, 6.0536)")
    resolved: bool | None  # a poke's: answered or not (None: the deployment does not say)
    unread: bool  # neither marked read here nor read on the deployment
    model: Any  # the Poke (when pokes.json has it) or the Notification it came from
    copies: int = 1  # how many identical entries the files hold for it


def inbox_for(agent: str, snapshot: Snapshot, read: ReadState) -> list[InboxItem]:
    """``agent``'s notifications and the pokes aimed at it, newest first (an entry with no
    readable time last, the files' later entries first among equals); a poke that also has a
    ``poke`` notification is listed once (see the module docstring). Never raises for what the
    files hold; an empty list when neither file is read."""
    found: dict[str, _Found] = {}
    notifications = snapshot.notifications
    if isinstance(notifications, NotificationsFile):
        held = _by_agent(notifications)
        for order, notification in _entries_of(
            notifications.notifications, "agent_id", agent, held
        ):
            key = _notification_key(notification)
            _add(found, key, order, notification=notification)
    pokes = snapshot.pokes
    if isinstance(pokes, PokesFile):
        held_pokes = _by_target(pokes)
        for order, poke in _entries_of(pokes.pokes, "target_agent", agent, held_pokes):
            # after every notification: a pokes entry's place in the order is its own
            _add(found, poke_key(poke), (1 << 40) + order, poke=poke)
    items = [_item(key, entry, read) for key, entry in found.items()]
    items.sort(key=lambda item: found[item.key].sort_key, reverse=True)
    return items


def poke_key(poke: Poke) -> str:
    """The key of the item a poke makes (the same as its ``poke`` notification's)."""
    return _key("poke", poke.from_agent, poke.target_agent, poke.timestamp, poke.message or "")


def place_text(location: Any) -> str | None:
    """A poke's location as text: ``{lat, lon, name}`` → ``"CERN, Geneva (46.2044, 6.0536)"``,
    a name as it is; None when there is nothing to show. Raw service text: clean it to show."""
    if isinstance(location, str):
        return location[:MAX_TEXT] or None
    if not isinstance(location, Mapping):
        return None
    name = location.get("name")
    name = name[:MAX_TEXT] if isinstance(name, str) and name.strip() else None
    lat, lon = _coordinate(location.get("lat")), _coordinate(location.get("lon"))
    where = f"({lat}, {lon})" if lat is not None and lon is not None else None
    if name and where:
        return f"{name} {where}"
    return name or where


# ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Found:
    """What the files hold for one key: the notification and the poke, and how many copies."""

    sort_key: tuple[float, int]
    notification: Notification | None = None
    poke: Poke | None = None
    notification_copies: int = 0
    poke_copies: int = 0


def _add(
    found: dict[str, _Found],
    key: str,
    order: int,
    *,
    notification: Notification | None = None,
    poke: Poke | None = None,
) -> None:
    model = notification if notification is not None else poke
    assert model is not None
    stamp = sort_seconds(model.timestamp)
    entry = found.get(key)
    if entry is None:
        entry = found[key] = _Found((stamp, order))
    else:
        entry.sort_key = max(entry.sort_key, (stamp, order))
    if notification is not None:
        entry.notification = entry.notification or notification
        entry.notification_copies += 1
    if poke is not None:
        entry.poke = entry.poke or poke
        entry.poke_copies += 1


def _item(key: str, entry: _Found, read: ReadState) -> InboxItem:
    notification, poke = entry.notification, entry.poke
    read_there = bool(notification is not None and notification.read is True)
    unread = not read_there and not read.is_read(key)
    copies = max(entry.notification_copies, entry.poke_copies, 1)
    if poke is not None:
        context = poke.context
        return InboxItem(
            key=key,
            kind="poke",
            type="poke",
            sender=poke.from_agent or None,
            text=_text(poke.message),
            timestamp=poke.timestamp,
            discussion=post_number(context.discussion) if context is not None else None,
            url=_string(context.url) if context is not None else None,
            place=place_text(context.location) if context is not None else None,
            resolved=poke.resolved if isinstance(poke.resolved, bool) else None,
            unread=unread,
            model=poke,
            copies=copies,
        )
    assert notification is not None
    extras = notification.extras
    return InboxItem(
        key=key,
        kind="notification",
        type=notification.type,
        sender=notification.from_agent or None,
        text=_text(notification.detail),
        timestamp=notification.timestamp,
        discussion=post_number(extras.get("discussion", extras.get("discussion_number"))),
        url=_string(extras.get("url")),
        place=None,
        resolved=None,
        unread=unread,
        model=notification,
        copies=copies,
    )


def _notification_key(notification: Notification) -> str:
    if notification.type == "poke":
        return _key(
            "poke",
            notification.from_agent or "",
            notification.agent_id,
            notification.timestamp,
            notification.detail or "",
        )
    return _key(
        "notification",
        notification.agent_id,
        notification.type,
        notification.from_agent,
        notification.timestamp,
        notification.detail,
    )


def _key(*fields: str | None) -> str:
    """A short stable hash of ``fields`` (a separator no field can hold between them)."""
    joined = "\x00".join("\x01" if field is None else field for field in fields)
    data = joined.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=10).hexdigest()


def _entries_of(entries: tuple[T, ...], field: str, agent: str, held: dict) -> list[tuple[int, T]]:
    """The entries (with their places in the file) whose ``field`` is ``agent``: found by one
    pass in C over the file the first time this agent is asked for, then held for the file."""
    found = held.get(agent)
    if found is None:
        wanted = map(agent.__eq__, map(operator.attrgetter(field), entries))
        found = held[agent] = list(itertools.compress(enumerate(entries), wanted))
    return found


def _new_held(_file: object) -> dict[str, list[tuple[int, Any]]]:
    return {}


# One dictionary per file object: agent → its entries, filled as agents are asked for.
_by_agent: PerFile[NotificationsFile, dict[str, list[tuple[int, Notification]]]] = PerFile(
    _new_held
)
_by_target: PerFile[PokesFile, dict[str, list[tuple[int, Poke]]]] = PerFile(_new_held)


def _text(value: Any) -> str:
    return value[:MAX_TEXT] if isinstance(value, str) else ""


def _string(value: Any) -> str | None:
    return value[:MAX_TEXT] if isinstance(value, str) and value else None


def _coordinate(value: Any) -> str | None:
    """A latitude or longitude as text: a finite number of degrees, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if abs(value) > 360 or not math.isfinite(value):
        return None
    return f"{value:g}"


def unread_items(items: Iterable[InboxItem], read: ReadState) -> list[InboxItem]:
    """The items still unread: neither read on the deployment nor marked read since they were
    listed."""
    return [item for item in items if item.unread and not read.is_read(item.key)]
