"""The cold-start path: what the first imports leave out, the disk cache prefetch, the paused
collector and when it is resumed, the cached paint before the first network cycle, the settings
the start path reads and the tab registry the app is built from."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import msgspec.structs
import pytest
from app_rig import BASE, loaded, make_rig, service_for

import tui
from tui.config import DEMO_BASE_URL, Settings
from tui.network.disk_cache import CachedFile, CachedMeta, DiskCache, service_folder_name
from tui.network.store import Store
from tui.sandbox.app import create_app
from tui.sandbox.server import in_process_client
from tui.service import connect
from tui.tabs import tab
from tui.ui.app import RoostApp
from tui.ui.screens import TABS, StateScreen
from tui.ui.speed import startup

SIZE = (80, 24)
REPO_ROOT = Path(tui.__file__).resolve().parents[1]
FETCHED_AT = "2026-01-01T00:00:00+00:00"


@pytest.fixture
def gc_restored(monkeypatch):
    """Whatever a test does to the collector (and startup's own hold) is undone afterwards."""
    startup.resume_gc()
    was_enabled = gc.isenabled()
    try:
        yield
    finally:
        startup.resume_gc()
        if was_enabled:
            gc.enable()
        else:
            gc.disable()


def meta_for(body: bytes, **extra: object) -> CachedMeta:
    return CachedMeta(
        sha256=hashlib.sha256(body).hexdigest(),
        size=len(body),
        fetched_at=FETCHED_AT,
        verified=True,
        **extra,
    )


def wait_for_prefetch() -> None:
    """Join the background readers that DiskCache.prefetch started."""
    for thread in threading.enumerate():
        if thread.name == "roost-cache-prefetch":
            thread.join(timeout=10)
            assert not thread.is_alive()


def remove_entry(cache: DiskCache, name: str) -> None:
    (cache.folder / name).unlink()
    (cache.folder / (name + DiskCache.META_SUFFIX)).unlink()


# --------------------------------------------------------------------------- imports


def _imports_in_child(tmp_path: Path, code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter (no config file) and return what it printed as JSON."""
    config_home = tmp_path / "empty-config"
    config_home.mkdir(exist_ok=True)
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(config_home)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.pop("ROOST_CONFIG", None)
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


_CHILD = """
import json, sys
import tui.ui.app, tui.service, tui.cli, tui.network.store
from tui.config import load_settings
after_imports = sorted(sys.modules)
settings = load_settings()
print(json.dumps({
    "imports": after_imports,
    "after_settings": sorted(sys.modules),
    "config_file": str(settings.config_file),
}))
"""


def test_start_path_imports_leave_out_httpx_tomllib_and_other_tabs(tmp_path):
    result = _imports_in_child(tmp_path, _CHILD)
    imports = set(result["imports"])
    after_settings = set(result["after_settings"])
    assert "tui.ui.app" in imports and "tui.network.store" in imports  # the child really ran
    assert not Path(result["config_file"]).exists()
    assert "httpx" not in imports
    assert "httpx" not in after_settings
    assert "tomllib" not in imports
    assert "tomllib" not in after_settings  # no config file: no TOML parser
    for module in ("trending", "channels", "stats", "seeds"):
        assert f"tui.ui.screens.{module}" not in imports, module
    # the screen registry itself is there: the app's modes are built from it
    assert "tui.tabs" in imports


def test_a_config_file_does_import_tomllib(tmp_path):
    """The other side of the check above: tomllib is imported when there is a file to read."""
    folder = tmp_path / "empty-config" / "roost"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text("interval = 5\n")
    result = _imports_in_child(tmp_path, _CHILD)
    assert "tomllib" not in result["imports"]
    assert "tomllib" in result["after_settings"]


# --------------------------------------------------------------------------- DiskCache.prefetch


def test_prefetch_hands_out_what_a_fresh_read_gives(tmp_path):
    folder = tmp_path / "c"
    writer = DiskCache(folder)
    bodies = {"agents.json": b'{"agents": {}}', "stats.json": b'{"total_agents": 3}'}
    for name, body in bodies.items():
        writer.store(name, body, meta_for(body, etag='"e1"'))

    cache = DiskCache(folder)
    cache.prefetch()
    wait_for_prefetch()
    expected = {name: DiskCache(folder).load(name) for name in bodies}
    assert all(isinstance(value, CachedFile) for value in expected.values())
    # the prefetched copies are used: gone from disk, they still load
    for name in bodies:
        remove_entry(writer, name)
    for name, body in bodies.items():
        loaded_file = cache.load(name)
        assert loaded_file == expected[name]
        assert loaded_file.body == body and loaded_file.meta.etag == '"e1"'


def test_a_prefetched_file_is_handed_out_once_then_read_from_disk(tmp_path):
    folder = tmp_path / "c"
    writer = DiskCache(folder)
    writer.store("agents.json", b"old", meta_for(b"old"))
    cache = DiskCache(folder)
    cache.prefetch()
    assert cache.load("agents.json").body == b"old"
    # another writer replaces the file: the second load reads the disk, not the prefetch
    writer.store("agents.json", b"newer", meta_for(b"newer"))
    again = cache.load("agents.json")
    assert again is not None and again.body == b"newer"
    assert cache.load("agents.json").body == b"newer"  # and keeps working


def test_store_after_prefetch_discards_the_prefetched_copy(tmp_path):
    folder = tmp_path / "c"
    DiskCache(folder).store("agents.json", b"old", meta_for(b"old"))
    DiskCache(folder).store("stats.json", b"stats", meta_for(b"stats"))
    cache = DiskCache(folder)
    cache.prefetch()
    wait_for_prefetch()  # the old copy has been read by now
    cache.store("agents.json", b"new body", meta_for(b"new body"))
    fresh = cache.load("agents.json")
    assert fresh is not None and fresh.body == b"new body"
    assert fresh.meta == meta_for(b"new body")
    # the other prefetched entry is untouched
    assert cache.load("stats.json").body == b"stats"


def test_store_while_the_prefetch_reads_still_wins(tmp_path):
    """However far the background read got, a load after a store returns the stored bytes."""
    folder = tmp_path / "c"
    names = [f"f{i:02}.json" for i in range(30)]
    for name in names:
        DiskCache(folder).store(name, b"old " + name.encode(), meta_for(b"old " + name.encode()))
    cache = DiskCache(folder)
    cache.prefetch()
    for name in names:  # racing the reader thread
        cache.store(name, b"new " + name.encode(), meta_for(b"new " + name.encode()))
    wait_for_prefetch()
    assert [cache.load(name).body for name in names] == [b"new " + n.encode() for n in names]


def test_prefetch_rejects_a_damaged_body(tmp_path):
    folder = tmp_path / "c"
    writer = DiskCache(folder)
    writer.store("agents.json", b"good bytes", meta_for(b"good bytes"))
    writer.store("stats.json", b"fine", meta_for(b"fine"))
    (folder / "agents.json").write_bytes(b"evil bytes")  # no longer matches its sha256
    cache = DiskCache(folder)
    cache.prefetch()
    wait_for_prefetch()
    assert cache.load("agents.json") is None
    assert cache.load("agents.json") is None  # from disk too
    assert cache.load("stats.json").body == b"fine"


def test_prefetch_of_a_missing_folder_does_nothing(tmp_path):
    folder = tmp_path / "never-made"
    cache = DiskCache(folder)
    before = {t.ident for t in threading.enumerate() if t.name == "roost-cache-prefetch"}
    cache.prefetch()
    after = {t.ident for t in threading.enumerate() if t.name == "roost-cache-prefetch"}
    assert after <= before  # no reader thread started
    assert not folder.exists()
    assert cache.load("agents.json") is None


# --------------------------------------------------------------------------- startup.begin, gc


def test_begin_pauses_gc_and_connects_with_the_cache_prefetched(tmp_path, gc_restored):
    root = tmp_path / "cache-root"
    settings = Settings(read_url="https://state.example.org/x", cache_dir=root)
    expected_folder = root / service_folder_name(settings.state_url)
    DiskCache(expected_folder).store("agents.json", b"cached", meta_for(b"cached"))
    gc.enable()

    service = startup.begin(settings)
    assert not gc.isenabled()
    assert service.settings is settings
    cache = service.store.cache
    assert isinstance(cache, DiskCache)
    assert cache.folder == expected_folder
    wait_for_prefetch()
    remove_entry(cache, "agents.json")
    got = cache.load("agents.json")  # read before the file went: the prefetch ran
    assert got is not None and got.body == b"cached"

    startup.resume_gc()
    assert gc.isenabled()
    startup.resume_gc()  # a second resume changes nothing
    assert gc.isenabled()


def test_begin_for_the_demo_uses_the_demo_address(tmp_path, gc_restored):
    service = startup.begin(Settings(cache_dir=tmp_path))
    assert service.demo and service.store.cache.folder == tmp_path / service_folder_name(
        DEMO_BASE_URL
    )
    startup.resume_gc()


def test_resume_gc_keeps_a_collector_someone_else_turned_off(gc_restored):
    gc.disable()
    startup.pause_gc()
    startup.resume_gc()
    assert not gc.isenabled()
    gc.enable()  # and a later pause/resume pair works again
    startup.pause_gc()
    assert not gc.isenabled()
    startup.resume_gc()
    assert gc.isenabled()


def test_cli_hands_the_dashboard_its_service_with_the_prefetched_cache(
    tmp_path, monkeypatch, gc_restored
):
    from tui.cli import main
    from tui.commands import dashboard
    from tui.ui import app as app_module

    seen = {}

    def fake_run_tui(service, *, screen=None):
        seen.update(service=service, gc=gc.isenabled())
        return 0

    monkeypatch.setattr(app_module, "run_tui", fake_run_tui)
    monkeypatch.setattr(dashboard, "on_a_terminal", lambda: True)
    gc.enable()
    assert main(["--cache-dir", str(tmp_path), "--read-url", "https://s.example.org/r"]) == 0
    assert seen["gc"] is False  # paused before the dashboard is imported and built
    cache = seen["service"].store.cache
    assert cache.folder == tmp_path / service_folder_name("https://s.example.org/r")
    startup.resume_gc()


def test_the_app_uses_the_services_store_and_connect_the_cache_it_is_given(tmp_path):
    service = connect(Settings(read_url="https://s.example.org/r"), use_cache=False)
    app = RoostApp(service, poll=False)
    assert app.store is service.store and app.settings is service.settings
    assert service.store.cache is None
    given = DiskCache(tmp_path / "given")
    assert connect(Settings(cache_dir=tmp_path), cache=given).store.cache is given


async def test_app_resumes_gc_when_there_is_no_cache(gc_restored):
    rig = make_rig()
    startup.pause_gc()
    assert not gc.isenabled()
    async with rig.app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert rig.app.screen.table.total_count == 300
        assert gc.isenabled()


class _Recording(Store):
    """Notes, when the first refresh starts, what the app shows and whether gc is on."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.app: RoostApp | None = None
        self.first_refresh: dict[str, object] | None = None

    async def refresh(self):
        if self.first_refresh is None:
            app = self.app
            self.first_refresh = {
                "rows": app.screen.table.total_count,
                "gc": gc.isenabled(),
                "cache_on_view": app.cache_on_view,
            }
        return await super().refresh()


class _NotingApp(RoostApp):
    """Notes whether the collector was on when the cached snapshot arrived (report None)."""

    gc_at_cache_delivery: list[bool]

    def on_roost_app_state_refreshed(self, message: RoostApp.StateRefreshed) -> None:
        # Textual calls each class's handler along the MRO: RoostApp's runs after this one
        if message.report is None:
            self.gc_at_cache_delivery.append(gc.isenabled())


async def test_first_refresh_waits_for_the_cached_paint(tmp_path, gc_restored):
    rig = make_rig()
    cache = DiskCache(tmp_path / "cache")
    client = in_process_client(create_app(rig.network), BASE)  # the rig's demo network
    warm = Store(BASE, client=client, cache=cache)
    await warm.refresh()
    store = _Recording(BASE, client=client, cache=cache, clock=rig.clock)
    app = _NotingApp(service_for(store), clock=rig.clock, poll=False)
    app.gc_at_cache_delivery = []
    store.app = app
    startup.pause_gc()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert store.first_refresh is not None
        # the cached agents were in the table and painted before the network was asked
        assert store.first_refresh["rows"] == 300
        assert store.first_refresh["cache_on_view"] is True
        # the collector stayed off for the cached paint and was back on for the network
        assert app.gc_at_cache_delivery == [False]
        assert store.first_refresh["gc"] is True
        assert gc.isenabled()
        assert app.screen.table.total_count == 300
        assert app.snapshot.all_verified  # the refresh then confirmed the cached copies


# --------------------------------------------------------------------------- settings


def test_as_demo_drops_the_service_and_keeps_the_rest(tmp_path):
    settings = Settings(
        read_url="https://raw.example.org/o/r/main",
        write_url="https://api.example.org",
        repo="o/r",
        hub_url="https://hub.example.org",
        boots="https://boots.example.org",
        interval=15.0,
        cache_dir=tmp_path,
        profile="work",
    )
    demo = settings.as_demo()
    assert demo.demo and not settings.demo
    assert (demo.read_url, demo.write_url, demo.repo, demo.hub_url) == (None, None, None, None)
    assert demo.state_url == DEMO_BASE_URL
    assert (demo.interval, demo.cache_dir, demo.boots) == (15.0, tmp_path, settings.boots)
    assert demo.as_demo() is demo
    plain = Settings()
    assert plain.as_demo() is plain


def test_state_url_is_the_read_url_or_the_demo_address():
    assert Settings().state_url == DEMO_BASE_URL
    assert Settings(read_url="https://x.example.org/s").state_url == "https://x.example.org/s"
    assert Settings(read_url="").state_url == DEMO_BASE_URL  # empty means "not set"


def test_demo_base_url_still_importable_from_service():
    from tui import config, service
    from tui.service import DEMO_BASE_URL as from_service

    assert from_service == config.DEMO_BASE_URL == DEMO_BASE_URL
    assert "DEMO_BASE_URL" in service.__all__


# --------------------------------------------------------------------------- tab registry


def test_every_tab_loads_a_screen_that_matches_it():
    assert [t.id for t in TABS][:3] == ["agents", "trending", "channels"]
    for entry in TABS:
        cls = entry.screen_class()
        assert issubclass(cls, StateScreen)
        assert entry.id == cls.TAB_ID
        assert entry.key == cls.TAB_KEY
        assert entry.title == cls.TAB_TITLE
        assert entry.files == cls.FILES
        assert tab(entry.id) is entry


def test_tabs_are_in_key_order_and_are_the_apps_modes():
    keys = [t.key for t in TABS]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)
    assert list(make_rig().app.MODES) == [t.id for t in TABS]
    # each tab's number key switches to it
    switches = {
        b.key: b.action
        for b in RoostApp.BINDINGS
        if not isinstance(b, tuple) and b.action.startswith("switch_tab")
    }
    assert switches == {t.key: f"switch_tab('{t.id}')" for t in TABS}


def test_a_tab_whose_module_is_missing_stops_the_start_naming_it():
    """A tab is never left out without a word: a missing screen module is an error that names
    the tab and the module."""
    from tui import tabs

    gone = tabs.Tab("gone", "9", "Gone", frozenset(), "tui.ui.screens.gone:GoneScreen")
    with pytest.raises(tabs.MissingTabModule, match=r"gone \(tui\.ui\.screens\.gone\)") as raised:
        tabs._checked((*tabs.TABS, gone))
    assert raised.value.hint
    assert tabs._checked(tuple(reversed(tabs.TABS))) == tabs.TABS  # all there: in key order


def test_a_screen_for_an_unknown_tab_is_refused():
    with pytest.raises(KeyError, match="no-such-tab"):

        class _Ghost(StateScreen, tab="no-such-tab"):
            pass

    class _Plain(StateScreen):  # no tab: nothing is looked up
        pass

    assert _Plain.TAB_ID == ""


def test_a_read_between_a_stores_two_renames_keeps_the_entry(tmp_path, monkeypatch):
    """A store renames the new body into place, then the new meta. A reader in between (the
    prefetch, or another roost process sharing the cache) sees new bytes beside the old meta:
    it reads again instead of deleting the writer's files as damage."""
    from tui.network import disk_cache

    folder = tmp_path / "c"
    writer = DiskCache(folder)
    writer.store("agents.json", b"old", meta_for(b"old"))
    reader = DiskCache(folder)
    reads = 0
    read_regular = disk_cache._read_regular

    def between_the_renames(path):
        nonlocal reads
        reads += 1
        if reads == 1:  # the reader's first look: only the body has been renamed so far
            disk_cache.atomic_write(folder / "agents.json", b"new bytes")
        elif reads == 2:
            data = read_regular(path)  # the old meta
            disk_cache.atomic_write(
                folder / ("agents.json" + DiskCache.META_SUFFIX),
                json.dumps(msgspec.structs.asdict(meta_for(b"new bytes"))).encode(),
            )
            return data
        return read_regular(path)

    monkeypatch.setattr(disk_cache, "_read_regular", between_the_renames)
    loaded = reader.load("agents.json")
    assert loaded is not None and loaded.body == b"new bytes"
    assert reader.take_damaged() == []
    assert (folder / "agents.json").read_bytes() == b"new bytes"


def test_bytes_that_never_match_their_meta_are_still_damage(tmp_path):
    folder = tmp_path / "c"
    DiskCache(folder).store("agents.json", b"good", meta_for(b"good"))
    (folder / "agents.json").write_bytes(b"evil")
    cache = DiskCache(folder)
    assert cache.load("agents.json") is None
    assert [name for name, _ in cache.take_damaged()] == ["agents.json"]
    assert not (folder / "agents.json").exists()


def test_load_cache_refuses_bytes_that_validate_but_do_not_match_their_meta(tmp_path):
    """Without a prefetch, load_cache validates the bytes while a thread checks them against
    their meta: bytes that validate but fail the check are not loaded, they are damage."""
    folder = tmp_path / "c"
    good = b'{"total_agents": 1}'
    DiskCache(folder).store("stats.json", good, meta_for(good))
    (folder / "stats.json").write_bytes(b'{"total_agents": 9}')  # valid, and not what was kept
    store = Store(BASE, cache=DiskCache(folder))
    snapshot = store.load_cache()
    assert snapshot.file("stats.json").model is None
    [problem] = store.unreported_cache_problems
    assert problem.file == "stats.json" and "do not match" in problem.detail
    assert not (folder / "stats.json").exists()


def test_load_cache_reads_again_what_its_check_refused_while_a_store_ran(tmp_path, monkeypatch):
    """The check refuses new bytes read beside the old meta (another roost process was between
    a store's two renames): the entry is read again, loaded and not reported as damage."""
    from tui.network import disk_cache

    folder = tmp_path / "c"
    old, new = b'{"total_agents": 1}', b'{"total_agents": 2}'
    DiskCache(folder).store("stats.json", old, meta_for(old))
    read_regular = disk_cache._read_regular
    reads = 0

    def between_the_renames(path):
        nonlocal reads
        if path.name.startswith("stats.json"):
            reads += 1
            if reads == 1:  # the body is renamed into place, the meta is not yet
                disk_cache.atomic_write(folder / "stats.json", new)
            elif reads == 3:  # the second look: the meta has followed
                disk_cache.atomic_write(
                    folder / ("stats.json" + DiskCache.META_SUFFIX),
                    json.dumps(msgspec.structs.asdict(meta_for(new))).encode(),
                )
        return read_regular(path)

    monkeypatch.setattr(disk_cache, "_read_regular", between_the_renames)
    store = Store(BASE, cache=DiskCache(folder))
    snapshot = store.load_cache()
    assert snapshot.file("stats.json").model.total_agents == 2
    assert store.unreported_cache_problems == ()
    assert (folder / "stats.json").read_bytes() == new
