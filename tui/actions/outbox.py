"""The outbox: every action as one JSON file, written before its request leaves (ARCHITECTURE.md, the write side).

Where: ``$XDG_DATA_HOME/roost/outbox/<service>/<id>.json`` (:func:`tui.locations.outbox_root`), one
folder per service so two deployments (or two runs of the demo network) never mix. A file is
replaced atomically (temporary file, fsync, rename, fsync of the folder), so a crash or a
``kill -9`` leaves either the old or the new entry, never half of one.

States: ``draft`` → ``sending`` → ``queued`` → ``received`` (the newer processor acknowledged
it) / ``accepted`` (the classic processor's verdict) → ``applied`` or ``rejected``; or ``failed``
(with the reason and whether a retry is safe) or ``unknown``. A post made as a GitHub
Discussion (``kind``) is ``applied`` as soon as the platform created it; a comment, reply or
reaction is ``queued`` once the platform answered with it, and ``applied`` once it is seen
(the thread read back holds the comment, the subject says the viewer reacted so:
``tracking.py``). An entry is sent only
under its lock (``fcntl.flock`` on ``<id>.lock``, non-blocking), so two roost processes sharing
the outbox never send the same entry. An entry found in ``sending`` or ``unknown`` may already
be on the platform: it is looked up by its nonce before anything is sent again.

Every entry file is read back as untrusted (``tui/strict_json.py``, ``outbox_shape.py``): a
regular file only (a link, FIFO, device or folder is never read), of bounded size, parsed with
bounded depth, every field of the type it must have. A file that fails is listed as a
``damaged`` entry with the reason: it can be shown and dropped, and never stops the others from
being listed, followed or sent.

The token is never part of an entry: the request is kept as title, labels and body only.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import urlsplit

from tui.actions.discussions import send_discussion
from tui.actions.issue_body import IssueRequest, compose_issue, new_nonce
from tui.actions.issue_client import IssueClient, SendResult
from tui.actions.outbox_shape import entry_problem
from tui.clock import utc_now
from tui.errors import RoostError
from tui.locations import outbox_root
from tui.network.disk_cache import atomic_write  # the one fsync-then-rename writer
from tui.strict_json import read_json_file

__all__ = [
    "ENTRY_LIMIT",
    "FINAL_STATES",
    "STATES",
    "DamagedEntry",
    "Entry",
    "EntryBusy",
    "Outbox",
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
    "damaged",
]
STATES: tuple[str, ...] = get_args(EntryState)
#: States nothing more happens to.
FINAL_STATES = frozenset({"rejected", "applied"})
#: The states an entry file may say it is in (``damaged`` is the outbox's word for a file it
#: cannot take, never written).
READ_STATES = frozenset(STATES) - {"damaged"}
#: States that may mean the platform already holds the issue.
MAYBE_SENT = frozenset({"sending", "unknown"})

_ID = re.compile(r"^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$")

#: The largest entry file read: far more than an entry holds (its comments and receipts are
#: capped), far less than what a planted file could make roost hold in memory.
ENTRY_LIMIT = 4 << 20


class EntryBusy(Exception):
    """Another process holds the entry's lock (it is sending it right now)."""


