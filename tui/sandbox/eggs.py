"""The demo hub's egg packer: deterministic RAPP/1 eggs and the seed-boot records that point at them.

It writes exactly the container RAPP/1 prescribes (stored entries, flags 0x0800,
time 0 / date 0x0021, ``manifest.json`` first, no extras, comments, ZIP64 or descriptors; the
hub's version-made-by 0x0314 and external attributes 0o600 << 16) and the seed-boot contents of
§8, so the demo network exercises every check roost makes. The bytes are a pure function of
the inputs: the same seed gives the same egg, sha256 and address on every run.

The organ and the seed files are inert stand-ins written for the demo; nothing here runs them.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import struct
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tui.eggs import rapp
from tui.eggs.boot_record import BOOT_SCHEMA, egg_path_for, egg_url_for
from tui.eggs.canonical_json import canonical

__all__ = [
    "ORGAN_PATH",
    "PackError",
    "SeedBootSpec",
    "build_seed_boot",
    "json_bytes",
    "legacy_manifest_bytes",
    "pack_egg",
    "pack_legacy_egg",
    "write_stored_zip",
]

LOCAL = struct.Struct("<IHHHHHIIIHH")
CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
END = struct.Struct("<IHHHHIIH")
LOCAL_SIG, CENTRAL_SIG, END_SIG = 0x04034B50, 0x02014B50, 0x06054B50
VERSION_NEEDED = 20
MADE_BY = 0x0314
EXTERNAL_ATTR = 0o600 << 16
UTF8_FLAG = 0x0800
DOS_TIME, DOS_DATE = 0x0000, 0x0021

ORGAN_NAME = "SeedRunner"
ORGAN_PATH = "agents/rapp_seed_runner_agent.py"
INSTALLER = "curl -fsSL https://kody-w.github.io/rapp-installer/install.sh | bash"
MIN_VERSION = "0.6.16"
HATCHER = {
    "path": "hub/boot/hatch_seed.py",
    "sha256": "49b210e0c762eefad2602c3c1db93ab00d73d7edd5cd353c703fb408352a07d0",
}
HATCH_EFFECTS = [
    "Creates ~/.brainstem/twin with this seed record, a fresh instance RAPPID and a RAPP/1 birth frame",
    "Clones RAPP/1 and the RAPP Work SDK at the seed's pinned commits",
    "Imports SeedRunner through the Brainstem's POST /agents/import with its SHA-256",
    "Activates nothing: the owner approves SeedRunner's exact activation digest first",
]
DEPS = {
    "protocol": {
        "id": "rapp/1",
        "repository": "https://github.com/kody-w/rapp-1",
        "commit": "591e014ad39e223b00ab343ae26e5d9a867ebeee",
        "reference_sha256": "1a04362b02f14c1e37b70c6b4f72d79e92df1cc9c2b5b394e8e1b141fc0b6050",
        "specification_sha256": "348e7d5baa94aaf2ce4c5354f3cb261f389298a04af65e271a686d3b62f7c384",
    },
    "sdk": {
        "repository": "https://github.com/kody-w/rapp-work",
        "commit": "29ead23b21645f8d7682ee00414930ffa9ce0ca6",
        "entrypoint": "src/rapp_work/cli.py",
        "entrypoint_sha256": "be5a5c5a07119cda5544008a1b9b9832a74c3277c6b6f466039f66613e818a0d",
        "profile": "rapp-work-sdk/1",
        "protocol": "rapp-work/1",
    },
}
HATCH_NOTE = (
    "verify this egg; mint a fresh instance rappid; record grown_from; "
    "import each organ via POST /agents/import with its sha256"
)


class PackError(ValueError):
    """RAPP/1's producer rules refuse these inputs (nothing is emitted)."""


