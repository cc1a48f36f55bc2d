"""The write side of one service: its issue client and its outbox, built from the settings.

The CLI and the app both call :func:`write_side`, so they send the same way and share the same
outbox folder. The demo network's outbox is keyed by the run (each run is a fresh network).

This module is part of the headless core: it must never import Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.actions.catalog import ActionSpec, catalog_with_overrides
from tui.actions.issue_client import IssueClient
from tui.actions.outbox import Outbox
from tui.actions.token import TokenError, find_token
from tui.config import DEFAULT_WRITE_URL, ConfigError, Settings
from tui.ssh.mode import GUEST, GUEST_CANNOT_POST

__all__ = ["WriteSide", "catalog_for", "write_side"]


@dataclass
class WriteSide:
    """What posting an action needs: where, as whom (the client holds the token) and the outbox."""

    client: IssueClient
    outbox: Outbox
    token_source: str | None

    async def aclose(self) -> None:
        await self.client.aclose()


def catalog_for(settings: Settings) -> dict[str, ActionSpec]:
    """The built-in catalog with the config file's ``[actions.NAME]`` tables applied."""
    try:
        return catalog_with_overrides(settings.actions)
    except ValueError as exc:
        raise ConfigError(f"{settings.config_file or 'config'}: {exc}") from None


def write_side(
    service: object,
    *,
    outbox_root: Path | None = None,
    on_wait: Callable[[float, str], None] | None = None,
    find: Callable[[Settings], tuple[object, str | None]] = find_token,
    **client_options: Any,
) -> WriteSide:
    """The issue client and outbox of ``service`` (a :class:`tui.service.Service`).

    Raises ``TokenError`` for a write URL the token must not go to, no repository, or a guest's
    session of `roost serve-ssh` (guests never post).
    ``client_options`` go to :class:`IssueClient` (tests give a fake clock and sleep).
    """
    settings: Settings = service.settings  # type: ignore[attr-defined]
    if settings.ssh_role == GUEST:
        raise TokenError(GUEST_CANNOT_POST)
    demo = bool(getattr(service, "demo", False))
    write_url = settings.write_url or DEFAULT_WRITE_URL
    if not settings.repo:
        raise TokenError("no repository to post to: set --repo OWNER/NAME or ROOST_REPO")
    token, source = find(settings)
    client = IssueClient(
        write_url,
        settings.repo,
        token,  # type: ignore[arg-type]
        client=getattr(service, "client", None) if demo else None,
        on_wait=on_wait,
        in_process=demo,
        **client_options,
    )
    run_id = getattr(service, "run_id", None) if demo else None
    outbox = Outbox.for_service(write_url, settings.repo, run_id, root=outbox_root)
    return WriteSide(client, outbox, source)
