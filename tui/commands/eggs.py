"""`roost boots` and `roost egg verify|ls|cat|inspect`: boot records, stores and their eggs.

The same core as the Boots tab: :mod:`tui.eggs.sources` reads the records and store indexes,
:func:`tui.eggs.pipeline.check_egg` finds, downloads and judges an egg. Nothing from an egg is
run or extracted: `egg cat` copies one entry's bytes to a pipe, and shows text on a terminal
only after it has been through ``tui/untrusted.py``.

A record read from a file or a URL (``--record``) is held to the hub the user configured
(``--hub-url``, the environment, the config), else to its own hub; records of the boot-record
source to the configured hub, else to the hub whose index they came from. The demo hub is
assumed only for the demo's own publications.

Exit codes: 0 verified under RAPP/1 (``ls``/``cat``: shown) · 1 a check fails (or a record has
problems) · 2 usage (a missing egg file included) · 3 the source, hub or egg could not be reached
(or the egg cache cannot be written) · 5 a legacy egg (from before RAPP/1) in which no check
failed: read safely, never called verified.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tui.commands import (
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    counted,
    load_from,
    service_options,
)
from tui.network.urls import redact_url
from tui.untrusted import clean, clean_line

if TYPE_CHECKING:
    from tui.eggs.boot_record import BootRecord
    from tui.eggs.egg_report import EggReport
    from tui.eggs.pipeline import Downloads
    from tui.eggs.sources import BootSet
    from tui.eggs.store import StoreApp
    from tui.eggs.unverified import FailedEgg
    from tui.service import Service

__all__ = ["EXIT_LEGACY", "register"]

EXIT_LEGACY = 5
_MARKS = {"pass": "✓", "fail": "✗", "skip": "–"}
_INDENT = " " * 8


class _Stop(Exception):
    """End the command with ``code`` after printing ``message`` to stderr."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def register(sub: argparse._SubParsersAction) -> None:
    boots = sub.add_parser(
        "boots",
        help="list the boot records and store rapplications of the boot-record source",
        description="Read the boot-record source (--boots, ROOST_BOOTS, the config; the demo "
        "hub's index and store on the demo network): hub indexes, records, folders of records "
        "or a store's index, several separated by commas. List each record or rapplication "
        "with its problems and what is known of its egg.",
        epilog="exit: 0 all good · 1 a record has problems or warnings · 2 usage · "
        "3 source unreachable and nothing cached",
    )
    service_options(boots, interval=False)
    boots.add_argument("--json", action="store_true", help="print the sources as JSON")
    boots.set_defaults(handler=_run(_boots))

    egg = sub.add_parser(
        "egg",
        help="verify an egg, list it or print one of its files (never runs anything)",
        description="Verify a RAPP/1 egg against every rule, alone or against its boot record; "
        "an egg from before RAPP/1 is recognised, read safely and checked against its store "
        "record, never called verified.",
    )
    actions = egg.add_subparsers(dest="egg_command", metavar="ACTION", required=True)
    verify = actions.add_parser(
        "verify",
        help="verify an egg and print the report",
        epilog="exit: 0 verified under RAPP/1 · 1 a check fails · 2 usage · 3 unreachable · "
        "5 a legacy egg in which nothing failed (not verifiable under RAPP/1)",
    )
    _target_options(verify)
    verify.add_argument(
        "--json", action="store_true", help='print {"ok", "verified", "format", "checks": [...]}'
    )
    verify.set_defaults(handler=_run(_verify), parser=verify)
    listing = actions.add_parser(
        "ls", help="list the files of an egg that passed its checks (RAPP/1 or legacy)"
    )
    _target_options(listing)
    listing.add_argument("--json", action="store_true", help='print {"format", "entries": [...]}')
    _unverified_option(listing)
    listing.set_defaults(handler=_run(_ls), parser=listing)
    cat = actions.add_parser(
        "cat",
        help="print one file of an egg that passed its checks (its bytes, to a pipe)",
        usage="%(prog)s [options] EGG PATH-IN-EGG | --slug SLUG PATH-IN-EGG",
        description="Write one entry's bytes to stdout after the whole egg passed its checks. "
        "On a terminal, text is shown with control characters made visible and binary is "
        "refused. The egg comes first, as in verify and ls (PATH-IN-EGG EGG still works when "
        "only the second names an egg).",
    )
    cat.add_argument("items", nargs="+", metavar="EGG PATH-IN-EGG", help=argparse.SUPPRESS)
    _unverified_option(cat)
    _target_options(cat, target=False)
    cat.set_defaults(handler=_run(_cat), parser=cat)
    inspect = actions.add_parser(
        "inspect",
        help="open the egg inspector on one egg (report, files, viewer, hatch; keys only)",
        epilog="exit: 0 verified · 1 a check failed · 2 usage · 3 unreachable · 5 legacy egg",
    )
    _target_options(inspect)
    inspect.set_defaults(handler=_run(_inspect), parser=inspect)


