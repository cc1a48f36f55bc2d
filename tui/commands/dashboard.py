"""The dashboard: `roost` with no subcommand (the configured service, or the demo network if
none is set) and `roost demo` (the embedded demo network, always; `--reset` starts its world
afresh, after asking)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tui.commands import EXIT_OK, EXIT_USAGE, agent_option, load_from, readonly_option
from tui.ssh.mode import for_session, session_role
from tui.tabs import TAB_IDS

if TYPE_CHECKING:
    from tui.service import Service

__all__ = ["preload_dashboard", "register", "run_dashboard", "warm_dashboard"]


def register(sub: argparse._SubParsersAction) -> None:
    demo = sub.add_parser("demo", help="open the dashboard on the embedded demo network")
    demo.add_argument("--screen", choices=TAB_IDS, dest="demo_screen", help="open on this tab")
    demo.add_argument(
        "--reset",
        action="store_true",
        help="start a fresh demo world (and outbox); the dashboard asks first",
    )
    agent_option(demo)
    readonly_option(demo)
    demo.set_defaults(handler=run_dashboard, demo=True)


def preload_dashboard() -> None:
    """Import what a dashboard runs: the app and every tab's screen (the SSH zygote does, once,
    for all the sessions it forks)."""
    # deferred: off the start path (only the zygote calls this)
    import tui.ui.app  # noqa: F401
    from tui.tabs import TABS

    for tab in TABS:
        tab.screen_class()


def warm_dashboard(service: Service, *, timeout_s: float = 60.0) -> bool:
    """Run the dashboard once, headless at 80×24, until its first rows are shown and the other
    tabs are prepared, then quit: what a run parses and imports on the way (every sheet, the
    modules a screen imports on first use) stays done in this process. The SSH zygote does it
    once for all the sessions it forks. True if it got that far in ``timeout_s``."""
    import asyncio  # deferred: only the zygote calls this

    from tui.ui.app import RoostApp  # deferred: off the start path

    app = RoostApp(service, poll=False)

    async def run() -> bool:
        async with app.run_test(size=(80, 24)):
            try:
                await asyncio.wait_for(app.loaded.wait(), timeout_s)
                await asyncio.wait_for(app.prepare_tabs().wait(), timeout_s)
            except TimeoutError:
                return False
            return True

    return asyncio.run(run())


def on_a_terminal() -> bool:
    """Whether both ends are a terminal: the dashboard draws on stdout and reads keys from
    stdin, and without one it would paint blind into a pipe and never be told to stop."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def run_dashboard(args: argparse.Namespace) -> int:
    if getattr(args, "reset_preferences", False):
        # deferred: off the start path
        from tui.preferences import reset_preferences

        forgotten = reset_preferences()
        print(
            f"roost: forgot the remembered preferences ({forgotten} removed)"
            if forgotten
            else "roost: no preferences were remembered"
        )
        return EXIT_OK
    # a session of `roost serve-ssh` reads no token at all
    settings, session = load_from(args, looks_for_token=session_role() is None)
    session = for_session(session)
    if not on_a_terminal():
        print(
            "roost: the dashboard needs a terminal (for scripts: roost state --json)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if settings.keymap or settings.theme or settings.themes:  # refused before anything starts
        # deferred: off the start path
        from tui.ui.keymap import checked_keymap
        from tui.ui.themes import checked_themes

        checked_keymap(settings.keymap)
        checked_themes(settings)
    screen = getattr(args, "demo_screen", None) or args.screen
    if getattr(args, "demo", False):
        settings, session = settings.as_demo(), session.as_demo()
    from tui.ui import speed  # deferred: the core loads no UI module until a dashboard runs

    try:
        service = speed.begin(settings, session)  # before the heavy imports (tui/ui/speed)
        from tui.ui.app import run_tui  # deferred: off the start path

        asked = {"ask_demo_reset": True} if getattr(args, "reset", False) else {}
        return run_tui(service, screen=screen, **asked)
    finally:
        speed.end()  # the start-up's hold on the collector, if the app has not ended it
