"""Reactions as the deployment takes them: GitHub's ``addReaction`` on a post or a comment.

A reaction is ``addReaction(input: {subjectId, content})`` at ``{write_url}/graphql``, content
one of GitHub's eight (``THUMBS_UP`` … ``EYES``). The subject is the comment reacted to (its
node id, from the thread on screen) or the post itself (its node id from the deployment's
``discussions_index.json`` when the request carries it, else asked by number).

A reaction has no body, so no nonce can travel with it. After an unclear answer (a timeout, a
cut connection, a 5xx) roost looks before it sends again: the subject's ``reactionGroups {
content viewerHasReacted }`` say whether the viewer's reaction is there. Adding the same
reaction twice is harmless on GitHub (the second changes nothing), so a send whose lookup
cannot tell is still never repeated blindly: the entry is ``unknown`` and a retry looks first.
Once sent the entry is ``queued``; it is ``applied`` when the subject says the viewer has
reacted with that content (the tracker asks, ``tui/actions/tracking.py``).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tui.actions.builtin_actions import REACTION_CONTENTS
from tui.actions.graphql_send import (
    DiscussionError,
    GraphqlSend,
    NotThere,
    as_node_id,
    node_id,
    post_number,
)
from tui.actions.issue_client import LookupFailed, SendResult
from tui.conversation.thread import REACTIONS
from tui.network.fetch import Reply
from tui.untrusted import clean_line

__all__ = ["ADD_REACTION", "REACTION_STATE", "ReactionSend", "compose_reaction", "emoji_of"]

ADD_REACTION = """mutation($subjectId: ID!, $content: ReactionContent!) {
  addReaction(input: {subjectId: $subjectId, content: $content}) {
    reaction { content }
    subject { id }
  }
}"""

#: Whether the viewer has reacted to a subject, by content.
REACTION_STATE = """query($id: ID!) {
  node(id: $id) {
    ... on Reactable { reactionGroups { content viewerHasReacted } }
  }
}"""

_EMOJI = {content: emoji for _, content, emoji in REACTIONS}


def emoji_of(content: str) -> str:
    """What a terminal shows for a reaction (``THUMBS_UP`` → 👍)."""
    return _EMOJI.get(content, content)


def compose_reaction(
    payload: Mapping[str, Any], *, discussion_id: str | None = None
) -> dict[str, Any]:
    """The request of a reaction: ``{discussion_number, subject, content}`` (``subject``: the
    node id of the comment reacted to, empty for the post), with ``subjectId`` when the node id
    reacted to is known already (the comment's, or the post's from ``discussion_id``)."""
    number = post_number(payload)
    content = payload.get("content")
    if content not in REACTION_CONTENTS:
        raise DiscussionError(f"content must be one of {', '.join(REACTION_CONTENTS)}")
    subject = payload.get("subject") or ""
    if subject:
        subject = node_id(subject, "subject")
    request: dict[str, Any] = {"discussion_number": number, "subject": subject, "content": content}
    known = subject or (node_id(discussion_id, "the post's node id") if discussion_id else "")
    if known:
        request["subjectId"] = known
    return request


class ReactionSend(GraphqlSend):
    """One reaction (``kind`` ``discussion_reaction``)."""

    what = "the reaction"

    def __init__(self, client: Any, kind: str, request: Mapping[str, Any], nonce: str):
        super().__init__(client, kind, request, nonce)
        self.content = str(request.get("content", ""))
        self._subject: str | None = None

    async def subject(self) -> str:
        """The node id reacted to: the comment's, or the post's (asked once when not known)."""
        if self._subject is None:
            given = self.request.get("subjectId") or self.request.get("subject")
            if isinstance(given, str) and given:
                self._subject = given
            else:
                self._subject = await self.discussion_id()
        return self._subject

    async def post(self) -> Reply:
        subject = await self.subject()
        return await self.call(ADD_REACTION, {"subjectId": subject, "content": self.content})

    def created(self, data: Any) -> dict[str, Any] | None:
        root = data.get("data") if isinstance(data, dict) else None
        made = root.get("addReaction") if isinstance(root, dict) else None
        if not isinstance(made, dict):
            return None
        reaction, subject = made.get("reaction"), made.get("subject")
        if not isinstance(reaction, dict) or reaction.get("content") != self.content:
            return None
        if not isinstance(subject, dict) or not isinstance(subject.get("id"), str):
            return None
        return {"id": subject["id"]}

    def done(self, result: SendResult, node: Mapping[str, Any], found: bool = False) -> None:
        """Sent (queued), or seen on the subject (applied: ``found`` after an unclear answer,
        or the tracker's check)."""
        result.state = "applied" if found else "queued"
        result.number = self.request.get("discussion_number")
        result.node_id = as_node_id(node.get("id"))
        url = node.get("url")
        result.html_url = url if isinstance(url, str) else None
        result.author = self.client.known_login
        where = "a comment on" if self.request.get("subject") else "post"
        reaction = f"{emoji_of(self.content)} {self.content} on {where} #{result.number}"
        if found:
            result.message = f"{reaction} is there (found after an unclear answer)"
        else:
            result.message = f"{reaction} is sent; roost checks that it is there"

    async def find(self) -> dict[str, Any] | None:
        """The subject (its id) when the viewer has reacted to it with this content; None when
        it says the viewer has not. ``NotThere`` when there is no such subject."""
        subject = await self.subject()
        data = await self.query(REACTION_STATE, {"id": subject})
        node = data.get("node")
        if not isinstance(node, dict):
            raise NotThere(f"there is nothing with the id {clean_line(subject, 60)}")
        groups = node.get("reactionGroups")
        if not isinstance(groups, list):
            raise LookupFailed("the platform did not list the reactions")
        reacted = any(
            isinstance(group, dict)
            and group.get("content") == self.content
            and group.get("viewerHasReacted") is True
            for group in groups
        )
        return {"id": subject} if reacted else None
