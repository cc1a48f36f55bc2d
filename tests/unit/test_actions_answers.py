"""Answering a post — comment, reply, react — against a platform that answers like GitHub's
GraphQL (``tests/github_graphql.py``, through ``httpx.MockTransport``).

Each answer is an action of the catalog, kept in the outbox before it leaves, sent through the
issue client's loop; an unclear answer is settled by looking (a comment by its nonce, a
reaction by ``viewerHasReacted``) before anything is sent again; each is queued once made and
applied once seen.
"""

from __future__ import annotations

import json

import httpx
import pytest

from tests.github_graphql import LOGIN, FakeGitHub
from tests.unit.test_actions_outbox import FakeClock
from tui.actions.catalog import ANSWER_ACTIONS, REACTION_CONTENTS, validate_payload
from tui.actions.compose import compose_request
from tui.actions.discussions import ADD_REPLY, graphql_body, nonce_of
from tui.actions.graphql_send import DiscussionError, discussion_node_id
from tui.actions.issue_body import new_nonce
from tui.actions.issue_client import IssueClient
from tui.actions.outbox import Entry, Outbox
from tui.actions.reactions import compose_reaction
from tui.actions.tracking import ANSWER_CHECK_STEPS_S, follow_queued
from tui.config import Secret
from tui.network.conversation import IndexEntry

TOKEN = "ghp_answersTOKEN1234567890"
WRITE = "https://api.github.test"
LATER = 3e9  # a `now` past every paced check


@pytest.fixture
async def gh(tmp_path):
    fake = FakeGitHub()
    clock = FakeClock()
    http = httpx.AsyncClient(transport=fake.transport())
    client = IssueClient(
        WRITE, "owner/repo", Secret(TOKEN), client=http, clock=clock, sleep=clock.sleep
    )
    yield fake, client, Outbox(tmp_path / "outbox")
    await http.aclose()


def draft(outbox: Outbox, action: str, payload: dict, index=None) -> Entry:
    spec = ANSWER_ACTIONS[action]
    assert validate_payload(spec, payload) == []
    nonce = new_nonce()
    kind, request = compose_request(spec, payload, nonce, discussions_index=index)
    return outbox.draft(action, payload, nonce, kind=kind, request=request, label=spec.label)


COMMENT = {"discussion_number": 7, "body": "Well said."}


def reply(to: str) -> dict:
    return {"discussion_number": 7, "reply_to": to, "body": "Agreed."}


def react(content: str = "HEART", subject: str = "") -> dict:
    return {"discussion_number": 7, "subject": subject, "content": content}


# --- the catalog ----------------------------------------------------------------------------


def test_the_three_answers_are_actions_of_the_catalog():
    comment, reply_spec, react_spec = (ANSWER_ACTIONS[n] for n in ("comment", "reply", "react"))
    assert (comment.method, reply_spec.method, react_spec.method) == (
        "discussion_comment",
        "discussion_comment",
        "discussion_reaction",
    )
    assert [f.name for f in reply_spec.required_fields] == ["discussion_number", "reply_to", "body"]
    assert react_spec.field("content").choices == REACTION_CONTENTS
    assert len(REACTION_CONTENTS) == 8 and "THUMBS_UP" in REACTION_CONTENTS


@pytest.mark.parametrize("content", ["heart", "👍", "", "THUMBSUP", "PLUS_ONE"])
def test_a_reaction_is_one_of_githubs_eight(content):
    errors = validate_payload(ANSWER_ACTIONS["react"], react(content))
    assert [e.field for e in errors] == ["content"]
    with pytest.raises(DiscussionError, match="content must be one of"):
        compose_reaction(react(content))


@pytest.mark.parametrize("content", REACTION_CONTENTS)
def test_every_reaction_composes(content):
    assert compose_reaction(react(content))["content"] == content


