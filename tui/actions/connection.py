"""The write side of one service: its issue client, its outbox and what the deployment publishes
about posting (its contract, its manifest, its receipts), built from the settings.

The service's :class:`~tui.actions.poster.Poster` calls :func:`write_side` once (the CLI and the
app both post through it), so they send the same way, read the same contract and share the same
outbox folder; :func:`outbox_for` gives the outbox alone (to read it read-only). The demo
network's outbox is keyed by its world (a reset world starts a new one).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.actions.catalog import ActionSpec
from tui.actions.contract import build_catalog
from tui.actions.deployment_docs import DeploymentDocs
from tui.actions.issue_client import IssueClient
from tui.actions.outbox import Outbox
from tui.actions.token import TokenError, find_token
from tui.actions.tracking import DEFAULT_PROCESSOR
from tui.config import DEFAULT_WRITE_URL, ConfigError, Settings
from tui.network.disk_cache import DiskCache
from tui.read_only import read_only_error
from tui.session import Session
from tui.ssh.mode import GUEST, GUEST_CANNOT_POST

if TYPE_CHECKING:
    from tui.service import Service

__all__ = ["WriteSide", "catalog_for", "deployment_docs", "outbox_for", "write_side"]


@dataclass
class WriteSide:
    """What posting an action needs: where, as whom (the client holds the token), the outbox,
    the deployment's own documents and the account its processor answers as."""

    client: IssueClient
    outbox: Outbox
    token_source: str | None
    docs: DeploymentDocs | None = None
    processor: str = DEFAULT_PROCESSOR

    async def aclose(self) -> None:
        await self.client.aclose()
        if self.docs is not None:
            await self.docs.aclose()


def catalog_for(settings: Settings, docs: DeploymentDocs | None = None) -> dict[str, ActionSpec]:
    """The merged catalog: the config file's ``[actions.NAME]`` tables over the deployment's
    ``skill.json`` (when ``docs`` has read one) over the built-in catalog."""
    try:
        if docs is not None:
            return docs.catalog(settings.actions)

        return build_catalog(None, settings.actions)
    except ValueError as exc:
        raise ConfigError(f"{settings.config_file or 'config'}: {exc}") from None


def deployment_docs(service: Service, *, use_cache: bool = True) -> DeploymentDocs:
    """The deployment's contract and manifest for ``service`` (a :class:`tui.service.Service`),
    read with its read client when it has one (the demo network's, in-process), cached beside
    its state files."""
    settings = service.settings
    cache = None
    if use_cache:
        folder = DiskCache.for_service(settings.state_url, settings.cache_dir).folder
        cache = DiskCache(folder / "published")
    return DeploymentDocs(
        settings.state_url,
        repo=settings.repo,
        client=getattr(service, "client", None),
        cache=cache,
    )


def write_side(
    service: Service,
    *,
    outbox_root: Path | None = None,
    on_wait: Callable[[float, str], None] | None = None,
    find: Callable[[Session], tuple[object, str | None]] = find_token,
    docs: DeploymentDocs | None = None,
    **client_options: Any,
) -> WriteSide:
    """The issue client, outbox and deployment documents of ``service``.

    Raises :class:`~tui.read_only.ReadOnly` when roost is read-only (before any token is looked
    for), ``TokenError`` for a write URL the token must not go to, no repository, or a guest's
    session of `roost serve-ssh` (guests never post).
    ``client_options`` go to :class:`IssueClient` (tests give a fake clock and sleep).
    """
    settings, session = service.settings, service.session
    if session.readonly:
        raise read_only_error(session)
    if session.ssh_role == GUEST:
        raise TokenError(GUEST_CANNOT_POST)
    demo = bool(getattr(service, "demo", False))
    write_url = settings.write_url or DEFAULT_WRITE_URL
    if not settings.repo:
        raise TokenError("no repository to post to: set --repo OWNER/NAME or ROOST_REPO")
    token, source = find(session)
    client = IssueClient(
        write_url,
        settings.repo,
        token,  # type: ignore[arg-type]
        client=getattr(service, "client", None) if demo else None,
        on_wait=on_wait,
        in_process=demo,
        **client_options,
    )
    return WriteSide(
        client,
        outbox_for(service, outbox_root),
        source,
        docs=docs if docs is not None else deployment_docs(service),
        processor=settings.processor_login or DEFAULT_PROCESSOR,
    )


def outbox_for(service: Service, root: Path | None = None) -> Outbox:
    """The outbox of ``service``'s deployment (the demo world's own on the demo network), to
    read or to post through; it sends nothing itself."""
    settings = service.settings
    if not settings.repo:
        raise TokenError("no repository, so no outbox: set --repo OWNER/NAME or ROOST_REPO")
    demo = bool(getattr(service, "demo", False))
    return Outbox.for_service(
        settings.write_url or DEFAULT_WRITE_URL,
        settings.repo,
        getattr(service, "run_id", None) if demo else None,
        root=root,
        label=settings.service_label(),
    )
