"""Text fields that act on every key of a burst in the order it was typed.

Textual hands a key the focused field does not take as a character (``ctrl+u``, ``backspace``,
``end``…) back up the widget tree, and acts on the field's binding for it only once the key
reaches the app. The characters typed after it are inserted by the field meanwhile, so a burst
(a fast typist, a paste of keystrokes, ``tmux send-keys``) of ``abc ctrl+u xyz`` deleted ``xyz``
too, and ``end`` or ``ctrl+u`` after a ``tab`` acted on the text typed after them. These fields
act on their own bindings when they read the key, in order with the characters around it; other
keys go up the tree as before. (The forms' ``OrderedTextArea`` is beside them: a ``TextArea`` is
not imported on the way to the first frame.)
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widget import Widget
from textual.widgets import Input

from tui.ui.textual_compat import KeyGate, own_bindings

__all__ = ["KeyHold", "OrderedInput", "OrderedKeys", "act_on_own_binding"]


async def act_on_own_binding(widget: Widget, event: events.Key) -> bool:
    """Run ``widget``'s own binding for the key now; whether one acted on it."""
    for binding in own_bindings(widget, event.key):
        if binding.priority:
            continue  # the app acted on those when the key was read
        if await widget.app.run_action(binding.action, widget):
            event.stop()  # acted on here: not again when it would reach the app
            return True
    return False


class KeyHold:
    """Where a key a field reads goes when it is not the field's to type (:meth:`diverts`).

    * After a key that may close the field's screen (``escape`` in a form, :meth:`start`), the
      keys are held until the screen has acted on that key, then handed to the app in order
      (:meth:`release`): they act where the focus is then (the screen the form closed to, a
      question put over it, or the same field when the form stayed open).
    * A key read once the field's screen is no longer the one on view (an earlier key of the
      same burst closed it) goes to the app again at once, for the same reason.
    """

    def __init__(self, widget: Widget) -> None:
        self._widget = widget
        self._keys: list[tuple[str, str | None]] | None = None

    def start(self) -> None:
        self._keys = []

    def diverts(self, event: events.Key) -> bool:
        """Whether ``event`` is held or passed on to the app rather than read by the field."""
        app = self._widget.app
        try:
            on_view = self._widget.screen is app.screen
        except Exception:  # no screen any more: the field is being removed
            on_view = False
        held = self._keys
        if on_view and held is None:
            return False
        event.stop()
        event.prevent_default()
        if on_view and held is not None:
            held.append((event.key, event.character))
        else:
            app.post_message(events.Key(event.key, event.character))
        return True

    def release(self) -> None:
        keys, self._keys = self._keys or [], None
        for key, character in keys:
            self._widget.app.post_message(events.Key(key, character))


class OrderedKeys(KeyGate):
    """A mixin for a text field, before ``Input`` or ``TextArea`` in its bases: its editing keys
    act in the order they were typed (its own bindings as it reads the key), and a key that is
    not its to type goes where its :class:`KeyHold` sends it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.key_hold = KeyHold(self)

    def diverts_key(self, event: events.Key) -> bool:
        return self.key_hold.diverts(event)

    async def handle_key(self, event: events.Key) -> bool:
        return await super().handle_key(event) or await act_on_own_binding(self, event)


class OrderedInput(OrderedKeys, Input):
    """An ``Input`` whose editing keys act in the order they were typed."""
