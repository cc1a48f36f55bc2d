"""Typed models of the service's state files (ARCHITECTURE.md, the service).

The rules, learned from the published files:

* typed where the data is stable (counts are ints, traits are floats, lists are lists);
* optional where real data omits fields (``traits``, ``subscribed_channels``, ``slug`` on some
  channels, ``proposals`` on older deployments, ``active`` may be null);
* unknown fields are kept (:attr:`_Model.extras`) — the service adds fields over time and roost
  shows them in raw views instead of dropping them;
* timestamps are kept as the strings the service sent and parsed on use with :func:`as_utc`, so
  one odd timestamp never discards a whole file (and decoding stays fast at 50k agents).

The models are msgspec structs, decoded straight from the JSON bytes by msgspec's C decoder
(lax: ``"5"`` and ``5.0`` are accepted for an int, as the service's older writers sent them).
msgspec is used here rather than pydantic because this module is on the path of roost's first
paint: importing pydantic and building its validators costs far more than importing msgspec
before anything is shown, and msgspec decodes a big agents.json faster (``tests/perf/bench.py``
measures both). The egg and action models, off that path, stay pydantic.

How unknown fields are kept: the structs refuse unknown fields, so the common case (every field
known) is one C call. A document with unknown fields somewhere (the real service's are: fields
it added over time) is split into its members' texts in one C pass and each member decoded as
its field's type, the same way down: a dict of flat structs (agents.json's agents) entry by
entry, so only the entries with unknown fields are decoded as plain JSON, their unknown members
taken out and kept as the struct's extras (:func:`decode`). Which way a model's last decode went
is remembered as a hint, so the pieces of one big agents.json do not each retry the strict way.

Models are frozen: a snapshot is shared by every screen and must not change under them.
A validation failure is raised as :class:`StateValidationError`, naming the file and the JSON
path of the failure (dict keys included: ``$.agents["a b"].karma``).
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Iterator, KeysView, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from typing import Annotated, Any, ClassVar, TypeVar

import msgspec
from msgspec import field

from tui.errors import RoostError
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
    "convert",
    "decode",
    "dump",
    "parse_state",
    "parse_manifest",
    "replace",
]


# A timestamp as sent (ISO 8601 in practice); `as_utc` parses it when a screen needs a time.
Timestamp = str | None
StrTuple = tuple[str, ...]

# The key of a struct's unknown fields in its ``__dict__``. Read with getattr (_extras_of):
# reading ``__dict__`` itself creates an empty dict in every struct that has none.
_EXTRAS = "_unknown_fields"


def _extras_of(value: msgspec.Struct) -> dict[str, Any] | None:
    return getattr(value, _EXTRAS, None)


def _set_extras(value: msgspec.Struct, extras: dict[str, Any]) -> None:
    value.__dict__[_EXTRAS] = extras


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


class _Model(msgspec.Struct, frozen=True, kw_only=True, dict=True, forbid_unknown_fields=True):
    """Base: frozen, keyword-built, unknown fields refused by the decoder and kept by
    :func:`decode` (in the instance's ``__dict__``, which the struct's own fields do not use).
    Subclasses say ``frozen=True`` again: msgspec inherits it, type checkers do not."""

    @property
    def extras(self) -> dict[str, Any]:
        """Fields the service sent that roost does not model (shown in raw views)."""
        return dict(_extras_of(self) or ())


class Meta(_Model, frozen=True):
    count: int | None = None
    last_updated: Timestamp = None


# --------------------------------------------------------------------------- agents.json


class Agent(_Model, frozen=True):
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


class AgentsFile(_Model, frozen=True):
    agents: dict[str, Agent]
    meta: Meta | None = field(default=None, name="_meta")


# --------------------------------------------------------------------------- channels.json


class Channel(_Model, frozen=True):
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


class ChannelsFile(_Model, frozen=True):
    channels: dict[str, Channel]
    meta: dict[str, Any] | None = field(default=None, name="_meta")


# --------------------------------------------------------------------------- trending.json


class TrendingPost(_Model, frozen=True):
    title: str = ""
    author: str = ""
    channel: str = ""
    upvotes: int = 0
    downvotes: int = 0
    comment_count: int = field(default=0, name="commentCount")
    score: float = 0.0
    number: int | None = None
    url: str | None = None


class TopAgent(_Model, frozen=True):
    agent_id: str
    posts: int = 0
    comments_received: int = 0
    reactions_received: int = 0
    score: float = 0.0


class TopChannel(_Model, frozen=True):
    channel: str
    posts: int = 0
    comments: int = 0
    reactions: int = 0
    score: float = 0.0


class TopTopic(_Model, frozen=True):
    topic: str
    posts: int = 0
    comments: int = 0
    reactions: int = 0
    score: float = 0.0


class TrendingFile(_Model, frozen=True):
    trending: tuple[TrendingPost, ...] = ()
    top_agents: tuple[TopAgent, ...] = ()
    top_channels: tuple[TopChannel, ...] = ()
    top_topics: tuple[TopTopic, ...] = ()
    meta: dict[str, Any] | None = field(default=None, name="_meta")


# --------------------------------------------------------------------------- stats.json


class StatsFile(_Model, frozen=True):
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
        data = dump(self)
        data.pop("last_updated", None)
        return {
            key: value
            for key, value in data.items()
            if isinstance(value, int | float) and not isinstance(value, bool)
        }


# --------------------------------------------------------------------------- seeds.json


class Convergence(_Model, frozen=True):
    score: float = 0.0
    resolved: bool = False
    signal_count: int = 0
    channels: StrTuple = ()
    agents: StrTuple = ()
    synthesis: str = ""
    evaluated_at: Timestamp = None


class Seed(_Model, frozen=True):
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


class Proposal(_Model, frozen=True):
    id: str
    text: str = ""
    context: str = ""
    author: str | None = None
    tags: StrTuple = ()
    proposed_at: Timestamp = None
    votes: StrTuple = ()
    vote_count: int = 0


class SeedsFile(_Model, frozen=True):
    active: Seed | None = None
    proposals: tuple[Proposal, ...] | None = None  # None: the deployment has no proposals yet
    queue: tuple[Seed, ...] = ()
    history: tuple[Seed, ...] = ()


# --------------------------------------------------------------------------- manifest


class ManifestEntry(_Model, frozen=True):
    hash: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-fA-F]{64}$")]
    size: Annotated[int, msgspec.Meta(ge=0)] | None = None


class ManifestFile(_Model, frozen=True):
    files: dict[str, ManifestEntry]
    meta: dict[str, Any] | None = field(default=None, name="_meta")

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


class StateValidationError(RoostError, ValueError):
    """A state file failed validation; ``errors`` holds (json_path, message) pairs, first ones."""

    MAX_ERRORS = 5

    def __init__(self, file: str, errors: list[tuple[str, str]], total: int | None = None):
        self.file = file
        self.errors = errors
        self.total = total if total is not None else len(errors)
        shown = "; ".join(f"{path}: {message}" for path, message in errors)
        more = f" (+{self.total - len(errors)} more)" if self.total > len(errors) else ""
        super().__init__(f"{file}: {shown}{more}")


class InvalidDocument(ValueError):
    """:func:`decode` refused the bytes: ``path`` (a JSON path, keys spelled out) and
    ``message`` say where and why. ``malformed``: the bytes are not JSON at all."""

    def __init__(self, path: str, message: str, *, malformed: bool = False):
        self.path = path
        self.message = message
        self.malformed = malformed
        super().__init__(f"{path}: {message}")


def json_path(loc: tuple[int | str, ...]) -> str:
    """A location as a JSON path: ``$.agents["a b"].karma``, ``$.trending[3]``."""
    return "$" + "".join(_step(item) for item in loc)


def _step(item: int | str) -> str:
    if isinstance(item, int):
        return f"[{item}]"
    if item.isidentifier():
        return f".{item}"
    # keys come from the data: show them JSON-quoted (escapes control characters)
    return f"[{json.dumps(item)}]"


M = TypeVar("M")


@lru_cache(maxsize=64)
def _decoder(model: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(model, strict=False)


def decode(model: type[M] | Any, data: bytes | bytearray | memoryview | str) -> M:
    """``data`` (JSON) as ``model`` (a struct, or a container of structs such as
    ``dict[str, Agent]``), unknown fields kept as each struct's :attr:`~_Model.extras`.

    Raises :class:`InvalidDocument` with the JSON path of the failure.
    """
    return _decode(model, data)[0]


def _decode(model: Any, data: Any) -> tuple[Any, bool]:
    """:func:`decode`, and whether some struct in it had unknown fields."""
    if not _had_extras.get(model):
        try:
            return _decoder(model).decode(data), False
        except msgspec.ValidationError as exc:
            if not str(exc).startswith("Object contains unknown field"):
                raise _explained(model, data, exc) from None
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            pass  # perhaps NaN or Infinity, which Python's json writes and msgspec refuses
    flat = _flat_entries(model)
    if flat is not None:
        value, extras = _entry_by_entry(model, flat, data)
    elif isinstance(model, type) and issubclass(model, msgspec.Struct):
        value, extras = _member_by_member(model, data)
    else:  # decoded as plain JSON: unknown fields set aside, the rest converted
        value, extras = _converted(model, _plain(data))
    _had_extras[model] = extras
    return value, extras


def _member_by_member(model: type[msgspec.Struct], data: Any) -> tuple[Any, bool]:
    """A struct with unknown fields somewhere: each member's text is found in one C pass and
    decoded as its field's type (a big member, agents.json's agents, entry by entry); unknown
    members become extras. Anything that fails is decoded whole again, so the error and its
    path are the whole document's."""
    texts = _member_texts(data)
    if texts is None:
        return _converted(model, _plain(data))
    fields = _fields_by_json_name(model)
    values: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    had = False
    try:
        for key, text in texts.items():
            field_info = fields.get(key)
            if field_info is None:
                extras[key] = _plain(memoryview(text))
                continue
            name, member_model = field_info
            values[name], member_had = _decode(member_model, text)
            had = had or member_had
        value = model(**values)
    except (InvalidDocument, TypeError):
        return _converted(model, _plain(data))
    if extras:
        _set_extras(value, extras)
    return value, had or bool(extras)


