"""The command palette's roost provider: jump to any agent, channel, proposal, post or screen,
and find agents by what their bio says and posts by their title.

Candidates come from the current snapshot (sanitised) and from the bindings (the same registry
the help screen shows). Each result says what it is (``agent``, ``bio``, ``post``…) on its
left; a bio is searched for the words typed (not for scattered letters: a bio is long) and
shown around the match. Matching is our own linear fuzzy match, not ``textual.fuzzy``: that one
enumerates every combination of letter positions (a hostile 10 000-character name would hang
the palette) and parses the candidate as markup when highlighting.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol, runtime_checkable

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from tui.network.store import Snapshot
from tui.tabs import TABS
from tui.ui.screens.base import StateScreen
from tui.ui.screens.trending import post_keys
from tui.untrusted import clean, truncate

__all__ = ["Candidate", "IndexHolder", "PaletteIndex", "RoostCommands", "fuzzy_match"]

CANDIDATE_CHARS = 72  # what is matched and shown of one candidate
BIO_CHARS = 400  # what is searched of a bio
BIO_MIN_QUERY = 3  # a bio is searched once this many characters are typed
BIO_WEIGHT = 0.75  # a bio's match ranks below the same match in a name or title
MAX_HITS = 40  # per search
CHUNK = 2000  # candidates scored between two yields to the event loop


@dataclass(frozen=True, slots=True)
class Candidate:
    kind: str  # screen | action | agent | bio | channel | proposal | post
    text: str  # clean, short: what is matched and shown
    lower: str
    tab: str | None = None  # where to jump
    key: str | None = None  # what to select there
    run: Callable[[], object] | None = None  # for actions


def fuzzy_match(query: str, candidate: str) -> tuple[float, tuple[int, ...]]:
    """Score ``candidate`` (already lower-cased) for lower-cased ``query``: (0..1, offsets).

    A substring scores highest (more at the start or at a word start); otherwise the leftmost
    subsequence, scored by how few groups it splits into. Linear in the candidate's length.
    """
    if not query:
        return 0.0, ()
    at = candidate.find(query)
    if at >= 0:
        start_bonus = 0.2 if at == 0 else (0.1 if not candidate[at - 1].isalnum() else 0.0)
        exact = 0.1 if len(query) == len(candidate) else 0.0
        return 0.6 + start_bonus + exact + 0.1 * len(query) / len(candidate), tuple(
            range(at, at + len(query))
        )
    offsets: list[int] = []
    position = 0
    for letter in query:
        if letter == " ":
            continue
        found = candidate.find(letter, position)
        if found < 0:
            return 0.0, ()
        offsets.append(found)
        position = found + 1
    if not offsets or offsets[-1] - offsets[0] > max(12, 3 * len(offsets)):
        return 0.0, ()  # letters scattered over a long text: not what was meant
    groups = 1 + sum(1 for a, b in zip(offsets, offsets[1:], strict=False) if b != a + 1)
    compact = 1.0 - (groups - 1) / max(1, len(offsets))
    return 0.1 + 0.4 * compact * (len(offsets) / (len(offsets) + 2)), tuple(offsets)


def _candidate(
    kind: str,
    text: str,
    *,
    tab: str | None = None,
    key: str | None = None,
    run: Callable[[], object] | None = None,
) -> Candidate:
    shown = truncate(clean(text), BIO_CHARS if kind == "bio" else CANDIDATE_CHARS)
    return Candidate(kind, shown, shown.lower(), tab=tab, key=key, run=run)


class PaletteIndex:
    """Candidates built once per snapshot generation (cheap to search many times)."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.generation = snapshot.generation
        self.items: list[Candidate] = []
        agents = snapshot.agents
        if agents is not None:
            for agent_id, agent in agents.agents.items():
                self.items.append(
                    _candidate(
                        "agent", f"{agent_id} \u00b7 {agent.name}", tab="agents", key=agent_id
                    )
                )
            for agent_id, agent in agents.agents.items():
                if agent.bio:
                    self.items.append(_candidate("bio", agent.bio, tab="agents", key=agent_id))
        channels = snapshot.channels
        if channels is not None:
            for slug, channel in channels.channels.items():
                self.items.append(
                    _candidate(
                        "channel", f"#{slug} \u00b7 {channel.name}", tab="channels", key=slug
                    )
                )
        seeds = snapshot.seeds
        if seeds is not None and seeds.proposals:
            for proposal in seeds.proposals:
                self.items.append(
                    _candidate(
                        "proposal",
                        f"{proposal.id} \u00b7 {proposal.text}",
                        tab="seeds",
                        key=proposal.id,
                    )
                )
        log = snapshot.posted_log  # read once the Posts tab has been shown
        if log is not None:
            for logged in log.posts:
                if logged.number is not None:
                    key = f"#{logged.number}"
                    text = f"{key} \u00b7 {logged.title}"
                    self.items.append(_candidate("post", text, tab="posts", key=key))
        elif snapshot.trending is not None:  # until then, the trending posts' titles
            keys = post_keys(snapshot.trending.trending)
            for key, post in zip(keys, snapshot.trending.trending, strict=True):
                text = f"{key} \u00b7 {post.title}"
                self.items.append(_candidate("trending", text, tab="trending", key=key))