class DamagedEntry(RoostError):
    """The entry's file is there but cannot be taken as an entry (the message says why)."""

    def __init__(self, entry_id: str, reason: str):
        super().__init__(f"outbox entry {entry_id} is damaged: {reason}")
        self.entry_id, self.reason = entry_id, reason


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
    #: How it is sent: ``issue``, ``discussion`` (a post), ``discussion_comment`` (a comment or
    #: a reply) or ``discussion_reaction``.
    kind: str = "issue"
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)
    #: The request as sent: an issue's title, labels and body; a post's title, body, channel,
    #: repository and category ids; a comment's post number and body (a reply's: and the
    #: comment answered); a reaction's post number, subject and content (never headers).
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
    #: A Discussion comment's GraphQL node id once made; a reaction's subject once sent.
    node_id: str | None = None
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
    def from_json(cls, data: Any) -> Entry:
        """The entry ``data`` describes; ``ValueError`` says why it is not one (a member of the
        wrong type, a state roost does not know, a request it could not send)."""
        problem = entry_problem(data, READ_STATES)
        if problem is not None:
            raise ValueError(problem)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def damaged(cls, entry_id: str, reason: str) -> Entry:
        """What the outbox lists for a file it cannot take: its id, ``damaged`` and why."""
        day, time_of_day = entry_id[:8], entry_id[9:15]
        created = (
            f"{day[:4]}-{day[4:6]}-{day[6:]}T"
            f"{time_of_day[:2]}:{time_of_day[2:4]}:{time_of_day[4:]}Z"
        )
        return cls(
            id=entry_id, action="", payload={}, nonce="", state="damaged", reason=reason,
            created_at=created, updated_at="",
        )  # fmt: skip

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
    """The outbox folder of one service; ``label`` names the service as a person knows it
    (the status bar's name for it), where the folder's name is only a key."""

    def __init__(self, folder: Path, label: str | None = None):
        self.folder = folder
        self.label = label

    @classmethod
    def for_service(
        cls,
        write_url: str,
        repo: str,
        run_id: str | None = None,
        root: Path | None = None,
        label: str | None = None,
    ) -> Outbox:
        return cls((root or outbox_root()) / service_key(write_url, repo, run_id), label)

    # -- files ---------------------------------------------------------------------------------

    def path(self, entry_id: str) -> Path:
        if not _ID.fullmatch(entry_id):
            raise KeyError(f"no outbox entry {entry_id!r}")
        return self.folder / f"{entry_id}.json"

    def save(self, entry: Entry) -> None:
        """Write the entry atomically and durably (it is on disk when this returns)."""
        if entry.state == "damaged":
            raise ValueError(f"entry {entry.id} is damaged: it is never written back")
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
        """The entry ``entry_id``: ``KeyError`` when there is none, ``DamagedEntry`` when its
        file cannot be taken."""
        path = self.path(entry_id)
        try:
            data = read_json_file(path, limit=ENTRY_LIMIT)
            entry = Entry.from_json(data)
        except FileNotFoundError:
            raise KeyError(f"no outbox entry {entry_id!r}") from None
        except ValueError as exc:  # Unreadable included
            raise DamagedEntry(entry_id, str(exc)) from None
        if entry.id != entry_id:
            raise DamagedEntry(entry_id, "the id inside is another entry's")
        return entry

    def ids(self) -> list[str]:
        """The ids of the files named like entries, oldest first (nothing is read or followed)."""
        try:
            names = os.listdir(self.folder)
        except OSError:  # no folder yet (or not one): no entries
            return []
        return sorted(
            name[:-5] for name in names if name.endswith(".json") and _ID.fullmatch(name[:-5])
        )

    def read(self, entry_id: str) -> Entry:
        """The entry ``entry_id`` to show: as :meth:`load`, but a file that cannot be taken is
        a ``damaged`` entry saying why (``KeyError`` when there is none)."""
        try:
            return self.load(entry_id)
        except DamagedEntry as exc:
            return Entry.damaged(entry_id, exc.reason)

    def entries(self) -> list[Entry]:
        """Every entry, oldest first; a file that cannot be taken is a ``damaged`` entry."""
        found = []
        for entry_id in self.ids():
            with contextlib.suppress(KeyError):  # dropped since the folder was listed
                found.append(self.read(entry_id))
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
        """Forget the entry: its file goes (a link goes, never what it points to; an empty
        folder goes; a folder holding files is refused with ``DamagedEntry``: roost deletes
        nothing it did not write)."""
        path = self.path(entry_id)
        with self.locked(entry_id):
            try:
                info = path.lstat()
            except FileNotFoundError:
                info = None
            if info is not None and stat.S_ISDIR(info.st_mode):
                try:
                    path.rmdir()
                except OSError:
                    raise DamagedEntry(
                        entry_id, f"{path} is a folder with files in it: remove it yourself"
                    ) from None
            else:
                path.unlink(missing_ok=True)
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
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
        try:
            fd = os.open(self.folder / f"{entry_id}.lock", flags, 0o600)
        except OSError as exc:
            why = "a link" if exc.errno == errno.ELOOP else exc.strerror
            raise DamagedEntry(entry_id, f"its lock file cannot be opened ({why})") from None
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

    async def send(
        self, entry_id: str, client: IssueClient, *, only_if: frozenset[str] | None = None
    ) -> Entry:
        """Send one entry under its lock; returns it as saved afterwards.

        Raises ``EntryBusy`` when another process is sending it. An entry that is not sendable
        (queued, rejected, a failure a retry would repeat), or whose state under the lock is
        not in ``only_if``, comes back unchanged.
        """
        with self.locked(entry_id):
            entry = self.load(entry_id)
            if not entry.can_send or (only_if is not None and entry.state not in only_if):
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

    async def resume_interrupted(self, client: IssueClient, only: str | None = None) -> list[Entry]:
        """Settle entries a dead process left in "sending" (their lock is free): each is looked
        up by its nonce and sent only if the platform shows nothing (``only``: that entry
        alone). Entries another process is sending right now are left alone, and so is every
        entry while the client has no token: nothing could be looked up, and "no token" is no
        verdict on an action that may be on the platform (call this again once a token is
        there). The CLI and the dashboard both settle them here."""
        stuck = [
            e.id for e in self.entries() if e.state == "sending" and (only is None or e.id == only)
        ]
        if not stuck or not client.has_token:
            return []
        settled = []
        for entry_id in stuck:
            try:
                entry = await self.send(entry_id, client, only_if=frozenset({"sending"}))
            except (EntryBusy, DamagedEntry, KeyError):
                continue
            if entry.state != "sending":  # (another roost may have settled it meanwhile)
                settled.append(entry)
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
            entry.node_id = result.node_id or entry.node_id
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