def _member_texts(data: Any) -> dict[str, msgspec.Raw] | None:
    """Each member's JSON text of the object ``data`` (one C pass, nothing decoded), or None
    when ``data`` is not a well-formed object (then the plain way decides and reports)."""
    try:
        return _decoder(dict[str, msgspec.Raw]).decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError):
        return None


@lru_cache(maxsize=64)
def _fields_by_json_name(model: type[msgspec.Struct]) -> dict[str, tuple[str, Any]]:
    """JSON name -> (attribute name, type) of each field of ``model`` (cached:
    ``msgspec.structs.fields`` evaluates the annotations on every call)."""
    return {info.encode_name: (info.name, info.type) for info in msgspec.structs.fields(model)}


@lru_cache(maxsize=64)
def _flat_entries(model: Any) -> type[msgspec.Struct] | None:
    """The entry struct when ``model`` is ``dict[str, S]`` or ``tuple[S, ...]`` with ``S`` a
    struct none of whose fields may hold structs."""
    origin, args = typing.get_origin(model), typing.get_args(model)
    if origin is dict:
        entry = args[1]
    elif origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        entry = args[0]
    else:
        return None
    if isinstance(entry, type) and issubclass(entry, msgspec.Struct):
        return None if _nested_members(entry) else entry
    return None


