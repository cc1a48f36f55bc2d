"""The rules an egg is judged by once its bytes have been read: manifest, viability, signature,
record.

:mod:`tui.eggs.verify` reads the container and hashes every entry; the rules here look at what
that read found (:class:`EggFacts`: the manifest, the entries, the captured ``rappid.json``, the
address, the plain sha256s) and at the boot record, and set each check's result in a
:class:`~tui.eggs.egg_report.Results`. One function per step of the checklist, each rule written
once; the details name the offending value (made safe to print by the report).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from tui.eggs import rapp
from tui.eggs.boot_record import (
    BootRecord,
    egg_path_for,
    egg_url_problems,
    implied_hub,
    record_rule_problems,
)
from tui.eggs.canonical_json import CanonicalJsonError, strict_loads
from tui.eggs.egg_report import EggReport, Results
from tui.eggs.zip_reader import PackagingNote, ZipEntry

__all__ = [
    "MANIFEST_RULES",
    "RECORD_EGG_CHECKS",
    "EggFacts",
    "contents_rules",
    "manifest_rules",
    "organs",
    "record_cross_checks",
    "record_document_checks",
    "record_file_checks",
    "record_own_checks",
    "seed_record_path",
    "short",
    "signature",
    "viability",
]

MANIFEST_RULES = (
    "manifest.members", "manifest.schema", "manifest.variant", "manifest.rappid", "manifest.utc",
    "manifest.payload", "manifest.sig", "manifest.contents", "manifest.paths", "manifest.sorted",
    "manifest.unique", "manifest.container",
)  # fmt: skip
_CONTENTS_RULES = ("manifest.paths", "manifest.sorted", "manifest.unique", "manifest.container")
RECORD_EGG_CHECKS = (
    "record.address", "record.rappid", "record.utc", "record.variant", "record.payload-kind",
    "record.organ", "record.seed-record", "record.seed-archive",
)  # fmt: skip
_MEMBERS_DETAIL = "schema, variant, rappid, created_utc, contents, payload, sig"


def short(value: Any, limit: int = 120) -> str:
    """A value quoted for a detail: a string's repr, anything else as JSON, cut to ``limit``."""
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class EggFacts:
    """What reading the egg found, for the rules to judge."""

    manifest: Any
    is_zip: bool
    entries: list[ZipEntry] = field(default_factory=list)
    #: ``rappid.json``'s bytes when the egg has it and it is at most 1 MiB (else None)
    identity: bytes | None = None
    address: str | None = None
    #: the plain sha256 of the entries a boot record's promises need, by path
    plain_sha256: dict[str, str] = field(default_factory=dict)
    #: verifies a member entry as an egg of its own, one level deeper
    verify_member: Callable[[ZipEntry], EggReport] | None = None
    #: the packaging notes of the member eggs, each entry named ``member.egg:entry``
    member_notes: list[PackagingNote] = field(default_factory=list)

    @property
    def files(self) -> set[str]:
        """The entry names but the manifest's."""
        return {e.name for e in self.entries[1:]}


# ---------------------------------------------------------------------- manifest rules (§7 C)


def manifest_rules(r: Results, facts: EggFacts) -> None:
    m = facts.manifest
    if not isinstance(m, dict):
        r.fail("manifest.members", f"manifest is {type(m).__name__}, not an object")
        for check_id in MANIFEST_RULES[1:]:
            r.skip(check_id, "manifest is not an object")
        return
    members = set(m)
    extra = sorted(members - rapp.MANIFEST_MEMBERS)
    missing = sorted(rapp.MANIFEST_MEMBERS - members)
    r.expect(
        "manifest.members",
        not extra and not missing,
        _MEMBERS_DETAIL,
        f"extra members {extra}, missing members {missing}",
    )
    schema = m.get("schema")
    r.expect("manifest.schema", schema == rapp.SCHEMA, rapp.SCHEMA,
             lambda: f"schema is {short(schema)}")  # fmt: skip
    variant = m.get("variant")
    r.expect(
        "manifest.variant",
        variant in rapp.VARIANTS,
        str(variant),
        lambda: f"variant {short(variant)} is not one of {', '.join(rapp.VARIANTS)}",
    )
    rappid = m.get("rappid")
    r.expect("manifest.rappid", rapp.is_rappid(rappid), str(rappid),
             lambda: f"rappid {short(rappid)} is not a valid rappid")  # fmt: skip
    utc = m.get("created_utc")
    r.expect("manifest.utc", rapp.is_utc(utc), str(utc),
             lambda: f"created_utc {short(utc)} is not YYYY-MM-DDTHH:MM:SS.mmmZ")  # fmt: skip
    payload = m.get("payload")
    r.expect("manifest.payload", isinstance(payload, dict), "object",
             lambda: f"payload is {short(payload)}")  # fmt: skip
    sig = m.get("sig")
    problem = rapp.sig_problem(sig) if "sig" in m else "sig is missing"
    r.expect("manifest.sig", problem is None,
             "null (unsigned)" if sig is None else "detached JWS", f"{problem}")  # fmt: skip
    contents_rules(r, facts, m.get("contents"), variant)


