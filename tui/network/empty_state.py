"""Why a tab shows nothing: the sentence an empty table or panel says instead of "no data yet".

The store already knows why a state file is not loaded (its :class:`~tui.network.store.FileState`
carries the integrity state and the :class:`~tui.network.store.Problem`); this turns that into
what happened and what the user can do about it. The text is plain and cleaned
(:func:`tui.untrusted.clean`): a problem's detail can quote the service.
"""

from __future__ import annotations

from tui.network.store import FileState, StoreStatus
from tui.untrusted import clean, truncate

__all__ = ["not_loaded_text"]

_RETRY = "press r to retry"
_KEPT = "; keeping the last good copy"  # the store's wording when there was one; here there is not
_INVALID_JSON = "$: Invalid JSON: "


def not_loaded_text(
    state: FileState,
    *,
    status: StoreStatus,
    refreshed: bool,
    failure: str | None = None,
) -> str:
    """What to show while ``state``'s file has no loaded copy.

    ``refreshed``: a refresh cycle has completed since start (before that, "loading…").
    ``failure``: the refresh loop itself failed (an error outside the store's own handling).
    """
    name = state.name
    problem = state.problem
    kind = problem.kind if problem is not None else None
    detail = truncate(problem.detail.removesuffix(_KEPT), 200) if problem is not None else ""
    if kind == "mismatch":
        text = f"{name} failed its integrity check: {detail} \u2014 {_RETRY}"
    elif kind == "invalid" and detail.startswith(_INVALID_JSON):
        reason = detail.removeprefix(_INVALID_JSON)
        text = (
            f"{name} is not valid JSON: {reason} \u2014 showing nothing until a valid copy arrives"
        )
    elif kind == "invalid":
        text = (
            f"{name} does not have the expected shape: {detail} \u2014 showing nothing until a "
            "valid copy arrives"
        )
    elif kind == "too-large":
        text = f"{name} is {detail} \u2014 not loaded"
    elif kind == "missing":
        text = f"{name} is not on the service ({detail}) \u2014 {_RETRY}"
    elif kind == "http":
        text = f"{name}: the service answered {detail} \u2014 {_RETRY}"
    elif kind == "too-slow":
        text = (
            f"{name} did not arrive in time ({detail}): the service or the network is too slow "
            f"\u2014 {_RETRY}"
        )
    elif kind == "encoding":
        text = (
            f"{name} came compressed in a way roost refuses ({detail}): a server or proxy on "
            f"the way is misconfigured \u2014 {_RETRY}"
        )
    elif kind == "bad-reply":
        text = f"the service's reply for {name} was unusable ({detail}) \u2014 {_RETRY}"
    elif kind == "internal":
        text = (
            f"roost failed to process {name} ({detail}): a bug in roost, please report it "
            f"with ! (the problems view) \u2014 {_RETRY}"
        )
    elif kind == "cache":
        text = (
            f"the cached copy of {name} was damaged and dropped ({detail}); it is fetched "
            f"afresh \u2014 {_RETRY} if it does not appear"
        )
    elif kind == "network" or status.state in ("offline", "backing-off"):
        reason = status.last_error or detail
        because = f" ({truncate(reason, 120)})" if reason else ""
        text = f"offline \u2014 no cached copy of {name} yet{because}; {_RETRY}"
    elif failure is not None:
        text = f"the refresh failed: {truncate(failure, 160)} \u2014 {_RETRY}"
    elif not refreshed:
        text = "loading\u2026"
    elif problem is not None:
        text = f"{name} is not loaded: {kind}: {detail} \u2014 {_RETRY}"
    else:
        text = f"{name} is not loaded yet \u2014 {_RETRY}"
    return clean(text)
