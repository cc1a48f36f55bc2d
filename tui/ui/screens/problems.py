"""The problems view (`!`): what each state file's shown copy is, every problem in full, and the
latest refresh cycles' reports (URLs, status, bytes, durations).

The status bar has one line for all of this and cuts it; here nothing is cut (long lines wrap).
Problem details quote the service, so every piece goes through :func:`tui.untrusted.clean`.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from tui.network.store import FileState, RefreshReport, Snapshot
from tui.ui.app_state import AppState
from tui.ui.screens.dialog import Dialog
from tui.ui.widgets.find_text import scroll_body
from tui.ui.widgets.text import age, when
from tui.ui.widgets.vim import vim_bindings
from tui.untrusted import clean

__all__ = ["ProblemsScreen", "problem_lines"]

_HEADING = "bold underline"
_BAD = "bold $text-warning"
_MUTED = "$text-muted"


def _size(value: int) -> str:
    if value < 1024:
        return f"{value} B"
    if value < 1 << 20:
        return f"{value / 1024:.1f} KiB"
    return f"{value / (1 << 20):.1f} MiB"


def _file_line(state: FileState, now: datetime) -> Content:
    name = clean(state.name).ljust(20)
    if not state.loaded:
        head = Content.assemble("  ", name, ("not loaded", _BAD))
    elif state.verified:
        head = Content.assemble(
            "  ",
            name,
            ("verified", "$text-success"),
            f" · fetched {when(state.fetched_at, now)} · {_size(state.size)}",
        )
    else:
        kind = state.problem.kind if state.problem else state.integrity
        head = Content.assemble(
            "  ",
            name,
            (f"stale ({clean(kind)})", _BAD),
            f" · showing the last good copy, fetched {when(state.fetched_at, now)}",
        )
    if state.problem is None:
        return head
    return Content.assemble(head, "\n", ("      ", ""), clean(state.problem.detail))


def _report_lines(report: RefreshReport, now: datetime) -> list[Content]:
    started = report.started_at
    flags = " · forced (no ETags)" if report.forced else ""
    flags += "" if report.online else " · offline"
    lines = [
        Content.assemble(
            (f"cycle {report.cycle}", "bold"),
            f" · {when(started, now)} · manifest {report.manifest} · "
            f"{report.requests} requests · {_size(report.bytes_downloaded)} · "
            f"{report.duration_s:.2f} s{flags}",
        )
    ]
    for label, names in (
        ("fetched", report.fetched),
        ("unchanged", report.unchanged),
        ("confirmed", report.confirmed),
    ):
        if names:
            shown = ", ".join(
                f"{clean(n)} ({report.durations_s[n]:.2f} s)"
                if n in report.durations_s
                else clean(n)
                for n in names
            )
            lines.append(Content.assemble(("    " + label.ljust(10), _MUTED), shown))
    for note in report.notes:
        lines.append(Content.assemble(("    note      ", _MUTED), clean(note)))
    for problem in report.problems:
        lines.append(
            Content.assemble(
                ("    problem   ", _BAD),
                (f"{clean(problem.file)} [{clean(problem.kind)}] ", "bold"),
                clean(problem.detail),
            )
        )
    return lines


def problem_lines(state: AppState, source: str) -> list[Content]:
    """The whole view as lines: the connection, each file's copy, then the cycles, newest first."""
    now = state.clock()
    snapshot: Snapshot = state.snapshot
    status = state.status
    polling = (
        "paused"
        if state.paused
        else f"every {state.interval_s:g}s"
        if state.interval_s
        else "not polling"
    )
    lines = [
        Content("Service").stylize(_HEADING),
        Content.assemble(("  read from ", _MUTED), clean(source)),
        Content.assemble(
            ("  connection ", _MUTED),
            clean(status.describe()),
            f" · last success {age(status.last_success, now)} ago · refreshing {polling}",
        ),
        Content(""),
        Content("Files (what each tab shows)").stylize(_HEADING),
    ]
    lines += [_file_line(snapshot.file(name), now) for name in snapshot.files]
    lines += [Content(""), Content("Refresh cycles, newest first").stylize(_HEADING)]
    if not state.reports:
        lines.append(Content("  no refresh cycle has finished yet").stylize(_MUTED))
    for report in reversed(state.reports):
        lines += _report_lines(report, now)
    return lines


class ProblemsScreen(Dialog):
    """Scrollable; `escape`, `q` or `!` closes; j/k, g/G, ctrl+d/u move."""

    HEADING = "roost · problems and refresh log"
    HINT = "escape closes · j/k g/G ctrl+d/u scroll"
    DIALOG_CLASS = "problems-dialog"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("exclamation_mark", "close", "Close", show=False, id="problems.close"),
        *vim_bindings(
            {
                "down": "scroll('down')",
                "up": "scroll('up')",
                "top": "scroll('home')",
                "bottom": "scroll('end')",
                "half_down": "scroll('half_down')",
                "half_up": "scroll('half_up')",
            },
            scope="problems",
            ids={"top": "top", "bottom": "bottom", "half_down": "pgdn", "half_up": "pgup"},
        ),
    ]

    def __init__(self, state: AppState, source: str) -> None:
        super().__init__(id="problems-screen")
        self.state = state
        self.source = source

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Static(
                Content("\n").join(problem_lines(self.state, self.source)), id="problems-text"
            )

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_scroll(self, where: str) -> None:
        scroll_body(self.query_one(VerticalScroll), where)
