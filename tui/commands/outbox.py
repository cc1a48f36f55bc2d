"""`roost outbox`: the actions kept for the configured service — list, show, follow, retry,
resend, drop.

`roost outbox` brings the entries still waiting for their outcome up to date before it prints
(receipts first, then paced API reads, within a few seconds; ``--no-follow`` skips that);
`roost outbox follow [ID]` waits for them like ``action submit --wait``. Both first settle an
entry a killed roost left "sending", as the dashboard does: looked up by its nonce under its
lock (so a live sender is never raced), sent only when the platform shows nothing.

`retry` sends the same entry again where that is safe; `resend` sends a copy of an entry's
payload as a new action (new nonce; ``-f K=V`` changes a field, ``--unset K`` leaves one out),
validated as `action submit` validates, and leaves the old entry as it was.

Exit codes are `action submit`'s (``tui/commands/action.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from types import SimpleNamespace
from typing import Any

from tui.commands import EXIT_OK, EXIT_USAGE, load_from, service_options
from tui.commands.action import (
    EXIT_FAILED,
    EXIT_UNKNOWN,
    OUTBOX_FOLLOW_S,
    WAIT_TIMEOUT_S,
    WAITING,
    _compose,
    _connected,
    _describe,
    _err,
    _exit_for,
    _follow,
    _payload,
    _print_wait,
    _report,
    _send,
    _valid,
    _waited_out,
    _warn_of_unknown_ids,
)
from tui.untrusted import clean_line, clean_value

__all__ = ["register"]

#: What only `resend` takes.
_RESEND_ONLY = (("field", "-f/--field"), ("unset", "--unset"), ("dry_run", "--dry-run"),
                ("wait", "--wait"))  # fmt: skip


def register(sub: argparse._SubParsersAction) -> None:
    outbox = sub.add_parser(
        "outbox",
        help="the actions kept in the outbox: list, show, follow, retry, resend, drop",
        description="The outbox of the configured service.",
    )
    service_options(outbox, interval=False)
    outbox.add_argument(
        "outbox_command",
        nargs="?",
        default="list",
        choices=("list", "show", "follow", "retry", "resend", "drop"),
    )
    outbox.add_argument(
        "id", nargs="?", help="entry id, or the unique start of it or of its short id (after the -)"
    )
    outbox.add_argument("--json", action="store_true", help="print JSON")
    outbox.add_argument(
        "--no-follow",
        action="store_true",
        help="print the entries as kept, without asking the platform first",
    )
    outbox.add_argument(
        "--timeout",
        type=float,
        default=WAIT_TIMEOUT_S,
        metavar="S",
        help="follow, resend --wait: how long to wait (default 300)",
    )
    resend = outbox.add_argument_group("resend (a copy of the entry's payload, as a new action)")
    resend.add_argument(
        "--field",
        "-f",
        action="append",
        default=[],
        metavar="K=V",
        help="change a payload field (repeatable); lists: comma-separated or a JSON array",
    )
    resend.add_argument(
        "--unset", action="append", default=[], metavar="K", help="leave a field out"
    )
    resend.add_argument(
        "--dry-run", action="store_true", help="print the exact request and send nothing"
    )
    resend.add_argument(
        "--wait", action="store_true", help="follow the copy until the processor's verdict"
    )
    outbox.set_defaults(handler=run_outbox, parser=outbox)


def run_outbox(args: argparse.Namespace) -> int:
    return asyncio.run(_outbox(args))


async def _outbox(args: argparse.Namespace) -> int:
    # deferred: off the start path
    from tui.actions.poster import CannotPost
    from tui.actions.token import TokenError
    from tui.read_only import ReadOnly

    command = args.outbox_command
    if command not in ("list", "follow") and not args.id:
        args.parser.error(f"outbox {command} needs an entry id")
    if command != "resend":
        given = [flag for name, flag in _RESEND_ONLY if getattr(args, name)]
        if given:
            args.parser.error(f"{', '.join(given)}: only with `outbox resend ID`")
    try:
        if command in ("list", "show") and load_from(args)[1].readonly:
            return await _read_only_outbox(args)
        async with _connected(args, _print_wait) as (service, side):
            return await _outbox_command(args, service, side)
    except (TokenError, CannotPost, ReadOnly) as exc:
        _err(exc.describe())
        return EXIT_USAGE


async def _read_only_outbox(args: argparse.Namespace) -> int:
    """`roost outbox [show ID]` when read-only: the entries as kept, no platform asked, no
    token looked for (follow, retry, resend and drop change something: refused)."""

    # deferred: off the start path
    from tui.actions.connection import outbox_for
    from tui.service import connect

    service = connect(*load_from(args), files=())
    try:
        args.no_follow = True
        side = SimpleNamespace(outbox=outbox_for(service), client=None)
        return await _outbox_command(args, service, side)
    finally:
        await service.aclose()


# -- an entry a killed roost left "sending" -----------------------------------------------------


async def _settle_interrupted(side: Any, only: str | None = None) -> None:
    """Settle the entries a killed roost left "sending" (``only``: that one), as the dashboard
    does (:meth:`~tui.actions.outbox.Outbox.resume_interrupted`), and say on stderr what became
    of each."""
    outbox = side.outbox
    before = {
        e.id: len(e.attempts)
        for e in outbox.entries()
        if e.state == "sending" and (only is None or e.id == only)
    }
    if not before:
        return
    if not side.client.has_token:
        for entry_id in before:
            _err(_still_sending(entry_id, busy=False))
        return
    for entry in await outbox.resume_interrupted(side.client, only=only):
        attempts = entry.attempts[before.get(entry.id, 0) :]
        _err(_settled(entry, any(a.get("kind") == "create" for a in attempts)))


def _settled(entry: Any, sent_now: bool) -> str:
    """What became of an interrupted entry, in one line."""
    entry_id = clean_line(entry.id)
    number = f" #{entry.number}" if entry.number else ""
    if entry.state in ("queued", "applied") and not sent_now:
        done = f"found on the platform as{number}: nothing was sent again"
    elif entry.state in ("queued", "applied"):
        done = (
            f"the platform had nothing with its nonce, so it was sent now ({entry.state}{number})"
        )
    else:
        done = f"{clean_line(entry.state)}: {clean_line(entry.reason or 'no reason given')}"
    return f"{entry_id} ({clean_line(entry.action)}) was interrupted while sending; {done}"


def _still_sending(entry_id: str, *, busy: bool) -> str:
    """Why an entry is still "sending" after an attempt to settle it."""
    from tui.actions.issue_client import NO_TOKEN  # deferred: off the start path

    entry_id = clean_line(entry_id)
    if busy:
        return (
            f"{entry_id} is being sent by another roost right now; "
            f"`roost outbox follow {entry_id}` again once it is done"
        )
    return (
        f"{entry_id} was interrupted while sending and may be on the platform; looking it up "
        f"needs a token ({NO_TOKEN})"
    )


# -- the commands -------------------------------------------------------------------------------


async def _outbox_command(args: argparse.Namespace, service: Any, side: Any) -> int:
    command, outbox = args.outbox_command, side.outbox
    if command == "list":
        if not args.no_follow:
            await _settle_interrupted(side)
        entries = outbox.entries()
        waiting = [e.id for e in entries if e.state in WAITING]
        if waiting and not args.no_follow:
            await _follow(side, waiting, OUTBOX_FOLLOW_S)
            entries = outbox.entries()
        if args.json:
            print(json.dumps([clean_value(e.as_json()) for e in entries], indent=2))
            return EXIT_OK
        if not entries:
            print(f"the outbox is empty ({clean_line(outbox.folder)})")
        for entry in entries:
            print(_describe(entry))
        return EXIT_OK
    if command == "follow" and not args.id:
        return await _follow_all(args, side)
    entry = _find(outbox, args.id)
    if entry is None:
        return EXIT_USAGE
    if command in ("show", "follow"):
        return await _show(args, side, entry)
    if command == "resend":
        return await _resend(args, service, side, entry)
    return await _retry_or_drop(args, side, entry)


def _find(outbox: Any, given: str) -> Any | None:
    """The entry ``given`` names: its id (brackets and all, as `roost outbox` prints it), the
    start of one, or the start of its short id (the part after the time, which tells entries
    made in one second apart). None, said on stderr, when none or several match: several are
    listed, to choose from."""
    wanted = given.strip().removeprefix("[").removesuffix("]").strip()
    entries = outbox.entries()
    exact = [e for e in entries if e.id == wanted]
    matches = exact or [
        e
        for e in entries
        if wanted and (e.id.startswith(wanted) or _short(e.id).startswith(wanted))
    ]
    if len(matches) == 1:
        return matches[0]
    shown = clean_line(wanted, 60)
    if not matches:
        _err(f"no outbox entry matches {shown!r} (`roost outbox` lists them)")
        return None
    lines = [f"{shown!r} matches {len(matches)} outbox entries; give more of one:"]
    for entry in matches:
        number = f" #{entry.number}" if entry.number else ""
        action = f": {clean_line(entry.action, 40)}" if entry.action else ""
        lines.append(f"  {clean_line(entry.id)}  {clean_line(entry.state)}{number}{action}")
    _err("\n".join(lines))
    return None


def _short(entry_id: str) -> str:
    """An id's short form: what follows its time (``20261204T205539Z-2c9bf187``: ``2c9bf187``)."""
    return entry_id.rpartition("-")[2]


