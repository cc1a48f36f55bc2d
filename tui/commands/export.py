"""`roost export TAB`: a tab's table as CSV or JSON Lines, headless (ARCHITECTURE.md, export).

The rows are the dashboard's own (tui/tables/: the same columns, cells, filter and sort), read
through a store that asks only for the tab's files, and written by tui/export.py (formulas
neutralised, control characters made visible). To standard output unless ``-o FILE``, which is
written through a temporary file and never replaces a file unless ``--force``.

Exit codes: 0 written; 1 a file of the table could not be read this time (the last good copy is
written; stderr says why); 2 usage (an unknown tab or column names the closest known one; a file
already there); 3 nothing could be read.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import sys
from collections.abc import Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any

from tui.commands import (
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    counted,
    load_from,
    no_cache_option,
    service_options,
)
from tui.untrusted import clean_line

__all__ = ["register"]

EXAMPLES = """\
examples:
  roost export agents > agents.csv                  every agent, as the Agents tab shows it
  roost export agents --filter coder --sort karma --columns id,karma
  roost export posts --jsonl -o posts.jsonl         one JSON object a line, numbers as numbers
  roost export activity --csv --sort age | head

TAB: agents, trending, channels, posts, activity. Columns and --sort take a column's key or its
header (karma, cmts or comments); numbers sort largest first (--reverse: the other way), text
A to Z. Cells that a spreadsheet would run as a formula get a leading '.

exit: 0 written · 1 a file could not be read (its last good copy written) · 2 usage ·
3 nothing could be read
"""


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "export",
        help="a tab's table as CSV or JSON Lines",
        description="A tab's table, as the dashboard's `e` writes it: CSV or JSON Lines.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    service_options(parser, interval=False)
    parser.add_argument("tab", metavar="TAB", help="agents, trending, channels, posts, activity")
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--csv", dest="fmt", action="store_const", const="csv", help="CSV (default)")
    fmt.add_argument("--jsonl", dest="fmt", action="store_const", const="jsonl", help="JSON Lines")
    parser.add_argument("--filter", metavar="TEXT", default="", help="rows whose text has TEXT")
    parser.add_argument("--sort", metavar="COLUMN", help="sort by COLUMN")
    parser.add_argument("--reverse", action="store_true", help="the other direction of --sort")
    parser.add_argument("--columns", metavar="A,B", help="only these columns, in this order")
    parser.add_argument("-o", "--output", metavar="FILE", help="write FILE (default: stdout)")
    parser.add_argument("--force", action="store_true", help="replace FILE if it is there")
    no_cache_option(parser)
    parser.set_defaults(handler=run, parser=parser, fmt="csv")


def _usage(message: str) -> int:
    print(f"roost export: {clean_line(message, 400)}", file=sys.stderr)
    return EXIT_USAGE


def _meant(name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def _column(name: str, columns: Sequence[Any]) -> int | str:
    """The index of the column keyed or headed ``name``, or the error to print."""
    for i, column in enumerate(columns):
        if name.lower() in (column.key.lower(), column.label.lower()):
            return i
    keys = [c.key for c in columns]
    return f"no column {name!r} in this table{_meant(name, [*keys, *(c.label for c in columns)])}: {', '.join(keys)}"


def run(args: argparse.Namespace) -> int:
    from tui.tables.registry import EXPORTABLE, table_spec  # deferred: off the start path

    tab = args.tab.lower()
    if tab not in EXPORTABLE:
        return _usage(
            f"no table {args.tab!r}{_meant(tab, EXPORTABLE)}: one of {', '.join(EXPORTABLE)}"
        )
    spec = table_spec(tab)
    picked = list(range(len(spec.columns)))
    if args.columns:
        picked = []
        for name in (n.strip() for n in args.columns.split(",") if n.strip()):
            found = _column(name, spec.columns)
            if isinstance(found, str):
                return _usage(found)
            picked.append(found)
        if not picked:
            return _usage("--columns names no column")
    sort = None
    if args.sort:
        found = _column(args.sort, spec.columns)
        if isinstance(found, str):
            return _usage(found)
        sort = spec.columns[found]
    if args.output and not args.force and Path(args.output).exists():
        return _usage(f"{args.output}: already there (--force replaces it)")
    return asyncio.run(_export(args, spec, picked, sort))


async def _export(args: argparse.Namespace, spec: Any, picked: list[int], sort: Any) -> int:
    from datetime import UTC, datetime  # deferred: off the start path

    # deferred: off the start path
    from tui.export import ExportError, export_file, write_rows
    from tui.service import connect
    from tui.tables.spec import first_direction, rows_of, shown

    service = connect(*load_from(args), use_cache=not args.no_cache, files=spec.files)
    try:
        service.store.load_cache()
        await service.store.refresh()
    finally:
        await service.aclose()
    snapshot = service.store.snapshot
    rows = rows_of(spec, snapshot, datetime.now(UTC).timestamp())
    problems = [
        f"{name}: {clean_line(state.problem.detail, 300)}"
        for name in spec.files
        if (state := snapshot.file(name)).problem is not None
    ]
    if rows is None:
        why = "; ".join(problems) or f"{spec.files[0]} could not be read"
        print(f"roost export: nothing to export: {why}", file=sys.stderr)
        return EXIT_NOTHING
    code = EXIT_OK
    for problem in problems:
        print(f"roost export: {problem} (the last good copy is written)", file=sys.stderr)
        code = EXIT_PROBLEMS
    reverse = first_direction(sort) != args.reverse if sort is not None else args.reverse
    chosen = shown(
        rows,
        spec.columns,
        query=args.filter,
        sort=sort.key if sort is not None else None,
        reverse=reverse,
    )
    columns = [spec.columns[i] for i in picked]
    keys = [c.key for c in columns]
    numeric = [c.number for c in columns]
    pick = itemgetter(*picked)
    if len(picked) == 1:
        cells = ((pick(row.cells),) for row in chosen)
    else:
        cells = (pick(row.cells) for row in chosen)
    if args.output:
        try:
            count = export_file(
                Path(args.output), args.fmt, keys, numeric, cells, overwrite=args.force
            )
        except ExportError as exc:
            return _usage(exc.describe())
        print(f"roost export: {counted(count, 'row')} written to {args.output}", file=sys.stderr)
    else:
        write_rows(sys.stdout, args.fmt, keys, numeric, cells)
    return code
