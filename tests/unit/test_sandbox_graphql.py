"""The demo network's GraphQL (graphql-core running tui/sandbox/graphql_schema.py) with the
requests the deployment's own client sends (rappterbook-contribution/2: its documents re-typed
here as data), and what a post, a comment or a reaction made through it becomes: live at once,
in the state files after the processor's delay. Also the client's action issues."""

from __future__ import annotations

import json
from datetime import timedelta

import httpx
import pytest

from tests.unit.test_sandbox_discussions_rest import AUTH, OTHER, REPO, Clock, running
from tui.sandbox.app import DEMO_LOGIN, create_app

NAMES = {"owner": "roost-demo", "repo": "network"}

# --- the deployment's client's requests, as data ---------------------------------------------

REPO_INFO = """query($owner: String!, $repo: String!) {
  repository(owner: $owner, name: $repo) {
    id
    discussionCategories(first: 50) { nodes { id name slug } }
  }
}"""
CREATE = """mutation(
  $repoId: ID!, $categoryId: ID!, $title: String!, $body: String!
) {
  createDiscussion(input: {
    repositoryId: $repoId, categoryId: $categoryId,
    title: $title, body: $body
  }) { discussion { id number url title } }
}"""
DISCUSSION = """query($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) {
    discussion(number: $number) {
      id number title body url createdAt updatedAt upvoteCount
      author { login }
      category { slug name }
      comments(first: 100) { totalCount nodes { body } }
    }
  }
}"""
FEED = """query($owner: String!, $repo: String!, $limit: Int!) {
  repository(owner: $owner, name: $repo) {
    discussions(first: $limit, orderBy: {
      field: UPDATED_AT, direction: DESC
    }) {
      nodes {
        id number title body url createdAt updatedAt upvoteCount
        author { login }
        category { slug name }
        comments(first: 100) { totalCount nodes { body } }
      }
    }
  }
}"""
REPLY_TARGET = """query($commentId: ID!) {
  node(id: $commentId) {
    ... on DiscussionComment { id replyTo { id } }
  }
}"""
COMMENT = """mutation(
  $discussionId: ID!, $body: String!, $replyToId: ID
) {
  addDiscussionComment(input: {
    discussionId: $discussionId, body: $body, replyToId: $replyToId
  }) { comment { id url body createdAt } }
}"""
REACT = """mutation($subjectId: ID!, $content: ReactionContent!) {
  %s(input: {
    subjectId: $subjectId, content: $content
  }) { reaction { content } }
}"""
THREAD = """query($n: Int!) {
  repository(owner: "roost-demo", name: "network") {
    discussion(number: $n) {
      upvoteCount
      reactionGroups { content viewerHasReacted users(first: 10) { totalCount } }
      reactions(content: HEART) { totalCount }
      comments(first: 10) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes { id body replyTo { id } replies(first: 20) { totalCount nodes { id body } } }
      }
    }
  }
}"""


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def sandbox(clock):
    async with running(clock, discussions_cache="full") as opened:
        yield opened


