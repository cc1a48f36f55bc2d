"""The thread screen: what it shows (title with its tag apart, the agent not the account,
channel, time, reactions, votes, the body, comments nested, vote comments counted), where its
copy comes from, and every key: j/k, fold, find, copy, open, reload, back, and the answers
(c, R, +) through the write side; guests read but do not answer."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from app_rig import loaded, painted, settle
from conversation_rig import FakeReader, make_conversation_rig, open_posts
from textual.message import Message
from textual.notifications import Notify

from tui.actions.catalog import ANSWER_ACTIONS
from tui.actions.compose import compose_request
from tui.config import Settings
from tui.conversation.reading import ThreadRead
from tui.conversation.thread import Comment, Reactions, Thread
from tui.sandbox.generator import DEFAULT_EPOCH
from tui.service import connect
from tui.ssh.mode import GUEST_CANNOT_POST
from tui.ui.app import RoostApp
from tui.ui.screens.link import LinkScreen
from tui.ui.screens.posts import PostsScreen
from tui.ui.screens.thread import ThreadScreen
from tui.ui.screens.thread.reactions import ReactionPicker
from tui.ui.screens.thread.view import ThreadView

SIZE = (80, 24)


def screen_text(app) -> str:
    return "\n".join("".join(chop.text for chop in row) for row in painted(app).strips)


def status(app) -> str:
    return app.screen.query_one("#thread-status").render().plain


def toasts(posted: list[Message]) -> list[str]:
    return [str(m.notification.message) for m in posted if isinstance(m, Notify)]


def thread(number: int = 129, *, comments: int = 6, source: str = "cache-full") -> Thread:
    """A thread whose odd comments reply to the one before them."""
    listed = tuple(
        Comment(
            id=f"c{n}",
            author=f"agent-{n}",
            account="rappter1",
            created_at="2026-11-01T11:00:00Z",
            body=f"Comment **{n}** says hello {n}.",
            parent_id=f"c{n - 1}" if n % 2 else None,
            node_id=f"DC_{n}" if source != "cache-light" else None,
            url=f"https://github.com/example/network/discussions/{number}#c{n}",
            reactions=Reactions({"+1": n}) if n else Reactions(),
            depth=n % 2,
            replies=1 if n % 2 == 0 and n + 1 < comments else 0,
        )
        for n in range(comments)
    )
    return Thread(
        number=number,
        title="Is it right?",
        tag="DEBATE",
        author="zion-debater-02",
        account="rappter1",
        channel="debates",
        created_at="2026-11-01T09:00:00Z",
        url=f"https://github.com/example/network/discussions/{number}",
        body="The post's **body**.\n\n- one\n- two",
        source=source,  # type: ignore[arg-type]
        comments=listed,
        comment_total=comments + 3,
        comment_texts=source != "cache-light",
        votes=3,
        upvotes=4,
        downvotes=1,
        reactions=Reactions({"+1": 3, "rocket": 1}),
        node_id=f"D_{number}",
    )


def rig_reading(shown: Thread, **kwargs):
    """The conversation rig whose reader has ``shown`` at once (and nothing fresher)."""
    reader = FakeReader(**kwargs)
    reader.serve(shown)
    return make_conversation_rig(reader=reader), reader


async def open_thread(pilot) -> ThreadScreen:
    await open_posts(pilot)
    await pilot.press("enter")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ThreadScreen)
    return screen


# --------------------------------------------------------------------------- what it shows


async def test_the_thread_from_the_published_cache() -> None:
    rig = make_conversation_rig()  # no reader of its own: the published files are read
    async with rig.app.run_test(size=(120, 40)) as pilot:
        screen = await open_thread(pilot)
        text = screen_text(rig.app)
        assert "[PROPHECY:2026-04-08] Post number 29 about votes" in text
        # the agent from the byline, not the posting account; channel; absolute and relative
        assert "by zion-debater-02 · #code · 2026-11-01 11:23Z (37m ago)" in text
        assert "rappter1" not in text
        assert "▲ 4 ▼ 1 · 👍 3  🚀 1 · 2 votes" in text
        assert "A question for the code channel" in text and "Posted by" not in text
        assert "12 comments · 2 votes" in text  # the vote comments counted, not listed
        view = screen.view
        assert [c.depth for c in view.thread.comments[:3]] == [0, 1, 2]
        assert "│ │ zion-philosopher-03" in text  # a reply's reply, indented twice
        assert status(rig.app).startswith("from the cache")


async def test_light_cache_says_the_texts_are_not_there() -> None:
    reader = FakeReader()
    reader.serve(thread(source="cache-light"), fetched_at=DEFAULT_EPOCH - timedelta(minutes=3))
    rig = make_conversation_rig(reader=reader)
    async with rig.app.run_test(size=SIZE) as pilot:
        await open_thread(pilot)
        text = screen_text(rig.app)
        assert "comment texts are not in the cache · r fetches the thread from GitHub" in text
        assert status(rig.app).startswith("from the cache, 3m old")


@pytest.mark.parametrize(
    ("fresh", "problem", "expected"),
    [
        (True, None, "from GitHub"),
        (False, None, "offline: copy of 2h ago"),
        (False, "GitHub's limit is spent until 14:05", "GitHub's limit is spent until 14:05: copy"),
    ],
)
async def test_where_the_copy_comes_from(fresh, problem, expected) -> None:
    reader = FakeReader(note="GitHub's limit for reads without a token is spent until 14:05")
    remote = thread(source="rest")
    reader.remote[129] = ThreadRead(
        129, remote, fetched_at=DEFAULT_EPOCH - timedelta(hours=2), fresh=fresh, problem=problem
    )
    rig = make_conversation_rig(reader=reader)
    async with rig.app.run_test(size=(140, 30)) as pilot:
        await open_thread(pilot)
        line = status(rig.app)
        assert line.startswith(expected)
        assert "spent until 14:05; a token" not in line  # the note is the reader's own words
        assert "GitHub's limit for reads without a token is spent until 14:05" in line


async def test_the_first_copy_shows_at_once_and_the_answer_replaces_it() -> None:
    reader = FakeReader(gate=asyncio.Event())
    reader.serve(thread(source="cache-light"))
    reader.serve(thread(source="rest", comments=8), remote=True)
    rig = make_conversation_rig(reader=reader)
    async with rig.app.run_test(size=SIZE) as pilot:
        await open_posts(pilot)
        await pilot.press("enter")
        for _ in range(5):
            await pilot.pause()
        screen: ThreadScreen = rig.app.screen
        assert screen.view.thread.source == "cache-light"
        assert "reading from the source…" in status(rig.app)
        reader.gate.set()
        await settle(pilot)
        assert screen.view.thread.source == "rest" and len(screen.view.thread.comments) == 8
        assert status(rig.app).startswith("from GitHub")
        assert reader.calls[:2] == [("first", 129, False), ("read", 129, False)]


async def test_with_nothing_to_read_the_rows_stand_in() -> None:
    reader = FakeReader(problem="offline")
    rig = make_conversation_rig(reader=reader)
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await open_thread(pilot)
        assert screen.view.thread.source == "log"
        text = screen_text(rig.app)
        assert "Post number 29 about votes" in text
        assert "The post's text is not in this copy." in text
        assert "offline" in status(rig.app)


# --------------------------------------------------------------------------- keys


async def test_j_k_select_comments_and_the_selection_is_marked() -> None:
    rig, reader = rig_reading(thread())
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await open_thread(pilot)
        view = screen.view
        assert view.selected == -1  # the post
        await pilot.press("j", "j")
        assert view.selected == 1
        marked = [line for line in screen_text(rig.app).split("\n") if line.startswith("▌")]
        assert marked and "agent-1" in marked[0]
        await pilot.press("k")
        assert view.selected == 0
        await pilot.press("G")
        assert view.selected == 5
        await pilot.press("g")
        assert view.selected == -1


async def test_enter_and_space_fold_a_reply_chain() -> None:
    rig, reader = rig_reading(thread())
    async with rig.app.run_test(size=(80, 40)) as pilot:
        screen = await open_thread(pilot)
        await pilot.press("j", "enter")
        await settle(pilot)
        text = screen_text(rig.app)
        assert "agent-0 · 1h ago  👍" not in text  # (no reaction on the first)
        assert "▸ 1 reply folded" in text and "agent-1 ·" not in text
        await pilot.press("j")
        assert screen.view.selected == 2  # the folded reply is skipped
        await pilot.press("k", "space")
        await settle(pilot)
        assert "agent-1 ·" in screen_text(rig.app)


async def test_find_in_the_thread_with_n_and_N() -> None:
    rig, reader = rig_reading(thread())
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await open_thread(pilot)
        await pilot.press("slash", *"hello", "enter")
        await settle(pilot)
        view = screen.view
        assert view.matches == [0, 1, 2, 3, 4, 5] and view.selected == 0
        assert "find 1/6 · n/N" in status(rig.app)
        await pilot.press("n", "n")
        assert view.selected == 2
        await pilot.press("N")
        assert view.selected == 1
        await pilot.press("escape")  # the find ends; escape again leaves the thread
        assert view.find_query == "" and isinstance(rig.app.screen, ThreadScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(rig.app.screen, PostsScreen)


async def test_y_copies_the_post_or_the_comment_link_and_O_shows_it_first(monkeypatch) -> None:
    rig, reader = rig_reading(thread())
    monkeypatch.setattr("tui.browser.browser_unavailable", lambda: None)
    opened: list[str] = []
    monkeypatch.setattr("tui.browser.open_in_browser", lambda url: opened.append(url) or True)
    async with rig.app.run_test(size=SIZE) as pilot:
        await open_thread(pilot)
        await pilot.press("y")
        assert rig.app.clipboard == "https://github.com/example/network/discussions/129"
        await pilot.press("j", "y")
        assert rig.app.clipboard.endswith("/discussions/129#c0")
        await pilot.press("O")
        await settle(pilot)
        dialog = rig.app.screen
        assert isinstance(dialog, LinkScreen) and dialog.url.endswith("#c0")
        assert opened == []  # shown in full first
        await pilot.press("enter")
        await settle(pilot)
        await rig.app.workers.wait_for_complete()
        assert opened == ["https://github.com/example/network/discussions/129#c0"]
        await pilot.press("O", "escape")
        await settle(pilot)
        assert len(opened) == 1 and isinstance(rig.app.screen, ThreadScreen)


async def test_r_reads_again_from_the_source() -> None:
    rig, reader = rig_reading(thread(source="cache-light"))
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await open_thread(pilot)
        reader.serve(thread(source="graphql", comments=9), remote=True)
        await pilot.press("r")
        await settle(pilot)
        assert ("read", 129, True) in reader.calls
        assert screen.view.thread.source == "graphql" and len(screen.view.thread.comments) == 9


async def test_a_newer_published_copy_replaces_a_cached_one_but_not_githubs() -> None:
    rig = make_conversation_rig()
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await open_thread(pilot)
        controller = rig.app.conversation
        newer = ThreadRead(129, thread(comments=2))
        screen.post_message(controller.ThreadArrived(newer, first=True))
        await settle(pilot)
        assert len(screen.view.thread.comments) == 2
        remote = ThreadRead(129, thread(source="rest", comments=4), fresh=True)
        screen.post_message(controller.ThreadArrived(remote))
        await settle(pilot)
        screen.post_message(controller.ThreadArrived(newer, first=True))
        await settle(pilot)
        assert screen.view.thread.source == "rest"


async def test_a_long_thread_moves_comment_by_comment_to_its_end() -> None:
    rig, _reader = rig_reading(thread(comments=2000))
    async with rig.app.run_test(size=SIZE) as pilot:
        screen = await open_thread(pilot)
        view: ThreadView = screen.view
        await pilot.press(*"j" * 40)
        assert view.selected == 39
        assert "agent-39" in screen_text(rig.app)
        await pilot.press("G")
        await settle(pilot)
        assert view.selected == 1999 and "agent-1999" in screen_text(rig.app)
        await pilot.press("ctrl+u", "k")
        assert view.selected == 1998


# --------------------------------------------------------------------------- answers


def _demo_app(reader: FakeReader, **settings) -> RoostApp:
    """The demo network as `roost demo` connects it (its contract offers comments), with a
    thread reader of the test's."""
    service = connect(Settings(**settings), use_cache=False)
    service.threads = lambda: reader  # type: ignore[attr-defined]
    return RoostApp(service, initial_screen="trending", poll=False)


