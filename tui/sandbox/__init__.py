"""The embedded demo network (DESIGN.md §6).

* ``generator``  deterministic state documents: ``generate_state``, ``serialize``,
  ``build_manifest``
* ``processor``  applies catalog actions to the documents: ``apply_action``, ``ActionRejected``
* ``network``    ``DemoNetwork``: documents, published bytes and manifest
* ``faults``     ``Faults``: latency, errors, hash mismatch, truncation, malformed files, ...
* ``app``        ``create_app``: the Starlette app (read interface, GitHub-shaped issue API)
* ``server``     ``serve`` on loopback, ``running_sandbox`` for tests, ``in_process_client``

The core (``network/``, ``actions/``, ``eggs/``) never imports this package; it imports the
core. Nothing here imports Textual. Names are loaded lazily so ``import tui.sandbox`` stays
cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "DEFAULT_EPOCH": "generator",
    "generate_state": "generator",
    "serialize": "generator",
    "build_manifest": "generator",
    "apply_action": "processor",
    "ActionRejected": "processor",
    "DemoNetwork": "network",
    "Faults": "faults",
    "DEMO_TOKEN": "app",
    "create_app": "app",
    "SandboxInfo": "server",
    "serve": "server",
    "running_sandbox": "server",
    "in_process_client": "server",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tui.sandbox' has no attribute {name!r}")
    return getattr(import_module(f"tui.sandbox.{module}"), name)
