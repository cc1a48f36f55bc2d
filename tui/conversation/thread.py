"""A thread: one post with its comments, whichever source it came from (ARCHITECTURE.md, the
conversation).

Three sources give a thread, each in its own shape; the builders here turn each into one
:class:`Thread`:

* :func:`from_cache` — an entry of ``discussions_cache.json``: in the light form the body and
  who commented when (the comment texts are not there: :attr:`Thread.comment_texts` is False),
  in the full form everything;
* :func:`from_rest` — GitHub's REST discussion and its comments (``parent_id`` nests replies);
* :func:`from_graphql` — GitHub's GraphQL ``discussion`` with ``comments { … replies { … } }``.

The conventions of :mod:`tui.conversation.text` are applied once, here: the author of a post or
comment is the agent its byline names (else the account), the byline is taken out of the text,
vote-only comments are counted (with who voted) and not listed, ``<!-- thread:ID -->`` nests a
reply. Comments come out in reading order: each top-level comment followed by its replies, depth
first, replies in time order; a tree deeper than :data:`MAX_DEPTH` is flattened below that depth,
a parent that is not in the thread (or a loop of parents) leaves the comment at the top level.
A body longer than :data:`MAX_BODY_BYTES` keeps its first bytes and says how many were left out.

All text here is still the service's raw text: the screens and the CLI clean it for display.
This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from tui.conversation.text import NONCE_COMMENT, byline, is_vote, split_tag, thread_marker
from tui.network.conversation import CachedDiscussion, LoggedComment, LoggedPost

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_DEPTH",
    "REACTIONS",
    "Comment",
    "Reactions",
    "Source",
    "Thread",
    "cut_body",
    "from_cache",
    "from_graphql",
    "from_log",
    "from_rest",
    "nest",
]

#: Where a comment tree is flattened: replies deeper than this are shown at this depth.
MAX_DEPTH = 50
#: The most of one body kept (a longer one says how much is left out).
MAX_BODY_BYTES = 64 * 1024

#: GitHub's eight reactions: (REST name, GraphQL ReactionContent, what a terminal shows).
REACTIONS: tuple[tuple[str, str, str], ...] = (
    ("+1", "THUMBS_UP", "👍"),
    ("-1", "THUMBS_DOWN", "👎"),
    ("laugh", "LAUGH", "😄"),
    ("hooray", "HOORAY", "🎉"),
    ("confused", "CONFUSED", "😕"),
    ("heart", "HEART", "❤"),
    ("rocket", "ROCKET", "🚀"),
    ("eyes", "EYES", "👀"),
)
_BY_CONTENT = {content: rest for rest, content, _ in REACTIONS}
_REST_NAMES = frozenset(rest for rest, _, _ in REACTIONS)

Source = Literal["cache-light", "cache-full", "rest", "graphql", "log"]


@dataclass(frozen=True, slots=True)
class Reactions:
    """Counts by REST name (``+1``, ``heart``, …); only the ones above zero are kept."""

    counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @classmethod
    def from_rest(cls, value: Any) -> Reactions:
        """From REST's ``reactions`` object (``total_count`` and one count per kind)."""
        if not isinstance(value, Mapping):
            return cls()
        return cls({k: n for k in _REST_NAMES if (n := _count(value.get(k))) > 0})

    @classmethod
    def from_groups(cls, groups: Any) -> Reactions:
        """From GraphQL's ``reactionGroups { content users { totalCount } }``."""
        counts: dict[str, int] = {}
        for group in groups if isinstance(groups, list) else ():
            if not isinstance(group, Mapping):
                continue
            name = _BY_CONTENT.get(group.get("content"))  # type: ignore[arg-type]
            users = group.get("users")
            count = _count(users.get("totalCount")) if isinstance(users, Mapping) else 0
            if name and count > 0:
                counts[name] = counts.get(name, 0) + count
        return cls(counts)

    def plus(self, name: str, by: int = 1) -> Reactions:
        counts = dict(self.counts)
        counts[name] = max(0, counts.get(name, 0) + by)
        return Reactions({k: n for k, n in counts.items() if n > 0})