def _item_ok(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and set(item) == {"path", "hash"}
        and isinstance(item["path"], str)
        and rapp.is_hex64(item["hash"])
    )


def contents_rules(r: Results, facts: EggFacts, contents: Any, variant: Any) -> None:
    if not isinstance(contents, list):
        r.fail("manifest.contents", f"contents is {short(contents)}, not an array")
        for check_id in _CONTENTS_RULES:
            r.skip(check_id, "contents is not an array")
        return
    bad = next((item for item in contents if not _item_ok(item)), None)
    if not r.expect("manifest.contents", bad is None, f"{len(contents)} items",
                    lambda: f"bad item {short(bad)}"):  # fmt: skip
        for check_id in _CONTENTS_RULES:
            r.skip(check_id, "contents items are malformed")
        return
    paths = [item["path"] for item in contents]
    broken = next(((p, rapp.path_problem(p)) for p in paths if rapp.path_problem(p)), None)
    r.expect(
        "manifest.paths",
        broken is None,
        f"{len(paths)} paths",
        lambda: f"path {broken[0]!r}: {broken[1]}",  # type: ignore[index]
    )
    keys = [rapp.path_sort_key(p) for p in paths]
    disorder = next((i for i in range(1, len(keys)) if keys[i - 1] > keys[i]), None)
    r.expect(
        "manifest.sorted",
        disorder is None,
        "sorted",
        lambda: f"{paths[disorder]!r} comes after {paths[disorder - 1]!r}",  # type: ignore[index,operator]
    )
    duplicates = (
        sorted({p for p in paths if paths.count(p) > 1}) if len(set(paths)) != len(paths) else []
    )
    r.expect(
        "manifest.unique",
        not duplicates and rapp.MANIFEST_NAME not in paths,
        "unique",
        f"duplicate paths {duplicates}" if duplicates else "manifest.json is listed in contents",
    )  # fmt: skip
    if variant in rapp.JSON_VARIANTS:
        r.expect(
            "manifest.container",
            not facts.is_zip and not contents,
            "JSON egg, no contents",
            "a JSON variant in a ZIP archive"
            if facts.is_zip
            else f"a JSON egg lists {len(contents)} files",
        )
    else:
        r.expect(
            "manifest.container",
            facts.is_zip and facts.files == set(paths),
            "ZIP egg, files = contents",
            f"variant {short(variant)} needs a ZIP egg"
            if not facts.is_zip
            else "archive files differ from contents",
        )


# ---------------------------------------------------------------------- viability (§7 E)


def viability(r: Results, facts: EggFacts) -> None:
    variant = facts.manifest.get("variant")
    payload = facts.manifest.get("payload")
    if variant not in rapp.VARIANTS or not isinstance(payload, dict):
        r.skip("viability", "variant or payload is invalid")
        return
    problem = _VARIANT_RULES[variant](facts, payload)
    r.expect("viability", problem is None, f"{variant} rules hold", f"{variant}: {problem}")


def _identity_problem(facts: EggFacts) -> str | None:
    if "rappid.json" not in facts.files:
        return "rappid.json is missing"
    if facts.identity is None:
        return "rappid.json is larger than 1 MiB"
    try:
        identity = strict_loads(facts.identity)
    except CanonicalJsonError as exc:
        return f"rappid.json is not strict JSON: {exc}"
    if not isinstance(identity, dict):
        return "rappid.json is not a JSON object"
    if "schema" in identity and identity["schema"] != "rapp/1":
        return f"rappid.json schema is {short(identity['schema'])}, not 'rapp/1'"
    if identity.get("rappid") != facts.manifest.get("rappid"):
        return (
            f"rappid.json rappid {short(identity.get('rappid'))} != manifest rappid "
            f"{short(facts.manifest.get('rappid'))}"
        )
    return None


