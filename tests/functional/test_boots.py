"""The Boots tab (6) in the real app, keys only: the records table and its verified states,
every record field (unknown ones too), sibling warnings, ``enter`` → the inspector and back,
``y`` copies a field, hostile record text stays literal, and a refused download is shown."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from app_rig import DemoBoots, make_rig, settle
from egg_fixtures import HOSTILE_NAME, FixedBoots, StoreBoots, demo_egg, flip_byte
from rich.text import Text
from textual.widgets import DataTable, OptionList, Static

from tui.eggs.boot_record import BootRecord
from tui.eggs.boot_rows import BootRow, boot_row, record_fields, sibling_warnings
from tui.eggs.egg_report import Check, EggReport
from tui.eggs.hub_boots import HubBoots
from tui.eggs.pipeline import EggOutcome
from tui.eggs.sources import BootEntry
from tui.sandbox.eggs import SeedBootSpec
from tui.ui.screens.boots.inspector import EggInspectorScreen
from tui.ui.screens.boots.screen import BootsScreen

SIZE = (80, 24)
SPECS = [SeedBootSpec(slug=f"org-{n}", name=f"Org {n}", tagline="t", mission="m") for n in range(3)]


def boots(*, tamper: int | None = None, edit: Any = None) -> tuple[FixedBoots, list[BootRecord]]:
    records, eggs, values = [], {}, []
    for n, spec in enumerate(SPECS):
        egg, record = demo_egg(spec)
        value = record.as_value()
        if edit is not None:
            edit(n, value)
        values.append(value)
        records.append(record)
        eggs[spec.slug] = flip_byte(egg, "soul.md") if n == tamper else egg
    return FixedBoots(values, eggs), records


async def start(source: Any = None, *, demo: bool = True):
    return make_rig(screen="boots", demo=demo)


async def shown(pilot, source: Any = None) -> BootsScreen:
    """The Boots screen once settled; ``source`` is handed down to it as the app would."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, BootsScreen)
    if source is not None:
        screen.boots_source = source
        await settle(pilot)
    return screen


def cells(screen: BootsScreen, column: str) -> list[str]:
    table = screen.query_one(DataTable)
    return [str(c) for c in table.get_column(column)]


def detail(screen: BootsScreen) -> list[str]:
    listing = screen.query_one("#boots-detail", OptionList)
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def open_and_back(pilot, row: int) -> EggInspectorScreen:
    screen = pilot.app.screen
    table = screen.query_one(DataTable)
    while table.cursor_row < row:
        await pilot.press("j")
    await pilot.press("enter")
    for _ in range(5):
        await settle(pilot)
        if isinstance(pilot.app.screen, EggInspectorScreen):
            break
    inspector = pilot.app.screen
    assert isinstance(inspector, EggInspectorScreen)
    return inspector


async def test_table_lists_records_not_downloaded_then_verified_after_enter():
    source, records = boots()
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        assert cells(screen, "slug") == [s.slug for s in SPECS]
        assert cells(screen, "name") == [s.name for s in SPECS]
        assert cells(screen, "state") == ["not downloaded"] * 3
        assert all(size.endswith("kB") for size in cells(screen, "size"))
        inspector = await open_and_back(pilot, 1)
        assert source.downloads == ["org-1"]
        assert inspector.report is not None and inspector.report.ok
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is screen
        assert cells(screen, "state") == ["not downloaded", "verified", "not downloaded"]
        # a second look uses the egg at hand: no second download
        await open_and_back(pilot, 1)
        assert source.downloads == ["org-1"]


async def test_tampered_egg_shows_failed_at_check_n_and_the_inspector_opens_on_it():
    source, _ = boots(tamper=0)
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        inspector = await open_and_back(pilot, 0)
        assert inspector.report is not None
        position, check = inspector.report.first_failure
        assert inspector.query_one("#report-list", OptionList).highlighted == position - 1
        await pilot.press("escape")
        await settle(pilot)
        assert cells(screen, "state")[0] == f"failed at check {position}"
        assert detail(screen)[0] == f"egg state: failed at check {position}: {check.name}"


