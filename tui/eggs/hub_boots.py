"""The Boots tab's source on a real (or the demo) hub: the record sources, the egg cache and the
download of :mod:`tui.eggs`, behind the small interface the tab asks for
(:class:`~tui.eggs.boot_rows.BootsSource`). No Textual import.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tui.eggs.boot_rows import BootRow
from tui.network.urls import redact_url

if TYPE_CHECKING:
    from tui.eggs.download import Progress
    from tui.eggs.pipeline import EggOutcome
    from tui.service import Service

__all__ = ["HubBoots"]


class HubBoots:
    """Records from ``service.settings.boots`` (checked, cached), eggs from ``service.hub_url``
    only, through the service's token-free hub client; eggs are kept in the egg cache."""

    def __init__(self, service: Service) -> None:
        from tui.eggs.download import EggCache

        self.service = service
        self.hub_url: str | None = service.hub_url
        self.label = redact_url(service.settings.boots or "no --boots source")
        self.eggs = EggCache.for_hub(service.hub_url, service.settings.cache_dir)

    async def rows(self) -> Sequence[Any]:
        from tui.eggs.record_cache import RecordCache
        from tui.eggs.sources import load_boots

        source = self.service.settings.boots
        if not source:
            return []
        boots = await load_boots(
            source,
            client=self.service.hub_client(),
            hub_url=self.service.hub_url,
            cache=RecordCache.for_source(source, self.service.settings.cache_dir),
        )
        rows: list[Any] = list(boots.entries)
        if boots.problems:  # the source itself: shown as one row with its problems
            rows.append(BootRow(source, None, tuple(boots.problems)))
        return rows

    async def check(
        self, row: Any, *, download: bool = True, progress: Progress | None = None
    ) -> EggOutcome:
        from tui.eggs.pipeline import Downloads, check_egg

        downloads = Downloads(self.service.hub_client(), self.eggs)
        return await check_egg(
            None,
            row.record,
            hub_url=self.hub_url,
            downloads=downloads,
            download=download,
            progress=progress,
        )
