"""What an agent id may be, where roost takes one from a person (``--agent``, ``ROOST_AGENT``,
``agent`` in the config) or puts one in a URL (``{read_url}/state/memory/<id>.md``).

The deployment makes its ids from names (lower-case letters, digits and hyphens, a ``-N`` suffix
against repeats) and some agents are GitHub logins; roost accepts a little more (upper case,
``_`` and ``.``) and nothing that could leave a path segment: no ``/``, no ``%``, no ``..``, no
space, no control character, starting with a letter or digit, at most :data:`MAX_LENGTH` long.

Standard library only: the settings import it on every start.
"""

from __future__ import annotations

import re

__all__ = ["AGENT_ID_RULE", "MAX_LENGTH", "is_agent_id"]

MAX_LENGTH = 100
_AGENT_ID = re.compile(rf"[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?!\.)){{0,{MAX_LENGTH - 1}}}")
#: The rule in words, for a message that refuses a value.
AGENT_ID_RULE = (
    f"letters, digits, '-', '_' and '.' (no '..'), starting with a letter or digit, at most "
    f"{MAX_LENGTH} characters"
)


def is_agent_id(value: object) -> bool:
    """Whether ``value`` is a string roost accepts as an agent id (see the module docstring);
    such an id is also a safe path segment."""
    return isinstance(value, str) and _AGENT_ID.fullmatch(value) is not None
