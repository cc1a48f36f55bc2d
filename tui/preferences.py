"""What the dashboard remembers between runs, per profile: the theme, the refresh interval, each
table's sort and hidden columns, and the last tab (ARCHITECTURE.md, preferences that stay).

One small file, ``$XDG_STATE_HOME/roost/preferences.json`` (:func:`preferences_path`)::

    {"format": "roost-preferences/1",
     "profiles": {"work": {"theme": "nord", "interval": 30.0, "tab": "posts",
                           "sorts": {"agents": ["karma", true]},
                           "hidden": {"agents": ["framework", "bio"]}}}}

The profile with no name is ``""``. A setting given in the config file, the environment or a
flag always wins over what was remembered (:func:`apply_to`'s callers check ``Settings.given``).
The file is read back as untrusted: a regular file of at most :data:`FILE_LIMIT` bytes, exactly
this shape, each value bounded; a damaged one is set aside (``.damaged``) and replaced, and
:attr:`Preferences.note` says so once; never an error. Writes are atomic. `roost
--reset-preferences` forgets them all.

Served over SSH a guest's session remembers nothing (guests share one folder on the server);
a keyed user's session keeps its file in that user's own folder on the server.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tui.network.disk_cache import atomic_write
from tui.strict_json import Unreadable, read_json_file
from tui.untrusted import clean_line

__all__ = [
    "FILE_LIMIT",
    "FORMAT",
    "Preferences",
    "Remembered",
    "preferences_path",
    "reset_preferences",
    "sort_key",
]

FORMAT = "roost-preferences/1"
FILE_LIMIT = 256 << 10
FILE_NAME = "preferences.json"
_NAME = re.compile(r"[\w.:/-]{1,100}")
_PROFILES_KEPT = 64
_SORTS_KEPT = 64
_COLUMNS_KEPT = 64
_MEMBERS = frozenset({"theme", "interval", "tab", "sorts", "hidden"})


@dataclass(frozen=True)
class Remembered:
    """What one profile's dashboard remembered (None: nothing)."""

    theme: str | None = None
    interval: float | None = None
    tab: str | None = None
    #: table (``"agents"``, ``"trending:trending-channels"``) -> (column or None, reverse)
    sorts: Mapping[str, tuple[str | None, bool]] = field(default_factory=dict)
    #: table -> the columns hidden with ``C`` (a table with every column shown is not listed)
    hidden: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def with_sort(self, table: str, column: str | None, reverse: bool) -> Remembered:
        sorts = {name: sort for name, sort in self.sorts.items() if name != table}
        sorts[table] = (column, reverse)
        return replace(self, sorts=dict(list(sorts.items())[-_SORTS_KEPT:]))

    def with_hidden(self, table: str, columns: tuple[str, ...]) -> Remembered:
        hidden = {name: keys for name, keys in self.hidden.items() if name != table}
        if columns:
            hidden[table] = columns
        return replace(self, hidden=dict(list(hidden.items())[-_SORTS_KEPT:]))

    def as_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {}
        for name in ("theme", "interval", "tab"):
            if (value := getattr(self, name)) is not None:
                document[name] = value
        if self.sorts:
            document["sorts"] = {name: list(sort) for name, sort in self.sorts.items()}
        if self.hidden:
            document["hidden"] = {name: list(keys) for name, keys in self.hidden.items()}
        return document


