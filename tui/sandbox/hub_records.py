"""The demo hub's publications: eleven seed-boot records, their eggs and the hub index.

Everything is a pure function of the hub URL (the records' ``egg.url`` and document URLs name
it), so two runs publish byte-identical eggs and records. The eggs are packed by
:mod:`tui.sandbox.eggs` and pass every check roost makes; the layout under the hub URL is the
real hub's (SPEC-egg.md §1.1, §1.5):

* ``api/hive-hub/v1/organization-seeds.json``                  the index
* ``api/hive-hub/v1/seed-boots/sha256/<aa>/<D>.json``          one record, ``D`` = its sha256
* ``api/hive-hub/v1/seed-boots/downloads/sha256/<aa>/<S>.egg`` one egg, ``S`` = its sha256
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tui.eggs.boot_record import egg_url_for, record_bytes
from tui.eggs.hub_paths import INDEX_PATH, RECORD_PREFIX
from tui.sandbox.eggs import HATCHER, SeedBootSpec, build_seed_boot, json_bytes

__all__ = [
    "FOREIGN_HUB",
    "INDEX_PATH",
    "RECORD_PREFIX",
    "HubContent",
    "HubRecord",
    "build_hub",
    "demo_specs",
    "record_path_for",
]

#: Where a record with the "foreign url" fault points its egg (never served by the demo).
FOREIGN_HUB = "https://mirror.example.invalid/rapp-hive-hub"

_PINNED_UTC = "2026-09-23T20:07:37.819Z"

# slug, name, tagline, mission
_SEEDS: tuple[tuple[str, str, str, str], ...] = (
    (
        "harbor-logistics-cooperative",
        "The Harbor Logistics Cooperative",
        "Small shippers pooling one dispatch desk.",
        "Route every member's freight through one shared, auditable dispatch plan.",
    ),
    (
        "open-ledger-foundation",
        "The Open Ledger Foundation",
        "Stewards of a public bookkeeping standard.",
        "Keep the ledger format open, versioned and boring enough to trust.",
    ),
    (
        "night-shift-newsroom",
        "The Night Shift Newsroom",
        "A newsroom that works while the city sleeps.",
        "Verify overnight reports before the morning edition goes out.",
    ),
    (
        "seed-library-collective",
        "The Seed Library Collective",
        "Lending seeds, collecting harvest notes.",
        "Track every packet lent and every variety returned, season by season.",
    ),
    (
        "repair-cafe-network",
        "The Repair Café Network",
        "Fixing things instead of throwing them away.",
        "Match broken items with volunteers who can mend them, and log the fix.",
    ),
    (
        "tidewater-research-station",
        "The Tidewater Research Station",
        "Coastal measurements, published raw.",
        "Publish every tide and salinity reading with its calibration trail.",
    ),
    (
        "quiet-hours-translation-guild",
        "The Quiet Hours Translation Guild",
        "Translators who review each other's drafts.",
        "Turn every source text into two reviewed translations within a week.",
    ),
    (
        "municipal-data-desk",
        "The Municipal Data Desk",
        "A city's open data, kept current.",
        "Keep each public dataset fresh, documented and traceable to its source.",
    ),
    (
        "orchard-robotics-lab",
        "The Orchard Robotics Lab",
        "Machines that prune, pick and count.",
        "Build orchard robots whose every action is logged and reversible.",
    ),
    (
        "community-bandwidth-trust",
        "The Community Bandwidth Trust",
        "A neighbourhood that owns its network.",
        "Share one uplink fairly and publish the usage every month.",
    ),
    (
        "archive-restoration-studio",
        "The Archive Restoration Studio",
        "Bringing damaged records back to legibility.",
        "Restore each archive item and document every intervention made to it.",
    ),
)


def demo_specs() -> tuple[SeedBootSpec, ...]:
    """The eleven seeds; package files of varied size make the eggs differ in length."""
    specs = []
    for index, (slug, name, tagline, mission) in enumerate(_SEEDS):
        notes = "".join(
            f"- {mission} (step {step + 1} of {slug})\n" for step in range(40 + 37 * index)
        )
        files = {
            "README.md": f"# {name}\n\n{tagline}\n",
            "plan/steps.md": f"# Steps\n\n{notes}",
            "seed.json": f'{{"mission": "{mission}", "slug": "{slug}"}}\n',
            "teams/core.md": f"# Core team of {name}\n\nOwns: {mission}\n",
        }
        # two of the real hub's records carry a later pin; the demo mirrors that
        utc = _PINNED_UTC if index not in (3, 8) else f"2026-09-23T20:{37 + index}:24.481Z"
        specs.append(
            SeedBootSpec(
                slug=slug,
                name=name,
                tagline=tagline,
                mission=mission,
                created_utc=utc,
                seed_files=files,
            )
        )
    return tuple(specs)


def record_path_for(sha256: str) -> str:
    return f"{RECORD_PREFIX}{sha256[:2]}/{sha256}.json"


@dataclass(frozen=True)
class HubRecord:
    """One published record: its JSON value, exact bytes, sha256 and path under the hub."""

    slug: str
    value: dict[str, Any]
    raw: bytes
    sha256: str
    path: str


@dataclass(frozen=True)
class HubContent:
    """What the demo hub serves at one hub URL."""

    hub_url: str
    records: tuple[HubRecord, ...]
    eggs: dict[str, bytes]  # egg path -> bytes
    index: bytes
    documents: dict[str, bytes]  # record path -> bytes

    def record(self, slug: str) -> HubRecord:
        return next(r for r in self.records if r.slug == slug)


@lru_cache(maxsize=8)
def _eggs() -> tuple[tuple[bytes, dict[str, Any]], ...]:
    # the egg bytes do not depend on the hub URL; only the records' url member does
    return tuple(build_seed_boot(spec, "http://hub.invalid") for spec in demo_specs())


def build_hub(hub_url: str, foreign: Iterable[str] = ()) -> HubContent:
    """The hub's publications at ``hub_url``; records of the ``foreign`` slugs point their
    ``egg.url`` at :data:`FOREIGN_HUB` (a fault: roost must refuse to download them)."""
    return _build_hub(hub_url.rstrip("/"), frozenset(foreign))


@lru_cache(maxsize=32)
def _build_hub(hub_url: str, foreign: frozenset[str]) -> HubContent:
    records: list[HubRecord] = []
    eggs: dict[str, bytes] = {}
    entries: list[dict[str, Any]] = []
    for spec, (egg, template) in zip(demo_specs(), _eggs(), strict=True):
        value = {**template, "egg": dict(template["egg"])}
        path = value["egg"]["path"]
        base = FOREIGN_HUB if spec.slug in foreign else hub_url
        value["egg"]["url"] = egg_url_for(base, path)
        raw = record_bytes(value)
        sha256 = hashlib.sha256(raw).hexdigest()
        record = HubRecord(spec.slug, value, raw, sha256, record_path_for(sha256))
        records.append(record)
        eggs[path] = egg
        entries.append(_index_entry(spec, record, hub_url))
    index = json_bytes({"count": len(entries), "kind": "organization-seed-index", "seeds": entries})
    documents = {r.path: r.raw for r in records}
    return HubContent(hub_url, tuple(records), eggs, index, documents)


def _index_entry(spec: SeedBootSpec, record: HubRecord, hub_url: str) -> dict[str, Any]:
    """An index entry that references its record by ``{path, ref, url}`` as the real hub does."""
    egg = record.value["egg"]
    return {
        "boot": {
            "document": {
                "path": record.path,
                "ref": f"sha256:{record.sha256}",
                "url": egg_url_for(hub_url, record.path),
            },
            "egg": {
                key: egg[key]
                for key in ("address", "bytes", "mediaType", "path", "rappid", "ref", "sha256")
            }
            | {"url": egg["url"]},
            "hatcher": {
                **HATCHER,
                "ref": f"sha256:{HATCHER['sha256']}",
                "url": egg_url_for(hub_url, HATCHER["path"]),
            },
            "status": "boot-not-hatched",
        },
        "name": spec.name,
        "slug": spec.slug,
        "status": "seed-not-activated",
        "tagline": spec.tagline,
    }
