"""Connecting settings to a service: the real one over HTTP, or the embedded demo network.

:func:`connect` is the one construction path: the CLI and the dashboard both call it, so `roost
state` and `roost` read the same service the same way, and the dashboard is handed the
:class:`Service` it builds. The demo network is served in-process through
``httpx.ASGITransport``: no socket is opened, so `roost` works on a machine with no network; its
world is kept under roost's data folder, so every command and the dashboard see the same one.

Importing this module is cheap (the store and the demo network are imported by
:func:`connect`): `roost` calls it before the dashboard's imports, so that its disk cache is
read on another core meanwhile (tui/ui/speed/startup.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import msgspec

from tui.clock import utc_now
from tui.config import DEMO_BASE_URL, Settings, session_of
from tui.eggs.hub_paths import PUBLIC_HUB_URL, demo_sources
from tui.network.disk_cache import DiskCache
from tui.session import Secret, Session

if TYPE_CHECKING:
    import httpx

    from tui.actions.poster import Poster
    from tui.conversation.reader import Threads
    from tui.eggs.boot_rows import BootsSource
    from tui.network.store import Building, Store, StoreOptions
    from tui.pulse.soul import SoulPages

__all__ = ["DEMO_BASE_URL", "Service", "connect", "demo_epoch"]


def demo_epoch() -> datetime:
    """The demo network's "now": the current hour, so ages look alive yet stay stable for an hour."""
    return utc_now().replace(minute=0, second=0, microsecond=0)


@dataclass
class Service:
    """Everything a front end needs to talk to one service.

    ``settings`` are the user's, complete (profile, config file, ``[actions]``); on the demo
    network its write URL, repository and hub are the sandbox's, and so is the ``session``'s
    token. Whether this is the demo is ``settings.demo``, nowhere else. ``session``: what this
    run learned (its token and where it came from, read-only, the SSH role: tui/session.py).
    """

    settings: Settings
    store: Store
    session: Session = field(default_factory=Session)
    demo_app: object | None = None  # the in-process sandbox: its hub, and tests' fault knobs
    client: httpx.AsyncClient | None = None  # shared by the store and the issue client
    #: Where the Boots tab's records and eggs come from; None: built from ``settings.boots``
    #: when first asked for (:meth:`boots`). Tests hand in their own.
    boots_source: BootsSource | None = None
    #: The demo world's identity: its outbox is its own (a reset world starts a new one).
    run_id: str = field(default_factory=lambda: secrets.token_hex(6))
    #: The hub the user named (flag, environment, config); None: only the demo's own records
    #: are held to the demo hub, any other record to its own hub (tui/eggs/sources.py).
    configured_hub_url: str | None = None

    _hub_client: httpx.AsyncClient | None = None
    _threads: Threads | None = None
    _soul_pages: SoulPages | None = None
    #: The write side (tui/actions/poster.py): one per service, its issue client made once.
    poster: Poster = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # settings that say read-only make the run read-only, whatever session came with them
        if self.settings.readonly and not self.session.readonly:
            self.session = msgspec.structs.replace(
                self.session, readonly_source=session_of(self.settings).readonly_source
            )
        # deferred: off the start path (connect() has started reading the disk cache by now)
        from tui.actions.poster import Poster

        self.poster = Poster.for_service(self)

    @property
    def demo(self) -> bool:
        """On the embedded demo network (``settings.demo``)."""
        return self.settings.demo

    @property
    def hub_url(self) -> str:
        """Where eggs may be downloaded from (the public hub unless one is configured)."""
        return (self.settings.hub_url or PUBLIC_HUB_URL).rstrip("/")

    def boots(self) -> BootsSource | None:
        """The Boots tab's records and eggs (None: no boot-record source is configured)."""
        if self.boots_source is None and self.settings.boots:
            from tui.eggs.hub_boots import HubBoots  # deferred: off the start path

            self.boots_source = HubBoots(self)
        return self.boots_source

    def threads(self) -> Threads:
        """The service's one thread reader (tui/conversation/reader.py), made on first use:
        the thread screen and `roost thread` read through it, so they share its copies, its
        ETags and what it knows of GitHub's rate limit."""
        if self._threads is None:
            from tui.conversation.reader import Threads  # deferred: off the start path

            self._threads = Threads.for_service(self)
        return self._threads

    def soul_pages(self) -> SoulPages:
        """The service's one soul-page reader (tui/pulse/soul.py), made on first use: the
        profile and any command share its copies and their ETags."""
        if self._soul_pages is None:
            from tui.pulse.soul import SoulPages  # deferred: off the start path

            self._soul_pages = SoulPages.for_service(self)
        return self._soul_pages

    def hub_client(self) -> httpx.AsyncClient:
        """The client for boot records and eggs, of its own: it carries no token (the hub never
        sees it) and follows no redirect (eggs come from the hub URL only)."""
        if self._hub_client is None:
            import httpx  # deferred: off the start path

            # the demo network's own hub answers in-process; any other hub (a --hub-url or
            # --boots given beside the demo network) over the network
            mounts = {}
            if self.demo_app is not None:
                mounts[f"all://{urlsplit(DEMO_BASE_URL).netloc}"] = httpx.ASGITransport(
                    app=self.demo_app  # type: ignore[arg-type]
                )
            self._hub_client = httpx.AsyncClient(
                timeout=30.0,
                follow_redirects=False,
                mounts=mounts,
                base_url=DEMO_BASE_URL if self.demo_app is not None else "",
            )
        return self._hub_client

    def demo_posts(self) -> int:
        """How many issues and Discussions the demo world holds (what a reset sets aside);
        0 off the demo network."""
        sandbox = getattr(getattr(self.demo_app, "state", None), "sandbox", None)
        if sandbox is None:
            return 0
        return len(sandbox.issues) + len(sandbox.discussions)

    def reset_demo(self) -> None:
        """Start a fresh demo world under this service (`roost demo --reset`): the old one is
        moved aside, and its outbox with it (a new world has a new one). Demo network only."""
        world = getattr(getattr(self.demo_app, "state", None), "world", None)
        if world is None:
            raise RuntimeError("only the demo network can be reset")
        sandbox = self.demo_app.state.sandbox  # type: ignore[attr-defined]
        self.run_id = world.reset_live(sandbox, world.fresh_network())

    async def aclose(self) -> None:
        await self.poster.aclose()
        if self._threads is not None:
            await self._threads.aclose()
        if self._soul_pages is not None:
            await self._soul_pages.aclose()
        await self.store.aclose()
        if self.client is not None:
            await self.client.aclose()
        if self._hub_client is not None:
            await self._hub_client.aclose()


