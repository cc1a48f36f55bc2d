"""The store's user controls: URLs named in problems, the folder layout of a read URL,
a forced re-fetch without validators, pause and a runtime interval."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tui.network.store import STATE_FILE_NAMES, Store, StoreOptions
from tui.network.urls import layout_candidates
from tui.sandbox.app import create_app

BASE = "http://sandbox.test"
FAST = StoreOptions(retry_delay_s=0, interval_s=3600, jitter=0, min_interval_s=0.01)


@pytest.fixture
def sandbox():
    return create_app(agents=40)


def folder_client(sandbox, folder: str) -> httpx.AsyncClient:
    """A client for a server that keeps the state files directly under ``folder`` (no state/)."""
    inner = httpx.AsyncClient(transport=httpx.ASGITransport(app=sandbox), base_url=BASE)

    async def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if not path.startswith(folder) or path.startswith(folder + "state/"):
            return httpx.Response(404, content=b"not found")
        reply = await inner.get("/state/" + path.removeprefix(folder), headers=request.headers)
        return httpx.Response(reply.status_code, headers=reply.headers, content=reply.content)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_a_read_url_at_the_files_folder_is_accepted_and_said_once(sandbox):
    async with folder_client(sandbox, "/published/") as client:
        store = Store(BASE + "/published", client=client, options=FAST)
        report = await store.refresh()
        assert report.ok, report.problems
        assert store.snapshot.all_verified
        assert store.base_url == BASE + "/published/"
        assert len(report.notes) == 1
        assert "/published/state/manifest-hashes.json" in report.notes[0]
        assert "reading the state files from http://sandbox.test/published/" in report.notes[0]
        again = await store.refresh()
        assert again.notes == [] and again.ok


async def test_a_repository_named_without_its_branch_is_found_on_main(sandbox):
    """``https://raw.githubusercontent.com/OWNER/REPO`` (no branch): the files are found under
    ``main/state/`` and the note says which --read-url to set."""
    async with folder_client(sandbox, "/owner/repo/main/state/") as client:
        store = Store(BASE + "/owner/repo", client=client, options=FAST)
        report = await store.refresh()
        assert report.ok, report.problems
        assert store.base_url == BASE + "/owner/repo/main/state/"
        (note,) = report.notes
        assert "reading the state files from http://sandbox.test/owner/repo/main/state/" in note
        assert "--read-url http://sandbox.test/owner/repo/main says so at once" in note
        assert (await store.refresh()).notes == []


def test_layout_candidates_of_the_shapes_a_person_pastes():
    assert layout_candidates("https://host/data") == ["https://host/data/"]
    assert layout_candidates("https://host/data/state/") == []  # that is where it looked
    raw = "https://raw.githubusercontent.com/o/r"
    assert layout_candidates(raw) == [f"{raw}/", f"{raw}/main/state/", f"{raw}/master/state/"]
    assert layout_candidates("https://github.com/o/r") == [
        "https://github.com/o/r/",
        f"{raw}/main/state/",
        f"{raw}/master/state/",
    ]
    assert layout_candidates("https://github.com/o/r/tree/dev/site") == [
        "https://github.com/o/r/tree/dev/site/",
        f"{raw}/dev/site/state/",
        f"{raw}/dev/site/",
    ]
    assert layout_candidates("http://[::1") == []


async def test_every_http_problem_names_the_url_tried_without_credentials(sandbox):
    async with folder_client(sandbox, "/elsewhere/") as client:
        store = Store("http://alice:secret@sandbox.test/data", client=client, options=FAST)
        report = await store.refresh()
    assert report.problems
    for problem in report.problems:
        if problem.kind in ("missing", "http"):
            assert "http://***@sandbox.test/data/" in problem.detail, problem
        assert "secret" not in problem.detail
    agents = store.snapshot.file("agents.json").problem
    assert agents is not None
    assert agents.detail == "HTTP 404 from http://***@sandbox.test/data/state/agents.json"


async def test_a_forced_refresh_asks_for_every_file_without_validators(sandbox):
    seen: list[httpx.Request] = []
    transport = httpx.ASGITransport(app=sandbox)

    async def record(request: httpx.Request) -> None:
        seen.append(request)

    async with httpx.AsyncClient(
        transport=transport, base_url=BASE, event_hooks={"request": [record]}
    ) as client:
        store = Store(BASE, client=client, options=FAST)
        await store.refresh()
        seen.clear()
        quiet = await store.refresh()
        assert quiet.requests == 1  # the manifest alone, conditionally
        assert "if-none-match" in seen[0].headers
        seen.clear()
        forced = await store.refresh(force=True)
    assert forced.forced
    assert len(seen) == 1 + len(STATE_FILE_NAMES)
    assert not any("if-none-match" in r.headers or "if-modified-since" in r.headers for r in seen)
    assert sorted(forced.fetched) == sorted(STATE_FILE_NAMES)
    assert store.snapshot.all_verified


async def test_pause_holds_the_loop_and_a_request_still_runs_one_cycle(sandbox):
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sandbox), base_url=BASE
    ) as client:
        store = Store(BASE, client=client, options=FAST)
        store.set_interval(0.05)
        store.pause()
        task = asyncio.create_task(store.run())
        try:
            while store.last_report is None:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)  # six intervals: a running loop would have polled again
            assert store.last_report.cycle == 1
            assert store.status.next_delay_s is None
            store.request_refresh(force=True)
            while store.last_report.cycle < 2:
                await asyncio.sleep(0.01)
            assert store.last_report.forced
            store.pause(False)
            while store.last_report.cycle < 4:  # polling again at the new interval
                await asyncio.sleep(0.01)
            assert store.options.interval_s == 0.05
        finally:
            task.cancel()


def test_the_interval_is_floored():
    store = Store(BASE, options=StoreOptions(min_interval_s=5))
    store.set_interval(1)
    assert store.options.interval_s == 5
