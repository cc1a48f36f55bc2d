"""Service URLs: checked once when settings are read, and redacted wherever they are shown.

A read URL may carry credentials (``http://alice:pw@host/``). They must never reach the screen, a
JSON report, an error message or a file name, so everything that shows or names a URL goes through
:func:`redact_url`. :func:`check_url` is what the settings use to refuse a URL that would fail
later with a traceback (bad brackets, a port past 65535, control characters, no host).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

__all__ = ["check_url", "redact_url"]

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
