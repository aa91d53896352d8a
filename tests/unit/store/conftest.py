"""Every behaviour test in this folder runs against both ThreadStore implementations."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tether_server.store.base import ThreadStore
from tether_server.store.memory import MemoryThreadStore
from tether_server.store.sqlite import SqliteThreadStore

# SQLite searches either scan a window of threads in page order or use the full-text index; the
# variants force each path (and their mix while paging) so both keep the same behaviour.
SQLITE_PROBE_WINDOWS = {"sqlite": 1000, "sqlite-index-only": 0, "sqlite-small-window": 2}


@pytest.fixture(params=["memory", *SQLITE_PROBE_WINDOWS])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[ThreadStore]:
    chosen: ThreadStore = MemoryThreadStore()
    if request.param in SQLITE_PROBE_WINDOWS:
        window = SQLITE_PROBE_WINDOWS[request.param]
        chosen = SqliteThreadStore(tmp_path / "tether.db", search_probe_window=window)
    await chosen.open()
    yield chosen
    await chosen.close()