async def _follow_all(args: argparse.Namespace, side: Any) -> int:
    await _settle_interrupted(side)
    outbox = side.outbox
    waiting = [e.id for e in outbox.entries() if e.state in WAITING]
    stuck = [e.id for e in outbox.entries() if e.state == "sending"]
    if not waiting and not stuck:
        print("nothing in the outbox is waiting for the processor's answer")
    entries = await _follow(side, waiting, args.timeout) if waiting else []
    for entry in entries:
        _report(entry, args)
    for entry in entries:
        if entry.state in WAITING:
            _waited_out(entry, args.timeout)
    for entry_id in stuck:
        _err(_still_sending(entry_id, busy=side.client.has_token))
    return EXIT_UNKNOWN if stuck or any(e.state in WAITING for e in entries) else EXIT_OK


async def _show(args: argparse.Namespace, side: Any, entry: Any) -> int:
    command = args.outbox_command
    if entry.state == "sending" and not args.no_follow:
        await _settle_interrupted(side, only=entry.id)
        entry = side.outbox.read(entry.id)
    if entry.state in WAITING and not args.no_follow:
        timeout = args.timeout if command == "follow" else OUTBOX_FOLLOW_S
        entry = (await _follow(side, [entry.id], timeout))[0]
    _report(entry, args)
    if command != "follow":
        return EXIT_OK
    if entry.state == "sending":
        _err(_still_sending(entry.id, busy=side.client.has_token))
        return EXIT_UNKNOWN
    if entry.state in WAITING:
        _waited_out(entry, args.timeout)
        return EXIT_UNKNOWN
    return _exit_for(entry)


