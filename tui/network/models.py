"""Typed models of the service's state files (ARCHITECTURE.md, the service).

The rules, learned from the published files:

* typed where the data is stable (counts are ints, traits are floats, lists are lists);
* optional where real data omits fields (``traits``, ``subscribed_channels``, ``slug`` on some
  channels, ``proposals`` on older deployments, ``active`` may be null);
* unknown fields are kept (``extra="allow"``) — the service adds fields over time and roost shows
  them in raw views instead of dropping them;
* timestamps are kept as the strings the service sent and parsed on use with :func:`as_utc`, so
  one odd timestamp never discards a whole file (and validation stays close to ``json.loads``
  speed at 50k agents: parsing every timestamp up front costs ~30%).

Models are frozen: a snapshot is shared by every screen and must not change under them.
A validation failure is raised as :class:`StateValidationError`, naming the file and the JSON
path of the first errors.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tui import collector
from tui.network.state_files import (
    AGENTS,
    CHANNELS,
    MANIFEST_FILE,
    SEEDS,
    STATS,
    TRENDING,
)

__all__ = [
    "STATE_FILES",
    "MANIFEST_FILE",
    "Agent",
    "AgentsFile",
    "Channel",
    "ChannelsFile",
    "Convergence",
    "ManifestEntry",
    "ManifestFile",
    "Proposal",
    "Seed",
    "SeedsFile",
    "StatsFile",
    "TopAgent",
    "TopChannel",
    "TopTopic",
    "TrendingFile",
    "TrendingPost",
    "StateValidationError",
    "as_utc",
    "big_document",
    "parse_state",
    "parse_manifest",
]


# A timestamp as sent (ISO 8601 in practice); `as_utc` parses it when a screen needs a time.
Timestamp = str | None
StrTuple = tuple[str, ...]


def as_utc(value: datetime | str | None) -> datetime | None:
    """A timestamp field as an aware UTC datetime, or None when absent or unparsable."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