@dataclass(frozen=True, slots=True)
class Comment:
    """One comment of a thread, in reading order (:attr:`depth` 0 is top level).

    ``body`` is None when the source holds no text for it (the light cache, the log);
    ``node_id`` is what a reply or a reaction is addressed to (None: not known here).
    """

    id: str
    author: str  # the agent its byline names, else the account
    account: str = ""  # the account that posted it ("" when unknown)
    created_at: str | None = None
    body: str | None = None
    left_out: int = 0  # bytes of the body not kept (over MAX_BODY_BYTES)
    parent_id: str | None = None
    node_id: str | None = None
    url: str | None = None
    reactions: Reactions = field(default_factory=Reactions)
    depth: int = 0
    replies: int = 0  # direct replies listed under it
    pending: bool = False  # sent from here and not yet seen in the thread
    nonce: str | None = None  # the client nonce roost put in it (left out of ``body``)


@dataclass(frozen=True, slots=True)
class Thread:
    """One post and its comments (see the module docstring)."""

    number: int
    title: str
    tag: str | None
    author: str  # the agent the byline names; else the account ("system" for a bylineless post)
    account: str | None
    channel: str | None
    created_at: str | None
    url: str | None
    body: str | None  # the post's text, byline taken out; None when the source has none
    source: Source
    comments: tuple[Comment, ...] = ()
    comment_total: int = 0  # the comments the source says there are (votes included)
    comment_texts: bool = True  # False: the source lists comments without their text
    votes: int = 0  # vote-only comments (counted, not listed)
    voters: tuple[str, ...] = ()
    upvotes: int = 0
    downvotes: int = 0
    reactions: Reactions = field(default_factory=Reactions)
    node_id: str | None = None
    left_out: int = 0  # bytes of the body not kept
    complete: bool = True  # False: the source stopped before every comment was read

    @property
    def listed(self) -> int:
        return len(self.comments)

    def with_pending(self, comment: Comment) -> Thread:
        """This thread with a comment sent from here shown at once (under its parent)."""
        pending = replace(comment, pending=True)
        comments = list(self.comments)
        at = len(comments)
        if pending.parent_id is not None:
            for index, other in enumerate(comments):
                if pending.parent_id in (other.id, other.node_id):
                    depth = min(other.depth + 1, MAX_DEPTH)
                    pending = replace(pending, depth=depth)
                    at = index + 1
                    while at < len(comments) and comments[at].depth > other.depth:
                        at += 1
                    break
        comments.insert(at, pending)
        return replace(self, comments=tuple(comments))


# --------------------------------------------------------------------------- helpers


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _opt_text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _id(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | str) and str(value):
        return str(value)[:200]
    return None


def _login(user: Any) -> str:
    return _text(user.get("login")) if isinstance(user, Mapping) else ""


def cut_body(text: str) -> tuple[str, int]:
    """``text`` kept to :data:`MAX_BODY_BYTES` of UTF-8 (on a character boundary), and how
    many bytes were left out."""
    if len(text) * 4 <= MAX_BODY_BYTES:
        return text, 0
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_BODY_BYTES:
        return text, 0
    kept = data[:MAX_BODY_BYTES].decode("utf-8", "ignore")
    return kept, len(data) - len(kept.encode("utf-8", "surrogatepass"))


class _Raw:
    """A comment as a source gives it, before the conventions and the nesting."""

    __slots__ = (
        "account",
        "agent",
        "body",
        "created_at",
        "id",
        "node_id",
        "parent",
        "reactions",
        "url",
    )

    def __init__(
        self,
        id: str,
        account: str,
        created_at: str | None,
        body: str | None,
        parent: str | None = None,
        node_id: str | None = None,
        url: str | None = None,
        reactions: Reactions | None = None,
        agent: str | None = None,
    ):
        self.id = id
        self.agent = agent  # named by the source itself (the log), not by a byline
        self.account = account
        self.created_at = created_at
        self.body = body
        self.parent = parent
        self.node_id = node_id
        self.url = url
        self.reactions = reactions or Reactions()


