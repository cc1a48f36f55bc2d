"""`roost action`, `roost outbox`, `roost whoami`: posting actions from the command line.

Exit codes: 0 queued (with ``--wait``: accepted); 1 failed or rejected; 2 usage or validation
error (nothing sent); 3 the platform was unreachable; 4 the outcome is unknown. With no service
configured the commands act on the embedded demo network, in-process.

The token is never printed: ``--dry-run`` shows ``Authorization: Bearer ***``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from tui.commands import EXIT_OK, EXIT_USAGE, service_options, settings_from
from tui.untrusted import clean, clean_line, clean_value

__all__ = ["EXIT_FAILED", "EXIT_UNKNOWN", "EXIT_UNREACHABLE", "register"]

EXIT_FAILED, EXIT_UNREACHABLE, EXIT_UNKNOWN = 1, 3, 4
WAIT_TIMEOUT_S = 300.0


def register(sub: argparse._SubParsersAction) -> None:
    action = sub.add_parser(
        "action",
        help="list, show and submit actions",
        description="The actions the service accepts, and sending one.",
        epilog="exit: 0 queued (--wait: accepted) · 1 failed/rejected · 2 usage or validation "
        "(nothing sent) · 3 unreachable · 4 outcome unknown",
    )
    action_sub = action.add_subparsers(dest="action_command", metavar="ACTION_COMMAND")
    action.set_defaults(handler=lambda args: _help(action))

    listing = action_sub.add_parser("list", help="the actions and their required fields")
    service_options(listing, interval=False)
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=run_list)

    show = action_sub.add_parser("show", help="one action's fields and help")
    service_options(show, interval=False)
    show.add_argument("name", help="action name (register_agent) or label (register-agent)")
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(handler=run_show)

    submit = action_sub.add_parser(
        "submit",
        help="send one action (it is kept in the outbox first)",
        description="Validate, keep in the outbox, then create the issue that carries the action.",
    )
    service_options(submit, interval=False)
    submit.add_argument("name", help="action name")
    submit.add_argument(
        "--field",
        "-f",
        action="append",
        default=[],
        metavar="K=V",
        help="a payload field (repeatable); lists: comma-separated or a JSON array",
    )
    submit.add_argument(
        "--payload-file", metavar="F", help="JSON object with the payload ('-' reads stdin)"
    )
    submit.add_argument(
        "--dry-run", action="store_true", help="print the exact request and send nothing"
    )
    submit.add_argument("--wait", action="store_true", help="follow until accepted or rejected")
    submit.add_argument(
        "--timeout", type=float, default=WAIT_TIMEOUT_S, metavar="S", help="--wait limit"
    )
    submit.add_argument("--json", action="store_true", help="print the outbox entry as JSON")
    submit.set_defaults(handler=run_submit, parser=submit)

    outbox = sub.add_parser(
        "outbox",
        help="the actions kept in the outbox: list, show, retry, drop",
        description="The outbox of the configured service.",
    )
    service_options(outbox, interval=False)
    outbox.add_argument(
        "outbox_command", nargs="?", default="list", choices=("list", "show", "retry", "drop")
    )
    outbox.add_argument("id", nargs="?", help="entry id (or a unique prefix)")
    outbox.add_argument("--json", action="store_true", help="print JSON")
    outbox.set_defaults(handler=run_outbox, parser=outbox)

    whoami = sub.add_parser("whoami", help="who the token acts as, and its scopes")
    service_options(whoami, interval=False)
    whoami.add_argument("--json", action="store_true", help="print JSON")
    whoami.set_defaults(handler=run_whoami)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return EXIT_OK


def _err(message: str) -> None:
    print(f"roost: {clean(message, multiline=True)}", file=sys.stderr)


# -- catalog ------------------------------------------------------------------------------------


def _spec_json(spec: Any) -> dict[str, Any]:
    return {
        "name": spec.name,
        "label": spec.label,
        "title": spec.title,
        "description": spec.description,
        "fields": [
            {
                k: v
                for k, v in {
                    "name": f.name,
                    "type": f.type,
                    "required": f.required,
                    "help": f.help,
                    "max_length": f.max_length,
                    "min_value": f.min_value,
                    "max_value": f.max_value,
                    "choices": list(f.choices) if f.choices else None,
                    "pattern": f.pattern,
                    "max_items": f.max_items,
                    "nullable": f.nullable or None,
                    "refers_to": f.refers_to,
                }.items()
                if v is not None
            }
            for f in spec.fields
        ],
    }


def run_list(args: argparse.Namespace) -> int:
    from tui.actions.connection import catalog_for

    catalog = catalog_for(settings_from(args))
    if args.json:
        print(json.dumps([_spec_json(s) for s in catalog.values()], indent=2))
        return EXIT_OK
    for spec in catalog.values():
        required = ", ".join(f.name for f in spec.required_fields) or "—"
        print(f"{spec.name:<18} {clean_line(spec.title, 24):<24} requires: {required}")
    return EXIT_OK


def run_show(args: argparse.Namespace) -> int:
    from tui.actions.catalog import get_action
    from tui.actions.connection import catalog_for

    try:
        spec = get_action(args.name, catalog_for(settings_from(args)))
    except KeyError as exc:
        _err(exc.args[0])
        return EXIT_USAGE
    if args.json:
        print(json.dumps(_spec_json(spec), indent=2))
        return EXIT_OK
    print(f"{spec.name} — {clean_line(spec.title)}  (label {spec.label})")
    print(clean(spec.description, multiline=True))
    for f in spec.fields:
        need = "required" if f.required else "optional"
        limits = []
        if f.max_length:
            limits.append(f"≤{f.max_length} chars")
        if f.min_value is not None or f.max_value is not None:
            limits.append(f"{f.min_value if f.min_value is not None else ''}..{f.max_value or ''}")
        if f.choices:
            limits.append("one of " + "|".join(f.choices))
        extra = f" [{', '.join(limits)}]" if limits else ""
        print(f"  {f.name:<22} {f.type:<10} {need:<9} {clean_line(f.help)}{extra}")
    return EXIT_OK


# -- submit -------------------------------------------------------------------------------------


def _coerce(spec: Any, raw: str) -> Any:
    """A ``--field`` value in the field's type; unknown fields stay strings (validation says)."""
    if spec is None or spec.type in ("str", "text"):
        if spec is not None and spec.nullable and raw == "null":
            return None
        return raw
    if spec.type == "int":
        try:
            return int(raw)
        except ValueError:
            return raw
    if spec.type == "bool":
        lowered = raw.strip().lower()
        return {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}.get(
            lowered, raw
        )
    text = raw.strip()
    if text.startswith("["):
        try:
            return json.loads(text)
        except ValueError:
            return raw
    return [item.strip() for item in text.split(",") if item.strip()]


