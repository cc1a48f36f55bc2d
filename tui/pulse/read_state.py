"""What this person has read of an inbox, and what roost has already announced, kept on this
machine per service (ARCHITECTURE.md, the pulse). roost cannot mark a notification read on the
deployment: "read" is remembered here.

One file per service, ``$XDG_DATA_HOME/roost/read/<service>.json``
(:func:`tui.locations.read_state_root`; the demo network's world has its own, so a reset world
starts unread)::

    {"format": "roost-read/1", "read": ["<key>", …], "told": ["<key>", …]}

``read`` holds the keys of the items marked read (:attr:`tui.pulse.inbox.InboxItem.key`),
``told`` those already announced (a toast, the bell: once, ever, even across restarts). Each
list keeps the :data:`MAX_KEYS` most recently added keys: an inbox holds far fewer items than
that, and what falls off is an item old enough to have left the deployment's files (it keeps 30
days of notifications).

The file is as untrusted as anything read back from disk: it is read only when it is a regular
file (never through a link, never a FIFO) of at most :data:`FILE_LIMIT` bytes, and it must be
exactly the shape above. A damaged or hostile file is ignored and replaced by a good one, and
:attr:`ReadState.note` says so once; it is never an error. Writes are atomic, and each merges in
what another roost process (a second dashboard, `roost inbox --mark-read`) wrote meanwhile.
A disk that refuses a write only means the markers live in memory until roost ends (the note
says so).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from tui.locations import read_state_root
from tui.network.disk_cache import atomic_write, service_folder_name
from tui.strict_json import Unreadable, read_json_file
from tui.untrusted import clean_line

if TYPE_CHECKING:
    from tui.service import Service

__all__ = ["FILE_LIMIT", "FORMAT", "MAX_KEYS", "ReadState", "service_file_name"]

FORMAT = "roost-read/1"
#: The most keys each list keeps (the most recently added ones).
MAX_KEYS = 10_000
#: The largest file read back: two full lists with room to spare.
FILE_LIMIT = 2 << 20
_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


class _Item(Protocol):
    @property
    def key(self) -> str: ...

    @property
    def unread(self) -> bool: ...


T = TypeVar("T", bound=_Item)


class ReadState:
    """The read markers of one service (``path`` None: kept in memory only).

    Keys are the items' own (short strings of letters, digits, ``-`` and ``_``); anything else
    given to :meth:`mark_read` is ignored. Use it from one thread (the event loop): each change
    is written at once, a small file.
    """

    def __init__(self, path: Path | None, *, limit: int = MAX_KEYS):
        self.path = path
        self.limit = max(1, limit)
        #: Something worth saying once (a damaged file replaced, a disk that refused a write);
        #: whoever shows it sets it back to None.
        self.note: str | None = None
        self._read: dict[str, None] = {}
        self._told: dict[str, None] = {}
        if path is not None:
            self._load()

    @classmethod
    def for_service(cls, service: Service, root: Path | None = None) -> ReadState:
        """The markers of ``service``, in :func:`tui.locations.read_state_root` (or ``root``)."""

        folder = root if root is not None else read_state_root()
        run_id = service.run_id if service.demo else None
        return cls(folder / service_file_name(service.settings.state_url, run_id))

    # ------------------------------------------------------------------ what is read

    def is_read(self, key: str) -> bool:
        return key in self._read

    def mark_read(self, keys: Iterable[str]) -> None:
        """Remember ``keys`` as read (kept on disk at once)."""
        if _add(self._read, keys):
            self._save()

    def mark_all(self, items: Iterable[_Item]) -> None:
        """Mark every item of ``items`` read (`R`)."""
        self.mark_read([item.key for item in items])

    def unread_count(self, items: Iterable[_Item]) -> int:
        """How many of ``items`` are unread now (an item listed unread and marked read since
        counts as read)."""
        return sum(1 for item in items if item.unread and item.key not in self._read)

    def new_since_told(self, items: Iterable[T]) -> list[T]:
        """The unread items never announced before, in their order; they are recorded as
        announced (kept on disk at once), so each is announced once, ever."""
        new = [
            item
            for item in items
            if item.unread and item.key not in self._read and item.key not in self._told
        ]
        if new and _add(self._told, [item.key for item in new]):
            self._save()
        return new

    # ------------------------------------------------------------------ the file

    def _load(self) -> None:
        assert self.path is not None
        try:
            read, told = _parse(read_json_file(self.path, limit=FILE_LIMIT))
        except FileNotFoundError:
            return
        except (Unreadable, OSError, ValueError) as exc:
            why = clean_line(str(exc) or type(exc).__name__, 200)
            self.note = f"the read markers in {self.path} were unreadable ({why}): started afresh"
            self._write()
            return
        self._read, self._told = _last(read, self.limit), _last(told, self.limit)

    def _save(self) -> None:
        """Write the markers, with what another process wrote meanwhile merged in."""
        if self.path is None:
            return
        with contextlib.suppress(FileNotFoundError, Unreadable, OSError, ValueError):
            read, told = _parse(read_json_file(self.path, limit=FILE_LIMIT))
            # theirs first: what this process added last stays the most recent
            self._read = _last(_merged(read, self._read), self.limit)
            self._told = _last(_merged(told, self._told), self.limit)
        self._read, self._told = _last(self._read, self.limit), _last(self._told, self.limit)
        self._write()

    def _write(self) -> None:
        assert self.path is not None
        document = {"format": FORMAT, "read": list(self._read), "told": list(self._told)}
        data = json.dumps(document, separators=(",", ":")).encode("ascii")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, data)
        except OSError as exc:
            why = clean_line(exc.strerror or str(exc), 200)
            self.note = (
                f"the read markers could not be kept in {self.path} ({why}): they last until "
                "roost ends"
            )


def service_file_name(state_url: str, run_id: str | None = None) -> str:
    """``raw.example.org-1a2b3c4d.json``: the service's own folder name (as its disk cache's),
    and the demo world's identity when there is one."""

    name = service_folder_name(state_url)
    if run_id:
        name += "-" + _SAFE.sub("_", run_id)[:40]
    return name + ".json"


def _parse(document: Any) -> tuple[list[str], list[str]]:
    """The two lists of a read-markers document; ValueError says what is wrong with it."""
    if not isinstance(document, Mapping) or document.get("format") != FORMAT:
        raise ValueError("not a read-markers file")
    if set(document) - {"format", "read", "told"}:
        raise ValueError("unknown members")
    lists = []
    for name in ("read", "told"):
        keys = document.get(name, [])
        if not isinstance(keys, list) or not all(
            isinstance(key, str) and _KEY.fullmatch(key) for key in keys
        ):
            raise ValueError(f"{name!r} is not a list of keys")
        lists.append(keys)
    return lists[0], lists[1]


def _add(keys: dict[str, None], new: Iterable[str]) -> bool:
    """Add ``new`` to ``keys`` as the most recent (moved to the end if there); whether any key
    was not there before."""
    added = False
    for key in new:
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            continue
        if key in keys:
            del keys[key]
        else:
            added = True
        keys[key] = None
    return added


def _merged(theirs: list[str], ours: dict[str, None]) -> dict[str, None]:
    merged = dict.fromkeys(theirs)
    _add(merged, ours)
    return merged


def _last(keys: Iterable[str], limit: int) -> dict[str, None]:
    """The last ``limit`` of ``keys``, in order."""
    kept = list(dict.fromkeys(keys))
    return dict.fromkeys(kept[-limit:])
