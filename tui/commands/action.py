"""`roost action`, `roost outbox`, `roost whoami`: posting actions from the command line.

The catalog is the deployment's: its ``skill.json`` (read beside the state) over the built-in
one, the config file's ``[actions.NAME]`` over both; `action list/show` say where each came
from. An action goes the way the contract says: an issue, or a post or comment as a GitHub
Discussion; one roost cannot send is refused before anything is kept.

Exit codes: 0 queued (with ``--wait``: accepted or applied); 1 failed or rejected; 2 usage or
validation error (nothing sent); 3 the platform was unreachable; 4 the outcome is unknown. With
no service configured the commands act on the embedded demo network, in-process (its world is
kept across runs).

`roost outbox` is in ``tui/commands/outbox.py`` and shares this module's helpers.

The token is never printed: ``--dry-run`` shows ``Authorization: Bearer ***``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from tui.commands import EXIT_OK, EXIT_USAGE, load_from, service_options
from tui.strict_json import Unreadable, loads
from tui.untrusted import clean, clean_line, clean_value, truncate

__all__ = ["EXIT_FAILED", "EXIT_UNKNOWN", "EXIT_UNREACHABLE", "register"]

EXIT_FAILED, EXIT_UNREACHABLE, EXIT_UNKNOWN = 1, 3, 4
WAIT_TIMEOUT_S = 300.0
#: How long `roost outbox` spends bringing entries up to date before it prints.
OUTBOX_FOLLOW_S = 5.0


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
    submit.add_argument(
        "--wait", action="store_true", help="follow until the processor's verdict (or applied)"
    )
    submit.add_argument(
        "--timeout", type=float, default=WAIT_TIMEOUT_S, metavar="S", help="--wait limit"
    )
    submit.add_argument("--json", action="store_true", help="print the outbox entry as JSON")
    submit.set_defaults(handler=run_submit, parser=submit)

    # here, not at the top: outbox imports this module
    from tui.commands.outbox import register as register_outbox

    register_outbox(sub)  # `roost --help` lists it between action and whoami

    whoami = sub.add_parser(
        "whoami",
        help="who the token acts as, and its scopes",
        description="Who the token acts as on the write URL, and what it may do.",
        epilog="exit: 0 known · 1 the platform refused or did not say · 2 no token, or settings "
        "that do not allow posting · 3 unreachable",
    )
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
        "method": spec.method,
        "source": spec.source,
        "unsupported": spec.unsupported,
        "fields": [
            {
                k: v
                for k, v in {
                    "name": f.name,
                    "type": f.type,
                    "required": f.required,
                    "help": f.help,
                    "max_length": f.max_length,
                    "min_length": f.min_length,
                    "min_value": f.min_value,
                    "max_value": f.max_value,
                    "choices": list(f.choices) if f.choices is not None else None,
                    "pattern": f.pattern,
                    "format": f.format,
                    "default": f.default,
                    "max_items": f.max_items,
                    "nullable": f.nullable or None,
                    "refers_to": f.refers_to,
                    "unchecked": list(f.unchecked) or None,
                }.items()
                if v is not None
            }
            for f in spec.fields
        ],
    }


async def _catalog(args: argparse.Namespace) -> dict[str, Any]:
    """The merged catalog of the configured service: its skill.json read first (what could
    not be used is said on stderr, once)."""
    # deferred: off the start path
    from tui.actions.connection import catalog_for, deployment_docs
    from tui.service import connect

    settings, session = load_from(args)
    service = connect(settings, session, use_cache=False)
    docs = deployment_docs(service)
    try:
        await docs.refresh()
        for notice in docs.new_notices():
            _err(notice)
        return catalog_for(settings, docs)  # the config's tables (the demo's settings have none)
    finally:
        await docs.aclose()
        await service.aclose()


def _where(spec: Any) -> str:
    """Where a definition came from, and how it is sent when that is not an issue."""
    how = {
        "discussion": ", a Discussion",
        "discussion_comment": ", a Discussion comment",
        "discussion_reaction": ", a reaction",
    }
    return f"[{spec.source}{how.get(spec.method, '')}]"


def run_list(args: argparse.Namespace) -> int:
    catalog = asyncio.run(_catalog(args))
    if args.json:
        print(json.dumps([clean_value(_spec_json(s)) for s in catalog.values()], indent=2))
        return EXIT_OK
    for spec in catalog.values():
        required = ", ".join(f.name for f in spec.required_fields) or "—"
        line = f"{spec.name:<18} {clean_line(spec.title, 24):<24} requires: {required}"
        print(f"{line}  {_where(spec)}")
        if spec.unsupported:
            print(f"{'':<18} not supported: {clean_line(spec.unsupported)}")
    return EXIT_OK


def run_show(args: argparse.Namespace) -> int:
    from tui.actions.catalog import get_action  # deferred: off the start path

    try:
        spec = get_action(args.name, asyncio.run(_catalog(args)))
    except KeyError as exc:
        _err(exc.args[0])
        return EXIT_USAGE
    if args.json:
        print(json.dumps(clean_value(_spec_json(spec)), indent=2))
        return EXIT_OK
    print(
        f"{spec.name} — {clean_line(spec.title)}  (label {clean_line(spec.label)})  {_where(spec)}"
    )
    print(clean(spec.description, multiline=True))
    if spec.unsupported:
        print(f"not supported: {clean_line(spec.unsupported)}")
    for f in spec.fields:
        need = "required" if f.required else "optional"
        limits = f.limits()
        extra = f" [{clean_line(', '.join(limits), 300)}]" if limits else ""
        print(f"  {f.name:<22} {f.type:<10} {need:<9} {clean_line(f.help)}{extra}")
    return EXIT_OK


# -- submit -------------------------------------------------------------------------------------


_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")
_BOOLS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def _coerce(spec: Any, raw: str) -> Any:
    """A ``--field`` value in the field's type; unknown fields stay strings (validation says).
    ``ValueError`` says, with what was typed, why a value is not of its field's type."""
    typed = json.dumps(truncate(raw, 60), ensure_ascii=False)
    if spec is None or spec.type in ("str", "text"):
        if spec is not None and spec.nullable and raw == "null":
            return None
        return raw
    if spec.type == "int":
        if not _WHOLE_NUMBER.fullmatch(raw.strip()):
            raise ValueError(f"{typed} is not a whole number")
        if len(raw.strip()) > 20:  # past any field's limit (and Python's digit limit)
            raise ValueError(f"{typed} is too large a number")
        return int(raw)
    if spec.type == "bool":
        value = _BOOLS.get(raw.strip().lower())
        if value is None:
            raise ValueError(f"{typed} is not true or false (true/false, yes/no, 1/0)")
        return value
    text = raw.strip()
    if text.startswith("["):
        try:
            return loads(text)
        except ValueError as exc:
            raise ValueError(f"{typed} is not a JSON array ({exc})") from None
    return [item.strip() for item in text.split(",") if item.strip()]


