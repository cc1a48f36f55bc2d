"""RAPP/1 eggs packed the way the reference implementation's ``pack_egg`` packs them, every variant.

The reference (``rapp.py`` of the RAPP/1 repository) builds the manifest (``contents`` as
``{path, Hb("rapp/1:egg", bytes)}`` sorted by the UTF-8 bytes of the path; ``payload`` ``{}`` when
none; ``sig``), writes a JSON variant (session, invite) as exactly ``canonical(manifest)`` and a
ZIP variant with CPython's ``zipfile``: stored, ``manifest.json`` first then ``contents`` order,
every entry a ``ZipInfo`` dated 1980-01-01 with ``flag_bits |= 0x800``. ``zipfile`` resets the
flags when it writes an entry and sets 0x0800 itself only on a name that is not ASCII, so its
eggs carry flags 0x0000 on ASCII names (and version made by 0x0314, attributes 0o600 << 16):
what this module writes too, through the same ``zipfile`` calls. Nothing here is the
reference's code; the rules are restated.

:func:`corpus` gives one egg of every variant (a neighborhood of organisms, an estate of
neighborhoods); :data:`MUTATIONS` the changes the reference's ``verify_egg`` refuses, each with
the step it refuses at and the roost check that must fail first.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tui.eggs import rapp
from tui.eggs.canonical_json import canonical

UTC = "2026-12-01T09:30:00.000Z"
TAIL = "ab" * 32
TAIL2 = "cd" * 32


def rappid(owner: str, slug: str, tail: str = TAIL) -> str:
    return f"rappid:@{owner}/{slug}:{tail}"


def detached_jws(kid: str) -> str:
    """A well-formed detached JWS (canonical header, 64 signature bytes) no key made: a
    verifier without the signer's key cannot pass it, and says so."""
    header = canonical({"alg": "EdDSA", "b64": False, "crit": ["b64"], "kid": kid})

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")

    return f"{b64(header)}..{b64(bytes(64))}"


def contents_of(files: dict[str, bytes]) -> list[dict[str, str]]:
    items = [{"path": p, "hash": rapp.Hb("rapp/1:egg", data)} for p, data in files.items()]
    items.sort(key=lambda item: item["path"].encode("utf-8"))
    return items


def manifest_of(
    variant: str, egg_rappid: str, files: dict[str, bytes], payload: Any, sig: Any
) -> dict[str, Any]:
    return {
        "schema": "rapp/1-egg", "variant": variant, "rappid": egg_rappid, "created_utc": UTC,
        "contents": [] if variant in rapp.JSON_VARIANTS else contents_of(files),
        "payload": {} if payload is None else payload, "sig": sig,
    }  # fmt: skip


