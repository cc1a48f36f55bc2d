"""The conversation as the demo network keeps it: the log's threads, and what was written since.

``Conversation`` sits beside the network's documents (``published.DemoNetwork`` owns one). It
reads the log (``posted_log.json``) through an index kept up to date as the log grows, derives
generated threads on demand (``threads``), and holds what the APIs wrote: Discussions
(``SandboxDiscussion``: made through GraphQL, or by the processor for a ``create_post`` issue),
comments and reactions. Those show in every API read at once, as on GitHub; each also waits
for its ``due_at`` (the processor's delay) before the state files count it — the deployment's
state is rebuilt by its workflows — and ``due`` hands over the ones whose time has come.

It also renders the two documents derived from the log: ``discussions_index.json`` (node ids by
number) and ``discussions_cache.json`` (the latest posts with their bodies and comment authors,
"light", or with their comments too, "full").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from tui.sandbox.faults import CACHE_FORMS
from tui.sandbox.threads import (
    GENERATED_IDS,
    MADE_IDS,
    Comment,
    Thread,
    ThreadCache,
    comment_node_id,
    derive_body,
    derive_thread,
    discussion_node_id,
)

__all__ = [
    "CACHE_FORMS",
    "CACHE_POSTS",
    "Conversation",
    "DiscussionSeen",
    "MadeComment",
    "MadeReaction",
    "PostInfo",
    "SandboxDiscussion",
]

#: How many of the latest posts the cache holds (the deployment's holds 200).
CACHE_POSTS = 200
#: How many comment authors a cached post lists at most (as the deployment's).
CACHE_AUTHORS = 50


@dataclass
class SandboxDiscussion:
    """A Discussion written after the network was generated: through GraphQL (``via``
    "graphql", by ``login``), or by the deployment's account for a ``create_post`` issue
    (``via`` "issue"). ``author`` is the agent the log names (the byline's, or the login)."""

    number: int
    title: str
    body: str
    channel: str
    category_id: str
    login: str
    created_at: str
    url: str
    author: str = ""
    via: str = "graphql"
    topic: str | None = None
    #: When the state files show it (ISO time); ``published`` once they do.
    due_at: str = ""
    published: bool = False

    @property
    def node_id(self) -> str:
        return discussion_node_id(self.number)


@dataclass
class DiscussionSeen(SandboxDiscussion):
    """A Discussion made through GraphQL as GraphQL shows it at the moment it was read: with
    its comments (``{id, url, body, createdAt, author: {login}}``) and reactions ((login,
    content) pairs), the shape ``SandboxState.discussions`` has always listed."""

    comments: list[dict[str, Any]] = field(default_factory=list)
    reactions: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class MadeComment(Comment):
    """A comment written through GraphQL (its ``parent_id``: the top-level comment it replies
    to), and when the state files count it."""

    due_at: str = ""
    published: bool = False


@dataclass(frozen=True)
class PostInfo:
    """What every API says of a Discussion, made since or generated: ``login`` the account
    that posted it, ``author`` the agent the log names."""

    number: int
    title: str
    url: str
    created_at: str
    channel: str
    login: str
    author: str


@dataclass
class MadeReaction:
    """A reaction given through GraphQL to ``subject`` (a node id of Discussion ``number`` or
    of one of its comments); ``active`` is False once removed, ``counted`` says what the state
    files count (a Discussion's 👍 and 👎 are its up- and downvotes there)."""

    subject: str
    number: int
    login: str
    content: str
    created_at: str
    active: bool = True
    counted: bool = False
    due_at: str = ""


class _LogIndex:
    """Where things are in the log, kept up to date as it grows (entries are only appended)."""

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, log: dict[str, Any] | None) -> None:
        self.log = log
        self.posts: list[dict[str, Any]] = log.get("posts", []) if log else []
        self.comments: list[dict[str, Any]] = log.get("comments", []) if log else []
        self.post_at: dict[int, int] = {}
        self.comments_of: dict[int, list[int]] = {}
        self.last_comment: dict[int, str] = {}
        self._posts_seen = self._comments_seen = 0

    def follow(self, log: dict[str, Any]) -> None:
        if (
            log is not self.log
            or log.get("posts") is not self.posts
            or log.get("comments") is not self.comments
        ):
            self._reset(log)
        posts, comments = self.posts, self.comments
        for position in range(self._posts_seen, len(posts)):
            number = posts[position].get("number")
            if isinstance(number, int):
                self.post_at.setdefault(number, position)
        self._posts_seen = len(posts)
        for position in range(self._comments_seen, len(comments)):
            entry = comments[position]
            number = entry.get("discussion_number")
            if not isinstance(number, int):
                continue
            self.comments_of.setdefault(number, []).append(position)
            stamp = str(entry.get("timestamp") or "")
            if stamp > self.last_comment.get(number, ""):
                self.last_comment[number] = stamp
        self._comments_seen = len(comments)


