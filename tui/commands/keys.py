"""`roost keys [--json]`: every binding id, its keys (the default and the config's), where it
applies and what it does; the ids ``[keymap]`` in the config takes (docs/keys.md). A keymap the
dashboard would refuse is refused here too, with the same one line (exit 2)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tui.commands import EXIT_OK, settings_from
from tui.untrusted import clean_line

__all__ = ["register", "run_keys"]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "keys",
        help="list every key binding by id (the ids [keymap] in the config takes)",
        description="Every binding id, its keys (default, and yours from [keymap] in the "
        "config), where it applies and what it does.",
    )
    parser.add_argument("--json", action="store_true", help="one JSON document")
    parser.add_argument(
        "--profile",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help="profile of the config file to use",
    )
    parser.add_argument(
        "--config",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="config file (default $XDG_CONFIG_HOME/roost/config.toml)",
    )
    parser.set_defaults(handler=run_keys)


def run_keys(args: argparse.Namespace) -> int:
    settings = settings_from(args, looks_for_token=False)
    # deferred: the UI's keymap (and Textual) only for this command
    from tui.ui.keymap import binding_catalog, checked_keymap, key_label

    yours = checked_keymap(settings.keymap)
    rows: list[dict[str, Any]] = []
    for info in binding_catalog().values():
        chosen = yours.get(info.id)
        rows.append(
            {
                "id": info.id,
                "keys": chosen.split(",") if chosen else list(info.keys),
                "default": list(info.keys),
                "yours": chosen is not None,
                "where": list(info.places),
                "action": info.action,
                "description": info.description,
            }
        )
    if args.json:
        json.dump({"keys": rows}, sys.stdout, ensure_ascii=False, indent=1)
        print()
        return EXIT_OK
    shown = [
        (
            row["id"],
            ",".join(map(key_label, row["keys"])),
            "" if not row["yours"] else "(was " + ",".join(map(key_label, row["default"])) + ")",
            "; ".join(row["where"]),
            clean_line(row["description"], 60),
        )
        for row in rows
    ]
    widths = [max(len(row[column]) for row in shown) for column in range(4)]
    print(
        "  ".join(
            title.ljust(width)
            for title, width in zip(("ID", "KEYS", "", "WHERE"), widths, strict=True)
        )
        + "  WHAT"
    )
    for row in shown:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True))
            + "  "
            + row[4]
        )
    return EXIT_OK
