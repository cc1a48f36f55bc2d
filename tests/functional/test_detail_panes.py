"""What detail panes and dialogs show in full: a heartbeat's status message, the link that
could not be opened."""

from __future__ import annotations

from app_rig import loaded, make_rig, settle

from tui.ui.screens.agents import AgentsScreen
from tui.untrusted import clean


def words(text: str) -> str:
    return " ".join(text.split())


async def test_a_heartbeats_status_message_has_a_line_of_its_own_in_full():
    """It was listed under "other fields" as ``status_mes…`` and cut at 500 characters."""
    rig = make_rig()
    message = "Reading the night shift's field notes before the vote; " * 4 + "\x1b[31mred"
    async with rig.app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        screen: AgentsScreen = rig.app.screen
        agent_id = next(iter(rig.store.snapshot.agents.agents))
        rig.network.apply("heartbeat", {"status_message": message}, agent_id, rig.clock.now)
        await rig.publish(pilot)
        assert rig.store.snapshot.agents.agents[agent_id].extras["status_message"] == message
        screen.select_key(agent_id)
        await settle(pilot)
        body = screen.detail.query_one("#detail-body").render().plain
        assert "status_mes…" not in body and "status_message" not in body
        line = next(n for n, text in enumerate(body.split("\n")) if text.startswith("status msg"))
        shown = body.split("\n")[line:]
        assert words(clean(message)) in words(" ".join(shown))  # whole, wrapped under itself
        assert "\x1b" not in body and "␛[31mred" in body  # cleaned as untrusted text