def _entry_by_entry(model: Any, flat: type[msgspec.Struct], data: Any) -> tuple[Any, bool]:
    """``dict[str, flat]`` or ``tuple[flat, ...]`` with unknown fields somewhere (agents.json's
    agents, posted_log.json's posts, a piece at a time): each entry's text is found in one C
    pass, decoded strictly, and only the entries with unknown fields go the plain-JSON way.
    Anything else that fails is decoded whole again, so the error and its path are the whole
    document's."""
    is_dict = typing.get_origin(model) is dict
    texts = _member_texts(data) if is_dict else _item_texts(data)
    if texts is None:
        return _converted(model, _plain(data))
    entry = _decoder(flat)
    out: dict[str | int, Any] = {}
    extras = False
    for key, text in texts.items() if isinstance(texts, dict) else enumerate(texts):
        try:
            out[key] = entry.decode(text)
        except (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            try:
                out[key], had = _converted(flat, _plain(memoryview(text)))
            except InvalidDocument:
                return _converted(model, _plain(data))
            extras = extras or had
    return (out if is_dict else tuple(out.values())), extras


def _item_texts(data: Any) -> list[msgspec.Raw] | None:
    """Each item's JSON text of the array ``data`` (one C pass), or None when it is not one."""
    try:
        return _decoder(list[msgspec.Raw]).decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError):
        return None


