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

from textual import events
from textual.widget import Widget
from textual.widgets import Input

from tui.ui.textual_compat import own_bindings

__all__ = ["OrderedInput", "act_on_own_binding"]


async def act_on_own_binding(widget: Widget, event: events.Key) -> bool:
    """Run ``widget``'s own binding for the key now; whether one acted on it."""
    for binding in own_bindings(widget, event.key):
        if binding.priority:
            continue  # the app acted on those when the key was read
        if await widget.app.run_action(binding.action, widget):
            event.stop()  # acted on here: not again when it would reach the app
            return True
    return False


class OrderedInput(Input):
    """An ``Input`` whose editing keys act in the order they were typed."""

    async def handle_key(self, event: events.Key) -> bool:
        return await super().handle_key(event) or await act_on_own_binding(self, event)