#: The most of a payload file read: far more than an issue body may hold.
PAYLOAD_LIMIT = 1 << 20


def _named_twice(key: str) -> ValueError:
    return ValueError(f"the payload file names {key!r} twice: give it once")


def _payload_bytes(name: str) -> bytes:
    """What ``--payload-file`` names holds (``-``: standard input), at most
    :data:`PAYLOAD_LIMIT`; ``ValueError`` says why it cannot be read."""
    try:
        if name == "-":
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:  # started with standard input closed
                raise ValueError(
                    "--payload-file -: standard input is closed; pipe the JSON in, or name a file"
                )
            data = stream.read(PAYLOAD_LIMIT + 1)
        else:
            with open(name, "rb") as handle:
                data = handle.read(PAYLOAD_LIMIT + 1)
    except OSError as exc:
        where = "standard input" if name == "-" else name
        raise ValueError(f"cannot read {where}: {exc.strerror or exc}") from None
    if len(data) > PAYLOAD_LIMIT:
        raise ValueError(f"the payload file is larger than {PAYLOAD_LIMIT >> 20} MiB")
    return data


def _payload(
    args: argparse.Namespace, spec: Any, base: dict[str, Any] | None = None
) -> tuple[dict[str, Any], list[Any]]:
    """The payload from ``base`` (a copy), ``--payload-file``, then ``--field``s, and the
    fields whose typed value is not of their type (each a ``FieldError`` quoting what was
    typed; the payload keeps the text). ``ValueError`` on input that is not a payload at all."""
    from tui.actions.catalog import FieldError  # deferred: off the start path

    payload: dict[str, Any] = dict(base or {})
    mistyped: list[FieldError] = []
    if getattr(args, "payload_file", None):
        try:
            loaded = loads(_payload_bytes(args.payload_file), refuse=_named_twice)
        except Unreadable as exc:
            raise ValueError(f"the payload file is {exc}") from None
        if not isinstance(loaded, dict):
            raise ValueError("the payload file must hold a JSON object")
        payload.update(loaded)
    given: dict[str, str] = {}
    for item in args.field:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--field wants KEY=VALUE, got {item!r}")
        key = key.strip()
        if key in given:
            first, then = (
                json.dumps(given[key], ensure_ascii=False),
                json.dumps(value, ensure_ascii=False),
            )
            raise ValueError(f"--field {key} is given twice ({first}, then {then}): give it once")
        given[key] = value
        field_spec = next((f for f in spec.fields if f.name == key), None)
        try:
            payload[key] = _coerce(field_spec, value)
        except ValueError as exc:
            payload[key] = value
            mistyped.append(FieldError(key, str(exc)))
    return payload, mistyped


