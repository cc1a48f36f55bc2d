"""The thread reader (tui/conversation/reader.py): the cache first, then GitHub's REST API shaped
as GitHub answers (tests/github_fake.py), kept on disk with ETags, rate limits respected, hostile
answers refused. The clock is injected: nothing here waits for time to pass."""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from github_fake import API, REPO, GitHub

from tui.config import Secret
from tui.conversation.reader import NO_REPO, Threads
from tui.conversation.rest_thread import limit_note, next_link
from tui.conversation.thread_disk import QUICK_LIMIT
from tui.network.store import Store

READ = "https://read.example"
TOKEN = "ghp_s3cretTOKENvalue0123456789"
# ../shared/real beside the clone (ROOST_REAL_DIR names it for a clone kept elsewhere)
REAL_MORE = (
    Path(
        os.environ.get("ROOST_REAL_DIR") or Path(__file__).resolve().parents[3] / "shared" / "real"
    )
    / "rappterbook-more"
    / "state"
)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def move(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def read_server(files: dict[str, bytes]) -> httpx.MockTransport:
    """The read interface: ``state/<name>`` from ``files``, 404 for anything else."""

    def answer(request: httpx.Request) -> httpx.Response:
        name = request.url.path.rpartition("/")[2]
        if request.url.path.startswith("/state/") and name in files:
            return httpx.Response(200, content=files[name])
        return httpx.Response(404, json={"message": "Not Found"})

    return httpx.MockTransport(answer)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def github(clock: Clock) -> GitHub:
    return GitHub(clock)


@pytest.fixture
async def clients(github: GitHub):
    api = httpx.AsyncClient(transport=github.transport())
    read = httpx.AsyncClient(transport=read_server({}))
    yield api, read
    await api.aclose()
    await read.aclose()


def make(clients, clock, folder: Path | None, *, store=None, token=None, **options) -> Threads:
    api, read = clients
    store = store or Store(READ, client=read, cache=None, files=())
    options.setdefault("repo", REPO)
    return Threads(
        store,
        api_url=API,
        client=api,
        folder=folder,
        find_token=lambda: Secret(token) if token else None,
        clock=clock,
        **options,
    )


# --------------------------------------------------------------------------- reading from GitHub


async def test_more_than_a_page_of_comments_is_read_by_following_link(
    github, clients, clock, tmp_path
):
    github.add(7, comments=125, replies=1)  # 250 comments: three pages of 100
    reader = make(clients, clock, tmp_path)
    read = await reader.read(7)
    thread = read.thread
    assert read.fresh and read.problem is None and thread is not None and thread.complete
    assert thread.source == "rest" and len(thread.comments) == 250
    assert thread.author == "zion-coder-07" and thread.body == "The body of #7."
    pages = github.asked("/comments")
    assert len(pages) == 3
    # the second and third pages were the ones GitHub's Link named, not built by roost
    assert all("/repositories/4242/" in str(r.url) for r in pages[1:])
    replies = [c for c in thread.comments if c.depth == 1]
    assert len(replies) == 125 and all(c.author == "replier-0" for c in replies)
    assert thread.comments[0].author == "agent-000" and thread.comments[1].parent_id
    assert read.fetched_at == clock.now


async def test_replies_listed_apart_are_read_under_their_comment(clock, tmp_path):
    github = GitHub(clock, replies_in_list=False)
    github.add(9, comments=3, replies=2)
    async with httpx.AsyncClient(transport=github.transport()) as api:
        reader = make((api, None), clock, tmp_path, store=_empty_store())
        thread = (await reader.read(9)).thread
    assert thread is not None and len(thread.comments) == 9
    assert [c.depth for c in thread.comments] == [0, 1, 1] * 3
    assert len(github.asked("/replies")) == 3


async def test_a_second_read_asks_with_etags_and_reuses_every_304(github, clients, clock, tmp_path):
    github.add(7, comments=150)
    reader = make(clients, clock, tmp_path)
    first = await reader.read(7)
    asked = len(github.requests)
    again = await reader.read(7)  # within a minute: used as it is, nothing asked
    assert again.fresh and len(github.requests) == asked
    clock.move(61)
    again = await reader.read(7)
    later = github.requests[asked:]
    assert len(later) == asked and all(r.headers.get("if-none-match") for r in later)
    assert again.fresh and again.thread == first.thread and again.fetched_at == clock.now
    refreshed = await reader.read(7, fresh=True)  # `r`: asked even within the minute
    assert refreshed.fresh and len(github.requests) == 3 * asked


async def test_the_copy_kept_on_disk_answers_offline_with_its_age(github, clients, clock, tmp_path):
    github.add(7, comments=3)
    await make(clients, clock, tmp_path).read(7)
    read_at = clock.now
    clock.move(3 * 3600)

    def offline(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 101] Network is unreachable", request=request)

    github.fault = offline
    reader = make(clients, clock, tmp_path)  # another process: nothing in memory
    shown = reader.first(7)
    assert shown is not None and shown.thread.source == "rest" and not shown.fresh
    read = await reader.read(7)
    assert read.thread == shown.thread and not read.fresh and read.fetched_at == read_at
    assert "Network is unreachable" in read.problem and "\n" not in read.problem


async def test_a_damaged_or_linked_entry_is_ignored_and_replaced(github, clients, clock, tmp_path):
    github.add(7, comments=2)
    entry = tmp_path / "discussion-7.json"
    entry.write_text('{"format": "roost-thread/1", "pages": [')
    reader = make(clients, clock, tmp_path)
    assert reader.first(7) is None and not entry.exists()  # dropped
    read = await reader.read(7)
    assert read.fresh and json.loads(entry.read_text())["number"] == 7
    assert "if-none-match" not in github.requests[0].headers
    # a link where an entry should be is never followed
    target = tmp_path / "elsewhere.json"
    entry.replace(target)
    entry.symlink_to(target)
    reader = make(clients, clock, tmp_path)
    assert reader.first(7) is None and not entry.is_symlink() and target.exists()


async def test_first_answers_from_memory_or_a_small_entry_without_asking(
    github, clients, clock, tmp_path
):
    github.add(7, comments=2)
    reader = make(clients, clock, tmp_path)
    assert reader.first(7) is None
    await reader.read(7)
    asked = len(github.requests)
    assert reader.first(7).thread.listed == 2
    assert make(clients, clock, tmp_path).first(7).thread.listed == 2  # from disk
    assert len(github.requests) == asked
    big = tmp_path / "discussion-7.json"
    document = json.loads(big.read_text())
    document["pages"][0]["data"]["body"] = "x" * QUICK_LIMIT
    big.write_text(json.dumps(document))
    cold = make(clients, clock, tmp_path)
    assert cold.first(7) is None  # too big to read on the event loop
    clock.move(10)
    assert (await cold.read(7)).thread.listed == 2  # read in a worker thread, then revalidated


async def test_a_cap_on_pages_keeps_what_was_read_and_says_so(github, clients, clock, tmp_path):
    github.add(7, comments=250)
    read = await make(clients, clock, tmp_path, max_pages=2).read(7)
    assert read.fresh and not read.thread.complete and read.thread.listed == 200
    assert "stopped after 2 pages" in read.problem
    assert len(github.asked("/comments")) == 2


# --------------------------------------------------------------------------- the rate limit


def _note_at(until: float) -> str:
    return datetime.fromtimestamp(until).astimezone().strftime("%H:%M")


async def test_a_spent_limit_stops_every_read_until_its_reset(github, clients, clock, tmp_path):
    github.add(7, comments=1)
    github.remaining = 0
    reader = make(clients, clock, tmp_path)
    read = await reader.read(7)
    assert read.thread is None and len(github.requests) == 1
    expected = (
        f"GitHub's limit for reads without a token is spent until {_note_at(github.reset)}; "
        "a token raises it"
    )
    assert read.problem == expected == reader.limit_note
    for number in (7, 8, 9):
        assert (await reader.read(number, fresh=True)).problem == expected
    assert len(github.requests) == 1  # never a burst of failures
    # the next process knows it too
    assert make(clients, clock, tmp_path).limit_note == expected
    clock.move(3601)
    github.remaining = 60
    assert reader.limit_note is None
    assert (await reader.read(7)).fresh and len(github.requests) == 3


async def test_a_limit_spent_mid_thread_stops_the_next_page(github, clients, clock, tmp_path):
    github.add(7, comments=250)
    github.remaining = 2  # the post and one page, the second answer says 0 are left
    reader = make(clients, clock, tmp_path)
    read = await reader.read(7)
    assert len(github.requests) == 2 and not read.fresh
    assert read.thread is not None and not read.thread.complete and read.thread.listed == 100
    assert read.problem == reader.limit_note and "spent until" in read.problem


async def test_a_secondary_limit_pauses_reads_for_its_retry_after(github, clients, clock, tmp_path):
    github.add(7)
    github.fault = lambda request: httpx.Response(
        403,
        headers={"retry-after": "120"},
        json={"message": "You have exceeded a secondary rate limit."},
    )
    reader = make(clients, clock, tmp_path, token=TOKEN)
    read = await reader.read(7)
    until = clock.now.timestamp() + 120
    assert (
        read.problem
        == f"GitHub asked for a pause in reads until {_note_at(until)} (too many at once)"
    )
    await reader.read(7)
    assert len(github.requests) == 1


async def test_with_a_token_the_note_says_so_and_a_304_is_free(github, clients, clock, tmp_path):
    github.add(7, comments=1)
    reader = make(clients, clock, tmp_path, token=TOKEN)
    await reader.read(7)
    spent = github.limit - github.remaining
    await reader.read(7, fresh=True)  # every answer a 304: nothing spent
    assert github.limit - github.remaining == spent
    assert limit_note(None, 0) is None
    github.remaining = 0
    clock.move(61)
    github.discussions[7]["title"] = "changed"  # no 304 now
    read = await reader.read(7)
    assert read.problem == (
        f"GitHub's limit for reads with this token is spent until {_note_at(github.reset)}"
    )
    assert read.thread is not None and read.thread.title == "A post"  # the copy kept


def test_a_hostile_reset_cannot_stop_reads_for_more_than_an_hour(clock):
    from tui.conversation.rest_thread import RestThreads
    from tui.network.fetch import Reply

    rest = RestThreads(API, REPO, client=lambda: None, clock=lambda: clock().timestamp())
    rest._read_limits(
        Reply(403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "99999999999"}), False
    )
    assert rest.limit.until == clock().timestamp() + 3600


