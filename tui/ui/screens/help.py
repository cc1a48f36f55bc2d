"""The help screen (`?`), generated from the bindings themselves.

The same :func:`key_sections` feeds the command palette's "actions", so a new key is documented
in one edit: its ``Binding`` (with a stable ``id`` and a description).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Static

from tui.ui.keymap import rebound
from tui.ui.screens.dialog import ClosingModal
from tui.ui.stylesheets import sheets
from tui.ui.textual_compat import app_keymap
from tui.ui.widgets.find_text import scroll_body
from tui.ui.widgets.vim import vim_bindings

__all__ = ["HelpScreen", "KeyEntry", "declared_bindings", "key_sections"]


@dataclass(frozen=True, slots=True)
class KeyEntry:
    key: str  # as displayed
    description: str
    binding: Binding
    node: DOMNode | None  # where the action runs; None: its widget is not mounted yet


def declared_bindings(node_type: type[DOMNode]) -> list[Binding]:
    """The bindings roost's classes declare, the node's own first; a subclass's binding of a
    key wins. Textual's own (focus next, copy selected text, ctrl+q) are not roost's keys to
    list: help and the palette show what roost does."""
    per_class = [
        list(Binding.make_bindings(cls.__dict__["BINDINGS"]))
        for cls in node_type.__mro__  # most specific class first
        if cls.__dict__.get("BINDINGS") and not cls.__module__.startswith("textual.")
    ]
    winner: dict[str, Binding] = {}
    for bindings in reversed(per_class):
        for binding in bindings:
            winner[binding.key] = binding
    return [
        binding for bindings in per_class for binding in bindings if winner[binding.key] is binding
    ]


def _entries(app: App, node: DOMNode | None, bindings: Iterable[Binding]) -> list[KeyEntry]:
    entries: dict[str, KeyEntry] = {}
    for binding in rebound(list(bindings), app_keymap(app)):  # the keys chosen in [keymap]
        if not binding.description or binding.system:
            continue
        name = binding.action
        shown = app.get_key_display(binding)
        if name in entries:  # one line per action: "up / k"
            previous = entries[name]
            shown = f"{previous.key} / {shown}"
        entries[name] = KeyEntry(shown, binding.description, binding, node)
    return list(entries.values())


_HELP_WIDGETS = {"VirtualTable": "Tables", "OptionList": "Go-to list (detail pane)"}


# the app's keys by group, in this order; a binding's group is the start of its id
_APP_GROUPS = (
    ("Tabs", ("app.tab.",)),
    ("Refreshing", ("app.refresh", "app.reload", "app.pause", "app.slower", "app.faster")),
    ("Everywhere", ("",)),
)


def _app_sections(app: App) -> list[tuple[str, list[Binding]]]:
    """The app's bindings (and the palette's key) grouped by :data:`_APP_GROUPS`."""
    bindings = declared_bindings(type(app))
    if app.ENABLE_COMMAND_PALETTE:
        bindings.append(
            Binding(
                app.COMMAND_PALETTE_BINDING,
                "command_palette",
                "Command palette: jump to anything",
                id="app.palette",
            )
        )
    grouped: dict[str, list[Binding]] = {title: [] for title, _prefixes in _APP_GROUPS}
    for binding in bindings:
        title = next(
            title for title, prefixes in _APP_GROUPS if (binding.id or "").startswith(prefixes)
        )
        grouped[title].append(binding)
    return list(grouped.items())


def key_sections(app: App, screen: Screen | None) -> list[tuple[str, list[KeyEntry]]]:
    """(title, entries): the given screen's keys, the app's by group, then each kind of widget
    on the screen; always in this order."""
    sections = []
    if screen is not None:
        title = getattr(screen, "TAB_TITLE", "") or "This screen"
        sections.append((title, _entries(app, screen, declared_bindings(type(screen)))))
    for title, bindings in _app_sections(app):
        sections.append((title, _entries(app, app, bindings)))
    if screen is None:
        return sections
    seen: set[type] = set()
    # the widgets on the screen, then those it mounts on first use (e.g. the detail pane)
    widgets: list[tuple[type, DOMNode | None]] = [(type(w), w) for w in screen.query("*")]
    widgets += [(kind, None) for kind in getattr(screen, "LATER_WIDGETS", ())]
    for kind, widget in widgets:
        if kind in seen or not kind.__dict__.get("BINDINGS"):
            continue
        seen.add(kind)
        label = getattr(kind, "HELP_TITLE", None) or _HELP_WIDGETS.get(kind.__name__)
        if label is None:
            continue  # e.g. the filter Input: its editing keys are the usual ones
        entries = _entries(app, widget, declared_bindings(kind))
        if entries:
            sections.append((label, entries))
    return [(title, entries) for title, entries in sections if entries]


class HelpScreen(ClosingModal[None]):
    """Every key of the current screen, grouped; `escape`, `?` or `q` closes."""

    CSS_PATH = sheets("help")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="help.close"),
        Binding("question_mark", "close", "Close", key_display="?", show=False, id="help.close2"),
        Binding("q", "close", "Close", show=False, id="help.close3"),
        # the usual scroll keys and vim motion, none animated (tui.ui.widgets.find_text.scroll_body)
        *(
            Binding(
                key,
                f"scroll({where!r})",
                "Scroll",
                show=False,
                priority=True,
                id=f"help.scroll-{where}-{key}",
            )
            for where, key in (
                ("down", "down"),
                ("up", "up"),
                ("page_down", "pagedown"),
                ("page_down", "space"),
                ("page_up", "pageup"),
                ("home", "home"),
                ("end", "end"),
            )
        ),
        *vim_bindings(
            {
                motion: f"scroll({where!r})"
                for motion, where in (
                    ("down", "down"),
                    ("up", "up"),
                    ("half_down", "half_down"),
                    ("half_up", "half_up"),
                    ("top", "home"),
                    ("bottom", "end"),
                )
            },
            scope="help",
            ids={
                "down": "scroll-down-j",
                "up": "scroll-up-k",
                "half_down": "scroll-half_down-ctrl+d",
                "half_up": "scroll-half_up-ctrl+u",
                "top": "scroll-home-g",
                "bottom": "scroll-end-G",
            },
            priority=True,
        ),
    ]

    def compose(self) -> ComposeResult:
        app = self.app
        under = next(
            (
                s
                for s in reversed(app.screen_stack)
                if s is not self and (hasattr(s, "TAB_ID") or getattr(s, "SHOWS_IN_HELP", False))
            ),
            None,
        )
        lines: list[Content] = []
        for title, entries in key_sections(app, under):
            if lines:
                lines.append(Content(""))
            lines.append(Content(title).stylize("bold underline"))
            width = max(len(entry.key) for entry in entries)
            for entry in entries:
                lines.append(
                    Content.assemble(
                        ("  " + entry.key.ljust(width), "bold $accent"),
                        "  ",
                        entry.description,
                    )
                )
        with Vertical(id="help-dialog"):
            yield Static(Content("roost · keys").stylize("bold"), id="help-title")
            with VerticalScroll(id="help-body"):
                yield Static(Content("\n").join(lines), id="help-keys")
            yield Static(Content("escape closes · ^p command palette · ! problems"), id="help-hint")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, where: str) -> None:
        scroll_body(self.query_one("#help-body", VerticalScroll), where)