def _payload(args: argparse.Namespace, spec: Any) -> dict[str, Any]:
    """The payload from ``--payload-file`` then ``--field``s; ``ValueError`` on bad input."""
    payload: dict[str, Any] = {}
    if args.payload_file:
        try:
            text = (
                sys.stdin.read()
                if args.payload_file == "-"
                else open(args.payload_file, encoding="utf-8").read()  # noqa: SIM115
            )
        except OSError as exc:
            raise ValueError(f"cannot read {args.payload_file}: {exc.strerror}") from None
        try:
            loaded = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"the payload file is not JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise ValueError("the payload file must hold a JSON object")
        payload.update(loaded)
    for item in args.field:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--field wants KEY=VALUE, got {item!r}")
        key = key.strip()
        field_spec = next((f for f in spec.fields if f.name == key), None)
        payload[key] = _coerce(field_spec, value)
    return payload


@contextlib.asynccontextmanager
async def _write_side(args: argparse.Namespace, on_wait: Any = None) -> AsyncIterator[Any]:
    """The service's write side for one command, closed afterwards; ``TokenError`` when the
    settings do not allow posting."""
    from tui.actions.connection import write_side
    from tui.service import connect

    service = connect(settings_from(args), use_cache=False)
    try:
        side = write_side(service, on_wait=on_wait)
        try:
            yield side
        finally:
            await side.aclose()
    finally:
        await service.aclose()


def _print_wait(seconds: float, reason: str) -> None:
    until = time.strftime("%H:%M:%S", time.localtime(time.time() + seconds))
    print(f"waiting {seconds:.0f} s ({reason}; until {until})", file=sys.stderr, flush=True)


def _exit_for(entry: Any) -> int:
    if entry.state in ("queued", "accepted", "applied"):
        return EXIT_OK
    if entry.state == "unknown" or entry.state == "sending":
        return EXIT_UNKNOWN
    if entry.unreachable:
        return EXIT_UNREACHABLE
    return EXIT_FAILED


def _describe(entry: Any) -> str:
    where = f" #{entry.number}" if entry.number else ""
    url = f"  {clean_line(entry.html_url)}" if entry.html_url else ""
    line = f"{entry.state}{where}: {entry.action} [{entry.id}]{url}"
    if entry.reason:
        line += f"\n  {clean_line(entry.reason)}"
        if entry.state == "failed":
            line += (
                "\n  retry is safe" if entry.retry_safe else "\n  a retry would fail the same way"
            )
    for notice in entry.notices:
        line += f"\n  notice: {clean_line(notice)}"
    if entry.comment:
        line += f"\n  processor: {clean_line(entry.comment)}"
    return line


def run_submit(args: argparse.Namespace) -> int:
    return asyncio.run(_submit(args))


async def _submit(args: argparse.Namespace) -> int:
    from tui.actions.catalog import get_action, validate_payload
    from tui.actions.connection import catalog_for
    from tui.actions.issue_body import compose_issue, new_nonce
    from tui.actions.token import TokenError

    settings = settings_from(args)
    try:
        spec = get_action(args.name, catalog_for(settings))
    except KeyError as exc:
        _err(exc.args[0])
        return EXIT_USAGE
    try:
        payload = _payload(args, spec)
    except ValueError as exc:
        _err(str(exc))
        return EXIT_USAGE
    errors = validate_payload(spec, payload)
    if errors:
        for error in errors:
            _err(f"{spec.name}: {error}")
        return EXIT_USAGE
    try:
        issue = compose_issue(spec.name, payload, new_nonce())
    except ValueError as exc:
        _err(str(exc))
        return EXIT_USAGE
    try:
        async with _write_side(args, _print_wait) as side:
            return await _send(args, side, spec, payload, issue)
    except TokenError as exc:
        _err(str(exc))
        return EXIT_USAGE