# --------------------------------------------------------------------------- hostile answers


async def test_a_redirect_is_a_problem_and_is_not_followed(github, clients, clock, tmp_path):
    github.add(7)
    github.fault = lambda request: httpx.Response(
        301, headers={"location": "https://elsewhere.example/repos/x/y/discussions/7"}
    )
    read = await make(clients, clock, tmp_path).read(7)
    assert read.thread is None and len(github.requests) == 1
    assert "HTTP 301" in read.problem and "elsewhere.example" in read.problem
    assert "not followed" in read.problem


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (httpx.Response(200, content=b"x" * (3 << 20)), "cap"),
        (httpx.Response(200, content=b"<html>"), "not JSON"),
        (httpx.Response(200, content=b'{"number": 7, "number": 8}'), "duplicate member"),
        (httpx.Response(200, json={"number": 8, "title": "another"}), "not that discussion"),
        (httpx.Response(200, json=[1, 2]), "not a discussion"),
        (httpx.Response(502, json={"message": "Server \x1b[2J Error"}), "HTTP 502"),
    ],
)
async def test_hostile_answers_are_refused_in_one_line(
    answer, said, github, clients, clock, tmp_path
):
    github.fault = lambda request: answer
    read = await make(clients, clock, tmp_path).read(7)
    assert read.thread is None and said in read.problem
    assert "\n" not in read.problem and "\x1b" not in read.problem


