"""The one home of the service's file names (ARCHITECTURE.md, the service): every module that names a state file
or the manifest imports it from here, so a new file or a renamed one is one edit.

No imports beyond the standard library: the CLI, the sandbox and the tab registry use it without
the models (msgspec) or Textual.
"""

from __future__ import annotations

__all__ = [
    "AGENTS",
    "CHANNELS",
    "CHANGES",
    "CONVERSATION_FILES",
    "DISCUSSIONS_CACHE",
    "DISCUSSIONS_INDEX",
    "FOLLOWS",
    "MEMORY_DIR",
    "NOTIFICATIONS",
    "OPTIONAL_FILES",
    "POKES",
    "MANIFEST_FILE",
    "POSTED_LOG",
    "PULSE_FILES",
    "SOCIAL_GRAPH",
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

# The conversation: published beside the five, big, and fetched only once a
# screen or a command asks for them (the Posts tab, a thread, ``roost posts``).
POSTED_LOG = "posted_log.json"  # every post and comment entry
DISCUSSIONS_CACHE = "discussions_cache.json"  # recent posts with their bodies (and comments)
DISCUSSIONS_INDEX = "discussions_index.json"  # GraphQL node ids by Discussion number
CONVERSATION_FILES: tuple[str, ...] = (POSTED_LOG, DISCUSSIONS_CACHE, DISCUSSIONS_INDEX)

# The network's pulse: what happened to each agent and what is happening now, and who is
# connected to whom; read once a screen or a command asks (the inbox, Activity, a profile).
NOTIFICATIONS = "notifications.json"  # what happened to each agent (pokes, follows, media)
POKES = "pokes.json"  # who poked whom, why, and whether it was answered
CHANGES = "changes.json"  # the 7-day change log: heartbeats, new agents, dormancy, audits
FOLLOWS = "follows.json"
SOCIAL_GRAPH = "social_graph.json"  # nodes with their degrees, weighted edges
PULSE_FILES: tuple[str, ...] = (NOTIFICATIONS, POKES, CHANGES, FOLLOWS, SOCIAL_GRAPH)
MEMORY_DIR = "memory"  # {read_url}/state/memory/<agent-id>.md: an agent's soul page

#: Files a deployment may not publish: a 404 for one is "not published", never a problem.
OPTIONAL_FILES: frozenset[str] = frozenset(CONVERSATION_FILES + PULSE_FILES)

MANIFEST_FILE = "manifest-hashes.json"
