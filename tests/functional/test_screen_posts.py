"""Tab 7, Posts: every post of the log newest first, read only once the tab is shown; its
filter, sort, vim keys, raw JSON, copy, the thread on enter, the views narrowed from other tabs
and the way back, trending's posts where the log is not published, and hostile text."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from app_rig import loaded, make_rig, painted, settle
from conversation_rig import CHANNELS, conversation_docs, make_conversation_rig, open_posts
from hostile import LITERALS, PAYLOADS
from textual.widgets import OptionList

from tui.network.state_files import POSTED_LOG
from tui.ui.screens.posts import PostsScreen
from tui.ui.screens.sort_picker import SortPicker
from tui.ui.screens.thread import ThreadScreen


def summary(screen: PostsScreen) -> str:
    return screen.query_one(".table-summary").render().plain


def screen_text(app) -> str:
    return "\n".join("".join(chop.text for chop in row) for row in painted(app).strips)


async def test_every_post_newest_first_with_its_tag_apart() -> None:
    rig = make_conversation_rig()
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await open_posts(pilot)
        screen: PostsScreen = rig.app.screen
        keys = screen.table.visible_keys()
        assert keys[:3] == ["#129", "#128", "#127"] and len(keys) == 30
        cells = screen.table.rows[0].cells  # the newest: "[PROPHECY:2026-04-08] Post number 29…"
        assert cells[:3] == ("129", "PROPHECY:2026-04-08", "Post number 29 about votes")
        assert cells[3:] == ("code", "zion-debater-02", "-1", "4", "37m")
        assert summary(screen).startswith("30 posts")


async def test_the_log_is_read_only_once_the_tab_is_shown() -> None:
    rig = make_conversation_rig(screen="agents")
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert POSTED_LOG not in rig.store.file_names  # not at roost's start
        await pilot.press("7")
        await open_posts(pilot)
        assert POSTED_LOG in rig.store.file_names
        assert rig.app.screen.table.row_count == 30


async def test_while_the_log_loads_the_tab_says_so() -> None:
    rig = make_conversation_rig(screen="agents")
    gate = asyncio.Event()
    want = rig.store.want

    async def held(*names: str) -> frozenset[str]:
        await gate.wait()
        return await want(*names)

    rig.store.want = held  # type: ignore[method-assign]
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("7")
        for _ in range(5):  # not settle(): it waits for every worker, the held one too
            await pilot.pause()
        screen: PostsScreen = rig.app.screen
        assert screen.table.empty_message == "loading posted_log.json…"
        assert "loading posted_log.json…" in screen_text(rig.app)
        gate.set()
        await open_posts(pilot)
        assert screen.table.row_count == 30


async def test_where_the_log_is_not_published_trending_stands_in() -> None:
    rig = make_rig(screen="posts")
    rig.faults.unpublished = {POSTED_LOG}  # as a deployment that does not publish it
    async with rig.app.run_test(size=(120, 30)) as pilot:
        await open_posts(pilot)
        screen: PostsScreen = rig.app.screen
        assert rig.store.snapshot.file(POSTED_LOG).integrity == "absent"
        trending = rig.store.snapshot.trending
        assert screen.table.row_count == len(trending.trending)
        assert "posted_log.json is not published here: Trending's posts" in summary(screen)
        assert "Error" not in screen_text(rig.app)


async def test_filter_over_title_author_channel_and_tag() -> None:
    rig = make_conversation_rig()
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await open_posts(pilot)
        screen: PostsScreen = rig.app.screen
        await pilot.press("slash", *"debate", "enter")
        await settle(pilot)
        posts = [screen.model(key) for key in screen.table.visible_keys()]
        # the DEBATE tag, the debates channel or an author zion-debater-02
        assert posts and all("debate" in (p.title + p.channel + p.author).lower() for p in posts)
        tagged = [p for p in posts if p.title.startswith("[DEBATE]")]
        assert tagged and any(p.channel != "debates" for p in tagged)
        await pilot.press("escape")
        assert screen.table.row_count == 30


async def test_sort_reverse_and_vim_keys() -> None:
    rig = make_conversation_rig()
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await open_posts(pilot)
        screen: PostsScreen = rig.app.screen
        table = screen.table
        keys = table.visible_keys()
        await pilot.press("j", "j")
        assert table.cursor_key == keys[2]
        await pilot.press("G")
        assert table.cursor_key == keys[-1]
        await pilot.press("g")
        assert table.cursor_key == keys[0]
        await pilot.press("s")
        await settle(pilot)
        picker = rig.app.screen
        assert isinstance(picker, SortPicker)
        await pilot.press("v")  # votes, largest first
        await settle(pilot)
        votes = [screen.model(k).upvotes - screen.model(k).downvotes for k in table.visible_keys()]
        assert votes == sorted(votes, reverse=True)
        await pilot.press("S")
        votes = [screen.model(k).upvotes - screen.model(k).downvotes for k in table.visible_keys()]
        assert votes == sorted(votes)
        assert "sorted by votes ▲" in summary(screen)


async def test_raw_json_keeps_unknown_fields() -> None:
    rig = make_conversation_rig()
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await open_posts(pilot)
        screen: PostsScreen = rig.app.screen
        screen.table.move_cursor_to("#103")  # the post with a field roost does not know
        await pilot.press("J")
        await settle(pilot)
        body = screen.detail.query_one("#detail-body").render().plain
        assert body.startswith("raw JSON of post #103")
        assert '"mystery_field": "kept"' in body and '"commentCount": 3' in body


async def test_enter_reads_the_thread_and_escape_comes_back_as_it_was() -> None:
    rig = make_conversation_rig()
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await open_posts(pilot)
        screen: PostsScreen = rig.app.screen
        await pilot.press("slash", *"votes", "enter", "j", "j")
        await settle(pilot)
        key = screen.table.cursor_key
        await pilot.press("enter")
        await settle(pilot)
        thread = rig.app.screen
        assert isinstance(thread, ThreadScreen) and f"#{thread.number}" == key
        await pilot.press("escape")
        await settle(pilot)
        assert rig.app.screen is screen
        assert screen.table.cursor_key == key and screen.table.filter_query == "votes"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("backspace")
        await settle(pilot)
        assert rig.app.screen is screen and screen.table.cursor_key == key


async def test_y_copies_the_posts_url_and_n_acts_on_the_post() -> None:
    rig = make_conversation_rig()
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await open_posts(pilot)
        await pilot.press("y")
        assert rig.app.clipboard == "https://github.com/example/network/discussions/129"
        await pilot.press("n")
        await settle(pilot)
        await rig.app.workers.wait_for_complete()
        await settle(pilot)
        picker = rig.app.screen
        options = picker.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        # the post's number fills the actions on a post (comment, where the contract has it)
        assert any("discussion_number=129" in text for text in shown), shown


async def test_a_channels_posts_from_its_detail_and_back() -> None:
    rig = make_conversation_rig(screen="channels")
    async with rig.app.run_test(size=(140, 40)) as pilot:
        await loaded(pilot)
        channels = rig.app.screen
        channels.table.move_cursor_to("debates")
        await pilot.press("enter")
        await settle(pilot)
        links = channels.detail.query_one("#detail-links", OptionList)
        assert "posts in #debates" in str(links.get_option_at_index(0).prompt)
        links.focus()
        links.highlighted = 0
        await pilot.press("enter")
        await open_posts(pilot)
        posts: PostsScreen = rig.app.screen
        assert posts.scope == ("channel", "debates")
        assert {posts.model(k).channel for k in posts.table.visible_keys()} == {"debates"}
        assert "channel: debates  escape clears" in summary(posts)
        posts.table.move_cursor_to(posts.table.visible_keys()[1])
        key = posts.table.cursor_key
        await pilot.press("a")  # to the post's author, and back: the narrowed view as it was
        await settle(pilot)
        assert rig.app.screen.TAB_ID == "agents"
        await pilot.press("backspace")
        await settle(pilot)
        assert rig.app.screen is posts and posts.scope == ("channel", "debates")
        assert posts.table.cursor_key == key
        await pilot.press("backspace")
        await settle(pilot)
        assert rig.app.screen is channels and channels.detail.key == "debates"


async def test_an_agents_posts_with_P_and_escape_widens_again() -> None:
    rig = make_conversation_rig(screen="agents")
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("7")
        await open_posts(pilot)
        await pilot.press("1")
        await settle(pilot)
        agents = rig.app.screen
        agents.table.move_cursor_to("zion-coder-01") or pytest.skip("no such agent here")
        await pilot.press("P")
        await settle(pilot)
        posts: PostsScreen = rig.app.screen
        assert posts.scope == ("author", "zion-coder-01")
        authors = {posts.model(k).author for k in posts.table.visible_keys()}
        assert authors == {"zion-coder-01"}
        await pilot.press("escape")
        assert posts.scope is None and posts.table.row_count == 30


async def test_trending_detail_t_reads_the_thread() -> None:
    rig = make_conversation_rig(screen="trending")
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        trending = rig.app.screen
        await pilot.press("enter", "t")
        await settle(pilot)
        thread = rig.app.screen
        assert isinstance(thread, ThreadScreen)
        post = trending.model(trending.detail.key)
        assert thread.number == post.number
        await pilot.press("escape")
        await settle(pilot)
        assert rig.app.screen is trending and trending.detail_open


async def test_new_posts_are_marked_after_a_refresh() -> None:
    rig = make_conversation_rig()
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await open_posts(pilot)
        docs = conversation_docs(31)  # one more post, the same 30 before it
        rig.network.replace_doc(POSTED_LOG, docs[POSTED_LOG])
        await rig.publish(pilot)
        await open_posts(pilot)
        screen: PostsScreen = rig.app.screen
        assert "#130" in screen.table.marked
        assert "highlighted: new or changed" in summary(screen)


async def test_hostile_titles_authors_and_channels_show_literally() -> None:
    posts = [
        {
            "number": 500 + n,
            "title": ("[DEBATE] " if n % 2 else "") + payload,
            "channel": payload[:40],
            "author": payload[:40],
            "timestamp": "2026-11-01T11:00:00Z" if n % 3 else "\x1b[2J not a date",
            "url": "javascript:alert(1)" if n % 2 else "https://e.example/\x1b]0;t\x07",
            "upvotes": n,
            "commentCount": n,
        }
        for n, payload in enumerate(PAYLOADS)
    ]
    from conversation_rig import conversation_network

    network = conversation_network(extra={POSTED_LOG: {"posts": posts, "comments": []}})
    rig = make_conversation_rig(network=network)
    async with rig.app.run_test(size=(200, 40)) as pilot:
        await open_posts(pilot)
        screen: PostsScreen = rig.app.screen
        assert screen.table.row_count == len(PAYLOADS)
        await pilot.press("J")
        await settle(pilot)
        text = screen_text(rig.app)
        assert "\x1b" not in text and "\x9b" not in text
        shown = [literal for literal in LITERALS if literal in text]
        assert shown  # markup is shown as text, never run
        await pilot.press("y")
        assert "\x1b" not in (rig.app.clipboard or "")
        assert rig.app.is_running


@pytest.mark.parametrize("channel", CHANNELS[:1])
async def test_every_key_of_the_tab_is_in_help(channel: str) -> None:
    rig = make_conversation_rig()
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await open_posts(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        text = rig.app.screen.query_one("#help-keys").render().plain
        for words in ("Read the thread", "Go to author", "Go to channel", "7  Posts", "Raw JSON"):
            assert words.replace("  ", " ") in text.replace("  ", " ") or words in text, words


async def test_a_big_log_is_ordered_off_the_event_loop(monkeypatch) -> None:
    import threading

    from tui.ui.screens import posts as posts_module

    threads: list[str] = []
    order = posts_module.newest_first

    def recorded(log):
        threads.append(threading.current_thread().name)
        return order(log)

    monkeypatch.setattr(posts_module, "newest_first", recorded)
    from conversation_rig import conversation_network

    rig = make_conversation_rig(network=conversation_network(2500, thread_comments=3))
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await open_posts(pilot)
        screen: PostsScreen = rig.app.screen
        assert screen.table.row_count == 2500
        assert screen.table.visible_keys()[:2] == ["#2599", "#2598"]
    assert threads and threading.main_thread().name not in threads


async def test_the_palette_finds_a_post_once_the_log_is_read() -> None:
    rig = make_conversation_rig(screen="agents")
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("7")
        await open_posts(pilot)
        await pilot.press("1", "ctrl+p")
        await pilot.pause()
        await pilot.press(*"#117")
        await settle(pilot)  # the palette's search worker, and the list it fills
        await pilot.press("enter")
        await settle(pilot)
        screen = rig.app.screen
        assert isinstance(screen, PostsScreen) and screen.table.cursor_key == "#117"
        assert not screen.detail_open  # the cursor on it: enter reads it


REAL_STATE = Path(__file__).resolve().parents[3] / "shared" / "real" / "rappterbook-more" / "state"


@pytest.mark.skipif(
    not (REAL_STATE / POSTED_LOG).is_file(), reason="no real files beside the clone"
)
async def test_the_real_log_and_cache() -> None:
    import json

    from conversation_rig import conversation_network

    real = {
        name: json.loads((REAL_STATE / name).read_text(encoding="utf-8"))
        for name in (POSTED_LOG, "discussions_cache.json", "discussions_index.json")
    }
    rig = make_conversation_rig(network=conversation_network(extra=real))
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await open_posts(pilot, timeout=60)
        screen: PostsScreen = rig.app.screen
        numbers = {post["number"] for post in real[POSTED_LOG]["posts"] if post.get("number")}
        assert screen.table.total_count == len(numbers) + sum(
            1 for post in real[POSTED_LOG]["posts"] if not post.get("number")
        )
        newest = screen.model(screen.table.visible_keys()[0])
        cached = {d["number"] for d in real["discussions_cache.json"]["discussions"]}
        key = next(k for k in screen.table.visible_keys() if screen.model(k).number in cached)
        screen.table.move_cursor_to(key)
        await pilot.press("enter")
        await settle(pilot)
        thread = rig.app.screen
        assert isinstance(thread, ThreadScreen) and newest.posted_at
        text = screen_text(rig.app)
        # the light cache: comment authors from the log's entries, texts not there
        assert "comment texts are not in the cache" in text
        assert thread.view.thread.author not in ("rappter1", "kody-w")  # the agent
        assert "Posted by" not in text


# --------------------------------------------------------------------------- snapshots

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


def _shown(*keys: str):
    """A run_before: the Posts tab with the log's rows, then ``keys``."""
    from app_rig import no_blink

    async def run_before(pilot) -> None:
        await open_posts(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        no_blink(pilot.app)
        await pilot.pause()

    return run_before


@SIZES
def test_snapshot_posts(snap_compare, size) -> None:
    assert snap_compare(make_conversation_rig().app, terminal_size=size, run_before=_shown())


@SIZES
def test_snapshot_posts_of_a_channel_filtered(snap_compare, size) -> None:
    rig = make_conversation_rig(screen="channels")

    async def run_before(pilot) -> None:
        await loaded(pilot)
        rig.app.screen.select_key("debates")
        await settle(pilot)
        await pilot.press("P")
        await _shown("slash", *"number 2", "enter")(pilot)

    assert snap_compare(rig.app, terminal_size=size, run_before=run_before)