def _organism(facts: EggFacts, payload: dict[str, Any]) -> str | None:
    problem = _identity_problem(facts)
    if problem is None and "soul.md" not in facts.files:
        problem = "soul.md is missing"
    return problem


def _rapplication(facts: EggFacts, payload: dict[str, Any]) -> str | None:
    problem = _identity_problem(facts)
    if problem is not None:
        return problem
    root_py = sorted(p for p in facts.files if "/" not in p and p.endswith(".py"))
    if root_py != ["agent.py"]:
        return f"root-level .py files are {root_py}, expected exactly ['agent.py']"
    return None


def _session(facts: EggFacts, payload: dict[str, Any]) -> str | None:
    if set(payload) != {"runtime", "transcript"}:
        return f"payload members are {sorted(payload)}, expected ['runtime', 'transcript']"
    if not isinstance(payload["runtime"], str):
        return "runtime is not a string"
    transcript = payload["transcript"]
    if not isinstance(transcript, list) or not all(isinstance(t, dict) for t in transcript):
        return "transcript is not an array of objects"
    return None


def _invite(facts: EggFacts, payload: dict[str, Any]) -> str | None:
    if set(payload) != {"target_rappid", "target_url", "target_kind"}:
        return f"payload members are {sorted(payload)}, expected target_rappid, target_url, target_kind"
    if facts.manifest.get("sig") is None:
        return "an invite must be signed"
    if not rapp.is_rappid(payload["target_rappid"]):
        return f"target_rappid {short(payload['target_rappid'])} is invalid"
    if payload["target_kind"] not in ("neighborhood", "estate"):
        return f"target_kind {short(payload['target_kind'])} is not neighborhood or estate"
    if not _plain_url(payload["target_url"], ("http", "https")):
        return f"target_url {short(payload['target_url'])} is not an absolute http(s) URL without credentials"
    return None


def _neighborhood(facts: EggFacts, payload: dict[str, Any]) -> str | None:
    return _members(facts, payload, "members", "organism")


def _estate(facts: EggFacts, payload: dict[str, Any]) -> str | None:
    return _members(facts, payload, "neighborhoods", "neighborhood")


def _members(facts: EggFacts, payload: dict[str, Any], key: str, child: str) -> str | None:
    if set(payload) != {key}:
        return f"payload members are {sorted(payload)}, expected [{key!r}]"
    members = payload[key]
    if not isinstance(members, list) or not all(rapp.is_rappid(m) for m in members):
        return f"{key} is not an array of valid rappids"
    if len(set(members)) != len(members):
        return f"{key} has duplicates"
    names = {}
    for member in members:
        owner, slug, _ = rapp.rappid_parts(member)  # type: ignore[misc]
        names[f"{owner}--{slug}.egg"] = member
    if len(names) != len(members):
        return "two members derive the same file name"
    if set(names) != facts.files:
        return f"files {sorted(facts.files)} are not the member eggs {sorted(names)}"
    assert facts.verify_member is not None
    by_name = {e.name: e for e in facts.entries}
    for name, member in names.items():
        report = facts.verify_member(by_name[name])
        facts.member_notes.extend(
            replace(note, entry=f"{name}:{note.entry}") for note in report.reproducibility
        )
        failure = report.first_failure
        if failure is not None:
            return f"member {name!r} fails {failure[1].id}: {failure[1].detail}"
        manifest = report.manifest
        if manifest.get("variant") != child or manifest.get("rappid") != member:
            return f"member {name!r} is not the {child} {member!r}"
    return None


_SEALED_MEMBERS = {"schema", "cipher", "nonce", "plaintext_commitment", "plaintext_bytes", "media_type",
                   "key_id", "key_service_rappid", "key_service_url", "access", "aad_hash"}  # fmt: skip


