"""Fault knobs of the demo network, for tests and demos of failure handling.

Set them in-process (``app.state.sandbox.faults.fail_next = 2``) or over HTTP:
``POST /_sandbox/faults`` with a JSON object of knobs (merged into the current ones),
``GET /_sandbox/faults`` shows them, ``DELETE /_sandbox/faults`` resets them all.

Counters (``fail_next``, ``mismatch[file]``, ``truncate[file]``, ``write_fail_next``) count down
as faults are served; ``-1`` means "until reset". Setting ``write_status`` without
``write_fail_next`` fails just the next content-creating request (an issue POST or a GraphQL
``createDiscussion`` / ``addDiscussionComment``); ``write_status`` clears itself when its count
runs out.

Two knobs are settings rather than faults: ``discussions_cache`` ("light" or "full": the form
``discussions_cache.json`` is published in) and the REST budget, ``rest_read_budget`` (how many
requests every caller has left, each address and each token on its own) with
``rest_read_reset`` (when it is renewed), so a test can spend a budget in a few calls.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CACHE_FORMS",
    "WRITE_STATUSES",
    "WRITE_VARIANTS",
    "Faults",
    "FaultsError",
    "corrupt_same_size",
    "malformed_bytes",
    "schema_invalid_bytes",
]

#: The forms ``discussions_cache.json`` is published in.
CACHE_FORMS = ("light", "full")
#: Statuses ``write_status`` can make the issue endpoint answer with.
WRITE_STATUSES = (400, 401, 403, 404, 410, 422, 429, 500, 502, 503)
#: What a 403 means: primary rate limit, secondary rate limit, or a token without the scope.
WRITE_VARIANTS = ("primary", "secondary", "scope")


class FaultsError(ValueError):
    """A knob was given a value it cannot take."""


@dataclass
class Faults:
    """Every fault knob; the defaults mean "behave normally"."""

    #: Seconds to wait before answering any read or API request.
    latency: float = 0.0
    #: Answer the next N ``GET /state/...`` requests with ``fail_status``.
    fail_next: int = 0
    fail_status: int = 503
    #: file → N: the next N fetches of the file serve bytes that do not match the manifest hash.
    mismatch: dict[str, int] = field(default_factory=dict)
    #: file → N: the next N fetches serve only the first half (with a matching Content-Length).
    truncate: dict[str, int] = field(default_factory=dict)
    #: Files served as invalid JSON, with the manifest listing the hash of those bytes.
    malformed: set[str] = field(default_factory=set)
    #: Files served as valid JSON of the wrong shape (a number turned into a string), listed in
    #: the manifest with their real hash: integrity passes, model validation fails.
    schema_invalid: set[str] = field(default_factory=set)
    #: The manifest answers 404.
    no_manifest: bool = False
    #: The next ``write_fail_next`` content-creating requests answer ``write_status``
    #: (GitHub-shaped: an issue POST as REST answers, a GraphQL mutation as GraphQL answers).
    write_status: int | None = None
    write_fail_next: int = 0
    #: For 403: "primary" (rate limit, remaining 0), "secondary" (Retry-After) or "scope".
    write_variant: str = "primary"
    #: Retry-After seconds on secondary rate limits.
    retry_after: int = 60
    #: Issues are created (201) but their labels silently dropped (no push access).
    drop_labels: bool = False
    #: Seconds to wait *after* creating an issue (or a Discussion or comment) before answering:
    #: it exists even if the client times out (the outbox "unknown" state).
    write_latency: float = 0.0
    #: Seconds between an issue's creation and its processing (comment, close, state change),
    #: measured on the sandbox's clock: lets a demo show "queued" before "accepted". Applies to
    #: issues created after it is set.
    process_delay: float = 0.0
    #: The newer processor: seconds between its QUEUED comment and its verdict (the inbox runs
    #: on a schedule), on the sandbox's clock. Applies to issues queued after it is set.
    inbox_delay: float = 0.0
    #: Another account comments a fake ✅ (and a fake APPLIED with the right marker) on every
    #: new issue, before the processor speaks: a client must not take it as a verdict.
    forge_verdicts: bool = False
    #: ``skill.json`` answers 404 (a deployment that publishes no contract).
    no_skill: bool = False
    #: Files this deployment does not publish: they answer 404 and the manifest leaves them out
    #: (e.g. the conversation's or the pulse's, as an older deployment); ``memory`` stands for
    #: every soul page, ``memory/<id>.md`` for one.
    unpublished: set[str] = field(default_factory=set)
    #: The form ``discussions_cache.json`` is published in: "light" (bodies and comment
    #: authors) or "full" (comments too); null: the form the app was made with.
    discussions_cache: str | None = None
    #: The REST budget: every caller (each address without a token, each token) has this many
    #: requests left until ``rest_read_reset``, then answers 403 as GitHub's spent rate limit
    #: does; null: GitHub's budgets (60 an hour per address, 5,000 per token). Setting it (again)
    #: starts every caller afresh.
    rest_read_budget: int | None = None
    #: When the budget is renewed (epoch seconds, ``x-ratelimit-reset``); null: the end of the
    #: current hour. Once the sandbox's clock reaches it, GitHub's budgets apply again.
    rest_read_reset: int | None = None

    def __post_init__(self) -> None:
        #: Moves whenever the budget knobs are set: the spending restarts.
        self.budget_serial = 0

    # -- counters --------------------------------------------------------------------------

    def take_read_failure(self) -> int | None:
        """The status to fail this read with, or None (counts the fault down)."""
        if self.fail_next == 0:
            return None
        if self.fail_next > 0:
            self.fail_next -= 1
        return self.fail_status

    def _take(self, table: dict[str, int], name: str) -> bool:
        count = table.get(name, 0)
        if count == 0:
            return False
        if count > 0:
            if count == 1:
                del table[name]
            else:
                table[name] = count - 1
        return True

    def take_mismatch(self, name: str) -> bool:
        return self._take(self.mismatch, name)

    def take_truncate(self, name: str) -> bool:
        return self._take(self.truncate, name)

    def take_write_failure(self) -> int | None:
        """The status to fail this issue POST with, or None (counts the fault down)."""
        if self.write_status is None or self.write_fail_next == 0:
            return None
        status = self.write_status
        if self.write_fail_next > 0:
            self.write_fail_next -= 1
            if self.write_fail_next == 0:
                self.write_status = None
        return status

    # -- (de)serialisation -----------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["malformed"] = sorted(self.malformed)
        data["schema_invalid"] = sorted(self.schema_invalid)
        data["unpublished"] = sorted(self.unpublished)
        return data

    def reset(self) -> None:
        for f in dataclasses.fields(self):
            default = Faults()
            setattr(self, f.name, getattr(default, f.name))
        self.budget_serial += 1

    def update(self, changes: dict[str, Any]) -> None:
        """Merge knobs from JSON; raises ``FaultsError`` and changes nothing on a bad value."""
        if not isinstance(changes, dict):
            raise FaultsError("faults must be a JSON object")
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise FaultsError(f"unknown fault knob(s): {', '.join(unknown)}")
        staged = dataclasses.replace(
            self,
            mismatch=dict(self.mismatch),
            truncate=dict(self.truncate),
            malformed=set(self.malformed),
            schema_invalid=set(self.schema_invalid),
            unpublished=set(self.unpublished),
        )
        for key, value in changes.items():
            setattr(staged, key, _coerce(key, value))
        if "write_status" in changes and "write_fail_next" not in changes:
            staged.write_fail_next = 1 if staged.write_status is not None else 0
        if staged.write_variant not in WRITE_VARIANTS:
            raise FaultsError(f"write_variant must be one of {', '.join(WRITE_VARIANTS)}")
        for f in dataclasses.fields(self):
            setattr(self, f.name, getattr(staged, f.name))
        if {"rest_read_budget", "rest_read_reset"} & set(changes):
            self.budget_serial += 1


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _coerce(key: str, value: Any) -> Any:
    if key in ("latency", "write_latency", "process_delay", "inbox_delay"):
        most = 86_400 if key == "inbox_delay" else 600  # the real inbox runs every two hours
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= most:
            raise FaultsError(f"{key} must be a number of seconds between 0 and {most}")
        return float(value)
    if key in ("fail_next", "write_fail_next"):
        if not _is_int(value) or value < -1:
            raise FaultsError(f"{key} must be an integer >= -1 (-1: until reset)")
        return value
    if key == "fail_status":
        if not _is_int(value) or not 400 <= value <= 599:
            raise FaultsError("fail_status must be an HTTP error status (400-599)")
        return value
    if key == "write_status":
        if value is not None and value not in WRITE_STATUSES:
            raise FaultsError(
                f"write_status must be null or one of {', '.join(map(str, WRITE_STATUSES))}"
            )
        return value
    if key == "retry_after":
        if not _is_int(value) or value < 0:
            raise FaultsError("retry_after must be a non-negative integer")
        return value
    if key in ("mismatch", "truncate"):
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and _is_int(v) and v >= -1 for k, v in value.items()
        ):
            raise FaultsError(f"{key} must map file names to integers >= -1")
        return {k: v for k, v in value.items() if v != 0}
    if key in ("malformed", "schema_invalid", "unpublished"):
        if not isinstance(value, list | set | tuple) or not all(isinstance(v, str) for v in value):
            raise FaultsError(f"{key} must be a list of file names")
        return set(value)
    if key in ("no_manifest", "drop_labels", "forge_verdicts", "no_skill"):
        if not isinstance(value, bool):
            raise FaultsError(f"{key} must be true or false")
        return value
    if key == "discussions_cache":
        if value not in (None, *CACHE_FORMS):
            raise FaultsError(f"discussions_cache must be null or one of {', '.join(CACHE_FORMS)}")
        return value
    if key in ("rest_read_budget", "rest_read_reset"):
        if value is not None and (not _is_int(value) or value < 0):
            raise FaultsError(f"{key} must be null or an integer >= 0")
        return value
    if key == "write_variant":
        if value not in WRITE_VARIANTS:
            raise FaultsError(f"write_variant must be one of {', '.join(WRITE_VARIANTS)}")
        return value
    raise FaultsError(f"unknown fault knob: {key}")  # pragma: no cover - guarded by caller


# ---------------------------------------------------------------------------------------------
# Byte transformations used by the faults


def corrupt_same_size(data: bytes) -> bytes:
    """Bytes of the same length that differ from ``data`` and stay valid JSON when it is.

    The last digit is changed (a digit inside a number or a string stays well-formed), which
    models a stale or racing upload rather than line noise. Without digits, a whitespace byte is
    swapped for another; failing that, the final byte is flipped.
    """
    for index in range(len(data) - 1, -1, -1):
        byte = data[index]
        if 0x30 <= byte <= 0x39:
            replacement = b"1" if byte != 0x31 else b"2"
            return data[:index] + replacement + data[index + 1 :]
    for index in range(len(data) - 1, -1, -1):
        if data[index] in b" \n":
            swapped = b"\n" if data[index] == 0x20 else b" "
            return data[:index] + swapped + data[index + 1 :]
    if not data:
        return b" "
    return data[:-1] + bytes([data[-1] ^ 0x01])


def malformed_bytes(data: bytes) -> bytes:
    """Invalid JSON derived from ``data``: the document is cut short mid-way."""
    cut = max(1, len(data) * 2 // 3)
    return data[:cut] + b"\n<<< the rest of this file was lost >>>\n"


_FIRST_INT = re.compile(rb'(": )(-?\d+)(,?\n)')


def schema_invalid_bytes(data: bytes) -> bytes:
    """Valid JSON whose first integer field value became a string ("not-a-number")."""
    match = _FIRST_INT.search(data)
    if match is None:
        return b'{"unexpected": "shape"}'
    return data[: match.start(2)] + b'"not-a-number"' + data[match.end(2) :]
