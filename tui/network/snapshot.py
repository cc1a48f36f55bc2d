"""The store's values: what a snapshot holds and what a refresh cycle reports (ARCHITECTURE.md,
the read side). Immutable msgspec structs (cheap to define on the start path); the store
(:mod:`tui.network.store`) is the only one that makes new snapshots. No Textual import.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any, Literal

import msgspec

from tui.network.conversation import DiscussionsCache, IndexEntry, PostedLog
from tui.network.models import AgentsFile, ChannelsFile, SeedsFile, StatsFile, TrendingFile, dump
from tui.network.pulse import (
    ChangesFile,
    FollowsFile,
    NotificationsFile,
    PokesFile,
    SocialGraph,
)
from tui.network.state_files import (
    AGENTS,
    CHANGES,
    CHANNELS,
    DISCUSSIONS_CACHE,
    DISCUSSIONS_INDEX,
    FOLLOWS,
    NOTIFICATIONS,
    POKES,
    POSTED_LOG,
    SEEDS,
    SOCIAL_GRAPH,
    STATE_FILE_NAMES,
    STATS,
    TRENDING,
)

__all__ = [
    "FileState",
    "Integrity",
    "Problem",
    "RefreshReport",
    "Snapshot",
    "StatsPoint",
    "StoreOptions",
    "StoreStatus",
    "backoff_delay",
    "snapshot_as_json",
]

Integrity = Literal[
    "verified",  # bytes matched the manifest hash
    "unverified",  # the manifest does not list it (or there is no manifest): fetched, not checked
    "cached",  # loaded from the disk cache at start-up, not yet confirmed by the service
    "mismatch",  # the latest copy did not match the manifest; the last good copy is shown
    "invalid",  # the latest copy failed validation; the last good copy is shown
    "error",  # the latest fetch failed (network, HTTP status, size cap); last good shown
    "missing",  # never loaded
    "absent",  # an optional file (the conversation's) the service does not publish: no problem
]


class Problem(msgspec.Struct, frozen=True):
    file: str
    # mismatch | invalid | missing | unverified | http | cache | internal, or a FetchError's kind:
    # too-large | too-slow | encoding | network | bad-reply
    kind: str
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"file": self.file, "kind": self.kind, "detail": self.detail}


class FileState(msgspec.Struct, frozen=True):
    """One state file as the snapshot holds it: the last good model plus what happened since."""

    name: str
    model: Any = None  # the validated model of the last good copy, or None
    sha256: str | None = None  # hash of the last good bytes
    size: int = 0
    integrity: Integrity = "missing"
    fetched_at: datetime | None = None  # when the last good copy was fetched
    checked_at: datetime | None = None  # when the service last confirmed or replaced it
    problem: Problem | None = None  # why the newest copy was not taken

    @property
    def loaded(self) -> bool:
        return self.model is not None

    @property
    def verified(self) -> bool:
        return self.integrity == "verified"


class StatsPoint(msgspec.Struct, frozen=True):
    at: str  # ISO time the counters were fetched
    counters: Mapping[str, float]


class Snapshot(msgspec.Struct, frozen=True):
    """An immutable view of all state files. Screens read it; only the store makes new ones."""

    files: Mapping[str, FileState]
    generation: int = 0
    stats_history: tuple[StatsPoint, ...] = ()

    @classmethod
    def empty(cls) -> Snapshot:
        return cls(MappingProxyType({name: FileState(name) for name in STATE_FILE_NAMES}))

    def file(self, name: str) -> FileState:
        return self.files.get(name) or FileState(name)

    @property
    def agents(self) -> AgentsFile | None:
        return self.file(AGENTS).model

    @property
    def trending(self) -> TrendingFile | None:
        return self.file(TRENDING).model

    @property
    def channels(self) -> ChannelsFile | None:
        return self.file(CHANNELS).model

    @property
    def stats(self) -> StatsFile | None:
        return self.file(STATS).model

    @property
    def seeds(self) -> SeedsFile | None:
        return self.file(SEEDS).model

    @property
    def posted_log(self) -> PostedLog | None:
        return self.file(POSTED_LOG).model

    @property
    def discussions_cache(self) -> DiscussionsCache | None:
        return self.file(DISCUSSIONS_CACHE).model

    @property
    def discussions_index(self) -> Mapping[str, IndexEntry] | None:
        return self.file(DISCUSSIONS_INDEX).model

    @property
    def notifications(self) -> NotificationsFile | None:
        return self.file(NOTIFICATIONS).model

    @property
    def pokes(self) -> PokesFile | None:
        return self.file(POKES).model

    @property
    def changes(self) -> ChangesFile | None:
        return self.file(CHANGES).model

    @property
    def follows(self) -> FollowsFile | None:
        return self.file(FOLLOWS).model

    @property
    def social_graph(self) -> SocialGraph | None:
        return self.file(SOCIAL_GRAPH).model

    @property
    def any_loaded(self) -> bool:
        return any(state.loaded for state in self.files.values())

    @property
    def all_verified(self) -> bool:
        return not self.not_verified()

    def not_verified(self) -> list[FileState]:
        """Files whose shown copy is not the service's verified current one (an optional file
        the service does not publish is not counted: there is nothing to verify)."""
        return [
            state
            for state in self.files.values()
            if not state.verified and state.integrity != "absent"
        ]

    def integrity_summary(self) -> str:
        """'all verified' or e.g. '2 not verified: agents.json (mismatch), stats.json (cached)'."""
        bad = self.not_verified()
        if not bad:
            return "all verified"
        listed = ", ".join(
            f"{state.name} ({state.problem.kind if state.problem else state.integrity})"
            for state in bad
        )
        return f"{len(bad)} not verified: {listed}"


class RefreshReport(msgspec.Struct):
    """What one refresh cycle did. The CLI prints it; the benchmark reads it."""

    cycle: int
    started_at: datetime
    manifest: str = "not-requested"  # fetched | not-modified | missing | invalid | error
    checked: list[str] = msgspec.field(default_factory=list)
    # new verified/accepted copies taken
    fetched: list[str] = msgspec.field(default_factory=list)
    unchanged: list[str] = msgspec.field(default_factory=list)
    # cached copies the manifest vouched for
    confirmed: list[str] = msgspec.field(default_factory=list)
    # files that differ in the new snapshot
    changed: list[str] = msgspec.field(default_factory=list)
    requests: int = 0
    bytes_downloaded: int = 0
    duration_s: float = 0.0
    durations_s: dict[str, float] = msgspec.field(default_factory=dict)
    problems: list[Problem] = msgspec.field(default_factory=list)
    online: bool = True
    forced: bool = False  # every file asked for again, without validators (the `R` key)
    # things worth saying once, not problems
    notes: list[str] = msgspec.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {
            "cycle": self.cycle,
            "started_at": self.started_at.isoformat(),
            "manifest": self.manifest,
            "checked": list(self.checked),
            "fetched": list(self.fetched),
            "unchanged": list(self.unchanged),
            "confirmed": list(self.confirmed),
            "changed": list(self.changed),
            "requests": self.requests,
            "bytes_downloaded": self.bytes_downloaded,
            "duration_s": round(self.duration_s, 4),
            "durations_s": {k: round(v, 4) for k, v in self.durations_s.items()},
            "problems": [p.as_dict() for p in self.problems],
            "online": self.online,
            "forced": self.forced,
            "notes": list(self.notes),
        }


class StoreStatus(msgspec.Struct, frozen=True):
    """Connection health for the status bar."""

    state: Literal["starting", "online", "offline", "backing-off", "failed"] = "starting"
    last_success: datetime | None = None
    last_attempt: datetime | None = None
    consecutive_failures: int = 0
    next_delay_s: float | None = None
    last_error: str | None = None
    loop_error: str | None = None  # the refresh itself broke (a bug, not the service); retried

    def describe(self) -> str:
        """One line for a status bar: e.g. 'refresh loop failed: TypeError: …, retrying in 40s'."""
        retry = f", retrying in {self.next_delay_s:.0f}s" if self.next_delay_s is not None else ""
        if self.state == "failed":
            return f"refresh loop failed: {self.loop_error}{retry}"
        if self.state in ("offline", "backing-off"):
            return f"{self.state}: {self.last_error or 'no reply'}{retry}"
        return self.state


class StoreOptions(msgspec.Struct, frozen=True):
    """Polling and limits. ``interval_s`` must be finite and positive (settings check it first)."""

    interval_s: float = 60.0
    min_interval_s: float = 5.0  # floor between automatic refreshes, whatever the interval
    jitter: float = 0.1  # ± fraction of the interval
    backoff_cap_s: float = 600.0
    retry_delay_s: float = 0.75  # before re-fetching a file whose hash did not match
    concurrency: int = 4
    size_slack: float = 0.25  # allowed growth over the manifest size (the uploads race)
    size_slack_min: int = 64 * 1024
    hard_cap: int = 128 << 20  # for files the manifest does not size
    timeout_s: float = 30.0  # per read (connect, each chunk); the deadline bounds the whole
    deadline_s: float = 120.0  # whole request, see tui/network/fetch.py; plus the time below
    deadline_rate: float = 256 * 1024  # bytes/s a big file's expected size adds to its deadline
    min_rate: float = 1024.0  # bytes/s averaged over a request, after its grace period

    def __post_init__(self) -> None:
        for name in ("interval_s", "min_interval_s", "deadline_s"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number of seconds above 0: {value!r}")


def backoff_delay(failures: int, options: StoreOptions, rng: random.Random | None = None) -> float:
    """Seconds until the next cycle: the interval, doubling per consecutive failure, capped."""
    uniform = rng.uniform if rng is not None else random.uniform
    interval = max(options.interval_s, options.min_interval_s)
    base = interval if failures <= 0 else interval * (2 ** min(failures, 20))
    base = min(base, max(options.backoff_cap_s, interval)) if failures > 0 else base
    spread = base * options.jitter
    return max(options.min_interval_s, base + uniform(-spread, spread))


def snapshot_as_json(snapshot: Snapshot) -> dict[str, Any]:
    """The validated documents (aliases restored, unknown fields kept) for `roost state --json`."""
    out: dict[str, Any] = {}
    for name in STATE_FILE_NAMES:
        state = snapshot.file(name)
        key = name.removesuffix(".json")
        out[key] = dump(state.model) if state.model else None
    return out
