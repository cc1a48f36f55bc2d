"""A child process gets SIGINT as a terminal's foreground job would.

A test run started in the background (``pytest … &``, some CI runners) ignores SIGINT, and a
child inherits that: Python then installs no KeyboardInterrupt handler, and a test that sends
the child SIGINT (ctrl+c) would see it ignored. Tests that send SIGINT start their child with
:func:`sigint_as_from_a_terminal` (a ``preexec_fn``), or :func:`then_sigint_as_from_a_terminal`
around one of their own.
"""

from __future__ import annotations

import signal
from collections.abc import Callable


def sigint_as_from_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def then_sigint_as_from_a_terminal(first: Callable[[], object] | None) -> Callable[[], None]:
    def preexec() -> None:
        sigint_as_from_a_terminal()
        if first is not None:
            first()

    return preexec
