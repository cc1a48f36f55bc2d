"""Following a sent action: whose comments are verdicts, the newer processor's two steps and
receipts, and "applied" claimed only when the state shows this action's effect."""

from __future__ import annotations

import json
from types import SimpleNamespace

import httpx
import pytest

from tui.actions.deployment_docs import DeploymentDocs
from tui.actions.issue_client import IssueClient
from tui.actions.outbox import Entry
from tui.actions.tracking import baseline, effect_seen, follow, read_comments, settle_applied
from tui.config import Secret
from tui.sandbox.deployment import (
    SUCCESS_COMMENT,
    applied_comment,
    queued_comment,
    rejected_comment,
)

BOT = "github-actions[bot]"
READ = "https://raw.example.test/o/r/main"
WRITE = "https://api.example.test"


def comment(login: str, body: str, number: int = 1) -> dict:
    return {
        "id": number,
        "user": {"login": login},
        "body": body,
        "created_at": "2027-01-01T00:00:00Z",
    }


# --- whose words are verdicts --------------------------------------------------------------


def test_a_forged_verdict_from_another_account_is_a_comment_never_a_verdict():
    forged = [
        comment("helpful-stranger", SUCCESS_COMMENT),
        comment("helpful-stranger", applied_comment(5, "poke", "me")),
    ]
    word, others = read_comments(forged, 5, closed=True)
    assert word is None
    assert [o["login"] for o in others] == ["helpful-stranger", "helpful-stranger"]
    assert others[0]["body"].startswith("✅ Delta processed")


def test_the_classic_verdict_needs_the_processor_and_the_close():
    assert read_comments([comment(BOT, SUCCESS_COMMENT)], 5, closed=False)[0] is None
    word, _ = read_comments([comment(BOT, SUCCESS_COMMENT)], 5, closed=True)
    assert word == ("accepted", SUCCESS_COMMENT)
    word, _ = read_comments([comment(BOT, "❌ Failed to process delta. Nope.")], 5)
    assert word == ("rejected", "❌ Failed to process delta. Nope.")


def test_the_two_steps_are_read_by_their_markers_for_this_issue_only():
    queued = comment(BOT, queued_comment(5, "poke"))
    assert read_comments([queued], 5)[0][0] == "received"
    assert read_comments([queued], 6)[0] is None  # another issue's marker
    applied = comment(BOT, applied_comment(5, "poke", "me"), 2)
    assert read_comments([queued, applied], 5)[0][0] == "applied"
    rejected = comment(BOT, rejected_comment(5, "poke", "no such agent", "check it"), 2)
    word, _ = read_comments([queued, rejected], 5)
    assert word[0] == "rejected" and "no such agent" in word[1]
    # a marker without its heading is not the processor's verdict
    bare = comment(BOT, "<!-- rappterbook-terminal-receipt:issue:5:applied -->")
    assert read_comments([bare], 5)[0] is None


def test_the_processor_account_is_a_setting():
    word, others = read_comments(
        [comment(BOT, queued_comment(5, "poke")), comment("deploy-bot", queued_comment(5, "poke"))],
        5,
        "deploy-bot",
    )
    assert word[0] == "received" and [o["login"] for o in others] == [BOT]


# --- receipts ------------------------------------------------------------------------------


