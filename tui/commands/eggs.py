"""`roost boots` and `roost egg verify|ls|cat`: boot records and their eggs from the shell.

The same core as the Boots tab: :mod:`tui.eggs.sources` reads the records,
:mod:`tui.eggs.download` fetches an egg (hub URL rule, size cap, sha256, cache) and
:func:`tui.eggs.verify.verify_egg` judges it. Nothing from an egg is run or extracted: `egg cat`
copies one verified entry's bytes to a pipe, and shows text on a terminal only after it has
been through ``tui/untrusted.py``.

Exit codes: 0 every check passes · 1 a check fails (or a record has problems) · 2 usage (a
missing egg file included) · 3 the source, hub or egg could not be reached (or the egg cache
cannot be written).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tui.commands import (
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    service_options,
    settings_from,
)
from tui.network.urls import redact_url
from tui.untrusted import clean, clean_line

if TYPE_CHECKING:
    from tui.eggs.boot_record import BootRecord
    from tui.eggs.egg_report import EggReport
    from tui.service import Service

__all__ = ["register"]

_MARKS = {"pass": "✓", "fail": "✗", "skip": "–"}


class _Stop(Exception):
    """End the command with ``code`` after printing ``message`` to stderr."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def register(sub: argparse._SubParsersAction) -> None:
    boots = sub.add_parser(
        "boots",
        help="list the boot records of the boot-record source",
        description="Read the boot-record source (--boots, ROOST_BOOTS, the config; the demo "
        "hub's index on the demo network) and list its records with their problems.",
        epilog="exit: 0 all records good · 1 a record has problems or warnings · 2 usage · "
        "3 source unreachable and nothing cached",
    )
    service_options(boots, interval=False)
    boots.add_argument("--json", action="store_true", help="print the records as JSON")
    boots.set_defaults(handler=_run(_boots))

    egg = sub.add_parser(
        "egg",
        help="verify an egg, list it or print one of its files (never runs anything)",
        description="Verify a RAPP/1 egg against every rule, alone or against its boot record.",
    )
    actions = egg.add_subparsers(dest="egg_command", metavar="ACTION", required=True)
    verify = actions.add_parser(
        "verify",
        help="verify an egg and print the report",
        epilog="exit: 0 all checks pass · 1 a check fails · 2 usage · 3 unreachable",
    )
    _target_options(verify)
    verify.add_argument("--json", action="store_true", help='print {"ok", "checks": [...]}')
    verify.set_defaults(handler=_run(_verify), parser=verify)
    listing = actions.add_parser("ls", help="list the files of a verified egg")
    _target_options(listing)
    listing.set_defaults(handler=_run(_ls), parser=listing)
    cat = actions.add_parser(
        "cat",
        help="print one file of a verified egg (its bytes, to a pipe)",
        description="Write one entry's bytes to stdout after the whole egg verified. On a "
        "terminal, text is shown with control characters made visible and binary is refused.",
    )
    cat.add_argument("entry", metavar="PATH-IN-EGG", help="the file inside the egg")
    _target_options(cat)
    cat.set_defaults(handler=_run(_cat), parser=cat)
    inspect = actions.add_parser(
        "inspect",
        help="open the egg inspector on one egg (report, files, viewer, hatch; keys only)",
        epilog="exit: 0 the egg verified · 1 a check failed · 2 usage · 3 unreachable",
    )
    _target_options(inspect)
    inspect.set_defaults(handler=_run(_inspect), parser=inspect)


def _target_options(parser: argparse.ArgumentParser) -> None:
    service_options(parser, interval=False)
    parser.add_argument("target", nargs="?", metavar="PATH|URL", help="the egg file or its URL")
    parser.add_argument("--slug", help="the egg of this boot record of the boot-record source")
    parser.add_argument(
        "--record", metavar="PATH|URL", help="the boot record promising the egg (adds its checks)"
    )


def _run(command):  # noqa: ANN001, ANN202 - a small decorator for the handlers below
    def handler(args: argparse.Namespace) -> int:
        parser = getattr(args, "parser", None)
        if parser is not None and (args.target is None) == (args.slug is None):
            parser.error("give exactly one of PATH|URL or --slug SLUG")
        if parser is not None and args.slug is not None and args.record is not None:
            parser.error("--record is for PATH|URL; --slug takes its record from the source")
        return asyncio.run(_main(command, args))

    return handler


