"""Service URLs: checked once when settings are read, and redacted wherever they are shown.

A read URL may carry credentials (``http://alice:pw@host/``). They must never reach the screen, a
JSON report, an error message or a file name, so everything that shows or names a URL goes through
:func:`redact_url`. :func:`check_url` is what the settings use to refuse a URL that would fail
later with a traceback (bad brackets, a port past 65535, control characters, no host).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "check_url",
    "layout_candidates",
    "origin_of",
    "redact_url",
    "same_origin",
    "state_base_url",
]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_OR_SPACE = re.compile(r"[\x00-\x20\x7f-\x9f]")


def redact_url(url: str) -> str:
    """``http://alice:pw@host/x`` → ``http://***@host/x``; anything unparsable becomes a hint.

    Control characters are escaped too, so the result is safe to print on one line.
    """
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            netloc = "***@" + netloc.rpartition("@")[2]
        shown = urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
    except ValueError:
        # an unparsable URL may still hold "user:pw@": show only what cannot be a secret
        shown = url.rpartition("@")[2] if "@" in url else url
        shown = "<unparsable URL> " + shown[:80]
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", shown)


def origin_of(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of ``url``, the port filled in from the scheme."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    return scheme, (parts.hostname or "").lower(), port


def same_origin(url: str, other: str) -> bool:
    """Whether two URLs share scheme, host and port (the token's boundary, and the one a
    read-side redirect may not cross)."""
    return origin_of(url) == origin_of(other)


def check_url(url: str) -> str | None:
    """Why ``url`` cannot be used as an http(s) base URL, or None when it can."""
    if _CONTROL_OR_SPACE.search(url):
        return "contains a control character or a space"
    try:
        parts = urlsplit(url)
        port = parts.port  # raises ValueError for a port out of range or not a number
        host = parts.hostname
    except ValueError as exc:
        return f"is not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "must start with http:// or https://"
    if not host:
        return "has no host"
    if port == 0:
        return "has port 0"
    return None


#: Branches tried when a repository is named without one.
DEFAULT_BRANCHES = ("main", "master")


def layout_candidates(read_url: str) -> list[str]:
    """Other folders the state files may be in when ``{read_url}/state/`` has no manifest, in
    the order to try them (each ends with ``/``; none repeats ``{read_url}/state/``):

    * the read URL itself (it already is the folder that holds the files);
    * a repository named without a branch, ``https://raw.githubusercontent.com/OWNER/REPO`` (or
      any ``https://host/OWNER/REPO``): ``…/main/state/``, then ``…/master/state/``;
    * a repository's web page, ``https://github.com/OWNER/REPO[/tree|blob/BRANCH[/PATH]]``: the
      same folders on ``raw.githubusercontent.com``.
    """
    base = read_url.rstrip("/")
    if base.endswith("/state"):
        base = base[: -len("/state")]
    try:
        parts = urlsplit(base)
    except ValueError:
        return []
    candidates = [read_url.rstrip("/") + "/"]
    segments = [s for s in parts.path.split("/") if s]
    if parts.hostname in ("github.com", "www.github.com") and len(segments) >= 2:
        owner, repo = segments[0], segments[1].removesuffix(".git")
        raw = f"https://raw.githubusercontent.com/{owner}/{repo}"
        if len(segments) >= 4 and segments[2] in ("tree", "blob"):
            rest = "/".join(segments[3:])
            candidates += [f"{raw}/{rest}/state/", f"{raw}/{rest}/"]
        else:
            candidates += [f"{raw}/{branch}/state/" for branch in DEFAULT_BRANCHES]
    elif len(segments) == 2:
        candidates += [f"{base}/{branch}/state/" for branch in DEFAULT_BRANCHES]
    own = base + "/state/"
    seen: list[str] = []
    for candidate in candidates:
        if candidate != own and candidate not in seen:
            seen.append(candidate)
    return seen


def state_base_url(read_url: str) -> str:
    """``https://host/x`` and ``https://host/x/state/`` both mean the files under ``/x/state/``."""
    base = read_url.rstrip("/")
    if base.endswith("/state"):
        base = base[: -len("/state")]
    return base + "/state/"