@contextlib.asynccontextmanager
async def _connected(
    args: argparse.Namespace, on_wait: Any = None
) -> AsyncIterator[tuple[Any, Any]]:
    """(the service, its poster's write side) for one command, closed afterwards;
    ``TokenError`` or ``CannotPost`` when the settings do not allow posting, ``ReadOnly``
    (before anything is built) when roost is read-only. The service's store reads no state
    file until asked (:func:`_warn_of_unknown_ids`), through the dashboard's disk cache."""
    # deferred: off the start path
    from tui.read_only import read_only_error
    from tui.service import connect

    settings, session = load_from(args)
    if session.readonly:
        raise read_only_error(session)
    service = connect(settings, session, files=())
    try:
        side = await service.poster.require()  # the token looked for in a thread
        side.client.on_wait = on_wait
        if side.docs is not None:
            await side.docs.refresh()
            for notice in side.docs.new_notices():
                _err(notice)
        yield service, side
    finally:
        await service.aclose()  # and its poster's clients


@contextlib.asynccontextmanager
async def _write_side(args: argparse.Namespace, on_wait: Any = None) -> AsyncIterator[Any]:
    """The service's write side for one command (see :func:`_connected`)."""
    async with _connected(args, on_wait) as (_service, side):
        yield side


async def _warn_of_unknown_ids(service: Any, spec: Any, payload: dict[str, Any]) -> None:
    """Say on stderr each id of ``payload`` that the network's state does not hold (the
    form's own check, :func:`~tui.actions.completion.reference_warnings`): a warning, never a
    refusal, since the state can lag. The files it needs are read as the dashboard reads
    them (its disk cache, then a conditional refresh); a file that cannot be read is said."""
    # deferred: off the start path
    from tui.actions.completion import KIND_FILES, References, checked_kinds, reference_warnings

    kinds = checked_kinds(spec, payload)
    if not kinds:
        return
    store = service.store
    names = [KIND_FILES[kind] for kind in kinds]
    await store.want(*names)
    await store.refresh()
    snapshot = store.snapshot
    unread = [name for name in names if not snapshot.file(name).loaded]
    if unread:
        _err(f"note: {', '.join(unread)} could not be read: ids were not checked against it")
    for name, said in reference_warnings(spec, payload, References(snapshot)).items():
        _err(f"warning: {spec.name}: {name}: {said}; the state can lag: not a refusal")


def _print_wait(seconds: float, reason: str) -> None:
    until = time.strftime("%H:%M:%S", time.localtime(time.time() + seconds))
    print(f"waiting {seconds:.0f} s ({reason}; until {until})", file=sys.stderr, flush=True)


def _exit_for(entry: Any) -> int:
    if entry.state in ("queued", "received", "accepted", "applied"):
        return EXIT_OK
    if entry.state == "unknown" or entry.state == "sending":
        return EXIT_UNKNOWN
    if entry.unreachable:
        return EXIT_UNREACHABLE
    return EXIT_FAILED


def _describe(entry: Any) -> str:
    """An entry in words. Every field came back from disk: each is cleaned as service text."""
    entry_id = clean_line(entry.id)
    if entry.state == "damaged":
        return (
            f"damaged: [{entry_id}]\n  {clean_line(entry.reason)}\n  (roost outbox drop {entry_id})"
        )
    where = f" #{entry.number}" if entry.number else ""
    url = f"  {clean_line(entry.html_url)}" if entry.html_url else ""
    line = f"{clean_line(entry.state)}{where}: {clean_line(entry.action)} [{entry_id}]{url}"
    if entry.reason:
        line += f"\n  {clean_line(entry.reason)}"
        if entry.state == "failed":
            line += (
                "\n  retry is safe" if entry.retry_safe else "\n  a retry would fail the same way"
            )
    for notice in entry.notices:
        line += f"\n  notice: {clean_line(notice)}"
    receipt = entry.receipt or {}
    if receipt:
        status, receipt_url = clean_line(receipt.get("status")), clean_line(receipt.get("url"))
        line += f"\n  receipt: {status} {receipt_url}"
        for key in ("error", "hint"):
            if receipt.get(key):
                line += f"\n  {key}: {clean(receipt[key], multiline=True)}"
    elif entry.comment:
        who = "processor" if entry.kind == "issue" else "platform"
        line += f"\n  {who}: {clean(entry.comment, multiline=True)}"
    for comment in entry.comments:
        said = clean_line(comment.get("body") or "", 200)
        line += (
            f"\n  comment by {clean_line(comment.get('login') or '?', 60)} (not a verdict): {said}"
        )
    if entry.tracking.get("receipt_error"):
        line += f"\n  receipt ignored: {clean_line(entry.tracking['receipt_error'])}"
    if entry.state in WAITING and entry.tracking.get("last_error"):
        line += f"\n  last check: {clean_line(entry.tracking['last_error'])}"
    return line


