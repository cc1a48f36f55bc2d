"""`roost sandbox serve` takes "now" the way `roost demo` does."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

import tui.sandbox.server
import tui.service
from tui.cli import main

HOUR = datetime(2031, 5, 6, 7, 0, tzinfo=UTC)


@pytest.fixture
def served(monkeypatch) -> dict[str, Any]:
    """What `roost sandbox serve` asks the server for (nothing is served)."""
    seen: dict[str, Any] = {}

    async def fake_serve(host: str, port: int, **kwargs: Any) -> None:
        seen.update(kwargs, host=host, port=port)

    monkeypatch.setattr(tui.sandbox.server, "serve", fake_serve)
    monkeypatch.setattr(tui.service, "demo_epoch", lambda: HOUR)
    return seen


def test_sandbox_serve_takes_now_as_roost_demo_does(served):
    assert main(["sandbox", "serve", "--port", "0"]) == 0
    assert served["epoch"] == HOUR == tui.service.demo_epoch()
    # (roost demo's network is made with tui.service.demo_epoch() too: tui.service.connect)


def test_sandbox_serve_epoch_can_be_pinned(served):
    assert main(["sandbox", "serve", "--port", "0", "--epoch", "2026-11-01T12:00"]) == 0
    assert served["epoch"] == datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def test_a_bad_epoch_is_a_usage_error(served, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["sandbox", "serve", "--epoch", "yesterday"])
    assert exit_info.value.code == 2
    assert "not an ISO time" in capsys.readouterr().err


def test_sandbox_serve_plays_the_newer_processor_unless_told_the_classic(served):
    assert main(["sandbox", "serve", "--port", "0"]) == 0
    assert served["processor"] == "newer"
    assert main(["sandbox", "serve", "--port", "0", "--processor", "classic"]) == 0
    assert served["processor"] == "classic"
