"""Every behaviour test in this folder runs against both ThreadStore implementations."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tether_server.store.base import ThreadStore
from tether_server.store.memory import MemoryThreadStore
from tether_server.store.sqlite import SqliteThreadStore


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[ThreadStore]:
    chosen: ThreadStore
    chosen = MemoryThreadStore() if request.param == "memory" else SqliteThreadStore(tmp_path / "tether.db")
    await chosen.open()
    yield chosen
    await chosen.close()
