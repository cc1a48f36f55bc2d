"""Boot records and RAPP/1 eggs, headless (DESIGN.md §5, SPEC-egg.md). Nothing here imports
Textual, and nothing here runs, imports or extracts anything from an egg.

* ``canonical_json``  RFC 8785 JCS ``canonical``, the strict parser ``strict_loads``
* ``rapp``            ``H`` / ``Hb``, ``egg_address``, rappid / utc / path / sig grammars
* ``boot_record``     ``BootRecord`` (pydantic), ``parse_boot_record``, ``boundary_problems``
* ``egg_manifest``    ``EggManifest`` (pydantic), ``parse_manifest``
* ``zip_reader``      ``StrictZipReader``, ``EggSource``, ``ZipFormatError``
* ``egg_report``      ``EggReport``, ``Check``, the ordered ``CHECKS``
* ``verify``          ``verify_egg(bytes | path, record=None, hub_url=None) -> EggReport``

Names are loaded lazily so ``import tui.eggs`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "canonical": "canonical_json",
    "strict_loads": "canonical_json",
    "CanonicalJsonError": "canonical_json",
    "H": "rapp",
    "Hb": "rapp",
    "egg_address": "rapp",
    "BootRecord": "boot_record",
    "parse_boot_record": "boot_record",
    "boundary_problems": "boot_record",
    "EggManifest": "egg_manifest",
    "parse_manifest": "egg_manifest",
    "StrictZipReader": "zip_reader",
    "EggSource": "zip_reader",
    "ZipFormatError": "zip_reader",
    "EggReport": "egg_report",
    "Check": "egg_report",
    "CHECKS": "egg_report",
    "verify_egg": "verify",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tui.eggs' has no attribute {name!r}")
    return getattr(import_module(f"tui.eggs.{module}"), name)