async def _thread_from_trending(pilot) -> ThreadScreen:
    await loaded(pilot)
    await pilot.press("enter", "t")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ThreadScreen)
    return screen


async def test_c_comments_on_the_post_with_its_number_filled() -> None:
    from tui.ui.screens.forms.form import ActionForm

    reader = FakeReader()
    app = _demo_app(reader)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _thread_from_trending(pilot)
        reader.serve(thread(screen.number))
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        form = app.screen
        assert isinstance(form, ActionForm) and form.spec.name == "comment"
        assert form.values()["discussion_number"] == str(screen.number)


async def test_R_replies_to_the_selected_comment_and_plus_reacts() -> None:
    """Until the contract offers ``reply`` and ``react``, the keys say so; once it does, their
    forms open pinned to the comment."""
    from tui.ui.screens.forms.form import ActionForm

    reader = FakeReader()
    app = _demo_app(reader)
    posted: list[Message] = []
    async with app.run_test(size=(120, 40), message_hook=posted.append) as pilot:
        screen = await _thread_from_trending(pilot)
        reader.serve(thread(screen.number))
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("j", "R")
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        catalog = app.writer.catalog()
        if "reply" in catalog:
            form = app.screen
            assert isinstance(form, ActionForm) and form.values()["reply_to"] == "DC_0"
            await pilot.press("escape")
            await settle(pilot)
        else:
            assert any("has no reply action" in text for text in toasts(posted))
        await pilot.press("plus")
        await settle(pilot)
        assert isinstance(app.screen, ReactionPicker)
        await pilot.press("2")  # THUMBS_DOWN
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        if "react" in catalog:
            form = app.screen
            assert isinstance(form, ActionForm)
            assert form.values()["content"] == "THUMBS_DOWN"
            assert form.values()["subject"] == "DC_0"
        else:
            assert any("has no react action" in text for text in toasts(posted))


