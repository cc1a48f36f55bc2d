"""scripts/screenshots.py: the outbox it shows is made through roost's own outbox and issue
client on the demo network, holds an entry in every state, and comes out the same every run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from app_rig import svg_text

ROOT = Path(__file__).resolve().parents[2]
XDG = ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME")


@pytest.fixture(scope="module")
def shots() -> ModuleType:
    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "scripts/screenshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("screenshots", module)
    spec.loader.exec_module(module)
    return module


def fresh_home(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    for var in XDG:
        monkeypatch.setenv(var, str(folder / var.lower()))


def shot(shots: ModuleType, name: str):
    return next(s for s in shots.SHOTS if s.name == name)


async def test_the_outbox_shot_holds_an_entry_in_every_state(shots, tmp_path, monkeypatch):
    from datetime import timedelta

    from tui.actions.connection import write_side
    from tui.config import Settings
    from tui.sandbox.generator import DEFAULT_EPOCH
    from tui.service import connect

    fresh_home(monkeypatch, tmp_path)
    clock = shots.FrozenClock(DEFAULT_EPOCH - timedelta(minutes=20))
    service = connect(Settings(), use_cache=False, epoch=DEFAULT_EPOCH, clock=clock)
    service.demo_app.state.sandbox.clock = clock
    try:
        with shots._pinned(shot(shots, "outbox"), clock):
            await shots._outbox_in_every_state(service, clock)
        write = write_side(service)
        entries = list(reversed(write.outbox.entries()))
        await write.aclose()
    finally:
        await service.aclose()
    states = [entry.state for entry in entries]
    assert states == [
        "queued", "received", "accepted", "unknown", "failed", "rejected", "applied",
    ]  # fmt: skip
    rejected = entries[states.index("rejected")]
    assert rejected.receipt and "is not registered" in rejected.receipt["error"]
    failed = entries[states.index("failed")]
    assert failed.reason and "403" in failed.reason
    assert entries[states.index("unknown")].reason == "interrupted while sending"


@pytest.mark.slow
async def test_the_outbox_shot_is_the_same_every_run(shots, tmp_path, monkeypatch):
    taken = []
    for run in range(2):
        fresh_home(monkeypatch, tmp_path / str(run))
        taken.append(await shots.take(shot(shots, "outbox")))
    assert taken[0] == taken[1]
    lines = [line.strip() for line in svg_text(taken[0]).split("\n") if line.strip()]
    assert lines[0] == "Outbox · 7 entries · demo network"  # the service's name
    assert lines[2].split()[:2] == ["state", "action"]
    states = [line.split()[0] for line in lines[3:10]]
    assert states == [
        "queued", "received", "accepted", "unknown", "failed", "rejected", "applied",
    ]  # fmt: skip
