"""One demo world per machine: the demo network kept on disk across runs.

`roost demo`, `roost action submit …` and `roost outbox` each start the demo network in their
own process; they must all see the same world (its state, its issues and Discussions, its
receipts), or an action sent by one is unknown to the next. :class:`DemoWorld` keeps that world
in one JSON file under roost's data folder (``$XDG_DATA_HOME/roost/demo/world.json``), and the
in-process sandbox serves it through :class:`PersistMiddleware`: every request runs under the
world's lock (an ``fcntl`` lock on a file beside it, so two roost processes take turns), reads
the file again when another process changed it, and writes it back (atomically) when the request
changed something.

A new world is generated the first time (or after :meth:`DemoWorld.reset`), with the demo
token's account registered as an agent, so the examples work from the first command. Its
``id`` names the world: the outbox of a reset world is a new one.

The sandbox's rate accounts, request log and fault knobs are not kept: they belong to a run.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, overload

from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from tui.locations import data_root
from tui.network.disk_cache import atomic_write
from tui.network.state_files import POSTED_LOG, SOCIAL_GRAPH, STATE_FILE_NAMES
from tui.sandbox.app import DEMO_LOGIN, create_app
from tui.sandbox.discussions import Conversation
from tui.sandbox.generator import DEFAULT_EPOCH
from tui.sandbox.published import DemoNetwork
from tui.sandbox.pulse import PULSE_DOCS
from tui.sandbox.state import InboxEntry, SandboxIssue, SandboxState
from tui.strict_json import read_json_file

__all__ = ["WORLD_FORMAT", "DemoWorld", "PersistMiddleware", "WorldError", "world_folder"]

#: The format of ``world.json``; a file of another format is set aside, never misread (2: the
#: conversation, its log and what was written since; 3: the network's pulse).
WORLD_FORMAT = 3
#: The largest world file read (a world of 50 000 agents holds about 37 MiB of state, a log of
#: about 80 MiB and a pulse of about 200 MiB); like every file read back from disk it must be a
#: regular file, parsed with bounded depth.
WORLD_LIMIT = 512 << 20
#: The profile the demo token's account is registered with in a new world.
ACTING_AGENT = {
    "name": "Demo Agent",
    "framework": "roost",
    "bio": "The account roost's demo token acts as: it posts what you send from roost.",
}


#: The documents kept (the others are rendered from them).
KEPT_FILES = (*STATE_FILE_NAMES, POSTED_LOG)
#: The files kept as they are published (text in the world file, read back as bytes: the
#: network reads them only when something changes them); a network without a pulse has none.
PUBLISHED_FILES = (*PULSE_DOCS, SOCIAL_GRAPH)


@dataclass(frozen=True)
class _Loaded:
    """A world read from disk, before it is given to a sandbox."""

    network: DemoNetwork
    issues: list[SandboxIssue]
    inbox: list[InboxEntry]
    receipts: dict[str, bytes]
    document: dict[str, Any]


class WorldError(Exception):
    """The world file cannot be read or written (the message says which and why)."""


def world_folder(env: dict[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/roost/demo`` (or the platform's user data folder)."""
    return data_root(env) / "demo"