async def _main(command, args: argparse.Namespace) -> int:  # noqa: ANN001
    from tui.service import connect

    service = connect(settings_from(args))
    try:
        return await command(args, service, sys.stdout)
    except _Stop as stop:
        print(f"roost: {clean_line(stop.message)}", file=sys.stderr)
        return stop.code
    finally:
        await service.aclose()


# --------------------------------------------------------------------------- boots


def _cache_root(service: Service) -> Path | None:
    return service.settings.cache_dir


async def _load(service: Service, source: str | None = None):  # noqa: ANN202
    from tui.eggs.record_cache import RecordCache
    from tui.eggs.sources import load_boots

    source = source or service.settings.boots
    if not source:
        raise _Stop(
            EXIT_USAGE,
            "no boot-record source: give --boots URL|PATH, set ROOST_BOOTS or boots in the config",
        )
    cache = RecordCache.for_source(source, _cache_root(service))
    return await load_boots(
        source, client=service.hub_client(), hub_url=service.hub_url, cache=cache
    )


def _downloads(service: Service):  # noqa: ANN202
    from tui.eggs.download import EggCache
    from tui.eggs.pipeline import Downloads

    return Downloads(service.hub_client(), EggCache.for_hub(service.hub_url, _cache_root(service)))


async def _boots(args: argparse.Namespace, service: Service, out: TextIO) -> int:
    from tui.eggs.pipeline import check_egg

    boots = await _load(service)
    downloads = _downloads(service)
    verdicts = [
        (await check_egg(None, e.record, hub_url=service.hub_url, downloads=downloads,
                         download=False)).verdict
        if e.record is not None
        else None
        for e in boots.entries
    ]  # fmt: skip
    if not boots.entries and boots.problems:
        code = EXIT_NOTHING if not boots.reachable else EXIT_PROBLEMS
    else:
        code = EXIT_OK if boots.ok else EXIT_PROBLEMS
    if args.json:
        document = boots.as_json()
        for entry, verdict in zip(document["entries"], verdicts, strict=True):
            entry["egg"] = verdict
        document["exit_code"] = code
        json.dump(document, out, ensure_ascii=True, indent=1)
        out.write("\n")
        return code
    print(f"boot records from {clean_line(redact_url(boots.source), 200)}", file=out)
    for problem in boots.problems:
        print(f"  ! {clean_line(problem, 300)}", file=out)
    for entry, verdict in zip(boots.entries, verdicts, strict=True):
        record = entry.record
        if record is None:
            print(f"  ✗ {clean_line(entry.origin, 60)}", file=out)
        else:
            cached = " (cached copy)" if entry.cached else ""
            print(
                f"  {'✓' if entry.ok and not entry.warnings else '!'} "
                f"{clean_line(record.slug, 40):<40} {record.egg.bytes:>11,} B  "
                f"{verdict}{cached}  {clean_line(record.name, 60)}",
                file=out,
            )
        for problem in entry.problems:
            print(f"      problem: {clean_line(problem, 300)}", file=out)
        for warning in entry.warnings:
            print(f"      warning: {clean_line(warning, 300)}", file=out)
    good = sum(1 for e in boots.entries if e.ok)
    print(f"{good} of {len(boots.entries)} records good", file=out)
    return code


# --------------------------------------------------------------------------- eggs


@dataclass
class _Egg:
    """The egg to judge: a file, the record that promises it (if any), and its report."""

    path: Path | None
    record: BootRecord | None
    report: EggReport


