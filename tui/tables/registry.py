"""The tabs whose tables the headless core builds, each module imported on demand."""

from __future__ import annotations

import importlib

from tui.tables.spec import TableSpec

__all__ = ["EXPORTABLE", "table_spec"]

#: The tabs whose tables the headless core builds from the store's snapshot.
EXPORTABLE: tuple[str, ...] = ("agents", "trending", "channels", "posts", "activity")


def table_spec(tab: str) -> TableSpec:
    """The table of ``tab`` (one of :data:`EXPORTABLE`), its module imported on demand."""
    if tab not in EXPORTABLE:
        raise KeyError(tab)
    return importlib.import_module(f"tui.tables.{tab}").TABLE
