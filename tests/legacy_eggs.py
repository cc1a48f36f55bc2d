"""Hand-made legacy eggs (brainstem-egg/2.2, rapp-egg/1.0) for the tests, built with Python's
zipfile (deflated, as the stores ship them), and byte patches that make them hostile. Never a
copy of a real store's egg: those are read from ../shared/real when present."""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zipfile
from typing import Any

from tui.eggs.store import StoreApp

RAPPID = "rappid:@demo/field_notes:3f2a9c1e5b7d4a60912c8e7f1a2b3c4d"
AGENT = b'"""Field Notes agent: inert text."""\n\nAGENT_ID = "field_notes"\n'
PAGE = b"<!doctype html><title>Field Notes</title>\n"
LOCAL_SIG, CENTRAL_SIG = b"PK\x03\x04", b"PK\x01\x02"


def indented(value: Any) -> bytes:
    return (json.dumps(value, indent=2) + "\n").encode()


def manifest(**changes: Any) -> dict[str, Any]:
    value = {
        "schema": "brainstem-egg/2.2-rapplication", "type": "rapplication",
        "exported_at": "2026-06-08T01:25:00Z", "rappid": RAPPID, "rapp_id": "field_notes",
        "name": "Field Notes", "version": "1.2.0", "publisher": "@demo", "host": "test",
        "agent_filename": "field_notes_agent.py", "organ_filename": None, "has_skin": True,
        "counts": {"agent": 1, "ui": 1, "data": 0, "soul": 0, "organ": 0},
    }  # fmt: skip
    value.update(changes)
    return value


def identity(**changes: Any) -> dict[str, Any]:
    value = {"schema": "rapp-rappid/2.0", "rappid": RAPPID, "kind": "rapplication",
             "name": "Field Notes", "version": "1.2.0", "publisher": "@demo"}  # fmt: skip
    value.update(changes)
    return value


def brainstem_entries(**replace: bytes | None) -> list[tuple[str, bytes]]:
    """The entries of a brainstem egg, manifest last; ``replace`` swaps (None drops) one."""
    entries = {
        "rappid.json": indented(identity()),
        "agents/field_notes_agent.py": AGENT,
        "rapp_ui/field_notes/index.html": PAGE,
        "manifest.json": indented(manifest()),
    }
    for name, data in replace.items():
        name = name.replace("__", "/")
        if data is None:
            entries.pop(name, None)
        else:
            entries[name] = data
    if "manifest.json" in entries:  # last, as a store writes it
        entries["manifest.json"] = entries.pop("manifest.json")
    return list(entries.items())


def zip_of(entries: list[tuple[str, bytes]], *, attr: int = 0o100644 << 16) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2026, 6, 7, 21, 25, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = attr
            info.create_system = 3
            archive.writestr(info, data)
    return out.getvalue()


def legacy_egg(**replace: bytes | None) -> bytes:
    return zip_of(brainstem_entries(**replace))


def rapp_egg() -> bytes:
    value = {"schema": "rapp-egg/1.0", "type": "rapplication", "id": "notes", "version": "1.0.0",
             "exported_at": "2026-05-03T20:00:00Z", "agent_filename": "notes_agent.py",
             "service_filename": None, "ui_filename": "index.html"}  # fmt: skip
    return zip_of(
        [("manifest.json", indented(value)), ("notes_agent.py", AGENT), ("ui/index.html", PAGE)]
    )


def store_app(egg: bytes, **changes: Any) -> StoreApp:
    """The store record's promises for ``egg`` (true ones unless ``changes`` says otherwise)."""
    promises = {
        "egg_bytes": len(egg), "rappid": RAPPID,
        "singleton_sha256": hashlib.sha256(AGENT).hexdigest(), "singleton_bytes": len(AGENT),
    }  # fmt: skip
    promises.update(changes)
    return StoreApp("test", "field_notes", "Field Notes", "test store", **promises)


# ---------------------------------------------------------------------- byte patches

# (struct format, offset in the central header, offset in the local header or None)
FIELDS = {
    "flags": ("<H", 8, 6), "method": ("<H", 10, 8), "crc": ("<I", 16, 14),
    "compressed": ("<I", 20, 18), "size": ("<I", 24, 22), "external": ("<I", 38, None),
    "offset": ("<I", 42, None),
}  # fmt: skip


def headers(egg: bytes, name: str) -> tuple[int, int]:
    """``(local header offset, central header offset)`` of entry ``name``."""
    end = egg.rindex(b"PK\x05\x06")
    count, _, pos = struct.unpack_from("<HII", egg, end + 10)
    for _ in range(count):
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", egg, pos + 28)
        if egg[pos + 46 : pos + 46 + name_len] == name.encode():
            return struct.unpack_from("<I", egg, pos + 42)[0], pos
        pos += 46 + name_len + extra_len + comment_len
    raise KeyError(name)


def patch(egg: bytes, name: str, **fields: int) -> bytes:
    """``egg`` with header fields of entry ``name`` (see :data:`FIELDS`) set, in its central
    header and, for the fields it repeats, its local header too."""
    data = bytearray(egg)
    at_local, at_central = headers(egg, name)
    for field, value in fields.items():
        fmt, central, local = FIELDS[field]
        struct.pack_into(fmt, data, at_central + central, value)
        if local is not None:
            struct.pack_into(fmt, data, at_local + local, value)
    return bytes(data)