async def _record_from(service: Service, location: str) -> tuple[BootRecord | None, str | None]:
    """The one record at ``location``, or ``(None, why)`` when what is there is not a boot
    record (a failed ``record.document`` check, not a usage error: it is hostile input too)."""
    if not location.startswith(("http://", "https://")) and not Path(location).exists():
        raise _Stop(EXIT_USAGE, f"--record {location}: no such file or folder")
    boots = await _load(service, location)
    if boots.problems and not boots.entries:
        if not boots.reachable:
            raise _Stop(EXIT_NOTHING, f"--record: {boots.problems[0]}")
        return None, "; ".join(boots.problems)
    if len(boots.entries) != 1:
        raise _Stop(EXIT_USAGE, f"--record {location}: {len(boots.entries)} records there, not one")
    entry = boots.entries[0]
    if entry.record is None:
        return None, "; ".join(entry.problems) or "not a boot record"
    return entry.record, None


class _Progress:
    """The download's progress on one line of a terminal's stderr, ended by :meth:`end`."""

    def __init__(self) -> None:
        self.open = False

    def __call__(self, received: int, total: int) -> None:
        done = received >= total
        print(f"\rdownloading {received:,} / {total:,} bytes", end="\n" if done else "",
              file=sys.stderr)  # fmt: skip
        self.open = not done

    def end(self) -> None:
        """A download that stopped part-way: the next message starts on its own line."""
        if self.open:
            print(file=sys.stderr)
            self.open = False


def _progress() -> _Progress | None:
    return _Progress() if sys.stderr.isatty() else None


async def _obtain(args: argparse.Namespace, service: Service) -> _Egg:
    """Find, download (when it is remote) and judge the egg the arguments name."""
    from tui.eggs.pipeline import check_egg

    hub_url = service.hub_url
    record = None
    refused = None
    if args.slug is not None:
        boots = await _load(service)
        entry = boots.find(args.slug)
        if entry is None:
            _no_record_for(args.slug, boots)
        assert entry is not None
        if entry.cached:
            why = "; ".join(entry.problems) or "the source did not give it"
            print(
                f"roost: note: the boot record of {clean_line(args.slug, 80)} is the last good "
                f"copy from the cache ({clean_line(why, 300)})",
                file=sys.stderr,
            )
        record = entry.record
    elif args.record is not None:
        record, refused = await _record_from(service, args.record)
    target: str | None = args.target
    remote = target is None or target.startswith(("http://", "https://"))
    if record is not None and target is not None and remote and target != record.egg.url:
        raise _Stop(EXIT_USAGE, f"{target} is not the record's egg.url {record.egg.url}")
    source: Path | str | None = target if remote else _local_egg(target or "")
    if record is not None and remote:
        source = None  # the record's egg: from the cache, or the hub
    progress = _progress()
    outcome = await check_egg(
        source,
        record,
        hub_url=hub_url if record is not None else None,
        downloads=_downloads(service),
        progress=progress,
        record_refused=refused,
    )
    if progress is not None:
        progress.end()
    if outcome.report is None:
        raise _Stop(EXIT_NOTHING, outcome.error or "the egg could not be read")
    path = outcome.egg if isinstance(outcome.egg, Path) else None
    return _Egg(path, record, outcome.report)


def _no_record_for(slug: str, boots: Any) -> None:
    """Stop: no usable record has ``slug``. Its own record failing (an index entry names its
    slug) is a record problem (1), or 3 when the source could not be reached; a slug nobody
    names is a usage error (2)."""
    if not boots.reachable and not boots.entries:
        raise _Stop(EXIT_NOTHING, "; ".join(boots.problems))
    failed = [e for e in boots.entries if e.record is None]
    named = [e for e in failed if slug in e.origin.split()]
    code = EXIT_NOTHING if not boots.reachable else EXIT_PROBLEMS
    if named:
        raise _Stop(
            code, f"the boot record of {slug!r} cannot be used: {'; '.join(named[0].problems)}"
        )
    known = ", ".join(sorted(e.slug for e in boots.entries if e.slug)[:12]) or "none"
    message = f"no boot record with slug {slug!r} (known: {known})"
    if failed:
        first = (failed[0].problems or (failed[0].origin,))[0]
        message += f"; {len(failed)} record(s) of the source cannot be used: {first}"
    raise _Stop(EXIT_USAGE if boots.reachable else EXIT_NOTHING, message)


