"""What the read interface and the issue API share about HTTP: the JSON media type and
conditional requests (``If-None-Match`` against an ``ETag``), so a polling client pays nothing
when nothing changed.
"""

from __future__ import annotations

__all__ = ["JSON_TYPE", "etag_matches"]

JSON_TYPE = "application/json; charset=utf-8"


def etag_matches(header: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (weak or strong, or ``*``)."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    bare = etag.strip('"')
    for candidate in header.split(","):
        candidate = candidate.strip()
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        if candidate.strip('"') == bare:
            return True
    return False
