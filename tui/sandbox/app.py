"""The demo network as a Starlette app: ``create_app`` assembles the sandbox's interfaces.

URL layout, relative to the app's base URL (``http://127.0.0.1:<port>`` or an ASGI base URL):

* read_url  = base          ``GET /state/<file>``                      (``read_interface``)
                            (also ``/raw/{owner}/{repo}/{branch}/state/<file>``)
* write_url = base + /api   GitHub-shaped issue API, auth, rate limits (``github_api``),
                            GraphQL for Discussions (``graphql_api``), Discussions and
                            notifications over REST (``discussions_api``)
* hub_url   = base + /hub   the demo hub (``hub``: index, records, egg downloads) unless another is given
* control   /_sandbox/...   fault knobs, manual processing, direct apply (``control``)

What the app keeps is ``app.state.sandbox``, a ``SandboxState`` (``state``); every request
outside the control endpoints lands in its request log (``request_log``), and before each
request the processor handles the issues that are due (the ``process_delay`` knob).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from starlette.applications import Starlette
from starlette.routing import BaseRoute, Mount
from starlette.types import ASGIApp

from tui.clock import utc_now
from tui.sandbox import control, discussions_api, github_api, graphql_api, read_interface
from tui.sandbox.faults import CACHE_FORMS, Faults
from tui.sandbox.generator import DEFAULT_EPOCH
from tui.sandbox.github_api import API_VERSION, DEMO_LOGIN, DEMO_TOKEN, OAUTH_SCOPES
from tui.sandbox.hub import create_hub
from tui.sandbox.published import DemoNetwork
from tui.sandbox.request_log import RequestLogMiddleware, RequestRecord
from tui.sandbox.state import (
    PROCESSOR_LOGIN,
    PROCESSORS,
    ProcessDueMiddleware,
    SandboxIssue,
    SandboxState,
)

__all__ = [
    "API_VERSION",
    "DEMO_LOGIN",
    "DEMO_TOKEN",
    "HUB_PATH",
    "OAUTH_SCOPES",
    "RequestRecord",
    "SandboxIssue",
    "SandboxState",
    "create_app",
]

#: Where the hub is mounted: ``hub_url = base + HUB_PATH``.
HUB_PATH = "/hub"


def create_app(
    network: DemoNetwork | None = None,
    *,
    seed: int = 7,
    agents: int = 300,
    epoch: datetime = DEFAULT_EPOCH,
    tokens: dict[str, str] | None = None,
    owner: str = "roost-demo",
    repo: str = "network",
    auto_process: bool = True,
    faults: Faults | None = None,
    clock: Callable[[], datetime] | None = None,
    hub: ASGIApp | None = None,
    processor: str = "newer",
    processor_login: str = PROCESSOR_LOGIN,
    discussions_cache: str = "light",
) -> Starlette:
    """The sandbox app. ``app.state.sandbox`` is its ``SandboxState``.

    ``tokens`` maps bearer tokens to logins (default ``{DEMO_TOKEN: "demo-agent"}``); ``clock``
    gives issue and action timestamps (default: the wall clock, so clients can list their
    issues ``since`` a moment they measured); ``hub`` is mounted at ``HUB_PATH``;
    ``processor`` is the generation played (``"newer"``: two steps and receipts, ``"classic"``:
    ✅ and close), commenting as ``processor_login``; ``discussions_cache`` the form
    ``discussions_cache.json`` is published in ("light": post bodies and comment authors,
    "full": comments too; the ``discussions_cache`` fault knob switches it while running).
    """
    if processor not in PROCESSORS:
        raise ValueError(f"processor must be one of {', '.join(PROCESSORS)}, not {processor!r}")
    if network is None:
        network = DemoNetwork.generate(
            seed=seed,
            agents=agents,
            epoch=epoch,
            owner=owner,
            repo=repo,
            discussions_cache=discussions_cache,
        )
    elif discussions_cache not in CACHE_FORMS:
        raise ValueError(f"discussions_cache must be one of {', '.join(CACHE_FORMS)}")
    state = SandboxState(
        network=network,
        faults=faults or Faults(),
        tokens=dict(tokens) if tokens is not None else {DEMO_TOKEN: DEMO_LOGIN},
        owner=owner,
        repo=repo,
        auto_process=auto_process,
        clock=clock or utc_now,
        processor=processor,
        processor_login=processor_login,
        discussions_cache=discussions_cache,
    )
    state.sync_cache_form()
    routes: list[BaseRoute] = [
        *read_interface.routes(),
        *graphql_api.routes(),
        *discussions_api.routes(),
        *github_api.routes(),
        *control.routes(),
    ]
    # The one place the hub joins the app.
    routes.append(Mount(HUB_PATH, app=hub if hub is not None else create_hub()))
    app = Starlette(routes=routes)
    app.state.sandbox = state
    app.add_middleware(ProcessDueMiddleware, get_state=lambda: state)
    app.add_middleware(
        RequestLogMiddleware, get_state=lambda: state, unlogged_prefix=control.CONTROL_PREFIX
    )
    return app
