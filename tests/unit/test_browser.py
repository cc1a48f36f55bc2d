"""Where a browser can open (issue 12 item 5): never claimed over SSH or on a headless box."""

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
    ],
)
def test_a_browser_is_tried_only_with_a_display_or_on_macos_and_windows(environ, platform, opens):
    reason = browser_unavailable(environ, platform)
    assert (reason is None) is opens
    if "SSH_TTY" in environ or ("SSH_CONNECTION" in environ and not opens):
        assert reason is not None and "SSH" in reason
