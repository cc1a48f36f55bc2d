"""The one base of every error a person is shown.

A :class:`RoostError` says what went wrong in one line (:attr:`RoostError.message`, its
``str``) and, when there is a step to take that the message does not already name, what to do
next (:attr:`RoostError.hint`). The CLI prints :meth:`RoostError.describe` and the dashboard
shows it; anything else that escapes is a bug and is reported as one. Service text in a message
is cleaned where it is shown, never here. No Textual import.
"""

from __future__ import annotations

__all__ = ["RoostError"]


class RoostError(Exception):
    """An error with a message for a person; ``hint``: the next step, or ""."""

    hint: str = ""

    def __init__(self, *args: object, hint: str | None = None) -> None:
        super().__init__(*args)
        if hint is not None:
            self.hint = hint

    @property
    def message(self) -> str:
        """What went wrong, in one line."""
        return str(self)

    def describe(self) -> str:
        """The message and, if there is one, the hint: what the CLI prints, the app shows."""
        return f"{self.message} ({self.hint})" if self.hint else self.message
