"""The Boots tab's row values: one frozen ``BootRow`` per boot record, store rapplication and
problem entry, carrying raw text (hostile text too) that the tab cleans only as it draws it."""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest
from rich.text import Text

from tui.eggs.boot_record import BootRecord, parse_boot_record
from tui.eggs.boot_rows import NO_VALUE, BootRow, boot_row, record_fields, size_text
from tui.eggs.report_notes import promise_hatch_lines, record_hatch_lines, store_hatch_lines
from tui.eggs.sources import BootEntry
from tui.eggs.store import StoreApp
from tui.sandbox.eggs import SeedBootSpec, build_seed_boot
from tui.ui.screens.boots.screen import BootsScreen
from tui.untrusted import clean

HUB = "https://hub.example.org/hub"
HOSTILE = "[bold red]Evil[/] \x1b[31mCo\u202e\x07"


@cache
def record_value() -> dict:
    _, value = build_seed_boot(SeedBootSpec(slug="org-1", name="Org 1", tagline="t", mission="m"), HUB)  # fmt: skip
    return value


def record(**changes: str) -> BootRecord:
    return parse_boot_record({**record_value(), **changes})


def app(**changes: object) -> StoreApp:
    values: dict = {
        "origin": "rapplications[0] notes",
        "id": "notes",
        "name": "Field Notes",
        "store": "https://store.example.org/api/v1/index.json",
        "publisher": "@kody",
        "version": "1.2",
        "egg_url": "https://store.example.org/eggs/notes.egg",
        "egg_origin": "https://store.example.org",
        "egg_bytes": 2345,
        "fields": (("index.id", "notes"), ("record.install_one_liner", "curl x | sh")),
    }
    values.update(changes)
    return StoreApp(**values)


def test_a_boot_record_row_carries_its_cells_detail_and_promise():
    entry = BootEntry("demo:org-1", record(), warnings=("hatch differs",))
    row = boot_row(entry)
    assert row == BootRow.of_entry(entry)
    assert (row.kind, row.origin, row.key) == ("record", "demo:org-1", entry.record.egg.sha256)
    assert (row.name, row.by, row.size) == ("Org 1", "org-1", size_text(entry.record.egg.bytes))
    assert row.marked and row.warnings == ("hatch differs",) and row.problems == ()
    assert row.detail == (("warning", "hatch differs"), *record_fields(entry.record))
    assert (row.egg_url, row.slug, row.no_egg) == (entry.record.egg.url, "org-1", None)
    assert row.promise is entry.record and row.entry is entry


def test_a_store_rapplication_row_carries_its_promises_and_fields():
    store_app = app(problems=("its record could not be read (404)",))
    row = boot_row(store_app)
    assert row == BootRow.of_app(store_app)
    assert (row.kind, row.key, row.slug) == ("app", store_app.key, "notes")
    assert (row.name, row.by, row.size) == ("Field Notes", "@kody 1.2", "2.3 kB")
    assert row.marked  # a problem marks a store row (a record's problems explain a cached copy)
    assert row.detail == (
        ("problem", "its record could not be read (404)"),
        ("store", store_app.store),
        ("index.id", "notes"),
        ("record.install_one_liner", "curl x | sh"),
    )
    assert row.egg_url == store_app.egg_url and row.no_egg is None
    assert row.promise is store_app and row.entry is store_app


def test_a_store_that_ships_no_egg_says_why_and_has_no_size():
    row = boot_row(app(egg_url=None, egg_bytes=None, egg_note="source only", publisher=None))
    assert row.no_egg == "the store ships no egg for it (source only)"
    assert (row.by, row.size, row.egg_url, row.marked) == ("1.2", NO_VALUE, None, False)
    assert row.key is not None  # it is still a row the tab keeps a state for ("no egg")


def test_an_entry_without_a_record_is_a_problem_row_with_no_egg():
    entry = BootEntry("test:broken.json", problems=("not a boot record: kind",))
    row = boot_row(entry)
    assert (row.kind, row.key, row.promise, row.egg_url, row.slug) == (
        "problem", None, None, None, None,
    )  # fmt: skip
    assert (row.name, row.by, row.size, row.marked) == ("test:broken.json", NO_VALUE, NO_VALUE, False)  # fmt: skip
    assert row.detail == (("origin", "test:broken.json"), ("problem", "not a boot record: kind"))


def test_rows_are_frozen():
    row = boot_row(app())
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.name = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    "row",
    [
        boot_row(BootEntry("x", record(name=HOSTILE, slug="org-1"))),
        boot_row(app(name=HOSTILE, publisher=HOSTILE)),
        boot_row(BootEntry(HOSTILE, problems=(HOSTILE,))),
    ],
    ids=["record", "app", "problem"],
)
def test_hostile_text_stays_raw_in_the_row_and_is_cleaned_when_drawn(row: BootRow):
    assert row.name == HOSTILE  # the value is what the source said, byte for byte
    screen = BootsScreen()
    name, by, _, _ = screen.texts(row)
    assert name.startswith(clean(HOSTILE)) and "\x1b" not in name and "\x07" not in name
    assert "\x1b" not in by
    cells = screen.cells(row)
    assert all(isinstance(cell, Text) and "\x1b" not in cell.plain for cell in cells)
    assert not cells[0].spans  # never markup: no style comes from the text
    assert cells[0].plain.startswith("[bold red]Evil[/]")  # the brackets shown, not applied


def test_the_inspector_hatch_lines_follow_the_promise():
    boot = record()
    store_app = app()
    assert promise_hatch_lines(boot) == record_hatch_lines(boot)
    assert ("installer", boot.brainstem.installer) in promise_hatch_lines(boot)
    assert promise_hatch_lines(store_app) == store_hatch_lines(store_app)
    assert promise_hatch_lines(None) == []  # a local egg nobody promised
