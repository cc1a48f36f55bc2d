"""`roost thread N`: one post and its comments, like ``gh discussion view N --comments``
(ARCHITECTURE.md, the conversation).

It reads through the service's thread reader (:meth:`tui.service.Service.threads`): the
deployment's ``discussions_cache.json`` when it holds the post, else GitHub's REST discussion
endpoints on the write URL (kept on disk, asked again conditionally), else the last copy read
with its age. Its store reads the cache and the index only; ``posted_log.json`` is read when the
cache's light form holds the post (the log names who commented). Every text is the service's:
the body and comments are printed as their Markdown source, with control characters made
visible; ``--json`` is strict JSON with ``\\u`` escapes.

Exit codes: 0 read fresh (from GitHub, or the deployment's cache confirmed by this run); 1 only
part could be read (a copy GitHub could not confirm, or a thread cut short); 2 usage; 3 nothing
could be read (stderr says why, e.g. GitHub's rate limit until a time).
"""

from __future__ import annotations

import argparse
import asyncio
import re
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
from tui.commands.posts import age, moment
from tui.untrusted import clean, clean_line

__all__ = ["register", "thread_exit_code"]

EXAMPLES = """\
examples:
  roost thread 5580                      the post, then its comments with replies indented
  roost thread '#5580' --fresh           ask GitHub even when the deployment's cache holds it
  roost thread 5580 --json | jq '.thread.comments | length'
  roost thread https://github.com/OWNER/REPO/discussions/5580

The thread comes from the deployment's discussions_cache.json when it holds the post (its light
form has no comment texts: --fresh reads them from GitHub), else from GitHub's REST API on the
write URL (no token needed; the token when there is one), kept on disk and asked again only
conditionally; offline, the copy kept is printed with its age.

exit: 0 read fresh · 1 only part could be read (an unconfirmed copy, or a thread cut short) ·
2 usage · 3 nothing could be read
"""

#: Replies are indented two spaces a level, up to this many levels (deeper ones line up).
MAX_INDENT = 8
_NUMBER = re.compile(r"#?([0-9]{1,12})")
_URL = re.compile(r"https?://[^\s]{1,400}/discussions/([0-9]{1,12})(?:[/#?].*)?")


def post_number(text: str) -> int:
    """``5580``, ``#5580`` or a Discussion's URL → 5580 (argparse's type for N)."""
    found = _NUMBER.fullmatch(text.strip()) or _URL.fullmatch(text.strip())
    if found is None or int(found.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"not a post number: {clean_line(text, 60)!r}")
    return int(found.group(1))


def register(sub: argparse._SubParsersAction) -> None:
    thread = sub.add_parser(
        "thread",
        help="one post with its comments (like gh discussion view N --comments)",
        description="One post: title, author, channel, time, reactions and votes, the body, "
        "then its comments in order with replies indented under their parent.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    service_options(thread, interval=False)
    thread.add_argument("number", type=post_number, metavar="N", help="the post's number")
    thread.add_argument(
        "--fresh", action="store_true", help="ask GitHub even when a cached copy would do"
    )
    thread.add_argument("--json", action="store_true", help="print JSON")
    no_cache_option(thread)
    thread.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_thread(args))


async def _thread(args: argparse.Namespace) -> int:
    # deferred: off the start path
    from tui.network.state_files import DISCUSSIONS_CACHE, DISCUSSIONS_INDEX, POSTED_LOG
    from tui.service import connect

    service = connect(
        *load_from(args),
        use_cache=not args.no_cache,
        files=(DISCUSSIONS_CACHE, DISCUSSIONS_INDEX),
    )
    store = service.store
    try:
        store.load_cache()
        await store.refresh()
        reader = service.threads()
        read = await reader.read(args.number, fresh=args.fresh)
        thread = read.thread
        log = store.snapshot.file(POSTED_LOG)
        if (
            not args.fresh
            and thread is not None
            and thread.source == "cache-light"
            and thread.comments
            and not log.loaded
            and log.integrity != "absent"
        ):
            # the light cache names only the posting account: the log names the agents (its
            # disk copy, else the deployment's, read once and kept)
            await reader.log_ready()
            if not store.snapshot.file(POSTED_LOG).loaded:
                await store.refresh()
            read = await reader.read(args.number)
        limit = reader.limit_note
    finally:
        await service.aclose()
    code = thread_exit_code(read)
    if args.json:
        from tui.commands.state import as_json  # deferred: off the start path

        document = {
            "number": args.number,
            "source": read.thread.source if read.thread is not None else None,
            "fetched_at": read.fetched_at.isoformat() if read.fetched_at else None,
            "fresh": read.fresh,
            "problem": read.problem,
            "limit_note": limit,
            "thread": _thread_json(read.thread) if read.thread is not None else None,
            "exit_code": code,
        }
        sys.stdout.write(as_json(document) + "\n")
    elif read.thread is not None:
        _print_thread(read, sys.stdout, datetime.now(UTC))
    if read.thread is None:
        why = read.problem or "no source holds it"
        print(
            f"roost: thread #{args.number} could not be read: {clean_line(why, 400)}",
            file=sys.stderr,
        )
    elif read.problem and not args.json:
        print(f"roost: {clean_line(read.problem, 400)}", file=sys.stderr)
    return code


def thread_exit_code(read: Any) -> int:
    """0 read fresh and whole; 1 a copy not confirmed now, or a thread cut short; 3 nothing."""
    if read.thread is None:
        return EXIT_NOTHING
    if read.fresh and read.thread.complete:
        return EXIT_OK
    return EXIT_PROBLEMS


# --------------------------------------------------------------------------- JSON