async def test_detail_shows_every_field_with_unknown_ones_and_sibling_warnings():
    def edit(n: int, value: dict[str, Any]) -> None:
        if n == 2:
            value["mirror"] = "https://elsewhere.invalid/"
            value["egg"]["note"] = "extra"
            value["hatch"]["effects"] = [*value["hatch"]["effects"], "Also mines coins"]

    source, records = boots(edit=edit)
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        first = detail(screen)
        for label, value in record_fields(records[0]):
            assert f"{label}: {value}" in first
        assert "brainstem.installer: " + records[0].brainstem.installer in first
        assert not screen.query_one("#boots-warnings", Static).display
        await pilot.press("j", "j")
        third = detail(screen)
        assert "mirror (unknown field): https://elsewhere.invalid/" in third
        assert "egg.note (unknown field): extra" in third
        assert "hatch.effects[5]: Also mines coins" in third
        warning = screen.query_one("#boots-warnings", Static)
        assert warning.display
        assert "hatch differs from its sibling records'" in str(warning.content)
        assert cells(screen, "name")[2].endswith("⚠")


async def test_y_copies_the_highlighted_field_and_the_egg_url_from_the_table():
    source, records = boots()
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        await pilot.press("y")
        assert pilot.app.clipboard == records[0].egg.url
        await pilot.press("tab")
        assert screen.focused is screen.query_one("#boots-detail")
        lines = detail(screen)
        target = next(i for i, line in enumerate(lines) if line.startswith("brainstem.installer"))
        listing = screen.query_one("#boots-detail", OptionList)
        while listing.highlighted != target:
            await pilot.press("j")
        await pilot.press("y")
        assert pilot.app.clipboard == records[0].brainstem.installer


async def test_hostile_record_text_stays_literal():
    def edit(n: int, value: dict[str, Any]) -> None:
        value["name"] = HOSTILE_NAME
        value["evil"] = "[@click=app.quit]x\x1b[2J"

    source, _ = boots(edit=edit)
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        assert cells(screen, "name")[0] == "[bold red]Evil[/] ␛…"  # cut to the column
        assert "name: [bold red]Evil[/] ␛[31mCo�" in detail(screen)
        assert "evil (unknown field): [@click=app.quit]x␛[2J" in detail(screen)
        assert pilot.app.is_running


async def test_refused_download_is_shown_on_the_row():
    source, _ = boots()
    source.eggs.pop("org-0")
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.screen is screen
        assert cells(screen, "state")[0] == "download failed"
        assert detail(screen)[0].startswith("egg state: hub refused org-0")


async def test_unreadable_records_get_a_row_with_their_problem():
    source, _ = boots()
    source.broken = [BootEntry("test:broken.json", problems=("not a boot record: kind",))]
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        assert cells(screen, "name")[-1] == "test:broken.json"
        note = screen.query_one("#boots-source", Static).content
        assert "1 unreadable" in str(note)
        await pilot.press("j", "j", "j", "enter")
        await settle(pilot)
        assert pilot.app.screen is screen


async def test_demo_network_without_a_source_uses_the_demo_packer():
    rig = await start()
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot)
        assert isinstance(screen.source, DemoBoots)
        assert len(cells(screen, "slug")) >= 3
        assert "demo packer" in str(screen.query_one("#boots-source", Static).content)
        inspector = await open_and_back(pilot, 0)
        assert inspector.report is not None and inspector.report.ok


async def test_no_source_off_the_demo_network_says_how_to_give_one():
    rig = await start(demo=False)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot)
        note = str(screen.query_one("#boots-source", Static).content)
        assert "--boots" in note
        assert cells(screen, "slug") == []


def test_sibling_warnings_name_the_differing_block_only():
    records = [demo_egg(spec)[1] for spec in SPECS]
    assert sibling_warnings(records) == {}
    value = copy.deepcopy(records[1].as_value())
    value["organ"]["sha256"] = "0" * 64
    odd = BootRecord.model_validate(value)
    found = sibling_warnings([records[0], odd, records[2]])
    assert list(found) == ["org-1"]
    assert found["org-1"] == ["organ differs from its sibling records' (identical on a real hub)"]


@pytest.mark.parametrize("text", ["plain", HOSTILE_NAME])
def test_cells_are_text_never_markup(text):
    screen = BootsScreen()
    _, record = demo_egg()
    value = record.as_value()
    value["name"] = text
    row = BootRow.of_entry(BootEntry("x", BootRecord.model_validate(value)))
    name = screen.cells(row)[0]
    assert isinstance(name, Text) and not name.spans


