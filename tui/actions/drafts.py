"""What a form holds: the action, the values as typed, and the client nonce of its issue.

A draft keeps the *typed* values (strings, a checkbox state), not only the payload, so a half
written form with an invalid number comes back exactly as it was left. No Textual here: the
outbox persists drafts and the tests read them headless.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tui.actions.catalog import ACTION_NAME_PATTERN
from tui.actions.issue_body import IssueRequest, compose_issue
from tui.network.disk_cache import atomic_write  # the one fsync-then-rename writer
from tui.strict_json import read_json_file

#: The largest draft file read (what a person typed into one form).
DRAFT_LIMIT = 4 << 20

__all__ = ["Draft", "DraftKeeper", "FileDrafts", "FormValue", "MemoryDrafts"]

#: A field's typed value: the text of an input or text area, a checkbox, or a Select's choice
#: (``""`` when nothing is chosen).
FormValue = str | bool


@dataclass(frozen=True)
class Draft:
    """One action being written (``payload`` is empty until the form validated it)."""

    action: str
    values: Mapping[str, FormValue] = field(default_factory=dict)
    payload: Mapping[str, Any] = field(default_factory=dict)
    nonce: str | None = None

    def request(self) -> IssueRequest:
        """The exact issue this draft sends (title, labels, body with the nonce comment)."""
        return compose_issue(self.action, dict(self.payload), self.nonce)

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready form for persisting (the outbox writes it to disk)."""
        return {
            "action": self.action,
            "values": dict(self.values),
            "payload": dict(self.payload),
            "nonce": self.nonce,
        }

    @classmethod
    def from_json(cls, data: Any) -> Draft:
        """The inverse of :meth:`as_json`; values of an unexpected type are dropped, and
        ``ValueError`` says a document is not a draft at all."""
        if not isinstance(data, Mapping) or not isinstance(data.get("action"), str):
            raise ValueError("not a draft")
        if not isinstance(data.get("values") or {}, Mapping):
            raise ValueError("a draft's values are not an object")
        if not isinstance(data.get("payload") or {}, Mapping):
            raise ValueError("a draft's payload is not an object")
        values = {
            str(key): value
            for key, value in dict(data.get("values") or {}).items()
            if isinstance(value, str | bool)
        }
        nonce = data.get("nonce")
        return cls(
            action=data["action"],
            values=values,
            payload=dict(data.get("payload") or {}),
            nonce=nonce if isinstance(nonce, str) else None,
        )


class DraftKeeper(Protocol):
    """Where a form's unsent values go on escape (the outbox's drafts implement this)."""

    def kept(self, action: str) -> Draft | None:
        """The draft kept for ``action``, if any."""
        ...

    def keep(self, draft: Draft) -> None:
        """Persist ``draft`` (replacing the one kept for its action)."""
        ...

    def forget(self, action: str) -> None:
        """Drop the draft kept for ``action`` (it was submitted, or emptied)."""
        ...


class MemoryDrafts:
    """A :class:`DraftKeeper` in memory: for tests, and for an app without an outbox yet."""

    def __init__(self) -> None:
        self.drafts: dict[str, Draft] = {}

    def kept(self, action: str) -> Draft | None:
        return self.drafts.get(action)

    def keep(self, draft: Draft) -> None:
        self.drafts[draft.action] = draft

    def forget(self, action: str) -> None:
        self.drafts.pop(action, None)


class FileDrafts:
    """A :class:`DraftKeeper` on disk: one JSON file per action in ``folder``, replaced
    atomically and durably, so a draft survives a crash or a ``kill -9`` of roost.

    The files hold what was typed (never a token). They are read back as untrusted: a regular
    file only, of bounded size and depth (``tui/strict_json.py``). A file that cannot be read
    is left where it is (nothing typed is deleted by a failed read) and reads as no draft.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, action: str) -> Path:
        if not re.fullmatch(ACTION_NAME_PATTERN, action):
            raise ValueError(f"not an action name: {action!r}")
        return self.folder / f"{action}.json"

    def kept(self, action: str) -> Draft | None:
        try:
            draft = Draft.from_json(read_json_file(self._path(action), limit=DRAFT_LIMIT))
        except (OSError, ValueError):
            return None
        return draft if draft.action == action else None

    def keep(self, draft: Draft) -> None:
        path = self._path(draft.action)
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        data = json.dumps(draft.as_json(), indent=2, ensure_ascii=False).encode("utf-8")
        atomic_write(path, data)
        self._sync_folder()

    def forget(self, action: str) -> None:
        """Drop the kept draft (a folder in its place is no draft: it is left alone)."""
        with contextlib.suppress(IsADirectoryError):
            self._path(action).unlink(missing_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self._sync_folder()

    def _sync_folder(self) -> None:
        fd = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