def _sealed(facts: EggFacts, payload: dict[str, Any]) -> str | None:
    if set(payload) != _SEALED_MEMBERS:
        return f"payload members are {sorted(payload)}, expected {sorted(_SEALED_MEMBERS)}"
    if facts.files != {"ciphertext.bin"}:
        return f"files are {sorted(facts.files)}, expected ['ciphertext.bin']"
    manifest = facts.manifest
    if manifest.get("sig") is None:
        return "a sealed egg must be signed"
    p = payload
    nonce, size, media = p["nonce"], p["plaintext_bytes"], p["media_type"]
    checks = [
        (p["schema"] == "rapp-sealed-artifact/1", "schema is not rapp-sealed-artifact/1"),
        (p["cipher"] == "A256GCM", "cipher is not A256GCM"),
        (p["access"] == "scoped-key-release", "access is not scoped-key-release"),
        (isinstance(nonce, str) and len(nonce) == 16 and rapp.b64url_length(nonce) == 12, "nonce is not 12 base64url bytes"),
        (all(rapp.is_hex64(p[k]) for k in ("plaintext_commitment", "key_id", "aad_hash")), "a hash member is not 64 hex"),
        (type(size) is int and 0 <= size <= 2**30, "plaintext_bytes is outside 0..2^30"),
        (isinstance(media, str) and 1 <= len(media) <= 127 and media == media.strip(), "media_type is malformed"),
        (rapp.is_rappid(p["key_service_rappid"]), "key_service_rappid is invalid"),
        (_plain_url(p["key_service_url"], ("https",), endpoint=True), "key_service_url is not an https .../chat URL"),
    ]  # fmt: skip
    for good, why in checks:
        if not good:
            return why
    aad = {
        "schema": p["schema"], "artifact_rappid": manifest.get("rappid"),
        "created_utc": manifest.get("created_utc"), "key_id": p["key_id"],
        "plaintext_commitment": p["plaintext_commitment"], "plaintext_bytes": size, "media_type": media,
    }  # fmt: skip
    if rapp.H("rapp/1:sealed-aad", aad) != p["aad_hash"]:
        return "aad_hash does not match the sealed AAD"
    cipher = next(e for e in facts.entries if e.name == "ciphertext.bin")
    if cipher.size != size + 16:
        return f"ciphertext.bin is {cipher.size} bytes, expected plaintext_bytes + 16 = {size + 16}"
    return None


_VARIANT_RULES: dict[str, Callable[[EggFacts, dict[str, Any]], str | None]] = {
    "organism": _organism,
    "rapplication": _rapplication,
    "session": _session,
    "invite": _invite,
    "neighborhood": _neighborhood,
    "estate": _estate,
    "sealed": _sealed,
}


def _plain_url(url: Any, schemes: tuple[str, ...], endpoint: bool = False) -> bool:
    if not isinstance(url, str):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if parts.scheme not in schemes or not parts.hostname or parts.username or parts.password:
        return False
    if endpoint:
        return not parts.query and not parts.fragment and parts.path.endswith("/chat")
    return True


# ---------------------------------------------------------------------- signature (§7 F)


def signature(r: Results, facts: EggFacts) -> None:
    sig = facts.manifest.get("sig")
    if r.status("manifest.sig") != "pass":
        r.skip("signature", "sig is malformed (see manifest.sig)")
    elif sig is None:
        r.ok("signature", "unsigned (sig is null): nothing to verify")
    else:
        r.fail("signature", "not verified: no key (roost holds no signer keys)")


# ---------------------------------------------------------------------- the boot record (§1.3)


def record_document_checks(record: BootRecord, hub_url: str | None) -> list[tuple[str, bool, str]]:
    """``(check id, good, detail)`` of the checks on the record alone (``record.document``,
    ``record.ref``, ``record.path``, ``record.url``): they need no byte of the egg, so a refused
    download reports them too. ``hub_url``: see :func:`~tui.eggs.boot_record.egg_url_problems`."""
    egg = record.egg
    problems = record_rule_problems(record)
    if problems:
        document = (False, "; ".join(problems))
    else:
        unknown = record.unknown_fields()
        extra = f"; members no published record has: {', '.join(unknown)}" if unknown else ""
        document = (True, f"{record.slug}: constants and §1.3 rules hold{extra}")
    ref = f"sha256:{egg.sha256}"
    path = egg_path_for(egg.sha256)
    url_problems = egg_url_problems(egg.url, egg.path, hub_url)
    return [
        ("record.document", *document),
        ("record.ref", egg.ref == ref, egg.ref if egg.ref == ref else f"egg.ref {egg.ref!r} != {ref!r}"),
        ("record.path", egg.path == path, egg.path if egg.path == path else f"egg.path {egg.path!r} != {path!r}"),
        ("record.url", not url_problems, "; ".join(url_problems) or _url_pass(egg.url, egg.path, hub_url)),
    ]  # fmt: skip