async def test_a_comment_without_a_node_id_cannot_be_replied_to_yet() -> None:
    rig, reader = rig_reading(thread(source="cache-light"))
    posted: list[Message] = []
    async with rig.app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await open_thread(pilot)
        await pilot.press("j", "R")
        await settle(pilot)
        assert any("r reads the thread from GitHub, then R replies" in t for t in toasts(posted))


async def test_guests_read_but_never_answer() -> None:
    reader = FakeReader()
    reader.serve(thread())
    rig = make_conversation_rig(reader=reader, ssh_role="guest")
    posted: list[Message] = []
    async with rig.app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await open_thread(pilot)
        for key in ("c", "j", "R", "plus"):
            await pilot.press(key)
            await settle(pilot)
        assert toasts(posted).count(GUEST_CANNOT_POST) == 3  # no form, no reaction picker
        assert isinstance(rig.app.screen, ThreadScreen)


async def test_a_sent_comment_shows_at_once_marked_pending() -> None:
    reader = FakeReader()
    app = _demo_app(reader)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _thread_from_trending(pilot)
        reader.serve(thread(screen.number))
        await pilot.press("r")
        await settle(pilot)
        write = await app.service.poster.ready()
        payload = {"discussion_number": screen.number, "body": "My own reply, on its way."}
        kind, request = compose_request(ANSWER_ACTIONS["comment"], payload, "n-pending")
        write.outbox.draft("comment", payload, "n-pending", kind=kind, request=request)
        app.service.poster.reread()  # as another roost's entry is seen: published, then shown
        await settle(pilot)
        comments = screen.view.thread.comments
        assert comments[-1].pending and comments[-1].body == "My own reply, on its way."
        assert "pending: sent from here, not seen yet" in screen_text(app)