async def _retry_or_drop(args: argparse.Namespace, side: Any, entry: Any) -> int:
    # deferred: off the start path
    from tui.actions.outbox import DamagedEntry, EntryBusy
    from tui.actions.outbox_report import retry_refusal

    outbox = side.outbox
    try:
        if args.outbox_command == "drop":
            outbox.drop(entry.id)
            print(f"dropped {clean_line(entry.id)}")
            return EXIT_OK
        refusal = retry_refusal(entry)
        if refusal is not None:
            hint = ""
            if entry.state in ("rejected", "failed"):
                hint = f"; once its cause is fixed, `roost outbox resend {entry.id} -f K=V` sends a copy"
            _err(f"{entry.id} is not retried: {refusal}{hint}")
            _report(entry, args)
            return EXIT_FAILED if entry.state in ("failed", "rejected", "damaged") else EXIT_OK
        entry = await outbox.send(entry.id, side.client)
    except EntryBusy as exc:
        _err(str(exc))
        return EXIT_UNKNOWN
    except DamagedEntry as exc:
        _err(str(exc))
        return EXIT_FAILED
    _report(entry, args)
    return _exit_for(entry)


async def _resend(args: argparse.Namespace, service: Any, side: Any, entry: Any) -> int:
    """A copy of ``entry``'s payload, changed by ``-f``/``--unset``, sent as a new action
    (checked as `action submit` checks one); the old entry is left as it was."""
    # deferred: off the start path
    from tui.actions.catalog import get_action
    from tui.actions.connection import catalog_for
    from tui.actions.resend import payload_copy, resend_refusal

    entry_id = clean_line(entry.id)
    refusal = resend_refusal(entry)
    if refusal is not None:
        instead = "follow" if entry.state in WAITING else "retry"
        hint = "" if entry.state == "damaged" else f" (`roost outbox {instead} {entry_id}`)"
        _err(f"{entry_id} is not sent again: {refusal}{hint}")
        return EXIT_USAGE
    try:
        spec = get_action(entry.action, catalog_for(service.settings, side.docs))
    except KeyError:
        _err(f"{entry_id}: the deployment no longer lists {clean_line(entry.action)!r}")
        return EXIT_USAGE
    base = payload_copy(entry)
    for name in args.unset:
        if name not in base:
            _err(f"--unset {clean_line(name)}: {entry_id}'s payload has no such field")
            return EXIT_USAGE
        del base[name]
    try:
        payload, mistyped = _payload(args, spec, base)
    except ValueError as exc:
        _err(str(exc))
        return EXIT_USAGE
    if not _valid(spec, payload, mistyped):
        _err(f"nothing was sent; {entry_id} is left as it was")
        return EXIT_USAGE
    try:
        kind, request, nonce = _compose(spec, payload, side)
    except ValueError as exc:
        _err(f"{exc}; nothing was sent")
        return EXIT_USAGE
    await _warn_of_unknown_ids(service, spec, payload)
    if not args.dry_run:
        _err(f"sending a copy of {entry_id} as a new action ({entry_id} is left as it was)")
    return await _send(args, side, spec, payload, kind, request, nonce)
