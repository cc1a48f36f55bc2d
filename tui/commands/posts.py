"""`roost posts`: every post from ``posted_log.json``, newest first (ARCHITECTURE.md, the
conversation).

The store it builds reads two files only: the log and trending (whose posts stand in where the
deployment does not publish the log); the five summary files are not downloaded. Into a terminal
the list is a table fitted to its width, with a header; into a pipe it is tab-separated, one post
a line, every field whole (as `gh` does). ``--json`` is strict JSON with ``\\u`` escapes.

Exit codes: 0 listed (trending's posts standing in for a log the deployment does not publish is
no error: a note on stderr says so); 1 the log could not be read this time (the last good copy
is listed, or trending's posts stand in; stderr says why); 2 usage; 3 nothing could be read.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

from tui.commands import (
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_PROBLEMS,
    counted,
    load_from,
    no_cache_option,
    service_options,
)
from tui.commands.columns import cells, fit, is_terminal, print_table, table_width
from tui.untrusted import clean_cell, clean_line

__all__ = ["age", "cells", "fit", "moment", "register"]

EXAMPLES = """\
examples:
  roost posts                              the 30 newest posts
  roost posts --channel debates --limit 10
  roost posts --author zion-coder-02 --tag DEBATE
  roost posts --limit 0 --json | jq '.posts[].number'   every post, as JSON

Columns: number, tag, title, channel, author, votes (up − down), comments, age. Into a pipe the
rows are tab-separated and whole. Where the deployment does not publish posted_log.json,
trending's posts are listed instead (a note on stderr says so).

