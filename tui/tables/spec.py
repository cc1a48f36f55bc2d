"""A tab's table as the headless core knows it (:class:`TableSpec`), and the rows it shows for
a filter and a sort (:func:`shown`): what `roost export` writes, computed as the dashboard's
table computes it (the same rows, haystacks and :func:`~tui.tables.rows.sort_order`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from tui.tables.rows import Column, LazyRow, TableRow, default_haystack, sort_order

if TYPE_CHECKING:
    from tui.network.store import Snapshot

__all__ = ["TableSpec", "first_direction", "rows_of", "shown"]


class TableSpec(msgspec.Struct, frozen=True):
    """One tab's table: its columns, its row type, and how a snapshot becomes its rows.

    ``models(snapshot)`` is the keyed models in data order (None: its file is not read);
    ``prepare(snapshot, now)`` is what every row shares (its ``context``; ``now`` in POSIX
    seconds); ``files`` are the state files it is made from (the store reads them on demand)."""

    tab: str
    files: tuple[str, ...]
    columns: tuple[Column, ...]
    row: type[LazyRow]
    models: Callable[[Snapshot], Mapping[str, Any] | None]
    prepare: Callable[[Snapshot, float], Any]


def rows_of(spec: TableSpec, snapshot: Snapshot, now: float) -> list[LazyRow] | None:
    """Every row of ``spec``'s table in data order, or None when its file is not read."""
    models = spec.models(snapshot)
    if models is None:
        return None
    context = spec.prepare(snapshot, now)
    make = spec.row
    return [make(key, model, context) for key, model in models.items()]


def first_direction(column: Column) -> bool:
    """``reverse`` for a first sort by ``column``: numbers largest first, text A to Z (as the
    dashboard's ``s``)."""
    return column.number


def shown(
    rows: Sequence[TableRow],
    columns: Sequence[Column],
    *,
    query: str = "",
    sort: str | None = None,
    reverse: bool = False,
) -> list[TableRow]:
    """The rows the table shows for a filter ``query`` (case-insensitive, in each row's
    haystack) and a sort by column key ``sort`` (None: data order); rows without a sort value
    last."""
    column = None
    if sort is not None:
        column = next(i for i, c in enumerate(columns) if c.key == sort)
    order, _ = sort_order(rows, column, reverse)
    needle = query.lower().strip() and query.lower()
    if not needle:
        return [rows[i] for i in order]
    return [
        row for row in (rows[i] for i in order) if needle in (row.haystack or default_haystack(row))
    ]
