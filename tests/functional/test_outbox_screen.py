"""The Outbox screen in a small host App, on a temporary outbox holding an entry in every state.

Entries are made with the real outbox API (``Outbox.draft`` / ``Outbox.save``); retries go to an
``IssueClient`` whose transport is an in-memory GitHub stand-in that records every request.
Snapshots: the list and an entry's detail at 80×24 and 120×40.

Regenerate after a deliberate change with ``--snapshot-update`` and look at the SVGs first.
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from textual.app import App

from tests.damaged_outbox import GOOD_ID, plant_damage
from tui.actions import outbox as outbox_module
from tui.actions.connection import WriteSide
from tui.actions.issue_body import compose_issue
from tui.actions.issue_client import IssueClient
from tui.actions.outbox import Entry, Outbox
from tui.actions.poster import Poster
from tui.config import Secret, Settings
from tui.ui.screens.outbox import OutboxScreen
from tui.ui.screens.outbox.views import (
    ConfirmDiscard,
    EntryDetail,
    EntryList,
    column_widths,
    detail_text,
    row_cells,
)

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
REPO = "kody-w/rappterbook"
URL = f"https://github.com/{REPO}/issues"
HOSTILE_COMMENT = "❌ Failed to process delta. [@click=app.quit]click me[/] \x1b[2Jclear [bold]x"
AT = datetime(2026, 11, 23, 22, 0, tzinfo=UTC).timestamp()

# (state, action, payload, fields set after the draft)
ENTRIES: tuple[tuple[str, str, dict, dict], ...] = (
    ("draft", "heartbeat", {"status_message": "back online"}, {}),
    ("sending", "poke", {"target_agent": "zion-coder-02"}, {"maybe_sent": True}),
    (
        "queued",
        "poke",
        {"target_agent": "zion-welcomer-01"},
        {"number": 41, "html_url": f"{URL}/41", "author": "roost-demo"},
    ),
    (
        "accepted",
        "heartbeat",
        {},
        {
            "number": 40,
            "html_url": f"{URL}/40",
            "comment": "✅ Delta processed successfully and added to inbox.",
        },
    ),
    (
        "rejected",
        "poke",
        {"target_agent": "[bold]nobody"},
        {"number": 39, "html_url": f"{URL}/39", "comment": HOSTILE_COMMENT},
    ),
    ("applied", "heartbeat", {}, {"number": 38, "html_url": f"{URL}/38"}),
    (
        "failed",
        "poke",
        {"target_agent": "zion-coder-03"},
        {
            "reason": "could not reach the platform: connection refused",
            "retry_safe": True,
            "unreachable": True,
        },
    ),
    (
        "failed",
        "poke",
        {"target_agent": "zion-coder-04"},
        {"reason": "token rejected (401): check the token", "retry_safe": False},
    ),
    (
        "unknown",
        "poke",
        {"target_agent": "zion-coder-05"},
        {"reason": "no clear answer and the lookup failed", "maybe_sent": True},
    ),
)


def fill(outbox: Outbox, *, fixed: bool = True) -> list[Entry]:
    """One entry per row of ENTRIES, oldest first. ``fixed`` gives stable, ordered ids, nonces
    and times (drafts made in one second sort by their random suffix); otherwise they come from
    ``Outbox.draft``."""
    made = []
    for i, (state, action, payload, extra) in enumerate(ENTRIES):
        if fixed:
            nonce = f"{i:032x}"
            entry = Entry(
                id=f"20261123T22{i:02d}00Z-{i:08x}",
                action=action,
                payload=payload,
                nonce=nonce,
                created_at=f"2026-11-23T22:{i:02d}:00Z",
                request=compose_issue(action, payload, nonce).as_json(),
            )
        else:
            entry = outbox.draft(action, payload)
        entry.state = state
        for name, value in extra.items():
            setattr(entry, name, value)
        if entry.number:
            message = f"queued as issue #{entry.number}"
            entry.attempts = [{"at": AT + i, "kind": "create", "status": 201, "message": message}]
        outbox.save(entry)
        made.append(entry)
    return made


class Platform:
    """GitHub's create-issue endpoint in memory: every request is kept, every POST is a 201.
    While ``gate`` is set and not open, answers wait for it."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.gate: asyncio.Event | None = None

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.gate is not None:
            await self.gate.wait()
        if request.method == "POST":
            number = 100 + len(self.requests)
            return httpx.Response(
                201,
                json={
                    "number": number,
                    "html_url": f"{URL}/{number}",
                    "url": f"https://api.github.com/repos/{REPO}/issues/{number}",
                    "user": {"login": "roost-demo"},
                    "labels": [{"name": "action"}, {"name": "poke"}],
                },
            )
        return httpx.Response(404, json={"message": "Not Found"})