def _local_egg(target: str) -> Path:
    """A local egg path that names a file (a missing path or a folder is a usage error)."""
    path = Path(target)
    if not path.exists():
        raise _Stop(EXIT_USAGE, f"{target}: no such file")
    if path.is_dir():
        raise _Stop(EXIT_USAGE, f"{target}: is a folder, not an egg file")
    return path


def _print_report(report: EggReport, out: TextIO) -> None:
    for position, check in enumerate(report.checks, start=1):
        print(
            f"{_MARKS[check.status]} {position:>2}. {check.id:<20} {clean_line(check.name, 70)}"
            f"\n        {clean_line(check.detail, 300)}",
            file=out,
        )
    failure = report.first_failure
    if failure is None:
        counts = {s: sum(1 for c in report.checks if c.status == s) for s in ("pass", "skip")}
        print(f"verified: {counts['pass']} checks pass, {counts['skip']} do not apply", file=out)
    else:
        position, check = failure
        print(f"FAILED at check {position} ({check.id}): {clean_line(check.detail, 300)}", file=out)


async def _verify(args: argparse.Namespace, service: Service, out: TextIO) -> int:
    egg = await _obtain(args, service)
    if args.json:
        json.dump(egg.report.as_json(), out, ensure_ascii=True, indent=1)
        out.write("\n")
    else:
        _print_report(egg.report, out)
    return EXIT_OK if egg.report.ok else EXIT_PROBLEMS


async def _verified(args: argparse.Namespace, service: Service) -> _Egg:
    """The egg, or a stop with the report on stderr: `ls` and `cat` show verified eggs only."""
    egg = await _obtain(args, service)
    if not egg.report.ok or egg.path is None:
        _print_report(egg.report, sys.stderr)
        raise _Stop(EXIT_PROBLEMS, "the egg did not verify: nothing is shown from it")
    return egg


async def _ls(args: argparse.Namespace, service: Service, out: TextIO) -> int:
    egg = await _verified(args, service)
    for entry in egg.report.entries:
        status = {True: "hash ok", False: "HASH BAD", None: "manifest"}[entry.hash_ok]
        print(f"{entry.size:>12,}  {status:<8}  {clean_line(entry.name)}", file=out)
    return EXIT_OK


async def _cat(args: argparse.Namespace, service: Service, out: TextIO) -> int:
    egg = await _verified(args, service)
    entry = next((e for e in egg.report.entries if e.name == args.entry), None)
    if entry is None:
        names = ", ".join(clean_line(e.name) for e in egg.report.entries[:20])
        raise _Stop(EXIT_USAGE, f"no file {args.entry!r} in the egg (it has: {names})")
    assert egg.path is not None
    with egg.path.open("rb") as handle:
        handle.seek(entry.data_offset)
        data = handle.read(entry.size)
    return _write_entry(data, args.entry, out)


def _write_entry(data: bytes, name: str, out: Any) -> int:
    """Bytes as they are to a pipe; on a terminal only text, with controls made visible."""
    if not out.isatty():
        out.flush()
        out.buffer.write(data)
        out.buffer.flush()
        return EXIT_OK
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or "\0" in text:
        raise _Stop(
            EXIT_USAGE,
            f"{name} is binary: pipe it to a viewer (roost egg cat {name} … | xxd | less)",
        )
    out.write(clean(text, multiline=True))
    if not text.endswith("\n"):
        out.write("\n")
    return EXIT_OK


def _a_terminal() -> bool:
    return sys.stdout.isatty() and sys.stdin.isatty()


async def _inspect(args: argparse.Namespace, service: Service, out: TextIO) -> int:
    """The inspector on the egg: verified first (the report opens it), nothing run. An egg
    refused before it could be read opens on the report of why (no file to show)."""
    if not _a_terminal():
        raise _Stop(
            EXIT_USAGE,
            "egg inspect needs a terminal; to read an egg from a script use "
            "roost egg verify --json, roost egg ls or roost egg cat",
        )
    egg = await _obtain(args, service)
    from tui.ui.screens.boots.inspector_app import InspectorApp

    app = InspectorApp(egg.path, egg.record, report=egg.report)
    await app.run_async()
    return EXIT_OK if egg.report.ok else EXIT_PROBLEMS
