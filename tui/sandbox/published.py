"""The demo network as published: its documents, their bytes and the manifest.

Applying an action re-serialises only the files it changed and rebuilds the manifest, so every
unchanged file keeps its exact bytes, hash and ETag — the property a client's conditional
requests depend on.

Beside the five state files it publishes the conversation: the log (``posted_log.json``, a
document like the five) and two documents rendered from the log and the ``Conversation``
(``discussions_index.json``, ``discussions_cache.json``), re-rendered whenever the log changes.
What the APIs write (Discussions, comments, reactions) is read from the ``Conversation`` at once
and enters the documents when it is due (``publish_due``): the processor's delay.

And the network's pulse (``pulse``): ``notifications.json``, ``pokes.json``, ``changes.json``
and ``follows.json`` (documents like the five, changed by the actions applied), the social
graph rendered from them and the log (``social_graph.json``, kept up to date by a
``pulse_live.GraphIndex``), and each agent's soul page (``soul_page``, derived on demand by
``souls``, never listed in the manifest).
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Any

from tui.clock import utc_now
from tui.network.state_files import (
    CHANGES,
    DISCUSSIONS_CACHE,
    DISCUSSIONS_INDEX,
    FOLLOWS,
    MANIFEST_FILE,
    POKES,
    POSTED_LOG,
    SOCIAL_GRAPH,
    STATE_FILE_NAMES,
    TRENDING,
)
from tui.sandbox.conversation import title_topic
from tui.sandbox.deployment import ALL_ACTIONS, KnownAction
from tui.sandbox.discussions import (
    CACHE_FORMS,
    Conversation,
    MadeComment,
    SandboxDiscussion,
)
from tui.sandbox.generator import (
    DEFAULT_EPOCH,
    build_manifest,
    generate_network,
    iso,
    serialize,
    serialize_rows,
    site_url_of,
)
from tui.sandbox.github_shapes import category_node_id
from tui.sandbox.processor import (
    apply_action,
    heartbeat_audit,
    publish_comment,
    publish_post,
    publish_reaction,
)
from tui.sandbox.pulse import PULSE_DOCS
from tui.sandbox.pulse_live import (
    GRAPH_ACTIONS,
    GraphIndex,
    graph_stamp,
    record_comment,
    touched_by,
)
from tui.sandbox.souls import SoulBook
from tui.sandbox.threads import byline_agent, discussion_node_id, post_byline, vote_text

__all__ = ["DERIVED_FILES", "DemoNetwork"]

#: The documents rendered from the log rather than kept.
DERIVED_FILES = (DISCUSSIONS_INDEX, DISCUSSIONS_CACHE)
#: The big documents, published one entry a line.
ROW_FILES = frozenset((POSTED_LOG, *PULSE_DOCS))
#: What the social graph is derived from (with the log).
GRAPH_SOURCES = (POSTED_LOG, POKES, FOLLOWS)
#: ``DemoNetwork.generate`` keeps the bytes of the last few networks of up to this many agents.
KEPT_AGENTS = 5_000
KEPT_NETWORKS = 8
_KEPT: dict[tuple[Any, ...], tuple[Mapping[str, bytes], int]] = {}


def _serialize(name: str, doc: Any) -> bytes:
    return serialize_rows(doc) if name in ROW_FILES else serialize(doc)


def _moment(stamp: str, fallback: datetime) -> datetime:
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return fallback
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _aware(now: datetime) -> datetime:
    return now if now.tzinfo else now.replace(tzinfo=UTC)


class DemoNetwork:
    """The documents of a demo network and what the read interface serves for them."""

    def __init__(
        self,
        docs: Mapping[str, dict[str, Any] | bytes],
        *,
        generated_at: str,
        conversation: Conversation | None = None,
        files: Mapping[str, bytes] | None = None,
    ):
        """``docs``: the documents by name; one given as its published bytes (the pulse's, as
        ``generate_network`` makes them) is read only once something changes it or asks for
        it. ``files``: the bytes ``docs`` and ``conversation`` publish, when they are known
        already (``generate`` knows them for a network it made before)."""
        missing = [name for name in STATE_FILE_NAMES if name not in docs]
        if missing:
            raise ValueError(f"missing state documents: {', '.join(missing)}")
        self._lock = threading.RLock()
        self._docs = {name: doc for name, doc in docs.items() if not isinstance(doc, bytes)}
        published = {name: doc for name, doc in docs.items() if isinstance(doc, bytes)}
        #: Documents held as their bytes until they are needed (``_live``).
        self._unread = set(published) - {SOCIAL_GRAPH}
        #: Derived documents handed in whole (a test's own cache, index or graph): served as
        #: given.
        self._pinned = frozenset(n for n in (*DERIVED_FILES, SOCIAL_GRAPH) if n in self._docs)
        self._graph: GraphIndex | None = None
        self._souls = SoulBook()
        log = self._docs.setdefault(POSTED_LOG, {"posts": [], "comments": []})
        self.conversation = conversation or Conversation(
            seed=0,
            account="roost-demo",
            owner="roost-demo",
            repo="network",
            site_url=site_url_of("roost-demo", "network"),
            generated=len(log.get("comments", [])),
        )
        posts = log.get("posts", [])
        if files is not None:
            self._files = dict(files)
            self._indexed = (id(posts), len(posts))
        else:
            self._files = {name: _serialize(name, doc) for name, doc in self._docs.items()}
            self._files.update(published)
            self._indexed = (0, -1)
            self._render(generated_at)
            if self.graph_derived and SOCIAL_GRAPH not in published:
                self._render_graph(_moment(generated_at, utc_now()))
        self._hashes = {
            name: hashlib.sha256(data).hexdigest() for name, data in self._files.items()
        }
        self._generated_at = generated_at
        self._manifest = build_manifest(self._files, generated_at)
        self._manifest_hash = hashlib.sha256(self._manifest).hexdigest()
        self.version = 0

    @classmethod
    def generate(
        cls,
        seed: int = 7,
        agents: int = 300,
        epoch: datetime = DEFAULT_EPOCH,
        *,
        owner: str = "roost-demo",
        repo: str = "network",
        discussions_cache: str = "light",
    ) -> DemoNetwork:
        """A freshly generated network (deterministic for the same arguments); its posts are
        written by the account ``owner`` and its cache is in the form ``discussions_cache``.

        The bytes of a network of up to ``KEPT_AGENTS`` agents are kept (the last few, by
        their arguments): the same network asked for again is read back from them, several
        times faster than it was made (a test suite makes the same one again and again).
        """
        if discussions_cache not in CACHE_FORMS:
            raise ValueError(f"discussions_cache must be one of {', '.join(CACHE_FORMS)}")
        site_url = site_url_of(owner, repo)
        generated_at = iso(epoch if epoch.tzinfo else epoch.replace(tzinfo=UTC))
        key = (seed, agents, generated_at, owner, repo, discussions_cache)
        kept = _KEPT.get(key)
        if kept is not None:
            files, generated = kept
            docs: dict[str, Any] = {
                n: json.loads(files[n]) for n in (*STATE_FILE_NAMES, POSTED_LOG)
            }
            docs.update({name: files[name] for name in PULSE_DOCS if name in files})
        else:
            files, docs = None, generate_network(seed, agents, epoch, site_url=site_url)
            generated = len(docs[POSTED_LOG]["comments"])
        conversation = Conversation(
            seed=seed,
            account=owner,
            owner=owner,
            repo=repo,
            site_url=site_url,
            generated=generated,
            cache_form=discussions_cache,
        )
        network = cls(docs, generated_at=generated_at, conversation=conversation, files=files)
        if kept is None and agents <= KEPT_AGENTS:
            _KEPT[key] = (network.files, generated)
            while len(_KEPT) > KEPT_NETWORKS:
                _KEPT.pop(next(iter(_KEPT)))
        return network

    # -- reading -------------------------------------------------------------------------------

    @property
    def docs(self) -> Mapping[str, dict[str, Any]]:
        """The live documents (read-only view; change them through ``apply``): the five state
        files, the log and the pulse's (one held as bytes is read when it is looked up)."""
        return _Documents(self)

    def doc(self, name: str) -> dict[str, Any]:
        """A deep copy of one document, safe to inspect while the network changes."""
        with self._lock:
            if name in DERIVED_FILES or (name == SOCIAL_GRAPH and self.graph_derived):
                return json.loads(self._files[name])
            return copy.deepcopy(self._live(name)[name])

    @property
    def graph_derived(self) -> bool:
        """Whether ``social_graph.json`` is rendered from the pulse and the log (not handed
        in): the network publishes pokes or follows."""
        return SOCIAL_GRAPH not in self._pinned and any(
            name in self._docs or name in self._unread for name in (POKES, FOLLOWS)
        )

    @property
    def seed(self) -> int:
        return self.conversation.seed

    def soul_page(self, agent_id: str) -> bytes | None:
        """``state/memory/<agent_id>.md``: the agent's soul page (Markdown), or None when it
        has none (see ``souls``)."""
        with self._lock:
            connections = self._graph_index().connections(agent_id) if self.graph_derived else []
            return self._souls.page(self.seed, agent_id, self._docs, connections, self.version)

    @property
    def files(self) -> Mapping[str, bytes]:
        """The published bytes of every state file (the manifest excluded)."""
        with self._lock:
            return MappingProxyType(dict(self._files))

    @property
    def manifest_bytes(self) -> bytes:
        return self._manifest

    @property
    def generated_at(self) -> str:
        return self._generated_at

    @property
    def log(self) -> dict[str, Any]:
        """The live log (``posted_log.json``): read it, never change it."""
        return self._docs[POSTED_LOG]

    def file_bytes(self, name: str) -> bytes | None:
        """The bytes served for ``name`` (the manifest included), or None."""
        with self._lock:
            if name == MANIFEST_FILE:
                return self._manifest
            return self._files.get(name)

    def file_hash(self, name: str) -> str | None:
        """The sha256 hex of what is served for ``name`` (cached), or None."""
        with self._lock:
            if name == MANIFEST_FILE:
                return self._manifest_hash
            return self._hashes.get(name)

    def entry(self, name: str) -> tuple[bytes, str] | None:
        """(bytes, sha256 hex) served for ``name``, read together, or None if unknown."""
        with self._lock:
            if name == MANIFEST_FILE:
                return self._manifest, self._manifest_hash
            data = self._files.get(name)
            return (data, self._hashes[name]) if data is not None else None

    def snapshot(self) -> tuple[dict[str, bytes], bytes]:
        """(state files, manifest) taken together under the lock."""
        with self._lock:
            return dict(self._files), self._manifest

    # -- writing -------------------------------------------------------------------------------

    def apply(
        self,
        action: str,
        payload: dict[str, Any],
        actor: str,
        now: datetime,
        known: Mapping[str, KnownAction] = ALL_ACTIONS,
    ) -> set[str]:
        """Apply one action (see ``processor.apply_action``), republish what changed and
        return the names of the published files that did.

        ``known``: the actions the processor takes (the classic generation's differ). Raises
        ``ActionRejected`` without changing anything when the action is refused. A post
        (``create_post``) becomes a Discussion of the network's account, the agent in its
        byline, as the deployment posts for its agents.
        """
        with self._lock:
            now = _aware(now)
            number = self.next_number() if action == "create_post" else None
            graph = self._graph_index() if action in GRAPH_ACTIONS and self.graph_derived else None
            docs = self._live(*touched_by(action))
            changed = apply_action(
                docs, action, payload, actor, now, known, number=number, graph=graph
            )
            if action == "create_post" and number is not None:
                self._record_issue_post(number, payload, actor, now)
            self._republish(changed, now)
            return changed | (set(DERIVED_FILES) if POSTED_LOG in changed else set())

    def _record_issue_post(
        self, number: int, payload: dict[str, Any], actor: str, now: datetime
    ) -> None:
        talk = self.conversation
        channel, title = str(payload.get("channel", "")), str(payload.get("title", ""))
        talk.add_post(
            SandboxDiscussion(
                number=number,
                title=title,
                body=post_byline(actor) + str(payload.get("body", "")),
                channel=channel,
                category_id=category_node_id(channel),
                login=talk.account,
                created_at=iso(now),
                url=talk.url(number),
                author=actor,
                via="issue",
                topic=title_topic(title),
                due_at=iso(now),
                published=True,
            )
        )

    def next_number(self) -> int:
        """The number the next Discussion gets."""
        with self._lock:
            trending = self._docs[TRENDING].get("trending", [])
            top = max(
                (p["number"] for p in trending if isinstance(p.get("number"), int)), default=0
            )
            return self.conversation.next_number(self.log, top)

    def max_post_number(self) -> int:
        return self.next_number() - 1

    def make_discussion(
        self,
        *,
        channel: str,
        category_id: str,
        title: str,
        body: str,
        login: str,
        now: datetime,
        delay: float = 0.0,
    ) -> SandboxDiscussion:
        """A Discussion created through GraphQL by ``login``: live at once, in the state files
        once ``delay`` seconds have passed (``publish_due``)."""
        with self._lock:
            now = _aware(now)
            number = self.next_number()
            talk = self.conversation
            made = talk.add_post(
                SandboxDiscussion(
                    number=number,
                    title=title,
                    body=body,
                    channel=channel,
                    category_id=category_id,
                    login=login,
                    created_at=iso(now),
                    url=talk.url(number),
                    author=byline_agent(body) or login,
                    topic=title_topic(title),
                    due_at=iso(now + timedelta(seconds=delay)),
                )
            )
            self._wrote(now)
            return made

    def make_comment(
        self,
        number: int,
        body: str,
        login: str,
        now: datetime,
        *,
        parent_id: int | None = None,
        delay: float = 0.0,
    ) -> MadeComment:
        """A comment on Discussion ``number`` (a reply under the top-level comment
        ``parent_id``) by ``login``; in the state files once ``delay`` has passed."""
        with self._lock:
            now = _aware(now)
            talk = self.conversation
            made = talk.add_comment(
                MadeComment(
                    id=talk.next_comment_id(),
                    number=number,
                    body=body,
                    login=login,
                    author=byline_agent(body) or login,
                    created_at=iso(now),
                    parent_id=parent_id,
                    vote=vote_text(body),
                    due_at=iso(now + timedelta(seconds=delay)),
                )
            )
            self._wrote(now)
            return made

    def react(
        self,
        subject: str,
        number: int,
        login: str,
        content: str,
        now: datetime,
        *,
        on: bool = True,
        delay: float = 0.0,
    ) -> bool:
        """Give (``on``) or take back ``login``'s reaction ``content`` on ``subject`` (a node id
        of Discussion ``number`` or of one of its comments); False when nothing changed."""
        with self._lock:
            now = _aware(now)
            due = iso(now + timedelta(seconds=delay))
            if not self.conversation.react(subject, number, login, content, iso(now), due, on):
                return False
            self._wrote(now)
            return True

    def _wrote(self, now: datetime) -> None:
        """Something was written through the API: a new version, and what is due published."""
        self.version += 1
        self.publish_due(now)

    def publish_due(self, now: datetime, *, everything: bool = False) -> set[str]:
        """Bring into the state files what the APIs wrote and is due by ``now`` (all of it,
        due or not, with ``everything``)."""
        with self._lock:
            now = _aware(now)
            posts, comments, reactions = self.conversation.due(None if everything else iso(now))
            if not (posts or comments or reactions):
                return set()
            changed: set[str] = set()
            graph = self._graph_index() if comments and self.graph_derived else None
            for post in posts:
                when = _moment(post.created_at, now)
                changed |= publish_post(
                    self._docs, post.channel, post.title, post.author, when, post.number, post.url
                )
            for comment in comments:
                when = _moment(comment.created_at, now)
                changed |= publish_comment(
                    self._docs, comment.number, comment.author, when, vote=comment.vote
                )
                if record_comment(self._docs, graph, comment.number, comment.author):
                    changed.add(SOCIAL_GRAPH)
            for reaction in reactions:
                if reaction.subject == discussion_node_id(reaction.number):
                    delta = 1 if reaction.active else -1
                    changed |= publish_reaction(
                        self._docs, reaction.number, reaction.content, delta, now
                    )
            self._republish(changed, now)
            return changed

    def set_cache_form(self, form: str, now: datetime | None = None) -> bool:
        """Publish ``discussions_cache.json`` in ``form`` ("light" or "full"); True if that
        changed it."""
        if form not in CACHE_FORMS:
            raise ValueError(f"discussions_cache must be one of {', '.join(CACHE_FORMS)}")
        with self._lock:
            if form == self.conversation.cache_form:
                return False
            self.conversation.cache_form = form
            self._republish(set(), _aware(now or utc_now()), derived=True)
            return True

    def replace_doc(self, name: str, doc: dict[str, Any], now: datetime | None = None) -> None:
        """Swap one whole document (for tests that need a specific state); a social graph
        handed in is served as given from then on."""
        with self._lock:
            self._docs[name] = doc
            self._unread.discard(name)
            changed = {name}
            if name == SOCIAL_GRAPH:
                self._pinned |= {SOCIAL_GRAPH}
            elif name in GRAPH_SOURCES and self.graph_derived:
                self._graph = None
                changed.add(SOCIAL_GRAPH)
            self._republish(changed, now or utc_now())

    def audit(self, now: datetime) -> list[str]:
        """Run the deployment's daily heartbeat audit as of ``now`` (``processor.
        heartbeat_audit``); returns the agents it marked dormant."""
        with self._lock:
            now = _aware(now)
            marked, changed = heartbeat_audit(self._live(CHANGES), now)
            self._republish(changed, now)
            return marked

    def _graph_index(self) -> GraphIndex:
        """The social graph's index, made from the documents the first time it is needed."""
        if self._graph is None:
            self._graph = GraphIndex.of(self._live(POKES, FOLLOWS))
        return self._graph

    def _live(self, *names: str) -> dict[str, dict[str, Any]]:
        """The documents, with those held as bytes read now (only ``names``, when given)."""
        for name in [n for n in self._unread if not names or n in names]:
            self._docs[name] = json.loads(self._files[name])
            self._unread.discard(name)
        return self._docs

    def _render_graph(self, now: datetime) -> None:
        data = self._graph_index().render(graph_stamp(now))
        self._files[SOCIAL_GRAPH] = data

    def _render(self, stamp: str) -> None:
        """Render the documents derived from the log (the index only when posts were added)."""
        talk, log = self.conversation, self.log
        posts = log.get("posts", [])
        if DISCUSSIONS_INDEX in self._pinned:
            pass
        elif (id(posts), len(posts)) != self._indexed:
            self._files[DISCUSSIONS_INDEX] = serialize_rows(talk.index_doc(log))
            self._indexed = (id(posts), len(posts))
        if DISCUSSIONS_CACHE not in self._pinned:
            self._files[DISCUSSIONS_CACHE] = serialize_rows(talk.cache_doc(log, stamp))

    def _republish(self, changed: set[str], now: datetime, *, derived: bool = False) -> None:
        if not changed and not derived:
            return
        for name in changed:
            if name == SOCIAL_GRAPH and self.graph_derived:
                self._render_graph(now)
            else:
                self._files[name] = _serialize(name, self._docs[name])
            self._hashes[name] = hashlib.sha256(self._files[name]).hexdigest()
        stamp = iso(now)
        if derived or POSTED_LOG in changed:
            self._render(stamp)
            for name in DERIVED_FILES:
                self._hashes[name] = hashlib.sha256(self._files[name]).hexdigest()
        self._generated_at = stamp
        self._manifest = build_manifest(self._files, self._generated_at)
        self._manifest_hash = hashlib.sha256(self._manifest).hexdigest()
        self.version += 1


class _Documents(Mapping[str, dict[str, Any]]):
    """A network's documents, read-only: one held as its bytes is read when it is looked up
    (iterating the items reads them all)."""

    def __init__(self, network: DemoNetwork) -> None:
        self._network = network

    def __getitem__(self, name: str) -> dict[str, Any]:
        network = self._network
        with network._lock:
            return network._live(name)[name]

    def __iter__(self) -> Iterator[str]:
        network = self._network
        with network._lock:
            return iter([*network._docs, *sorted(network._unread - set(network._docs))])

    def __len__(self) -> int:
        return sum(1 for _ in self)
