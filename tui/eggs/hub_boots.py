"""The Boots tab's source on a real (or the demo) hub and stores: the record sources, the egg
cache and the pipeline of :mod:`tui.eggs`, behind the small interface the tab asks for
(:class:`~tui.eggs.boot_rows.BootsSource`). No Textual import.

``settings.boots`` names one source or several, separated by commas (the demo network's are its
hub's index and its store's). Each source's records are held to the hub the user configured,
else to the hub whose index they came from, else each to its own hub
(:func:`~tui.eggs.hub_paths.records_hub`); a store's eggs come only from its own origin.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tui.eggs.hub_paths import records_hub, split_sources
from tui.eggs.store import StoreApp
from tui.network.urls import redact_url

if TYPE_CHECKING:
    from tui.eggs.boot_rows import SourceEntry
    from tui.eggs.download import Progress
    from tui.eggs.pipeline import EggOutcome
    from tui.service import Service

__all__ = ["HubBoots"]


class HubBoots:
    """Records and store rapplications from ``service.settings.boots`` (checked, cached), their
    eggs through the service's token-free hub client, kept in the egg cache."""

    def __init__(self, service: Service) -> None:
        from tui.eggs.download import EggCache  # deferred: off the start path

        self.service = service
        boots = service.settings.boots
        self.sources = split_sources(boots) if boots else []
        shown = [redact_url(s) for s in self.sources]
        #: Where the rows come from, each as shown (the Boots tab's note fits them to its width)
        self.origins: Sequence[str] = shown
        if len(shown) > 1:
            self.label = f"{len(shown)} sources: {', '.join(shown)}"
        else:
            self.label = shown[0] if shown else "no --boots source"
        self.eggs = EggCache.for_hub(service.hub_url, service.settings.cache_dir)

    def hub_for(self, source: str) -> str | None:
        """The hub ``source``'s records are held to (see the module's doc)."""
        demo_hub = self.service.hub_url if self.service.demo else None
        return records_hub(source, configured=self.service.configured_hub_url, demo_hub=demo_hub)

    async def rows(self) -> Sequence[SourceEntry]:
        # deferred: off the start path
        from tui.eggs.record_cache import RecordCache
        from tui.eggs.sources import BootEntry, load_boots

        rows: list[SourceEntry] = []
        for source in self.sources:
            boots = await load_boots(
                source,
                client=self.service.hub_client(),
                hub_url=self.hub_for(source),
                cache=RecordCache.for_source(source, self.service.settings.cache_dir),
            )
            rows.extend(boots.entries)
            rows.extend(boots.apps)
            if boots.problems:  # the source itself: shown as one row with its problems
                rows.append(BootEntry(source, problems=tuple(boots.problems)))
        return rows

    async def check(
        self, row: SourceEntry, *, download: bool = True, progress: Progress | None = None
    ) -> EggOutcome:
        # deferred: off the start path
        from tui.eggs.download import EggCache
        from tui.eggs.pipeline import Downloads, check_egg

        client = self.service.hub_client()
        if isinstance(row, StoreApp):
            cache = EggCache.for_hub(row.egg_origin or row.store, self.service.settings.cache_dir)
            downloads = Downloads(client, cache)
            return await check_egg(None, row, downloads=downloads, download=download, progress=progress)  # fmt: skip
        return await check_egg(
            None,
            row.record,
            hub_url=row.hub_url,
            mirror=row.mirror,
            downloads=Downloads(client, self.eggs),
            download=download,
            progress=progress,
        )