def _name(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise ValueError(f"{what} is not a name")
    return value


def _remembered(document: Any) -> Remembered:
    if not isinstance(document, Mapping) or set(document) - _MEMBERS:
        raise ValueError("a profile's entry is not a table of theme, interval, tab, sorts, hidden")
    interval = document.get("interval")
    if interval is not None and (
        isinstance(interval, bool)
        or not isinstance(interval, (int, float))
        or not math.isfinite(interval)
        or not 1 <= interval <= 86_400
    ):
        raise ValueError("interval is not a number of seconds")
    sorts = document.get("sorts", {})
    if not isinstance(sorts, Mapping) or len(sorts) > _SORTS_KEPT:
        raise ValueError("sorts is not a table")
    parsed: dict[str, tuple[str | None, bool]] = {}
    for table, sort in sorts.items():
        if not isinstance(sort, list) or len(sort) != 2 or not isinstance(sort[1], bool):
            raise ValueError(f"the sort of {table!r} is not [column, reverse]")
        parsed[_name(table, "a table") or ""] = (_name(sort[0], "a column"), sort[1])
    return Remembered(
        hidden=_hidden(document.get("hidden", {})),
        theme=_name(document.get("theme"), "theme"),
        interval=float(interval) if interval is not None else None,
        tab=_name(document.get("tab"), "tab"),
        sorts=parsed,
    )


def _hidden(document: Any) -> dict[str, tuple[str, ...]]:
    if not isinstance(document, Mapping) or len(document) > _SORTS_KEPT:
        raise ValueError("hidden is not a table")
    parsed: dict[str, tuple[str, ...]] = {}
    for table, keys in document.items():
        if not isinstance(keys, list) or not 0 < len(keys) <= _COLUMNS_KEPT:
            raise ValueError(f"the hidden columns of {table!r} are not a list of names")
        parsed[_name(table, "a table") or ""] = tuple(_name(key, "a column") or "" for key in keys)
    return parsed


def _parse(document: Any) -> dict[str, Remembered]:
    if not isinstance(document, Mapping) or document.get("format") != FORMAT:
        raise ValueError("not a preferences file")
    profiles = document.get("profiles", {})
    if set(document) - {"format", "profiles"} or not isinstance(profiles, Mapping):
        raise ValueError("unknown members")
    if len(profiles) > _PROFILES_KEPT:
        raise ValueError("too many profiles")
    return {str(name): _remembered(entry) for name, entry in profiles.items()}


class Preferences:
    """The remembered preferences of one profile, in ``path`` (None: remembered nowhere, as
    for a guest over SSH). Use it from one thread; each change is written at once."""

    def __init__(self, path: Path | None, profile: str | None):
        self.path = path
        self.profile = profile or ""
        #: Something worth saying once (a damaged file replaced, a disk that refused a write).
        self.note: str | None = None
        self._all: dict[str, Remembered] = {}
        if path is not None:
            self._load()

    @property
    def remembered(self) -> Remembered:
        return self._all.get(self.profile, Remembered())

    def remember(self, **changes: Any) -> None:
        """Keep ``changes`` (theme, interval, tab) for this profile; written at once if new."""
        self._keep(replace(self.remembered, **changes))

    def remember_sort(self, table: str, column: str | None, reverse: bool) -> None:
        if self.remembered.sorts.get(table) != (column, reverse):
            self._keep(self.remembered.with_sort(table, column, reverse))

    def remember_hidden(self, table: str, columns: tuple[str, ...]) -> None:
        """Keep the columns hidden in ``table`` (none: every column shown)."""
        if self.remembered.hidden.get(table, ()) != columns:
            self._keep(self.remembered.with_hidden(table, columns))

    def _keep(self, remembered: Remembered) -> None:
        if remembered == self.remembered:
            return
        self._all[self.profile] = remembered
        self._write()

    def _load(self) -> None:
        assert self.path is not None
        try:
            self._all = _parse(read_json_file(self.path, limit=FILE_LIMIT))
        except FileNotFoundError:
            return
        except (Unreadable, OSError, ValueError, TypeError) as exc:
            why = clean_line(str(exc) or type(exc).__name__, 200)
            aside = self.path.with_name(self.path.name + ".damaged")
            with contextlib.suppress(OSError):
                os.replace(self.path, aside)
            self.note = (
                f"the remembered preferences in {self.path} were unreadable ({why}): set aside "
                f"as {aside.name}, started afresh"
            )
            self._write()

    def _write(self) -> None:
        if self.path is None:
            return
        document = {
            "format": FORMAT,
            "profiles": {name: entry.as_json() for name, entry in self._all.items()},
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, json.dumps(document, indent=1).encode("utf-8"))
        except OSError as exc:
            why = clean_line(exc.strerror or str(exc), 200)
            self.note = f"preferences could not be kept in {self.path} ({why}): not remembered"
            self.path = None


def preferences_path(ssh_role: str | None, env: Mapping[str, str] | None = None) -> Path | None:
    """Where the preferences are kept: the state folder; over SSH a keyed user's own folder on
    the server (below the home the server made for them), a guest nowhere."""
    # deferred: off the start path
    from tui.locations import state_root
    from tui.ssh.mode import KEYED

    env = os.environ if env is None else env
    if ssh_role is None:
        return state_root(env) / FILE_NAME
    if ssh_role != KEYED or not env.get("HOME"):
        return None
    # deferred: off the start path
    from tui.ssh.folders import UnsafeFolder, private_subfolder

    try:
        return private_subfolder(Path(env["HOME"]), "state") / FILE_NAME
    except UnsafeFolder:
        return None


def reset_preferences(env: Mapping[str, str] | None = None) -> Path | None:
    """Forget every remembered preference (`roost --reset-preferences`): the file removed;
    the path it had, if there was one."""
    # deferred: off the start path
    from tui.locations import state_root

    path = state_root(env) / FILE_NAME
    try:
        path.unlink()
    except FileNotFoundError:
        return None
    return path


def sort_key(tab_id: str, table_id: str | None) -> str:
    """How a table's sort and hidden columns are remembered: its tab (the main table), or
    ``tab:table-id``."""
    return f"{tab_id}:{table_id}" if table_id else tab_id