# Per model: whether its last decode met unknown fields. Only a hint, for speed: the pieces of
# one agents.json mostly all have some (then the strict attempt, which stops at the first one,
# is skipped) or none; the result is the same either way.
_had_extras: dict[Any, bool] = {}


def _plain(data: bytes | bytearray | memoryview | str) -> Any:
    """``data`` as plain JSON values; NaN and Infinity accepted, as Python's json writes them."""
    try:
        return msgspec.json.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        failure: BaseException = exc
    try:
        return json.loads(bytes(data) if isinstance(data, bytearray | memoryview) else data)
    except json.JSONDecodeError as exc:  # its message says where: line and column
        reason = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    except (ValueError, RecursionError):
        reason = _message(failure)
    raise InvalidDocument("$", f"Invalid JSON: {reason}", malformed=True)


def _message(exc: BaseException) -> str:
    """msgspec's message without its `` - at `$…` `` suffix (the path is reported apart)."""
    text = str(exc) or type(exc).__name__
    return text.split(" - at `", 1)[0]


def _explained(model: Any, data: Any, exc: msgspec.ValidationError) -> InvalidDocument:
    """The failure with its full path: msgspec writes a dict key as ``[...]``; the key is found
    by converting the plain JSON (``data``, or its text) one member at a time (on this error
    path only)."""
    text = str(exc)
    where = text.rsplit(" - at `", 1)[1].rstrip("`") if " - at `" in text else "$"
    if "[...]" not in where:
        return InvalidDocument(where, _message(exc))
    try:
        raw = _plain(data) if isinstance(data, bytes | bytearray | memoryview | str) else data
    except InvalidDocument:
        return InvalidDocument(where, _message(exc))
    path, message = _first_failure(model, raw, ())
    return InvalidDocument(path, message)


def _first_failure(model: Any, raw: Any, loc: tuple[int | str, ...]) -> tuple[str, str]:
    """Where converting ``raw`` to ``model`` first fails, descending into the member that
    fails (``raw`` is known to fail)."""
    for key, member_model, member in _members(model, raw):
        try:
            msgspec.convert(_known(member_model, member), member_model, strict=False)
        except msgspec.ValidationError:
            return _first_failure(member_model, member, (*loc, key))
    try:
        msgspec.convert(_known(model, raw), model, strict=False)
    except msgspec.ValidationError as exc:
        text = str(exc)
        rest = text.rsplit(" - at `", 1)[1].rstrip("`")[1:] if " - at `" in text else ""
        return json_path(loc) + rest, _message(exc)
    return json_path(loc), "not valid"  # pragma: no cover - raw was known to fail