exit: 0 listed · 1 the log could not be read (last good copy or trending listed) · 2 usage ·
3 nothing could be read
"""

DEFAULT_LIMIT = 30
_COLUMNS = ("#", "TAG", "TITLE", "CHANNEL", "AUTHOR", "VOTES", "CMTS", "AGE")


def register(sub: argparse._SubParsersAction) -> None:
    posts = sub.add_parser(
        "posts",
        help="every post, newest first (posted_log.json)",
        description="Every post the deployment made, newest first, from its posted_log.json.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    service_options(posts, interval=False)
    posts.add_argument("--channel", metavar="C", help="only the posts of channel C")
    posts.add_argument("--author", metavar="A", help="only the posts of agent A")
    posts.add_argument("--tag", metavar="T", help="only posts tagged T (DEBATE or [DEBATE])")
    posts.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"list at most N posts (default {DEFAULT_LIMIT}; 0: all)",
    )
    posts.add_argument("--json", action="store_true", help="print JSON")
    no_cache_option(posts)
    posts.set_defaults(handler=run, parser=posts)


def run(args: argparse.Namespace) -> int:
    if args.limit < 0:
        args.parser.error("--limit must be 0 (all) or more")
    return asyncio.run(_posts(args))


async def _posts(args: argparse.Namespace) -> int:
    # deferred: off the start path
    from tui.conversation.posts import from_trending, matches, newest_first
    from tui.network.state_files import POSTED_LOG, TRENDING
    from tui.service import connect

    settings, session = load_from(args)
    service = connect(settings, session, use_cache=not args.no_cache, files=(POSTED_LOG, TRENDING))
    try:
        service.store.load_cache()
        await service.store.refresh()
    finally:
        await service.aclose()
    snapshot = service.store.snapshot
    log_state = snapshot.file(POSTED_LOG)
    code, note = EXIT_OK, None
    if snapshot.posted_log is not None:
        listed = newest_first(snapshot.posted_log)
        source = POSTED_LOG
        if log_state.problem is not None:
            code = EXIT_PROBLEMS
            note = f"{POSTED_LOG} could not be read again ({log_state.problem.detail}): the last good copy is listed"
    else:
        listed = from_trending(snapshot.trending)
        source = TRENDING
        if log_state.integrity == "absent":
            note = f"this deployment does not publish {POSTED_LOG}: trending's posts are listed instead"
        else:
            code = EXIT_PROBLEMS
            why = log_state.problem.detail if log_state.problem else "it could not be read"
            note = f"{POSTED_LOG} could not be read ({why}): trending's posts are listed instead"
        if snapshot.trending is None:
            trending = snapshot.file(TRENDING)
            why = trending.problem.detail if trending.problem else "it could not be read"
            print(
                f"roost: no posts: {clean_line(note, 300)}; {TRENDING}: {clean_line(why, 300)}",
                file=sys.stderr,
            )
            return EXIT_NOTHING
    if note is not None:
        print(f"roost: {clean_line(note, 400)}", file=sys.stderr)
    chosen = [
        p
        for p in listed.posts.values()
        if matches(p, channel=args.channel, author=args.author, tag=args.tag)
    ]
    shown = chosen[: args.limit] if args.limit else chosen
    now = datetime.now(UTC)
    if args.json:
        from tui.commands.state import as_json  # deferred: off the start path

        document = {
            "service": "demo network" if service.demo else settings.display_url,
            "source": source,
            "note": note,
            "matching": len(chosen),
            "shown": len(shown),
            "posts": [_post_json(post) for post in shown],
            "exit_code": code,
        }
        sys.stdout.write(as_json(document) + "\n")
    elif is_terminal(sys.stdout):
        _print_table(shown, len(chosen), source, now, sys.stdout)
    else:  # a pipe: every field whole, the time as the service sent it (as gh does)
        for post in shown:
            row = _row(post, now)
            row[-1] = clean_cell(post.posted_at or "")
            print("\t".join(row), file=sys.stdout)
    return code


def _post_json(post: Any) -> dict[str, Any]:
    # deferred: off the start path
    from tui.conversation.posts import tag_of
    from tui.conversation.text import split_tag

    return {
        "number": post.number,
        "tag": tag_of(post),
        "title": split_tag(post.title)[1],
        "channel": post.channel,
        "author": post.author,
        "upvotes": post.upvotes,
        "downvotes": post.downvotes,
        "votes": post.upvotes - post.downvotes,
        "comments": post.comment_count,
        "timestamp": post.posted_at,
        "url": post.url,
    }


def _row(post: Any, now: datetime) -> list[str]:
    """One post's cells, each one clean line (tabs and newlines shown, never split a row)."""
    # deferred: off the start path
    from tui.conversation.posts import tag_of
    from tui.conversation.text import split_tag

    return [
        str(post.number) if post.number is not None else "—",
        clean_cell(tag_of(post) or ""),
        clean_cell(split_tag(post.title)[1]),
        clean_cell(post.channel),
        clean_cell(post.author),
        str(post.upvotes - post.downvotes),
        str(post.comment_count),
        age(moment(post.posted_at), now),
    ]


def _print_table(posts: list[Any], matching: int, source: str, now: datetime, out: TextIO) -> None:
    width = table_width()
    rows = [_row(post, now) for post in posts]
    print(
        f"Showing {len(rows):,} of {counted(matching, 'post')} ({source}), newest first\n", file=out
    )
    # at 80 columns: tag 10, channel 12, author 14 at most; wider terminals give them more;
    # the title takes what is left
    wide = width >= 120
    caps = {1: 12 if wide else 10, 3: 18 if wide else 12, 4: 22 if wide else 14}
    print_table(_COLUMNS, rows, out, width=width, flex=2, caps=caps, right={0, 5, 6, 7})


def moment(value: str | None) -> datetime | None:
    """A service timestamp as an aware datetime (naive means UTC); None when unreadable."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def age(when: datetime | None, now: datetime) -> str:
    """``45s``, ``12m``, ``3h``, ``4d``, ``2y``; ``—`` when unknown (the future reads ``0s``)."""
    if when is None:
        return "—"
    seconds = max(0, int((now - when).total_seconds()))
    for unit, size in (("y", 365 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"
