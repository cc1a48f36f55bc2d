"""Soul pages (tui/pulse/soul.py): read on demand with a conditional GET, kept on disk, at most
256 KB, from the read URL's origin only; a 404 is a missing page; offline, the copy kept with
its age; an id that could leave its path segment is never asked for."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import httpx
import pytest
from pulse_rig import REAL_PULSE_DIR

from tui.pulse.soul import PAGE_CAP, SoulPage, SoulPages

BASE = "https://raw.example.org/o/r/main/state/"
PAGE = "# zion-archivist-01\n\nI keep the records. \x1b[2J [@click=app.quit]\n"


class Server:
    """A read interface that answers soul pages, and the requests it saw."""

    def __init__(self) -> None:
        self.pages: dict[str, bytes] = {"zion-archivist-01": PAGE.encode()}
        self.seen: list[httpx.Request] = []
        self.down = False
        self.answer: httpx.Response | None = None

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if self.down:
            raise httpx.ConnectError("no route to host", request=request)
        if self.answer is not None:
            return self.answer
        name = request.url.path.rsplit("/", 1)[-1].removesuffix(".md")
        body = self.pages.get(name)
        if body is None:
            return httpx.Response(404, text="404: Not Found")
        etag = f'"{hash(body) & 0xFFFF:x}"'
        if request.headers.get("if-none-match") == etag:
            return httpx.Response(304, headers={"ETag": etag})
        return httpx.Response(200, content=body, headers={"ETag": etag})


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def server() -> Server:
    return Server()


@pytest.fixture
def clock() -> Clock:
    return Clock()


def reader(server: Server, clock: Clock, folder=None, **kwargs) -> SoulPages:
    client = httpx.AsyncClient(transport=httpx.MockTransport(server))
    store = SimpleNamespace(base_url=BASE)
    return SoulPages(store, client=client, folder=folder, clock=clock, **kwargs)  # type: ignore[arg-type]


async def test_a_page_is_read_then_asked_for_conditionally(server, clock, tmp_path):
    pages = reader(server, clock, tmp_path / "memory")
    assert pages.cached("zion-archivist-01") is None
    page = await pages.read("zion-archivist-01")
    assert page == SoulPage("zion-archivist-01", PAGE, False, clock.now, None)
    assert str(server.seen[0].url) == BASE + "memory/zion-archivist-01.md"
    assert "if-none-match" not in server.seen[0].headers
    assert "text/markdown" in server.seen[0].headers["accept"]
    # within a minute: the copy as it is, no request
    clock.now += timedelta(seconds=30)
    assert await pages.read("zion-archivist-01") == page and len(server.seen) == 1
    # later: asked again conditionally, confirmed (304), its time moved on
    clock.now += timedelta(minutes=5)
    again = await pages.read("zion-archivist-01")
    assert server.seen[-1].headers["if-none-match"].startswith('"')
    assert again.text == PAGE and again.fetched_at == clock.now and again.problem is None
    # fresh: asked even within the minute
    await pages.read("zion-archivist-01", fresh=True)
    assert len(server.seen) == 3


async def test_a_copy_is_kept_on_disk_for_the_next_roost(server, clock, tmp_path):
    folder = tmp_path / "memory"
    await reader(server, clock, folder).read("zion-archivist-01")
    later = reader(server, clock, folder)
    cached = later.cached("zion-archivist-01")
    assert cached is not None and cached.text == PAGE and cached.fetched_at == clock.now
    clock.now += timedelta(hours=2)
    server.pages["zion-archivist-01"] = b"# changed\n"
    page = await later.read("zion-archivist-01")
    assert page.text == "# changed\n" and server.seen[-1].headers.get("if-none-match")


async def test_offline_the_copy_kept_is_shown_with_why(server, clock, tmp_path):
    pages = reader(server, clock, tmp_path / "memory")
    first = await pages.read("zion-archivist-01")
    clock.now += timedelta(hours=3)
    server.down = True
    page = await pages.read("zion-archivist-01")
    assert page.text == PAGE and page.fetched_at == first.fetched_at  # its age: three hours
    assert page.problem and page.problem.startswith("not read again:")
    nothing = await pages.read("mars-barn-live")
    assert nothing.text is None and not nothing.missing and nothing.problem
    assert nothing.fetched_at is None


async def test_a_404_is_a_missing_page_and_is_remembered(server, clock, tmp_path):
    folder = tmp_path / "memory"
    page = await reader(server, clock, folder).read("rappter-critic")
    assert page.missing and page.text is None and page.problem is None
    assert reader(server, clock, folder).cached("rappter-critic") == page


@pytest.mark.parametrize(
    "agent",
    ["../agents", "..", ".", "a/b", "a%2F..%2Fb", "", "a b", "x\x00y", "é", "a" * 101, "-a"],
)
async def test_an_id_that_could_leave_its_segment_is_never_asked_for(server, clock, agent):
    pages = reader(server, clock)
    assert pages.url(agent) is None and pages.cached(agent) is None
    page = await pages.read(agent)
    assert page.text is None and not page.missing and "not an agent id" in page.problem
    assert server.seen == []


async def test_a_page_over_the_cap_is_not_taken(server, clock):
    server.pages["big"] = b"x" * (PAGE_CAP + 1)
    page = await reader(server, clock).read("big")
    assert page.text is None and "larger than 256 KB" in page.problem


async def test_a_redirect_to_another_origin_is_not_followed(server, clock):
    server.answer = httpx.Response(302, headers={"Location": "https://evil.example/x.md"})
    page = await reader(server, clock).read("zion-archivist-01")
    assert page.text is None and "another origin" in page.problem
    assert [r.url.host for r in server.seen] == ["raw.example.org"]


async def test_other_statuses_and_bad_bytes(server, clock):
    server.answer = httpx.Response(500)
    assert (await reader(server, clock).read("zion-archivist-01")).problem == "HTTP 500"
    server.answer = httpx.Response(200, content=b"caf\xe9 \xff")
    page = await reader(server, clock).read("zion-archivist-01")
    assert page.text == "caf\ufffd \ufffd"


async def test_two_reads_at_once_share_one_request(server, clock):
    import asyncio

    pages = reader(server, clock)
    first, second = await asyncio.gather(
        pages.read("zion-archivist-01"), pages.read("zion-archivist-01")
    )
    assert first == second and len(server.seen) == 1


@pytest.mark.parametrize(
    "content",
    [
        b"{",
        b"[]",
        json.dumps({"format": "roost-soul/1", "agent": "zion-archivist-01"}).encode(),
        json.dumps(
            {"format": "roost-soul/1", "agent": "zion-archivist-01", "fetched_at": "yesterday",
             "missing": False, "etag": None, "last_modified": None, "text": "x"}
        ).encode(),
        json.dumps(
            {"format": "roost-soul/1", "agent": "zion-archivist-01",
             "fetched_at": "2026-03-15T12:00:00+00:00", "missing": False,
             "etag": "\x1b[2J", "last_modified": None, "text": "x"}
        ).encode(),
        json.dumps(
            {"format": "roost-soul/1", "agent": "zion-archivist-01",
             "fetched_at": "2026-03-15T12:00:00+00:00", "missing": True, "etag": None,
             "last_modified": None, "text": "both"}
        ).encode(),
        json.dumps(
            {"format": "roost-soul/1", "agent": "zion-archivist-01",
             "fetched_at": "2026-03-15T12:00:00+00:00", "missing": False, "etag": None,
             "last_modified": None, "text": "\ud800"}
        ).encode(),
    ],
)  # fmt: skip
async def test_a_damaged_disk_copy_is_removed_and_the_page_read_again(
    server, clock, tmp_path, content
):
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "zion-archivist-01.json").write_bytes(content)
    pages = reader(server, clock, folder)
    assert pages.cached("zion-archivist-01") is None and pages.damaged
    assert not (folder / "zion-archivist-01.json").exists()
    assert (await pages.read("zion-archivist-01")).text == PAGE


async def test_a_linked_disk_copy_is_not_followed(server, clock, tmp_path):
    folder = tmp_path / "memory"
    folder.mkdir()
    secret = tmp_path / "secret.json"
    secret.write_text("{}")
    (folder / "zion-archivist-01.json").symlink_to(secret)
    pages = reader(server, clock, folder)
    assert pages.cached("zion-archivist-01") is None and "link" in pages.damaged[0]
    assert secret.exists()


async def test_a_copy_of_another_agent_on_a_disk_blind_to_case_is_not_taken(
    server, clock, tmp_path
):
    folder = tmp_path / "memory"
    await reader(server, clock, folder).read("zion-archivist-01")
    (folder / "Zion-Archivist-01.json").write_bytes(
        (folder / "zion-archivist-01.json").read_bytes()
    )
    pages = reader(server, clock, folder)
    assert pages.cached("Zion-Archivist-01") is None and not pages.damaged


async def test_the_service_builds_one_reader_on_the_demo_network(tmp_path):
    from tui.config import Settings
    from tui.service import connect

    service = connect(Settings(cache_dir=tmp_path / "cache"))
    try:
        pages = service.soul_pages()
        assert pages is service.soul_pages()
        assert pages.folder == service.store.cache.folder / "memory"
        page = await pages.read("zion-coder-01")
        assert page.agent == "zion-coder-01"
        assert page.text is not None or page.missing or page.problem
    finally:
        await service.aclose()


async def test_the_real_soul_pages_are_read_whole(clock, tmp_path):
    folder = REAL_PULSE_DIR / "memory"
    if not folder.is_dir():
        pytest.skip("../shared/real is not present beside this clone")
    server = Server()
    server.pages = {path.stem: path.read_bytes() for path in folder.glob("*.md")}
    assert len(server.pages) == 3
    pages = reader(server, clock, tmp_path / "memory")
    for agent, body in server.pages.items():
        page = await pages.read(agent)
        assert page.text == body.decode("utf-8") and not page.missing and page.problem is None
        assert reader(server, clock, tmp_path / "memory").cached(agent) == page
    assert (await pages.read("zion-coder-01")).missing
