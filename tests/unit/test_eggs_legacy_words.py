"""Legacy eggs in plain words: one phrase, what they lack and what was checked instead, eggs with
no manifest, look-alike names flagged, a store record in the Hatch pane."""

from __future__ import annotations

import pytest

from tests.legacy_eggs import AGENT, legacy_egg, rapp_egg, store_app, zip_of
from tests.reference_eggs import organism
from tui.eggs.egg_report import NO_MANIFEST
from tui.eggs.pipeline import judge
from tui.eggs.report_notes import report_notes, store_hatch_lines
from tui.ui.screens.boots.inspector import hatch_lines, summary_text

PHRASE = "legacy egg (brainstem-egg/2.2-rapplication): read safely, cannot be verified"


def test_one_phrase_for_a_legacy_egg_never_doubled():
    report = judge(legacy_egg())
    assert report.kind == PHRASE
    assert str(summary_text(report)).startswith(PHRASE + " · ")
    assert str(summary_text(report)).count("legacy") == 1
    assert judge(rapp_egg()).kind.startswith("legacy egg (rapp-egg/1.0): ")


def test_the_notes_say_what_a_legacy_egg_lacks_and_what_was_checked():
    lines = report_notes(judge(legacy_egg()))
    assert lines[0] == (
        "Cannot be verified: it has no per-file hashes (nothing proves which bytes each file "
        "should hold), no signature (nothing says who packed it), no canonical manifest (no "
        "address to compare two copies by)."
    )
    assert lines[1].startswith("Checked instead: one end record")
    assert "every entry inflates to its declared size and CRC-32" in lines[1]
    assert PHRASE not in " ".join(lines)  # the verdict says it, once


def test_an_egg_with_no_manifest_is_read_and_listed_as_no_manifest():
    egg = zip_of([("agents/bookfactory_agent.py", AGENT), ("README.md", b"# Book factory\n")])
    report = judge(egg)
    assert report.format == NO_MANIFEST and report.ok and not report.verified
    assert report.kind == "no manifest: read safely, cannot be verified"
    assert report.by_id("legacy.manifest").status == "skip"
    assert "no manifest.json" in report.by_id("legacy.manifest").detail
    assert [e.name for e in report.entries] == ["agents/bookfactory_agent.py", "README.md"]
    assert report_notes(report)[0].startswith("Cannot be verified")


def test_a_store_record_gives_a_manifestless_egg_its_promises_still():
    egg = zip_of([("agents/field_notes_agent.py", AGENT)])
    report = judge(egg, store=store_app(egg))
    assert report.by_id("store.size").status == "pass"
    assert report.by_id("store.agent").status == "skip"  # no manifest names the agent file


@pytest.mark.parametrize(
    ("twin", "why"),
    [("manif\u0435st.json", "mixes cyrillic and latin"),
     ("agents/Field_Notes_agent.py", "another case")],
)  # fmt: skip
def test_look_alike_names_in_a_legacy_egg_are_flagged(twin, why):
    egg = legacy_egg(**{twin.replace("/", "__"): b"decoy\n"})
    report = judge(egg)
    assert report.ok and report.legacy_schema is not None
    names = report.by_id("legacy.names")
    assert names.status == "pass" and "LOOK-ALIKE NAMES" in names.detail
    flagged = {e.name: e.lookalike for e in report.entries if e.lookalike}
    assert twin in flagged
    if why is not None:
        assert why in flagged[twin]


def test_nfc_and_nfd_forms_of_one_name_are_both_flagged():
    egg = legacy_egg(**{"caf\u00e9.md": b"a", "cafe\u0301.md": b"b"})
    report = judge(egg)
    flagged = {e.name: e.lookalike for e in report.entries if e.lookalike}
    assert set(flagged) == {"caf\u00e9.md", "cafe\u0301.md"}
    assert all("another Unicode form" in why for why in flagged.values())


def test_a_store_record_fills_the_hatch_pane():
    egg = legacy_egg()
    app = store_app(egg)
    object.__setattr__(app, "fields", (("record.install_one_liner", "curl -fsSL x | bash\x1b[2J"),))
    lines = dict(hatch_lines(app, None))
    assert lines["install"] == "curl -fsSL x | bash\x1b[2J"  # raw: the screen cleans it to draw
    assert lines["agent file sha256"] == app.singleton_sha256
    assert lines["rapplication"] == "Field Notes (field_notes)"
    assert store_hatch_lines(app)[0] == ("store", "test store")


def test_a_verified_egg_that_is_not_byte_reproducible_says_so_in_the_summary():
    report = judge(organism())
    assert report.verified
    assert "not byte-reproducible" in str(summary_text(report))
    notes = report_notes(report)
    assert notes[0].startswith("Not byte-reproducible (packaging only")
    assert notes[1].startswith("zip.utf8-flag")
