"""Where a browser can open: roost's one answer (the dashboard's links and the Outbox screen's).
Never on a headless box; over SSH only with a forwarded display, on any platform (a browser
opened on the remote Mac's screen is not one the person sees)."""

from __future__ import annotations

import pytest

from tui.browser import browser_unavailable


@pytest.mark.parametrize(
    ("environ", "platform", "opens"),
    [
        ({"DISPLAY": ":0"}, "linux", True),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
        ({"DISPLAY": ":0", "SSH_CONNECTION": "1 2 3 4"}, "linux", True),  # X forwarding
        ({}, "darwin", True),
        ({}, "win32", True),
        ({}, "linux", False),
        ({"SSH_CONNECTION": "1 2 3 4"}, "linux", False),
        ({"SSH_TTY": "/dev/pts/1"}, "freebsd14", False),
        ({"SSH_TTY": "/dev/pts/1"}, "darwin", False),
        ({"SSH_CONNECTION": "1 2 3 4"}, "win32", False),
        ({"SSH_CONNECTION": "1 2 3 4", "WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
    ],
)
def test_a_browser_is_tried_only_with_a_display_or_on_macos_and_windows(environ, platform, opens):
    reason = browser_unavailable(environ, platform)
    assert (reason is None) is opens
    if "SSH_TTY" in environ or ("SSH_CONNECTION" in environ and not opens):
        assert reason is not None and "SSH" in reason


def test_the_outbox_screen_asks_the_same_rule(monkeypatch):
    """One answer: the Outbox screen asks this rule (its own copy disagreed about SSH)."""
    import importlib.util
    import inspect

    from tui.ui.screens.outbox import screen

    assert importlib.util.find_spec("tui.ui.screens.outbox.browser") is None
    default = inspect.signature(screen.OutboxScreen.__init__).parameters["can_open_browser"]
    monkeypatch.setattr(screen, "browser_unavailable", lambda: None)
    assert default.default() is True
    monkeypatch.setattr(screen, "browser_unavailable", lambda: "no display")
    assert default.default() is False
