"""Preparing the tabs not opened yet, between keys (the app starts it a moment after its first
refresh; ARCHITECTURE.md, data flow).

Between keys, the modules of the tabs not opened yet are imported (in a thread: the Boots tab's
verifier, ZIP reader and boot-record models take a while) and the CSS they will load is parsed
(on the event loop, one source at a time: Textual's caches are not thread-safe): each tab's own
CSS right after its import, then the widgets' default CSS, the longest first. A first visit then
finds both done (tui/ui/textual_compat.py); typed in the first seconds, the Seeds tab's first
frame came later without them. Each step waits until no key has come for a moment: an import for
:data:`PRELOAD_IMPORT_QUIET_S`, a parse (at most a few ms) for :data:`PRELOAD_PARSE_QUIET_S`. An
import that fails here fails again, and is reported, when its tab opens.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Container
from pathlib import PurePath
from typing import Any

from textual.widget import Widget

from tui.ui.screens import TABS
from tui.ui.table.key_pace import KeyPace
from tui.ui.textual_compat import (
    CssSourceKey,
    ParseOnceStylesheet,
    default_css_sources,
    file_css_sources,
)

__all__ = ["PRELOAD_IMPORT_QUIET_S", "PRELOAD_PARSE_QUIET_S", "between_keys", "prepare_tabs"]

PRELOAD_IMPORT_QUIET_S = 0.15  # no key for this long before a tab's module is imported
PRELOAD_PARSE_QUIET_S = 0.08  # no key for this long before one CSS source is parsed


async def between_keys(pace: KeyPace, quiet_s: float) -> None:
    """Give the event loop a turn, and wait until no key has come for ``quiet_s`` (a step of a
    few ms then fits between two keys of a person typing fast)."""
    await asyncio.sleep(0)
    while not pace.quiet_for(quiet_s):
        await asyncio.sleep(0.02)


async def prepare_tabs(stylesheet: Any, pace: KeyPace, *, opened: Container[str]) -> None:
    """Import the screens of the tabs not in ``opened`` and parse their CSS into
    ``stylesheet`` (when it parses each source once), then every widget's default CSS."""

    parse = stylesheet.preparse if isinstance(stylesheet, ParseOnceStylesheet) else None
    for tab in TABS:
        if tab.id in opened:
            continue
        await between_keys(pace, PRELOAD_IMPORT_QUIET_S)
        try:
            screen_class = await asyncio.to_thread(tab.screen_class)
        except Exception:  # noqa: BLE001 — reported when the tab opens
            continue
        paths = screen_class.CSS_PATH
        if isinstance(paths, (str, PurePath)):
            paths = [paths]
        for source in file_css_sources(p for p in paths or () if PurePath(p).is_absolute()):
            if parse is not None:
                await between_keys(pace, PRELOAD_PARSE_QUIET_S)
                parse(source)
    if parse is None:
        return
    sources: list[CssSourceKey] = []
    classes: list[type[Widget]] = [Widget]
    while classes:
        node_class = classes.pop()
        classes.extend(node_class.__subclasses__())
        with contextlib.suppress(Exception):
            sources += default_css_sources(node_class)
    for source in sorted(dict.fromkeys(sources), key=lambda source: -len(source[0])):
        await between_keys(pace, PRELOAD_PARSE_QUIET_S)
        parse(source)