def zip_entries(entries: list[tuple[str, bytes]]) -> bytes:
    """``entries`` written in order as the reference writes them, through ``zipfile``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.flag_bits |= 0x800
            archive.writestr(info, data)
    return out.getvalue()


def pack(
    variant: str,
    egg_rappid: str,
    files: dict[str, bytes] | None = None,
    payload: Any = None,
    sig: Any = None,
    *,
    manifest: dict[str, Any] | None = None,
    entries: list[tuple[str, bytes]] | None = None,
) -> bytes:
    """The egg of these inputs. ``manifest`` / ``entries``: written instead of the ones the
    inputs give (how a mutation builds what the reference's producer would refuse to)."""
    files = dict(files or {})
    value = manifest if manifest is not None else manifest_of(variant, egg_rappid, files, payload, sig)  # fmt: skip
    raw = canonical(value)
    if variant in rapp.JSON_VARIANTS and entries is None:
        return raw
    if entries is None:
        entries = [(item["path"], files[item["path"]]) for item in value["contents"]]
    return zip_entries([("manifest.json", raw), *entries])


def identity(egg_rappid: str) -> bytes:
    return (json.dumps({"rappid": egg_rappid, "schema": "rapp/1"}, sort_keys=True) + "\n").encode()


def organism_files(egg_rappid: str) -> dict[str, bytes]:
    return {
        "rappid.json": identity(egg_rappid),
        "soul.md": b"# Night Owl\n\nYou keep the lights on.\n",
        "agents/night_owl_agent.py": b'"""Night Owl: inert text."""\nAGENT_ID = "night_owl"\n',
        "docs/caf\u00e9.md": "Notes from the caf\u00e9.\n".encode(),  # a name that is not ASCII
    }


def rapplication_files(egg_rappid: str) -> dict[str, bytes]:
    return {
        "rappid.json": identity(egg_rappid),
        "agent.py": b'"""Ledger: inert text."""\nAGENT_ID = "ledger"\n',
        "ui/index.html": b"<!doctype html><title>Ledger</title>\n",
    }


SESSION = {
    "runtime": "brainstem/0.6.16",
    "transcript": [
        {"role": "user", "text": "What changed overnight?", "utc": UTC},
        {"role": "assistant", "text": "Two tasks closed.", "utc": UTC},
    ],
}
ORGANISMS = (rappid("night", "owl"), rappid("early", "bird"))
NEIGHBORHOOD = rappid("night", "shift")
ESTATE = rappid("kody", "estate")
INVITE_TARGET = {"target_rappid": NEIGHBORHOOD, "target_url": "https://example.org/hood",
                 "target_kind": "neighborhood"}  # fmt: skip


def member_name(member: str) -> str:
    owner, slug, _ = rapp.rappid_parts(member)  # type: ignore[misc]
    return f"{owner}--{slug}.egg"


def organism(egg_rappid: str = ORGANISMS[0]) -> bytes:
    return pack("organism", egg_rappid, organism_files(egg_rappid))


def neighborhood(
    egg_rappid: str = NEIGHBORHOOD, members: tuple[str, ...] = ORGANISMS, eggs: dict | None = None
) -> bytes:
    files = {member_name(m): organism(m) for m in members}
    files.update(eggs or {})
    return pack("neighborhood", egg_rappid, files, {"members": list(members)})


def estate() -> bytes:
    return pack("estate", ESTATE, {member_name(NEIGHBORHOOD): neighborhood()},
                {"neighborhoods": [NEIGHBORHOOD]})  # fmt: skip


def corpus() -> dict[str, bytes]:
    """One reference-packed egg of every variant but ``sealed`` (the reference's list)."""
    app = rappid("kody", "ledger")
    return {
        "organism": organism(),
        "rapplication": pack("rapplication", app, rapplication_files(app)),
        "session": pack("session", rappid("kody", "chat"), payload=SESSION),
        "invite": pack(
            "invite", rappid("kody", "invite"), payload=INVITE_TARGET, sig=detached_jws(ESTATE)
        ),  # fmt: skip
        "neighborhood": neighborhood(),
        "estate": estate(),
    }


# --------------------------------------------------------------------------- mutations


@dataclass(frozen=True)
class Mutation:
    """A change the reference's ``verify_egg`` refuses: at ``step`` (its tag; ``a/b`` when the
    older reference says ``a`` and the newer, whose strict reader refuses it first, ``b``), and
    roost at ``check`` first. ``newer``: only the newer reference (rev-14 and later) refuses it."""

    name: str
    build: Callable[[], bytes]
    step: str
    check: str
    newer: bool = False


def _organism_with(**changes: Any) -> bytes:
    """An organism whose manifest is changed after it was built (files as they are)."""
    files = organism_files(ORGANISMS[0])
    value = manifest_of("organism", ORGANISMS[0], files, None, None)
    value.update(changes)
    return pack("organism", ORGANISMS[0], files, manifest=value)


def _stale_hash() -> bytes:
    files = organism_files(ORGANISMS[0])
    value = manifest_of("organism", ORGANISMS[0], files, None, None)
    files["soul.md"] += b"One more line.\n"
    return pack("organism", ORGANISMS[0], files, manifest=value)


def _missing_member() -> bytes:
    files = organism_files(ORGANISMS[0])
    value = manifest_of("organism", ORGANISMS[0], files, None, None)
    entries = [(i["path"], files[i["path"]]) for i in value["contents"] if i["path"] != "soul.md"]
    return pack("organism", ORGANISMS[0], files, manifest=value, entries=entries)


def _extra_member() -> bytes:
    files = organism_files(ORGANISMS[0])
    value = manifest_of("organism", ORGANISMS[0], files, None, None)
    entries = [(i["path"], files[i["path"]]) for i in value["contents"]]
    return pack("organism", ORGANISMS[0], files, manifest=value,
                entries=[*entries, ("zz-extra.txt", b"unlisted\n")])  # fmt: skip


def _unsorted() -> bytes:
    files = organism_files(ORGANISMS[0])
    value = manifest_of("organism", ORGANISMS[0], files, None, None)
    value["contents"].reverse()
    return pack("organism", ORGANISMS[0], files, manifest=value)


def _duplicate() -> bytes:
    files = organism_files(ORGANISMS[0])
    value = manifest_of("organism", ORGANISMS[0], files, None, None)
    value["contents"].insert(-1, value["contents"][-1])
    return pack("organism", ORGANISMS[0], files, manifest=value)


def _files_changed(change: Callable[[dict[str, bytes]], None], variant: str = "organism") -> bytes:
    files = organism_files(ORGANISMS[0]) if variant == "organism" else rapplication_files(ORGANISMS[0])  # fmt: skip
    change(files)
    return pack(variant, ORGANISMS[0], files)


def _member_not_its_rappid() -> bytes:
    """A neighborhood whose member file (named for ``night/owl``) holds another ``night/owl``."""
    impostor = rappid("night", "owl", TAIL2)
    return neighborhood(eggs={member_name(ORGANISMS[0]): organism(impostor)})


def _member_not_an_organism() -> bytes:
    app = ORGANISMS[0]
    return neighborhood(eggs={member_name(app): pack("rapplication", app, rapplication_files(app))})


def _json(payload: Any, variant: str = "session", sig: Any = None, **changes: Any) -> bytes:
    value = manifest_of(variant, rappid("kody", "chat"), {}, payload, sig)
    value.update(changes)
    return canonical(value)


MUTATIONS: tuple[Mutation, ...] = (
    Mutation("a content hash", _stale_hash, "§5", "integrity"),
    Mutation("a member missing from the archive", _missing_member, "§9.1/parse", "zip.order"),
    Mutation("an extra member in the archive", _extra_member, "§9.1/parse", "zip.order"),
    Mutation("contents not sorted", _unsorted, "§9.1", "manifest.sorted"),
    Mutation("a duplicate path", _duplicate, "§9.1/parse", "zip.names"),
    Mutation("a bad rappid", lambda: _organism_with(rappid="rappid:@Night/owl:" + TAIL), "§6.1",
             "manifest.rappid"),
    Mutation("a timestamp without milliseconds", lambda: _organism_with(created_utc="2026-12-01T09:30:00Z"),
             "§7.4", "manifest.utc"),
    Mutation("a timestamp on a day that does not exist",
             lambda: _organism_with(created_utc="2026-02-30T09:30:00.000Z"), "§7.4", "manifest.utc",
             newer=True),
    Mutation("an unknown variant", lambda: _organism_with(variant="hatchling"), "§9.2",
             "manifest.variant"),
    Mutation("a manifest member too many", lambda: _organism_with(extra=1), "§9.1",
             "manifest.members"),
    Mutation("another schema", lambda: _organism_with(schema="rapp/2-egg"), "§9.1",
             "manifest.schema"),
    Mutation("an organism without soul.md", lambda: _files_changed(lambda f: f.pop("soul.md")),
             "§9.2", "viability"),
    Mutation("an organism without rappid.json",
             lambda: _files_changed(lambda f: f.pop("rappid.json")), "§9.2", "viability",
             newer=True),
    Mutation("rappid.json naming another rappid",
             lambda: _files_changed(lambda f: f.update({"rappid.json": identity(ORGANISMS[1])})),
             "§9.2", "viability", newer=True),
    Mutation("a rapplication with two root .py files",
             lambda: _files_changed(lambda f: f.update({"extra.py": b"x = 1\n"}), "rapplication"),
             "§9.2", "viability"),
    Mutation("a session payload without its transcript", lambda: _json({"runtime": "x"}), "§9.2",
             "viability"),
    Mutation("an invite without a signature",
             lambda: _json(INVITE_TARGET, "invite"), "§9.2", "viability"),
    Mutation("an invite to a kind that is not a neighborhood or estate",
             lambda: _json({**INVITE_TARGET, "target_kind": "organism"}, "invite",
                           detached_jws(ESTATE)), "§9.2", "viability", newer=True),
    Mutation("a JSON egg that is not canonical",
             lambda: _json(SESSION).replace(b'":', b'": '), "§9.1/parse", "json.canonical"),
    Mutation("a JSON variant listing files",
             lambda: _json(SESSION, contents=contents_of({"a.md": b"a"})), "§9.1",
             "manifest.container"),
    Mutation("a neighborhood payload with another member",
             lambda: pack("neighborhood", NEIGHBORHOOD, {member_name(ORGANISMS[0]): organism()},
                          {"members": list(ORGANISMS)}), "§9.2", "viability", newer=True),
    Mutation("a sub-egg whose rappid is not its member", _member_not_its_rappid, "§9.2",
             "viability", newer=True),
    Mutation("a neighborhood member that is not an organism", _member_not_an_organism, "§9.2",
             "viability", newer=True),
    Mutation("a path that climbs out", lambda: _files_changed(lambda f: f.update({"../x.md": b"x"})),
             "§9.1", "zip.names"),
    Mutation("two paths one name apart in case",
             lambda: _files_changed(lambda f: f.update({"Soul.md": b"x"})), "§9.1", "zip.names",
             newer=True),
)  # fmt: skip
