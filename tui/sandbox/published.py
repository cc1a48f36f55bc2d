"""The demo network as published: its documents, their bytes and the manifest.

Applying an action re-serialises only the files it changed and rebuilds the manifest, so every
unchanged file keeps its exact bytes, hash and ETag — the property a client's conditional
requests depend on.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any

from tui.clock import utc_now
from tui.network.state_files import MANIFEST_FILE, STATE_FILE_NAMES, TRENDING
from tui.sandbox.deployment import ALL_ACTIONS, KnownAction
from tui.sandbox.generator import (
    DEFAULT_EPOCH,
    build_manifest,
    generate_state,
    iso,
    serialize,
)
from tui.sandbox.processor import apply_action, publish_comment, publish_post

__all__ = ["DemoNetwork"]


class DemoNetwork:
    """The documents of a demo network and what the read interface serves for them."""

    def __init__(self, docs: dict[str, dict[str, Any]], *, generated_at: str):
        missing = [name for name in STATE_FILE_NAMES if name not in docs]
        if missing:
            raise ValueError(f"missing state documents: {', '.join(missing)}")
        self._lock = threading.RLock()
        self._docs = docs
        self._files: dict[str, bytes] = {name: serialize(doc) for name, doc in docs.items()}
        self._hashes = {
            name: hashlib.sha256(data).hexdigest() for name, data in self._files.items()
        }
        self._generated_at = generated_at
        self._manifest = build_manifest(self._files, generated_at)
        self._manifest_hash = hashlib.sha256(self._manifest).hexdigest()
        self.version = 0

    @classmethod
    def generate(
        cls, seed: int = 7, agents: int = 300, epoch: datetime = DEFAULT_EPOCH
    ) -> DemoNetwork:
        """A freshly generated network (deterministic for the same arguments)."""
        return cls(generate_state(seed=seed, agents=agents, epoch=epoch), generated_at=iso(epoch))

    # -- reading -------------------------------------------------------------------------------

    @property
    def docs(self) -> Mapping[str, dict[str, Any]]:
        """The live documents (read-only view; change them through ``apply``)."""
        return MappingProxyType(self._docs)

    def doc(self, name: str) -> dict[str, Any]:
        """A deep copy of one document, safe to inspect while the network changes."""
        with self._lock:
            return copy.deepcopy(self._docs[name])

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
        """Apply one action (see ``processor.apply_action``) and republish what changed.

        ``known``: the actions the processor takes (the classic generation's differ). Raises
        ``ActionRejected`` without changing anything when the action is refused.
        """
        with self._lock:
            changed = apply_action(self._docs, action, payload, actor, now, known)
            self._republish(changed, now)
            return changed

    def add_post(
        self, channel: str, title: str, actor: str, now: datetime, number: int, url: str
    ) -> set[str]:
        """A Discussion created through the API, as the state shows it (``publish_post``)."""
        with self._lock:
            changed = publish_post(self._docs, channel, title, actor, now, number, url)
            self._republish(changed, now)
            return changed

    def add_comment(self, number: int, actor: str, now: datetime) -> set[str]:
        """A comment on Discussion ``number``, as the state counts it (``publish_comment``)."""
        with self._lock:
            changed = publish_comment(self._docs, number, actor, now)
            self._republish(changed, now)
            return changed

    def max_post_number(self) -> int:
        with self._lock:
            numbers = [
                post.get("number")
                for post in self._docs[TRENDING].get("trending", [])
                if isinstance(post.get("number"), int)
            ]
            return max(numbers, default=0)

    def replace_doc(self, name: str, doc: dict[str, Any], now: datetime | None = None) -> None:
        """Swap one whole document (for tests that need a specific state)."""
        with self._lock:
            self._docs[name] = doc
            self._republish({name}, now or utc_now())

    def _republish(self, changed: set[str], now: datetime) -> None:
        if not changed:
            return
        for name in changed:
            self._files[name] = serialize(self._docs[name])
            self._hashes[name] = hashlib.sha256(self._files[name]).hexdigest()
        self._generated_at = iso(now)
        self._manifest = build_manifest(self._files, self._generated_at)
        self._manifest_hash = hashlib.sha256(self._manifest).hexdigest()
        self.version += 1
