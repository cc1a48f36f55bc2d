"""The demo hub's publications: eleven seed-boot records, their eggs and the hub index, and a
small store of rapplications whose eggs are legacy ones (``store/``).

Everything is a pure function of the hub URL (the records' ``egg.url`` and document URLs name
it), so two runs publish byte-identical eggs and records. The eggs are packed by
:mod:`tui.sandbox.eggs` and pass every check roost makes; the layout under the hub URL is the
real hub's:

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
from tui.sandbox.eggs import (
    HATCHER,
    SeedBootSpec,
    build_seed_boot,
    json_bytes,
    legacy_manifest_bytes,
    pack_legacy_egg,
)

__all__ = [
    "FOREIGN_HUB",
    "INDEX_PATH",
    "RECORD_PREFIX",
    "STORE_INDEX",
    "HubContent",
    "HubRecord",
    "StoreContent",
    "build_hub",
    "build_store",
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


# ---------------------------------------------------------------------- the demo store

#: Under the hub URL: the store's static API, served by the demo hub.
STORE_PREFIX = "store/api/v1/"
STORE_INDEX = STORE_PREFIX + "index.json"
_STORE_UTC = "2026-06-08T01:25:00Z"
_ORIGIN_RAPPID = "rappid:@rapp/origin:0b635450c04249fbb4b1bdb571044dec"

# id, name, publisher, category, version, rappid tail, shape ("brainstem", "organ", "rapp-egg", None)
_APPS: tuple[tuple[str, str, str, str, str, str, str | None], ...] = (
    ("field_notes", "Field Notes", "@demo", "productivity", "1.2.0",
     "3f2a9c1e5b7d4a60912c8e7f1a2b3c4d", "brainstem"),
    ("tide_tables", "Tide Tables", "@harbor", "science", "0.4.1",
     "8b1e2f3a4c5d6e7f8091a2b3c4d5e6f7", "organ"),
    ("pocket_ledger", "Pocket Ledger", "@ledger", "finance", "1.0.0",
     "", "rapp-egg"),
    ("quiet_hours", "Quiet Hours", "@guild", "creative", "0.2.0",
     "c0ffee00c0ffee00c0ffee00c0ffee00", None),
)  # fmt: skip


@dataclass(frozen=True)
class StoreContent:
    """What the demo store serves under ``{hub_url}/store/``: paths -> bytes."""

    index: bytes
    documents: dict[str, bytes]  # store-relative path -> record bytes
    eggs: dict[str, bytes]  # store-relative path -> egg bytes


def _agent_source(app_id: str, name: str) -> bytes:
    return (
        f'"""{name}: a demo rapplication\'s agent (inert text: nothing runs it)."""\n\n'
        f"AGENT_ID = {app_id!r}\n\n\ndef describe() -> str:\n    return {name!r}\n"
    ).encode()


def _legacy_egg(app: tuple[str, str, str, str, str, str, str | None]) -> bytes | None:

    app_id, name, publisher, _, version, tail, shape = app
    if shape is None:
        return None
    agent = _agent_source(app_id, name)
    page = f"<!doctype html><title>{name}</title><p>{name}, version {version}.</p>\n".encode()
    if shape == "rapp-egg":  # the older shape: files at the top, manifest first
        manifest: dict[str, Any] = {
            "schema": "rapp-egg/1.0", "type": "rapplication", "id": app_id, "version": version,
            "exported_at": _STORE_UTC, "agent_filename": f"{app_id}_agent.py",
            "service_filename": None, "ui_filename": "index.html",
        }  # fmt: skip
        return pack_legacy_egg(
            [("manifest.json", legacy_manifest_bytes(manifest)),
             (f"{app_id}_agent.py", agent), ("ui/index.html", page)]
        )  # fmt: skip
    rappid = f"rappid:{publisher}/{app_id}:{tail}"
    identity = {
        "schema": "rapp-rappid/2.0", "rappid": rappid, "parent_rappid": _ORIGIN_RAPPID,
        "kind": "rapplication", "name": name, "version": version, "publisher": publisher,
        "rapp_id": app_id, "born_at": _STORE_UTC,
    }  # fmt: skip
    organ = f"{app_id}_organ.py" if shape == "organ" else None
    manifest = {
        "schema": "brainstem-egg/2.2-rapplication", "type": "rapplication", "exported_at": _STORE_UTC,
        "rappid": rappid, "rapp_id": app_id, "name": name, "version": version,
        "publisher": publisher, "host": "demo-store", "agent_filename": f"{app_id}_agent.py",
        "organ_filename": organ, "has_skin": True,
        "counts": {"agent": 1, "ui": 1, "data": 0, "soul": 0, "organ": 1 if organ else 0},
    }  # fmt: skip
    entries = [
        ("rappid.json", legacy_manifest_bytes(identity)),
        (f"agents/{app_id}_agent.py", agent),
    ]
    if organ is not None:
        entries.append((f"organs/{organ}", b'"""An inert demo organ."""\n' * 40))
    entries.append((f"rapp_ui/{app_id}/index.html", page))
    entries.append(("manifest.json", legacy_manifest_bytes(manifest)))  # last, as the store does
    return pack_legacy_egg(entries)


def build_store(hub_url: str, foreign: Iterable[str] = ()) -> StoreContent:
    """The demo store at ``{hub_url}/store/``; apps of the ``foreign`` ids name an egg URL on
    another host (a fault: roost must refuse to download it)."""
    return _build_store(hub_url.rstrip("/"), frozenset(foreign))


@lru_cache(maxsize=8)
def _build_store(hub_url: str, foreign: frozenset[str]) -> StoreContent:
    base = f"{hub_url}/{STORE_PREFIX}"
    documents: dict[str, bytes] = {}
    eggs: dict[str, bytes] = {}
    listed = []
    for app in _APPS:
        app_id, name, publisher, category, version, tail, shape = app
        egg = _legacy_egg(app)
        egg_url = None
        if egg is not None:
            eggs[f"egg/{app_id}.egg"] = egg
            egg_url = (FOREIGN_HUB + "/store/" if app_id in foreign else base) + f"egg/{app_id}.egg"
        agent = _agent_source(app_id, name)
        record = {
            "schema": "rapp-pokedex-rapp/1.0", "id": app_id, "kind": "rapplication",
            "name": name, "rappid": f"rappid:{publisher}/{app_id}:{tail}" if tail else None,
            "version": version, "publisher": publisher, "category": category,
            "summary": f"{name}: a demo rapplication of the demo store.",
            "parent_rappid": _ORIGIN_RAPPID, "has_skin": True,
            "singleton_bytes": len(agent), "singleton_sha256": hashlib.sha256(agent).hexdigest(),
            "egg_url": egg_url, "egg_bytes": len(egg) if egg is not None else None,
            "self_url": f"{base}rapplication/{app_id}.json",
        }  # fmt: skip
        if egg is None:
            record["egg_note"] = "Stateless: the store ships no egg for it."
        documents[f"rapplication/{app_id}.json"] = json_bytes(record)
        listed.append(
            {"id": app_id, "name": name, "kind": "rapplication", "publisher": publisher,
             "category": category, "version": version, "has_skin": True,
             "url": f"{base}rapplication/{app_id}.json", "egg": egg_url}
        )  # fmt: skip
    index = {
        "schema": "rapp-pokedex-api/1.0", "name": "The demo store", "version": "1.0.0",
        "generated_at": _STORE_UTC, "count": len(listed), "self_url": f"{base}index.json",
        "rapplications": listed,
    }  # fmt: skip
    return StoreContent(json_bytes(index), documents, eggs)
