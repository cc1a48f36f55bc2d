"""The thread's side of answering (tui/actions/thread_answers.py): what the outbox holds for a
post is shown at once, marked pending, until the thread shows it; a thread read settles the
entries it shows; the forms are filled from the thread; guests never answer."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from tests.github_graphql import FakeGitHub
from tui.actions.action_context import ActionContext, Suggestion, suggestions
from tui.actions.catalog import ANSWER_ACTIONS, CATALOG, validate_payload
from tui.actions.compose import compose_request
from tui.actions.connection import write_side
from tui.actions.issue_body import new_nonce
from tui.actions.issue_client import IssueClient
from tui.actions.outbox import Entry, Outbox
from tui.actions.thread_answers import (
    NotAnswerable,
    comment_prefill,
    pending_comments,
    pending_reactions,
    react_prefill,
    reply_prefill,
    seen_in,
    settle_seen,
    show_pending,
)
from tui.actions.token import TokenError
from tui.config import Secret, Settings
from tui.conversation.thread import Thread, from_graphql
from tui.service import connect
from tui.session import Session
from tui.ssh.mode import GUEST, GUEST_CANNOT_POST, KEYED

LOGIN = "octo"
MADE_AT = "2027-01-15T08:00:00Z"


def graphql_thread(*extra: dict) -> Thread:
    """Post #7 as GitHub's GraphQL gives it: a comment DC_c1 with a reply DC_r1, another
    top-level comment DC_c2, and ``extra`` top-level comments."""
    return from_graphql(
        {
            "id": "D_kwDOpost7",
            "number": 7,
            "title": "[DEBATE] Maps",
            "body": "Who has one?",
            "author": {"login": "agent"},
            "comments": {
                "nodes": [
                    {
                        "id": "DC_c1",
                        "body": "First!",
                        "author": {"login": "agent"},
                        "replies": {
                            "nodes": [{"id": "DC_r1", "body": "A reply", "author": {"login": "b"}}]
                        },
                    },
                    {"id": "DC_c2", "body": "Second", "author": {"login": "c"}},
                    *extra,
                ]
            },
        }
    )


def kept(
    outbox: Outbox, action: str, payload: dict, state: str = "queued", **fields: object
) -> Entry:
    """An outbox entry of ``action`` in ``state`` (as a send would have left it)."""
    spec = ANSWER_ACTIONS[action]
    nonce = new_nonce()
    kind, request = compose_request(spec, payload, nonce)
    entry = outbox.draft(action, payload, nonce, kind=kind, request=request)
    entry.state = state
    for name, value in fields.items():
        setattr(entry, name, value)
    outbox.save(entry)
    return outbox.load(entry.id)


@pytest.fixture
def outbox(tmp_path):
    return Outbox(tmp_path / "outbox")


def comment_on(number: int = 7, body: str = "Well said.") -> dict:
    return {"discussion_number": number, "body": body}


def reply_to(node: str, body: str = "Agreed.") -> dict:
    return {"discussion_number": 7, "reply_to": node, "body": body}


def react(content: str, subject: str = "") -> dict:
    return {"discussion_number": 7, "subject": subject, "content": content}


# --- pending comments -----------------------------------------------------------------------


def test_pending_comments_are_what_was_sent_and_not_seen_yet(outbox):
    queued = kept(outbox, "comment", comment_on(), author=LOGIN, node_id="DC_new1")
    sending = kept(outbox, "reply", reply_to("DC_r1"), state="sending")
    kept(outbox, "comment", comment_on(body="refused"), state="failed")
    kept(outbox, "comment", comment_on(8), state="queued")
    kept(outbox, "react", react("HEART"))
    draft = kept(outbox, "comment", comment_on(body="kept for later"), state="draft")
    # oldest first (entries made within one second come in any order)
    pending = sorted(pending_comments(outbox.entries(), 7, login="me"), key=lambda c: len(c.body))
    assert {c.id for c in pending} == {f"pending-{e.id}" for e in (queued, sending, draft)}
    second, first, third = pending
    assert all(c.pending for c in pending)
    assert (first.body, first.author, first.parent_id, first.node_id) == (
        "Well said.",
        LOGIN,
        None,
        "DC_new1",
    )
    assert "roost-nonce" not in first.body and first.body == "Well said."
    assert (second.parent_id, second.author, second.body) == ("DC_r1", "me", "Agreed.")
    assert third.body == "kept for later"


def test_a_comment_the_thread_shows_is_no_longer_pending(outbox):
    by_node = kept(outbox, "comment", comment_on(), author=LOGIN, node_id="DC_new1")
    by_nonce = kept(outbox, "comment", comment_on(body="second"), author=LOGIN)
    late = kept(outbox, "comment", comment_on(body="third"), state="applied", author=LOGIN)
    thread = graphql_thread(
        {"id": "DC_new1", "body": "Well said.", "author": {"login": LOGIN}},
        {"id": "DC_new2", "body": by_nonce.request["body"], "author": {"login": LOGIN}},
    )
    assert seen_in(by_node, thread) and seen_in(by_nonce, thread) and not seen_in(late, thread)
    # applied, but the copy on screen is older: still shown until it is seen there
    assert [c.body for c in pending_comments(outbox.entries(), 7, thread)] == ["third"]
    # without a copy to compare: what is not applied yet
    assert sorted(c.body for c in pending_comments(outbox.entries(), 7)) == ["Well said.", "second"]


def test_a_nonce_in_another_accounts_comment_is_not_ours(outbox):
    entry = kept(outbox, "comment", comment_on(), author=LOGIN)
    thread = graphql_thread(
        {"id": "DC_x", "body": entry.request["body"], "author": {"login": "eve"}}
    )
    assert not seen_in(entry, thread)


def test_a_light_thread_shows_a_comment_by_its_author_and_time(outbox):
    entry = kept(outbox, "comment", comment_on(), author=LOGIN, issue_created_at=MADE_AT)
    light = graphql_thread()
    from dataclasses import replace

    from tui.conversation.thread import Comment

    bodiless = Comment(id="c9", author=LOGIN, account=LOGIN, created_at=MADE_AT, body=None)
    light = replace(light, comments=(*light.comments, bodiless), comment_texts=False)
    assert seen_in(entry, light)
    other_time = replace(bodiless, created_at="2027-01-15T08:00:01Z")
    assert not seen_in(entry, replace(light, comments=(other_time,)))


def test_the_thread_shows_a_reply_under_the_comment_answered(outbox):
    """GitHub files a reply to a reply under its top-level comment; the screen shows it under
    the one the person answered, at once."""
    kept(outbox, "reply", reply_to("DC_r1"), author=LOGIN, node_id="DC_new1")
    kept(outbox, "comment", comment_on(body="On the post"), author=LOGIN)
    shown = show_pending(graphql_thread(), outbox.entries())
    rows = [(c.id[:7], c.depth, c.pending) for c in shown.comments]
    assert rows == [
        ("DC_c1", 0, False),
        ("DC_r1", 1, False),
        ("pending", 2, True),  # under DC_r1, the comment answered
        ("DC_c2", 0, False),
        ("pending", 0, True),
    ]
    assert shown.comments[2].parent_id == "DC_r1"


# --- pending reactions ----------------------------------------------------------------------


def test_pending_reactions_add_to_the_counts_once_each(outbox):
    kept(outbox, "react", react("HEART"))
    kept(outbox, "react", react("HEART"), state="sending")  # the same again: GitHub counts one
    kept(outbox, "react", react("ROCKET", "DC_r1"), state="unknown")
    kept(outbox, "react", react("EYES"), state="failed")
    reactions = pending_reactions(outbox.entries(), 7)
    assert sorted((r.subject or "", r.content, r.name, r.emoji) for r in reactions) == [
        ("", "HEART", "heart", "❤"),
        ("", "HEART", "heart", "❤"),
        ("DC_r1", "ROCKET", "rocket", "🚀"),
    ]
    shown = show_pending(graphql_thread(), outbox.entries())
    assert shown.reactions.counts == {"heart": 1}
    reply = next(c for c in shown.comments if c.id == "DC_r1")
    assert reply.reactions.counts == {"rocket": 1}
    assert pending_reactions(outbox.entries(), 8) == []


def test_an_applied_reaction_counts_only_for_a_copy_read_before_it(outbox):
    kept(outbox, "react", react("HOORAY"), state="applied", applied_at="2027-01-15T08:00:00Z")
    before = datetime(2027, 1, 15, 7, 59, tzinfo=UTC)
    after = datetime(2027, 1, 15, 8, 1, tzinfo=UTC)
    assert [r.content for r in pending_reactions(outbox.entries(), 7, read_at=before)] == ["HOORAY"]
    assert pending_reactions(outbox.entries(), 7, read_at=after) == []
    assert pending_reactions(outbox.entries(), 7) == []


# --- settling from a thread read ------------------------------------------------------------


def test_a_thread_read_settles_what_it_shows(outbox):
    queued = kept(outbox, "comment", comment_on(), author=LOGIN)
    unknown = kept(outbox, "reply", reply_to("DC_c1"), state="unknown", maybe_sent=True)
    forged = kept(outbox, "comment", comment_on(body="x"), author=LOGIN)
    elsewhere = kept(outbox, "comment", comment_on(8), author=LOGIN)
    thread = graphql_thread(
        {"id": "DC_new1", "url": "https://x.test/7#c", "body": queued.request["body"],
         "author": {"login": LOGIN}, "createdAt": MADE_AT},
        {"id": "DC_new2", "body": unknown.request["body"], "author": {"login": LOGIN}},
        {"id": "DC_new3", "body": forged.request["body"], "author": {"login": "eve"}},
        {"id": "DC_new4", "body": elsewhere.request["body"], "author": {"login": LOGIN}},
    )  # fmt: skip
    settled = {e.id: e for e in settle_seen(outbox, thread)}
    assert set(settled) == {queued.id, unknown.id}
    first = outbox.read(queued.id)
    assert (first.state, first.node_id, first.html_url) == (
        "applied",
        "DC_new1",
        "https://x.test/7#c",
    )
    second = outbox.read(unknown.id)
    assert second.state == "applied" and not second.can_send and second.reason is None
    assert outbox.read(forged.id).state == "queued"
    assert settle_seen(outbox, thread) == []  # nothing left to settle


def test_an_entry_being_sent_elsewhere_is_left_alone(outbox):
    entry = kept(outbox, "comment", comment_on(), state="sending", author=LOGIN)
    thread = graphql_thread(
        {"id": "DC_n", "body": entry.request["body"], "author": {"login": LOGIN}}
    )
    with outbox.locked(entry.id):
        assert settle_seen(outbox, thread) == []
    assert [e.id for e in settle_seen(outbox, thread)] == [entry.id]


# --- filling the forms ----------------------------------------------------------------------


def test_the_forms_are_filled_from_the_thread():
    thread = graphql_thread()
    reply = next(c for c in thread.comments if c.id == "DC_r1")
    assert comment_prefill(7) == {"discussion_number": 7}
    assert reply_prefill(7, reply) == {"discussion_number": 7, "reply_to": "DC_r1"}
    assert react_prefill(7) == {"discussion_number": 7}
    assert react_prefill(7, reply, "EYES") == {
        "discussion_number": 7,
        "subject": "DC_r1",
        "content": "EYES",
    }
    assert validate_payload(ANSWER_ACTIONS["reply"], {**reply_prefill(7, reply), "body": "b"}) == []
    assert validate_payload(ANSWER_ACTIONS["react"], react_prefill(7, reply, "EYES")) == []
    with pytest.raises(ValueError, match="no such reaction"):
        react_prefill(7, None, "SHRUG")
    from dataclasses import replace

    nameless = replace(reply, node_id=None)
    with pytest.raises(NotAnswerable):
        reply_prefill(7, nameless)
    with pytest.raises(NotAnswerable):
        react_prefill(7, nameless)


def test_on_a_comment_n_offers_reply_and_react_to_it():
    catalog = {**CATALOG, **ANSWER_ACTIONS}
    assert suggestions(ActionContext("comment", "7", subject="DC_r1"), catalog) == [
        Suggestion("reply", {"discussion_number": "7", "reply_to": "DC_r1"}),
        Suggestion("react", {"discussion_number": "7", "subject": "DC_r1"}),
        Suggestion("comment", {"discussion_number": "7"}),
        Suggestion("moderate", {"discussion_number": "7"}),
        Suggestion("heartbeat"),
    ]
    # a comment whose id is not known: only the post's actions
    assert [s.action for s in suggestions(ActionContext("comment", "7"), catalog)] == [
        "comment",
        "react",
        "moderate",
        "heartbeat",
    ]
    assert [s.action for s in suggestions(ActionContext("post", "7"), catalog)] == [
        "comment",
        "react",
        "moderate",
        "heartbeat",
    ]
    # a deployment without Discussion answers: moderation only, as before
    assert [s.action for s in suggestions(ActionContext("comment", "7", "DC_r1"))] == [
        "moderate",
        "heartbeat",
    ]


# --- who may answer -------------------------------------------------------------------------


def test_a_guest_over_ssh_has_no_way_to_answer(tmp_path):
    guest = connect(Settings(), Session(ssh_role=GUEST), use_cache=False)
    with pytest.raises(TokenError) as refused:
        write_side(guest, outbox_root=tmp_path)
    assert str(refused.value) == GUEST_CANNOT_POST
    assert not (tmp_path / "outbox").exists() and list(tmp_path.iterdir()) == []


async def test_a_keyed_user_answers_only_with_their_own_token(tmp_path):
    keyed = write_side(
        connect(Settings(), Session(ssh_role=KEYED), use_cache=False), outbox_root=tmp_path
    )
    await keyed.aclose()
    assert not keyed.client.has_token  # none is looked for in SSH mode
    fake = FakeGitHub()
    async with httpx.AsyncClient(transport=fake.transport()) as http:
        client = IssueClient("https://api.github.test", "owner/repo", None, client=http)
        outbox = Outbox(tmp_path / "keyed")
        entry = kept(outbox, "reply", reply_to("DC_c1"), state="draft")
        sent = await outbox.send(entry.id, client)
        assert sent.state == "failed" and sent.retry_safe and "no token" in sent.reason
        assert fake.asked == []  # nothing left without a token
        client.set_token(Secret("ghp_typedINTOtheSESSION12345"))  # T: typed for this session
        sent = await outbox.send(entry.id, client)
        assert sent.state == "queued" and fake.mutations("addDiscussionComment")


def test_each_answer_says_what_it_is():
    from tui.actions.thread_answers import request_headline

    react = {"discussion_number": 5, "subject": "DC_x", "content": "HEART", "subjectId": "DC_x"}
    assert request_headline("discussion_reaction", react) == (
        "reaction",
        "❤ HEART on comment DC_x of Discussion #5",
    )
    post_reaction = {"discussion_number": 5, "subject": "", "content": "ROCKET"}
    assert request_headline("discussion_reaction", post_reaction)[1] == "🚀 ROCKET on Discussion #5"
    reply = {"discussion_number": 5, "body": "hi", "reply_to": "DC_y"}
    assert request_headline("discussion_comment", reply) == (
        "reply",
        "to comment DC_y of Discussion #5",
    )
    assert request_headline("issue", {"title": "poke"}) is None