async def test_refusal_with_a_report_shows_failed_at_its_check():
    source, records = boots()
    record = records[0]

    refused = EggReport(
        checks=[
            Check("record.ref", "ref", "pass", ""),
            Check("record.url", "record: egg.url is the hub URL + egg.path", "fail", "x"),
        ]
    )

    async def refuse(row: Any, *, download: bool = True, progress: object = None) -> EggOutcome:
        if not download:
            return EggOutcome(None)
        return EggOutcome(refused, error="egg.url is not the hub's: not downloaded")

    source.check = refuse  # type: ignore[method-assign]
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        await pilot.press("enter")
        await settle(pilot)
        # the inspector opens on the refusal's report: no byte of the egg, every pane says so
        inspector = pilot.app.screen
        assert isinstance(inspector, EggInspectorScreen) and inspector.source is None
        summary = str(inspector.query_one("#inspector-summary", Static).render())
        assert summary.startswith("FAILED at check 2")
        assert "refused before it could be read" in str(
            inspector.query_one("#manifest-body", Static).render()
        )
        assert not inspector.open_entry("soul.md")
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is screen
        assert cells(screen, "state")[0] == "failed at check 2"
        assert detail(screen)[0] == (
            "egg state: failed at check 2: record: egg.url is the hub URL + egg.path"
        )
        assert record.slug == "org-0"


@pytest.mark.slow
async def test_hub_source_reads_the_demo_hub_and_downloads_into_the_egg_cache(tmp_path):
    from tui.config import Settings
    from tui.service import connect

    service = connect(Settings(cache_dir=tmp_path), use_cache=False, agents=300)
    try:
        assert service.demo and service.settings.boots
        source = HubBoots(service)
        rows = list(await source.rows())
        assert len(rows) == 15 and all(r.record is not None for r in rows[:11])
        assert [r.id for r in rows[11:]] == [  # the demo store's rapplications
            "field_notes", "tide_tables", "pocket_ledger", "quiet_hours",
        ]  # fmt: skip
        assert (await source.check(rows[0], download=False)) == EggOutcome(None)
        first = await source.check(rows[0])
        assert first.report is not None and first.report.ok and not first.from_cache
        path = first.egg
        assert isinstance(path, Path) and path.is_file() and tmp_path in path.parents
        again = await source.check(rows[0], download=False)
        assert again.from_cache and again.egg == path and again.report == first.report
        rig = await start(source)
        async with rig.app.run_test(size=SIZE) as pilot:
            screen = await shown(pilot, source)
            for _ in range(5):
                await settle(pilot)
            assert cells(screen, "state")[0] == "verified"  # the cached egg, verified at load
            assert cells(screen, "state")[1] == "not downloaded"
            inspector = await open_and_back(pilot, 1)
            assert inspector.report is not None and inspector.report.ok
    finally:
        await service.aclose()


async def test_a_download_shows_progress_and_does_not_take_over_another_tab():
    """The row says how far the download is; if another tab is chosen meanwhile, the egg is
    verified and a toast says it is ready — the inspector does not open over that tab."""
    import asyncio

    source, records = boots()
    gate = asyncio.Event()
    seen: list[str] = []
    real_check = source.check

    async def slow_check(row: Any, *, download: bool = True, progress: Any = None) -> EggOutcome:
        if download:
            progress(10, 40)
            seen.append(cells(screen, "state")[0])
            await gate.wait()
            progress(40, 40)
        return await real_check(row, download=download)

    source.check = slow_check  # type: ignore[method-assign]
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        await pilot.press("enter")
        for _ in range(5):  # not settle(): the download waits on the gate
            await pilot.pause()
        assert seen == ["downloading 25%"]
        await pilot.press("4")
        for _ in range(5):
            await pilot.pause()
        gate.set()
        for _ in range(4):
            await settle(pilot)
        assert not isinstance(pilot.app.screen, EggInspectorScreen)
        assert pilot.app.screen is not screen  # still the tab that was chosen
        assert cells(screen, "state")[0] == "verified"
        await pilot.press("6", "enter")
        for _ in range(4):
            await settle(pilot)
        assert isinstance(pilot.app.screen, EggInspectorScreen)