def run_submit(args: argparse.Namespace) -> int:
    return asyncio.run(_submit(args))


async def _submit(args: argparse.Namespace) -> int:
    # deferred: off the start path
    from tui.actions.catalog import get_action
    from tui.actions.connection import catalog_for
    from tui.actions.poster import CannotPost
    from tui.actions.token import TokenError
    from tui.read_only import ReadOnly

    try:
        async with _connected(args, _print_wait) as (service, side):
            try:
                spec = get_action(args.name, catalog_for(service.settings, side.docs))
            except KeyError as exc:
                _err(exc.args[0])
                return EXIT_USAGE
            try:
                payload, mistyped = _payload(args, spec)
            except ValueError as exc:
                _err(str(exc))
                return EXIT_USAGE
            if not _valid(spec, payload, mistyped):
                return EXIT_USAGE
            try:
                kind, request, nonce = _compose(spec, payload, side)
            except ValueError as exc:
                _err(f"{exc}; nothing was sent")
                return EXIT_USAGE
            await _warn_of_unknown_ids(service, spec, payload)
            return await _send(args, side, spec, payload, kind, request, nonce)
    except (TokenError, CannotPost, ReadOnly) as exc:
        _err(exc.describe())
        return EXIT_USAGE


def _valid(spec: Any, payload: dict[str, Any], mistyped: list[Any]) -> bool:
    """Whether ``payload`` may be sent as ``spec``; each problem (and each pattern too slow to
    check) is said on stderr. ``mistyped``: the fields whose typed value was not of their type,
    already quoted."""
    # deferred: off the start path
    from tui.actions.catalog import validate_payload
    from tui.actions.patterns import new_notices as pattern_notices

    quoted = {error.field for error in mistyped}
    errors = mistyped + [e for e in validate_payload(spec, payload) if e.field not in quoted]
    for notice in pattern_notices():
        _err(f"{spec.name}: {notice}")
    for error in errors:
        _err(f"{spec.name}: {error}")
    return not errors


def _compose(spec: Any, payload: dict[str, Any], side: Any) -> tuple[str, dict[str, Any], str]:
    """(kind, the exact request, its nonce) for one action; ``ValueError`` says why none."""
    # deferred: off the start path
    from tui.actions.compose import compose_request
    from tui.actions.deployment_docs import describe_manifest_problem
    from tui.actions.issue_body import new_nonce

    nonce = new_nonce()
    docs = side.docs
    kind, request = compose_request(
        spec,
        payload,
        nonce,
        docs.manifest.value if docs is not None else None,
        manifest_problem=describe_manifest_problem(docs) if docs is not None else "no read URL",
    )
    return kind, request, nonce


async def _send(
    args: argparse.Namespace,
    side: Any,
    spec: Any,
    payload: Any,
    kind: str,
    request: dict[str, Any],
    nonce: str,
) -> int:
    if args.dry_run:
        print(json.dumps(_dry_run(side, kind, request), indent=2, ensure_ascii=False))
        return EXIT_OK
    if not side.client.has_token:
        from tui.actions.issue_client import NO_TOKEN  # deferred: off the start path

        _err(f"{NO_TOKEN}; nothing was sent")
        return EXIT_USAGE
    entry = side.outbox.draft(
        spec.name, payload, nonce, kind=kind, request=request, label=spec.label
    )
    try:
        entry = await side.outbox.send(entry.id, side.client)
        if args.wait and entry.state in WAITING:
            entry = (await _follow(side, [entry.id], args.timeout))[0]
    except asyncio.CancelledError:  # ctrl+c: say what became of it before exiting 130
        _interrupted(side.outbox.read(entry.id))
        raise
    _report(entry, args)
    if args.wait and entry.state in WAITING:
        _waited_out(entry, args.timeout)
        return EXIT_UNKNOWN
    return _exit_for(entry)