def _members(model: Any, raw: Any) -> Iterator[tuple[int | str, Any, Any]]:
    """(key, model, value) of each member of ``raw`` that ``model`` types as a struct or a
    container (scalars are checked by the caller's own conversion)."""
    model = _structured(model, raw)
    if model is None:
        return
    if isinstance(model, type) and issubclass(model, msgspec.Struct):
        for encode_name, (_, member_model) in _fields_by_json_name(model).items():
            if encode_name in raw:
                yield encode_name, member_model, raw[encode_name]
        return
    origin, args = typing.get_origin(model), typing.get_args(model)
    if origin is dict and isinstance(raw, dict):
        yield from ((key, args[1], value) for key, value in raw.items())
    elif origin is tuple and isinstance(raw, list):
        item = args[0] if len(args) == 2 and args[1] is Ellipsis else Any
        yield from ((index, item, value) for index, value in enumerate(raw))


def _structured(model: Any, raw: Any) -> Any:
    """``model`` if it holds structs somewhere and ``raw`` has its shape; for ``X | None``, X."""
    if typing.get_origin(model) in (types.UnionType, typing.Union):
        for option in typing.get_args(model):
            if option is not type(None) and _structured(option, raw) is not None:
                return option
        return None
    if isinstance(model, type) and issubclass(model, msgspec.Struct):
        return model if isinstance(raw, dict) else None
    origin = typing.get_origin(model)
    if origin is dict:
        return model if isinstance(raw, dict) and _holds_structs(model) else None
    if origin is tuple:
        return model if isinstance(raw, list) and _holds_structs(model) else None
    return None


@lru_cache(maxsize=256)
def _holds_structs(model: Any) -> bool:
    if isinstance(model, type) and issubclass(model, msgspec.Struct):
        return True
    return any(_holds_structs(arg) for arg in typing.get_args(model) if arg is not Ellipsis)


def _known_names(model: type[msgspec.Struct]) -> KeysView[str]:
    return _fields_by_json_name(model).keys()


@lru_cache(maxsize=64)
def _nested_members(model: type[msgspec.Struct]) -> tuple[tuple[str, str, Any], ...]:
    """(name, JSON name, type) of the fields of ``model`` that may hold structs."""
    return tuple(
        (name, encode_name, member_model)
        for encode_name, (name, member_model) in _fields_by_json_name(model).items()
        if _holds_structs(member_model)
    )


def _known(model: Any, raw: Any) -> Any:
    """``raw`` without the members no struct in ``model`` knows: ``raw`` itself when every
    member is known (then nothing has extras), else a copy of what changes."""
    model = _structured(model, raw)
    if model is None:
        return raw
    if isinstance(model, type) and issubclass(model, msgspec.Struct):
        known = _known_names(model)
        kept = raw if raw.keys() <= known else {k: v for k, v in raw.items() if k in known}
        for _, encode_name, member_model in _nested_members(model):
            if encode_name in kept:
                member = kept[encode_name]
                trimmed = _known(member_model, member)
                if trimmed is not member:
                    kept = dict(kept) if kept is raw else kept
                    kept[encode_name] = trimmed
        return kept
    origin, args = typing.get_origin(model), typing.get_args(model)
    if origin is dict:
        kept = {key: _known(args[1], value) for key, value in raw.items()}
        return raw if all(kept[key] is value for key, value in raw.items()) else kept
    item = args[0] if len(args) == 2 and args[1] is Ellipsis else Any
    items = [_known(item, value) for value in raw]
    return raw if all(new is old for new, old in zip(items, raw, strict=True)) else items