@pytest.mark.parametrize("node", ["DC kw", "DC_x\n", "<script>", "x" * 201])
def test_node_ids_are_checked(node):
    assert validate_payload(ANSWER_ACTIONS["reply"], reply(node))
    assert validate_payload(ANSWER_ACTIONS["react"], react(subject=node))
    with pytest.raises(DiscussionError):
        compose_request(ANSWER_ACTIONS["reply"], reply(node), "n1")


def test_a_reaction_entry_with_a_content_github_does_not_know_is_damaged(gh):
    _, _, outbox = gh
    entry = draft(outbox, "react", react())
    path = outbox.path(entry.id)
    data = json.loads(path.read_text())
    data["request"]["content"] = "SHRUG"
    path.write_text(json.dumps(data))
    read = outbox.read(entry.id)
    assert read.state == "damaged" and "content" in read.reason and not read.can_send


# --- composing ------------------------------------------------------------------------------


def test_a_comment_has_no_reply_to_and_a_reply_keeps_the_comment_answered():
    comment = compose_request(ANSWER_ACTIONS["comment"], COMMENT, "n1")
    assert comment == ("discussion_comment", {"discussion_number": 7, "body": comment[1]["body"]})
    assert nonce_of(comment[1]["body"]) == "n1" and comment[1]["body"].startswith("Well said.")
    kind, request = compose_request(ANSWER_ACTIONS["reply"], reply("DC_r1"), "n2")
    assert kind == "discussion_comment" and request["reply_to"] == "DC_r1"
    assert "replyToId" not in request  # its top-level comment is asked when it is sent


def test_the_index_gives_the_posts_node_id_when_it_can():
    good = {"7": IndexEntry(id="D_kwDOpost7", number=7, title="t")}
    assert discussion_node_id(good, 7) == "D_kwDOpost7"
    assert discussion_node_id(good, 8) is None
    assert discussion_node_id({"7": IndexEntry(id="D_kwDOpost9", number=9)}, 7) is None
    assert discussion_node_id({"7": IndexEntry(id="D x\x1b[2J", number=7)}, 7) is None
    assert discussion_node_id({"7": {"id": "D_kwDOpost7"}}, 7) == "D_kwDOpost7"
    assert discussion_node_id(None, 7) is None
    _, request = compose_request(ANSWER_ACTIONS["comment"], COMMENT, "n1", discussions_index=good)
    assert request["discussionId"] == "D_kwDOpost7"
    _, request = compose_request(ANSWER_ACTIONS["react"], react(), "n1", discussions_index=good)
    assert request["subjectId"] == "D_kwDOpost7"
    _, request = compose_request(
        ANSWER_ACTIONS["react"], react(subject="DC_c1"), "n1", discussions_index=good
    )
    assert request["subjectId"] == "DC_c1"


def test_a_dry_run_shows_the_mutation_and_names_what_is_asked_when_sent():
    body = graphql_body(
        "discussion_comment", compose_request(ANSWER_ACTIONS["comment"], COMMENT, "n")[1]
    )
    assert "addDiscussionComment" in body["query"] and "replyToId" not in body["query"]
    assert body["variables"]["discussionId"] == "<the id of Discussion #7>"
    body = graphql_body(
        "discussion_comment", compose_request(ANSWER_ACTIONS["reply"], reply("DC_r1"), "n")[1]
    )
    assert body["query"] == ADD_REPLY
    assert body["variables"]["replyToId"].startswith("<the top-level comment of DC_r1")
    body = graphql_body("discussion_reaction", compose_reaction(react(subject="DC_c1")))
    assert body["variables"] == {"subjectId": "DC_c1", "content": "HEART"}


# --- sending --------------------------------------------------------------------------------