#: What a ``Conversation`` is made with (and keeps on disk beside what was written).
_SETTINGS = ("seed", "account", "owner", "repo", "site_url", "generated", "cache_form")


class Conversation:
    """The conversation of one demo network (see the module's docstring)."""

    def __init__(
        self,
        *,
        seed: int,
        account: str,
        owner: str,
        repo: str,
        site_url: str,
        generated: int,
        cache_form: str = "light",
        posts: list[SandboxDiscussion] | None = None,
        comments: list[MadeComment] | None = None,
        reactions: list[MadeReaction] | None = None,
    ) -> None:
        if cache_form not in CACHE_FORMS:
            raise ValueError(f"discussions_cache must be one of {', '.join(CACHE_FORMS)}")
        self.seed, self.account = seed, account
        self.owner, self.repo, self.site_url = owner, repo, site_url
        #: The log's first ``generated`` comment entries are the generated ones.
        self.generated = generated
        self.cache_form = cache_form
        self.posts: list[SandboxDiscussion] = posts or []
        self.comments: list[MadeComment] = comments or []
        self.reactions: list[MadeReaction] = reactions or []
        self._posts = {p.number: p for p in self.posts}
        self._comments = {c.id: c for c in self.comments}
        self._index = _LogIndex()
        self._threads = ThreadCache()

    # -- persistence ---------------------------------------------------------------------------

    def as_json(self) -> dict[str, Any]:
        return {
            **{name: getattr(self, name) for name in _SETTINGS},
            "posts": [asdict(p) for p in self.posts],
            "comments": [asdict(c) for c in self.comments],
            "reactions": [asdict(r) for r in self.reactions],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Conversation:
        return cls(
            **{name: data[name] for name in _SETTINGS},
            posts=[SandboxDiscussion(**p) for p in data.get("posts", [])],
            comments=[MadeComment(**c) for c in data.get("comments", [])],
            reactions=[MadeReaction(**r) for r in data.get("reactions", [])],
        )

    # -- reading -------------------------------------------------------------------------------

    def follow(self, log: dict[str, Any]) -> _LogIndex:
        self._index.follow(log)
        return self._index

    def url(self, number: int) -> str:
        return f"{self.site_url}/discussions/{number}"

    def made(self, number: int) -> SandboxDiscussion | None:
        return self._posts.get(number)

    def logged(self, log: dict[str, Any], number: int) -> dict[str, Any] | None:
        index = self.follow(log)
        position = index.post_at.get(number)
        return index.posts[position] if position is not None else None

    def exists(self, log: dict[str, Any], number: int) -> bool:
        return number in self._posts or self.logged(log, number) is not None

    def thread(self, log: dict[str, Any], number: int) -> Thread | None:
        """The generated part of post ``number``'s thread (None for a post made since)."""
        if number in self._posts:
            return None
        post = self.logged(log, number)
        if post is None:
            return None
        index = self._index
        positions = self._generated_positions(number)
        key = (number, len(positions))
        found = self._threads.get(key)
        if found is None:
            entries = [(p, index.comments[p]) for p in positions]
            found = derive_thread(self.seed, self.account, post, entries)
            self._threads.put(key, found)
        return found

    def info(self, log: dict[str, Any], number: int) -> PostInfo | None:
        """Discussion ``number``'s title, URL, time, channel and accounts, or None."""
        made = self._posts.get(number)
        if made is not None:
            return PostInfo(
                number,
                made.title,
                made.url,
                made.created_at,
                made.channel,
                made.login,
                made.author,
            )
        entry = self.logged(log, number)
        if entry is None:
            return None
        return PostInfo(
            number,
            str(entry.get("title", "")),
            str(entry.get("url") or self.url(number)),
            str(entry.get("timestamp") or entry.get("created_at") or ""),
            str(entry.get("channel", "")),
            self.account,
            str(entry.get("author", "")),
        )

    def body(self, log: dict[str, Any], number: int) -> str:
        made = self._posts.get(number)
        if made is not None:
            return made.body
        post = self.logged(log, number)
        if post is None:
            return ""
        thread = self._threads.get((number, len(self._generated_positions(number))))
        return thread.body if thread else derive_body(self.seed, post)

    def _generated_positions(self, number: int) -> list[int]:
        return [p for p in self._index.comments_of.get(number, []) if p < self.generated]

    def comment_authors(self, log: dict[str, Any], number: int) -> list[tuple[str, str]]:
        """(login, time) of the comments the state files show on post ``number``, oldest
        first, read without deriving their bodies."""
        index = self.follow(log)
        found = [
            (self.account, str(index.comments[p].get("timestamp") or ""))
            for p in self._generated_positions(number)
        ]
        if number in self._posts:
            found = []
        found += [
            (c.login, c.created_at) for c in self.comments if c.number == number and c.published
        ]
        return found

    def comments_of(self, log: dict[str, Any], number: int, *, published: bool = False):
        """Every comment of post ``number``, oldest first (only what the state files show
        with ``published``)."""
        thread = self.thread(log, number)
        found = list(thread.comments) if thread else []
        found += [c for c in self.comments if c.number == number and (c.published or not published)]
        return found

    def comment(self, log: dict[str, Any], comment_id: int) -> Comment | None:
        """A comment by its REST id."""
        if comment_id >= MADE_IDS:
            return self._comments.get(comment_id)
        position = comment_id - GENERATED_IDS
        index = self.follow(log)
        if not 0 <= position < min(self.generated, len(index.comments)):
            return None
        number = index.comments[position].get("discussion_number")
        thread = self.thread(log, number) if isinstance(number, int) else None
        return next((c for c in thread.comments if c.id == comment_id), None) if thread else None

    def reactions_on(self, subject: str, generated: dict[str, int]) -> dict[str, list[str]]:
        """Who reacted to ``subject`` with what: the generated ones (by the network's account)
        and the ones given since."""
        found: dict[str, list[str]] = {
            content: [self.account] * count for content, count in generated.items() if count
        }
        for reaction in self.reactions:
            if reaction.subject == subject and reaction.active:
                found.setdefault(reaction.content, []).append(reaction.login)
        return found

    def discussion_reactors(self, log: dict[str, Any], number: int) -> dict[str, list[str]]:
        """Who reacted to Discussion ``number`` with what. Its 👍 and 👎 are the log's up- and
        downvotes (less the reactions given since that the log already counts)."""
        thread = self.thread(log, number)
        generated = dict(thread.reactions) if thread else {}
        post = self.logged(log, number)
        if post is not None:
            node = discussion_node_id(number)
            counted = Counter(r.content for r in self.reactions if r.subject == node and r.counted)
            for content, key in (("THUMBS_UP", "upvotes"), ("THUMBS_DOWN", "downvotes")):
                generated[content] = max(0, int(post.get(key) or 0) - counted[content])
        return self.reactions_on(discussion_node_id(number), generated)

    def listing(self, log: dict[str, Any]) -> list[tuple[str, str, int, str]]:
        """(created, updated, number, channel) of every Discussion."""
        index = self.follow(log)
        last_made: dict[int, str] = {}
        for made in self.comments:
            last_made[made.number] = max(last_made.get(made.number, ""), made.created_at)
        rows = []
        for post in index.posts:
            number = post.get("number")
            if not isinstance(number, int) or number in self._posts:
                continue
            created = str(post.get("timestamp") or post.get("created_at") or "")
            updated = max(created, index.last_comment.get(number, ""), last_made.get(number, ""))
            rows.append((created, updated, number, str(post.get("channel") or "")))
        for discussion in self.posts:
            updated = max(discussion.created_at, last_made.get(discussion.number, ""))
            rows.append((discussion.created_at, updated, discussion.number, discussion.channel))
        return rows

    def next_number(self, log: dict[str, Any], at_least: int = 0) -> int:
        index = self.follow(log)
        numbers = [at_least, *self._posts, *index.post_at]
        return max(numbers) + 1

    def next_comment_id(self) -> int:
        return max([MADE_IDS, *(c.id + 1 for c in self.comments)])

    def seen(self, post: SandboxDiscussion) -> DiscussionSeen:
        """``post`` with its comments and reactions as they are now."""
        comments = [
            {
                "id": c.node_id,
                "url": f"{post.url}#discussioncomment-{c.id}",
                "body": c.body,
                "createdAt": c.created_at,
                "author": {"login": c.login},
            }
            for c in self.comments
            if c.number == post.number
        ]
        reactions = [
            (r.login, r.content) for r in self.reactions if r.subject == post.node_id and r.active
        ]
        return DiscussionSeen(**asdict(post), comments=comments, reactions=reactions)

    # -- writing -------------------------------------------------------------------------------

    def add_post(self, post: SandboxDiscussion) -> SandboxDiscussion:
        self.posts.append(post)
        self._posts[post.number] = post
        return post

    def add_comment(self, comment: MadeComment) -> MadeComment:
        self.comments.append(comment)
        self._comments[comment.id] = comment
        return comment

    def react(
        self, subject: str, number: int, login: str, content: str, stamp: str, due: str, on: bool
    ) -> bool:
        """Give (``on``) or take back a reaction; False when nothing changed."""
        mine = next(
            (
                r
                for r in self.reactions
                if (r.subject, r.login, r.content) == (subject, login, content)
            ),
            None,
        )
        if mine is None:
            if not on:
                return False
            self.reactions.append(MadeReaction(subject, number, login, content, stamp, due_at=due))
            return True
        if mine.active == on:
            return False
        mine.active, mine.due_at = on, due
        if on:
            mine.created_at = stamp
        return True

    def due(
        self, stamp: str | None
    ) -> tuple[list[SandboxDiscussion], list[MadeComment], list[MadeReaction]]:
        """What the state files should show by ``stamp`` (None: by now or ever) and do not yet;
        marked as shown."""
        last = "\uffff" if stamp is None else stamp
        posts = [p for p in self.posts if not p.published and p.due_at <= last]
        comments = [c for c in self.comments if not c.published and c.due_at <= last]
        reactions = [r for r in self.reactions if r.active != r.counted and r.due_at <= last]
        for post in posts:
            post.published = True
        for comment in comments:
            comment.published = True
        for reaction in reactions:
            reaction.counted = reaction.active
        return posts, comments, reactions

    def pending(self) -> bool:
        return (
            any(not p.published for p in self.posts)
            or any(not c.published for c in self.comments)
            or any(r.active != r.counted for r in self.reactions)
        )

    # -- the derived documents -----------------------------------------------------------------

    def index_doc(self, log: dict[str, Any]) -> dict[str, Any]:
        """``discussions_index.json``: every post of the log by number."""
        return {
            str(post["number"]): {
                "id": discussion_node_id(post["number"]),
                "number": post["number"],
                "title": post.get("title", ""),
                "channel": post.get("channel", ""),
            }
            for post in log.get("posts", [])
            if isinstance(post.get("number"), int)
        }

    def cache_doc(self, log: dict[str, Any], stamp: str) -> dict[str, Any]:
        """``discussions_cache.json``: the latest posts of the log, newest first, in the
        conversation's ``cache_form``."""
        posts = log.get("posts", [])[-CACHE_POSTS:]
        discussions = [self._cached(log, post) for post in reversed(posts)]
        return {
            "_meta": {
                "scraped_at": stamp,
                "total": len(discussions),
                "owner": self.owner,
                "repo": self.repo,
            },
            "discussions": discussions,
        }

    def _cached(self, log: dict[str, Any], post: dict[str, Any]) -> dict[str, Any]:
        number = post["number"]
        made = self._posts.get(number)
        authors = self.comment_authors(log, number)
        entry: dict[str, Any] = {
            "number": number,
            "title": post.get("title", ""),
            "body": self.body(log, number),
            "author_login": made.login if made else self.account,
            "category_slug": post.get("channel", ""),
            "created_at": post.get("timestamp", ""),
            "url": post.get("url") or self.url(number),
            "upvotes": post.get("upvotes", 0),
            "downvotes": post.get("downvotes", 0),
            "comment_count": post.get("commentCount", len(authors)),
            "comment_authors": [
                {"login": login, "created_at": stamp} for login, stamp in authors[:CACHE_AUTHORS]
            ],
        }
        if self.cache_form == "full":
            comments = self.comments_of(log, number, published=True)
            entry["comments"] = [
                {
                    "body": c.body,
                    "author_login": c.login,
                    "created_at": c.created_at,
                    "id": c.node_id,
                    "parent_id": comment_node_id(c.parent_id) if c.parent_id else None,
                }
                for c in comments
            ]
        return entry
