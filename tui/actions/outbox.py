"""The outbox: every action as one JSON file, written before its request leaves (ARCHITECTURE.md, the write side).

Where: ``$XDG_DATA_HOME/roost/outbox/<service>/<id>.json`` (platformdirs' user data dir), one
folder per service so two deployments (or two runs of the demo network) never mix. A file is
replaced atomically (temporary file, fsync, rename, fsync of the folder), so a crash or a
``kill -9`` leaves either the old or the new entry, never half of one.

States: ``draft`` → ``sending`` → ``queued`` → ``received`` (the newer processor acknowledged
it) / ``accepted`` (the classic processor's verdict) → ``applied`` or ``rejected``; or ``failed``
(with the reason and whether a retry is safe) or ``unknown``. A post or comment made as a GitHub
Discussion (``kind``) is ``applied`` as soon as the platform created it. An entry is sent only
under its lock (``fcntl.flock`` on ``<id>.lock``, non-blocking), so two roost processes sharing
the outbox never send the same entry. An entry found in ``sending`` or ``unknown`` may already
be on the platform: it is looked up by its nonce before anything is sent again.

The token is never part of an entry: the request is kept as title, labels and body only.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import urlsplit

import platformdirs

from tui.actions.discussions import send_discussion
from tui.actions.issue_body import IssueRequest, compose_issue, new_nonce
from tui.actions.issue_client import IssueClient, SendResult
from tui.clock import utc_now
from tui.network.disk_cache import atomic_write  # the one fsync-then-rename writer

__all__ = [
    "FINAL_STATES",
    "STATES",
    "Entry",
    "EntryBusy",
    "Outbox",
    "data_root",
    "new_entry_id",
    "now_iso",
    "outbox_root",
    "service_key",
]

EntryState = Literal[
    "draft",
    "sending",
    "queued",
    "received",
    "accepted",
    "rejected",
    "applied",
    "failed",
    "unknown",
]
STATES: tuple[str, ...] = get_args(EntryState)
#: States nothing more happens to.
FINAL_STATES = frozenset({"rejected", "applied"})
#: States that may mean the platform already holds the issue.
MAYBE_SENT = frozenset({"sending", "unknown"})

_ID = re.compile(r"^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$")


class EntryBusy(Exception):
    """Another process holds the entry's lock (it is sending it right now)."""