class _Model(BaseModel):
    """Base: frozen, unknown fields kept, aliases accepted both ways."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    @property
    def extras(self) -> dict[str, Any]:
        """Fields the service sent that roost does not model (shown in raw views)."""
        return dict(self.model_extra or {})


class Meta(_Model):
    count: int | None = None
    last_updated: Timestamp = None


# --------------------------------------------------------------------------- agents.json


#: One frozenset per distinct set of given fields, shared by every model that has it.
_FIELD_SETS: dict[frozenset[str], frozenset[str]] = {}


# BaseModel's slot for that set, read and written without attribute lookups (once per agent)
_GIVEN_SLOT = BaseModel.__dict__["__pydantic_fields_set__"]
_get_given, _set_given = _GIVEN_SLOT.__get__, _GIVEN_SLOT.__set__


class Agent(_Model):
    name: str
    framework: str = ""
    bio: str = ""
    avatar_seed: str | None = None
    joined: Timestamp = None
    heartbeat_last: Timestamp = None
    status: str = "unknown"
    subscribed_channels: StrTuple | None = None
    post_count: int = 0
    comment_count: int = 0
    karma: int = 0
    karma_balance: int = 0
    traits: dict[str, float] | None = None
    # optional: present on some agents only
    display_name: str | None = None
    avatar_url: str | None = None
    public_key: str | None = None
    callback_url: str | None = None
    gateway_type: str | None = None
    gateway_url: str | None = None
    verified: bool | None = None
    poke_count: int | None = None
    follower_count: int | None = None
    following_count: int | None = None

    OPTIONAL_FIELDS: ClassVar[tuple[str, ...]] = (
        "display_name",
        "avatar_url",
        "public_key",
        "callback_url",
        "gateway_type",
        "gateway_url",
        "verified",
        "poke_count",
        "follower_count",
        "following_count",
    )

    @model_validator(mode="after")
    def _share_given_fields(self) -> Agent:
        # Pydantic gives every instance its own set of the fields that were given (~0.7 KB for
        # an agent: 35 MiB at 50 000 agents); a big file has a hundred distinct ones. The
        # models are frozen, so the set is never added to: share one frozenset per distinct set.
        given = frozenset(_get_given(self))
        _set_given(self, _FIELD_SETS.setdefault(given, given))
        return self

    def __copy__(self) -> Agent:
        # pydantic's model_copy(update=...) adds to the copy's set: give the copy its own
        copied = super().__copy__()
        object.__setattr__(copied, "__pydantic_fields_set__", set(self.__pydantic_fields_set__))
        return copied

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Agent:
        copied = super().__deepcopy__(memo)
        object.__setattr__(copied, "__pydantic_fields_set__", set(self.__pydantic_fields_set__))
        return copied


class AgentsFile(_Model):
    agents: dict[str, Agent]
    meta: Meta | None = Field(default=None, alias="_meta")


# --------------------------------------------------------------------------- channels.json


class Channel(_Model):
    slug: str | None = None
    name: str = ""
    description: str = ""
    rules: str | None = None
    created_by: str | None = None
    created_at: Timestamp = None
    post_count: int = 0
    topic_affinity: StrTuple = ()
    verified: bool | None = None
    constitution: str | None = None
    icon: str | None = None
    tag: str | None = None
    moderators: StrTuple | None = None
    pinned_posts: tuple[Any, ...] | None = None


class ChannelsFile(_Model):
    channels: dict[str, Channel]
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


# --------------------------------------------------------------------------- trending.json


class TrendingPost(_Model):
    title: str = ""
    author: str = ""
    channel: str = ""
    upvotes: int = 0
    downvotes: int = 0
    comment_count: int = Field(default=0, alias="commentCount")
    score: float = 0.0
    number: int | None = None
    url: str | None = None


class TopAgent(_Model):
    agent_id: str
    posts: int = 0
    comments_received: int = 0
    reactions_received: int = 0
    score: float = 0.0


class TopChannel(_Model):
    channel: str
    posts: int = 0
    comments: int = 0
    reactions: int = 0
    score: float = 0.0


class TopTopic(_Model):
    topic: str
    posts: int = 0
    comments: int = 0
    reactions: int = 0
    score: float = 0.0


class TrendingFile(_Model):
    trending: tuple[TrendingPost, ...] = ()
    top_agents: tuple[TopAgent, ...] = ()
    top_channels: tuple[TopChannel, ...] = ()
    top_topics: tuple[TopTopic, ...] = ()
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


# --------------------------------------------------------------------------- stats.json


class StatsFile(_Model):
    """Flat counters. Known ones are typed; new counters arrive as extras and are kept."""

    last_updated: Timestamp = None
    total_agents: int | None = None
    active_agents: int | None = None
    dormant_agents: int | None = None
    total_posts: int | None = None
    total_comments: int | None = None
    total_channels: int | None = None
    total_pokes: int | None = None

    def counters(self) -> dict[str, float]:
        """Every numeric counter by name, including ones this version of roost does not know."""
        data = self.model_dump(exclude={"last_updated"})
        return {
            key: value
            for key, value in data.items()
            if isinstance(value, int | float) and not isinstance(value, bool)
        }


# --------------------------------------------------------------------------- seeds.json


class Convergence(_Model):
    score: float = 0.0
    resolved: bool = False
    signal_count: int = 0
    channels: StrTuple = ()
    agents: StrTuple = ()
    synthesis: str = ""
    evaluated_at: Timestamp = None


class Seed(_Model):
    """The active seed, a queued seed or a history entry (they share one shape)."""

    id: str
    text: str = ""
    context: str = ""
    source: str | None = None
    tags: StrTuple = ()
    injected_at: Timestamp = None
    queued_at: Timestamp = None
    archived_at: Timestamp = None
    resolved_at: Timestamp = None
    frames_active: int | None = None
    convergence: Convergence | None = None
    resolution: dict[str, Any] | None = None


class Proposal(_Model):
    id: str
    text: str = ""
    context: str = ""
    author: str | None = None
    tags: StrTuple = ()
    proposed_at: Timestamp = None
    votes: StrTuple = ()
    vote_count: int = 0


class SeedsFile(_Model):
    active: Seed | None = None
    proposals: tuple[Proposal, ...] | None = None  # None: the deployment has no proposals yet
    queue: tuple[Seed, ...] = ()
    history: tuple[Seed, ...] = ()


# --------------------------------------------------------------------------- manifest


class ManifestEntry(_Model):
    hash: str = Field(pattern=r"^[0-9a-fA-F]{64}$")
    size: int | None = Field(default=None, ge=0)


class ManifestFile(_Model):
    files: dict[str, ManifestEntry]
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")

    def entry(self, name: str) -> ManifestEntry | None:
        return self.files.get(name)


# --------------------------------------------------------------------------- parsing

STATE_FILES: Mapping[str, type[_Model]] = {
    AGENTS: AgentsFile,
    TRENDING: TrendingFile,
    CHANNELS: ChannelsFile,
    STATS: StatsFile,
    SEEDS: SeedsFile,
}


class StateValidationError(ValueError):
    """A state file failed validation; ``errors`` holds (json_path, message) pairs, first ones."""

    MAX_ERRORS = 5

    def __init__(self, file: str, errors: list[tuple[str, str]], total: int | None = None):
        self.file = file
        self.errors = errors
        self.total = total if total is not None else len(errors)
        shown = "; ".join(f"{path}: {message}" for path, message in errors)
        more = f" (+{self.total - len(errors)} more)" if self.total > len(errors) else ""
        super().__init__(f"{file}: {shown}{more}")

    @classmethod
    def from_pydantic(cls, file: str, exc: ValidationError) -> StateValidationError:
        errors = exc.errors(include_url=False, include_input=False)
        pairs = [(json_path(err["loc"]), str(err["msg"])) for err in errors[: cls.MAX_ERRORS]]
        return cls(file, pairs, total=len(errors))


def json_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a JSON path: ``$.agents["a b"].karma``, ``$.trending[3]``."""
    parts = ["$"]
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif item.isidentifier():
            parts.append(f".{item}")
        else:
            # keys come from the data: show them JSON-quoted (escapes control characters)
            parts.append(f"[{json.dumps(item)}]")
    return "".join(parts)


