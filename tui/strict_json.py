"""JSON read strictly: a document that names one member twice is refused, never silently
half-read (``json`` keeps the last value, another reader may keep the first).

The one home of the check for every reader of untrusted JSON that cares (issue bodies, boot
records, canonical JSON, payload files); each says the refusal in its own words and error type.

Files roost reads back from its own folders (outbox entries, drafts, the demo world) are as
untrusted as the service's answers: anyone who can write there can plant a FIFO, a link to
``/dev/zero``, a huge file or brackets nested thousands deep. :func:`read_json_file` reads
only a regular file (never through a symbolic link, never waiting on a FIFO), of bounded size,
parsed with bounded depth, and says in words why a file cannot be taken.

No Textual, no pydantic: the headless core and the CLI import it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "MAX_DEPTH",
    "NotOurs",
    "Unreadable",
    "loads",
    "nesting_depth",
    "read_json_file",
    "read_kept",
    "read_regular",
    "unique_members",
]

Pairs = list[tuple[str, Any]]
T = TypeVar("T")

#: How deep arrays and objects may nest in a document read back from disk or given as a
#: payload: far more than any roost writes, far less than what exhausts the parser's stack.
MAX_DEPTH = 64


class Unreadable(ValueError):
    """A file or document that cannot be taken; the message says why, in words."""


def _duplicate(key: str) -> Exception:
    return ValueError(f"duplicate member {key!r}")


def unique_members(
    refuse: Callable[[str], Exception] = _duplicate,
) -> Callable[[Pairs], dict[str, Any]]:
    """An ``object_pairs_hook`` that raises ``refuse(key)`` at the first repeated member."""

    def hook(pairs: Pairs) -> dict[str, Any]:
        result = dict(pairs)  # in C; only a document with a repeat is walked, to name it
        if len(result) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise refuse(key)
                seen.add(key)
        return result

    return hook


# a JSON string (escapes included); what is not a bracket; an innermost pair
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_PAIR = re.compile(r"\[\]|\{\}")


def nesting_depth(text: str, stop: int | None = None) -> int:
    """How deep the arrays and objects of ``text`` nest (brackets inside strings do not
    count; brackets left unpaired do not either). Without recursion, a pass per level, each in
    C: it is asked before a parser recurses. ``stop``: give up counting past that depth."""
    skeleton = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = 0
    while skeleton and (stop is None or depth <= stop):
        shorter = _PAIR.sub("", skeleton)
        if len(shorter) == len(skeleton):
            break  # only unpaired brackets are left: the parser says what is wrong
        skeleton, depth = shorter, depth + 1
    return depth


def loads(
    data: bytes | str,
    *,
    max_depth: int = MAX_DEPTH,
    refuse: Callable[[str], Exception] = _duplicate,
) -> Any:
    """One JSON document, strictly: UTF-8, not empty, nested at most ``max_depth`` deep, no
    repeated member (``refuse(key)`` is raised for one). ``Unreadable`` says what else is
    wrong."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Unreadable(f"not UTF-8 text (byte {exc.start})") from None
    else:
        text = data
    if not text.strip():
        raise Unreadable("empty")
    if nesting_depth(text, stop=max_depth) > max_depth:
        raise Unreadable(f"nested more than {max_depth} levels deep")
    try:
        return json.loads(text, object_pairs_hook=unique_members(refuse))
    except json.JSONDecodeError as exc:
        raise Unreadable(f"not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:  # the count above keeps this from happening; never a crash
        raise Unreadable(f"nested more than {max_depth} levels deep") from None


_KINDS = (
    (stat.S_ISDIR, "a folder, not a file"),
    (stat.S_ISFIFO, "a FIFO, not a regular file"),
    (stat.S_ISSOCK, "a socket, not a regular file"),
    (stat.S_ISCHR, "a device, not a regular file"),
    (stat.S_ISBLK, "a device, not a regular file"),
)


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes. A symbolic link is
    not followed, a FIFO or device is never read from (nor waited on), a folder is not a file:
    each is ``Unreadable`` with the reason. A missing file is ``FileNotFoundError``."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Unreadable("a symbolic link, not followed") from None
        if exc.errno == errno.EISDIR:
            raise Unreadable("a folder, not a file") from None
        raise Unreadable(f"cannot be read ({exc.strerror})") from None
    try:
        mode = os.fstat(fd).st_mode
        for test, kind in _KINDS:
            if test(mode):
                raise Unreadable(kind)
        if not stat.S_ISREG(mode):
            raise Unreadable("not a regular file")
        data = b""
        while len(data) <= limit:  # the size it has now, not the size fstat saw
            block = os.read(fd, limit + 1 - len(data))
            if not block:
                break
            data += block
    except OSError as exc:
        raise Unreadable(f"cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise Unreadable(f"larger than {_size(limit)}")
    return data


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit >> 10} KiB"


def read_json_file(path: Path, *, limit: int, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON document in ``path``: :func:`read_regular`, then :func:`loads`."""
    return loads(read_regular(path, limit), max_depth=max_depth)


class NotOurs(Exception):  # noqa: N818 - a verdict, not an error
    """An intact kept entry of something else (another repository's thread, another agent's
    page): not taken, and not damage."""


def read_kept(path: Path, *, limit: int, parse: Callable[[Any], T], damaged: list[str]) -> T | None:
    """What a cache of roost's own keeps in ``path``, as ``parse`` makes it of the document:
    None when there is none, when it is another's (``parse`` raised :class:`NotOurs`), or when
    it is damaged (unreadable, or ``parse`` raised ValueError, TypeError or KeyError): then the
    file is removed, and ``damaged`` is told ``"<name>: <why>"``."""
    try:
        return parse(read_json_file(path, limit=limit))
    except FileNotFoundError:
        return None
    except NotOurs:
        return None
    except (Unreadable, OSError, ValueError, TypeError, KeyError) as exc:
        damaged.append(f"{path.name}: {exc}")
        with contextlib.suppress(OSError):
            path.unlink()
        return None
