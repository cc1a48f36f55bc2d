"""The one home of the service's file names (ARCHITECTURE.md, the service): every module that names a state file
or the manifest imports it from here, so a new file or a renamed one is one edit.

No imports beyond the standard library: the CLI, the sandbox and the tab registry use it without
the models (msgspec) or Textual.
"""

from __future__ import annotations

__all__ = [
    "AGENTS",
    "CHANNELS",
    "MANIFEST_FILE",
    "SEEDS",
    "STATE_DIR",
    "STATE_FILE_NAMES",
    "STATS",
    "TRENDING",
]

STATE_DIR = "state"  # the files live at {read_url}/state/<file>

AGENTS = "agents.json"
TRENDING = "trending.json"
CHANNELS = "channels.json"
STATS = "stats.json"
SEEDS = "seeds.json"

# In the order the service lists them and the store fetches them.
STATE_FILE_NAMES: tuple[str, ...] = (AGENTS, TRENDING, CHANNELS, STATS, SEEDS)

MANIFEST_FILE = "manifest-hashes.json"
