"""A one-line filter (or find) field that keeps a fast burst of keys in order.

In a burst such as ``/the⏎n`` every key is sent to the widget focused when it arrives: the keys
after ``⏎`` reach the line although ``⏎`` moves the focus away. :class:`FilterLine` acts on
``enter`` and ``escape`` as soon as it reads them, and runs each key it reads after the focus
left as the key's binding where the focus went (:func:`run_binding`), instead of typing it.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.screen import Screen

from tui.ui.widgets.editors import OrderedInput

__all__ = ["FilterLine", "run_binding"]


async def run_binding(screen: Screen, key: str) -> None:
    """Run the binding ``key`` has now on ``screen``, from the focused widget up (the first one
    found, as the app looks for a key's binding); a key with none does nothing."""
    active = screen.active_bindings.get(key)
    if active is not None and active.enabled:
        await screen.app.run_action(active.binding.action, active.node)


class FilterLine(OrderedInput):
    """A compact filter / find line: its editing keys act in order (:class:`OrderedInput`);
    ``enter`` and ``escape`` call ``on_enter`` / ``on_escape`` as soon as the line reads them; keys it reads after the focus left run their binding where
    the focus is (see the module)."""

    def __init__(
        self,
        *,
        on_enter: Callable[[], None],
        on_escape: Callable[[], None],
        id: str | None = None,  # noqa: A002 - Textual's own parameter name
        placeholder: str = "",
    ) -> None:
        super().__init__(placeholder=placeholder, id=id, compact=True, select_on_focus=False)
        self._when_enter = on_enter
        self._when_escape = on_escape

    def on_key(self, event: events.Key) -> None:
        if not self.has_focus:
            event.stop()
            event.prevent_default()
            self.call_later(run_binding, self.screen, event.key)
        elif event.key in ("enter", "escape"):
            event.stop()
            event.prevent_default()
            (self._when_enter if event.key == "enter" else self._when_escape)()
