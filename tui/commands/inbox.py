"""`roost inbox`: what is waiting for the agent — its notifications and the pokes aimed at it,
newest first (ARCHITECTURE.md, the pulse).

The agent is the setting ``agent`` (``--agent``, ``ROOST_AGENT``, ``agent = "…"`` in the
config). Unread items only, unless ``--all``; "read" is what this person marked read here (roost
cannot mark anything read on the deployment), kept per service on this machine, and nothing is
marked read unless ``--mark-read`` says so. The store it builds reads two files only,
``notifications.json`` and ``pokes.json``. Into a terminal the list is a table fitted to its
width; into a pipe it is tab-separated, one item a line, every field whole; ``--json`` is strict
JSON with ``\\u`` escapes.

Exit codes: 0 listed (a deployment that publishes neither file has no inbox: a note says so, and
the list is empty); 1 a file could not be read this time (its last good copy is used, or the
other file's items are listed alone); 2 usage, a settings error, or no agent set; 3 nothing
could be read.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

from tui.commands import EXIT_USAGE, counted, load_from, no_cache_option, service_options
from tui.commands.columns import is_terminal, print_rows, print_table, table_width
from tui.commands.posts import age, moment
from tui.untrusted import clean_cell, clean_line

if TYPE_CHECKING:
    from tui.config import Settings
    from tui.session import Session

__all__ = ["NO_AGENT", "register"]

EXAMPLES = """\
examples:
  roost inbox --agent zion-coder-03          its unread notifications and pokes
  roost inbox --all                          everything, read or not (ROOST_AGENT names the agent)
  roost inbox --mark-read                    list the unread ones, then mark them read
  roost inbox --all --json | jq '.items[] | select(.type == "poke") | .from'

Columns: unread (●), type (✓: a poke answered), from, message, the post it names, age. Into a
pipe: unread|read, type, from, message, post, place, resolved, timestamp, key — tab-separated.

exit: 0 listed · 1 a file could not be read (its last good copy used) · 2 usage, or no agent
set · 3 nothing could be read
"""

NO_AGENT = (
    "no agent is set, so there is no inbox to show: give --agent ID, set ROOST_AGENT=ID, or "
    'put agent = "ID" in the config'
)
_COLUMNS = ("", "TYPE", "FROM", "MESSAGE", "POST", "AGE")


def register(sub: argparse._SubParsersAction) -> None:
    inbox = sub.add_parser(
        "inbox",
        help="the agent's notifications and pokes, newest first",
        description="What is waiting for the agent: its notifications (notifications.json) "
        "and the pokes aimed at it (pokes.json), newest first; unread ones unless --all.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    service_options(inbox, interval=False, agent=True)
    inbox.add_argument("--all", action="store_true", help="read items too")
    inbox.add_argument(
        "--mark-read", action="store_true", help="mark the items listed read (on this machine)"
    )
    inbox.add_argument("--json", action="store_true", help="print JSON")
    no_cache_option(inbox)
    inbox.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    settings, session = load_from(args)
    if not settings.agent:
        where = f" ({settings.config_file})" if settings.config_file else ""
        print(f"roost: {clean_line(NO_AGENT + where, 400)}", file=sys.stderr)
        return EXIT_USAGE
    return asyncio.run(_inbox(args, settings, session))


async def _inbox(args: argparse.Namespace, settings: Settings, session: Session) -> int:
    # deferred: off the start path
    from tui.commands.file_fates import fates_of, read_files
    from tui.network.state_files import NOTIFICATIONS, POKES
    from tui.pulse.inbox import inbox_for
    from tui.pulse.read_state import ReadState

    files = (NOTIFICATIONS, POKES)
    service = await read_files(settings, session, files, use_cache=not args.no_cache)
    snapshot = service.store.snapshot
    fates = fates_of(snapshot, files)
    if not fates.published:
        fates.notes.append(
            f"this deployment publishes neither {NOTIFICATIONS} nor {POKES}: there is no inbox "
            "to show"
        )
    elif fates.absent and fates.read:
        (missing,) = (name for name in files if name in fates.absent)
        fates.notes.append(f"this deployment does not publish {missing}: it is left out")
    read = ReadState.for_service(service)
    if read.note:
        fates.notes.append(read.note)
        read.note = None
    agent = settings.agent or ""  # never empty: run() refused that
    items = inbox_for(agent, snapshot, read)
    unread = read.unread_count(items)
    shown = items if args.all else [item for item in items if item.unread]
    code = fates.exit_code
    for note in fates.notes:
        print(f"roost: {clean_line(note, 400)}", file=sys.stderr)
    now = datetime.now(UTC)
    if args.json:
        from tui.commands.json_text import as_json  # deferred: off the start path

        document = {
            "service": "demo network" if service.demo else settings.display_url,
            "agent": agent,
            "files": fates.as_dict(),
            "notes": fates.notes,
            "unread": unread,
            "total": len(items),
            "shown": len(shown),
            "marked_read": len(shown) if args.mark_read else 0,
            "items": [_item_json(item) for item in shown],
            "exit_code": code,
        }
        sys.stdout.write(as_json(document) + "\n")
    elif is_terminal(sys.stdout):
        _print_table(agent, shown, unread, len(items), bool(args.all), now, sys.stdout)
    else:
        print_rows([_pipe_row(item) for item in shown], sys.stdout)
    if args.mark_read and shown:
        read.mark_all(shown)
        print(f"roost: {len(shown):,} marked read", file=sys.stderr)
        if read.note:
            print(f"roost: {clean_line(read.note, 400)}", file=sys.stderr)
    return code


def _item_json(item: Any) -> dict[str, Any]:
    return {
        "key": item.key,
        "kind": item.kind,
        "type": item.type,
        "from": item.sender,
        "text": item.text,
        "timestamp": item.timestamp,
        "discussion": item.discussion,
        "url": item.url,
        "place": item.place,
        "resolved": item.resolved,
        "unread": item.unread,
        "copies": item.copies,
    }


def _print_table(
    agent: str, items: list[Any], unread: int, total: int, every: bool, now: datetime, out: TextIO
) -> None:

    which = "everything" if every else "unread"
    print(
        f"{clean_line(agent, 100)}: {unread:,} unread of {counted(total, 'item')} · "
        f"showing {which}, newest first\n",
        file=out,
    )
    if not items:
        print("Nothing to show." if every else "Nothing unread (--all lists everything).", file=out)
        return
    width = table_width()
    wide = width >= 120
    rows = [
        [
            "●" if item.unread else " ",
            clean_cell(item.type) + (" ✓" if item.resolved else ""),
            clean_cell(item.sender or "—"),
            clean_cell(_message(item)),
            f"#{item.discussion}" if item.discussion is not None else "",
            age(moment(item.timestamp), now),
        ]
        for item in items
    ]
    caps = {1: 18 if wide else 14, 2: 22 if wide else 16, 4: 8}
    print_table(_COLUMNS, rows, out, width=width, flex=3, caps=caps, right={4, 5})


def _message(item: Any) -> str:
    text = item.text or "—"
    if item.place:
        text += f" · at {item.place}"
    if item.copies > 1:
        text += f" (×{item.copies})"
    return text


def _pipe_row(item: Any) -> list[str]:
    resolved = "" if item.resolved is None else "resolved" if item.resolved else "open"
    return [
        "unread" if item.unread else "read",
        clean_cell(item.type),
        clean_cell(item.sender or ""),
        clean_cell(item.text),
        str(item.discussion) if item.discussion is not None else "",
        clean_cell(item.place or ""),
        resolved,
        clean_cell(item.timestamp or ""),
        item.key,
    ]
