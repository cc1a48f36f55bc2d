"""Where a hub publishes its index, boot records and eggs.

Kept apart from the models so `roost` can name the demo hub's index without loading them.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from urllib.parse import urlsplit

__all__ = [
    "DEMO_STORE_PATH",
    "EGG_PREFIX",
    "INDEX_PATH",
    "PUBLIC_HUB_URL",
    "RECORD_PREFIX",
    "demo_sources",
    "hub_root",
    "index_url",
    "is_url",
    "records_hub",
    "OFFLINE",
    "split_sources",
    "hub_for_record",
    "is_loopback",
    "scheme_problem",
]

#: The hub that publishes the real boot records; eggs come from here unless a hub is configured.
PUBLIC_HUB_URL = "https://kody-w.github.io/rapp-hive-hub"
INDEX_PATH = "api/hive-hub/v1/organization-seeds.json"
RECORD_PREFIX = "api/hive-hub/v1/seed-boots/sha256/"
EGG_PREFIX = "api/hive-hub/v1/seed-boots/downloads/sha256/"
#: What a row says when the hub (or store) could not be reached at all.
OFFLINE = "offline: the hub could not be reached"
#: Where the demo hub also serves a small store of rapplications (legacy eggs).
DEMO_STORE_PATH = "store/api/v1/index.json"


def index_url(hub_url: str) -> str:
    """The hub's index document: the boot-record source of a hub."""
    return hub_url.rstrip("/") + "/" + INDEX_PATH


def demo_sources(hub_url: str) -> str:
    """The demo network's ``boots``: its hub's index and its store's, both on the demo hub."""
    root = hub_url.rstrip("/")
    return f"{index_url(root)},{root}/{DEMO_STORE_PATH}"


def is_url(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def split_sources(value: str) -> list[str]:
    """The sources a ``boots`` setting names: one, or several separated by commas (a path that
    exists as it is given is one source, commas and all)."""
    if not is_url(value) and Path(value).exists():
        return [value]
    return [part.strip() for part in value.split(",") if part.strip()]


def records_hub(source: str, *, configured: str | None, demo_hub: str | None = None) -> str | None:
    """The hub a source's records must point their eggs at: the one the user configured; for the
    demo network's own publications, the demo hub; for a hub index read from its URL, that hub;
    else None (a file, a folder, an array: each record is held to its own hub). The demo hub is
    never assumed for anything the demo did not publish."""
    if configured:
        return configured.rstrip("/")
    if demo_hub and source.startswith(demo_hub.rstrip("/") + "/"):
        return demo_hub.rstrip("/")
    root = hub_root(source)
    return root if root is not None and is_url(root) else None


def is_loopback(url: str) -> bool:
    """``url``'s host is this machine (localhost, 127.0.0.0/8, ::1)."""

    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def scheme_problem(url: str) -> str | None:
    """Why ``url`` may not name a hub: an https URL, or http:// on loopback only."""
    if url.startswith("https://") or (url.startswith("http://") and is_loopback(url)):
        return None
    return f"{url!r} is not an https URL (http:// only on loopback)"


def hub_for_record(own_hub: str | None, configured: str | None) -> tuple[str | None, str | None]:
    """``(the hub egg.url is held to, the copy eggs are downloaded from)`` for a record whose
    ``egg.url`` names ``own_hub``. A configured hub holds the record, except a record naming the
    public hub while another hub is configured: that hub is a copy of the public one, so the
    record stays held to its own (public) hub and its egg is downloaded from the copy."""
    if configured is None:
        return None, None
    configured = configured.rstrip("/")
    if (
        own_hub is not None
        and own_hub.rstrip("/") == PUBLIC_HUB_URL
        and configured != PUBLIC_HUB_URL
    ):
        return PUBLIC_HUB_URL, configured
    return configured, None


def hub_root(source: str) -> str | None:
    """The hub root of an index read from ``…/api/hive-hub/v1/organization-seeds.json``."""
    normalized = source.replace("\\", "/")
    if normalized.endswith("/" + INDEX_PATH):
        return source[: -len(INDEX_PATH) - 1]
    return None