def _url_pass(url: str, path: str, hub_url: str | None) -> str:
    """A passing ``record.url``'s detail: the URL, and the hub it implies when none was known."""
    if hub_url is not None:
        return url
    return f"{url} (no hub configured: the record's own hub {implied_hub(url, path)})"


def _no_record(refused: str | None) -> str:
    if refused is not None:
        return "not checked: the record given is not a boot record"
    return "no boot record given"


def record_own_checks(
    r: Results, record: BootRecord | None, hub_url: str | None, refused: str | None
) -> None:
    """The record's own checks, or why there are none (``refused``: a record was given that is
    not a boot record, in one line)."""
    if record is None:
        if refused is not None:
            r.fail("record.document", refused)
        else:
            r.skip("record.document", "no boot record given")
        for check_id in ("record.ref", "record.path", "record.url"):
            r.skip(check_id, _no_record(refused))
        return
    for check_id, good, detail in record_document_checks(record, hub_url):
        r.set(check_id, "pass" if good else "fail", detail)


def record_file_checks(
    r: Results, record: BootRecord | None, size: int, sha256: str, refused: str | None
) -> None:
    if record is None:
        why = _no_record(refused)
        r.skip("file.size", f"{why} (file is {size} bytes)")
        r.skip("file.sha256", f"{why} (sha256 {sha256})")
        return
    egg = record.egg
    r.expect("file.size", size == egg.bytes, f"{size} bytes",
             f"file is {size} bytes, record says {egg.bytes}")  # fmt: skip
    r.expect("file.sha256", sha256 == egg.sha256, sha256,
             f"file sha256 {sha256}, record says {egg.sha256}")  # fmt: skip


def organs(payload: Any) -> list[dict[str, Any]]:
    """The payload's ``brainstem.organs`` objects (none when the payload has no such list)."""
    brainstem = payload.get("brainstem") if isinstance(payload, dict) else None
    found = brainstem.get("organs") if isinstance(brainstem, dict) else None
    return [o for o in found if isinstance(o, dict)] if isinstance(found, list) else []


def seed_record_path(payload: Any) -> str:
    """Where the payload says the seed record is (``seed/record.json`` when it does not)."""
    seed = payload.get("seed") if isinstance(payload, dict) else None
    path = seed.get("record") if isinstance(seed, dict) else None
    return path if isinstance(path, str) else "seed/record.json"


def record_cross_checks(
    r: Results, record: BootRecord | None, facts: EggFacts, refused: str | None
) -> None:
    """The manifest and payload against the record's promises."""
    if record is None:
        for check_id in RECORD_EGG_CHECKS:
            r.skip(check_id, _no_record(refused))
        return
    m = facts.manifest
    egg = record.egg

    def same(check_id: str, actual: Any, promised: Any) -> None:
        r.expect(check_id, actual == promised, str(actual),
                 lambda: f"egg has {short(actual)}, record says {short(promised)}")  # fmt: skip

    same("record.address", facts.address, egg.address)
    same("record.rappid", m.get("rappid"), egg.rappid)
    same("record.utc", m.get("created_utc"), egg.utc)
    same("record.variant", m.get("variant"), egg.variant)
    payload = m.get("payload") if isinstance(m.get("payload"), dict) else {}
    same("record.payload-kind", payload.get("kind"), egg.payloadKind)
    organ = record.organ
    actual = facts.plain_sha256.get(organ.path)
    if actual is None:
        r.fail("record.organ", f"the egg has no file {organ.path!r}")
    elif actual != organ.sha256:
        r.fail("record.organ", f"{organ.path!r} sha256 is {actual}, record says {organ.sha256}")
    elif {"path": organ.path, "sha256": organ.sha256} not in organs(payload):
        r.fail(
            "record.organ",
            f"payload organs {short(organs(payload))} do not list {organ.path!r} with that sha256",
        )
    else:
        r.ok("record.organ", f"{organ.path} {actual}")
    path = seed_record_path(payload)
    actual = facts.plain_sha256.get(path)
    if actual is None:
        r.fail("record.seed-record", f"the egg has no file {path!r}")
    else:
        same("record.seed-record", actual, record.seed.recordSha256)
    seed = payload.get("seed")
    archive = seed.get("archive_sha256") if isinstance(seed, dict) else None
    same("record.seed-archive", archive, record.seed.archiveSha256)
