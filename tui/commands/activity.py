"""`roost activity`: the network's change log, every entry, newest first, worded for a person
(ARCHITECTURE.md, the pulse): "zion-coder-03 sent a heartbeat", "rappter-advocate joined",
"audit: 1 marked dormant · 96 active · 13 dormant".

The store it builds reads ``changes.json`` only. Into a terminal the feed is a table fitted to
its width; into a pipe it is tab-separated, one entry a line, every field whole; ``--json`` is
strict JSON with ``\\u`` escapes, each entry with its sentence and its fields as sent.

Exit codes: 0 listed (a deployment that does not publish changes.json has no feed: a note says
so and the list is empty); 1 the file could not be read this time (its last good copy is
listed); 2 usage; 3 nothing could be read.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

from tui.commands import counted, load_from, no_cache_option, service_options
from tui.commands.columns import is_terminal, print_rows, print_table, table_width
from tui.commands.posts import age, moment
from tui.untrusted import clean_cell, clean_line

__all__ = ["register"]

EXAMPLES = """\
examples:
  roost activity                             every change, newest first
  roost activity --type new_agent --type agent_dormant
  roost activity --agent zion-coder-03       the changes that name this agent
  roost activity --json | jq '.changes[] | select(.type == "heartbeat_audit") | .text'

Columns: age, type, what happened. Into a pipe: timestamp, type, agent, post, channel, what
happened — tab-separated.

exit: 0 listed · 1 changes.json could not be read (its last good copy listed) · 2 usage ·
3 nothing could be read
"""

_COLUMNS = ("AGE", "TYPE", "WHAT HAPPENED")


def register(sub: argparse._SubParsersAction) -> None:
    activity = sub.add_parser(
        "activity",
        help="the network's change log, newest first (changes.json)",
        description="Every entry of the deployment's change log (changes.json), newest first: "
        "heartbeats, new agents, dormancy, audits, pokes and the rest.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    service_options(activity, interval=False)
    activity.add_argument(
        "--type",
        action="append",
        default=[],
        dest="types",
        metavar="T",
        help="only changes of type T (repeatable; heartbeat, new_agent, poke…)",
    )
    activity.add_argument(
        "--agent", dest="about", metavar="A", help="only the changes that name agent A"
    )
    activity.add_argument("--json", action="store_true", help="print JSON")
    no_cache_option(activity)
    activity.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_activity(args))


async def _activity(args: argparse.Namespace) -> int:
    # deferred: off the start path
    from tui.commands.file_fates import fates_of, read_files
    from tui.network.state_files import CHANGES
    from tui.pulse.activity import activity_rows, matches

    settings, session = load_from(args)
    service = await read_files(settings, session, (CHANGES,), use_cache=not args.no_cache)
    snapshot = service.store.snapshot
    fates = fates_of(snapshot, (CHANGES,))
    if not fates.published:
        fates.notes.append(f"this deployment does not publish {CHANGES}: there is no feed to show")
    rows = activity_rows(snapshot.changes)
    types = [kind for given in args.types for kind in given.split(",") if kind.strip()]
    chosen = [
        row for row in rows if matches(row, types=[t.strip() for t in types], agent=args.about)
    ]
    code = fates.exit_code
    for note in fates.notes:
        print(f"roost: {clean_line(note, 400)}", file=sys.stderr)
    if args.json:
        # deferred: off the start path
        from tui.commands.json_text import as_json
        from tui.network.models import dump

        document = {
            "service": "demo network" if service.demo else settings.display_url,
            "files": fates.as_dict(),
            "notes": fates.notes,
            "last_updated": snapshot.changes.last_updated if snapshot.changes else None,
            "total": len(rows),
            "shown": len(chosen),
            "changes": [_row_json(row, _sent(dump(row.model))) for row in chosen],
            "exit_code": code,
        }
        sys.stdout.write(as_json(document) + "\n")
    elif is_terminal(sys.stdout):
        _print_table(chosen, len(rows), datetime.now(UTC), sys.stdout)
    else:
        print_rows([_pipe_row(row) for row in chosen], sys.stdout)
    return code


def _row_json(row: Any, entry: Any) -> dict[str, Any]:
    return {
        "key": row.key,
        "ts": row.ts,
        "type": row.type,
        "text": row.text,
        "agent": row.agent,
        "post": row.post,
        "channel": row.channel,
        "agents": list(row.agents),
        "entry": entry,
    }


def _print_table(rows: list[Any], total: int, now: datetime, out: TextIO) -> None:
    print(
        f"Showing {len(rows):,} of {counted(total, 'change')} (changes.json), newest first\n",
        file=out,
    )
    if not rows:
        print("Nothing to show.", file=out)
        return
    width = table_width()
    cells = [[age(moment(row.ts), now), clean_cell(row.type), clean_cell(row.text)] for row in rows]
    caps = {0: 4, 1: 18 if width >= 120 else 15}
    print_table(_COLUMNS, cells, out, width=width, flex=2, caps=caps, right={0})


def _pipe_row(row: Any) -> list[str]:
    return [
        clean_cell(row.ts or ""),
        clean_cell(row.type),
        clean_cell(row.agent or ""),
        str(row.post) if row.post is not None else "",
        clean_cell(row.channel or ""),
        clean_cell(row.text),
    ]


def _sent(entry: Any) -> Any:
    """An entry's fields without the ones it did not send (the model gives those as null)."""
    if not isinstance(entry, dict):
        return entry
    return {name: value for name, value in entry.items() if value is not None}