async def test_a_comment_is_sent_without_reply_to_id_then_applied_when_seen(gh):
    fake, client, outbox = gh
    entry = await outbox.send(draft(outbox, "comment", COMMENT).id, client)
    assert entry.state == "queued" and entry.number == 7, entry.reason
    (sent,) = fake.mutations("addDiscussionComment")
    assert sent["discussionId"] == "D_kwDOpost7" and "replyToId" not in sent
    (made,) = fake.made_by_viewer()
    assert entry.node_id == made.id and entry.author == LOGIN and entry.html_url
    assert ("discussion", {"owner": "owner", "name": "repo", "number": 7}) in fake.asked
    (changed,) = await follow_queued(outbox, client, now=LATER)
    assert (
        changed.state == "applied"
        and changed.applied_at
        and changed.comment == "seen in the thread"
    )


async def test_with_the_index_no_lookup_comes_before_the_comment(gh):
    fake, client, outbox = gh
    index = {"7": IndexEntry(id="D_kwDOpost7", number=7)}
    entry = await outbox.send(draft(outbox, "comment", COMMENT, index).id, client)
    assert entry.state == "queued"
    assert [name for name, _ in fake.asked] == ["addDiscussionComment"]


async def test_a_reply_goes_under_the_comment_answered(gh):
    fake, client, outbox = gh
    entry = await outbox.send(draft(outbox, "reply", reply("DC_c1")).id, client)
    assert entry.state == "queued", entry.reason
    (sent,) = fake.mutations("addDiscussionComment")
    assert (sent["discussionId"], sent["replyToId"]) == ("D_kwDOpost7", "DC_c1")
    assert entry.attempts[-1]["message"].startswith("reply on #7 is made")


async def test_a_reply_to_a_reply_goes_to_its_top_level_comment_and_keeps_the_one_answered(gh):
    fake, client, outbox = gh
    entry = await outbox.send(draft(outbox, "reply", reply("DC_r1")).id, client)
    assert entry.state == "queued", entry.reason
    (sent,) = fake.mutations("addDiscussionComment")
    assert sent["replyToId"] == "DC_c1"  # GitHub nests one level: the top-level comment
    assert entry.payload["reply_to"] == entry.request["reply_to"] == "DC_r1"
    (made,) = fake.made_by_viewer()
    assert made.reply_to == "DC_c1"
    (changed,) = await follow_queued(outbox, client, now=LATER)  # seen among DC_c1's replies
    assert changed.state == "applied"


@pytest.mark.parametrize(
    ("answered", "fragment"),
    [
        ("DC_o1", "is on post #8, not on #7"),
        ("DC_gone", "there is no comment DC_gone"),
        ("D_kwDOpost7", "is not a comment on a Discussion"),
    ],
)
async def test_a_reply_to_what_is_not_a_comment_of_this_post_is_refused_unsent(
    gh, answered, fragment
):
    fake, client, outbox = gh
    entry = await outbox.send(draft(outbox, "reply", reply(answered)).id, client)
    assert entry.state == "failed" and fragment in entry.reason and not entry.retry_safe
    assert fake.mutations("addDiscussionComment") == []


async def test_a_comment_on_a_post_that_is_not_there_is_refused(gh):
    fake, client, outbox = gh
    payload = {**COMMENT, "discussion_number": 99}
    entry = await outbox.send(draft(outbox, "comment", payload).id, client)
    assert entry.state == "failed" and "there is no Discussion #99" in entry.reason
    assert fake.mutations("addDiscussionComment") == []


@pytest.mark.parametrize(
    ("action", "payload", "mutation"),
    [
        ("comment", COMMENT, "addDiscussionComment"),
        ("reply", reply("DC_r1"), "addDiscussionComment"),
        ("react", react(), "addReaction"),
    ],
)
async def test_the_entry_is_on_disk_before_its_request_leaves(gh, action, payload, mutation):
    fake, client, outbox = gh
    entry = draft(outbox, action, payload)
    seen = []

    def on_disk() -> None:
        kept = json.loads(outbox.path(entry.id).read_text())
        seen.append((kept["state"], kept["request"] == entry.request, kept["maybe_sent"]))

    fake.during_mutation.append(on_disk)
    sent = await outbox.send(entry.id, client)
    assert seen == [("sending", True, True)]
    assert sent.state == "queued" and len(fake.mutations(mutation)) == 1


