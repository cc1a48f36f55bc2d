"""A table out as CSV or JSON Lines, headless (ARCHITECTURE.md, export): the dashboard's ``e``
and `roost export` write through here.

What is written is what the table shows: its cells (a styled cell's plain text), control
characters made visible as on screen (:func:`tui.untrusted.clean`). A CSV cell a spreadsheet
would run as a formula (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return)
gets a leading ``'`` (OWASP's advice for CSV injection); a number stays a number. In JSON Lines
a number column's numbers ("1,234") are JSON numbers, each line an object keyed by column.

A file is written to a temporary file in its folder, then renamed over the name: a reader never
sees half a file. Without ``overwrite`` an existing file is never replaced (the rename is a
hard link that fails when the name is taken). The file is readable by its owner only (as
``mkstemp`` makes it): a table may hold what its owner alone should see.
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

import msgspec

from tui.errors import RoostError
from tui.tables.rows import plain
from tui.untrusted import clean

__all__ = [
    "FORMATS",
    "ExportError",
    "FileExists",
    "default_name",
    "export_file",
    "neutralise",
    "write_csv",
    "write_jsonl",
    "write_rows",
]

FORMATS = ("csv", "jsonl")

#: What a spreadsheet runs as a formula when a cell starts with it.
_FORMULA = frozenset("=+-@\t\r")
#: A number as a table shows one: "1,234", "-3", "2.5".
_NUMBER = re.compile(r"[+-]?\d{1,3}(?:,\d{3})*(?:\.\d+)?|[+-]?\d+(?:\.\d+)?")
#: Between the cells of a chunk joined for its checks: any printable character does (one in a
#: cell followed by "=" only sends its chunk the slow way).
_SEPARATOR = "\u00a6"
#: In cells joined with the separator: a cell (but the first) that starts like a formula (a
#: literal and one character: a few milliseconds for 50 000 rows).
_FORMULA_START = re.compile(_SEPARATOR + "[-=+@\t\r]")


class ExportError(RoostError):
    """A table could not be written; the message names the file."""


class FileExists(ExportError):
    """The file is there already and was not to be replaced."""


def neutralise(text: str) -> str:
    """``text`` with a leading ``'`` when a spreadsheet would run it as a formula (a plain
    number such as ``-3`` is left as it is)."""
    if text and text[0] in _FORMULA and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _safe_cells(cells: Sequence[Any]) -> list[str]:
    return [neutralise(clean(plain(cell))) for cell in cells]


def write_csv(out: TextIO, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """``rows`` (cells) under ``header`` as CSV into ``out`` (opened with ``newline=""``);
    returns how many rows.

    Rows go in chunks: a chunk of clean ``str`` cells that start like no formula (almost
    every chunk) is checked with one search of its cells joined and handed to ``csv.writer``
    whole; any other chunk is written row by row, each cell cleaned and neutralised."""
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(_safe_cells(header))
    count = 0
    chunk: list[Sequence[Any]] = []
    for cells in rows:
        chunk.append(cells)
        if len(chunk) == _CHUNK:
            count += _write_chunk(writer, chunk)
            chunk = []
    return count + _write_chunk(writer, chunk)


_CHUNK = 2048


def _write_chunk(writer: Any, chunk: list[Sequence[Any]]) -> int:
    join = _SEPARATOR.join
    try:
        text = join(map(join, chunk))
    except TypeError:  # a styled cell, a number: row by row
        text = None
    if (
        text is not None
        and text[:1] not in _FORMULA
        and _FORMULA_START.search(text) is None
        # nothing clean() would change: no control, line or paragraph separator, bidi control
        # (isprintable() is False for every one of them, and for a few harmless characters,
        # which only send their chunk the slow way)
        and text.isprintable()
    ):
        writer.writerows(chunk)
    else:
        writer.writerows(map(_safe_cells, chunk))
    return len(chunk)


def _number(text: str) -> Any:
    if not _NUMBER.fullmatch(text):
        return text or None
    text = text.replace(",", "")
    return float(text) if "." in text else int(text)


def write_jsonl(
    out: TextIO, keys: Sequence[str], numeric: Sequence[bool], rows: Iterable[Sequence[Any]]
) -> int:
    """One JSON object a line, keyed by ``keys``; cells of ``numeric`` columns that read as
    numbers are JSON numbers (an empty one ``null``). Returns how many rows."""
    encode = msgspec.json.Encoder().encode
    names = [clean(key) for key in keys]
    count = 0
    for cells in rows:
        count += 1
        values = [clean(plain(cell)) for cell in cells]
        record = {
            name: _number(value) if number else value
            for name, value, number in zip(names, values, numeric, strict=False)
        }
        out.write(encode(record).decode("utf-8"))
        out.write("\n")
    return count


def write_rows(
    out: TextIO,
    fmt: str,
    keys: Sequence[str],
    numeric: Sequence[bool],
    rows: Iterable[Sequence[Any]],
) -> int:
    """``rows`` in format ``fmt`` (:data:`FORMATS`) into ``out``; returns how many rows."""
    if fmt == "csv":
        return write_csv(out, keys, rows)
    if fmt == "jsonl":
        return write_jsonl(out, keys, numeric, rows)
    raise ValueError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")


def default_name(tab: str, now: datetime, fmt: str) -> str:
    """``agents-20261204-2215.csv``: the tab, the local time to the minute, the format."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", tab).strip("-") or "table"
    return f"{safe}-{now:%Y%m%d-%H%M}.{fmt}"


def export_file(
    path: Path,
    fmt: str,
    keys: Sequence[str],
    numeric: Sequence[bool],
    rows: Iterable[Sequence[Any]],
    *,
    overwrite: bool = False,
) -> int:
    """Write ``rows`` to ``path`` through a temporary file in its folder, renamed once whole;
    returns how many rows. Raises :class:`FileExists` when ``path`` is there and not
    ``overwrite``, :class:`ExportError` when the file cannot be written."""
    path = Path(path)
    if not overwrite and os.path.lexists(path):
        raise FileExists(f"{path}: already there", hint="choose another name, or replace it")
    folder = path.parent
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=folder)
    except OSError as exc:
        raise ExportError(f"{folder}: cannot write there ({exc.strerror})") from None
    try:
        with open(fd, "w", encoding="utf-8", newline="") as out:
            count = write_rows(out, fmt, keys, numeric, rows)
        if overwrite:
            os.replace(temporary, path)
        else:
            _link_new(temporary, path)
    except OSError as exc:
        raise ExportError(f"{path}: cannot write it ({exc.strerror})") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    return count


def _link_new(temporary: str, path: Path) -> None:
    """Give ``temporary`` the name ``path`` unless the name is taken (in between, by anyone)."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise FileExists(
            f"{path}: already there", hint="choose another name, or replace it"
        ) from None
    except OSError:  # a file system without hard links: the check above is what there is
        if os.path.lexists(path):
            raise FileExists(
                f"{path}: already there", hint="choose another name, or replace it"
            ) from None
        os.replace(temporary, path)