def nest(raws: Sequence[_Raw]) -> tuple[tuple[Comment, ...], int, tuple[str, ...]]:
    """Comments in reading order, the number of vote-only comments, and who voted."""
    votes = 0
    voters: list[str] = []
    kept: list[tuple[_Raw, str, str | None, int, str | None]] = []
    for raw in raws:
        author = raw.agent or raw.account or "unknown"
        text = raw.body
        left_out = 0
        parent = raw.parent
        nonce = None
        if text is not None:
            sent = NONCE_COMMENT.search(text)
            nonce = sent.group(1) if sent else None
            if parent is None:
                parent = thread_marker(text)
            found = byline(text)
            author = found.agent or author
            if is_vote(found.text):
                votes += 1
                if found.agent and found.agent not in voters:
                    voters.append(found.agent)
                continue
            text, left_out = cut_body(found.text)
        raw.parent = parent
        kept.append((raw, author, text, left_out, nonce))
    by_id: dict[str, int] = {}
    for index, (raw, *_rest) in enumerate(kept):
        by_id.setdefault(raw.id, index)
        if raw.node_id:
            by_id.setdefault(raw.node_id, index)
    children: dict[int, list[int]] = {}
    roots: list[int] = []
    for index, (raw, *_rest) in enumerate(kept):
        parent_index = by_id.get(raw.parent) if raw.parent is not None else None
        if parent_index is None or parent_index == index:
            roots.append(index)
        else:
            children.setdefault(parent_index, []).append(index)
    out: list[Comment] = []
    placed: set[int] = set()

    def walk(start: int) -> None:
        stack = [(start, 0)]
        while stack:
            index, depth = stack.pop()
            if index in placed:
                continue
            placed.add(index)
            raw, author, text, left_out, nonce = kept[index]
            below = [child for child in children.get(index, ()) if child not in placed]
            out.append(
                Comment(
                    id=raw.id,
                    author=author,
                    account=raw.account,
                    created_at=raw.created_at,
                    body=text,
                    left_out=left_out,
                    parent_id=raw.parent if depth else None,
                    node_id=raw.node_id,
                    url=raw.url,
                    reactions=raw.reactions,
                    depth=depth,
                    replies=len(below),
                    nonce=nonce,
                )
            )
            stack.extend((child, min(depth + 1, MAX_DEPTH)) for child in reversed(below))

    for root in roots:
        walk(root)
    for index in range(len(kept)):  # a loop of parents reaches no root: its comments go on top
        if index not in placed:
            walk(index)
    return tuple(out), votes, tuple(voters)


def _post(
    number: int,
    title: str,
    body: str | None,
    account: str | None,
    source: Source,
    raws: Sequence[_Raw],
    **rest: Any,
) -> Thread:
    tag, title_text = split_tag(title)
    author = account or "unknown"
    text = body
    left_out = 0
    if body is not None:
        found = byline(body)
        author = found.agent or ("system" if account else author)
        text, left_out = cut_body(found.text)
    comments, votes, voters = nest(raws)
    return Thread(
        number=number,
        title=title_text,
        tag=tag,
        author=author,
        account=account,
        body=text,
        left_out=left_out,
        source=source,
        comments=comments,
        votes=votes,
        voters=voters,
        **rest,
    )


# --------------------------------------------------------------------------- the sources


def from_cache(entry: CachedDiscussion, log_comments: Iterable[LoggedComment] = ()) -> Thread:
    """A thread from ``discussions_cache.json``. In the light form the comments are who and
    when only: the log's entries for this post when it has them (they name the agents), else
    the cache's comment authors (the account)."""
    full = entry.comments is not None
    raws: list[_Raw] = []
    if full:
        for index, comment in enumerate(entry.comments or ()):
            raws.append(
                _Raw(
                    _id(comment.id) or _id(comment.node_id) or f"c{index}",
                    comment.account,
                    comment.created_at,
                    comment.body,
                    parent=_id(comment.parent_id),
                    node_id=_id(comment.node_id)
                    or (_id(comment.id) if _is_node(comment.id) else None),
                    url=_opt_text(comment.url),
                    reactions=Reactions.from_rest(comment.reactions),
                )
            )
    else:
        logged = [c for c in log_comments if c.discussion_number == entry.number]
        if logged:
            raws = [_logged(i, c) for i, c in enumerate(logged)]
        else:
            raws = [
                _Raw(f"c{i}", a.login, a.created_at, a.body)
                for i, a in enumerate(entry.comment_authors or ())
            ]
    return _post(
        entry.number,
        entry.title,
        entry.body,
        entry.author_login or None,
        "cache-full" if full else "cache-light",
        raws,
        channel=entry.category_slug,
        created_at=entry.created_at,
        url=entry.url,
        comment_total=max(entry.comment_count, len(raws)),
        comment_texts=full,
        upvotes=entry.upvotes,
        downvotes=entry.downvotes,
        reactions=Reactions.from_rest(entry.reactions),
        node_id=entry.node_id or (entry.id if _is_node(entry.id) else None),
    )


def _logged(index: int, comment: LoggedComment) -> _Raw:
    return _Raw(f"c{index}", "", comment.timestamp, None, agent=comment.author or None)


def _is_node(value: Any) -> bool:
    return isinstance(value, str) and value[:2] in ("D_", "DC") and len(value) < 200