async def test_a_slow_answer_is_given_up(github, clock, tmp_path):
    import asyncio

    class Trickle(httpx.AsyncByteStream):
        async def __aiter__(self):
            yield b'{"number": 7,'
            await asyncio.sleep(30)
            yield b"}"

    github.fault = lambda request: httpx.Response(200, stream=Trickle())
    async with httpx.AsyncClient(transport=github.transport()) as api:
        reader = make((api, None), clock, tmp_path, store=_empty_store(), deadline_s=0.2)
        read = await reader.read(7)
    assert read.thread is None and "no complete reply within 0.2 s" in read.problem


async def test_the_token_goes_only_to_the_write_url_and_is_never_shown(clock, tmp_path):
    github = GitHub(clock)
    github.add(7, comments=120)
    elsewhere: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.host != "api.github.com":
            elsewhere.append(request)
            return httpx.Response(200, json=[])
        reply = github(request)
        if "link" in reply.headers:  # a next page on another origin
            reply.headers["link"] = '<https://evil.example/next?page=2>; rel="next"'
        return reply

    called_from: list[str] = []

    def find_token() -> Secret:
        called_from.append(threading.current_thread().name)
        return Secret(TOKEN)

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as api:
        reader = Threads(
            _empty_store(), api_url=API, repo=REPO, client=api, folder=tmp_path,
            find_token=find_token, clock=clock,
        )  # fmt: skip
        read = await reader.read(7)
    assert elsewhere == [] and "leads elsewhere" in read.problem
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in github.requests)
    assert called_from and called_from[0] != threading.main_thread().name  # off the loop
    assert TOKEN not in repr(read)
    for path in tmp_path.iterdir():  # the entry kept on disk
        assert TOKEN not in path.read_text(errors="replace")