def json_bytes(value: Any) -> bytes:
    """Compact, key-sorted JSON plus a newline, non-ASCII literal: how the hub writes egg files."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (text + "\n").encode("utf-8")


def write_stored_zip(entries: Sequence[tuple[str | bytes, bytes]]) -> bytes:
    """A §5.1 archive of ``entries`` in the given order, with no validation of names or order.

    Tests build tampered eggs with it; :func:`pack_egg` is the validating producer.
    """
    out = io.BytesIO()
    central: list[bytes] = []
    for name, data in entries:
        raw_name = name if isinstance(name, bytes) else name.encode("utf-8")
        crc = zlib.crc32(data)
        offset = out.tell()
        fields = (VERSION_NEEDED, UTF8_FLAG, 0, DOS_TIME, DOS_DATE, crc, len(data), len(data))
        out.write(LOCAL.pack(LOCAL_SIG, *fields, len(raw_name), 0) + raw_name)
        out.write(data)
        header = CENTRAL.pack(
            CENTRAL_SIG, MADE_BY, *fields, len(raw_name), 0, 0, 0, 0, EXTERNAL_ATTR, offset
        )
        central.append(header + raw_name)
    cd_offset = out.tell()
    directory = b"".join(central)
    out.write(directory)
    out.write(END.pack(END_SIG, 0, 0, len(central), len(central), len(directory), cd_offset, 0))
    return out.getvalue()


def pack_egg(
    *,
    variant: str,
    rappid: str,
    created_utc: str,
    payload: dict[str, Any],
    files: Mapping[str, bytes],
    sig: str | None = None,
) -> tuple[bytes, dict[str, Any]]:
    """Pack a ZIP-variant egg per the §7 producer rules; returns ``(egg bytes, manifest)``.

    The result is verified statically before it is returned, so a packer bug can never leave a
    demo egg that fails roost's own checks unnoticed.
    """
    if variant not in rapp.VARIANTS or variant in rapp.JSON_VARIANTS:
        raise PackError(f"variant {variant!r} is not a ZIP variant this packer writes")
    if not rapp.is_rappid(rappid):
        raise PackError(f"invalid rappid {rappid!r}")
    if not rapp.is_utc(created_utc):
        raise PackError(f"invalid created_utc {created_utc!r}")
    if not isinstance(payload, dict):
        raise PackError("payload must be a JSON object")
    if rapp.sig_problem(sig) is not None:
        raise PackError(f"malformed sig: {rapp.sig_problem(sig)}")
    for path, data in files.items():
        problem = rapp.path_problem(path)
        if problem is not None or path == rapp.MANIFEST_NAME:
            raise PackError(f"invalid packed path {path!r}: {problem or 'reserved name'}")
        if not isinstance(data, bytes):
            raise PackError(f"file {path!r} is not bytes")
    paths = sorted(files, key=rapp.path_sort_key)
    manifest = {
        "schema": rapp.SCHEMA,
        "variant": variant,
        "rappid": rappid,
        "created_utc": created_utc,
        "contents": [{"path": p, "hash": rapp.Hb("rapp/1:egg", files[p])} for p in paths],
        "payload": payload,
        "sig": sig,
    }
    egg = write_stored_zip(
        [(rapp.MANIFEST_NAME, canonical(manifest))] + [(p, files[p]) for p in paths]
    )
    from tui.eggs.verify import verify_egg  # deferred: off the start path

    report = verify_egg(egg)
    failed = [c for c in report.checks if c.status == "fail" and c.id != "signature"]
    if failed:
        raise PackError(f"the packed egg fails {failed[0].id}: {failed[0].detail}")
    return egg, manifest


# --------------------------------------------------------------------------- seed boots


@dataclass(frozen=True)
class SeedBootSpec:
    """The few inputs a demo seed boot is a pure function of."""

    slug: str
    name: str
    tagline: str
    mission: str
    created_utc: str = "2026-09-23T20:07:37.819Z"
    seed_files: Mapping[str, str] = field(default_factory=dict)
    organ_padding: int = 0


def _keyless_tail(slug: str) -> str:
    """A keyless rappid tail: Hb over UUIDv4-shaped bytes. Real ones come from random bytes; the
    demo derives them from the slug so every run publishes the same eggs."""
    raw = bytearray(hashlib.sha256(f"roost-demo-rappid:{slug}".encode()).digest()[:16])
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    return rapp.Hb("rapp/1:rappid", bytes(raw))


def organ_source(padding: int = 0) -> bytes:
    """The demo's inert SeedRunner stand-in (a docstring-only module; roost never runs it)."""
    text = (
        '"""SeedRunner (roost demo stand-in).\n\n'
        "Actions in order: status -> verify_seed -> plan -> activate (with the owner's exact\n"
        "activation digest) -> tasks / claim / deliver / complete. This demo file does nothing.\n"
        '"""\n'
    )
    if padding:
        text += "# " + ("seed-runner " * (padding // 12 + 1))[:padding] + "\n"
    return text.encode("utf-8")


def soul_text(name: str, slug: str, tagline: str, mission: str) -> str:
    """``soul.md`` as the hub's builder writes it (§8): persona, mission, order of work, limits."""
    return (
        f"# {name}\n\n"
        f"You are {name}, a RAPP Brainstem hatched from the Hive Hub organization seed `{slug}`. "
        f"{tagline}\n\n"
        f"Mission: {mission}\n\n"
        "## How you work\n\n"
        "Use SeedRunner in order: `status`, `verify_seed`, `plan`, then `activate` only with the "
        "owner's exact activation digest; after activation use `tasks`, `claim`, `deliver` and "
        "`complete`.\n\n"
        "## Never\n\n"
        "- Never activate without the owner's exact activation digest in their latest message.\n"
        "- Never read or write outside the seed's root.\n"
        "- Never push, publish or deploy.\n"
    )


def seed_archive(files: Sequence[tuple[str, bytes]]) -> bytes:
    """The seed's package ZIP as SeedRunner rebuilds it: stored, sorted, 2000-01-01, 0o100644."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for path, data in sorted(files):
            info = zipfile.ZipInfo(path, date_time=(2000, 1, 1, 0, 0, 0))
            info.external_attr = 0o100644 << 16
            info.create_system = 3
            archive.writestr(info, data)
    return out.getvalue()


def _seed_files(spec: SeedBootSpec) -> list[tuple[str, bytes]]:
    files = dict(spec.seed_files) or {
        "README.md": f"# {spec.name}\n\n{spec.tagline}\n",
        "seed.json": json.dumps({"slug": spec.slug, "mission": spec.mission}, sort_keys=True)
        + "\n",
        "teams/core.md": f"# Core team of {spec.name}\n\nOwns: {spec.mission}\n",
    }
    return sorted((path, text.encode("utf-8")) for path, text in files.items())


def seed_record(spec: SeedBootSpec) -> bytes:
    """A ``hive-hub-organization-seed/1`` record with its package files and archive (§8)."""
    files = _seed_files(spec)
    archive = seed_archive(files)
    world_id = f"demo-{spec.slug}"
    record = {
        "activation": {"grantsAuthority": False, "requires": [], "status": "not-activated"},
        "archive": {
            "base64": base64.b64encode(archive).decode("ascii"),
            "bytes": len(archive),
            "mediaType": "application/zip",
            "sha256": hashlib.sha256(archive).hexdigest(),
        },
        "blueprintSha256": hashlib.sha256(f"blueprint:{spec.slug}".encode()).hexdigest(),
        "case": {
            "brief": spec.tagline,
            "id": spec.slug,
            "inputs": [],
            "success_criteria": [spec.mission],
            "title": spec.name,
        },
        "classification": "public-synthetic",
        "counts": {
            "folderHiveFiles": 0,
            "packageFiles": len(files),
            "starterFiles": len(files),
            "tasks": 0,
            "teams": 1,
            "workspaces": 0,
        },
        "dependencies": {
            "activation": {"digest": "owner-approved"},
            "protocol": DEPS["protocol"],
            "schema": "hive-hub-organization-seed-dependencies/1",
            "sdk": DEPS["sdk"],
        },
        "files": [
            {
                "bytes": len(data),
                "content": data.decode("utf-8"),
                "path": path,
                "sha256": hashlib.sha256(data).hexdigest(),
            }
            for path, data in files
        ],
        "kind": "organization-seed",
        "mission": spec.mission,
        "name": spec.name,
        "organism": {"kind": "seed-boot-organism"},
        "organization": {
            "directory": spec.slug,
            "scaffold": {
                "kind": "organization",
                "mode": "demo",
                "slug": spec.slug,
                "world_id": world_id,
            },
        },
        "protocol": "rapp-work/1",
        "relatedSeeds": [],
        "schema": "hive-hub-organization-seed/1",
        "slug": spec.slug,
        "status": "seed-not-activated",
        "tagline": spec.tagline,
        "tasks": [],
        "workspaceProfile": "rapp-work-sdk/1",
        "workspaces": [],
    }
    return json_bytes(record)


def build_seed_boot(spec: SeedBootSpec, hub_url: str) -> tuple[bytes, dict[str, Any]]:
    """The seed-boot organism egg of ``spec`` and the boot record pointing at it on ``hub_url``."""
    rappid = f"rappid:@hive-hub/{spec.slug}-boot:{_keyless_tail(spec.slug)}"
    record_raw = seed_record(spec)
    archive_sha256 = json.loads(record_raw)["archive"]["sha256"]
    organ = organ_source(spec.organ_padding)
    organ_sha256 = hashlib.sha256(organ).hexdigest()
    files = {
        ORGAN_PATH: organ,
        "rappid.json": json_bytes(
            {"kind": "seed-boot-organism", "name": spec.name, "rappid": rappid, "schema": "rapp/1"}
        ),
        "seed/record.json": record_raw,
        "soul.md": soul_text(spec.name, spec.slug, spec.tagline, spec.mission).encode("utf-8"),
        "twin/profile.json": json_bytes(
            {
                "name": spec.name,
                "owner_label": "owner",
                "schema": "rapp-twin-profile/1",
                "seed_archive_sha256": archive_sha256,
                "slug": spec.slug,
            }
        ),
    }
    payload = {
        "kind": "rapp-seed-boot/1",
        "seed": {
            "slug": spec.slug,
            "name": spec.name,
            "world_id": f"demo-{spec.slug}",
            "archive_sha256": archive_sha256,
            "record": "seed/record.json",
        },
        "brainstem": {
            "installer": INSTALLER,
            "min_version": MIN_VERSION,
            "soul": "soul.md",
            "organs": [{"path": ORGAN_PATH, "sha256": organ_sha256}],
        },
        "deps": DEPS,
        "hatch": HATCH_NOTE,
    }
    egg, manifest = pack_egg(
        variant="organism",
        rappid=rappid,
        created_utc=spec.created_utc,
        payload=payload,
        files=files,
    )
    sha256 = hashlib.sha256(egg).hexdigest()
    path = egg_path_for(sha256)
    record = {
        "brainstem": {"hatcher": dict(HATCHER), "installer": INSTALLER, "minVersion": MIN_VERSION},
        "classification": "public-synthetic",
        "egg": {
            "address": rapp.egg_address(manifest),
            "bytes": len(egg),
            "mediaType": "application/zip",
            "path": path,
            "payloadKind": "rapp-seed-boot/1",
            "rappid": rappid,
            "ref": f"sha256:{sha256}",
            "sha256": sha256,
            "url": egg_url_for(hub_url, path),
            "utc": spec.created_utc,
            "variant": "organism",
        },
        "hatch": {"effects": list(HATCH_EFFECTS), "grantsAuthority": False},
        "kind": "organization-seed-boot",
        "name": spec.name,
        "organ": {"name": ORGAN_NAME, "path": ORGAN_PATH, "sha256": organ_sha256},
        "schema": BOOT_SCHEMA,
        "seed": {
            "archiveSha256": archive_sha256,
            "recordSha256": hashlib.sha256(record_raw).hexdigest(),
        },
        "slug": spec.slug,
        "status": "boot-not-hatched",
    }
    return egg, record


#: The DOS time every demo legacy egg carries (the store's exports keep theirs).
LEGACY_DATE_TIME = (2026, 6, 7, 21, 25, 0)


def pack_legacy_egg(entries: Sequence[tuple[str, bytes]]) -> bytes:
    """A pre-RAPP/1 egg as a store exports it: an ordinary ZIP of
    ``entries`` in the given order, deflated, general-purpose flags 0, DOS times set, regular
    files. The bytes are a pure function of the entries."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=LEGACY_DATE_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16
            info.create_system = 3
            archive.writestr(info, data)
    return out.getvalue()


def legacy_manifest_bytes(value: dict[str, Any]) -> bytes:
    """How a store writes a legacy ``manifest.json``: indented, not canonical."""
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
