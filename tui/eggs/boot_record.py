"""The published organization boot record (``hive-hub-organization-seed-boot/1``).

The models refuse a record whose members are missing, mistyped or whose constants differ (such a
document is not a boot record). Members a newer hub may add are kept and listed by
:meth:`BootRecord.unknown_fields` so a screen can show them. The record-level boundary checks of
§1.3 that relate members to each other are :func:`boundary_problems`: a record with problems is
still shown, with the problems beside it.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt, StrictStr

from tui.eggs import rapp
from tui.eggs.hub_paths import is_loopback

__all__ = [
    "BOOT_SCHEMA",
    "EGG_PATH_PREFIX",
    "PUBLIC_HUB_URL",
    "BootRecord",
    "PUBLIC_HATCHER",
    "boundary_problems",
    "egg_path_for",
    "egg_url_for",
    "egg_url_problems",
    "implied_hub",
    "parse_boot_record",
    "record_bytes",
    "record_rule_problems",
]

BOOT_SCHEMA = "hive-hub-organization-seed-boot/1"
PUBLIC_HUB_URL = "https://kody-w.github.io/rapp-hive-hub/"
EGG_PATH_PREFIX = "api/hive-hub/v1/seed-boots/downloads/sha256/"
_SLUG = re.compile(r"[a-z0-9-]+")
_HOST = re.compile(r"(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
_BOOT_RAPPID = re.compile(r"rappid:@hive-hub/[a-z0-9-]+:[0-9a-f]{64}")
#: The published hatcher every boot record names (the record's rule: it must be this one).
PUBLIC_HATCHER = {
    "path": "hub/boot/hatch_seed.py",
    "sha256": "49b210e0c762eefad2602c3c1db93ab00d73d7edd5cd353c703fb408352a07d0",
}


def _hex64(value: str) -> str:
    if not rapp.is_hex64(value):
        raise ValueError("must be 64 lowercase hex characters")
    return value


def _rappid(value: str) -> str:
    if not rapp.is_rappid(value):
        raise ValueError("must be a RAPP/1 rappid: rappid:@<owner>/<slug>:<64 hex>")
    return value


def _utc(value: str) -> str:
    if not rapp.is_utc(value):
        raise ValueError("must be a RAPP/1 timestamp YYYY-MM-DDTHH:MM:SS.mmmZ")
    return value


Hex64 = Annotated[StrictStr, AfterValidator(_hex64)]
Rappid = Annotated[StrictStr, AfterValidator(_rappid)]
Utc = Annotated[StrictStr, AfterValidator(_utc)]


class _Part(BaseModel):
    """Unknown members are kept (``extra="allow"``) and the model is read-only."""

    model_config = ConfigDict(extra="allow", frozen=True)


class SeedRef(_Part):
    archiveSha256: Hex64  # noqa: N815 - the published member names
    recordSha256: Hex64  # noqa: N815


class EggDescriptor(_Part):
    variant: Literal["organism"]
    payloadKind: Literal["rapp-seed-boot/1"]  # noqa: N815
    rappid: Rappid
    utc: Utc
    address: Hex64
    sha256: Hex64
    bytes: StrictInt
    ref: StrictStr
    path: StrictStr
    url: StrictStr
    mediaType: Literal["application/zip"]  # noqa: N815


class Organ(_Part):
    name: Literal["SeedRunner"]
    path: StrictStr
    sha256: Hex64


class Hatcher(_Part):
    path: StrictStr
    sha256: Hex64


class Brainstem(_Part):
    hatcher: Hatcher
    installer: StrictStr
    minVersion: StrictStr  # noqa: N815


class Hatch(_Part):
    effects: list[StrictStr]
    grantsAuthority: Literal[False]  # noqa: N815


class BootRecord(_Part):
    kind: Literal["organization-seed-boot"]
    schema_: Literal["hive-hub-organization-seed-boot/1"] = Field(alias="schema")
    classification: Literal["public-synthetic"]
    status: Literal["boot-not-hatched"]
    slug: StrictStr
    name: StrictStr
    seed: SeedRef
    egg: EggDescriptor
    organ: Organ
    brainstem: Brainstem
    hatch: Hatch

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    def unknown_fields(self) -> dict[str, Any]:
        """Members no published record has, by dotted path (``"egg.mirror"``), for display."""
        found: dict[str, Any] = {}
        stack: list[tuple[str, BaseModel]] = [("", self)]
        while stack:
            prefix, model = stack.pop()
            for key, value in (model.model_extra or {}).items():
                found[prefix + key] = value
            for name in type(model).model_fields:
                child = getattr(model, name)
                if isinstance(child, BaseModel):
                    stack.append((prefix + name.rstrip("_") + ".", child))
        return dict(sorted(found.items()))

    def as_value(self) -> dict[str, Any]:
        """The record as the JSON value it was read from (unknown members included)."""
        return self.model_dump(mode="json", by_alias=True)


def parse_boot_record(data: bytes | str | dict[str, Any]) -> BootRecord:
    """Validate one record (raises :class:`pydantic.ValidationError` or ``ValueError``)."""
    if not isinstance(data, dict):
        data = json.loads(data)
        if not isinstance(data, dict):
            raise ValueError("a boot record is a JSON object")
    return BootRecord.model_validate(dict(data))


def record_bytes(value: dict[str, Any]) -> bytes:
    """The published serialization: compact, key-sorted JSON plus one newline (§1.1)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (text + "\n").encode("utf-8")


