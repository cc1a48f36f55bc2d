"""An outbox folder damaged by hand: one file of every kind an attacker (or a bad disk) can
leave under a name like an entry's, beside one good entry.

``plant_damage(folder)`` returns ``{entry id: what the outbox must say about it}``; every test
of a damaged outbox (the outbox, the CLI, the Outbox screen) plants the same set.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tui.actions.issue_body import compose_issue
from tui.actions.outbox import Entry, Outbox

__all__ = ["GOOD_ID", "plant_damage"]

GOOD_ID = "20261123T210000Z-000000aa"


def _id(index: int) -> str:
    return f"20261123T2200{index:02d}Z-0000dd{index:02x}"


def _good(entry_id: str, action: str = "heartbeat") -> dict:
    nonce = "0" * 32
    request = compose_issue(action, {}, nonce).as_json()
    return Entry(entry_id, action, {}, nonce, request=request).as_json()


def plant_damage(folder: Path) -> dict[str, str]:
    """Fill ``folder`` with one good entry (:data:`GOOD_ID`) and the damaged ones."""
    folder.mkdir(parents=True, exist_ok=True)
    Outbox(folder).save(Entry.from_json(_good(GOOD_ID)))
    said: dict[str, str] = {}

    def plant(index: int, reason: str, make) -> None:
        entry_id = _id(index)
        make(folder / f"{entry_id}.json")
        said[entry_id] = reason

    plant(1, "nested more than 64 levels deep", lambda p: p.write_text("[" * 1500 + "]" * 1500))
    plant(2, "a FIFO, not a regular file", os.mkfifo)
    plant(3, "a symbolic link, not followed", lambda p: p.symlink_to("/dev/zero"))
    plant(4, "not JSON", lambda p: p.write_text(json.dumps(_good(_id(4)))[:-40]))
    plant(5, "not UTF-8 text", lambda p: p.write_bytes(b'{"id": "\xff\xfe"}'))
    plant(6, "empty", lambda p: p.write_bytes(b""))
    plant(7, "a folder, not a file", lambda p: p.mkdir())
    plant(8, "larger than 4 MiB", lambda p: p.write_bytes(b" " * (4 << 20) + b"{}"))
    plant(
        9,
        "its payload is not an object",
        lambda p: p.write_text(json.dumps({**_good(_id(9)), "payload": "x"})),
    )
    plant(
        10,
        "the id inside is another entry's",
        lambda p: p.write_text(json.dumps(_good(GOOD_ID))),
    )
    plant(
        11,
        "its tracking is not a record of the checks",
        lambda p: p.write_text(json.dumps({**_good(_id(11)), "tracking": []})),
    )
    return said
