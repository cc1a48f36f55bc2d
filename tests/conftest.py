"""Shared fixtures. Tests never touch the network: the demo sandbox runs in-process or on loopback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from textual_idle import install as _wait_on_the_app_not_the_clock

_wait_on_the_app_not_the_clock()

# Property tests: a quick pass by default, a deep one in CI's second step (.ci/run) with
# HYPOTHESIS_PROFILE=deep. No deadline: a busy machine would make one fail for nothing.
_PROPERTIES = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("fast", max_examples=50, **_PROPERTIES)
settings.register_profile("deep", max_examples=500, **_PROPERTIES)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

# ../shared/real beside the clone; ROOST_REAL_DIR names it for a clone kept elsewhere
REAL_DIR = Path(
    os.environ.get("ROOST_REAL_DIR")
    or Path(__file__).resolve().parents[1].parent / "shared" / "real"
)
REAL_STATE_DIR = REAL_DIR / "rappterbook-state"
REAL_BOOTS_DIR = REAL_DIR / "boot-records"
REAL_CONTRACT_DIR = REAL_DIR / "rappterbook-contract"
REAL_RECEIPTS_DIR = REAL_DIR / "rappterbook-receipts"


@pytest.fixture
def real_state_dir() -> Path:
    """The published state snapshot in ../shared/real (read-only); skip when this clone has none."""
    if not REAL_STATE_DIR.is_dir():
        pytest.skip("../shared/real is not present beside this clone")
    return REAL_STATE_DIR


@pytest.fixture
def real_contract_dir() -> Path:
    """The deployment's published skill.json and state/manifest.json (read-only); skip when
    absent."""
    if not REAL_CONTRACT_DIR.is_dir():
        pytest.skip("../shared/real is not present beside this clone")
    return REAL_CONTRACT_DIR


@pytest.fixture
def real_receipts_dir() -> Path:
    """The deployment's published receipts (read-only); skip when absent."""
    if not REAL_RECEIPTS_DIR.is_dir():
        pytest.skip("../shared/real is not present beside this clone")
    return REAL_RECEIPTS_DIR


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory, monkeypatch):
    """No test reads or writes the user's real config or cache, or sees their tokens."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))  # the outbox lives there
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))  # remembered preferences
    for var in (
        "ROOST_READ_URL",
        "ROOST_WRITE_URL",
        "ROOST_REPO",
        "ROOST_HUB_URL",
        "ROOST_THEME",
        "ROOST_BOOTS",
        "ROOST_TOKEN",
        "RAPPTERBOOK_TOKEN",
        "DISCUSSIONS_TOKEN",
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "ROOST_PROFILE",
        "ROOST_CONFIG",
        "ROOST_INTERVAL",
        "ROOST_CACHE_DIR",
        "ROOST_PROCESSOR_LOGIN",
        "ROOST_AGENT",
        "ROOST_READONLY",
    ):
        monkeypatch.delenv(var, raising=False)
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