def egg_path_for(sha256: str) -> str:
    return f"{EGG_PATH_PREFIX}{sha256[:2]}/{sha256}.egg"


def egg_url_for(hub_url: str, path: str) -> str:
    """``{hub_url}/{path}`` with exactly one slash between them."""
    return hub_url.rstrip("/") + "/" + path


def boundary_problems(record: BootRecord, hub_url: str | None = None) -> list[str]:
    """The §1.3 boundary checks that relate a record's members, as sentences (empty = clean):
    :func:`record_rule_problems` and the ``egg.ref``/``path``/``url`` descriptor rules.

    ``hub_url`` pins where ``egg.url`` must point; without it any https URL ending in
    ``/`` + ``egg.path`` is accepted (the record's own hub).
    """
    egg = record.egg
    return [
        *record_rule_problems(record),
        *egg_descriptor_problems(egg.ref, egg.sha256, egg.path, egg.url, hub_url),
    ]


def record_rule_problems(record: BootRecord) -> list[str]:
    """The §1.3 rules on the record's own members that the models do not already enforce: the
    slug pattern, a hive-hub rappid named after the slug, a possible ``egg.bytes`` and the
    published hatcher (rule 6). The descriptor's ref/path/url are :func:`egg_descriptor_problems`."""
    problems: list[str] = []
    egg = record.egg
    if not _SLUG.fullmatch(record.slug):
        problems.append(f"slug {record.slug!r} does not match ^[a-z0-9-]+$")
    if not _BOOT_RAPPID.fullmatch(egg.rappid):
        problems.append(f"egg.rappid {egg.rappid!r} is not a hive-hub rappid")
    else:
        parts = rapp.rappid_parts(egg.rappid)
        if parts is not None and parts[1] != f"{record.slug}-boot":
            problems.append(f"egg.rappid slug {parts[1]!r} is not {record.slug + '-boot'!r}")
    if egg.bytes <= 0 or egg.bytes > 0xFFFFFFFE:
        problems.append(f"egg.bytes {egg.bytes} is outside 1..4294967294")
    hatcher = record.brainstem.hatcher
    if (hatcher.path, hatcher.sha256) != (PUBLIC_HATCHER["path"], PUBLIC_HATCHER["sha256"]):
        problems.append(
            f"brainstem.hatcher {{path {hatcher.path!r}, sha256 {hatcher.sha256}}} is not the "
            f"published hatcher {{path {PUBLIC_HATCHER['path']!r}, sha256 {PUBLIC_HATCHER['sha256']}}}"
        )
    return problems


def egg_descriptor_problems(
    ref: str, sha256: str, path: str, url: str, hub_url: str | None = None
) -> list[str]:
    """ref/path/url of an egg descriptor against its sha256 (shared by the verifier)."""
    problems = []
    if ref != f"sha256:{sha256}":
        problems.append(f"egg.ref {ref!r} is not 'sha256:' + egg.sha256")
    expected = egg_path_for(sha256)
    if path != expected:
        problems.append(f"egg.path {path!r} is not {expected!r}")
    problems.extend(egg_url_problems(url, path, hub_url))
    return problems


def egg_url_problems(url: str, path: str, hub_url: str | None = None) -> list[str]:
    """``egg.url`` is ``{hub_url}/{path}`` when the hub is known; with none known (a record read
    from a file, a local egg), it is an https URL of a plain host, no credentials, query or
    fragment, ending in ``/`` + ``path``: the record's own hub, :func:`implied_hub`."""
    if hub_url is not None:
        expected = egg_url_for(hub_url, path)
        return [] if url == expected else [f"egg.url {url!r} is not {expected!r}"]
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        return [f"egg.url {url!r} is not a URL"]
    if parts.scheme != "https" and not (parts.scheme == "http" and is_loopback(url)):
        return [
            f"egg.url {url!r} is not an https URL (http:// only for a hub on loopback; no hub "
            "is configured to hold it to)"
        ]
    if not _HOST.fullmatch(parts.netloc) or not port_ok or parts.query or parts.fragment:
        return [f"egg.url {url!r} is not an https URL of a plain host, without query or fragment"]
    if not url.endswith("/" + path):
        return [f"egg.url {url!r} does not end in '/' + egg.path {path!r}"]
    return []


def implied_hub(url: str, path: str) -> str:
    """The hub a record's ``egg.url`` names: the URL without ``/`` + ``egg.path``."""
    return url[: -len(path) - 1] if url.endswith("/" + path) else url
