"""The person's keys, theme and remembered preferences, put on the app (ARCHITECTURE.md,
preferences that stay).

At start: the keymap (``App.set_keymap``), the person's own themes and the theme (the config's,
else the remembered one), the remembered refresh interval unless one is set. While running:
a theme picked in the palette, an interval changed with ``+``/``-``, a table's sort and hidden
columns (``C``) and the tab on view are remembered per profile (:mod:`tui.preferences`). A setting in the config file, the
environment or a flag always wins over what was remembered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeVar

from textual.app import App
from textual.theme import BUILTIN_THEMES, Theme

from tui.preferences import Preferences, preferences_path, sort_key
from tui.ui.keymap import checked_keymap
from tui.ui.themes import checked_themes

if TYPE_CHECKING:
    from tui.config import Settings
    from tui.network.store import Store
    from tui.session import Session
    from tui.ui.screens.base import StateScreen

T = TypeVar("T")

__all__ = ["PreferencesController"]


class PreferencesController:
    """The app's keys and looks, and what it remembers of them. Made before the app's
    ``__init__`` runs (the first tab may be the remembered one); :meth:`install` after it."""

    def __init__(
        self, app: App, settings: Settings, session: Session, *, remember: bool = True
    ) -> None:
        self.app = app
        self.settings = settings
        path = preferences_path(session.ssh_role) if remember else None
        self.kept = Preferences(path, settings.profile)
        self.keymap: dict[str, str] = checked_keymap(settings.keymap)
        self.own_themes, theme = checked_themes(settings)
        self.theme = theme if theme is not None else self._remembered_theme()

    def _remembered_theme(self) -> str | None:
        name = self.kept.remembered.theme
        known = {*BUILTIN_THEMES, *(theme.name for theme in self.own_themes)}
        return name if name in known else None

    def install(self, store: Store | None) -> None:
        """Keys and themes on the app (from its ``__init__``: the first frame has them), and
        the remembered interval on the ``store`` it polls (None: it does not poll)."""
        if store is not None:
            store.set_interval(self.interval(store.options.interval_s))
        for theme in self.own_themes:
            self.app.register_theme(theme)
        if self.keymap:
            self.app.set_keymap(self.keymap)
        if self.theme is not None:
            self.app.theme = self.theme

    def interval(self, default: float) -> float:
        """The refresh interval: the one set, else the remembered one, else ``default``."""
        remembered = self.kept.remembered.interval
        if "interval" in self.settings.given or remembered is None:
            return default
        return remembered

    def started(self) -> None:
        """The app is mounted: follow the theme, and say once if the file was damaged."""
        self.app.theme_changed_signal.subscribe(self.app, self._theme_changed)
        if self.kept.note:
            self.app.notify(self.kept.note, title="Preferences", severity="warning", markup=False)
            self.kept.note = None

    def _theme_changed(self, theme: Theme) -> None:
        self.kept.remember(theme=theme.name)

    def tables_of(self, screen: StateScreen, tab_id: str) -> None:
        """Give ``screen`` (tab ``tab_id``) the sorts and hidden columns remembered for its
        tables, put back when its body is mounted."""
        screen.remembered_sorts = _of_tab(self.kept.remembered.sorts, tab_id)
        screen.remembered_hidden = _of_tab(self.kept.remembered.hidden, tab_id)

    def columns_hidden(self, tab_id: str, table_id: str | None, columns: tuple[str, ...]) -> None:
        self.kept.remember_hidden(sort_key(tab_id, table_id), columns)

    def sorted(self, tab_id: str, table_id: str | None, column: str | None, reverse: bool) -> None:
        self.kept.remember_sort(sort_key(tab_id, table_id), column, reverse)

    def interval_changed(self, seconds: float) -> None:
        self.kept.remember(interval=seconds)

    def tab_shown(self, tab_id: str) -> None:
        self.kept.remember(tab=tab_id)

    def first_tab(self, tabs: Mapping[str, object]) -> str:
        """The tab to open on when none is named: the last one on view, else Agents."""
        tab = self.kept.remembered.tab
        return tab if tab is not None and tab in tabs else "agents"


def _of_tab(remembered: Mapping[str, T], tab_id: str) -> dict[str, T]:
    """What is remembered for the tables of ``tab_id``, by table id ("" the main one)."""
    prefix = f"{tab_id}:"
    return {
        ("" if name == tab_id else name.removeprefix(prefix)): value
        for name, value in remembered.items()
        if name == tab_id or name.startswith(prefix)
    }