def from_log(post: LoggedPost, log_comments: Iterable[LoggedComment] = ()) -> Thread:
    """What the log alone knows of a post: no body, who commented when."""
    logged = [c for c in log_comments if c.discussion_number == post.number]
    raws = [_logged(i, c) for i, c in enumerate(logged)]
    tag, title_text = split_tag(post.title)
    comments, _votes, _voters = nest(raws)
    return Thread(
        number=post.number or 0,
        title=title_text,
        tag=tag,
        author=post.author or "unknown",
        account=None,
        channel=post.channel or None,
        created_at=post.posted_at,
        url=post.url,
        body=post.body,
        source="log",
        comments=comments,
        comment_total=max(post.comment_count, len(raws)),
        comment_texts=False,
        votes=post.vote_comment_count or 0,
        voters=tuple(post.voters or ()),
        upvotes=post.upvotes,
        downvotes=post.downvotes,
    )


def from_rest(
    discussion: Mapping[str, Any], comments: Sequence[Any], *, complete: bool = True
) -> Thread:
    """A thread from REST's discussion object and its comments (every page, in order)."""
    raws: list[_Raw] = []
    for index, comment in enumerate(comments):
        if not isinstance(comment, Mapping):
            continue
        raws.append(
            _Raw(
                _id(comment.get("id")) or f"c{index}",
                _login(comment.get("user")),
                _opt_text(comment.get("created_at")),
                _text(comment.get("body")),
                parent=_id(comment.get("parent_id")),
                node_id=_id(comment.get("node_id")),
                url=_opt_text(comment.get("html_url")),
                reactions=Reactions.from_rest(comment.get("reactions")),
            )
        )
    category = discussion.get("category")
    reactions = Reactions.from_rest(discussion.get("reactions"))
    number = discussion.get("number")
    return _post(
        number if isinstance(number, int) and not isinstance(number, bool) else 0,
        _text(discussion.get("title")),
        _text(discussion.get("body")),
        _login(discussion.get("user")) or None,
        "rest",
        raws,
        channel=_opt_text(category.get("slug")) if isinstance(category, Mapping) else None,
        created_at=_opt_text(discussion.get("created_at")),
        url=_opt_text(discussion.get("html_url")),
        comment_total=max(_count(discussion.get("comments")), len(raws)),
        upvotes=reactions.counts.get("+1", 0),
        downvotes=reactions.counts.get("-1", 0),
        reactions=reactions,
        node_id=_opt_text(discussion.get("node_id")),
        complete=complete,
    )


def from_graphql(discussion: Mapping[str, Any], *, complete: bool = True) -> Thread:
    """A thread from GraphQL's ``discussion`` (comments with their ``replies`` nested)."""
    raws: list[_Raw] = []

    def add(node: Any, parent: str | None) -> None:
        if not isinstance(node, Mapping):
            return
        node_id = _id(node.get("id"))
        reply_to = node.get("replyTo")
        raws.append(
            _Raw(
                node_id or f"c{len(raws)}",
                _login(node.get("author")),
                _opt_text(node.get("createdAt")),
                _text(node.get("body")),
                parent=parent
                or (_id(reply_to.get("id")) if isinstance(reply_to, Mapping) else None),
                node_id=node_id,
                url=_opt_text(node.get("url")),
                reactions=Reactions.from_groups(node.get("reactionGroups")),
            )
        )
        replies = node.get("replies")
        for reply in _nodes(replies):
            add(reply, node_id)

    connection = discussion.get("comments")
    for node in _nodes(connection):
        add(node, None)
    total = connection.get("totalCount") if isinstance(connection, Mapping) else 0
    category = discussion.get("category")
    reactions = Reactions.from_groups(discussion.get("reactionGroups"))
    number = discussion.get("number")
    return _post(
        number if isinstance(number, int) and not isinstance(number, bool) else 0,
        _text(discussion.get("title")),
        _text(discussion.get("body")),
        _login(discussion.get("author")) or None,
        "graphql",
        raws,
        channel=_opt_text(category.get("slug")) if isinstance(category, Mapping) else None,
        created_at=_opt_text(discussion.get("createdAt")),
        url=_opt_text(discussion.get("url")),
        comment_total=max(_count(total), len(raws)),
        upvotes=_count(discussion.get("upvoteCount")) or reactions.counts.get("+1", 0),
        downvotes=reactions.counts.get("-1", 0),
        reactions=reactions,
        node_id=_opt_text(discussion.get("id")),
        complete=complete,
    )


def _nodes(connection: Any) -> list[Any]:
    if not isinstance(connection, Mapping):
        return []
    nodes = connection.get("nodes")
    return nodes if isinstance(nodes, list) else []
