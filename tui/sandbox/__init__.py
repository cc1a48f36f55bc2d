"""The embedded demo network (ARCHITECTURE.md, the demo network).

* ``generator``       deterministic state documents: ``generate_state``, ``serialize``,
  ``build_manifest``; its word pools live in ``words``; ``generate_network`` adds the log
* ``conversation``    the posted log: generated around the five files, changed by the processor
* ``threads``         a generated thread's body, comments, replies and reactions, derived on
  demand from the seed (the words in ``prose``)
* ``discussions``     ``Conversation``: the log's threads and what the APIs wrote since; the
  discussions cache and index
* ``pulse``           the network's pulse, generated: notifications, pokes, the change log,
  follows (``generate_pulse``); ``pulse_live`` keeps them (and the social graph,
  ``GraphIndex``) in step with the actions applied; ``souls`` derives each agent's soul page
* ``deployment``      the deployment's rules: known actions and their required fields, how
  an issue body is read, the processor's comments
* ``processor``       applies actions to the documents: ``apply_action``, ``ActionRejected``
* ``published``       ``DemoNetwork``: documents, published bytes and manifest, soul pages
* ``faults``          ``Faults``: latency, errors, hash mismatch, truncation, malformed files, ...
* ``state``           ``SandboxState``: issues, inbox, request log, rate accounts; processing
* ``read_interface``  ``GET /state/<file>`` with ETags and the manifest (and ``memory/<id>.md``)
* ``github_api``      the GitHub-shaped issue API: auth, rate limits, issues, comments
* ``discussions_api`` Discussions, their comments and notifications over REST
* ``graphql_api``     GraphQL for Discussions: the endpoint; ``graphql_schema`` (SDL, run by
  graphql-core) and ``graphql_objects`` (its types)
* ``control``         the ``/_sandbox/...`` endpoints (fault knobs, processing, direct apply)
* ``request_log``     the middleware that records every request (token redacted)
* ``app``             ``create_app``: assembles the above (and mounts a hub when given)
* ``server``          ``serve`` on loopback, ``running_sandbox`` for tests, ``in_process_client``

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
    "DemoNetwork": "published",
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