async def test_vim_jumps_and_every_warning_in_the_detail():
    def edit(n: int, value: dict) -> None:
        if n == 1:  # differs from its siblings: a warning on that row
            value["brainstem"]["installer"] = "curl https://elsewhere.invalid/" + "x" * 300

    source, _ = boots(edit=edit)
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        table = screen.query_one(DataTable)
        await pilot.press("G")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("g")
        assert table.cursor_row == 0
        await pilot.press("j")
        row = screen.rows[1]
        assert row.warnings  # the strip above shows three lines; the detail has them whole
        for warning in row.warnings:
            assert f"warning: {warning}" in detail(screen)


async def test_below_80_columns_name_and_slug_give_way_to_the_verified_column():
    from tui.ui.screens.boots.screen import column_widths

    assert column_widths(80) == {"name": 20, "slug": 22, "size": 8, "state": 18}
    source, _ = boots()
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        await pilot.press("j")
        await pilot.resize_terminal(60, 20)
        await settle(pilot)
        table = screen.query_one(DataTable)
        widths = {str(key.value): column.width for key, column in table.columns.items()}
        assert widths["state"] == 18 and widths["size"] == 8
        assert sum(w + 2 for w in widths.values()) <= 60 - 2  # the scrollbar still fits
        assert table.cursor_row == 1 and cells(screen, "state")[0] == "not downloaded"
        assert all(len(name) <= widths["name"] for name in cells(screen, "name"))


async def test_a_wide_terminal_gives_its_spare_columns_to_name_and_slug():
    """At 140 columns names and slugs were cut at their 80-column widths, 70 columns empty."""
    from tui.ui.screens.boots.screen import column_widths

    wide = column_widths(140)
    assert wide["size"] == 8 and wide["state"] == 18
    assert wide["name"] + wide["slug"] == 140 - 4 - 8 - 8 - 18
    source, _ = boots()
    rig = await start(source)
    async with rig.app.run_test(size=(140, 30)) as pilot:
        screen = await shown(pilot, source)
        names = [row.name for row in screen.rows if row.kind == "record"]
        assert names and cells(screen, "name")[: len(names)] == names  # whole, not cut
        note = str(screen.query_one("#boots-source", Static).content)
        assert not note.rstrip().endswith("·") and "…" not in note


@pytest.mark.parametrize("width", [80, 100, 120, 140])
async def test_names_slugs_and_sources_are_cut_only_when_they_must_be(tmp_path, width):
    """Widths follow the content: a name or slug is whole whenever name and slug fit beside
    the size and Verified columns; the note's source URLs are whole when the line has room
    for them, else cut in the middle on a line of their own (never a dangling "·")."""
    from rich.cells import cell_len

    from tui.config import Settings
    from tui.service import connect

    service = connect(Settings(cache_dir=tmp_path), use_cache=False, agents=30)
    try:
        source = HubBoots(service)
        rows = list(await source.rows())
        rig = await start(source)
        async with rig.app.run_test(size=(width, 30)) as pilot:
            screen = await shown(pilot, source)
            table = screen.query_one(DataTable)
            widths = {str(key.value): column.width for key, column in table.columns.items()}
            texts = [screen.texts(boot_row(entry)) for entry in rows]
            longest_name = max(cell_len(t[0]) for t in texts)
            longest_slug = max(cell_len(t[1]) for t in texts)
            fits = longest_name + longest_slug + 8 + 18 + 2 * 4 + 4 <= width
            assert (cells(screen, "name") == [t[0] for t in texts]) == fits, widths
            if fits:
                assert cells(screen, "slug") == [t[1] for t in texts]
            assert sum(w + 2 for w in widths.values()) == width - 4  # no column of spare room
            lines = str(screen.query_one("#boots-source", Static).content).split("\n")
            assert all(cell_len(line) <= width - 2 for line in lines)
            assert not any(line.rstrip().endswith("·") for line in lines)
            whole = all(origin in lines[-1] for origin in source.origins)
            needed = len("2 sources: ") + sum(len(o) for o in source.origins) + len(", ")
            assert len(source.origins) == 2 and whole == (needed <= width - 2), lines
            if not whole:
                assert len(lines) == 2 and lines[1].count("…") == len(source.origins)
    finally:
        await service.aclose()