# --- unclear answers ------------------------------------------------------------------------


@pytest.mark.parametrize(("action", "payload"), [("comment", COMMENT), ("reply", reply("DC_r1"))])
async def test_a_comment_cut_off_after_it_was_made_is_found_by_its_nonce(gh, action, payload):
    fake, client, outbox = gh
    fake.faults.append("cut-after")
    entry = await outbox.send(draft(outbox, action, payload).id, client)
    assert entry.state == "applied", entry.reason  # the thread read back holds it: seen
    assert len(fake.made_by_viewer()) == 1 and len(fake.mutations("addDiscussionComment")) == 1
    assert [a["kind"] for a in entry.attempts] == ["create", "lookup"]
    assert "found after an unclear answer" in entry.comment and not entry.can_send


@pytest.mark.parametrize(("action", "payload"), [("comment", COMMENT), ("reply", reply("DC_c1"))])
async def test_a_comment_cut_off_before_it_was_made_is_sent_once_more(gh, action, payload):
    fake, client, outbox = gh
    fake.faults.append("cut-before")
    entry = await outbox.send(draft(outbox, action, payload).id, client)
    assert entry.state == "queued", entry.reason
    assert len(fake.made_by_viewer()) == 1
    assert [a["kind"] for a in entry.attempts] == ["create", "lookup", "create"]


async def test_another_accounts_comment_with_the_nonce_is_not_taken_for_ours(gh):
    fake, client, outbox = gh
    entry = draft(outbox, "comment", COMMENT)
    from tests.github_graphql import FakeComment

    fake.add(FakeComment("DC_copy", entry.request["body"], "mallory", 7))
    fake.faults.append("cut-before")
    sent = await outbox.send(entry.id, client)
    assert sent.state == "queued" and len(fake.made_by_viewer()) == 1


async def test_a_reaction_cut_off_after_it_was_made_is_settled_by_looking(gh):
    fake, client, outbox = gh
    fake.faults.append("cut-after")
    entry = await outbox.send(draft(outbox, "react", react("ROCKET")).id, client)
    assert entry.state == "applied", entry.reason
    assert len(fake.mutations("addReaction")) == 1  # looked, did not send again
    assert fake.asked[-1] == ("node", {"id": "D_kwDOpost7"})
    assert (LOGIN, "ROCKET") in fake.discussions[7].reactions


async def test_a_reaction_cut_off_before_it_was_made_is_sent_once_more(gh):
    fake, client, outbox = gh
    fake.faults.append("cut-before")
    entry = await outbox.send(draft(outbox, "react", react("EYES", "DC_c1")).id, client)
    assert entry.state == "queued", entry.reason
    assert [a["kind"] for a in entry.attempts] == ["create", "lookup", "create"]
    assert fake.mutations("addReaction") == [{"subjectId": "DC_c1", "content": "EYES"}]
    assert (LOGIN, "EYES") in fake.comments["DC_c1"].reactions


async def test_a_reaction_whose_lookup_fails_is_unknown_and_a_retry_looks_first(gh):
    fake, client, outbox = gh
    fake.faults.append("cut-after")
    fake.broken_reads = 1  # the lookup fails (the post's id came from the index)
    index = {"7": IndexEntry(id="D_kwDOpost7", number=7)}
    entry = await outbox.send(draft(outbox, "react", react(), index).id, client)
    assert entry.state == "unknown" and entry.maybe_sent and entry.can_send, entry.reason
    assert "could not be searched" in entry.reason
    again = await outbox.send(entry.id, client)
    assert again.state == "applied" and len(fake.mutations("addReaction")) == 1