class Deployment:
    """A read side with receipts and a write side with the issue and its comments."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.receipts: dict[str, bytes] = {}
        self.comments: list[dict] = []
        self.closed = False
        self.asked: list[str] = []

    def put(self, folder: str, receipt: dict) -> None:
        self.receipts[f"/o/r/main/state/inbox/{folder}issue-{self.number}.json"] = json.dumps(
            receipt
        ).encode()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.asked.append(path)
        if request.url.host == "raw.example.test":
            assert "authorization" not in request.headers
            body = self.receipts.get(path)
            return httpx.Response(200, content=body) if body else httpx.Response(404)
        if path.endswith(f"/issues/{self.number}"):
            state = "closed" if self.closed else "open"
            return httpx.Response(200, json={"number": self.number, "state": state})
        if path.endswith(f"/issues/{self.number}/comments"):
            return httpx.Response(200, json=self.comments)
        return httpx.Response(404)


@pytest.fixture
async def deployment():
    made = []

    async def make(number: int, templates: bool = True):
        platform = Deployment(number)
        http = httpx.AsyncClient(transport=httpx.MockTransport(platform))
        client = IssueClient(WRITE, "o/r", Secret("t"), client=http)
        docs = DeploymentDocs(READ, repo="o/r", client=http)
        if templates:
            from tui.actions.contract import parse_skill
            from tui.sandbox.deployment import skill_document

            docs.skill.value = parse_skill(skill_document(READ, "o", "r"))
        made.append(http)
        entry = Entry("20270101T000000Z-00000001", "register_agent", {}, "n", state="queued")
        entry.number, entry.author = number, "KimLeno1"
        return platform, client, docs, entry

    yield make
    for http in made:
        await http.aclose()


def _real(folder, name: str) -> dict:
    return json.loads((folder / name).read_text())


async def test_the_real_rejected_receipt_is_shown_in_full(deployment, real_receipts_dir):
    platform, client, docs, entry = await deployment(21296)
    platform.put("rejected/", _real(real_receipts_dir, "rejected/issue-21296.json"))
    assert await follow(entry, client, now=0, docs=docs)
    assert entry.state == "rejected"
    assert entry.receipt["error"] == "Agent KimLeno1 already registered"
    assert entry.receipt["hint"].startswith("Preflight locally: python scripts/validate_delta.py")
    assert entry.receipt["hint"].endswith("inbox-delta-1.0.schema.json")  # in full
    assert not any("/issues/" in p for p in platform.asked)  # the receipt sufficed: no API call


async def test_the_real_applied_and_queued_receipts(deployment, real_receipts_dir):
    platform, client, docs, entry = await deployment(21336)
    platform.put("processed/", _real(real_receipts_dir, "processed/issue-21336.json"))
    assert await follow(entry, client, now=0, docs=docs) and entry.state == "applied"
    platform, client, docs, entry = await deployment(21296)
    platform.put("", _real(real_receipts_dir, "issue-21296.json"))
    assert await follow(entry, client, now=0, docs=docs) and entry.state == "received"


RECEIPT = {
    "receipt_version": 1,
    "receipt_id": "issue:8:applied",
    "request_id": "issue:8",
    "issue_number": 8,
    "status": "applied",
    "action": "heartbeat",
    "agent_id": "me",
}


async def test_receipts_in_the_deployments_shape(deployment):
    platform, client, docs, entry = await deployment(8)
    platform.put(
        "rejected/",
        {**RECEIPT, "status": "rejected", "receipt_id": "issue:8:rejected", "error": "e" * 3000,
         "hint": "h" * 3000},
    )  # fmt: skip
    assert await follow(entry, client, now=0, docs=docs)
    assert entry.state == "rejected" and entry.receipt["error"] == "e" * 3000
    assert entry.receipt["hint"] == "h" * 3000 and entry.comment == "e" * 3000


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"issue_number": 9}, "issue_number"),
        ({"request_id": "issue:9"}, "request_id"),
        ({"status": "rejected"}, "status"),
    ],
)
async def test_a_receipt_for_another_request_is_ignored(deployment, change, why):
    platform, client, docs, entry = await deployment(8)
    platform.put("processed/", {**RECEIPT, **change})
    await follow(entry, client, now=0, docs=docs)
    assert entry.state == "queued" and why in entry.tracking["receipt_error"]


async def test_a_receipt_is_authoritative_over_the_comments(deployment):
    platform, client, docs, entry = await deployment(8)
    platform.comments = [comment(BOT, rejected_comment(8, "heartbeat", "late", "hint"))]
    platform.put("processed/", RECEIPT)
    assert await follow(entry, client, now=0, docs=docs)
    assert entry.state == "applied" and entry.receipt["status"] == "applied"


async def test_a_receipt_that_disappears_later_changes_nothing(deployment):
    platform, client, docs, entry = await deployment(8)
    platform.put(
        "", {"action": "heartbeat", "payload": {}, "issue_number": 8, "request_id": "issue:8"}
    )
    await follow(entry, client, now=0, docs=docs)
    assert entry.state == "received"
    platform.receipts.clear()  # archived
    await follow(entry, client, now=10_000, docs=docs)
    assert entry.state == "received"
    platform.put("processed/", RECEIPT)
    await follow(entry, client, now=20_000, docs=docs)
    assert entry.state == "applied"
    platform.receipts.clear()
    assert not await follow(entry, client, now=30_000, docs=docs)  # final: nothing asked
    assert entry.state == "applied"


async def test_the_default_receipt_layout_is_followed_once_the_markers_are_seen(deployment):
    platform, client, docs, entry = await deployment(8, templates=False)
    platform.put("processed/", RECEIPT)
    await follow(entry, client, now=0, docs=docs)
    assert entry.state == "queued"  # no contract, no marker seen: the receipts are not asked
    assert not any("/state/inbox/" in p for p in platform.asked)
    platform.comments = [comment(BOT, queued_comment(8, "heartbeat"))]
    await follow(entry, client, now=10_000, docs=docs)
    assert entry.state == "received" and entry.tracking["two_step"]
    await follow(entry, client, now=20_000, docs=docs)
    assert entry.state == "applied"


# --- applied means this action's effect ----------------------------------------------------


def snapshot(**beats: str | None) -> SimpleNamespace:
    agents = {name: SimpleNamespace(heartbeat_last=beat, extras={}) for name, beat in beats.items()}
    return SimpleNamespace(agents=SimpleNamespace(agents=agents))


def heartbeat_entry(created: str, state: str = "received") -> Entry:
    entry = Entry("20270101T000000Z-00000002", "heartbeat", {}, "n", state=state, author="me")
    entry.issue_created_at = created
    return entry


def test_a_heartbeat_is_applied_only_once_the_state_moves_past_it():
    """register, then a heartbeat three minutes later: the registration's beat is not it."""
    registered = snapshot(me="2027-01-01T12:00:00Z")
    entry = heartbeat_entry("2027-01-01T12:03:00Z")
    assert effect_seen(entry, registered) is False
    assert effect_seen(entry, snapshot(me="2027-01-01T12:02:30Z")) is True  # a minute's skew
    assert effect_seen(entry, snapshot(me="2027-01-01T12:01:30Z")) is False


