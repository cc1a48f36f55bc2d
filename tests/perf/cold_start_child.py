"""One cold start in a fresh interpreter, spawned by bench_app.py.

    python cold_start_child.py bare|roost|load CACHE_DIR AGENTS

``bare`` and ``roost``: imports only what its own app needs (the bare app: Textual alone), runs
it headless at 120×40, prints the wall-clock time of its first populated display as JSON, and
exits; ``roost`` also prints how long its own ``load_cache()`` took (``own_load_s``).
``load``: the data load alone in a fresh interpreter, as the app does it (the store's
``load_cache()`` with the collector paused); prints its duration without and with the imports
it needs (tui.service, the store, the models).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

SIZE = (120, 40)
BASE = "http://127.0.0.1:9"  # the disk cache's service; nothing listens there (no network)
OWN_LOAD: list[float] = []  # the roost app's own load_cache() duration


def bare_app():
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("hello")

    return Bare(), lambda: True


def roost_app(cache_dir: str, agents: int):
    """Built as `roost --read-url BASE` builds it: settings in, `begin` connects the service
    (its store and disk cache), the app is given it."""
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from tui.config import Settings
    from tui.ui.speed.startup import begin

    settings = Settings(read_url=BASE, cache_dir=Path(cache_dir))
    service = begin(settings)  # as `roost` does before importing the app (tui/commands)
    from tui.ui.app import RoostApp
    from tui.ui.screens.agents import AgentsScreen

    app = RoostApp(service, poll=False)
    load_cache = app.store.load_cache

    def timed_load_cache():  # the data load this very process did (its own duration)
        started = time.perf_counter()
        try:
            return load_cache()
        finally:
            OWN_LOAD.append(time.perf_counter() - started)

    app.store.load_cache = timed_load_cache  # type: ignore[method-assign]

    def ready() -> bool:
        screen = app.screen
        return (
            isinstance(screen, AgentsScreen)
            and screen.body_filled
            and screen.table.total_count == agents
        )

    return app, ready


def data_load(cache_dir: str, agents: int) -> dict[str, float]:
    """The store's load_cache() alone, and with the imports it needs (store, models, msgspec)."""
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    imports_started = time.perf_counter()
    from tui.config import Settings
    from tui.service import connect

    store = connect(Settings(read_url=BASE, cache_dir=Path(cache_dir))).store
    started = time.perf_counter()
    snapshot = store.load_cache()  # the collector paused inside, as in the app
    finished = time.perf_counter()
    assert snapshot.agents is not None and len(snapshot.agents.agents) == agents
    return {"load_s": finished - started, "load_with_imports_s": finished - imports_started}


def peak_rss() -> int:
    """Peak resident set so far, in bytes (``VmHWM``: not inherited from the parent)."""
    from path_child import peak_rss as read

    return read()


def main() -> None:
    kind, cache_dir, agents = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if kind == "load":
        print(json.dumps(data_load(cache_dir, agents)), flush=True)
        return
    app, ready = bare_app() if kind == "bare" else roost_app(cache_dir, agents)
    done: list[float] = []

    rss: list[int] = []

    def hook() -> None:
        if not done and ready():
            done.append(time.time())
            rss.append(peak_rss())
            app.exit()

    from frames_written import written_only  # beside this script

    written_only(app)
    app.post_display_hook = hook
    app.run(headless=True, size=SIZE)
    result = {
        "painted_at": done[0] if done else None,
        "peak_rss_at_paint": rss[0] if rss else None,
        "own_load_s": OWN_LOAD[0] if OWN_LOAD else None,
    }
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
