"""Boot records and RAPP/1 eggs, headless (ARCHITECTURE.md, eggs). Nothing here imports
Textual, and nothing here runs, imports or extracts anything from an egg.

* ``canonical_json``  RFC 8785 JCS ``canonical``, the strict parser ``strict_loads``
* ``rapp``            ``H`` / ``Hb``, ``egg_address``, rappid / utc / path / sig grammars
* ``boot_record``     ``BootRecord`` (pydantic), ``parse_boot_record``, ``boundary_problems``
* ``egg_manifest``    ``EggManifest`` (pydantic), ``parse_manifest``
* ``zip_reader``      ``StrictZipReader``, ``EggSource``, ``ZipFormatError``
* ``egg_report``      ``EggReport``, ``Check``, the ordered ``CHECKS``
* ``verify``          ``verify_egg(bytes | path, record=None, hub_url=None) -> EggReport``

Import from the submodules; the package itself loads nothing.
"""