def _interrupted(entry: Any) -> None:
    """What an action interrupted (ctrl+c) while sending or waiting had become, and the command
    that picks it up again (on stderr: standard output may be JSON)."""
    entry_id, action = clean_line(entry.id), clean_line(entry.action)
    if entry.state in ("draft", "sending", "unknown"):
        _err(
            f"interrupted while sending {action} [{entry_id}]: it may be on the platform; "
            f"`roost outbox retry {entry_id}` looks it up first and never sends it twice"
        )
        return
    where = f"#{entry.number} " if entry.number else ""
    state = clean_line(entry.state)
    if entry.state in WAITING:
        _err(
            f"{action} was sent: {where}({state}) [{entry_id}]; not waiting for the "
            f"processor's verdict: `roost outbox follow {entry_id}` waits for its verdict"
        )
    else:
        _err(f"{action} is {state} {where}[{entry_id}] (`roost outbox show {entry_id}`)")


def _waited_out(entry: Any, timeout: float) -> None:
    """Say that a wait ran out, and what is known of the entry then (on stderr: standard
    output may be JSON)."""
    where = f"#{entry.number}" if entry.number else clean_line(entry.id)
    if entry.kind in ("discussion_comment", "discussion_reaction"):
        known = "it is made; roost has not seen it on the post yet"
    elif entry.state == "received":
        known = "the processor received it; its verdict has not come yet"
    else:
        known = "it is on the platform; the processor has not answered yet"
    last = entry.tracking.get("last_error")
    checked = f"; the last check failed: {last}" if last else ""
    _err(
        f"the wait ran out after {timeout:g} s: {where} is {entry.state} ({known}){checked}; "
        f"`roost outbox follow {clean_line(entry.id)}` waits again"
    )


def _dry_run(side: Any, kind: str, request: dict[str, Any]) -> dict[str, Any]:
    """The exact request that would leave: method, URL, headers (token as ``***``), body."""
    from tui.actions.discussions import graphql_body, graphql_url  # deferred: off the start path

    headers = {**side.client.headers(redact=True), "Content-Type": "application/json"}
    if kind == "issue":
        return {
            "method": "POST",
            "url": side.client.issues_url,
            "headers": headers,
            "json": request,
        }
    return {
        "method": "POST",
        "url": graphql_url(side.client.write_url),
        "headers": headers,
        "json": graphql_body(kind, request),
    }


#: Entries still waiting for the processor's word (``--wait`` follows them).
WAITING = frozenset({"queued", "received"})


async def _follow(side: Any, ids: list[str], timeout: float) -> list[Any]:
    """Follow the entries ``ids`` (each check paced, receipts first) until none waits for the
    processor's word or ``timeout`` passes; returns them as kept now."""
    from tui.actions.tracking import follow_queued  # deferred: off the start path

    deadline = time.monotonic() + timeout
    while True:
        pending = [e for e in (side.outbox.read(i) for i in ids) if e.state in WAITING]
        if not pending or time.monotonic() >= deadline:
            return [side.outbox.read(i) for i in ids]
        for entry in pending:
            await follow_queued(
                side.outbox, side.client, docs=side.docs, processor=side.processor, only=entry.id
            )
        pending = [e for e in (side.outbox.read(i) for i in ids) if e.state in WAITING]
        if pending:
            next_at = min(float(e.tracking.get("next_at", 0)) for e in pending)
            pause = min(next_at - time.time(), deadline - time.monotonic())
            await asyncio.sleep(max(0.05, pause))


def _report(entry: Any, args: argparse.Namespace) -> None:
    if getattr(args, "json", False):
        print(json.dumps(clean_value(entry.as_json()), indent=2, ensure_ascii=False))
    else:
        print(_describe(entry))


# -- whoami -------------------------------------------------------------------------------------


def run_whoami(args: argparse.Namespace) -> int:
    return asyncio.run(_whoami(args))


async def _whoami(args: argparse.Namespace) -> int:
    """Exit 0 with the login; 1 the platform refused or did not say; 2 no token, or settings
    that do not allow posting; 3 the platform was unreachable."""
    # deferred: off the start path
    from tui.actions.issue_client import NO_TOKEN, LookupFailed, PlatformUnreachable
    from tui.actions.poster import CannotPost
    from tui.actions.token import TokenError
    from tui.read_only import ReadOnly

    try:
        async with _write_side(args) as side:
            if not side.client.has_token:
                _err(NO_TOKEN)
                return EXIT_USAGE
            who = await side.client.whoami()
    except (TokenError, CannotPost, ReadOnly) as exc:
        _err(exc.describe())
        return EXIT_USAGE
    except PlatformUnreachable as exc:
        _err(str(exc))
        return EXIT_UNREACHABLE
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
