"""How the store words what went wrong: one line each, credentials redacted, never a traceback
(the problems view, the status bar and `roost state` show these lines as they are).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

from datetime import datetime

from tui.network.fetch import FetchError, FetchResult
from tui.network.models import StateValidationError
from tui.network.urls import redact_url

__all__ = [
    "describe_bug",
    "describe_status",
    "fetch_detail",
    "parse_time",
    "validation_detail",
]


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def describe_bug(exc: BaseException) -> str:
    """A bug's one-line description: its type and message, never a traceback."""
    return f"{type(exc).__name__}: {str(exc)[:200]}"


def fetch_detail(exc: FetchError) -> str:
    """A failed request's reason and the URL tried (redacted by FetchError)."""
    return f"{exc.reason} ({exc.url})"


def describe_status(result: FetchResult, url: str) -> str:
    """e.g. 'HTTP 404 from https://host/state/agents.json' (credentials redacted)."""
    text = f"HTTP {result.status} from {redact_url(url)}"
    if result.retry_after:
        text += f" (retry after {result.retry_after}s)"
    return text


def validation_detail(exc: StateValidationError) -> str:
    shown = "; ".join(f"{path}: {message}" for path, message in exc.errors)
    more = f" (+{exc.total - len(exc.errors)} more)" if exc.total > len(exc.errors) else ""
    return f"{shown}{more}"
