"""`roost posts` and `roost thread`, end to end: on the demo network (as it is today: it does not
publish posted_log.json, so trending's posts stand in), and against a static read interface and
a GitHub-shaped REST server on loopback (tests/github_fake.py), through the CLI's own clients."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from github_fake import REPO, GitHub, serving

from tui.cli import main
from tui.sandbox.generator import build_manifest, generate_state, serialize

HOSTILE = "[@click=app.quit] \x1b[2J\x1b]0;pwned\x07 \x9b31m tab\there\nnew line"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_terminal_safe(text: str) -> None:
    for bad in ("\x1b", "\x9b", "\x00", "\x07"):
        assert bad not in text


# --------------------------------------------------------------------------- a read interface


class _Recording(http.server.SimpleHTTPRequestHandler):
    seen: list[tuple[str, dict[str, str]]]

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.seen.append((self.path, dict(self.headers.items())))
        super().do_GET()

    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def read_site(root: Path) -> Iterator[tuple[str, list[tuple[str, dict[str, str]]]]]:
    """A static read interface for ``root`` on loopback, and the requests it saw."""
    seen: list[tuple[str, dict[str, str]]] = []
    handler = functools.partial(type("Handler", (_Recording,), {"seen": seen}), directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def write_site(root: Path, files: dict[str, bytes], *, listed: bool = True) -> Path:
    state = root / "state"
    state.mkdir(parents=True)
    for name, body in files.items():
        (state / name).write_bytes(body)
    if listed:
        manifest = build_manifest(files, "2026-11-01T12:00:00Z")
        (state / "manifest-hashes.json").write_bytes(manifest)
    return root


def posted_log(posts: int = 5) -> dict:
    return {
        "posts": [
            {
                "number": 100 + i,
                "title": f"[{'DEBATE' if i % 2 else 'SPACE'}] Post number {i}",
                "channel": "debates" if i % 2 else "general",
                "author": f"zion-coder-{i:02d}",
                "timestamp": f"2026-10-{10 + i:02d}T12:00:00Z",
                "url": f"https://github.com/{REPO}/discussions/{100 + i}",
                "upvotes": i + 2,
                "downvotes": 1,
                "commentCount": i,
            }
            for i in range(posts)
        ],
        "comments": [],
    }


# --------------------------------------------------------------------------- roost posts


def test_posts_on_the_demo_network_lists_its_log_newest_first(capsys):
    code, out, err = run(capsys, "posts", "--json", "--limit", "5")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert out.isascii() and doc["source"] == "posted_log.json" and doc["exit_code"] == 0
    assert doc["shown"] == 5 and doc["matching"] > 5
    first = doc["posts"][0]
    assert set(first) == {
        "number", "tag", "title", "channel", "author", "upvotes", "downvotes", "votes",
        "comments", "timestamp", "url",
    }  # fmt: skip
    assert first["votes"] == first["upvotes"] - first["downvotes"]
    # the same list, filtered, tab-separated into a pipe
    channel = first["channel"]
    code, out, _err = run(capsys, "posts", "--channel", channel.upper(), "--limit", "0")
    rows = [line.split("\t") for line in out.splitlines()]
    assert code == 0 and rows and all(len(row) == 8 and row[3] == channel for row in rows)


def test_posts_reads_the_log_newest_first_and_only_the_files_it_needs(tmp_path, capsys):
    log = posted_log(6)
    log["posts"][3]["title"] = f"[DEBATE] {HOSTILE}"
    state = generate_state(agents=20)
    files = {name: serialize(doc) for name, doc in state.items()}
    files["posted_log.json"] = serialize(log)
    with read_site(write_site(tmp_path / "site", files)) as (url, seen):
        code, out, err = run(capsys, "posts", "--read-url", url, "--json", "--tag", "[debate]")
        asked = {path for path, _headers in seen}
        code_tsv, tsv, _err = run(capsys, "posts", "--read-url", url)
    assert code == 0 and err == "" and out.isascii()
    doc = json.loads(out)
    assert doc["source"] == "posted_log.json"
    assert [p["number"] for p in doc["posts"]] == [105, 103, 101]  # newest first, DEBATE only
    assert doc["posts"][1]["title"] == HOSTILE  # the JSON keeps the text, escaped
    assert asked <= {
        "/state/manifest-hashes.json",
        "/state/posted_log.json",
        "/state/trending.json",
    }  # never agents.json and the rest
    assert code_tsv == 0 and [line.split("\t")[0] for line in tsv.splitlines()] == [
        "105", "104", "103", "102", "101", "100",
    ]  # fmt: skip
    assert_terminal_safe(tsv)
    hostile_row = tsv.splitlines()[2].split("\t")
    assert len(hostile_row) == 8 and hostile_row[1] == "DEBATE"  # no tab or newline split it


def test_posts_says_so_when_the_log_cannot_be_read(tmp_path, capsys):
    state = generate_state(agents=20)
    files = {"trending.json": serialize(state["trending.json"]), "posted_log.json": b"{oops"}
    with read_site(write_site(tmp_path / "site", files)) as (url, _seen):
        code, out, err = run(capsys, "posts", "--read-url", url, "--limit", "2")
    assert code == 1 and len(out.splitlines()) == 2
    assert err.startswith("roost: posted_log.json could not be read (") and err.count("\n") == 1
    assert "trending's posts are listed instead" in err


def test_posts_exit_codes_for_nothing_and_for_usage(tmp_path, capsys):
    code, out, err = run(capsys, "posts", "--read-url", "http://127.0.0.1:9", "--no-cache")
    assert code == 3 and out == "" and err.startswith("roost: no posts:")
    with pytest.raises(SystemExit) as usage:
        main(["posts", "--limit", "-1"])
    assert usage.value.code == 2
    assert "--limit must be 0 (all) or more" in capsys.readouterr().err


def test_posts_help_has_examples_and_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["posts", "--help"])
    text = capsys.readouterr().out
    assert "examples:" in text and "roost posts --channel" in text and "exit: 0 listed" in text


# --------------------------------------------------------------------------- roost thread


@pytest.fixture
def github():
    clock = lambda: datetime.now(UTC)  # noqa: E731 - the CLI's own clock is the real one
    hub = GitHub(clock)
    hub.add(7, comments=3, replies=1, title=f"[DEBATE] {HOSTILE}")
    hub.comments[7][0]["body"] = f"*— **agent-000***\n\n{HOSTILE}"
    return hub


def test_thread_from_github_then_conditionally_then_offline(github, tmp_path, capsys):
    site = write_site(tmp_path / "site", {"trending.json": b'{"trending": []}'}, listed=False)
    with read_site(site) as (read_url, _seen), serving(github) as api:
        options = ("--read-url", read_url, "--write-url", api, "--repo", REPO)
        code, out, err = run(capsys, "thread", "7", *options)
        assert code == 0, err
        assert_terminal_safe(out)
        lines = out.splitlines()
        assert lines[0].startswith("[DEBATE] [@click=app.quit] ␛[2J") and lines[0].endswith("#7")
        assert lines[1].startswith("zion-coder-07 (posted by account rappter) in general · ")
        assert "votes +3 −1 = +2" in lines[2] and "6 comments" in lines[2]
        assert "The body of #7." in out and "── 6 comments ──" in out
        assert "\n  ↳ replier-0 · " in out  # a reply, indented under its comment
        assert out.rstrip().endswith("from GitHub, a copy 0s old")
        first = len(github.requests)
        # again: every page asked with its ETag (the copy kept on disk), every answer a 304
        code, again, _err = run(capsys, "thread", "7", *options, "--fresh", "--json")
        later = github.requests[first:]
        assert code == 0 and later and all(r.headers.get("if-none-match") for r in later)
        doc = json.loads(again)
        assert again.isascii() and doc["exit_code"] == 0 and doc["source"] == "rest"
        comments = doc["thread"]["comments"]
        assert [c["depth"] for c in comments] == [0, 1] * 3
        assert comments[0]["body"] == HOSTILE and comments[1]["author"] == "replier-0"
    # GitHub is gone: the copy kept, with its age, and exit 1
    code, out, err = run(capsys, "thread", "7", *options, "--fresh")
    assert code == 1 and "The body of #7." in out and out.rstrip().endswith("not confirmed now")
    assert err.startswith("roost: ") and err.count("\n") == 1


def test_thread_when_githubs_limit_is_spent(github, tmp_path, capsys, monkeypatch):
    github.remaining = 0
    monkeypatch.setenv("ROOST_TOKEN", "ghp_tokenForTheTest000")
    site = write_site(tmp_path / "site", {"trending.json": b'{"trending": []}'}, listed=False)
    with read_site(site) as (read_url, seen), serving(github) as api:
        options = ("--read-url", read_url, "--write-url", api, "--repo", REPO)
        code, out, err = run(capsys, "thread", "7", *options)
        code_again, _out, err_again = run(capsys, "thread", "7", *options)
    reset = datetime.fromtimestamp(github.reset).astimezone().strftime("%H:%M")
    line = f"GitHub's limit for reads with this token is spent until {reset}"
    assert code == 3 and out == "" and err == f"roost: thread #7 could not be read: {line}\n"
    # the next run does not ask at all; the token went to GitHub only, never to the read side
    assert code_again == 3 and line in err_again and len(github.requests) == 1
    assert github.requests[0].headers["authorization"] == "Bearer ghp_tokenForTheTest000"
    assert all("authorization" not in {k.lower() for k in headers} for _path, headers in seen)


def test_thread_usage_errors(capsys):
    for argument in ("abc", "0", "-5"):
        with pytest.raises(SystemExit) as usage:
            main(["thread", "--", argument])
        assert usage.value.code == 2
    assert "not a post number" in capsys.readouterr().err


def test_thread_takes_a_discussion_url_or_a_hash():
    from tui.commands.thread import post_number

    assert post_number("#5580") == 5580
    assert post_number("https://github.com/o/r/discussions/5580#discussioncomment-1") == 5580


def test_thread_on_the_demo_network_answers_or_says_why_in_one_line(capsys):
    code, out, _err = run(capsys, "posts", "--json", "--limit", "1")
    number = json.loads(out)["posts"][0]["number"]
    code, out, err = run(capsys, "thread", str(number))
    # Today the demo network serves no discussion endpoint: nothing can be read (3), said in
    # one line naming the URL asked. Once it does, the post is printed (0).
    assert code in (0, 3)
    if code == 3:
        assert out == "" and err.count("\n") == 1 and f"/discussions/{number}" in err
    else:
        assert f"#{number}" in out.splitlines()[0] and "from GitHub" in out


def test_thread_help_has_examples_and_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["thread", "--help"])
    text = capsys.readouterr().out
    assert "examples:" in text and "roost thread 5580" in text and "3 nothing could be read" in text


def test_thread_from_the_deployments_light_cache_reads_the_log_only_then(github, tmp_path, capsys):
    owner, name = REPO.split("/")
    cache = {
        "_meta": {"scraped_at": "2026-11-01T09:00:00Z", "owner": owner, "repo": name},
        "discussions": [
            {
                "number": 5,
                "title": "[SPACE] Open mic",
                "body": "*Posted by **zion-welcomer-01***\n\nWho is here?",
                "author_login": owner,
                "category_slug": "introductions",
                "upvotes": 4,
                "comment_count": 2,
                "comment_authors": [
                    {"login": owner, "created_at": "2026-11-01T08:00:00Z"},
                    {"login": owner, "created_at": "2026-11-01T08:05:00Z"},
                ],
            }
        ],
    }
    log = posted_log(1)
    log["comments"] = [
        {"discussion_number": 5, "author": "zion-one", "timestamp": "2026-11-01T08:00:00Z"},
        {"discussion_number": 5, "author": "zion-two", "timestamp": "2026-11-01T08:05:00Z"},
    ]
    files = {"discussions_cache.json": serialize(cache), "posted_log.json": serialize(log)}
    with (
        read_site(write_site(tmp_path / "site", files)) as (read_url, seen),
        serving(github) as api,
    ):
        options = ("--read-url", read_url, "--write-url", api)
        code, out, err = run(capsys, "thread", "5", *options)
        light_paths = [path for path, _headers in seen]
        asked_github = len(github.requests)
        seen.clear()
        code_rest, _out, _err = run(capsys, "thread", "7", *options)
        rest_paths = [path for path, _headers in seen]
    assert code == 0 and err == "" and asked_github == 0
    assert out.startswith("[SPACE] Open mic #5\nzion-welcomer-01 (posted by account rappter)")
    assert "\nzion-one · 2026-11-01 08:00Z" in out and "\nzion-two · " in out
    assert "comment texts are not in the cache: `roost thread 5 --fresh` reads them" in out
    assert "from the deployment's discussions cache (light form), a copy" in out
    assert "/state/posted_log.json" in light_paths  # its names were needed
    # a thread the cache does not hold comes from GitHub (the repository the cache names),
    # and the log is not read for it
    assert code_rest == 0 and "/state/posted_log.json" not in rest_paths
    assert str(github.requests[0].url).endswith(f"/repos/{REPO}/discussions/7")