def poster_over(outbox: Outbox, client: IssueClient | None = None) -> Poster:
    """A poster around ``outbox``; without ``client``, one with no token (it sends nothing)."""
    if client is None:
        client = IssueClient("https://api.github.com", REPO, None)
    return Poster.over(WriteSide(client, outbox, None), Settings())


class Host(App):
    """Pushes the Outbox screen over a poster and records the summaries it publishes (as the
    app's status bar shows them)."""

    def __init__(self, outbox: Outbox, client: IssueClient | None = None, browser: bool = False):
        super().__init__()
        self.outbox, self.client, self.browser = outbox, client, browser
        self.poster = poster_over(outbox, client)
        self.summaries: list[str] = []
        self.notices: list[str] = []
        self.poster.subscribe(lambda state: self.summaries.append(state.summary))

    def notify(self, message: str, *args, **kwargs) -> None:
        self.notices.append(str(message))
        super().notify(message, *args, **kwargs)

    def on_mount(self) -> None:
        screen = OutboxScreen(self.poster, poll_s=None, can_open_browser=lambda: self.browser)
        self.push_screen(screen)

    def on_outbox_screen_edit_copy_requested(self, message: OutboxScreen.EditCopyRequested) -> None:
        self.copies = [*getattr(self, "copies", []), (message.action, message.payload)]


async def _fast_sleep(seconds: float) -> None:
    return None


#: The service as the status bar names it (host and path of the read URL).
SERVICE = "raw.githubusercontent.com/kody-w/rappterbook/main"


@pytest.fixture
def outbox(tmp_path: Path) -> Outbox:
    return Outbox(tmp_path / "raw.githubusercontent.com_api__kody-w_rappterbook", SERVICE)


@pytest.fixture
def platform() -> Platform:
    return Platform()


@pytest.fixture
async def client(platform: Platform):
    http = httpx.AsyncClient(transport=httpx.MockTransport(platform))
    issue_client = IssueClient(
        "https://api.github.com", REPO, Secret("t0ken-never-drawn"), client=http, sleep=_fast_sleep
    )
    yield issue_client
    await http.aclose()


def table(app: App) -> EntryList:
    return app.screen.query_one(EntryList)


async def select(pilot, app: App, entry: Entry) -> None:
    table(app).move_cursor(row=table(app).get_row_index(entry.id))
    await pilot.pause()


def notes(app: Host) -> str:
    return "\n".join(app.notices)


# -- the list ----------------------------------------------------------------------------------