async def _send(args: argparse.Namespace, side: Any, spec: Any, payload: Any, issue: Any) -> int:
    if args.dry_run:
        request = {
            "method": "POST",
            "url": side.client.issues_url,
            "headers": {**side.client.headers(redact=True), "Content-Type": "application/json"},
            "json": issue.as_json(),
        }
        print(json.dumps(request, indent=2, ensure_ascii=False))
        return EXIT_OK
    if not side.client.has_token:
        _err(
            "no token: set ROOST_TOKEN (or GH_TOKEN, GITHUB_TOKEN, token in the config, "
            "or log in with gh); nothing was sent"
        )
        return EXIT_USAGE
    entry = side.outbox.draft(spec.name, payload)
    entry = await side.outbox.send(entry.id, side.client)
    if args.wait and entry.state == "queued":
        entry = await _wait(side, entry, args.timeout)
    _report(entry, args)
    if args.wait and entry.state == "queued":
        return EXIT_UNKNOWN
    return _exit_for(entry)


async def _wait(side: Any, entry: Any, timeout: float) -> Any:
    """Follow one queued entry until the processor speaks or ``timeout`` passes."""
    from tui.actions.tracking import follow_queued

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await follow_queued(side.outbox, side.client)
        entry = side.outbox.load(entry.id)
        if entry.state != "queued":
            break
        next_at = float(entry.tracking.get("next_at", 0))
        await asyncio.sleep(max(0.05, min(next_at - time.time(), deadline - time.monotonic())))
    return entry


def _report(entry: Any, args: argparse.Namespace) -> None:
    if getattr(args, "json", False):
        print(json.dumps(clean_value(entry.as_json()), indent=2, ensure_ascii=False))
    else:
        print(_describe(entry))


# -- outbox -------------------------------------------------------------------------------------


def run_outbox(args: argparse.Namespace) -> int:
    return asyncio.run(_outbox(args))


async def _outbox(args: argparse.Namespace) -> int:
    from tui.actions.token import TokenError

    command = args.outbox_command
    if command != "list" and not args.id:
        args.parser.error(f"outbox {command} needs an entry id")
    try:
        async with _write_side(args, _print_wait) as side:
            return await _outbox_command(args, side)
    except TokenError as exc:
        _err(str(exc))
        return EXIT_USAGE


async def _outbox_command(args: argparse.Namespace, side: Any) -> int:
    from tui.actions.outbox import EntryBusy

    command, outbox = args.outbox_command, side.outbox
    if command == "list":
        entries = outbox.entries()
        if args.json:
            print(json.dumps([clean_value(e.as_json()) for e in entries], indent=2))
            return EXIT_OK
        if not entries:
            print(f"the outbox is empty ({outbox.folder})")
        for entry in entries:
            print(_describe(entry))
        return EXIT_OK
    try:
        entry = outbox.find(args.id)
    except KeyError as exc:
        _err(exc.args[0])
        return EXIT_USAGE
    if command == "show":
        _report(entry, args)
        return EXIT_OK
    try:
        if command == "drop":
            outbox.drop(entry.id)
            print(f"dropped {entry.id}")
            return EXIT_OK
        if not entry.can_send:
            _err(f"{entry.id} is {entry.state}: a retry is not safe or not needed")
            _report(entry, args)
            return EXIT_FAILED if entry.state in ("failed", "rejected") else EXIT_OK
        entry = await outbox.send(entry.id, side.client)
    except EntryBusy as exc:
        _err(str(exc))
        return EXIT_UNKNOWN
    _report(entry, args)
    return _exit_for(entry)


# -- whoami -------------------------------------------------------------------------------------


def run_whoami(args: argparse.Namespace) -> int:
    return asyncio.run(_whoami(args))


async def _whoami(args: argparse.Namespace) -> int:
    from tui.actions.issue_client import LookupFailed
    from tui.actions.token import TokenError

    try:
        async with _write_side(args) as side:
            who = await side.client.whoami()
    except TokenError as exc:
        _err(str(exc))
        return EXIT_USAGE
    except LookupFailed as exc:
        _err(str(exc))
        return EXIT_FAILED
    repo = side.client.repo
    if args.json:
        data = {
            "login": who.login,
            "scopes": list(who.scopes) if who.scopes is not None else None,
            "token_source": side.token_source,
            "repo": repo,
            "summary": who.describe(repo),
        }
        print(json.dumps(clean_value(data), indent=2))
    else:
        print(f"acting as {clean_line(who.login)} on {clean_line(repo)}")
        print(f"  {clean_line(who.describe(repo))}")
        print(f"  token from {side.token_source}")
    return EXIT_OK