def parse_state(file_name: str, data: bytes | str) -> _Model:
    """Validate the bytes of one state file into its model, or raise StateValidationError."""
    model = STATE_FILES.get(file_name)
    if model is None:
        raise KeyError(f"not a state file roost knows: {file_name}")
    return _validate(model, file_name, data)


def parse_manifest(data: bytes | str) -> ManifestFile:
    return _validate(ManifestFile, MANIFEST_FILE, data)  # type: ignore[return-value]


_GC_PAUSE_THRESHOLD = 1 << 20


@contextmanager
def big_document(size: int) -> Iterator[None]:
    """Around building a document from ``size`` bytes: for a big one (over 1 MiB) the cyclic
    collector is paused (a hold on the shared switch, :mod:`tui.collector`) and, if the build
    succeeds, what it built is frozen out of the collector's view.

    Why: a 50k-agent agents.json is about a million container objects. While they are built the
    collector would rescan the growing tree many times over; afterwards its next passes rescan
    all of them with the UI frozen. The models hold no reference cycles and live until a
    refresh replaces them, when reference counting frees them, so they are frozen (RoostApp
    gives them back to the collector when it unmounts). Young garbage is collected first so
    that little else is frozen with them; when the collector is already off (roost's start-up)
    nothing is collected.
    """
    if size <= _GC_PAUSE_THRESHOLD:
        yield
        return
    with collector.paused(collect_young=True):
        yield
        # frozen before the collector is back on: else the first allocation after it could
        # start a collection of the young generation, which is the whole new document
        collector.freeze()


def _validate(model: type[_Model], file_name: str, data: bytes | str) -> _Model:
    with big_document(len(data)):
        try:
            return model.model_validate_json(data)
        except ValidationError as exc:
            raise StateValidationError.from_pydantic(file_name, exc) from None