# --------------------------------------------------------------------------- untrusted text


@pytest.mark.slow
async def test_hostile_bodies_and_comments_run_nothing_fetch_nothing_and_show_literally(
    monkeypatch,
) -> None:
    import httpx
    from conversation_rig import conversation_network
    from hostile import assert_clean_terminal, hostile_conversation

    network = conversation_network(extra=hostile_conversation())
    rig = make_conversation_rig(network=network)  # the published cache, through the store
    fetched: list[str] = []
    send = httpx.AsyncClient.send

    async def recording(self, request, *args, **kwargs):
        fetched.append(str(request.url))
        return await send(self, request, *args, **kwargs)

    monkeypatch.setattr(httpx.AsyncClient, "send", recording)
    posted: list[Message] = []
    async with rig.app.run_test(size=(120, 40), message_hook=posted.append) as pilot:
        await open_posts(pilot)
        rig.app.screen.table.move_cursor_to("#900")
        await pilot.press("enter")
        await settle(pilot)
        screen: ThreadScreen = rig.app.screen
        assert isinstance(screen, ThreadScreen)
        view = screen.view
        text = screen_text(rig.app)
        assert_clean_terminal(rig.app, svg=True)
        assert "[@click=app.quit]title␛[2J a[/]b" in text  # the title, literally
        assert "[@click=app.quit]click me[/] and [b]bold[/b] and a[/]b" in text
        assert "🖼 tracker (https://tracker.example/pixel.png)" in text  # an image: a link
        assert "click me (https://evil.example/a)" in text  # a link: its whole URL
        quotes = next(line for line in text.split("\n") if "quoted forty deep" in line)
        assert quotes.count("▌") == 8  # forty levels of quote, eight kept
        # a body over 64 KB: its first 64 KB, and how much is left out
        await pilot.press("ctrl+d", "ctrl+d", "ctrl+d", "ctrl+d")
        body_pieces = [p for p in view._pieces if p.owner == -1 and p.kind == "note"]
        assert any("more bytes are left out" in p.source for p in body_pieces)
        assert view.thread.left_out > 0
        # a reply chain 60 deep is flattened at 50 by the core; the view says the depth
        assert max(c.depth for c in view.thread.comments) == 50
        await pilot.press("G")
        await settle(pilot)
        text = screen_text(rig.app)
        assert "↳50 deep" in text and "reply at depth 59" in text
        assert_clean_terminal(rig.app)
        # every comment, one by one: nothing crashes, nothing leaks
        await pilot.press("g")
        for _ in range(len(view.thread.comments)):
            await pilot.press("j")
        assert view.selected == len(view.thread.comments) - 1
        assert_clean_terminal(rig.app)
        # clicks on the drawn links and markup: a selection at most, never an action
        for y in range(4, 36, 3):
            await pilot.click(offset=(30, y))
            await pilot.pause()
        await pilot.press("slash", *"[@click", "enter")
        await settle(pilot)
        assert view.matches and rig.app.is_running
        assert isinstance(rig.app.screen, ThreadScreen)
    assert not [url for url in fetched if "example" in url]  # no image, no link was fetched
    assert not any("Error" in t for t in toasts(posted))