def test_the_recorded_baseline_must_be_passed():
    before = snapshot(me="2027-01-01T12:02:40Z")  # a beat within the skew of the new issue
    entry = heartbeat_entry("2027-01-01T12:03:00Z")
    entry.baseline = baseline("heartbeat", {}, "me", before)
    assert effect_seen(entry, before) is False  # without the baseline this would be "applied"
    assert effect_seen(entry, snapshot(me="2027-01-01T12:03:05Z")) is True
    entry.author = "someone-else"  # recorded for another login: not used
    assert effect_seen(entry, snapshot(someone_else=None)) is False


def test_settle_applies_only_entries_whose_effect_shows(tmp_path):
    from tui.actions.outbox import Outbox

    outbox = Outbox(tmp_path)
    entry = outbox.draft("heartbeat", {})
    entry.state, entry.author, entry.issue_created_at = "received", "me", "2027-01-01T12:03:00Z"
    outbox.save(entry)
    assert settle_applied(outbox, snapshot(me="2027-01-01T12:00:00Z")) == []
    (applied,) = settle_applied(outbox, snapshot(me="2027-01-01T12:04:00Z"))
    assert applied.state == "applied" and outbox.load(entry.id).applied_at


def test_without_a_baseline_a_received_entry_is_not_taken_as_applied():
    follow_entry = Entry("20270101T000000Z-00000003", "follow_agent", {"target_agent": "b"}, "n")
    follow_entry.author, follow_entry.state = "me", "received"
    following = SimpleNamespace(
        agents=SimpleNamespace(
            agents={"me": SimpleNamespace(heartbeat_last=None, extras={"following": ["b"]})}
        )
    )
    assert effect_seen(follow_entry, following) is False  # it may have been followed before
    follow_entry.baseline = {"actor": "me", "seen": False}
    assert effect_seen(follow_entry, following) is True
