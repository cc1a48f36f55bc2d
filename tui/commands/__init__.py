"""The subcommands of `roost`, one module each (ARCHITECTURE.md, layers: every subcommand calls the same
core as the TUI).

A command module has ``register(subparsers)``: it adds its parser and sets
``handler=<function(args) -> exit code>`` with ``set_defaults``. :data:`COMMANDS` lists the
modules in the order ``roost --help`` shows them; ``tui/cli.py`` dispatches on ``args.handler``.
A new command is one module here and one line in :data:`COMMANDS`.

Exit codes (every command): 0 ok; 1 some file failed integrity or validation (reported, the last
good copy kept); 2 usage or a settings error (one line naming the file, variable or option);
3 nothing loadable; 70 an internal error (one line, no traceback; ``ROOST_DEBUG=1`` shows it);
130 interrupted; 141 stdout was closed early (``roost state | head``): quiet, as when a command-line
tool is ended by SIGPIPE.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tui.config import Settings, load
from tui.session import Session

__all__ = [
    "COMMANDS",
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERNAL",
    "EXIT_NOTHING",
    "EXIT_OK",
    "EXIT_PROBLEMS",
    "EXIT_USAGE",
    "agent_option",
    "counted",
    "load_from",
    "readonly_option",
    "service_options",
    "settings_from",
]

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_NOTHING = 0, 1, 2, 3
EXIT_INTERNAL = 70  # sysexits' EX_SOFTWARE
EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a command ended by SIGPIPE

# module names under tui.commands, in help order
COMMANDS: tuple[str, ...] = (
    "dashboard",
    "state",
    "posts",
    "thread",
    "inbox",
    "activity",
    "export",
    "keys",
    "action",
    "eggs",
    "sandbox",
    "serve_ssh",
)


def counted(n: int, noun: str, nouns: str | None = None) -> str:
    """A count with its noun in the right number: ``1 request``, ``2 requests``, ``0 entries``
    (``nouns`` when the plural is not the noun and an s)."""
    return f"{n:,} {noun if n == 1 else nouns or noun + 's'}"


def service_options(
    parser: argparse.ArgumentParser, *, interval: bool = True, agent: bool = False
) -> None:
    """The options every command that reads the service takes; ``agent``: also ``--agent``,
    for the commands that show an agent's own things (the dashboard, `roost inbox`)."""
    # SUPPRESS: an option given before the subcommand is not clobbered by the subparser's default
    group = parser.add_argument_group("service", argument_default=argparse.SUPPRESS)
    group.add_argument(
        "--read-url", metavar="URL", help="base of the read interface (state/*.json)"
    )
    group.add_argument(
        "--write-url", metavar="URL", help="issue API base (default https://api.github.com)"
    )
    group.add_argument(
        "--repo", metavar="OWNER/NAME", help="repository that receives action issues"
    )
    group.add_argument("--hub-url", metavar="URL", help="base URL of the egg hub")
    group.add_argument("--boots", metavar="URL|PATH", help="boot-record source")
    group.add_argument("--profile", metavar="NAME", help="profile of the config file to use")
    group.add_argument(
        "--config", metavar="PATH", help="config file (default $XDG_CONFIG_HOME/roost/config.toml)"
    )
    group.add_argument(
        "--cache-dir", metavar="DIR", help="disk cache root (default: platform cache dir)"
    )
    readonly_option(group)
    if interval:
        group.add_argument(
            "--interval", type=float, metavar="S", help="seconds between refreshes (default 60)"
        )
    if agent:
        agent_option(group)


def agent_option(group: Any) -> None:
    """``--agent ID``: the agent whose inbox roost shows (the setting ``agent``)."""
    group.add_argument(
        "--agent",
        metavar="ID",
        default=argparse.SUPPRESS,  # given before a subcommand, not clobbered by its default
        help="the agent whose inbox roost shows (ROOST_AGENT, agent)",
    )


def readonly_option(group: Any) -> None:
    """``--readonly``: post nothing and look for no token (the setting ``readonly``)."""
    group.add_argument(
        "--readonly",
        action="store_true",
        default=argparse.SUPPRESS,  # given before a subcommand, not clobbered by its default
        help="read only: post nothing, look for no token (ROOST_READONLY=1, readonly)",
    )


def no_cache_option(parser: argparse.ArgumentParser) -> None:
    """``--no-cache``: a command that reads the service leaves the disk cache alone."""
    parser.add_argument(
        "--no-cache", action="store_true", help="do not read or write the disk cache"
    )


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "read_url": getattr(args, "read_url", None),
        "write_url": getattr(args, "write_url", None),
        "repo": getattr(args, "repo", None),
        "hub_url": getattr(args, "hub_url", None),
        "boots": getattr(args, "boots", None),
        "profile": getattr(args, "profile", None),
        "cache_dir": getattr(args, "cache_dir", None),
        "interval": getattr(args, "interval", None),
        "agent": getattr(args, "agent", None),
        "readonly": getattr(args, "readonly", None),
    }


def settings_from(args: argparse.Namespace, *, looks_for_token: bool = True) -> Settings:
    """The settings the options in ``args`` make (over the environment, the config file)."""
    return load_from(args, looks_for_token=looks_for_token)[0]


def load_from(
    args: argparse.Namespace, *, looks_for_token: bool = True
) -> tuple[Settings, Session]:
    """The settings the options in ``args`` make (over the environment, the config file) and
    the session they start (tui/config.py, ``load``): what a command that connects needs."""
    config = getattr(args, "config", None)
    return load(
        _flags(args),
        path=Path(config) if config else None,
        required=bool(config),
        demo=bool(getattr(args, "demo", False)),
        looks_for_token=looks_for_token,
    )
