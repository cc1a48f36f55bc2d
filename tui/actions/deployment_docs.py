"""What the deployment publishes about posting to it, read without a token from the read URL.

* ``{root}/skill.json``: its action contract (``tui/actions/contract.py``), which builds the
  catalog;
* ``{root}/state/manifest.json``: the repository's node id and the Discussion category of each
  channel (``repo_id``, ``category_ids``), which a post as a Discussion needs;
* the durable receipts of actions: ``state/inbox/issue-N.json`` (queued),
  ``state/inbox/processed/issue-N.json`` (applied), ``state/inbox/rejected/issue-N.json``
  (rejected), or the URL templates the contract gives for them (``onramp.receipts``).

``{root}`` is the read URL without a trailing ``/state``: for a raw repository URL
(``https://raw.githubusercontent.com/OWNER/REPO/main``) the repository's root. All of it goes
through the read side's hardened fetch, conditionally, and never carries the token. Receipt URLs
are only followed on the read URL's own origin: a contract cannot send roost's requests
elsewhere.

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui.actions.catalog import ActionSpec
from tui.actions.contract import Contract, Receipts, build_catalog, parse_skill
from tui.actions.token import same_origin
from tui.network.disk_cache import DiskCache
from tui.network.side_files import SideFile
from tui.untrusted import clean_line

if TYPE_CHECKING:
    import httpx

__all__ = [
    "RECEIPT_STATES",
    "DeploymentDocs",
    "RepoManifest",
    "deployment_root",
    "parse_repo_manifest",
]

#: The receipts of one action, in the order they are asked for (the final ones first).
RECEIPT_STATES: tuple[str, ...] = ("applied", "rejected", "queued")
#: Where the receipts are when the contract gives no template (relative to the root).
DEFAULT_RECEIPTS = Receipts(
    queued="{root}/state/inbox/issue-{issue_number}.json",
    applied="{root}/state/inbox/processed/issue-{issue_number}.json",
    rejected="{root}/state/inbox/rejected/issue-{issue_number}.json",
)
_NODE_ID = re.compile(r"^[A-Za-z0-9_=+/-]{1,100}$")
_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def deployment_root(read_url: str) -> str:
    """The folder that holds ``skill.json`` and ``state/``."""
    root = read_url.rstrip("/")
    return root[: -len("/state")] if root.endswith("/state") else root


@dataclass(frozen=True)
class RepoManifest:
    """``state/manifest.json``: where posts go. ``categories`` maps a channel slug to the node id
    of its Discussion category."""

    repo_id: str
    categories: Mapping[str, str]
    owner: str | None = None
    repo: str | None = None


def parse_repo_manifest(document: Any) -> RepoManifest:
    """The manifest's ``repo_id`` and ``category_ids``; ``ValueError`` when it has none."""
    if not isinstance(document, Mapping):
        raise ValueError("state/manifest.json is not a JSON object")
    repo_id = document.get("repo_id")
    if not isinstance(repo_id, str) or not _NODE_ID.fullmatch(repo_id):
        raise ValueError("state/manifest.json has no repo_id")
    raw = document.get("category_ids")
    categories = {
        slug: node
        for slug, node in (raw.items() if isinstance(raw, Mapping) else ())
        if isinstance(slug, str)
        and _SLUG.fullmatch(slug)
        and isinstance(node, str)
        and _NODE_ID.fullmatch(node)
    }
    owner, repo = document.get("owner"), document.get("repo")
    return RepoManifest(
        repo_id=repo_id,
        categories=categories,
        owner=owner if isinstance(owner, str) and _SLUG.fullmatch(owner) else None,
        repo=repo if isinstance(repo, str) and _SLUG.fullmatch(repo) else None,
    )


class DeploymentDocs:
    """The deployment's contract and manifest (kept fresh by :meth:`refresh`) and where the
    receipts of an action are. ``client`` is a read client (no token); one is made, and closed
    by :meth:`aclose`, when none is given."""

    def __init__(
        self,
        read_url: str,
        *,
        repo: str | None = None,
        client: httpx.AsyncClient | None = None,
        cache: DiskCache | None = None,
    ):
        self.read_url = read_url
        self.root = deployment_root(read_url)
        self.repo = repo
        self._client = client
        self._own_client = client is None
        self.skill: SideFile[Contract] = SideFile(
            f"{self.root}/skill.json", parse_skill, cache=cache, cache_name="skill.json"
        )
        self.manifest: SideFile[RepoManifest] = SideFile(
            f"{self.root}/state/manifest.json",
            parse_repo_manifest,
            cache=cache,
            cache_name="repo-manifest.json",
        )
        self._reported: set[str] = set()
        #: The documents were asked for in this run (whatever the answer).
        self.asked = False

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx  # deferred: off the start path

            # fetch() follows redirects, and only within the read URL's origin
            self._client = httpx.AsyncClient(timeout=30.0, follow_redirects=False)
        return self._client

    async def aclose(self) -> None:
        if self._own_client and self._client is not None:
            await self._client.aclose()

    async def refresh(self) -> bool:
        """Ask for newer copies of both documents; True when either changed."""
        try:
            skill = await self.skill.refresh(self.client)
            manifest = await self.manifest.refresh(self.client)
        finally:
            self.asked = True
        return skill or manifest

    def load_cached(self) -> None:
        """The disk cache's copies, before any request (a start without the network)."""
        self.skill.load_cached()
        self.manifest.load_cached()

    @property
    def contract(self) -> Contract | None:
        return self.skill.value

    def catalog(self, overrides: Mapping[str, Any] | None = None) -> dict[str, ActionSpec]:
        """The merged catalog: config tables > the contract > built-in (``ValueError`` names a
        bad config key)."""
        return build_catalog(self.contract, overrides)

    def new_notices(self) -> list[str]:
        """What to tell the person about the documents, each thing once per run: a document
        that was ignored, and what the contract holds that roost does not check."""
        found = [p for p in (self.skill.problem, self.manifest.problem) if p]
        if self.contract is not None:
            found += [f"skill.json: {n}" for n in self.contract.notices]
        fresh = [n for n in found if n not in self._reported]
        self._reported.update(fresh)
        return fresh

    # -- receipts ------------------------------------------------------------------------------

    def has_receipt_templates(self) -> bool:
        contract = self.contract
        return contract is not None and contract.receipts is not None

    def receipt_urls(self, number: int) -> dict[str, str]:
        """status → URL of the receipt of issue ``number``: the contract's templates (kept on
        the read URL's origin), else the default layout."""
        owner, _, name = (self.repo or "").partition("/")
        if not name and self.contract is not None and self.contract.base_repo:
            owner, _, name = self.contract.base_repo.partition("/")
        templates = self.contract.receipts if self.contract is not None else None
        urls: dict[str, str] = {}
        for status in RECEIPT_STATES:
            template = getattr(templates, status, None) if templates is not None else None
            url = None
            if template and owner and name:
                url = (
                    template.replace("{owner}", owner)
                    .replace("{repo}", name)
                    .replace("{issue_number}", str(number))
                )
                if not same_origin(url, self.root) or "{" in url:
                    url = None
            if url is None:
                url = getattr(DEFAULT_RECEIPTS, status).format(root=self.root, issue_number=number)
            urls[status] = url
        return urls


def describe_manifest_problem(docs: DeploymentDocs) -> str:
    """Why no Discussion can be posted yet: the manifest is missing or unreadable."""
    if docs.manifest.problem:
        return clean_line(docs.manifest.problem, 200)
    if docs.manifest.missing:
        return f"{docs.root}/state/manifest.json is not published"
    return "state/manifest.json has not been read yet"