def data_root(env: dict[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/roost`` (or the platform's user data dir): what roost keeps."""
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_DATA_HOME")
    return Path(base) / "roost" if base else Path(platformdirs.user_data_dir("roost", False))


def outbox_root(env: dict[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/roost/outbox`` (or the platform's user data dir)."""
    return data_root(env) / "outbox"


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "_"


def service_key(write_url: str, repo: str, run_id: str | None = None) -> str:
    """The folder name of one service: write host and path, repository, and for the demo
    network its world's identity (a reset world starts a new outbox)."""
    parts = urlsplit(write_url)
    where = (parts.netloc + parts.path).rstrip("/")
    key = f"{where}__{repo}"
    if run_id:
        key = f"{key}__{run_id}"
    return _safe(key)[:200]


def now_iso() -> str:
    return utc_now().isoformat(timespec="seconds").replace("+00:00", "Z")


def new_entry_id() -> str:
    """Sortable by creation: ``20261123T214100Z-1a2b3c4d``."""
    return utc_now().strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(4)


@dataclass
class Entry:
    """One action in the outbox."""

    id: str
    action: str
    payload: dict[str, Any]
    nonce: str
    state: str = "draft"
    #: How it is sent: ``issue``, ``discussion`` (a post) or ``discussion_comment``.
    kind: str = "issue"
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)
    #: The request as sent: an issue's title, labels and body; a post's title, body, channel,
    #: repository and category ids; a comment's post number and body (never headers).
    request: dict[str, Any] = field(default_factory=dict)
    number: int | None = None
    html_url: str | None = None
    api_url: str | None = None
    author: str | None = None
    reason: str | None = None
    retry_safe: bool | None = None
    #: The last send could not reach the platform at all.
    unreachable: bool = False
    #: The platform may hold the issue: look it up before any send.
    maybe_sent: bool = False
    notices: list[str] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    #: The processor's comment (cleaned) once it has spoken.
    comment: str | None = None
    accepted_at: str | None = None
    applied_at: str | None = None
    received_at: str | None = None
    #: When the platform created the issue (its ``created_at``).
    issue_created_at: str | None = None
    #: The durable receipt that settled it: status, url, error and hint (cleaned).
    receipt: dict[str, Any] | None = None
    #: Comments on the issue by other accounts than the processor's (never verdicts).
    comments: list[dict[str, Any]] = field(default_factory=list)
    #: What the state showed for this action when it was drafted (``tracking.baseline``).
    baseline: dict[str, Any] | None = None
    #: Conditional-request validators and pacing of the tracker.
    tracking: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @property
    def issue_request(self) -> IssueRequest:
        return IssueRequest(
            title=self.request["title"],
            labels=list(self.request.get("labels", [])),
            body=self.request["body"],
        )

    @property
    def can_send(self) -> bool:
        """Draft, an entry a retry may send, or one whose fate a lookup must settle first."""
        return (
            self.state == "draft"
            or (self.state == "failed" and bool(self.retry_safe))
            or self.state in MAYBE_SENT
        )


class Outbox:
    """The outbox folder of one service."""

    def __init__(self, folder: Path):
        self.folder = folder

    @classmethod
    def for_service(
        cls, write_url: str, repo: str, run_id: str | None = None, root: Path | None = None
    ) -> Outbox:
        return cls((root or outbox_root()) / service_key(write_url, repo, run_id))

    # -- files ---------------------------------------------------------------------------------

    def path(self, entry_id: str) -> Path:
        if not _ID.fullmatch(entry_id):
            raise KeyError(f"no outbox entry {entry_id!r}")
        return self.folder / f"{entry_id}.json"

    def save(self, entry: Entry) -> None:
        """Write the entry atomically and durably (it is on disk when this returns)."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        entry.updated_at = now_iso()
        data = json.dumps(entry.as_json(), indent=2, ensure_ascii=False).encode("utf-8")
        atomic_write(self.path(entry.id), data)
        dir_fd = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def load(self, entry_id: str) -> Entry:
        try:
            data = json.loads(self.path(entry_id).read_text("utf-8"))
        except FileNotFoundError:
            raise KeyError(f"no outbox entry {entry_id!r}") from None
        return Entry.from_json(data)

    def entries(self) -> list[Entry]:
        """Every entry, oldest first (unreadable files are skipped)."""
        if not self.folder.is_dir():
            return []
        found = []
        for path in sorted(self.folder.glob("*.json")):
            with contextlib.suppress(OSError, ValueError, TypeError):
                found.append(Entry.from_json(json.loads(path.read_text("utf-8"))))
        return found

    def find(self, prefix: str) -> Entry:
        """The entry whose id is or starts with ``prefix``; ``KeyError`` otherwise."""
        matches = [e for e in self.entries() if e.id == prefix or e.id.startswith(prefix)]
        exact = [e for e in matches if e.id == prefix]
        if exact:
            return exact[0]
        if len(matches) != 1:
            what = "no" if not matches else "more than one"
            raise KeyError(f"{what} outbox entry matches {prefix!r}")
        return matches[0]

    def drop(self, entry_id: str) -> None:
        with self.locked(entry_id):
            self.path(entry_id).unlink(missing_ok=True)
        (self.folder / f"{entry_id}.lock").unlink(missing_ok=True)

    def counts(self) -> dict[str, int]:
        result: dict[str, int] = {}
        for entry in self.entries():
            result[entry.state] = result.get(entry.state, 0) + 1
        return result

    @contextlib.contextmanager
    def locked(self, entry_id: str) -> Iterator[None]:
        """Hold the entry's lock; ``EntryBusy`` at once when another process has it."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.path(entry_id)  # validates the id
        fd = os.open(self.folder / f"{entry_id}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise EntryBusy(f"entry {entry_id} is being sent by another roost") from None
            yield
        finally:
            os.close(fd)

    # -- drafts and sending --------------------------------------------------------------------

    def draft(
        self,
        action: str,
        payload: dict[str, Any],
        nonce: str | None = None,
        *,
        kind: str = "issue",
        request: dict[str, Any] | None = None,
        label: str | None = None,
        baseline: dict[str, Any] | None = None,
    ) -> Entry:
        """A new entry holding the exact request to send, saved before anything else. ``nonce``
        is the one a form already previewed, so what is sent is what the person saw. An issue
        is composed here (``label``: the catalog's, when it is not the dash form); a post or
        comment comes composed (``request``, from ``tui/actions/discussions.py``)."""
        nonce = nonce or new_nonce()
        if kind == "issue":
            request = compose_issue(action, payload, nonce, label=label).as_json()
        elif request is None:
            raise ValueError(f"a {kind} entry needs its composed request")
        entry = Entry(
            id=new_entry_id(), action=action, payload=dict(payload), nonce=nonce, kind=kind,
            request=dict(request), baseline=baseline,
        )  # fmt: skip
        self.save(entry)
        return entry

    async def send(self, entry_id: str, client: IssueClient) -> Entry:
        """Send one entry under its lock; returns it as saved afterwards.

        Raises ``EntryBusy`` when another process is sending it. An entry that is not sendable
        (queued, rejected, a failure a retry would repeat) comes back unchanged.
        """
        with self.locked(entry_id):
            entry = self.load(entry_id)
            if not entry.can_send:
                return entry
            maybe_sent = entry.maybe_sent or entry.state in MAYBE_SENT
            entry.state, entry.maybe_sent = "sending", True
            entry.reason = None
            self.save(entry)
            try:
                if entry.kind == "issue":
                    result = await client.create(
                        entry.issue_request, entry.nonce, maybe_sent=maybe_sent
                    )
                else:
                    result = await send_discussion(
                        client, entry.kind, entry.request, entry.nonce, maybe_sent=maybe_sent
                    )
            except BaseException:
                entry.state, entry.reason = "unknown", "interrupted while sending"
                self.save(entry)
                raise
            self._record(entry, result)
            self._settle_maybe_sent(entry, maybe_sent, result)
            self.save(entry)
            return entry

    async def resume_interrupted(self, client: IssueClient) -> list[Entry]:
        """Settle entries a dead process left in "sending" (their lock is free): each is looked
        up by its nonce and sent only if the platform shows nothing. Entries another process
        is sending right now are left alone."""
        settled = []
        for entry in self.entries():
            if entry.state != "sending":
                continue
            try:
                settled.append(await self.send(entry.id, client))
            except EntryBusy:
                continue
        return settled

    @staticmethod
    def _record(entry: Entry, result: SendResult) -> None:
        entry.state = result.state
        entry.unreachable = result.unreachable
        entry.attempts.extend(a.as_json() for a in result.attempts)
        entry.notices.extend(n for n in result.notices if n not in entry.notices)
        if result.state in ("queued", "applied"):
            entry.number, entry.html_url = result.number, result.html_url
            entry.api_url, entry.author = result.api_url, result.author
            entry.issue_created_at = result.created_at
            entry.reason, entry.retry_safe = None, None
            entry.tracking = {"queued_at": time.time()}
            if result.state == "applied":
                entry.applied_at, entry.comment = now_iso(), result.message
        else:
            entry.reason, entry.retry_safe = result.message, result.retry_safe

    @staticmethod
    def _settle_maybe_sent(entry: Entry, before: bool, result: SendResult) -> None:
        """Whether the platform may hold the issue after this send: an earlier doubt stays
        unless a lookup in this send settled it, and an unclear answer now adds one."""
        settled = any(a.kind == "lookup" and a.message == "none" for a in result.attempts)
        entry.maybe_sent = result.unclear or (before and not settled)