def _stamp(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


@overload
def _moment(text: str) -> datetime: ...
@overload
def _moment(text: Any) -> datetime | None: ...
def _moment(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class DemoWorld:
    """The world file and its lock. ``id`` is known once the world was opened."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder or world_folder()
        self.path = self.folder / "world.json"
        self.id: str | None = None
        #: Why the world is not being kept on disk (a write failed), None while it is.
        self.problem: str | None = None
        self._seen: tuple[int, int, int] | None = None
        self._lock = asyncio.Lock()
        self._options: dict[str, Any] = {}

    # -- files ---------------------------------------------------------------------------------

    def exists(self) -> bool:
        return self.path.is_file()

    def reset(self) -> None:
        """Forget the world: the next open generates a new one (with a new id, so a new
        outbox). What was kept is moved aside, not deleted."""
        with self.locked():
            if self.path.exists():
                self.path.replace(self.folder / f"world-{self._now_tag()}.old.json")
        self.id, self._seen = None, None

    @staticmethod
    def _now_tag() -> str:
        return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(2)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the world's lock (waits for another roost process's request to finish)."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.folder / "world.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return None
        return info.st_mtime_ns, info.st_size, info.st_ino

    def changed_on_disk(self) -> bool:
        return self._stat() != self._seen

    # -- the state as JSON ---------------------------------------------------------------------

    def save(self, state: SandboxState) -> None:
        document = {
            "format": WORLD_FORMAT,
            "id": self.id,
            "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "owner": state.owner,
            "repo": state.repo,
            "generated_at": state.network.generated_at,
            "docs": {name: state.network.docs[name] for name in KEPT_FILES},
            "published": {
                name: data.decode("utf-8")
                for name in PUBLISHED_FILES
                if (data := state.network.file_bytes(name)) is not None
            },
            "conversation": state.network.conversation.as_json(),
            "issues": [
                {**asdict(i), "due_at": _stamp(i.due_at), "apply_at": _stamp(i.apply_at)}
                for i in state.issues
            ],
            "inbox": [entry.as_json() for entry in state.inbox],
            "receipts": {path: data.decode("utf-8") for path, data in state.receipts.items()},
        }
        data = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write(self.path, data)
        except OSError as exc:
            raise WorldError(f"{self.path}: cannot be written ({exc.strerror})") from None
        self._seen = self._stat()

    def load_into(self, state: SandboxState) -> bool:
        """Replace what ``state`` keeps with the world on disk; False when there is none, or it
        is not a world this roost can read (it is then set aside for a new one)."""
        loaded = self._read()
        if loaded is None:
            return False
        self._adopt(state, loaded)
        return True

    def _read(self) -> _Loaded | None:
        """The world on disk, or None (one it cannot read is set aside)."""
        try:
            document = read_json_file(self.path, limit=WORLD_LIMIT)
        except FileNotFoundError:
            return None
        except (OSError, ValueError):  # a link, FIFO, folder, too big or too deep, not JSON
            self._set_aside()
            return None
        try:
            if not isinstance(document, dict) or document.get("format") != WORLD_FORMAT:
                raise ValueError(f"format {document.get('format')!r}")
            docs: dict[str, Any] = {name: document["docs"][name] for name in KEPT_FILES}
            published = document.get("published", {})
            for name in PUBLISHED_FILES:
                if isinstance(published.get(name), str):
                    docs[name] = published[name].encode("utf-8")
            network = DemoNetwork(
                docs,
                generated_at=document["generated_at"],
                conversation=Conversation.from_json(document["conversation"]),
            )
            issue_keys = {f.name for f in fields(SandboxIssue)}
            issues = []
            for raw in document["issues"]:
                values = {k: v for k, v in raw.items() if k in issue_keys}
                values["due_at"] = _moment(raw.get("due_at")) or datetime.min.replace(tzinfo=UTC)
                values["apply_at"] = _moment(raw.get("apply_at"))
                issues.append(SandboxIssue(**values))
            inbox = [InboxEntry(**raw) for raw in document["inbox"]]
            receipts = {path: text.encode("utf-8") for path, text in document["receipts"].items()}
        except (KeyError, TypeError, ValueError, AttributeError):
            self._set_aside()  # another roost's format, or damage: kept beside, a new one made
            return None
        return _Loaded(network, issues, inbox, receipts, document)

    def _adopt(self, state: SandboxState, loaded: _Loaded) -> None:
        state.network, state.issues, state.inbox = loaded.network, loaded.issues, loaded.inbox
        state.receipts = loaded.receipts
        document = loaded.document
        state.owner, state.repo = (
            document.get("owner", state.owner),
            document.get("repo", state.repo),
        )
        self.id = document.get("id") or self.id
        self._seen = self._stat()

    def _set_aside(self) -> None:
        with contextlib.suppress(OSError):
            self.path.replace(self.folder / f"world-{self._now_tag()}.unreadable.json")
        self._seen = None

    # -- the app ---------------------------------------------------------------------------------

    def open_app(
        self, *, make: Callable[[], Starlette] | None = None, **app_options: Any
    ) -> Starlette:
        """The in-process demo network of this world: loaded from disk, or made now (by
        ``make``, default ``create_app(**app_options)``) with the demo token's account
        registered, and saved. Every request then goes through :class:`PersistMiddleware`."""
        self._options = app_options
        with self.locked():
            loaded = self._read()
            if make is not None:
                app = make()
            elif loaded is not None:  # no network to generate: the world's is at hand
                app = create_app(**{**app_options, "network": loaded.network})
            else:
                app = create_app(**app_options)
            state: SandboxState = app.state.sandbox
            if loaded is not None:
                self._adopt(state, loaded)
            else:
                self._begin(state)
        app.add_middleware(PersistMiddleware, world=self, get_state=lambda: state)
        app.state.world = self
        return app

    def _begin(self, state: SandboxState) -> None:
        """Make ``state`` a new world: a new id, the demo token's account registered, saved."""
        self.id = secrets.token_hex(6)
        login = next(iter(state.tokens.values()), DEMO_LOGIN)
        with contextlib.suppress(Exception):  # a generated network always takes it
            state.network.apply(
                "register_agent", dict(ACTING_AGENT), login, _moment(state.network.generated_at)
            )
        self.save(state)

    def reset_live(self, state: SandboxState, network: DemoNetwork) -> str:
        """Start a fresh world under a running sandbox (`roost demo --reset`, once the person
        said yes): the old one is moved aside, ``state`` gets ``network`` and nothing else.
        Returns the new world's id."""
        with self.locked():
            if self.path.exists():
                self.path.replace(self.folder / f"world-{self._now_tag()}.old.json")
            state.network = network
            state.issues, state.inbox, state.receipts = [], [], {}
            state.changed()
            self._begin(state)
        assert self.id is not None
        return self.id

    def fresh_network(self) -> DemoNetwork:
        """A network generated as this world's was (its size and seed), as of this hour."""

        options = self._options
        now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
        return DemoNetwork.generate(
            seed=options.get("seed", 7),
            agents=options.get("agents", 300),
            epoch=now if "epoch" in options else DEFAULT_EPOCH,
            owner=options.get("owner", "roost-demo"),
            repo=options.get("repo", "network"),
            discussions_cache=options.get("discussions_cache", "light"),
        )

    async def around(self, state: SandboxState, handle: Callable[[], Any]) -> None:
        """Run one request on the current world and keep what it changed."""
        async with self._lock:
            with self.locked():
                if self.changed_on_disk():
                    self.load_into(state)
                before = (state.revision, state.network.version, id(state.network))
                try:
                    await handle()
                finally:
                    if (state.revision, state.network.version, id(state.network)) != before:
                        try:
                            self.save(state)
                        except WorldError as exc:
                            self.problem = str(exc)  # the run goes on, in memory only


class PersistMiddleware:
    """Every request on the world's current state, under its lock; changes written back."""

    def __init__(self, app: ASGIApp, world: DemoWorld, get_state: Callable[[], SandboxState]):
        self.app = app
        self.world = world
        self.get_state = get_state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def handle() -> None:
            await self.app(scope, receive, send)

        await self.world.around(self.get_state(), handle)