def _target_options(parser: argparse.ArgumentParser, *, target: bool = True) -> None:
    service_options(parser, interval=False)
    if target:
        parser.add_argument("target", nargs="?", metavar="PATH|URL", help="the egg file or its URL")
    parser.add_argument(
        "--slug", help="the egg of this boot record (or store rapplication id) of the source"
    )
    parser.add_argument(
        "--record",
        metavar="PATH|URL",
        help="the boot record (or a store's rapplication record, a file) promising the egg",
    )


def _unverified_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--unverified",
        action="store_true",
        help="also an egg that failed a check: read by the safe reader, each file's hash "
        "status shown, said on stderr (exit 1: nothing in it is vouched for)",
    )


def _looks_like_egg(item: str) -> bool:
    return item.startswith(("http://", "https://")) or Path(item).is_file()


def _cat_items(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``EGG PATH`` (or ``PATH EGG`` when only the second names an egg), or ``--slug S PATH``."""
    items = args.items
    if args.slug is not None:
        if len(items) != 1:
            parser.error("with --slug, give only the PATH-IN-EGG")
        args.target, args.entry = None, items[0]
        return
    if len(items) != 2:
        parser.error("give EGG PATH-IN-EGG (or --slug SLUG PATH-IN-EGG)")
    first, second = items
    if _looks_like_egg(second) and not _looks_like_egg(first):
        first, second = second, first  # the old order, unambiguous
    args.target, args.entry = first, second


def _run(command):  # noqa: ANN001, ANN202 - a small decorator for the handlers below
    def handler(args: argparse.Namespace) -> int:
        parser = getattr(args, "parser", None)
        if parser is not None and hasattr(args, "items"):
            _cat_items(parser, args)
        if parser is not None and args.target is None and args.slug is None:
            parser.error(
                "give the egg (PATH|URL), --slug SLUG, or both (a local egg judged "
                "against that record of the source)"
            )
        if parser is not None and args.slug is not None and args.record is not None:
            parser.error("--record is for PATH|URL; --slug takes its record from the source")
        return asyncio.run(_main(command, args))

    return handler


async def _main(command, args: argparse.Namespace) -> int:  # noqa: ANN001
    from tui.service import connect  # deferred: off the start path

    service = connect(*load_from(args))
    try:
        return await command(args, service, sys.stdout)
    except _Stop as stop:
        print(f"roost: {clean_line(stop.message)}", file=sys.stderr)
        return stop.code
    finally:
        await service.aclose()


# --------------------------------------------------------------------------- sources


def _cache_root(service: Service) -> Path | None:
    return service.settings.cache_dir


async def _load(service: Service, source: str, hub_url: str | None) -> BootSet:
    # deferred: off the start path
    from tui.eggs.record_cache import RecordCache
    from tui.eggs.sources import load_boots

    cache = RecordCache.for_source(source, _cache_root(service))
    return await load_boots(source, client=service.hub_client(), hub_url=hub_url, cache=cache)


async def _sources(service: Service) -> list[BootSet]:
    """Every source of the ``boots`` setting, read; each source's records held to its hub."""
    from tui.eggs.hub_paths import records_hub, split_sources  # deferred: off the start path

    setting = service.settings.boots
    if not setting:
        raise _Stop(
            EXIT_USAGE,
            "no boot-record source: give --boots URL|PATH, set ROOST_BOOTS or boots in the config",
        )
    demo_hub = service.hub_url if service.demo else None
    sets = []
    for source in split_sources(setting):
        hub = records_hub(source, configured=service.configured_hub_url, demo_hub=demo_hub)
        sets.append(await _load(service, source, hub))
    return sets


def _downloads(service: Service, origin: str | None = None) -> Downloads:
    # deferred: off the start path
    from tui.eggs.download import EggCache
    from tui.eggs.pipeline import Downloads

    cache = EggCache.for_hub(origin or service.hub_url, _cache_root(service))
    return Downloads(service.hub_client(), cache)


async def _boots(args: argparse.Namespace, service: Service, out: TextIO) -> int:
    from tui.eggs.pipeline import check_egg  # deferred: off the start path

    sets = await _sources(service)
    verdicts: list[list[str]] = []
    for boots in sets:
        found = []
        for entry in boots.entries:
            outcome = (
                await check_egg(
                    None,
                    entry.record,
                    hub_url=entry.hub_url,
                    downloads=_downloads(service),
                    download=False,
                )  # fmt: skip
                if entry.record is not None
                else None
            )
            found.append(outcome.verdict if outcome is not None else "no record")
        for app in boots.apps:
            outcome = await check_egg(None, app, downloads=_downloads(service, app.egg_origin),
                                      download=False)  # fmt: skip
            found.append(outcome.verdict)
        verdicts.append(found)
    code = max(_set_code(boots) for boots in sets)
    if args.json:
        documents = []
        for boots, found in zip(sets, verdicts, strict=True):
            document = boots.as_json()
            document["hub"] = boots.hub_url
            items = [*document["entries"], *document.get("apps", [])]
            for item, verdict in zip(items, found, strict=True):
                item["egg"] = verdict
            documents.append(document)
        json.dump({"sources": documents, "exit_code": code}, out, ensure_ascii=True, indent=1)
        out.write("\n")
        return code
    for boots, found in zip(sets, verdicts, strict=True):
        _print_set(boots, found, out)
    return code


def _print_notes(row: Any, out: TextIO) -> None:
    for problem in row.problems:
        print(f"      problem: {clean_line(problem)}", file=out)
    for warning in row.warnings:
        print(f"      warning: {clean_line(warning)}", file=out)


def _set_code(boots: BootSet) -> int:
    if not boots.entries and not boots.apps and boots.problems:
        return EXIT_NOTHING if not boots.reachable else EXIT_PROBLEMS
    return EXIT_OK if boots.ok else EXIT_PROBLEMS


def _print_set(boots: BootSet, verdicts: list[str], out: TextIO) -> None:
    kind = "store rapplications" if boots.kind == "store" else "boot records"
    print(f"{kind} from {clean_line(redact_url(boots.source))}", file=out)
    for problem in boots.problems:
        print(f"  ! {clean_line(problem)}", file=out)
    for entry, verdict in zip(boots.entries, verdicts, strict=False):
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
        _print_notes(entry, out)
    for app, verdict in zip(boots.apps, verdicts[len(boots.entries) :], strict=True):
        size = f"{app.egg_bytes:>11,} B" if app.egg_bytes is not None else f"{'—':>13}"
        by = " ".join(p for p in (app.publisher, app.version, app.category) if p)
        print(
            f"  {'!' if app.problems else '✓'} {clean_line(app.id, 40):<40} {size}  "
            f"{verdict}  {clean_line(app.name, 40)} ({clean_line(by, 60)})",
            file=out,
        )
        _print_notes(app, out)
    good = sum(1 for e in boots.entries if e.ok) + sum(1 for a in boots.apps if not a.problems)
    total = len(boots.entries) + len(boots.apps)
    noun = "rapplication" if boots.kind == "store" else "record"
    print(f"{good} of {counted(total, noun)} good", file=out)


# --------------------------------------------------------------------------- eggs


@dataclass
class _Egg:
    """The egg judged: its file (None: refused before it was kept), the record or store
    rapplication that promised it, and its report."""

    path: Path | None
    record: BootRecord | StoreApp | None
    report: EggReport
    #: a failed egg looked at with ``--unverified``: what the safe reader found
    failed: FailedEgg | None = None


async def _record_from(
    service: Service, location: str
) -> tuple[BootRecord | StoreApp | None, str | None]:
    """The one record at ``location`` (a boot record, or a store's rapplication record in a
    file), or ``(None, why)`` when what is there is not a record (a failed
    ``record.document`` check, not a usage error: it is hostile input too)."""
    from tui.eggs.store import RECORD_SCHEMA, app_from_record  # deferred: off the start path

    is_url = location.startswith(("http://", "https://"))
    if not is_url and not Path(location).exists():
        raise _Stop(EXIT_USAGE, f"--record {location}: no such file or folder")
    if not is_url and Path(location).is_file():
        try:
            value = json.loads(Path(location).read_bytes()[: 1 << 20])
        except (OSError, ValueError):
            value = None
        if isinstance(value, dict) and value.get("schema") == RECORD_SCHEMA:
            return app_from_record(value, location), None
    boots = await _load(service, location, service.configured_hub_url)
    if boots.problems and not boots.entries:
        if not boots.reachable:
            raise _Stop(EXIT_NOTHING, f"--record: {boots.problems[0]}")
        return None, "; ".join(boots.problems)
    if len(boots.entries) != 1:
        raise _Stop(
            EXIT_USAGE,
            f"--record {location} holds {len(boots.entries)} records; --record takes one "
            f"(to pick one by its slug: --boots {location} --slug SLUG)",
        )
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


async def _by_slug(args: argparse.Namespace, service: Service) -> tuple[Any, str | None]:
    """The record (or store rapplication) called ``--slug`` in the source, and its hub."""
    sets = await _sources(service)
    for boots in sets:
        entry = boots.find(args.slug)
        if entry is not None:
            if entry.cached:
                why = "; ".join(entry.problems) or "the source did not give it"
                print(
                    f"roost: note: the boot record of {clean_line(args.slug, 80)} is the last "
                    f"good copy from the cache ({clean_line(why)})",
                    file=sys.stderr,
                )
            args.mirror = entry.mirror
            return entry.record, entry.hub_url
        app = boots.find_app(args.slug)
        if app is not None:
            return app, None
    _no_record_for(args.slug, sets)
    raise AssertionError  # _no_record_for stops


async def _obtain(args: argparse.Namespace, service: Service) -> _Egg:
    """Find, download (when it is remote) and judge the egg the arguments name."""
    # deferred: off the start path
    from tui.eggs.pipeline import check_egg
    from tui.eggs.store import StoreApp

    record: Any = None
    refused = None
    hub_url = None
    if args.slug is not None:
        record, hub_url = await _by_slug(args, service)
    elif args.record is not None:
        record, refused = await _record_from(service, args.record)
        hub_url = service.configured_hub_url
    target: str | None = args.target
    remote = target is None or target.startswith(("http://", "https://"))
    promised = record.egg_url if isinstance(record, StoreApp) else record and record.egg.url
    if record is not None and target is not None and remote and target != promised:
        raise _Stop(EXIT_USAGE, f"{target} is not the record's egg.url {promised}")
    source: Path | str | None = target if remote else _local_egg(target or "")
    if record is not None and remote:
        source = None  # the record's egg: from the cache, or where the record says
    origin = record.egg_origin if isinstance(record, StoreApp) else None
    progress = _Progress() if sys.stderr.isatty() else None
    outcome = await check_egg(
        source,
        record,
        hub_url=hub_url,
        downloads=_downloads(service, origin),
        progress=progress,
        record_refused=refused,
        mirror=getattr(args, "mirror", None),
    )
    if progress is not None:
        progress.end()
    if outcome.report is None:
        raise _Stop(EXIT_NOTHING, outcome.error or "the egg could not be read")
    path = outcome.egg if isinstance(outcome.egg, Path) else None
    return _Egg(path, record, outcome.report)


def _no_record_for(slug: str, sets: list[BootSet]) -> None:
    """Stop: no usable record has ``slug``. Its own record failing (an index entry names its
    slug) is a record problem (1), or 3 when the source could not be reached; a slug nobody
    names is a usage error (2)."""
    reachable = all(b.reachable for b in sets)
    entries = [e for b in sets for e in b.entries]
    if not reachable and not entries and not any(b.apps for b in sets):
        raise _Stop(EXIT_NOTHING, "; ".join(p for b in sets for p in b.problems))
    failed = [e for e in entries if e.record is None]
    named = [e for e in failed if slug in e.origin.split()]
    if named:
        code = EXIT_NOTHING if not reachable else EXIT_PROBLEMS
        raise _Stop(
            code, f"the boot record of {slug!r} cannot be used: {'; '.join(named[0].problems)}"
        )
    ids = [e.slug for e in entries if e.slug] + [a.id for b in sets for a in b.apps]
    known = ", ".join(sorted(ids)[:12]) or "none"
    message = f"no boot record or store rapplication {slug!r} (known: {known})"
    if failed:
        first = (failed[0].problems or (failed[0].origin,))[0]
        message += f"; {counted(len(failed), 'record')} of the source cannot be used: {first}"
    raise _Stop(EXIT_USAGE if reachable else EXIT_NOTHING, message)


def _local_egg(target: str) -> Path:
    """A local egg path that names a file (a missing path or a folder is a usage error)."""
    path = Path(target)
    if not path.exists():
        raise _Stop(EXIT_USAGE, f"{target}: no such file")
    if path.is_dir():
        raise _Stop(EXIT_USAGE, f"{target}: is a folder, not an egg file")
    return path


def _width(out: TextIO) -> int | None:
    """The terminal's width to wrap at, or None into a pipe or a file (lines stay whole)."""
    isatty = getattr(out, "isatty", None)
    if isatty is None or not isatty():
        return None
    return max(40, shutil.get_terminal_size().columns)


def _wrapped(text: str, width: int | None, indent: str = "") -> str:
    """``text`` made printable and wrapped to ``width`` (never cut), each line indented."""
    text = clean_line(text)
    if width is None:
        return indent + text
    return textwrap.fill(text, width, initial_indent=indent, subsequent_indent=indent or "    ",
                         break_on_hyphens=False)  # fmt: skip


def _summary(report: EggReport) -> str:
    """The report's last line: verified, legacy, or the first failure in full."""
    from tui.eggs.egg_report import NOT_REPRODUCIBLE  # deferred: off the start path

    failure = report.first_failure
    if failure is not None:
        position, check = failure
        return f"FAILED at check {position} ({check.id}): {check.detail}"
    passed = sum(1 for c in report.checks if c.status == "pass")
    skipped = sum(1 for c in report.checks if c.status == "skip")
    apart = f"{skipped} {'does' if skipped == 1 else 'do'} not apply"
    if report.legacy:
        apply = "applies passes" if passed == 1 else "apply pass"
        return f"{report.kind}; the {counted(passed, 'check')} that {apply}, {apart}"
    packaging = f"; {NOT_REPRODUCIBLE} (see above)" if report.reproducibility else ""
    return f"verified: {counted(passed, 'check')} {'passes' if passed == 1 else 'pass'}, {apart}{packaging}"  # fmt: skip


def _print_report(report: EggReport, out: TextIO) -> None:
    from tui.eggs.report_notes import report_notes  # deferred: off the start path

    width = _width(out)
    for position, check in enumerate(report.checks, start=1):
        print(_wrapped(f"{_MARKS[check.status]} {position:>2}. {check.id:<20} {check.name}", width), file=out)  # fmt: skip
        if check.detail:
            print(_wrapped(check.detail, width, _INDENT), file=out)
    listing = False  # the lines after a header ending in ':' are its items, indented
    for line in report_notes(report):
        print(_wrapped(line, width, _INDENT if listing else ""), file=out)
        listing = listing or line.endswith(":")
    print(_wrapped(_summary(report), width), file=out)


def _exit(report: EggReport) -> int:
    if not report.ok:
        return EXIT_PROBLEMS
    return EXIT_LEGACY if report.legacy else EXIT_OK


async def _verify(args: argparse.Namespace, service: Service, out: TextIO) -> int:
    egg = await _obtain(args, service)
    if args.json:
        json.dump(egg.report.as_json(), out, ensure_ascii=True, indent=1)
        out.write("\n")
    else:
        _print_report(egg.report, out)
    return _exit(egg.report)


async def _shown(args: argparse.Namespace, service: Service) -> _Egg:
    """The egg, or a stop with the report on stderr: `ls` and `cat` show only an egg in which
    no check failed (a legacy one is said to be so), unless ``--unverified`` asks for what can
    be read of a failed one (said on stderr, the files looked at by the safe reader)."""
    egg = await _obtain(args, service)
    if egg.path is None:
        _print_report(egg.report, sys.stderr)
        raise _Stop(EXIT_PROBLEMS, "the egg was refused before it was kept: nothing to show")
    if not egg.report.ok and args.unverified and not egg.report.legacy:
        return await _looked_at(egg)
    if not egg.report.ok:
        _print_report(egg.report, sys.stderr)
        hint = " (--unverified shows what can be read of it)" if not egg.report.legacy else ""
        raise _Stop(EXIT_PROBLEMS, f"the egg did not verify: nothing is shown from it{hint}")
    if egg.report.legacy:
        print(f"roost: note: {egg.report.kind}; its files are shown as they are", file=sys.stderr)
    return egg


async def _looked_at(egg: _Egg) -> _Egg:
    """A failed egg, looked at: the report and the banner on stderr, what the safe reader
    found kept on the egg (``failed``); a container it cannot read stops here."""
    # deferred: off the start path
    from tui.eggs.unverified import look_at
    from tui.eggs.zip_reader import EggSource

    assert egg.path is not None
    with EggSource.of(egg.path) as source:
        failed = await asyncio.to_thread(look_at, source, egg.report)
    print(_wrapped(_summary(egg.report), _width(sys.stderr)), file=sys.stderr)
    print(f"roost: UNVERIFIED: {clean(failed.banner, multiline=True)}", file=sys.stderr)
    if failed.unreadable is not None:
        raise _Stop(EXIT_PROBLEMS, "nothing is shown from an egg that cannot be read safely")
    if failed.note:
        print(f"roost: note: {clean_line(failed.note)}", file=sys.stderr)
    egg.failed = failed
    return egg


def _ls_unverified(egg: _Egg, as_json: bool, out: TextIO) -> int:
    failed = egg.failed
    assert failed is not None
    if as_json:
        entries = [
            {"name": f.name, "size": f.size, "status": f.status, "egg_hash": f.egg_hash,
             "expected_hash": f.expected}
            for f in failed.files
        ]  # fmt: skip
        document = {"format": egg.report.format, "verified": False, "unverified": True,
                    "failed_at": failed.position, "check": failed.check,
                    "manifest": failed.manifest_note, "entries": entries}  # fmt: skip
        json.dump(document, out, ensure_ascii=True, indent=1)
        out.write("\n")
        return EXIT_PROBLEMS
    for f in failed.files:
        size = f"{f.size:>12,}" if f.size is not None else " " * 12
        print(f"{size}  {f.status:<8}  {clean_line(f.name)}", file=out)
    return EXIT_PROBLEMS


async def _ls(args: argparse.Namespace, service: Service, out: TextIO) -> int:
    egg = await _shown(args, service)
    if egg.failed is not None:
        return _ls_unverified(egg, args.json, out)
    report = egg.report
    if args.json:
        entries = [
            {
                "name": e.name,
                "size": e.size,
                "hash_ok": e.hash_ok,
                "egg_hash": e.egg_hash,
                "lookalike": e.lookalike,
            }
            for e in report.entries
        ]
        document = {"format": report.format, "verified": report.verified, "entries": entries}
        json.dump(document, out, ensure_ascii=True, indent=1)
        out.write("\n")
        return EXIT_OK
    for entry in report.entries:
        status = {True: "hash ok", False: "HASH BAD", None: "manifest"}[entry.hash_ok]
        if report.legacy:
            status = "crc ok"
        alike = f"  LOOK-ALIKE NAME: {clean_line(entry.lookalike)}" if entry.lookalike else ""
        print(f"{entry.size:>12,}  {status:<8}  {clean_line(entry.name)}{alike}", file=out)
    return EXIT_OK


async def _cat(args: argparse.Namespace, service: Service, out: TextIO) -> int:
    # deferred: off the start path
    from tui.eggs.legacy import read_entry
    from tui.eggs.zip_reader import EggSource

    egg = await _shown(args, service)
    if egg.failed is not None:
        return await _cat_unverified(egg, args.entry, out)
    entry = next((e for e in egg.report.entries if e.name == args.entry), None)
    if entry is None:
        names = ", ".join(clean_line(e.name) for e in egg.report.entries[:20])
        raise _Stop(EXIT_USAGE, f"no file {args.entry!r} in the egg (it has: {names})")
    assert egg.path is not None
    with EggSource.of(egg.path) as source:
        if egg.report.legacy:
            data = await asyncio.to_thread(read_entry, source, entry.name)
        else:
            data = source.read(entry.data_offset, entry.size)
    return _write_entry(data, args.entry, out)


async def _cat_unverified(egg: _Egg, name: str, out: Any) -> int:
    # deferred: off the start path
    from tui.eggs.legacy_zip import LegacyFormatError
    from tui.eggs.unverified import read_file
    from tui.eggs.zip_reader import EggSource

    assert egg.failed is not None and egg.path is not None
    found = egg.failed.file(name)
    if found is None or found.status == "missing":
        names = ", ".join(clean_line(f.name) for f in egg.failed.files[:20] if f.size is not None)
        why = "is listed in the manifest but not in the archive" if found else "is not in the egg"
        raise _Stop(EXIT_USAGE, f"{name!r} {why} (it has: {names})")
    print(f"roost: UNVERIFIED: {clean_line(name)}: hash {found.status}", file=sys.stderr)
    try:
        with EggSource.of(egg.path) as source:
            data = await asyncio.to_thread(read_file, source, name)
    except LegacyFormatError as exc:
        raise _Stop(EXIT_PROBLEMS, f"{name}: {exc.detail}") from None
    _write_entry(data, name, out)
    return EXIT_PROBLEMS


def _write_entry(data: bytes, name: str, out: Any) -> int:
    """Bytes as they are to a pipe; on a terminal only text, with controls made visible."""
    from tui.eggs.entry_pages import looks_binary  # deferred: off the start path

    if not out.isatty():
        out.flush()
        out.buffer.write(data)
        out.buffer.flush()
        return EXIT_OK
    if looks_binary(data):
        raise _Stop(
            EXIT_USAGE,
            f"{name} is binary: pipe it to a viewer (roost egg cat EGG {name} | xxd | less)",
        )
    text = data.decode("utf-8")
    out.write(clean(text, multiline=True))
    if not text.endswith("\n"):
        out.write("\n")
    return EXIT_OK


def _a_terminal() -> bool:
    return sys.stdout.isatty() and sys.stdin.isatty()


async def _inspect(args: argparse.Namespace, service: Service, out: TextIO) -> int:
    """The inspector on the egg: judged first (the report opens it), nothing run. An egg
    refused before it could be read opens on the report of why (no file to show)."""
    if not _a_terminal():
        raise _Stop(
            EXIT_USAGE,
            "egg inspect needs a terminal; to read an egg from a script use "
            "roost egg verify --json, roost egg ls or roost egg cat",
        )
    egg = await _obtain(args, service)
    # deferred: off the start path
    from tui.eggs.store import StoreApp
    from tui.ui.screens.boots.inspector_app import InspectorApp

    title = egg.record.name if isinstance(egg.record, StoreApp) else None
    app = InspectorApp(egg.path, egg.record, report=egg.report, title=title)
    await app.run_async()
    return _exit(egg.report)
