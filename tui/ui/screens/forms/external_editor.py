"""Which editor ``ctrl+e`` runs: git's order — ``$VISUAL``, ``$EDITOR``, then ``editor`` (the
Debian alternative), then ``vi`` — the first whose program is found.

A variable may hold a command with arguments (``code --wait``): it is split as a shell would
split it, and its first word is looked up on ``PATH`` (or taken as a path when it has a slash).
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping

__all__ = ["DEFAULT_EDITORS", "EDITOR_VARIABLES", "NO_EDITOR_FOUND", "editor_command"]

#: Read in this order; the first set, non-empty and found wins.
EDITOR_VARIABLES = ("VISUAL", "EDITOR")
#: Tried when neither variable names an editor that is found.
DEFAULT_EDITORS = ("editor", "vi")

NO_EDITOR_FOUND = (
    "No editor found: set $VISUAL or $EDITOR (neither names a program found here, and "
    "neither editor nor vi is on PATH)"
)


def editor_command(environ: Mapping[str, str] | None = None) -> list[str] | None:
    """The command (program and arguments; the file goes last) of the first editor found in
    ``environ`` (default: this process's environment, its ``PATH`` included), or None."""
    env = os.environ if environ is None else environ
    candidates = [env.get(name, "") for name in EDITOR_VARIABLES] + list(DEFAULT_EDITORS)
    for candidate in candidates:
        try:
            words = shlex.split(candidate)
        except ValueError:  # an unbalanced quote: not a command
            continue
        if words and shutil.which(words[0], path=env.get("PATH")) is not None:
            return words
    return None