async def test_a_refused_token_is_dropped_and_the_read_goes_on_without(clock, tmp_path):
    github = GitHub(clock)
    github.add(7)

    def answer(request: httpx.Request) -> httpx.Response:
        if "authorization" in request.headers:
            github.requests.append(request)
            return httpx.Response(401, json={"message": "Bad credentials"})
        return github(request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as api:
        reader = make((api, None), clock, tmp_path, store=_empty_store(), token=TOKEN)
        read = await reader.read(7)
    assert read.fresh and TOKEN not in (read.problem or "")
    # refused once, then the post and its comments without it
    assert [("authorization" in r.headers) for r in github.requests] == [True, False, False]


def test_next_link_reads_githubs_link_header():
    value = (
        "<https://api.github.com/repositories/1/discussions/7/comments?per_page=100&page=2>; "
        'rel="next", <https://api.github.com/repositories/1/discussions/7/comments?page=9>; '
        'rel="last"'
    )
    assert next_link(value, API).endswith("page=2")
    assert next_link('<https://x/a>; rel="last"', API) is None
    assert next_link("<garbage", API) is None and next_link(None, API) is None
    assert next_link("</relative?page=3>; rel=next", API + "/x") == API + "/relative?page=3"


# --------------------------------------------------------------------------- where it comes from


def _empty_store() -> Store:
    return Store(READ, client=httpx.AsyncClient(transport=read_server({})), cache=None, files=())


async def test_without_a_repository_the_reader_says_how_to_name_one(clients, clock, tmp_path):
    reader = make(clients, clock, tmp_path, repo=None)
    read = await reader.read(7)
    assert read.thread is None and read.problem == NO_REPO


@pytest.fixture
def real_more() -> Path:
    if not (REAL_MORE / "discussions_cache.json").is_file():
        pytest.skip("../shared/real is not present beside this clone")
    return REAL_MORE


async def test_the_deployments_cache_answers_first_and_github_gives_the_texts(
    real_more, clock, tmp_path
):
    files = {
        name: (real_more / name).read_bytes()
        for name in ("discussions_cache.json", "posted_log.json")
    }
    index = {"5580": {"id": "D_kwDOindexed", "number": 5580, "title": "x", "channel": "general"}}
    files["discussions_index.json"] = json.dumps(index).encode()
    github = GitHub(clock, repo="kody-w/rappterbook")  # the repository the cache's _meta names
    github.add(5580, comments=2)
    async with (
        httpx.AsyncClient(transport=read_server(files)) as read_client,
        httpx.AsyncClient(transport=github.transport()) as api,
    ):
        store = Store(READ, client=read_client, cache=None, files=())
        reader = Threads(store, api_url=API, repo=None, client=api, folder=tmp_path, clock=clock)
        await reader.prepare()
        await store.refresh()
        read = await reader.read(5580)
        # the light copy needs the log's names: asked for then, never waited for by a read
        assert "posted_log.json" in store.file_names and read.thread.comments[0].author == "kody-w"
        await reader.log_ready()
        await store.refresh()
        read = await reader.read(5580)
        assert github.requests == []
        thread = read.thread
        assert thread.source == "cache-light" and not thread.comment_texts and read.fresh
        assert thread.author == "rappter-critic" and thread.account == "rappter1"
        # the log names the agents the light cache does not (its comment authors are one account)
        assert thread.comments[0].author == "zion-debater-07" and thread.listed == 37
        assert thread.node_id == "D_kwDOindexed"  # from discussions_index.json
        assert read.fetched_at == datetime(2026, 3, 15, 15, 22, 33, tzinfo=UTC)  # scraped_at
        assert reader.first(5580).thread == thread
        full = await reader.read(5580, fresh=True)
        assert full.thread.source == "rest" and full.thread.comment_texts and full.fresh
        assert all("/repos/kody-w/rappterbook/" in str(r.url) for r in github.requests[:1])
        # once read whole, the lighter cache no longer wins, nor is GitHub asked again at once
        asked = len(github.requests)
        assert (await reader.read(5580)).thread.source == "rest"
        assert reader.first(5580).thread.source == "rest" and len(github.requests) == asked
        # a post only the log knows: what it knows, while GitHub cannot say more
        github.fault = lambda request: httpx.Response(503)
        logged = await reader.read(5733)
        assert logged.thread.source == "log" and not logged.fresh and "HTTP 503" in logged.problem


async def test_the_store_is_asked_for_the_conversations_files_once(clients, clock, tmp_path):
    api, read = clients
    store = Store(READ, client=read, cache=None, files=("trending.json",))
    asked = []
    want = store.want

    async def counted(*names):
        asked.append(names)
        return await want(*names)

    store.want = counted
    reader = make(clients, clock, tmp_path, store=store)
    await reader.read(1)
    await reader.read(2)
    await reader.prepare()
    await reader.log_ready()
    # the cache and the index at the first read; the log (what it knows of a post no source
    # gave) when a read found nothing, without waiting for it; each once
    assert asked == [("discussions_cache.json", "discussions_index.json"), ("posted_log.json",)]


def test_the_reader_builds_no_disk_files_without_a_folder(tmp_path, clock):
    reader = Threads(_empty_store(), api_url=API, repo=REPO, folder=None, clock=clock)
    assert reader.first(7) is None and reader.limit_note is None
    assert os.listdir(tmp_path) == []


def light_site() -> dict[str, bytes]:
    """A deployment whose light cache holds #7 and whose log names who commented on it."""
    cache = {
        "_meta": {"scraped_at": "2026-11-01T09:00:00Z", "owner": "rappter", "repo": "network"},
        "discussions": [
            {
                "number": 7,
                "title": "[DEBATE] Is it?",
                "body": "*Posted by **zion-coder-07***\n\nShort body.",
                "author_login": "rappter",
                "category_slug": "debates",
                "comment_count": 2,
                "comment_authors": [
                    {"login": "rappter", "created_at": "2026-11-01T08:00:00Z"},
                    {"login": "rappter", "created_at": "2026-11-01T08:05:00Z"},
                ],
            }
        ],
    }
    log = {
        "posts": [{"number": 7, "title": "[DEBATE] Is it?", "channel": "debates"}],
        "comments": [
            {"discussion_number": 7, "author": "zion-one", "timestamp": "2026-11-01T08:00:00Z"},
            {"discussion_number": 6, "author": "elsewhere", "timestamp": "2026-11-01T08:01:00Z"},
            {"discussion_number": 7, "author": "zion-two", "timestamp": "2026-11-01T08:05:00Z"},
        ],
    }
    return {
        "discussions_cache.json": json.dumps(cache).encode(),
        "posted_log.json": json.dumps(log).encode(),
    }


async def test_a_light_cache_answers_and_a_fresh_read_asks_github(github, clock, tmp_path):
    github.add(7, comments=2)
    async with (
        httpx.AsyncClient(transport=read_server(light_site())) as read_client,
        httpx.AsyncClient(transport=github.transport()) as api,
    ):
        store = Store(READ, client=read_client, cache=None, files=())
        reader = Threads(store, api_url=API, client=api, folder=tmp_path, clock=clock)
        await reader.prepare()
        await store.refresh()
        assert store.file_names == ("discussions_cache.json", "discussions_index.json")
        light = await reader.read(7)
        assert [c.author for c in light.thread.comments] == ["rappter", "rappter"]  # no log yet
        await reader.log_ready()
        await store.refresh()  # the store's next cycle brings the log
        light = await reader.read(7)
        assert github.requests == [] and light.fresh and light.problem is None
        thread = light.thread
        assert thread.source == "cache-light" and not thread.comment_texts
        assert (thread.tag, thread.title, thread.author) == ("DEBATE", "Is it?", "zion-coder-07")
        assert [c.author for c in thread.comments] == ["zion-one", "zion-two"]
        assert all(c.body is None for c in thread.comments)
        full = await reader.read(7, fresh=True)  # the repository named by the cache's _meta
        assert full.thread.source == "rest" and full.thread.comment_texts
        assert str(github.requests[0].url) == f"{API}/repos/rappter/network/discussions/7"
        # GitHub failing, the copy with the texts is shown, with why
        github.fault = lambda request: httpx.Response(500)
        clock.move(120)
        again = await reader.read(7, fresh=True)
        assert again.thread == full.thread and not again.fresh and "HTTP 500" in again.problem


async def test_a_big_log_is_indexed_by_a_read_in_a_thread_not_by_first(
    clock, tmp_path, monkeypatch
):
    import tui.conversation.reader as reader_module

    monkeypatch.setattr(reader_module, "SMALL_LOG", 1)  # every log counts as big here
    async with httpx.AsyncClient(transport=read_server(light_site())) as read_client:
        store = Store(READ, client=read_client, cache=None, files=("posted_log.json",))
        await store.refresh()
        reader = Threads(store, api_url=API, folder=tmp_path, clock=clock)
        await reader.prepare()
        await store.refresh()
        # first() does not index a big log on the event loop: the accounts, for now
        assert [c.author for c in reader.first(7).thread.comments] == ["rappter", "rappter"]
        read = await reader.read(7)  # indexed in a worker thread first
        assert [c.author for c in read.thread.comments] == ["zion-one", "zion-two"]
        assert [c.author for c in reader.first(7).thread.comments] == ["zion-one", "zion-two"]
