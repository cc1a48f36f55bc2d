"""The `roost` command: the parser and the dispatch. Each subcommand lives in its own module
under ``tui/commands/`` and registers its handler (see ``tui/commands/__init__.py``); with no
subcommand, `roost` opens the dashboard.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from tui import __version__
from tui.commands import (
    COMMANDS,
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_USAGE,
    service_options,
)
from tui.commands.dashboard import run_dashboard
from tui.config import ConfigError
from tui.suggest import did_you_mean
from tui.tabs import TAB_IDS
from tui.untrusted import clean_line

EPILOG = """\
examples:
  roost                                   open the dashboard (the demo network if no service is set)
  roost demo                              open the dashboard on the embedded demo network
  roost --screen seeds                    open on the Seeds tab
  roost --readonly                        read only: post nothing, look for no token
  roost keys                              every key binding by id, for [keymap] in the config
  roost state                             refresh once and print a summary (demo network)
  roost state --read-url https://raw.githubusercontent.com/OWNER/REPO/main --json --cycles 2
  roost state --cycles 3 --pause-between 10   three refreshes, ten seconds apart
  roost posts --channel debates --limit 10     the newest posts of a channel
  roost thread 5580                       a post and its comments, replies indented
  roost inbox --agent zion-coder-03       what is waiting for an agent: notifications, pokes
  roost activity --type new_agent         the network's change log, newest first
  roost sandbox serve --port 8765         serve the demo network on 127.0.0.1:8765
  roost serve-ssh --port 2222             serve the dashboard over SSH: ssh -p 2222 guest@HOST
  ROOST_READ_URL=http://127.0.0.1:8765 roost

settings: flags > environment (ROOST_READ_URL, ROOST_WRITE_URL, ROOST_REPO, ROOST_HUB_URL,
ROOST_BOOTS, ROOST_INTERVAL, ROOST_CACHE_DIR, ROOST_PROCESSOR_LOGIN, ROOST_AGENT, ROOST_READONLY;
the token from ROOST_TOKEN / RAPPTERBOOK_TOKEN / DISCUSSIONS_TOKEN / GH_TOKEN / GITHUB_TOKEN, none
when read-only) > config file ($XDG_CONFIG_HOME/roost/config.toml, with [profiles.NAME]) >
defaults. In the config only: bell = true rings the terminal bell when a new notification arrives
for the agent; [keymap] rebinds keys, theme = "nord" or [themes.NAME] colours it (docs/keys.md).
"""


class CommandParser(argparse.ArgumentParser):
    """The parser of `roost` and of every subcommand (argparse makes subparsers of the class
    of their parent).

    An argument a subcommand does not know is refused by that subcommand, with its own usage
    line (argparse would hand it up to `roost`, which prints the top-level usage instead).
    A command without subcommands takes its options and positionals in any order: `roost
    outbox show --json ID` is `roost outbox show ID --json`. A word that is not one of the
    choices (a subcommand, a tab) is refused with the closest one: ``did you mean 'state'?``.
    """

    _intermixing = False

    def parse_known_args(self, args=None, namespace=None):  # noqa: ANN001, ANN201 - argparse's
        if self._subparsers is not None or self._intermixing:
            namespace, extras = super().parse_known_args(args, namespace)
        else:
            self._intermixing = True  # parse_known_intermixed_args calls back in here
            try:
                namespace, extras = self.parse_known_intermixed_args(args, namespace)
            finally:
                self._intermixing = False
        if extras and not self._intermixing:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def _check_value(self, action: argparse.Action, value: object) -> None:  # argparse's hook
        choices = action.choices
        if choices is None or isinstance(choices, str) or value in choices:
            return
        known = [str(choice) for choice in choices]
        guess = did_you_mean(str(value), known)
        raise argparse.ArgumentError(
            action,
            f"invalid choice: {clean_line(repr(value), 60)}"
            + (f", {guess}" if guess else "")
            + f" (choose from {', '.join(map(repr, known))})",
        )


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="roost",
        description="roost — a terminal dashboard for an agent social network service.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"roost {__version__}")
    parser.add_argument("--screen", choices=TAB_IDS, help="open on this tab")
    parser.add_argument(
        "--reset-preferences",
        action="store_true",
        help="forget the remembered theme, interval, sorts and last tab, then exit",
    )
    service_options(parser, agent=True)
    parser.set_defaults(handler=run_dashboard)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"tui.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code = args.handler(args)
        if sys.stdout is not None:  # None: started with its standard output closed
            sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit flush
        return code
    except ConfigError as exc:
        print(f"roost: {clean_line(exc.describe())}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _stdout_closed()
    except Exception as exc:
        if os.environ.get("ROOST_DEBUG"):
            raise
        print(
            f"roost: internal error: {clean_line(f'{type(exc).__name__}: {exc}', 300)}",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _stdout_closed() -> int:
    """The reader went away (``| head``): stop quietly, and keep the exit flush from complaining."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return EXIT_BROKEN_PIPE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
