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
    bare = _opaque(etag)
    return any(_opaque(candidate) == bare for candidate in header.split(","))


def _opaque(etag: str) -> str:
    """The opaque part of an entity tag: weak comparison ignores the ``W/`` prefix."""
    etag = etag.strip()
    return (etag[2:] if etag.startswith("W/") else etag).strip('"')