def _give_extras(model: Any, value: Any, raw: Any) -> None:
    """Walk ``value`` (converted from ``raw``) and give each struct the members of its JSON
    object that it does not know."""
    model = _structured(model, raw)
    if model is None:
        return
    if isinstance(value, msgspec.Struct):
        known = _known_names(type(value))
        if not raw.keys() <= known:
            _set_extras(value, {key: member for key, member in raw.items() if key not in known})
        for name, encode_name, member_model in _nested_members(type(value)):
            if encode_name in raw:
                _give_extras(member_model, getattr(value, name), raw[encode_name])
        return
    origin, args = typing.get_origin(model), typing.get_args(model)
    if origin is dict and isinstance(value, dict):
        for key, member in value.items():
            _give_extras(args[1], member, raw[key])
    elif origin is tuple and isinstance(value, tuple):
        item = args[0] if len(args) == 2 and args[1] is Ellipsis else Any
        for member, member_raw in zip(value, raw, strict=True):
            _give_extras(item, member, member_raw)


def convert(model: type[M] | Any, value: Any) -> M:
    """Plain JSON values (``json.loads``'s) as ``model``, as :func:`decode` would decode them."""
    return _converted(model, value)[0]


def _converted(model: Any, value: Any) -> tuple[Any, bool]:
    """:func:`convert`, and whether ``value`` had members no struct knows."""
    known = _known(model, value)
    try:
        converted = msgspec.convert(known, model, strict=False)
    except msgspec.ValidationError as exc:
        raise _explained(model, value, exc) from None
    if known is value:
        return converted, False
    _give_extras(model, converted, value)
    return converted, True


def replace(model: M, **changes: Any) -> M:
    """A copy of ``model`` with ``changes``, its extras kept."""
    copied = msgspec.structs.replace(model, **changes)  # type: ignore[type-var]
    extras = _extras_of(model)  # type: ignore[arg-type]
    if extras:
        _set_extras(copied, extras)  # type: ignore[arg-type]
    return copied


def dump(model: Any, *, exclude_none: bool = False) -> Any:
    """``model`` as plain JSON values: fields by their JSON names, unknown fields included
    (and, with ``exclude_none``, fields that are None left out)."""
    out = msgspec.to_builtins(model)  # one C pass; then the extras, where there are any
    _merge_extras(model, out, exclude_none)
    return out


def _merge_extras(value: Any, out: Any, exclude_none: bool) -> None:
    if isinstance(value, msgspec.Struct):
        if exclude_none:
            for key in [key for key, member in out.items() if member is None]:
                del out[key]
        extras = _extras_of(value)
        if extras:
            out.update(extras)
        for name, encode_name, _ in _nested_members(type(value)):
            member = getattr(value, name)
            if member is not None:
                _merge_extras(member, out[encode_name], exclude_none)
    elif isinstance(value, dict):
        for key, member in value.items():
            if isinstance(member, msgspec.Struct):
                if exclude_none or _extras_of(member) or _nested_members(type(member)):
                    _merge_extras(member, out[key], exclude_none)
            elif isinstance(member, dict | tuple | list):
                _merge_extras(member, out[key], exclude_none)
    elif isinstance(value, tuple | list):
        for member, member_out in zip(value, out, strict=True):
            if isinstance(member, msgspec.Struct | dict | tuple | list):
                _merge_extras(member, member_out, exclude_none)


def parse_state(file_name: str, data: bytes | str) -> Any:
    """Validate the bytes of one state file (the five, or one of the conversation's) into its
    model, or raise StateValidationError."""
    model = STATE_FILES.get(file_name)
    if model is None:
        # here, not at the top: pulse imports this module
        from tui.network.conversation import CONVERSATION_MODELS  # they build on these models
        from tui.network.pulse import PULSE_MODELS

        model = CONVERSATION_MODELS.get(file_name) or PULSE_MODELS.get(file_name)
    if model is None:
        raise KeyError(f"not a state file roost knows: {file_name}")
    return _validate(model, file_name, data)


def parse_manifest(data: bytes | str) -> ManifestFile:
    return _validate(ManifestFile, MANIFEST_FILE, data)


def _validate(model: Any, file_name: str, data: bytes | str) -> Any:
    try:
        return decode(model, data)
    except InvalidDocument as exc:
        raise StateValidationError(file_name, [(exc.path, exc.message)]) from None