async def test_lists_every_state_newest_first_and_tells_the_host(outbox):
    made = fill(outbox)
    app = Host(outbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        rows = table(app)
        assert rows.row_count == len(ENTRIES)
        states = [str(rows.get_row_at(i)[0]) for i in range(rows.row_count)]
        assert states == [state for state, *_ in reversed(ENTRIES)]
        assert rows.selected_id == made[-1].id
        assert app.summaries[-1] == "outbox: 1 sending · 1 unknown · 2 failed"


async def test_vim_motions_move_the_cursor(outbox):
    made = fill(outbox)
    app = Host(outbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("j", "j")
        assert table(app).selected_id == made[-3].id
        await pilot.press("k")
        assert table(app).selected_id == made[-2].id
        await pilot.press("G")
        assert table(app).selected_id == made[0].id
        await pilot.press("g")
        assert table(app).selected_id == made[-1].id


async def test_a_refresh_message_shows_entries_another_process_added(outbox):
    app = Host(outbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.screen.query_one("#outbox-views").display
        other = Outbox(outbox.folder)
        other.draft("heartbeat", {})
        app.poster.reread()  # what the screen's poll asks
        await pilot.pause()
        assert table(app).row_count == 1
        assert app.screen.query_one("#outbox-views").display


async def test_the_poll_rereads_only_when_the_folder_changed(outbox):
    fill(outbox)
    app = Host(outbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        told = len(app.summaries)
        screen.reload()
        await pilot.pause()
        assert len(app.summaries) == told
        Outbox(outbox.folder).draft("heartbeat", {})
        screen.reload()
        await pilot.pause()
        assert len(app.summaries) == told + 1
        assert table(app).row_count == len(ENTRIES) + 1


# -- retry -------------------------------------------------------------------------------------


async def test_retry_is_refused_where_the_outbox_says_it_is_unsafe(outbox, client, platform):
    made = fill(outbox)
    unsafe, rejected, queued = made[7], made[4], made[2]
    app = Host(outbox, client)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for entry, why in (
            (unsafe, "a retry would fail the same way: token rejected"),
            (rejected, "rejected it"),
            (queued, "already on the platform as #41"),
        ):
            await select(pilot, app, entry)
            await pilot.press("r")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert why in notes(app)
            assert outbox.load(entry.id).as_json() == entry.as_json()
    assert platform.requests == []


async def test_retry_of_a_safe_failure_sends_once_in_a_worker(outbox, client, platform):
    made = fill(outbox)
    safe = made[6]
    app = Host(outbox, client)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await select(pilot, app, safe)
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        entry = outbox.load(safe.id)
        assert entry.state == "queued" and entry.number == 101
        assert [r.method for r in platform.requests] == ["POST"]
        assert str(table(app).get_row(safe.id)[0]) == "queued"
        assert "queued #101" in notes(app)
        await pilot.press("r")  # now on the platform: refused, nothing sent
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(platform.requests) == 1
        assert "already on the platform as #101" in notes(app)


async def test_one_send_at_a_time_and_the_screen_stays_until_it_ends(outbox, client, platform):
    made = fill(outbox)
    platform.gate = release = asyncio.Event()
    app = Host(outbox, client)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await select(pilot, app, made[6])
        await pilot.press("r")
        await pilot.pause()
        assert outbox.load(made[6].id).state == "sending"
        await select(pilot, app, made[0])
        await pilot.press("r", "escape")
        await pilot.pause()
        assert isinstance(app.screen, OutboxScreen)
        assert "Another entry is being sent" in notes(app)
        assert "An entry is being sent: wait for the answer" in notes(app)
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert outbox.load(made[6].id).state == "queued"
        assert outbox.load(made[0].id).state == "draft"
        assert len(platform.requests) == 1
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, OutboxScreen)


async def test_retry_without_a_client_says_why(outbox):
    made = fill(outbox, fixed=False)
    app = Host(outbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await select(pilot, app, made[6])
        await pilot.press("r")
        await pilot.pause()
        assert "Cannot send: no token" in notes(app)
        assert outbox.load(made[6].id).state == "failed"


# -- discard -----------------------------------------------------------------------------------


async def test_discard_asks_first(outbox):
    made = fill(outbox)
    target = made[8]  # unknown: may be on the platform
    app = Host(outbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await select(pilot, app, target)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDiscard)
        await pilot.press("n")
        await pilot.pause()
        assert outbox.load(target.id).state == "unknown"
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, OutboxScreen)
        with pytest.raises(KeyError):
            outbox.load(target.id)
        assert table(app).row_count == len(ENTRIES) - 1
        assert app.summaries[-1] == "outbox: 1 sending · 2 failed"


# -- detail and hostile text -------------------------------------------------------------------


async def test_detail_shows_the_request_and_hostile_comment_literally(outbox):
    made = fill(outbox)
    rejected = made[4]
    app = Host(outbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await select(pilot, app, rejected)
        await pilot.press("enter")
        await pilot.pause()
        detail = app.screen.query_one(EntryDetail)
        assert detail.has_focus
        shown = str(detail.query_one("#outbox-detail-text").render())
        assert "[@click=app.quit]click me[/]" in shown
        assert "\u241b[2Jclear [bold]x" in shown
        assert "\x1b" not in shown
        assert rejected.request["title"] in shown
        assert '"target_agent": "[bold]nobody"' in shown
        assert "❌ Failed to process delta." in shown  # the detail keeps the whole comment
        reason_cell = str(table(app).get_row(rejected.id)[4])
        assert reason_cell.startswith("[@click=app.quit]click me[/] ␛[2J")
        await pilot.press("escape")
        await pilot.pause()
        assert table(app).has_focus
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, OutboxScreen)


async def test_a_tampered_entry_file_is_drawn_literally(outbox):
    entry = fill(outbox)[0]
    entry.action = "[b]x\x1b[2J"
    entry.created_at = "\x1b]0;t\x07-11-23T22:00Z"
    outbox.save(entry)
    app = Host(outbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        cells = [str(cell) for cell in table(app).get_row(entry.id)]
        assert cells[1] == "[b]x\u241b[2J"
        assert "\x1b" not in cells[2] and "\x07" not in cells[2]
        await select(pilot, app, entry)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDiscard)


def test_detail_text_has_no_markup_and_no_controls(outbox):
    entry = fill(outbox)[4]
    entry.notices = ["\x1b]0;pwned\x07 [link=https://evil.example]x[/link]"]
    text = detail_text(entry)
    assert not text.spans or all("link" not in str(span.style) for span in text.spans)
    assert "\x1b" not in text.plain and "\x07" not in text.plain
    assert "[link=https://evil.example]x[/link]" in text.plain


# -- the issue's URL ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("browser", "said"),
    [
        (False, f"No browser can open here (headless or SSH); copied the URL: {URL}/41"),
        (True, f"Opened {URL}/41"),
    ],
    ids=["headless", "desktop"],
)
async def test_open_claims_a_browser_only_where_one_opens(outbox, monkeypatch, browser, said):
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url, new=0: opened.append(url) or True)
    queued = fill(outbox)[2]
    app = Host(outbox, browser=browser)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await select(pilot, app, queued)
        await pilot.press("o")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert said in notes(app)
        if browser:
            assert opened == [f"{URL}/41"]
        else:
            assert opened == [] and app.clipboard == f"{URL}/41"


async def test_y_copies_the_url_and_says_when_there_is_none(outbox):
    made = fill(outbox)
    app = Host(outbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await select(pilot, app, made[3])
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == f"{URL}/40"
        await select(pilot, app, made[0])
        await pilot.press("y")
        await pilot.pause()
        assert "This entry has no issue yet" in notes(app)


# -- snapshots ---------------------------------------------------------------------------------


@pytest.fixture
def fixed_outbox(outbox, monkeypatch) -> Outbox:
    monkeypatch.setattr(outbox_module, "now_iso", lambda: "2026-11-23T22:30:00Z")
    fill(outbox)
    return outbox


@SIZES
def test_snapshot_list(snap_compare, fixed_outbox, size):
    assert snap_compare(Host(fixed_outbox), terminal_size=size)


@SIZES
def test_snapshot_detail(snap_compare, fixed_outbox, size):
    async def run_before(pilot) -> None:
        await pilot.pause()
        await pilot.press("j", "j", "j", "j", "enter")  # the rejected entry
        await pilot.pause()

    assert snap_compare(Host(fixed_outbox), terminal_size=size, run_before=run_before)


def test_a_received_entry_its_receipt_and_other_accounts_comments_are_shown(tmp_path):
    """The newer processor's step between queued and its verdict, the receipt's error and
    hint in full, and comments of other accounts marked as not verdicts."""
    outbox = Outbox(tmp_path)
    entry = outbox.draft("register_agent", {"name": "Zeno", "framework": "x", "bio": "b"})
    entry.state, entry.number = "received", 21296
    entry.comments = [
        {"login": "helpful-stranger", "at": "2026-09-27T04:01:00Z", "body": "✅ Delta processed"}
    ]
    cells = row_cells(entry, column_widths([entry], 80))
    assert cells[0].plain.rstrip() == "received" and cells[0].style == "bold cyan"
    text = detail_text(entry).plain
    assert "Other comments (not verdicts)" in text and "helpful-stranger" in text
    entry.state = "rejected"
    entry.receipt = {
        "status": "rejected",
        "url": "https://raw.example.test/state/inbox/rejected/issue-21296.json",
        "error": "Agent KimLeno1 already registered",
        "hint": "Preflight locally: python scripts/validate_delta.py < body.json. " * 3,
    }
    text = detail_text(entry).plain
    assert "Receipt" in text and "Agent KimLeno1 already registered" in text
    assert entry.receipt["hint"].strip() in text  # in full
    cells = row_cells(entry, column_widths([entry], 100))
    assert cells[4].plain.startswith("Agent KimLeno1 already registered")


def test_a_post_is_shown_as_a_discussion(tmp_path):
    outbox = Outbox(tmp_path)
    request = {
        "title": "Night notes",
        "body": "Who else?\n\n<!-- roost-nonce: n1 -->\n",
        "channel": "general",
        "repositoryId": "R_1",
        "categoryId": "DIC_1",
    }
    entry = outbox.draft(
        "create_post", {"channel": "general"}, "n1", kind="discussion", request=request
    )
    entry.state, entry.number = "applied", 3372
    text = detail_text(entry).plain
    assert "post      #3372" in text and "a GitHub Discussion in general" in text
    assert "labels" not in text


# -- a damaged outbox --------------------------------------------------------------------------


async def test_a_damaged_outbox_lists_every_entry_and_each_can_be_discarded(outbox, client):
    """A hand-damaged folder (brackets 1,500 deep, a FIFO, a link to /dev/zero, truncated,
    not UTF-8, empty, a folder, too big, wrong types): the screen opens, lists each as damaged
    with its reason beside the good entry, shows its detail, refuses a retry and discards it."""
    said = plant_damage(outbox.folder)
    app = Host(outbox, client)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        rows = {key.value: [str(c) for c in table(app).get_row(key)] for key in table(app).rows}
        assert set(rows) == {GOOD_ID, *said}
        assert rows[GOOD_ID][:2] == ["draft", "heartbeat"]
        for entry_id, reason in said.items():
            assert rows[entry_id][0] == "damaged"
            assert rows[entry_id][4].startswith(reason[:30])
        assert app.summaries[-1] == f"outbox: {len(said)} damaged"
        for entry_id in said:
            table(app).move_cursor(row=table(app).get_row_index(entry_id))
            await pilot.press("enter")
            await pilot.pause()
            shown = str(app.screen.query_one("#outbox-detail-text").render())
            assert "damaged" in shown and said[entry_id][:30] in shown
            await pilot.press("r")
            await pilot.pause()
            assert "drop it" in app.notices[-1]
            await pilot.press("d")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmDiscard)
            await pilot.press("y")
            await pilot.pause()
            assert app.notices[-1] == f"Discarded entry {entry_id}"
        assert [key.value for key in table(app).rows] == [GOOD_ID]
        assert not os.path.lexists(outbox.folder / f"{next(iter(said))}.json")


def test_every_field_read_back_from_disk_is_drawn_cleaned(outbox):
    entry = fill(outbox)[4]
    evil = "\x1b]0;pwned\x07\x1b[2J\x9b31m"
    entry.action, entry.author, entry.html_url = evil, evil, evil
    entry.receipt = {"status": evil, "url": evil, "error": evil, "hint": evil}
    entry.comments = [{"id": 1, "login": evil, "at": evil, "body": evil}]
    entry.attempts = [{"at": AT, "kind": evil, "status": 422, "message": evil}]
    entry.request = {**entry.request, "title": evil, "labels": [evil], "body": evil}
    outbox.save(entry)
    loaded = outbox.load(entry.id)
    cells = row_cells(loaded, column_widths([loaded], 80))
    for text in (detail_text(loaded).plain, *(c.plain for c in cells)):
        assert not any(ch in text for ch in "\x1b\x07\x9b")
    assert "␛]0;pwned␇" in detail_text(loaded).plain


async def test_at_80_columns_the_list_shows_each_reason_itself_under_the_services_name(outbox):
    """The reason column holds the reason, not the processors' wrapping (``❌ Failed to process
    delta.``, ``## ❌ REJECTED``, ``Hint:``, markers), and the title names the service as the
    status bar does, never the outbox folder's key."""
    from tui.sandbox.deployment import failure_comment, rejected_comment

    made = fill(outbox)
    classic, newer = made[4], made[3]
    classic.comment = failure_comment("Missing required field: bio")
    newer.state = "rejected"
    newer.comment = rejected_comment(40, "heartbeat", "agent is not registered", "Register.")
    for entry in (classic, newer):
        outbox.save(entry)
    app = Host(outbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert str(table(app).get_row(classic.id)[4]).startswith("Missing required field")
        assert str(table(app).get_row(newer.id)[4]).startswith("agent is not registe")
        title = str(app.screen.query_one("#outbox-title").render())
        assert title == f"Outbox · {len(ENTRIES)} entries · {SERVICE}"
        assert outbox.folder.name not in title


def test_the_detail_says_why_the_last_check_failed(outbox):
    entry = fill(outbox)[2]  # queued
    entry.tracking = {"last_error": "GET of the issue answered 302 (a redirect, not followed)"}
    shown = detail_text(entry).plain
    assert "checks    the last one failed: GET of the issue answered 302" in shown


@pytest.mark.parametrize("width", [60, 80, 120, 140])
async def test_the_list_cuts_a_reason_only_when_it_must_and_never_a_number(outbox, width):
    """Columns are as wide as what they hold: the issue number whole at every width, the
    action from 80 columns on, a reason whenever the line has room for it (at 140 columns
    they all fit)."""
    from rich.cells import cell_len

    made = fill(outbox)
    made[-3].number = 12_345_678  # a long issue number
    outbox.save(made[-3])
    app = Host(outbox)
    async with app.run_test(size=(width, 24)) as pilot:
        await pilot.pause()
        rows = table(app)
        widths = [column.width for column in rows.columns.values()]
        assert 2 + sum(widths) + 2 * (len(widths) - 1) <= width - 2  # no sideways scroll
        for entry in outbox.entries():
            number, action, reason = (str(rows.get_row(entry.id)[i]) for i in (3, 1, 4))
            assert number == (f"#{entry.number}" if entry.number else "")
            assert cell_len(number) <= widths[3]  # drawn whole
            assert action == entry.action or width < 80
            whole = views_reason(entry)
            assert (reason == whole) == (cell_len(whole) <= widths[4]), (reason, widths)
        if width >= 140:
            assert all(str(rows.get_row(e.id)[4]) == views_reason(e) for e in outbox.entries())


def views_reason(entry: Entry) -> str:
    from tui.ui.screens.outbox.views import row_texts

    return row_texts(entry)[4]


def test_a_reaction_says_what_it_is_in_the_preview_and_the_outbox():
    from tui.actions.outbox import Entry
    from tui.ui.screens.forms.preview import preview_content
    from tui.ui.screens.outbox.views import detail_text

    react = {"discussion_number": 5, "subject": "DC_x", "content": "HEART", "subjectId": "DC_x"}
    shown = preview_content(("discussion_reaction", react), []).plain
    assert "reaction" in shown and "HEART on comment DC_x" in shown and "labels" not in shown
    entry = Entry(
        id="e1", action="react", payload=react, nonce="n1", kind="discussion_reaction",
        request=react, state="queued", created_at="2026-12-04T00:00:00Z",
        updated_at="2026-12-04T00:00:00Z", number=5,
    )  # fmt: skip
    detail = detail_text(entry).plain
    assert "on post   #5" in detail and "HEART on comment DC_x of Discussion #5" in detail
    assert "labels" not in detail


async def test_shift_e_edits_a_copy_of_a_rejected_entry_and_refuses_one_still_on_its_way(outbox):
    made = fill(outbox)
    rejected, queued = made[4], made[2]
    app = Host(outbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await select(pilot, app, queued)
        await pilot.press("E")
        await pilot.pause()
        assert "No copy: it is on the platform as #41" in notes(app)
        await select(pilot, app, rejected)
        await pilot.press("E")
        await pilot.pause()
        assert app.copies == [("poke", {"target_agent": "[bold]nobody"})]
        assert outbox.load(rejected.id).as_json() == rejected.as_json()  # left as it was
