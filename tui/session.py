"""What this run of roost learned, beside what the person configured (ARCHITECTURE.md, settings
and session).

:class:`~tui.config.Settings` is what a person chose (URLs, theme, keymap, agent, preferences)
and where each choice was made; a :class:`Session` is what one run found out while starting:
the token it holds and where it came from, whether it is read-only and who asked, the role of a
session of `roost serve-ssh`, and a usage error held back until the command says whether it
matters (`roost demo` sets it aside). Both are frozen: a change is a new value
(``msgspec.structs.replace``). (An SSH client's session on the server is another thing,
``tui/ssh/session.py``.)

The token is a :class:`Secret`: it never prints itself, and a :class:`Session` is made only with
one (or none), so no ``repr``, ``str`` or log line of a session shows the token's text. It is
unwrapped only by the clients that send it to the write URL's origin.

This module is part of the headless core and imports nothing heavy: it is on the start path.
"""

from __future__ import annotations

import msgspec

__all__ = ["Secret", "Session"]


class Secret:
    """A token that does not print itself."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('********')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)


class Session(msgspec.Struct, frozen=True, kw_only=True):
    """What this run learned (none of it is read from a setting of the same name).

    A msgspec ``Struct`` rather than a dataclass: it is made on every start, and a dataclass's
    methods are compiled from source when it is defined (ARCHITECTURE.md, the read side).
    """

    #: The token this run holds (the config file's, a variable's, the demo network's); None:
    #: none yet (the write side may still find one, tui/actions/token.py).
    token: Secret | None = None
    #: Where :attr:`token` came from: a variable's name, ``"config"``, ``"demo"``.
    token_source: str | None = None
    #: Served by `roost serve-ssh` as ``"guest"`` or ``"user"`` (tui/ssh/mode.py); None: not.
    ssh_role: str | None = None
    #: Where read-only was asked for (``"--readonly"``, ``"environment ROOST_READONLY"``, the
    #: file and profile); None: this run may post (tui/read_only.py).
    readonly_source: str | None = None
    #: Where the write-side settings given with no read URL came from: a usage error unless
    #: the demo network was asked for (tui/config.py, ``no_read_url_message``).
    write_without_read: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.token is not None and not isinstance(self.token, Secret):
            raise TypeError("a session's token is a Secret, never plain text")

    def __repr__(self) -> str:
        token = "Secret('********')" if self.token is not None else "None"
        return (
            f"Session(token={token}, token_source={self.token_source!r}, "
            f"ssh_role={self.ssh_role!r}, readonly_source={self.readonly_source!r}, "
            f"write_without_read={self.write_without_read!r})"
        )

    __str__ = __repr__

    @property
    def readonly(self) -> bool:
        """Read-only: no token is looked for and no write side is built."""
        return self.readonly_source is not None

    def as_demo(self) -> Session:
        """This session on the embedded demo network (`roost demo`): the settings that pointed
        at a deployment are set aside, so they are no longer an error."""
        if not self.write_without_read:
            return self
        return msgspec.structs.replace(self, write_without_read=())