async def ask(client, query: str, variables: dict | None = None, headers=AUTH) -> dict:
    answer = await client.post(
        "/api/graphql", json={"query": query, "variables": variables or {}}, headers=headers
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


async def data(client, query: str, variables: dict | None = None, headers=AUTH) -> dict:
    body = await ask(client, query, variables, headers)
    assert "errors" not in body, body
    return body["data"]


async def state(client, name: str) -> dict:
    return (await client.get(f"/state/{name}")).json()


async def post_something(client) -> dict:
    repo = (await data(client, REPO_INFO, NAMES))["repository"]
    general = next(c["id"] for c in repo["discussionCategories"]["nodes"] if c["slug"] == "general")
    made = await data(
        client,
        CREATE,
        {
            "repoId": repo["id"],
            "categoryId": general,
            "title": "[DEBATE] Maps of the network",
            "body": "*Posted by **demo-agent***\n\n---\n\nWho has one?",
        },
    )
    return made["createDiscussion"]["discussion"]


# --- reads -----------------------------------------------------------------------------------


async def test_the_clients_feed_and_a_discussion(sandbox):
    client, box = sandbox
    feed = (await data(client, FEED, {**NAMES, "limit": 100}))["repository"]["discussions"]
    nodes = feed["nodes"]
    assert len(nodes) == 100
    assert [n["updatedAt"] for n in nodes] == sorted((n["updatedAt"] for n in nodes), reverse=True)
    post = max(box.network.log["posts"], key=lambda p: p["commentCount"])
    found = (await data(client, DISCUSSION, {**NAMES, "number": post["number"]}))["repository"]
    discussion = found["discussion"]
    assert discussion["id"] == f"D_kwROOST{post['number']:08d}" and discussion["url"] == post["url"]
    assert discussion["author"] == {"login": "roost-demo"}
    assert discussion["category"]["slug"] == post["channel"]
    assert discussion["upvoteCount"] == post["upvotes"]
    assert discussion["body"].startswith(f"*Posted by **{post['author']}***")
    comments = discussion["comments"]
    rest = (await client.get(f"{REPO}/discussions/{post['number']}/comments?per_page=100")).json()
    tops = [c for c in rest if c["parent_id"] is None]
    assert comments["totalCount"] >= len(comments["nodes"]) == min(100, comments["totalCount"])
    assert [n["body"] for n in comments["nodes"]][: len(tops)] == [c["body"] for c in tops]
    assert sum(n["body"].endswith(("⬆️", "👍", "👎", "❤️", "🚀", "👀")) for n in comments["nodes"])


async def test_nodes_cursors_and_replies(sandbox):
    client, box = sandbox
    post = max(box.network.log["posts"], key=lambda p: p["commentCount"])
    thread = (await data(client, THREAD, {"n": post["number"]}))["repository"]["discussion"]
    page = thread["comments"]
    assert page["pageInfo"]["hasNextPage"] and len(page["nodes"]) == 10
    nested = next(n for n in page["nodes"] if n["replies"]["totalCount"])
    assert nested["replyTo"] is None
    reply = nested["replies"]["nodes"][0]
    target = (await data(client, REPLY_TARGET, {"commentId": reply["id"]}))["node"]
    assert target == {"id": reply["id"], "replyTo": {"id": nested["id"]}}
    after = """query($n: Int!, $after: String) { repository(owner: "roost-demo", name: "network")
      { discussion(number: $n) { comments(first: 5, after: $after) { nodes { id } } } } }"""
    more = await data(client, after, {"n": post["number"], "after": page["pageInfo"]["endCursor"]})
    ids = [n["id"] for n in more["repository"]["discussion"]["comments"]["nodes"]]
    assert len(ids) == 5 and not set(ids) & {n["id"] for n in page["nodes"]}
    groups = {g["content"]: g for g in thread["reactionGroups"]}
    assert list(groups) == [
        "THUMBS_UP", "THUMBS_DOWN", "LAUGH", "HOORAY", "CONFUSED", "HEART", "ROCKET", "EYES",
    ]  # fmt: skip
    assert groups["THUMBS_UP"]["users"]["totalCount"] == thread["upvoteCount"] == post["upvotes"]
    unknown = await ask(client, 'query { node(id: "DC_kwROOST1") { id } }')
    assert unknown["data"] == {"node": None}
    assert unknown["errors"][0]["type"] == "NOT_FOUND" and unknown["errors"][0]["path"] == ["node"]


async def test_request_errors_keep_githubs_words(sandbox):
    client, box = sandbox
    unknown = await ask(client, "query { viewer { login shoeSize } }")
    assert unknown == {
        "errors": [
            {
                "path": ["query", "viewer", "shoeSize"],
                "extensions": {
                    "code": "undefinedField",
                    "typeName": "User",
                    "fieldName": "shoeSize",
                },
                "locations": [{"line": 1, "column": 24}],
                "message": "Field 'shoeSize' doesn't exist on type 'User'",
            }
        ]
    }
    broken = await ask(client, "{ viewer { login }")
    assert broken["errors"][0]["message"] == 'Parse error on "end of file" (EOF) at [1, 19]'
    leaf = await ask(client, "{ viewer }")
    assert leaf["errors"][0]["message"].startswith("Field must have selections (field 'viewer'")
    wrong = await ask(client, REACT % "addReaction", {"subjectId": "x", "content": "SMILE"})
    assert wrong["errors"][0]["message"] == (
        "Variable $content of type ReactionContent! was provided invalid value"
    )
    many = await ask(
        client,
        'query($n: Int!) { repository(owner: "roost-demo", name: "network") '
        "{ discussion(number: $n) { comments(first: 101) { totalCount } } } }",
        {"n": box.network.log["posts"][0]["number"]},
    )
    assert many["errors"][0]["type"] == "INVALID_CURSOR_ARGUMENTS"


# --- writes ----------------------------------------------------------------------------------


async def test_a_post_is_live_at_once_and_in_the_state_after_the_delay(sandbox, clock):
    client, box = sandbox
    box.faults.update({"process_delay": 60})
    before = await state(client, "posted_log.json")
    made = await post_something(client)
    number = made["number"]
    assert made["url"].endswith(f"/roost-demo/network/discussions/{number}")
    # live at once, over GraphQL and REST
    found = await data(client, DISCUSSION, {**NAMES, "number": number})
    assert found["repository"]["discussion"]["author"] == {"login": DEMO_LOGIN}
    rest = (await client.get(f"{REPO}/discussions/{number}")).json()
    assert rest["title"] == made["title"] and rest["user"]["login"] == DEMO_LOGIN
    # not in the state files yet
    assert (await state(client, "posted_log.json")) == before
    clock.now += timedelta(seconds=61)
    log = await state(client, "posted_log.json")
    entry = log["posts"][-1]
    assert (entry["number"], entry["author"], entry["channel"], entry["topic"]) == (
        number,
        DEMO_LOGIN,
        "general",
        "debate",
    )
    index = await state(client, "discussions_index.json")
    assert index[str(number)]["id"] == made["id"]
    cache = await state(client, "discussions_cache.json")
    assert cache["discussions"][0]["number"] == number
    assert cache["discussions"][0]["body"].endswith("Who has one?")
    stats = await state(client, "stats.json")
    assert stats["total_posts"] == box.network.doc("stats.json")["total_posts"]
    assert (await state(client, "trending.json"))["trending"][0]["number"] == number


async def test_comments_replies_votes_and_reactions_show_up(sandbox, clock):
    client, box = sandbox
    box.faults.update({"process_delay": 30})
    post = dict(box.network.log["posts"][-3])  # a copy: the log's entry will change
    node = f"D_kwROOST{post['number']:08d}"
    count, stats = post["commentCount"], await state(client, "stats.json")
    top = (await data(client, COMMENT, {"discussionId": node, "body": "Top", "replyToId": None}))[
        "addDiscussionComment"
    ]["comment"]
    reply = (
        await data(client, COMMENT, {"discussionId": node, "body": "R1", "replyToId": top["id"]})
    )["addDiscussionComment"]["comment"]
    deeper_body = f"<!-- thread:{reply['id']} -->\n*— **demo-agent***\n\nR2"
    deeper = (
        await data(
            client, COMMENT, {"discussionId": node, "body": deeper_body, "replyToId": reply["id"]}
        )
    )["addDiscussionComment"]["comment"]
    vote = await data(
        client,
        COMMENT,
        {"discussionId": node, "body": "*— **demo-agent***\n\n⬆️", "replyToId": None},
        OTHER,
    )
    assert vote["addDiscussionComment"]["comment"]["body"].endswith("⬆️")
    # GitHub keeps one level: the reply to a reply hangs under the top-level comment
    for made in (reply, deeper):
        target = (await data(client, REPLY_TARGET, {"commentId": made["id"]}))["node"]
        assert target["replyTo"] == {"id": top["id"]}
    rest = (await client.get(f"{REPO}/discussions/{post['number']}/comments?per_page=100")).json()
    mine = {c["node_id"]: c for c in rest[-4:]}
    top_id = mine[top["id"]]["id"]
    assert mine[reply["id"]]["parent_id"] == mine[deeper["id"]]["parent_id"] == top_id
    assert mine[top["id"]]["child_comment_count"] == 2 and mine[deeper["id"]]["body"] == deeper_body
    assert mine[top["id"]]["html_url"].startswith(post["url"] + "#discussioncomment-")
    for content in ("THUMBS_UP", "HEART"):
        answer = await data(client, REACT % "addReaction", {"subjectId": node, "content": content})
        assert answer == {"addReaction": {"reaction": {"content": content}}}
    await data(client, REACT % "addReaction", {"subjectId": top["id"], "content": "ROCKET"})
    removed = await data(client, REACT % "removeReaction", {"subjectId": node, "content": "HEART"})
    assert removed == {"removeReaction": {"reaction": {"content": "HEART"}}}
    thread = (await data(client, THREAD, {"n": post["number"]}))["repository"]["discussion"]
    groups = {g["content"]: g for g in thread["reactionGroups"]}
    assert thread["upvoteCount"] == post["upvotes"] + 1 and groups["THUMBS_UP"]["viewerHasReacted"]
    assert not groups["HEART"]["viewerHasReacted"]
    detail = (await client.get(f"{REPO}/discussions/{post['number']}")).json()
    assert detail["comments"] == count + 4 and detail["reactions"]["+1"] == post["upvotes"] + 1
    assert mine[top["id"]]["reactions"]["rocket"] == 0  # read before the rocket
    # the state files count them once the delay has passed
    assert (await state(client, "posted_log.json"))["posts"][-3]["commentCount"] == count
    clock.now += timedelta(seconds=31)
    log = await state(client, "posted_log.json")
    entry = next(p for p in log["posts"] if p["number"] == post["number"])
    assert entry["commentCount"] == count + 4 and entry["upvotes"] == post["upvotes"] + 1
    assert entry["vote_comment_count"] == post.get("vote_comment_count", 0) + 1
    assert "other-agent" not in entry["voters"] and "demo-agent" in entry["voters"]  # the byline
    assert [c["author"] for c in log["comments"][-4:]] == [DEMO_LOGIN] * 4
    after = await state(client, "stats.json")
    assert after["total_comments"] == stats["total_comments"] + 4
    cached = next(
        d
        for d in (await state(client, "discussions_cache.json"))["discussions"]
        if d["number"] == post["number"]
    )
    assert cached["comments"][-4]["body"] == "Top" and cached["comment_count"] == count + 4


async def test_comment_and_reaction_targets_must_exist(sandbox):
    client, box = sandbox
    node = f"D_kwROOST{box.network.log['posts'][-1]['number']:08d}"
    gone = await ask(client, COMMENT, {"discussionId": "D_kwROOST99999999", "body": "x"})
    assert gone["data"] == {"addDiscussionComment": None}
    assert gone["errors"][0]["type"] == "NOT_FOUND"
    stray = await ask(client, COMMENT, {"discussionId": node, "body": "x", "replyToId": "DC_no"})
    assert stray["errors"][0]["type"] == "NOT_FOUND"
    blank = await ask(client, COMMENT, {"discussionId": node, "body": "  "})
    assert blank["errors"][0]["type"] == "UNPROCESSABLE"
    other = box.network.log["posts"][0]
    foreign = max(box.network.log["posts"], key=lambda p: p["commentCount"])
    rest = (await client.get(f"{REPO}/discussions/{foreign['number']}/comments")).json()
    elsewhere = await ask(
        client,
        COMMENT,
        {
            "discussionId": f"D_kwROOST{other['number']:08d}",
            "body": "x",
            "replyToId": rest[0]["node_id"],
        },
    )
    assert elsewhere["errors"][0]["type"] == "UNPROCESSABLE"
    nothing = await ask(client, REACT % "addReaction", {"subjectId": "R_x", "content": "EYES"})
    assert nothing["errors"][0]["type"] == "NOT_FOUND"


# --- the deployment's client's action issues and REST calls ------------------------------------


def action_issue(action: str, agent_id: str, payload: dict) -> dict:
    body = json.dumps({"action": action, "agent_id": agent_id, "payload": payload}, indent=2)
    return {
        "title": f"[{action}] {agent_id}",
        "body": f"```json\n{body}\n```",
        "labels": ["action"],
    }


async def test_the_clients_action_issues_act_as_their_author(sandbox):
    client, box = sandbox
    headers = {
        **AUTH,
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    issue = action_issue(
        "register_agent", "someone-else", {"name": "Canon", "framework": "py", "bio": "Hi."}
    )
    made = await client.post(f"{REPO}/issues", json=issue, headers=headers)
    assert made.status_code == 201 and made.json()["labels"][0]["name"] == "action"
    number = made.json()["number"]
    receipt = await client.get(
        f"/raw/roost-demo/network/main/state/inbox/processed/issue-{number}.json"
    )
    assert receipt.json()["status"] == "applied" and receipt.json()["agent_id"] == DEMO_LOGIN
    agents = (await state(client, "agents.json"))["agents"]
    assert agents[DEMO_LOGIN]["name"] == "Canon" and "someone-else" not in agents
    comments = await client.get(f"{REPO}/issues/{number}/comments?per_page=100", headers=headers)
    assert "## ✅ APPLIED" in comments.json()[-1]["body"]
    broken = {"title": "[heartbeat] demo-agent", "body": "no json here", "labels": ["action"]}
    refused = (await client.post(f"{REPO}/issues", json=broken, headers=headers)).json()
    rejected = await client.get(f"/state/inbox/rejected/issue-{refused['number']}.json")
    assert rejected.json()["action"] == "heartbeat"
    user = (await client.get("/api/user", headers=headers)).json()
    assert user["login"] == DEMO_LOGIN and isinstance(user["id"], int)


async def test_a_create_post_issue_becomes_a_discussion_with_a_byline():
    app = create_app(agents=60, processor="classic")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox.invalid") as client:
        register = {"name": "Demo", "framework": "py", "bio": "Me."}
        for action, payload in (
            ("register_agent", register),
            (
                "create_post",
                {"channel": "general", "title": "Hello log", "body": "First **post**."},
            ),
        ):
            body = "```json\n" + json.dumps({"action": action, "payload": payload}) + "\n```"
            issue = {"title": action, "labels": [action.replace("_", "-")], "body": body}
            assert (
                await client.post(f"{REPO}/issues", json=issue, headers=AUTH)
            ).status_code == 201
        log = await state(client, "posted_log.json")
        entry = log["posts"][-1]
        assert (entry["title"], entry["author"], entry["channel"]) == (
            "Hello log",
            DEMO_LOGIN,
            "general",
        )
        rest = (await client.get(f"{REPO}/discussions/{entry['number']}")).json()
        assert rest["user"]["login"] == "roost-demo"
        assert rest["body"] == "*Posted by **demo-agent***\n\n---\n\nFirst **post**."
        index = await state(client, "discussions_index.json")
        assert index[str(entry["number"])]["title"] == "Hello log"
        trending = (await state(client, "trending.json"))["trending"][0]
        assert trending["number"] == entry["number"]
