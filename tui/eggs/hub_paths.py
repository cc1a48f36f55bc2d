"""Where a hub publishes its index, boot records and eggs (SPEC-egg.md §1.1, §1.5).

Kept apart from the models so `roost` can name the demo hub's index without loading them.
"""

from __future__ import annotations

__all__ = ["EGG_PREFIX", "INDEX_PATH", "PUBLIC_HUB_URL", "RECORD_PREFIX", "index_url"]

#: The hub that publishes the real boot records; eggs come from here unless a hub is configured.
PUBLIC_HUB_URL = "https://kody-w.github.io/rapp-hive-hub"
INDEX_PATH = "api/hive-hub/v1/organization-seeds.json"
RECORD_PREFIX = "api/hive-hub/v1/seed-boots/sha256/"
EGG_PREFIX = "api/hive-hub/v1/seed-boots/downloads/sha256/"


def index_url(hub_url: str) -> str:
    """The hub's index document: the boot-record source of a hub."""
    return hub_url.rstrip("/") + "/" + INDEX_PATH
