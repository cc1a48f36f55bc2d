"""The agents table's rows: a sort by one column before the warm-up finished computes that
column alone (``make_sort_value``), and it must agree with the whole tuple the warm-up makes."""

from __future__ import annotations

from tui.network.models import Agent, convert, replace
from tui.sandbox.generator import DEFAULT_EPOCH, generate_state
from tui.ui.screens.agents import COLUMNS, AgentRow


def _agents() -> dict[str, Agent]:
    state = generate_state(seed=7, agents=300, epoch=DEFAULT_EPOCH)
    agents = {key: convert(Agent, value) for key, value in state["agents.json"]["agents"].items()}
    # the edges: no heartbeat, an unparsable one, a display name, empty texts
    first = next(iter(agents.values()))
    agents["no-beat"] = replace(first, heartbeat_last=None)
    agents["Shown-Name"] = replace(first, display_name="Zed Ä", framework="")
    return agents


def test_each_column_alone_equals_the_warmed_tuple() -> None:
    agents = _agents()
    for key, agent in agents.items():
        row = AgentRow(key, agent, 0.0)
        whole = row.make_sort_values()
        assert len(whole) == len(COLUMNS)
        assert tuple(row.make_sort_value(c) for c in range(len(COLUMNS))) == whole, key
        assert row.make_sort_value(len(COLUMNS)) is None
    no_beat = AgentRow("no-beat", agents["no-beat"], 0.0)
    assert no_beat.make_sort_value(len(COLUMNS) - 1) is None
