"""The Seeds tab as one feature folder: the screen (:mod:`.screen`), its views (:mod:`.views`),
their rows (:mod:`.rows`) and what they say (:mod:`.details`); their stylesheet is
``styles/seeds.tcss``.

The tab registry names ``tui.ui.screens.seeds:SeedsScreen``.
"""

from __future__ import annotations

from tui.ui.screens.seeds.screen import SeedsScreen

__all__ = ["SeedsScreen"]
