"""What detail panes and dialogs show in full: a heartbeat's status message, the link that
could not be opened."""

from __future__ import annotations

import pytest
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


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (140, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_link_no_browser_opened_is_on_one_line(monkeypatch, size):
    """The ``O`` dialog wrapped the URL it asks you to copy across two lines: it is on one
    line, whole when the terminal is wide enough, else cut in the middle with the whole URL
    behind the hyperlink and on the clipboard."""
    from rich.cells import cell_len

    from tui.ui.screens.link import CUT_NOTE, LinkScreen

    monkeypatch.setattr("tui.browser.browser_unavailable", lambda: "no browser over SSH")
    rig = make_rig(screen="trending")
    async with rig.app.run_test(size=size) as pilot:
        await loaded(pilot)
        url = rig.app.screen.link_url()
        assert url and cell_len(url) > 56  # wider than a 60-column dialog's line
        await pilot.press("O")
        await settle(pilot)
        screen = rig.app.screen
        assert isinstance(screen, LinkScreen) and rig.app.clipboard == url
        line = screen.query_one("#link-url")
        shown = line.render()
        assert any(getattr(span.style, "link", None) == url for span in shown.spans)
        painted = svg_lines(rig.app.export_screenshot())
        fits = cell_len(url) <= size[0] - 4  # border and padding
        if fits:
            assert shown.plain == url
            assert sum(url in row for row in painted) == 1  # on one line, whole
            assert CUT_NOTE not in " ".join(painted)
        else:
            assert shown.plain != url and "…" in shown.plain
            head, tail = shown.plain.split("…")
            assert url.startswith(head) and url.endswith(tail)
            assert sum(shown.plain in row for row in painted) == 1
            assert words(CUT_NOTE) in words(" ".join(painted))


def svg_lines(svg: str) -> list[str]:
    from app_rig import svg_text

    return [row.strip("│ ") for row in svg_text(svg).split("\n")]