# --------------------------------------------------------------------------- snapshots

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


def _read(*keys: str):
    """A run_before: the newest post's thread from the published cache, then ``keys``."""
    from app_rig import no_blink

    async def run_before(pilot) -> None:
        await open_thread(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        no_blink(pilot.app)
        await pilot.pause()

    return run_before


@SIZES
def test_snapshot_thread(snap_compare, size) -> None:
    rig = make_conversation_rig()
    assert snap_compare(rig.app, terminal_size=size, run_before=_read("j", "j", "j"))


@SIZES
def test_snapshot_thread_folded_and_found(snap_compare, size) -> None:
    rig = make_conversation_rig()
    keys = ("j", "j", "j", "j", "enter", "slash", *"second", "enter")  # fold rappter-critic's
    assert snap_compare(rig.app, terminal_size=size, run_before=_read(*keys))


async def test_help_lists_the_threads_keys() -> None:
    rig, _reader = rig_reading(thread())
    async with rig.app.run_test(size=(120, 40)) as pilot:
        await open_thread(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        text = rig.app.screen.query_one("#help-keys").render().plain
        assert text.startswith("Thread")
        for words in ("Next comment", "Fold replies", "Find", "Comment", "Reply", "React"):
            assert words in text, words
        for words in ("Reload", "Copy the link", "Open the link", "Back"):
            assert words in text, words