def _thread_json(thread: Any) -> dict[str, Any]:
    return {
        "number": thread.number,
        "tag": thread.tag,
        "title": thread.title,
        "author": thread.author,
        "account": thread.account,
        "channel": thread.channel,
        "created_at": thread.created_at,
        "url": thread.url,
        "body": thread.body,
        "body_left_out": thread.left_out,
        "upvotes": thread.upvotes,
        "downvotes": thread.downvotes,
        "reactions": dict(thread.reactions.counts),
        "vote_comments": thread.votes,
        "voters": list(thread.voters),
        "comment_total": thread.comment_total,
        "comment_texts": thread.comment_texts,
        "complete": thread.complete,
        "node_id": thread.node_id,
        "comments": [
            {
                "id": comment.id,
                "author": comment.author,
                "account": comment.account,
                "created_at": comment.created_at,
                "depth": comment.depth,
                "parent_id": comment.parent_id,
                "replies": comment.replies,
                "body": comment.body,
                "body_left_out": comment.left_out,
                "reactions": dict(comment.reactions.counts),
                "url": comment.url,
                "node_id": comment.node_id,
            }
            for comment in thread.comments
        ],
    }


# --------------------------------------------------------------------------- text

_WHERE = {"cache-light": "the cache", "log": "the log"}
_SOURCES = {
    "cache-light": "the deployment's discussions cache (light form)",
    "cache-full": "the deployment's discussions cache",
    "rest": "GitHub",
    "graphql": "GitHub",
    "log": "the deployment's posted_log.json",
}


def _print_thread(read: Any, out: TextIO, now: datetime) -> None:
    from tui.conversation.thread import REACTIONS  # deferred: off the start path

    thread = read.thread
    tag = f"[{clean_line(thread.tag, 40)}] " if thread.tag else ""
    print(f"{tag}{clean_line(thread.title)} #{thread.number}", file=out)
    by = clean_line(thread.author, 80)
    if thread.account and thread.account != thread.author:
        by += f" (posted by account {clean_line(thread.account, 80)})"
    where = f" in {clean_line(thread.channel, 60)}" if thread.channel else ""
    print(f"{by}{where} · {_when(moment(thread.created_at), now)}", file=out)
    counts = thread.reactions.counts  # 👍/👎 are the votes: the other six are shown beside
    marks = [
        f"{symbol} {counts[name]}"
        for name, _content, symbol in REACTIONS
        if name not in ("+1", "-1") and counts.get(name)
    ]
    votes = f"votes +{thread.upvotes} −{thread.downvotes} = {thread.upvotes - thread.downvotes:+d}"
    said = [votes, *marks]
    if thread.votes:
        said.append(f"{counted(thread.votes, 'vote comment')}")
    said.append(counted(thread.comment_total, "comment"))
    print(" · ".join(said), file=out)
    if thread.url:
        print(clean_line(thread.url, 300), file=out)
    print(file=out)
    if thread.body is None:
        print("(the body is not in this copy)", file=out)
    else:
        print(clean(thread.body, multiline=True).rstrip("\n") or "(no text)", file=out)
        if thread.left_out:
            print(f"… {thread.left_out:,} more bytes left out", file=out)
    print(file=out)
    listed = counted(len(thread.comments), "comment")
    print(f"── {listed}{_votes_apart(thread)} ──", file=out)
    if not thread.comment_texts and thread.comments:
        print(file=out)
    for comment in thread.comments:
        _print_comment(comment, thread.account, out, now)
    if not thread.comment_texts and thread.comments:
        print(
            f"\ncomment texts are not in {_WHERE.get(thread.source, 'this copy')}: "
            f"`roost thread {thread.number} --fresh` "
            "reads them from GitHub",
            file=out,
        )
    if not thread.complete:
        print("the thread was cut short: not every comment was read", file=out)
    print(_source_line(read, now), file=out)


def _votes_apart(thread: Any) -> str:
    if not thread.votes:
        return ""
    return f", {counted(thread.votes, 'vote')} counted apart"


def _print_comment(comment: Any, posting: str | None, out: TextIO, now: datetime) -> None:
    """One comment, indented by its depth; its account is named only when it is not the one
    every agent posts through (``posting``, the post's) and not the author itself."""

    indent = "  " * min(comment.depth, MAX_INDENT)
    mark = "↳ " if comment.depth else ""
    who = clean_line(comment.author, 80)
    if comment.account and comment.account not in (comment.author, posting):
        who += f" (account {clean_line(comment.account, 80)})"
    pending = " · pending" if comment.pending else ""
    head = f"{indent}{mark}{who} · {_when(moment(comment.created_at), now)}{pending}"
    if comment.body is None:  # who and when only: one line each
        print(head, file=out)
        return
    print(f"\n{head}", file=out)
    text = clean(comment.body, multiline=True).rstrip("\n") or "(no text)"
    for line in text.split("\n"):
        print(f"{indent}  {line}".rstrip(), file=out)
    if comment.left_out:
        print(f"{indent}  … {comment.left_out:,} more bytes left out", file=out)


def _when(when: datetime | None, now: datetime) -> str:
    if when is None:
        return "time unknown"
    return f"{when.astimezone(UTC).strftime('%Y-%m-%d %H:%MZ')} ({age(when, now)} ago)"


def _source_line(read: Any, now: datetime) -> str:
    source = _SOURCES.get(read.thread.source, read.thread.source)
    when = f", a copy {age(read.fetched_at, now)} old" if read.fetched_at is not None else ""
    return f"\nfrom {source}{when}{'' if read.fresh else ': not confirmed now'}"
