"""One cold start in a fresh interpreter, spawned by bench_app.py.

    python cold_start_child.py bare|roost CACHE_DIR AGENTS

Imports only what its own app needs (the bare app: Textual alone), runs it headless at 120×40,
prints the wall-clock time of its first populated display as JSON, and exits.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

SIZE = (120, 40)
BASE = "http://127.0.0.1:9"  # the disk cache's service; nothing listens there (no network)


def bare_app():
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("hello")

    return Bare(), lambda: True


def roost_app(cache_dir: str, agents: int):
    """Built as `roost --read-url BASE` builds it: settings in, the app makes store and cache."""
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))

    from tui.app import RoostApp
    from tui.config import Settings
    from tui.screens.agents import AgentsScreen

    app = RoostApp(Settings(read_url=BASE, cache_dir=Path(cache_dir)), poll=False)

    def ready() -> bool:
        screen = app.screen
        return isinstance(screen, AgentsScreen) and screen.table.total_count == agents

    return app, ready


def main() -> None:
    kind, cache_dir, agents = sys.argv[1], sys.argv[2], int(sys.argv[3])
    app, ready = bare_app() if kind == "bare" else roost_app(cache_dir, agents)
    done: list[float] = []

    def hook() -> None:
        if not done and ready():
            done.append(time.time())
            app.exit()

    app.post_display_hook = hook
    app.run(headless=True, size=SIZE)
    print(json.dumps({"painted_at": done[0] if done else None}), flush=True)


if __name__ == "__main__":
    main()