async def test_an_entry_left_sending_is_looked_up_before_anything_is_sent(gh):
    """A process died while sending: the next roost looks first (a reaction by its subject,
    a comment by its nonce), and sends only what the platform does not show."""
    fake, client, outbox = gh
    reacted = draft(outbox, "react", react("LAUGH"))
    fake.discussions[7].reactions.add((LOGIN, "LAUGH"))  # the dead process had sent it
    commented = draft(outbox, "comment", COMMENT)  # the dead process had not
    for entry in (reacted, commented):
        entry.state = "sending"
        outbox.save(entry)
    settled = {e.id: e for e in await outbox.resume_interrupted(client)}
    assert settled[reacted.id].state == "applied" and fake.mutations("addReaction") == []
    assert settled[commented.id].state == "queued" and len(fake.made_by_viewer()) == 1


# --- verdicts -------------------------------------------------------------------------------


async def test_a_reaction_is_applied_once_its_subject_says_the_viewer_reacted(gh):
    fake, client, outbox = gh
    entry = await outbox.send(draft(outbox, "react", react("HOORAY", "DC_c1")).id, client)
    assert entry.state == "queued" and entry.node_id == "DC_c1"
    fake.comments["DC_c1"].reactions.clear()  # not (yet) there
    assert await follow_queued(outbox, client, now=LATER) == []
    kept = outbox.read(entry.id)
    assert kept.state == "queued" and kept.tracking["checks"] == 1
    assert await follow_queued(outbox, client, now=LATER) == []  # paced: not asked again yet
    assert len([n for n, _ in fake.asked if n == "node"]) == 1
    fake.comments["DC_c1"].reactions.add((LOGIN, "HOORAY"))
    (changed,) = await follow_queued(outbox, client, now=LATER + 60)
    assert changed.state == "applied" and "reaction is there" in changed.comment


async def test_a_check_that_fails_is_said_and_the_entry_stays_queued(gh):
    fake, client, outbox = gh
    entry = await outbox.send(draft(outbox, "comment", COMMENT).id, client)
    fake.broken_reads = 1
    assert await follow_queued(outbox, client, now=LATER) == []
    kept = outbox.read(entry.id)
    assert kept.state == "queued" and "502" in kept.tracking["last_error"]
    (changed,) = await follow_queued(outbox, client, now=LATER + 60)
    assert changed.state == "applied" and "last_error" not in changed.tracking


async def test_settled_answers_cost_nothing_more(gh):
    fake, client, outbox = gh
    await outbox.send(draft(outbox, "comment", COMMENT).id, client)
    await follow_queued(outbox, client, now=LATER)
    asked = len(fake.asked)
    for later in (LATER + 100, LATER + 1000):
        assert await follow_queued(outbox, client, now=later) == []
    assert len(fake.asked) == asked


async def test_an_answer_not_seen_is_asked_for_ever_less_often(gh):
    fake, client, outbox = gh
    entry = await outbox.send(draft(outbox, "react", react("EYES", "DC_c1")).id, client)
    fake.comments["DC_c1"].reactions.clear()
    now, pauses = LATER, []
    for _ in range(len(ANSWER_CHECK_STEPS_S) + 2):
        await follow_queued(outbox, client, now=now)
        next_at = outbox.read(entry.id).tracking["next_at"]
        pauses.append(next_at - now)
        now = next_at
    assert pauses == [*ANSWER_CHECK_STEPS_S, 600.0, 600.0]
    assert outbox.read(entry.id).state == "queued"


async def test_a_node_id_the_platform_bends_is_never_kept(gh):
    fake, client, outbox = gh
    made = fake.add_comment

    def bent(variables: dict) -> dict:
        answer = made(variables)
        answer["data"]["addDiscussionComment"]["comment"]["id"] = "DC_\x1b]0;owned\x07" + "x" * 300
        return answer

    fake.add_comment = bent
    entry = await outbox.send(draft(outbox, "comment", COMMENT).id, client)
    assert entry.state == "queued" and entry.node_id is None
    (changed,) = await follow_queued(outbox, client, now=LATER)  # found by its nonce all the same
    assert changed.state == "applied" and changed.node_id == "DC_new0001"
