"""The real `roost demo` in a tmux pane at 80×24, driven by keys alone (skipped without tmux).

A private tmux server (its own socket) runs the CLI in a fresh process with an isolated cache and
config; the test sends keys like a person would and reads the pane with ``capture-pane``.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TMUX = shutil.which("tmux")

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


class Pane:
    def __init__(self, tmp: Path) -> None:
        self.socket = f"roost-test-{uuid.uuid4().hex[:8]}"
        self.session = "roost"
        self.tmp = tmp

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [TMUX, "-L", self.socket, *args], capture_output=True, text=True, check=check
        )

    def start(self, argv: list[str]) -> None:
        env = {
            "XDG_CACHE_HOME": str(self.tmp / "cache"),
            "XDG_CONFIG_HOME": str(self.tmp / "config"),
            "XDG_DATA_HOME": str(self.tmp / "data"),  # the outbox and drafts
            "XDG_STATE_HOME": str(self.tmp / "state"),
            "PYTHONPATH": str(ROOT),
            "TERM": "xterm-256color",
            "TEXTUAL_ANIMATIONS": "none",
        }
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        command = f"env -u ROOST_READ_URL {assignments} {shlex.join(argv)}"
        self.tmux(
            "new-session",
            "-d",
            "-x",
            "80",
            "-y",
            "24",
            "-s",
            self.session,
            "-c",
            str(ROOT),
            command,
        )
        self.tmux("set-option", "-t", self.session, "remain-on-exit", "on")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session, check=False).stdout

    def styled(self) -> str:
        """The pane with its attributes as escape sequences (``capture-pane -e``)."""
        return self.tmux("capture-pane", "-p", "-e", "-t", self.session, check=False).stdout

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", self.session, key)
            time.sleep(0.05)

    def burst(self, *keys: str) -> None:
        """All ``keys`` in one write to the terminal, as a fast typist or a paste sends them."""
        self.tmux("send-keys", "-t", self.session, *keys)

    def wait_for(self, text: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            assert "Traceback" not in screen, screen
            time.sleep(0.02)
        raise AssertionError(f"{text!r} never appeared; the pane shows:\n{screen}")

    def dead(self) -> bool:
        out = self.tmux("display-message", "-p", "-t", self.session, "#{pane_dead}", check=False)
        return out.stdout.strip() == "1"

    def stop(self) -> None:
        self.tmux("kill-server", check=False)


@pytest.fixture
def pane(tmp_path):
    pane = Pane(tmp_path)
    yield pane
    pane.stop()


ROOST_DEMO = [
    sys.executable,
    "-c",
    "import sys; from tui.cli import main; sys.exit(main())",
    "demo",
]
#: ``roost demo`` as a no-colour user on a plain xterm starts it.
ROOST_DEMO_NO_COLOR = ["env", "NO_COLOR=1", "TERM=xterm", *ROOST_DEMO]


def quit_cleanly(pane: Pane) -> None:
    pane.keys("q")
    deadline = time.monotonic() + 10
    while not pane.dead() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert pane.dead(), pane.screen()
    assert "Traceback" not in pane.screen()


def test_roost_demo_by_keys_at_80x24(pane):
    pane.start(ROOST_DEMO)
    screen = pane.wait_for("301 agents")
    assert "DEMO" in screen and "1 Agents" in screen and "7 Posts" in screen
    assert "demo network" in screen
    pane.wait_for("all verified")
    # filter typed as one burst, then sort
    pane.keys("/zion-c")
    screen = pane.wait_for("of 301 agents")
    pane.keys("Enter", "s", "n")  # the sort picker, then the name column's key
    pane.wait_for("sorted by name")
    pane.keys("Enter")
    pane.wait_for("heartbeat")  # the detail pane
    pane.keys("Escape")
    pane.keys("Escape")
    pane.wait_for("301 agents ")
    for key, text in (("2", "posts"), ("3", "36 channels"), ("4", "Counter"), ("5", "Proposals")):
        pane.keys(key)
        pane.wait_for(text)
    pane.keys("1", "?")
    pane.wait_for("roost · keys")
    pane.keys("Escape")
    pane.keys("C-p")
    pane.wait_for("Search for commands")
    pane.keys("#poetry")
    pane.wait_for("#poetry \u00b7 Poetry")  # the palette's search found it
    pane.keys("Enter")
    screen = pane.wait_for("subscribers")  # the channel's detail pane
    assert "#poetry" in screen and "3 Channels" in screen
    quit_cleanly(pane)


def test_a_rebound_key_in_a_real_terminal(pane):
    """[keymap] in the config file: F1 opens help (which lists it), 7's tab is on F7, the key
    bar says f1."""
    config = pane.tmp / "config" / "roost"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(
        '[keymap]\n"app.help" = "f1"\n"app.tab.posts" = "f7,7"\n', encoding="utf-8"
    )
    pane.start(ROOST_DEMO)
    screen = pane.wait_for("all verified")
    assert " f1 Help" in screen
    pane.keys("F7")
    pane.wait_for("# tag ")  # the Posts table's header
    pane.keys("F1")
    pane.wait_for("roost · keys")
    pane.keys("G")  # help's end: the app's keys
    screen = pane.wait_for("Quit")
    assert re.search(r"f1 +Help", screen), screen
    pane.keys("g")  # the tabs' keys, under the table's
    deadline = time.monotonic() + 10
    while not re.search(r"f7 / 7 +Posts", screen) and time.monotonic() < deadline:
        pane.keys("j")
        screen = pane.screen()
    assert re.search(r"f7 / 7 +Posts", screen), screen
    pane.keys("Escape")
    pane.wait_for("600 posts")  # help closed, the Posts tab under it
    quit_cleanly(pane)


def test_a_first_visit_burst_lands_in_the_list_it_opens(pane):
    """``5]]jj`` in one write: the Seeds tab is made, two sections on, and both ``j`` move down
    the queue (the list is built after the tab's first frame: its keys wait for it)."""
    pane.start(ROOST_DEMO)
    pane.wait_for("all verified")
    pane.burst("5]]jj")
    screen = pane.wait_for("Queued")
    rows = [line.split() for line in screen.splitlines() if re.match(r" +3 seed-", line)]
    assert rows, screen
    third = rows[0][1]
    deadline = time.monotonic() + 10
    while f" {third}" not in screen.splitlines() and time.monotonic() < deadline:
        time.sleep(0.02)
        screen = pane.screen()
    assert f" {third}" in screen.splitlines(), screen  # the detail of the third queued seed
    quit_cleanly(pane)


def test_posts_and_a_thread_by_keys_at_80x24(pane):
    """7 → the Posts tab (read once shown), enter → the newest post's thread over it, j → its
    first comment, escape → back on the tab where the cursor was."""
    pane.start(ROOST_DEMO)
    pane.wait_for("all verified")
    pane.keys("7")
    screen = pane.wait_for("# tag ")  # the Posts table's header
    pane.wait_for("600 posts")  # its rows: the demo network's log
    pane.keys("j", "Enter")
    screen = pane.wait_for("Fold replies")  # the thread's key bar
    assert "by " in screen and "Traceback" not in screen
    pane.keys("j", "/")
    pane.wait_for("find in this thread")
    pane.keys("Escape", "Escape")
    screen = pane.wait_for("# tag ")
    assert "Fold replies" not in screen
    quit_cleanly(pane)


@pytest.mark.slow  # reads from the demo network's GitHub, sends and reads again
def test_read_a_thread_reply_and_see_the_reply_arrive_at_80x24(pane):
    """7 → Posts; enter → a thread from the light cache (who commented, no texts); r → the
    thread from the demo's GitHub with its texts; j R → the reply form for the selected
    comment, its body focused; typed, ctrl+s → the reply shows at once under that comment,
    pending; r → read again, it is seen: no longer pending, applied in the outbox."""
    pane.start(ROOST_DEMO)
    pane.wait_for("all verified")
    pane.keys("7")
    pane.wait_for("600 posts")
    pane.keys("/")
    pane.burst("Small channels: a proposal", "Enter")
    pane.wait_for("1 of 600 posts")
    pane.keys("Enter")
    screen = pane.wait_for("comment texts are not in the cache")
    assert "by zion-coder-07" in screen
    pane.keys("r")
    screen = pane.wait_for("from GitHub")
    assert "Small correction: the counter resets daily" in screen
    pane.keys("j", "R")
    pane.wait_for("Reply to comment")
    pane.burst("Thanks for the correction.")
    pane.wait_for("Thanks for the correction.")
    pane.keys("C-s")
    pane.wait_for("Fold replies")  # back on the thread
    pane.keys("G")
    screen = pane.wait_for("pending: sent from here, not seen yet")
    assert "Thanks for the correction." in screen and "demo-agent" in screen
    pane.keys("r")
    deadline = time.monotonic() + 20
    while "pending: sent from here" in pane.screen() and time.monotonic() < deadline:
        time.sleep(0.2)
    screen = pane.screen()
    assert "pending: sent from here" not in screen and "Thanks for the correction." in screen
    pane.keys("o")
    screen = pane.wait_for("Outbox · 1 entry")
    assert re.search(r"applied\s+reply", screen), screen
    pane.keys("Escape", "Escape")
    pane.wait_for("600 posts")
    quit_cleanly(pane)


@pytest.mark.slow  # waits for the dashboard's own pace of following a sent action
def test_post_from_a_form_by_keys_at_80x24(pane):
    """n → picker → form → ctrl+s → outbox → the processor's receipt, all by keys at 80×24;
    the form's fields are typed in one burst, as a fast typist or a paste sends them. The demo
    world's account (the demo token's) is a registered agent from the start."""
    pane.start(ROOST_DEMO)
    pane.wait_for("all verified")
    pane.keys("n")
    pane.wait_for("New action")
    pane.keys("update_profile", "Enter")
    pane.wait_for("Update profile")
    screen = pane.wait_for("acting as demo-agent")
    assert "not registered here" not in screen
    pane.burst("Ada", "Tab", "A test agent", "C-s")
    pane.wait_for("update_profile: in the outbox")
    pane.keys("o")
    pane.wait_for("Outbox · 1 entry")
    pane.wait_for("applied", timeout=40)
    pane.keys("Enter")
    screen = pane.wait_for("Receipt")
    assert "inbox/processed/issue-1.json" in screen
    assert "posted as demo-agent" in screen
    seen = [screen]
    for _ in range(20):  # down through the request as sent: every field of the burst arrived
        pane.keys("j")
        time.sleep(0.1)
        seen.append(pane.screen())
    sent = "\n".join(seen)
    for line in ('"name": "Ada"', '"bio": "A test agent"'):
        assert line in sent, sent
    pane.keys("Escape")
    pane.wait_for("Outbox · 1 entry")
    pane.keys("Escape")
    pane.wait_for("301 agents")
    quit_cleanly(pane)


def test_no_color_and_plain_xterm_are_readable(pane):
    """NO_COLOR=1 TERM=xterm: the screen still shows the table, the cursor row and the bars."""
    pane.start(ROOST_DEMO_NO_COLOR)
    pane.wait_for("301 agents")
    screen = pane.wait_for("DEMO")  # the tab bar can come a frame after the table
    assert "online" in screen
    pane.keys("Enter")
    pane.wait_for("heartbeat")
    pane.keys("q")


def test_boots_and_the_egg_inspector_by_keys_at_80x24(pane):
    """6 → a boot record → enter: the egg is downloaded from the demo hub, verified and opened in
    the inspector; its files, one file's bytes, and back — keys only, nothing executed."""
    pane.start(ROOST_DEMO)
    pane.wait_for("all verified")
    pane.keys("6")
    pane.wait_for("11 boot records")
    screen = pane.wait_for("not downloaded")
    assert "Egg size" in screen and "Verified" in screen
    pane.keys("Enter")
    pane.wait_for("Egg inspector")
    screen = pane.wait_for("VERIFIED")
    assert "checks pass" in screen and "FAILED" not in screen
    assert "egg nested at most 8 levels deep" in screen  # the report: each check by name
    pane.keys("Tab", "Tab")  # Report → Manifest → Files (the manifest lists the paths too)
    screen = pane.wait_for("hash matches the manifest")
    assert "manifest.json" in screen and "soul.md" in screen and "rappid.json" in screen
    pane.keys("j", "j", "j", "j", "j", "Enter")  # down to seed/record.json, open it
    screen = pane.wait_for("seed/record.json ·")
    assert "json, shown indented" in screen  # the seed record, its JSON indented (r: as stored)
    pane.keys("Escape")  # back to the file list …
    pane.wait_for("hash matches the manifest")
    pane.keys("Escape")  # … and out of the inspector
    screen = pane.wait_for("11 boot records")
    assert "verified" in screen  # the list now knows the egg's verdict
    quit_cleanly(pane)


#: The bar beside the focused field when there is no colour (the left half block).
BAR = "\u258c"


def line_below(screen: str, label: str, *, skip: int = 0) -> str:
    """The text of the pane row ``skip + 1`` rows below the one that shows ``label``, without the
    dialog's frame and the focused field's bar (``▌``)."""
    lines = screen.splitlines()
    at = next(i for i, line in enumerate(lines) if label in line)
    return lines[at + 1 + skip].strip("│ ").removeprefix("▌").strip()


def test_editing_keys_in_a_burst_act_in_order_at_80x24(pane):
    """``abc ctrl+u xyz`` in one write leaves ``xyz``, in a one-line field and in a text area
    (ctrl+u used to act after the characters typed behind it, and took them too)."""
    pane.start(ROOST_DEMO)
    pane.wait_for("all verified")
    pane.keys("n")
    pane.wait_for("New action")
    pane.keys("update_profile", "Enter")
    pane.wait_for("acting as demo-agent")
    pane.burst("abc", "C-u", "xyz", "Tab", "abc", "C-u", "xyz", "Enter", "second", "Home", "1")
    screen = pane.wait_for("1second")
    time.sleep(0.3)
    screen = pane.screen()
    assert line_below(screen, "Name (optional)") == "xyz", screen
    assert line_below(screen, "Bio (optional)") == "xyz", screen
    assert line_below(screen, "Bio (optional)", skip=1) == "1second", screen
    pane.keys("Escape")
    pane.wait_for("301 agents")
    quit_cleanly(pane)


def sgr_params(styled: str) -> list[list[int]]:
    """The parameters of every SGR sequence (``ESC [ … m``) in ``styled``."""
    return [
        [int(part) if part else 0 for part in params.split(";")]
        for params in re.findall(r"\x1b\[([\d;]*)m", styled)
    ]


def coloured(styled: str) -> bool:
    """Whether any SGR sequence sets a colour (39 and 49 are the terminal's own colours)."""
    return any(
        30 <= p <= 38 or 40 <= p <= 48 or 90 <= p <= 107
        for params in sgr_params(styled)
        for p in params
    )


def reversed_columns(styled_row: str) -> list[int]:
    """The columns of ``styled_row`` drawn in reverse video."""
    columns, column, reverse = [], 0, False
    for sgr, text in re.findall(r"\x1b\[([\d;]*)m|([^\x1b]+)", styled_row):
        if text:
            if reverse:
                columns.extend(range(column, column + len(text)))
            column += len(text)
            continue
        for param in [int(p) if p else 0 for p in sgr.split(";")]:
            if param in (0, 27):
                reverse = False
            elif param == 7:
                reverse = True
    return columns


def cursor_below(pane: Pane, label: str, columns: range = range(75), timeout: float = 5) -> str:
    """The styled row below ``label`` once one of its ``columns`` (default: left of a form's
    scrollbar) is reversed: the cursor (it blinks)."""
    deadline = time.monotonic() + timeout
    row = ""
    while time.monotonic() < deadline:
        lines = pane.styled().splitlines()
        at = next((i for i, line in enumerate(lines) if label in line), None)
        if at is not None:
            row = lines[at + 1]
            if any(column in columns for column in reversed_columns(row)):
                return row
        time.sleep(0.05)
    raise AssertionError(f"no reversed cursor cell below {label!r}: {row!r}")


def test_no_color_inputs_show_their_cursor_and_the_focused_field(pane):
    """NO_COLOR=1 TERM=xterm: the focused field has a reversed cursor cell (a background colour
    would be dropped) even when empty, and a bar beside it that the other fields do not have."""
    pane.start(ROOST_DEMO_NO_COLOR)
    pane.wait_for("all verified")
    pane.keys("/")
    at = pane.wait_for("filter agents").splitlines()[1].index("filter agents")
    cursor_below(pane, "1 Agents", range(at, at + 1))  # the filter's cursor, on its placeholder
    pane.keys("Escape")
    time.sleep(0.5)  # a key right after escape would be read as alt+key
    pane.keys("n")
    pane.wait_for("New action")
    pane.keys("create_topic", "Enter")
    pane.wait_for("Create topic")
    row = cursor_below(pane, "Slug *")  # empty and focused: the cursor cell, reversed
    assert row.strip("│ ").startswith(BAR), row  # the focus bar
    screen = pane.screen()
    assert f"{BAR}Slug *" in screen and f"{BAR}Name *" not in screen
    assert line_below(screen, "Name *") == ""  # unfocused and empty: no bar, no cursor
    pane.keys("ab", "Tab")
    row = cursor_below(pane, "Name *")
    assert row.strip("│ ").startswith(BAR), row
    assert line_below(pane.screen(), "Slug *") == "ab"  # the bar moved with the focus
    pane.keys("Tab")  # the description: a text area
    cursor_below(pane, "Description *")
    assert not coloured(pane.styled())
    pane.keys("Escape")
    pane.wait_for("301 agents")
    quit_cleanly(pane)