async def test_a_cached_egg_is_checked_off_the_event_loop(tmp_path, monkeypatch):
    """The tab judges a cached egg as it loads; while the file's hash is held up (it waits for
    the test to let it go), the event loop still runs: a timer ticks, keys move the cursor."""
    import threading
    import time

    from tui.config import Settings
    from tui.eggs import verify
    from tui.service import connect

    service = connect(Settings(cache_dir=tmp_path), use_cache=False, agents=300)
    try:
        source = HubBoots(service)
        rows = list(await source.rows())
        assert (await source.check(rows[0])).report.ok  # now in the egg cache
        real = verify.file_hasher
        held, go = threading.Event(), threading.Event()

        class HeldHasher:
            def __init__(self) -> None:
                self.hasher = real()

            def update(self, block: Any) -> None:
                held.set()
                assert go.wait(10)  # whatever thread hashes waits here
                self.hasher.update(block)

            def hexdigest(self) -> str:
                return self.hasher.hexdigest()

        rig = await start(source)
        async with rig.app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, BootsScreen)
            monkeypatch.setattr(verify, "file_hasher", HeldHasher)
            ticks: list[float] = []
            pilot.app.set_interval(0.05, lambda: ticks.append(time.monotonic()))
            screen.boots_source = source
            started = time.monotonic()
            while not held.is_set():  # the check has begun, and waits on the hash
                assert time.monotonic() - started < 20
                await pilot.pause(0.05)
            before = len(ticks)
            await pilot.press("j")
            await pilot.pause(0.3)
            assert screen.query_one(DataTable).cursor_row == 1  # keys are handled meanwhile
            assert len(ticks) > before  # and timers tick
            assert cells(screen, "state")[0] == "not downloaded"  # still being judged
            go.set()
            while cells(screen, "state")[0] != "verified":
                assert time.monotonic() - started < 30
                await pilot.pause(0.1)
    finally:
        go.set()
        await service.aclose()


async def test_a_stores_rapplications_are_listed_beside_the_boot_records():
    source = StoreBoots()
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        names = cells(screen, "name")
        assert names[-4:] == ["Field Notes", "Tide Tables", "Pocket Ledger", "Quiet Hours"]
        by = cells(screen, "slug")[-4:]
        assert by == ["@demo 1.2.0", "@harbor 0.4.1", "@ledger 1.0.0", "@guild 0.2.0"]
        assert cells(screen, "state")[-4:] == ["not downloaded"] * 3 + ["no egg"]
        assert cells(screen, "size")[-1] == "—" and cells(screen, "size")[-4].endswith("kB")
        note = str(screen.query_one("#boots-source", Static).content)
        assert "4 store apps" in note and "boot records" in note
        await pilot.press("G")  # Quiet Hours: no egg, and enter says so
        await settle(pilot)
        assert detail(screen)[0].startswith("egg state: the store ships no egg for it")
        assert "record.category: creative" in detail(screen)
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.screen is screen and cells(screen, "state")[-1] == "no egg"
        await pilot.press("k", "k", "k", "enter")  # Field Notes: downloaded, judged legacy
        for _ in range(4):
            await settle(pilot)
        inspector = pilot.app.screen
        assert isinstance(inspector, EggInspectorScreen)
        summary = str(inspector.query_one("#inspector-summary", Static).render())
        assert summary.startswith(  # the phrase whole, then the rest on the next line
            "legacy egg (brainstem-egg/2.2-rapplication): read safely, cannot be verified\n"
        )
        assert inspector.report.legacy and not inspector.report.verified
        await pilot.press("escape")
        await settle(pilot)
        assert cells(screen, "state")[-4] == "legacy"
        assert "read safely, cannot be verified" in detail(screen)[0]


async def test_a_store_egg_on_another_origin_is_refused_and_never_fetched():
    source = StoreBoots(foreign=("tide_tables",))
    rig = await start(source)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, source)
        before = len(source.sandbox.state.sandbox.request_log)
        assert cells(screen, "state")[-3].startswith("failed at check")  # refused at load
        await pilot.press("G", "k", "k", "enter")
        for _ in range(3):
            await settle(pilot)
        inspector = pilot.app.screen
        assert isinstance(inspector, EggInspectorScreen) and inspector.source is None
        assert inspector.report.failed() == ["store.url"]
        assert len(source.sandbox.state.sandbox.request_log) == before