def connect(
    settings: Settings,
    session: Session | None = None,
    *,
    use_cache: bool = True,
    cache: DiskCache | None = None,
    prefetch: bool = False,
    options: StoreOptions | None = None,
    epoch: datetime | None = None,
    agents: int | None = None,
    clock: Callable[[], datetime] | None = None,
    files: Iterable[str] | None = None,
    follow: int | None = None,
    building: Building | None = None,
) -> Service:
    """Build the service for ``settings`` and ``session`` (None: the one the settings alone
    imply, :func:`tui.config.session_of`); demo settings get an in-process sandbox.

    ``cache``: the disk cache to use (default: the service's own folder, unless ``use_cache``
    is False). ``prefetch``: start reading it in a background thread at once (`roost` does, so
    that the read overlaps the dashboard's imports). ``files``: the state files its store
    reads (default the five; `roost posts` reads only the log and trending). ``follow``: the
    descriptor of a refresher's feed (a session of `roost serve-ssh`): the store follows it
    and makes no request for state files (tui/network/feed.py). ``building``: what the store
    wraps each long-lived build in (the dashboard's memory policy, tui/ui/speed); none by
    default.
    """
    if session is None:
        session = session_of(settings)
    if not use_cache:
        cache = None
    elif cache is None:
        cache = DiskCache.for_service(settings.state_url, settings.cache_dir)
    if cache is not None and prefetch:
        cache.prefetch()

    from tui.network.store import Store, StoreOptions  # deferred: off the start path

    options = options or StoreOptions(interval_s=settings.interval)
    kwargs: dict[str, Any] = {"options": options, "building": building}
    if clock is not None:
        kwargs["clock"] = clock  # screenshots freeze the store's
    if files is not None:
        kwargs["files"] = tuple(files)
    kind: type[Store] = Store
    if follow is not None and cache is not None:
        # deferred: off the start path
        from tui.network.feed import FollowerStore

        kind, kwargs["feed"] = FollowerStore, follow
    if not settings.demo:
        store = kind(settings.state_url, cache=cache, **kwargs)
        return Service(settings, store, session, configured_hub_url=settings.hub_url)

    # deferred: off the start path
    from tui.sandbox.app import DEMO_TOKEN
    from tui.sandbox.server import in_process_client
    from tui.sandbox.world import DemoWorld

    network: dict[str, Any] = {"epoch": epoch or demo_epoch()}
    if agents is not None:
        network["agents"] = agents
    world = DemoWorld()  # one world per machine, kept across runs (tui/sandbox/world.py)
    app = world.open_app(**network)
    client = in_process_client(app, base_url=DEMO_BASE_URL)
    sandbox = app.state.sandbox
    hub_url = settings.hub_url or DEMO_BASE_URL + "/hub"  # a hub given beside the demo wins
    # the user's settings (profile, config file, [actions]) with the sandbox's write side
    demo_settings = msgspec.structs.replace(
        settings,
        write_url=DEMO_BASE_URL + "/api",
        hub_url=hub_url,
        boots=settings.boots or demo_sources(hub_url),
        repo=f"{sandbox.owner}/{sandbox.repo}",
    )
    # served over SSH, a session holds only a token its user types (tui/ssh/mode.py);
    # read-only holds none (tui/read_only.py)
    no_token = bool(session.ssh_role or session.readonly)
    demo_session = msgspec.structs.replace(
        session,
        token=None if no_token else Secret(DEMO_TOKEN),
        token_source=None if no_token else "demo",
    )
    store = kind(DEMO_BASE_URL, client=client, cache=cache, **kwargs)
    return Service(
        demo_settings,
        store,
        demo_session,
        demo_app=app,
        client=client,
        configured_hub_url=settings.hub_url,
        run_id=world.id or "demo",
    )