@runtime_checkable
class IndexHolder(Protocol):
    """An app that keeps the palette's index between openings (RoostApp does)."""

    palette_index: PaletteIndex | None


_KIND_LABEL = {
    "screen": "screen  ",
    "action": "action  ",
    "agent": "agent   ",
    "bio": "bio     ",
    "trending": "post    ",
    "channel": "channel ",
    "proposal": "proposal",
    "post": "post    ",
}
_KIND_HELP = {
    "screen": "Switch to this tab",
    "action": "Run this action (see ? for its key)",
    "agent": "Open the agent on the Agents tab",
    "bio": "An agent whose bio says this: open it on the Agents tab",
    "trending": "Show the post on the Trending tab",
    "channel": "Open the channel on the Channels tab",
    "proposal": "Open the proposal on the Seeds tab",
    "post": "Show the post on the Posts tab (enter reads it)",
}


def _display(candidate: Candidate, offsets: Sequence[int], match_style: str) -> Content:
    shown, lead = candidate.text, ""
    if candidate.kind == "bio":  # the agent, then the bio around the match
        lead = f"{truncate(clean(candidate.key or ''), 30)} \u00b7 "
        room = CANDIDATE_CHARS - len(lead)
        start = max(0, min(offsets, default=0) - room // 3) if len(shown) > room else 0
        shown = ("\u2026" if start else "") + truncate(shown[start:], room - (1 if start else 0))
        offsets = [o - start + (1 if start else 0) for o in offsets if o >= start]
    text = Content(shown)
    for offset in offsets:
        if offset < len(shown):
            text = text.stylize(match_style, offset, offset + 1)
    return Content.assemble((_KIND_LABEL[candidate.kind], "dim"), " ", lead, text)


class RoostCommands(Provider):
    """Screens, actions, agents, channels, proposals and posts by fuzzy name; agents by bio."""

    def _tab_screen(self) -> StateScreen | None:
        """The tab screen under the palette."""
        return next(
            (s for s in reversed(self.app.screen_stack) if isinstance(s, StateScreen)), None
        )

    def _app_candidates(self) -> list[Candidate]:
        from tui.ui.screens.help import key_sections  # deferred: off the start path

        items = [_candidate("screen", f"{tab.title} ({tab.key})", tab=tab.id) for tab in TABS]
        for _title, entries in key_sections(self.app, self._tab_screen()):
            for entry in entries:
                action = entry.binding.action
                if entry.node is None or action.startswith(("switch_tab", "command_palette")):
                    continue  # (node None: the widget is not mounted yet)
                run = partial(self.app.run_action, action, entry.node)
                items.append(_candidate("action", f"{entry.description} ({entry.key})", run=run))
        return items

    def _data_index(self) -> PaletteIndex:
        under = self._tab_screen()
        snapshot = under.snapshot if under is not None else Snapshot.empty()
        holder = self.app if isinstance(self.app, IndexHolder) else None
        index = holder.palette_index if holder is not None else None
        if index is None or index.generation != snapshot.generation:
            index = PaletteIndex(snapshot)
            if holder is not None:
                holder.palette_index = index
        return index

    def _command(self, candidate: Candidate) -> Callable[[], object]:
        if candidate.run is not None:
            return candidate.run
        if candidate.tab is None:
            return lambda: None
        return partial(self._jump, candidate.tab, candidate.key)

    def _jump(self, tab_id: str, key: str | None) -> None:
        self.app.post_message(StateScreen.JumpRequested(tab_id, key))

    async def discover(self) -> Hits:
        for candidate in self._app_candidates():
            yield DiscoveryHit(
                _display(candidate, (), "bold"),
                self._command(candidate),
                text=candidate.text,
                help=_KIND_HELP[candidate.kind],
            )

    async def search(self, query: str) -> Hits:
        needle = clean(query).lower().strip()
        if not needle:
            return
        best: list[tuple[float, int, Candidate, tuple[int, ...]]] = []
        counter = 0

        def consider(candidate: Candidate) -> None:
            nonlocal counter
            if candidate.kind == "bio":  # the words typed, never scattered letters
                at = candidate.lower.find(needle) if len(needle) >= BIO_MIN_QUERY else -1
                if at < 0:
                    return
                score, offsets = fuzzy_match(needle, candidate.lower)
                score *= BIO_WEIGHT
            else:
                score, offsets = fuzzy_match(needle, candidate.lower)
            if score <= 0:
                return
            if candidate.kind != "bio" and (candidate.key or "").lower() == needle:
                score += 0.3  # the exact id or slug first
            counter += 1
            item = (score, -counter, candidate, offsets)
            if len(best) < MAX_HITS:
                heapq.heappush(best, item)
            elif item[:2] > best[0][:2]:
                heapq.heapreplace(best, item)

        for candidate in self._app_candidates():
            consider(candidate)
        items = self._data_index().items
        for start in range(0, len(items), CHUNK):
            for candidate in items[start : start + CHUNK]:
                consider(candidate)
            await asyncio.sleep(0)  # stay responsive; a newer keystroke cancels this search
        style = "bold reverse"
        for score, _order, candidate, offsets in sorted(best, key=lambda i: i[:2], reverse=True):
            yield Hit(
                min(1.0, score),
                _display(candidate, offsets, style),
                self._command(candidate),
                text=candidate.text,
                help=_KIND_HELP[candidate.kind],
            )
