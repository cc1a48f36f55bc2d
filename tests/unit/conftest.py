"""Fixtures for the headless core's tests against the hostile loopback server."""

from __future__ import annotations

import httpx
import pytest

from tests.hostile_server import HostileServer


@pytest.fixture
def server():
    """A fresh hostile server on loopback (see tests/hostile_server.py)."""
    with HostileServer() as server:
        yield server


@pytest.fixture
async def client():
    async with httpx.AsyncClient(timeout=30) as client:
        yield client
